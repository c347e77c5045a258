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

CREATE FUNCTION docmodel.diff(a jsonb, b jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'diff'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.diff(jsonb, jsonb) IS
	'RFC 6902 JSON Patch turning a into b (objects member by member, arrays position by position)';

CREATE FUNCTION docmodel.patch(doc jsonb, patch jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'patch'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.patch(jsonb, jsonb) IS
	'Apply an RFC 6902 JSON Patch to doc; an operation that cannot apply (or a failing test) is an error';

-- (end of revisions)
