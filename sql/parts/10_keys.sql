-------------------------------------------------------------------------------
-- Keys (src/collection/key.c)
-------------------------------------------------------------------------------

-- key() and key_with() are not STRICT: a NULL part is an error, never skipped.
CREATE FUNCTION docmodel.key(VARIADIC parts "any") RETURNS text
    AS 'MODULE_PATHNAME', 'key_key'
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
    AS 'MODULE_PATHNAME', 'key_uuid_key'
    LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.uuid_key(text) IS
    'New key doc_type::<32 hex digits of a UUIDv7>; keys made by one session sort in creation order';

-- 0.2.0: another delimiter (a second function, so that defaults and views
-- using the one-argument form survive the upgrade)
CREATE FUNCTION docmodel.uuid_key(doc_type text, delimiter text) RETURNS text
    AS 'MODULE_PATHNAME', 'key_uuid_key'
    LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.uuid_key(text, text) IS
    'New key doc_type<delimiter><32 hex digits of a UUIDv7>; keys made by one session sort in creation order';

CREATE FUNCTION docmodel.key_from_template(doc jsonb, template text) RETURNS text
    AS 'MODULE_PATHNAME', 'key_from_template'
    LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION docmodel.key_from_template(jsonb, text) IS
    'The key cbimport''s --generate-key template makes of doc: %field%, %a.b%, #UUID#, #MONO_INCR# (from 1 within the statement), %% a literal %';

CREATE FUNCTION docmodel.revision_key(key text, ver integer, delimiter text DEFAULT '::') RETURNS text
    AS 'MODULE_PATHNAME', 'revision_key'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.revision_key(text, integer, text) IS
    'Key of revision ver of a document: key::v::ver (user::123::v::4)';

-- (end of keys)


-------------------------------------------------------------------------------
-- Versions (src/collection/version.c)
-------------------------------------------------------------------------------

CREATE TYPE docmodel.version;

CREATE FUNCTION docmodel.version_in(cstring) RETURNS docmodel.version
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION docmodel.version_out(docmodel.version) RETURNS cstring
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION docmodel.version_recv(internal) RETURNS docmodel.version
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION docmodel.version_send(docmodel.version) RETURNS bytea
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE docmodel.version (
    INPUT = docmodel.version_in,
    OUTPUT = docmodel.version_out,
    RECEIVE = docmodel.version_recv,
    SEND = docmodel.version_send,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT = int4,
    STORAGE = plain
);
COMMENT ON TYPE docmodel.version IS
    'schema version such as 1, 1.0, 1.10 or 2.5.1; compares part by part numerically (1.10 > 1.9, 2 = 2.0)';
COMMENT ON FUNCTION docmodel.version_in(cstring) IS 'input function of type version';
COMMENT ON FUNCTION docmodel.version_out(docmodel.version) IS 'output function of type version';
COMMENT ON FUNCTION docmodel.version_recv(internal) IS 'binary input function of type version';
COMMENT ON FUNCTION docmodel.version_send(docmodel.version) IS 'binary output function of type version';

CREATE FUNCTION docmodel.version(text) RETURNS docmodel.version
    AS 'MODULE_PATHNAME', 'version_from_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.version(text) IS 'parse text as a version (the text to version cast)';
CREATE FUNCTION docmodel.version_text(docmodel.version) RETURNS text
    AS 'MODULE_PATHNAME', 'version_to_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.version_text(docmodel.version) IS 'text form of a version (the version to text cast)';
CREATE CAST (text AS docmodel.version) WITH FUNCTION docmodel.version(text) AS ASSIGNMENT;
CREATE CAST (varchar AS docmodel.version) WITH FUNCTION docmodel.version(text) AS ASSIGNMENT;
CREATE CAST (docmodel.version AS text) WITH FUNCTION docmodel.version_text(docmodel.version) AS ASSIGNMENT;

CREATE FUNCTION docmodel.version_cmp(docmodel.version, docmodel.version) RETURNS integer
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.version_cmp(docmodel.version, docmodel.version) IS 'compare two versions: -1, 0 or 1';
CREATE FUNCTION docmodel.version_eq(docmodel.version, docmodel.version) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION docmodel.version_eq(docmodel.version, docmodel.version) IS 'implementation of = for versions';
CREATE FUNCTION docmodel.version_ne(docmodel.version, docmodel.version) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION docmodel.version_ne(docmodel.version, docmodel.version) IS 'implementation of <> for versions';
CREATE FUNCTION docmodel.version_lt(docmodel.version, docmodel.version) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION docmodel.version_lt(docmodel.version, docmodel.version) IS 'implementation of < for versions';
CREATE FUNCTION docmodel.version_le(docmodel.version, docmodel.version) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION docmodel.version_le(docmodel.version, docmodel.version) IS 'implementation of <= for versions';
CREATE FUNCTION docmodel.version_gt(docmodel.version, docmodel.version) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION docmodel.version_gt(docmodel.version, docmodel.version) IS 'implementation of > for versions';
CREATE FUNCTION docmodel.version_ge(docmodel.version, docmodel.version) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION docmodel.version_ge(docmodel.version, docmodel.version) IS 'implementation of >= for versions';
CREATE FUNCTION docmodel.version_larger(docmodel.version, docmodel.version) RETURNS docmodel.version
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.version_larger(docmodel.version, docmodel.version) IS 'the larger of two versions';
CREATE FUNCTION docmodel.version_smaller(docmodel.version, docmodel.version) RETURNS docmodel.version
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.version_smaller(docmodel.version, docmodel.version) IS 'the smaller of two versions';
CREATE FUNCTION docmodel.version_hash(docmodel.version) RETURNS integer
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.version_hash(docmodel.version) IS 'hash of a version (equal versions such as 2 and 2.0 hash alike)';
CREATE FUNCTION docmodel.version_hash_extended(docmodel.version, bigint) RETURNS bigint
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.version_hash_extended(docmodel.version, bigint) IS 'seeded 64-bit hash of a version';

CREATE OPERATOR docmodel.= (
    LEFTARG = docmodel.version, RIGHTARG = docmodel.version,
    FUNCTION = docmodel.version_eq,
    COMMUTATOR = OPERATOR(docmodel.=), NEGATOR = OPERATOR(docmodel.<>),
    RESTRICT = pg_catalog.eqsel, JOIN = pg_catalog.eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR docmodel.<> (
    LEFTARG = docmodel.version, RIGHTARG = docmodel.version,
    FUNCTION = docmodel.version_ne,
    COMMUTATOR = OPERATOR(docmodel.<>), NEGATOR = OPERATOR(docmodel.=),
    RESTRICT = pg_catalog.neqsel, JOIN = pg_catalog.neqjoinsel
);
CREATE OPERATOR docmodel.< (
    LEFTARG = docmodel.version, RIGHTARG = docmodel.version,
    FUNCTION = docmodel.version_lt,
    COMMUTATOR = OPERATOR(docmodel.>), NEGATOR = OPERATOR(docmodel.>=),
    RESTRICT = pg_catalog.scalarltsel, JOIN = pg_catalog.scalarltjoinsel
);
CREATE OPERATOR docmodel.<= (
    LEFTARG = docmodel.version, RIGHTARG = docmodel.version,
    FUNCTION = docmodel.version_le,
    COMMUTATOR = OPERATOR(docmodel.>=), NEGATOR = OPERATOR(docmodel.>),
    RESTRICT = pg_catalog.scalarlesel, JOIN = pg_catalog.scalarlejoinsel
);
CREATE OPERATOR docmodel.> (
    LEFTARG = docmodel.version, RIGHTARG = docmodel.version,
    FUNCTION = docmodel.version_gt,
    COMMUTATOR = OPERATOR(docmodel.<), NEGATOR = OPERATOR(docmodel.<=),
    RESTRICT = pg_catalog.scalargtsel, JOIN = pg_catalog.scalargtjoinsel
);
CREATE OPERATOR docmodel.>= (
    LEFTARG = docmodel.version, RIGHTARG = docmodel.version,
    FUNCTION = docmodel.version_ge,
    COMMUTATOR = OPERATOR(docmodel.<=), NEGATOR = OPERATOR(docmodel.<),
    RESTRICT = pg_catalog.scalargesel, JOIN = pg_catalog.scalargejoinsel
);

CREATE OPERATOR CLASS docmodel.version_ops
    DEFAULT FOR TYPE docmodel.version USING btree AS
    OPERATOR 1 docmodel.<,
    OPERATOR 2 docmodel.<=,
    OPERATOR 3 docmodel.=,
    OPERATOR 4 docmodel.>=,
    OPERATOR 5 docmodel.>,
    FUNCTION 1 docmodel.version_cmp(docmodel.version, docmodel.version);
CREATE OPERATOR CLASS docmodel.version_hash_ops
    DEFAULT FOR TYPE docmodel.version USING hash AS
    OPERATOR 1 docmodel.=,
    FUNCTION 1 docmodel.version_hash(docmodel.version),
    FUNCTION 2 docmodel.version_hash_extended(docmodel.version, bigint);

CREATE AGGREGATE docmodel.max(docmodel.version) (
    SFUNC = docmodel.version_larger, STYPE = docmodel.version,
    SORTOP = OPERATOR(docmodel.>), COMBINEFUNC = docmodel.version_larger,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE docmodel.max(docmodel.version) IS 'the newest version';
CREATE AGGREGATE docmodel.min(docmodel.version) (
    SFUNC = docmodel.version_smaller, STYPE = docmodel.version,
    SORTOP = OPERATOR(docmodel.<), COMBINEFUNC = docmodel.version_smaller,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE docmodel.min(docmodel.version) IS 'the oldest version';

-- (end of versions)


