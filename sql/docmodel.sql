/*
 * docmodel install script (the whole current version; copied to
 * docmodel--<version>.sql at build).
 *
 * Security (PostgreSQL's "Security Considerations for Extensions"): every
 * object is created in schema docmodel, which the extension creates and owns;
 * nothing is CREATE OR REPLACE; references are schema-qualified; SQL-language
 * and PL/pgSQL functions pin search_path; operators are written
 * OPERATOR(pg_catalog.=) where a user's search_path could hijack them.
 *
 * One section per concern, in dependency order; each section belongs to the
 * concern's source file named in its heading.
 */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION docmodel" to load this file. \quit

-------------------------------------------------------------------------------
-- Keys (src/key.c)
-------------------------------------------------------------------------------

-- key() and key_with() are not STRICT: a NULL part is an error, never skipped.
CREATE FUNCTION docmodel.key(VARIADIC parts "any") RETURNS text
	AS 'MODULE_PATHNAME', 'key'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.key("any") IS
	'Join key parts (text, varchar, char, name, integers, numeric, uuid, boolean) with "::", checking the key rules; a NULL part is an error';

CREATE FUNCTION docmodel.key_with(delimiter text, VARIADIC parts "any") RETURNS text
	AS 'MODULE_PATHNAME', 'key_with'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.key_with(text, "any") IS
	'Join key parts with the given delimiter (1-4 bytes, no letters, digits or whitespace), checking the key rules';

CREATE FUNCTION docmodel.key_parts(key text, delimiter text DEFAULT '::') RETURNS text[]
	AS 'MODULE_PATHNAME', 'key_parts'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.key_parts(text, text) IS
	'Split a key into its parts';

CREATE FUNCTION docmodel.key_type(key text, delimiter text DEFAULT '::') RETURNS text
	AS 'MODULE_PATHNAME', 'key_type'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.key_type(text, text) IS
	'First part of a key (its document type)';

CREATE FUNCTION docmodel.key_id(key text, delimiter text DEFAULT '::') RETURNS text
	AS 'MODULE_PATHNAME', 'key_id'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.key_id(text, text) IS
	'Last part of a key (its id)';

CREATE FUNCTION docmodel.key_parent(key text, delimiter text DEFAULT '::') RETURNS text
	AS 'MODULE_PATHNAME', 'key_parent'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.key_parent(text, text) IS
	'All but the last part of a key; NULL for a one-part key';

CREATE FUNCTION docmodel.key_is_valid(key text, delimiter text DEFAULT '::') RETURNS boolean
	AS 'MODULE_PATHNAME', 'key_is_valid'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.key_is_valid(text, text) IS
	'Whether the key and delimiter keep the key rules; never raises an error';

CREATE FUNCTION docmodel.uuid_key(doc_type text) RETURNS text
	AS 'MODULE_PATHNAME', 'uuid_key'
	LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.uuid_key(text) IS
	'New key doc_type::<32 hex digits of a UUIDv7>; keys made by one session sort in creation order';

CREATE FUNCTION docmodel.revision_key(key text, ver integer, delimiter text DEFAULT '::') RETURNS text
	AS 'MODULE_PATHNAME', 'revision_key'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.revision_key(text, integer, text) IS
	'Key of revision ver of a document: key::v::ver (user::123::v::4)';

-- (end of keys)


-------------------------------------------------------------------------------
-- Versions (src/version.c)
-------------------------------------------------------------------------------

-- (end of versions)


-------------------------------------------------------------------------------
-- Counters (src/counter.c)
-------------------------------------------------------------------------------

-- (end of counters)


-------------------------------------------------------------------------------
-- Migrations (src/migrate.c)
-------------------------------------------------------------------------------

-- (end of migrations)


-------------------------------------------------------------------------------
-- Collections and documents (src/collection.c, src/document.c, src/kv.c)
-------------------------------------------------------------------------------

-- (end of collections)


-------------------------------------------------------------------------------
-- Revisions (src/revision.c)
-------------------------------------------------------------------------------

-- (end of revisions)
