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
-- The schema (CVE-2022-2625 class; "Security Considerations for Extensions")
-------------------------------------------------------------------------------

-- CREATE EXTENSION installs into an existing schema docmodel. Whoever owns
-- it, or may create objects in it, could plant objects that every role then
-- runs (a docmodel.key(text, integer) resolves before the variadic one). So
-- an existing schema is accepted only when it is empty, owned by the
-- installing role or a superuser, and no other role may create in it: the
-- schema pg_dump writes before CREATE EXTENSION is such a schema.
DO $$
DECLARE
    nsp pg_catalog.oid;
    owner pg_catalog.oid;
    obj text;
BEGIN
    SELECT n.oid, n.nspowner INTO nsp, owner FROM pg_catalog.pg_namespace AS n
        WHERE n.nspname OPERATOR(pg_catalog.=) 'docmodel';
    IF NOT (owner OPERATOR(pg_catalog.=) (SELECT r.oid FROM pg_catalog.pg_roles AS r
                                          WHERE r.rolname OPERATOR(pg_catalog.=) CURRENT_USER)
            OR (SELECT r.rolsuper FROM pg_catalog.pg_roles AS r
                WHERE r.oid OPERATOR(pg_catalog.=) owner)) THEN
        RAISE EXCEPTION 'cannot install docmodel into the existing schema "docmodel"'
            USING ERRCODE = 'duplicate_schema',
                  DETAIL = pg_catalog.format('The schema is owned by role "%s", which is neither the installing role nor a superuser.',
                      pg_catalog.pg_get_userbyid(owner)),
                  HINT = 'Drop or rename that schema, then run CREATE EXTENSION docmodel again.';
    END IF;
    IF EXISTS (SELECT FROM pg_catalog.aclexplode((SELECT n.nspacl FROM pg_catalog.pg_namespace AS n
                                                  WHERE n.oid OPERATOR(pg_catalog.=) nsp)) AS a
               WHERE a.privilege_type OPERATOR(pg_catalog.=) 'CREATE'
                 AND a.grantee OPERATOR(pg_catalog.<>) owner) THEN
        RAISE EXCEPTION 'cannot install docmodel into the existing schema "docmodel"'
            USING ERRCODE = 'duplicate_schema',
                  DETAIL = 'Roles other than its owner may create objects in it.',
                  HINT = 'Drop or rename that schema, then run CREATE EXTENSION docmodel again.';
    END IF;
    SELECT o.d INTO obj FROM (
        SELECT pg_catalog.pg_describe_object('pg_catalog.pg_class'::pg_catalog.regclass, c.oid, 0) AS d
            FROM pg_catalog.pg_class AS c WHERE c.relnamespace OPERATOR(pg_catalog.=) nsp
        UNION ALL SELECT pg_catalog.pg_describe_object('pg_catalog.pg_proc'::pg_catalog.regclass, p.oid, 0)
            FROM pg_catalog.pg_proc AS p WHERE p.pronamespace OPERATOR(pg_catalog.=) nsp
        UNION ALL SELECT pg_catalog.pg_describe_object('pg_catalog.pg_type'::pg_catalog.regclass, t.oid, 0)
            FROM pg_catalog.pg_type AS t WHERE t.typnamespace OPERATOR(pg_catalog.=) nsp
        UNION ALL SELECT pg_catalog.pg_describe_object('pg_catalog.pg_operator'::pg_catalog.regclass, p.oid, 0)
            FROM pg_catalog.pg_operator AS p WHERE p.oprnamespace OPERATOR(pg_catalog.=) nsp
        UNION ALL SELECT pg_catalog.pg_describe_object('pg_catalog.pg_opfamily'::pg_catalog.regclass, f.oid, 0)
            FROM pg_catalog.pg_opfamily AS f WHERE f.opfnamespace OPERATOR(pg_catalog.=) nsp
        UNION ALL SELECT pg_catalog.pg_describe_object('pg_catalog.pg_collation'::pg_catalog.regclass, c.oid, 0)
            FROM pg_catalog.pg_collation AS c WHERE c.collnamespace OPERATOR(pg_catalog.=) nsp
        UNION ALL SELECT pg_catalog.pg_describe_object('pg_catalog.pg_conversion'::pg_catalog.regclass, c.oid, 0)
            FROM pg_catalog.pg_conversion AS c WHERE c.connamespace OPERATOR(pg_catalog.=) nsp
        UNION ALL SELECT pg_catalog.pg_describe_object('pg_catalog.pg_ts_config'::pg_catalog.regclass, c.oid, 0)
            FROM pg_catalog.pg_ts_config AS c WHERE c.cfgnamespace OPERATOR(pg_catalog.=) nsp
        UNION ALL SELECT pg_catalog.pg_describe_object('pg_catalog.pg_ts_dict'::pg_catalog.regclass, c.oid, 0)
            FROM pg_catalog.pg_ts_dict AS c WHERE c.dictnamespace OPERATOR(pg_catalog.=) nsp
        UNION ALL SELECT pg_catalog.pg_describe_object('pg_catalog.pg_statistic_ext'::pg_catalog.regclass, c.oid, 0)
            FROM pg_catalog.pg_statistic_ext AS c WHERE c.stxnamespace OPERATOR(pg_catalog.=) nsp
        UNION ALL SELECT pg_catalog.pg_describe_object('pg_catalog.pg_extension'::pg_catalog.regclass, e.oid, 0)
            FROM pg_catalog.pg_extension AS e WHERE e.extnamespace OPERATOR(pg_catalog.=) nsp
              AND e.extname OPERATOR(pg_catalog.<>) 'docmodel') AS o
        LIMIT 1;
    IF obj IS NOT NULL THEN
        RAISE EXCEPTION 'cannot install docmodel into the existing schema "docmodel"'
            USING ERRCODE = 'duplicate_schema',
                  DETAIL = pg_catalog.format('The schema already holds %s.', obj),
                  HINT = 'Drop or rename that schema, then run CREATE EXTENSION docmodel again.';
    END IF;
END
$$;

-------------------------------------------------------------------------------
-- Keys (src/key.c)
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
-- Versions (src/version.c)
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


-------------------------------------------------------------------------------
-- Counters (src/counter.c)
-------------------------------------------------------------------------------

-- One row per counter; non-gapless rows change in place (see src/counter.c).
-- Columns: value = last value handed out; reserved = bound WAL-logged ahead
-- of value; life = server life that logged reserved (a row from an earlier
-- life, or restored from a dump, continues above reserved); gapless = MVCC
-- counter. The fixed-width columns come first: the C code reads them at
-- fixed offsets. Change rows only through the functions below.
CREATE TABLE docmodel.counter_state (
    value    bigint  NOT NULL,
    reserved bigint  NOT NULL,
    life     bigint  NOT NULL DEFAULT 0,
    gapless  boolean NOT NULL DEFAULT false,
    name     text    COLLATE "C" NOT NULL,
    CONSTRAINT counter_state_pkey PRIMARY KEY (name)
) WITH (fillfactor = 90);
COMMENT ON TABLE docmodel.counter_state IS
    'docmodel counters, one row each; read docmodel.counters, change them only through the counter functions';
SELECT pg_catalog.pg_extension_config_dump('docmodel.counter_state', '');

CREATE FUNCTION docmodel.counter_state_guard() RETURNS trigger
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'counter_state_guard';
COMMENT ON FUNCTION docmodel.counter_state_guard() IS
    'refuses UPDATEs of non-gapless counter rows (they change in place) and of a counter''s name or kind';
CREATE TRIGGER counter_state_guard BEFORE UPDATE ON docmodel.counter_state
    FOR EACH ROW EXECUTE FUNCTION docmodel.counter_state_guard();

CREATE FUNCTION docmodel.counter_state_value(value bigint, reserved bigint, life bigint, gapless boolean)
    RETURNS bigint
    LANGUAGE c VOLATILE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'counter_state_value';
COMMENT ON FUNCTION docmodel.counter_state_value(bigint, bigint, bigint, boolean) IS
    'internal: the value a raw counter_state row stands for in this server life';

CREATE FUNCTION docmodel.counter_create(name text, start bigint DEFAULT 0, gapless boolean DEFAULT false)
    RETURNS void
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'counter_create';
COMMENT ON FUNCTION docmodel.counter_create(text, bigint, boolean) IS
    'create a counter at start (transactional, like CREATE SEQUENCE); 23505 if it exists';

CREATE FUNCTION docmodel.incr(name text, delta bigint DEFAULT 1, "initial" bigint DEFAULT NULL)
    RETURNS bigint
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'counter_incr';
COMMENT ON FUNCTION docmodel.incr(text, bigint, bigint) IS
    'add delta >= 0 and return the new value (the delta values up to it are the caller''s alone); an absent counter is created at initial, which is returned, or P0002 without initial';

CREATE FUNCTION docmodel.decrement(name text, delta bigint DEFAULT 1, "initial" bigint DEFAULT NULL)
    RETURNS bigint
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'counter_decrement';
COMMENT ON FUNCTION docmodel.decrement(text, bigint, bigint) IS
    'subtract delta >= 0, never below 0 (as Couchbase''s counters), and return the new value; an absent counter is created at initial, or P0002 without initial';

CREATE FUNCTION docmodel.counter_value(name text)
    RETURNS bigint
    LANGUAGE c VOLATILE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'counter_value';
COMMENT ON FUNCTION docmodel.counter_value(text) IS
    'the counter''s current value (the last value handed out); NULL when absent';

CREATE FUNCTION docmodel.counter_advance(name text, at_least bigint)
    RETURNS bigint
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'counter_advance';
COMMENT ON FUNCTION docmodel.counter_advance(text, bigint) IS
    'raise the counter to at least at_least (for adopting existing IDs), never lower; returns the value';

CREATE FUNCTION docmodel.counter_drop(name text)
    RETURNS void
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'counter_drop';
COMMENT ON FUNCTION docmodel.counter_drop(text) IS
    'delete a counter (transactional); P0002 when absent';

CREATE FUNCTION docmodel.next_id(doc_type text, VARIADIC parents text[] DEFAULT '{}')
    RETURNS bigint
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'counter_next_id';
COMMENT ON FUNCTION docmodel.next_id(text, text[]) IS
    'increment counter count::[parents::]doc_type (created at 0, so the first id is 1) and return it';

CREATE FUNCTION docmodel.next_key(doc_type text, VARIADIC parents text[] DEFAULT '{}')
    RETURNS text
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'counter_next_key';
COMMENT ON FUNCTION docmodel.next_key(text, text[]) IS
    'the next key doc_type::[parents::]id, e.g. user::1 or user::foo.org::1 (counter count::foo.org::user)';

CREATE FUNCTION docmodel.counter_keys(doc_type text, VARIADIC parents text[] DEFAULT '{}')
    RETURNS SETOF text
    LANGUAGE c VOLATILE PARALLEL SAFE ROWS 1000
    AS 'MODULE_PATHNAME', 'counter_keys';
COMMENT ON FUNCTION docmodel.counter_keys(text, text[]) IS
    'every key from doc_type::[parents::]1 to the counter''s value, for the range multi-get; none when absent';

CREATE FUNCTION docmodel.next_key_in(coll regclass, doc_type text DEFAULT NULL,
    VARIADIC parents text[] DEFAULT '{}')
    RETURNS text
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'counter_next_key_in';
COMMENT ON FUNCTION docmodel.next_key_in(regclass, text, text[]) IS
    'the next key of a document of collection coll in its layout (delimiter, type part), numbered by the counter count::[parents::]doc_type that next_id and next_key use: user:1 with delimiter :';

CREATE FUNCTION docmodel.counter_keys_in(coll regclass, doc_type text DEFAULT NULL,
    VARIADIC parents text[] DEFAULT '{}')
    RETURNS SETOF text
    LANGUAGE c VOLATILE PARALLEL RESTRICTED ROWS 1000
    AS 'MODULE_PATHNAME', 'counter_keys';
COMMENT ON FUNCTION docmodel.counter_keys_in(regclass, text, text[]) IS
    'every key from 1 to the counter value, in the layout of collection coll, as next_key_in makes them; none when the counter is absent';

CREATE VIEW docmodel.counters AS
    SELECT s.name,
           docmodel.counter_state_value(s.value, s.reserved, s.life, s.gapless) AS value,
           s.gapless
      FROM docmodel.counter_state s;
COMMENT ON VIEW docmodel.counters IS 'every counter with its current value';


-- (end of counters)


-------------------------------------------------------------------------------
-- Migrations (src/migrate.c)
-------------------------------------------------------------------------------

/*
 * The registry: one row per rule, doc_type from_version -> to_version, by
 * declarative steps or by a jsonb -> jsonb function (fn: its qualified
 * signature when registered, for messages; the function itself is pinned
 * by OID, see _migration_pin below: pg_upgrade refuses regprocedure
 * columns). A type's rules
 * form one chain (register_migration keeps it so), so every registered
 * version reaches the newest. A statement trigger tells every backend's
 * cache (migrate.c) when the registry changes.
 */
CREATE TABLE docmodel.migration_rules (
	doc_type      text NOT NULL,
	from_version  docmodel.version NOT NULL,
	to_version    docmodel.version NOT NULL,
	steps         jsonb,
	fn            text,
	registered_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
	collection_id integer NOT NULL DEFAULT 0,
	active        boolean NOT NULL DEFAULT true,
	PRIMARY KEY (doc_type, collection_id, from_version),
	CHECK ((steps IS NULL) <> (fn IS NULL)),
	CHECK (from_version OPERATOR(docmodel.<) to_version)
);
COMMENT ON TABLE docmodel.migration_rules IS
	'docmodel: registered schema migrations, one chain of rules per document type and scope (collection_id 0: global)';
SELECT pg_catalog.pg_extension_config_dump('docmodel.migration_rules', '');
-- Every role that reads or writes documents reads the rules (migrate on read
-- and write); registering them takes the owner's rights.
GRANT SELECT ON docmodel.migration_rules TO PUBLIC;

CREATE FUNCTION docmodel._migration_rules_changed() RETURNS trigger
	AS 'MODULE_PATHNAME', 'migration_rules_changed'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION docmodel._migration_rules_changed() IS
	'docmodel internal: invalidate every backend''s migration cache when the registry changes';
CREATE TRIGGER migration_rules_changed
	AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON docmodel.migration_rules
	FOR EACH STATEMENT EXECUTE FUNCTION docmodel._migration_rules_changed();

/*
 * Bulk runs of migrate_collection. status is running, done, failed or
 * cancelled; the view shows a running row whose run holds no lock (its
 * session crashed or was terminated) as interrupted. Not dumped: it is the
 * state of this cluster's runs, not configuration.
 */
CREATE TABLE docmodel.migration_run (
	run_id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	coll        regclass NOT NULL,
	doc_type    text,
	target      docmodel.version,
	targets     jsonb NOT NULL,
	started_at  timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
	finished_at timestamptz,
	last_key    text,
	docs_done   bigint NOT NULL DEFAULT 0,
	docs_total  bigint,
	status      text NOT NULL DEFAULT 'running'
		CHECK (status IN ('running', 'done', 'failed', 'cancelled')),
	error       text
);
COMMENT ON TABLE docmodel.migration_run IS
	'docmodel: state of migrate_collection runs (read docmodel.migration_runs)';

CREATE VIEW docmodel.migration_runs AS
SELECT r.run_id, r.coll, r.doc_type, r.target, r.started_at, r.finished_at,
	r.last_key, r.docs_done, r.docs_total,
	CASE WHEN r.status OPERATOR(pg_catalog.=) 'running' AND NOT EXISTS (
			SELECT FROM pg_catalog.pg_locks l
			WHERE l.locktype OPERATOR(pg_catalog.=) 'advisory'
				AND l.classid OPERATOR(pg_catalog.=) 1835496052::pg_catalog.oid
				AND l.objid OPERATOR(pg_catalog.=) r.coll::pg_catalog.oid
				AND l.objsubid OPERATOR(pg_catalog.=) 2 AND l.granted)
		THEN 'interrupted' ELSE r.status END AS status,
	r.error,
	r.targets OPERATOR(pg_catalog.->>) 'mapping' AS mapping
FROM docmodel.migration_run r;
-- Everyone may read the runs; they are written only by
-- _migration_run_new() and _migration_run_set(), which check UPDATE on the
-- run's collection: whoever may update a collection may run its migration.
GRANT SELECT ON docmodel.migration_run TO PUBLIC;
GRANT SELECT ON docmodel.migration_runs TO PUBLIC;
COMMENT ON VIEW docmodel.migration_runs IS
	'docmodel: every migrate_collection and migrate_tables run: collection, type, target, progress (last key, docs), status, error, the mapping of a migrate_tables run';

CREATE FUNCTION docmodel._migration_run_new(coll regclass, doc_type text,
	target text, targets jsonb) RETURNS bigint
	AS 'MODULE_PATHNAME', 'migration_run_new'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION docmodel._migration_run_new(regclass, text, text, jsonb) IS
	'docmodel internal: record a new run of migrate_collection (42501 without UPDATE on coll)';

CREATE FUNCTION docmodel._migration_run_set(run bigint, status text, last_key text,
	docs_done bigint, docs_total bigint, targets jsonb, error text) RETURNS void
	AS 'MODULE_PATHNAME', 'migration_run_set'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION docmodel._migration_run_set(bigint, text, text, bigint, bigint, jsonb, text) IS
	'docmodel internal: record the state of a run of migrate_collection (42501 without UPDATE on its collection)';

/*
 * A rule's function is pinned by a function docmodel creates per rule in
 * its schema, whose SQL-standard body calls it: the body's dependency makes
 * DROP FUNCTION of the rule's function fail (2BP01) as a view would, and
 * names the function's OID, which is what the rule calls (the text in
 * migration_rules.fn is only for messages). DROP FUNCTION ... CASCADE drops
 * the pin: the rule stays and fails with 42883 until registered again.
 * Such functions are dumped by pg_dump like any other.
 */
CREATE FUNCTION docmodel._migration_fn_name(doc_type text, from_version docmodel.version,
	collection_id integer)
	RETURNS text
	LANGUAGE sql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	RETURN '_migration_fn_' OPERATOR(pg_catalog.||) pg_catalog.substr(pg_catalog.encode(
		pg_catalog.sha256(pg_catalog.convert_to(doc_type OPERATOR(pg_catalog.||) ' '
			OPERATOR(pg_catalog.||) docmodel.version_text(from_version)
			OPERATOR(pg_catalog.||) CASE WHEN collection_id OPERATOR(pg_catalog.=) 0 THEN ''
				ELSE ' ' OPERATOR(pg_catalog.||) collection_id END, 'UTF8')),
		'hex'), 1, 40);
COMMENT ON FUNCTION docmodel._migration_fn_name(text, docmodel.version, integer) IS
	'docmodel internal: name of the function pinning the function of a type''s rule from a version (of a collection, collection_id, or global: 0)';

CREATE FUNCTION docmodel._migration_fn(doc_type text, from_version docmodel.version,
	collection_id integer)
	RETURNS oid
	LANGUAGE sql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	BEGIN ATOMIC
	SELECT d.refobjid FROM pg_catalog.pg_depend AS d
	WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_proc'::pg_catalog.regclass
		AND d.objid OPERATOR(pg_catalog.=) pg_catalog.to_regprocedure(pg_catalog.format(
			'docmodel.%I(pg_catalog.jsonb)', docmodel._migration_fn_name(doc_type, from_version,
				collection_id)))
		AND d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_proc'::pg_catalog.regclass
		AND d.deptype OPERATOR(pg_catalog.=) 'n';
	END;
COMMENT ON FUNCTION docmodel._migration_fn(text, docmodel.version, integer) IS
	'docmodel internal: the OID of the function a type''s rule from a version calls (NULL when not pinned)';

CREATE FUNCTION docmodel._migration_pin(doc_type text, from_version docmodel.version,
	to_version docmodel.version, fn regprocedure, collection_id integer) RETURNS void
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	name text := docmodel._migration_fn_name(doc_type, from_version, collection_id);
	p record;
BEGIN
	IF to_regprocedure(format('docmodel.%I(jsonb)', name)) IS NOT NULL THEN
		EXECUTE format('DROP FUNCTION docmodel.%I(jsonb)', name);
	END IF;
	IF fn IS NULL THEN
		RETURN;
	END IF;
	SELECT pr.proname, n.nspname INTO p
	FROM pg_proc pr JOIN pg_namespace n ON n.oid = pr.pronamespace
	WHERE pr.oid = fn;
	EXECUTE format('CREATE FUNCTION docmodel.%I(doc jsonb) RETURNS jsonb LANGUAGE sql '
		'BEGIN ATOMIC SELECT %I.%I(doc); END', name, p.nspname, p.proname);
	IF docmodel._migration_fn(doc_type, from_version, collection_id) IS DISTINCT FROM fn::oid THEN
		RAISE EXCEPTION USING ERRCODE = '42725',
			MESSAGE = format('migration function %s cannot be called unambiguously by its name', fn),
			DETAIL = format('Type "%s", migration %s to %s.', doc_type, from_version, to_version);
	END IF;
	EXECUTE format('COMMENT ON FUNCTION docmodel.%I(jsonb) IS %L', name,
		format('docmodel: pins %s, the function of the migration of type "%s" from %s to %s',
			fn, doc_type, from_version, to_version));
END
$$;
COMMENT ON FUNCTION docmodel._migration_pin(text, docmodel.version, docmodel.version, regprocedure, integer) IS
	'docmodel internal: pin the function of a rule (or unpin, with fn NULL), so that it cannot be dropped and is called by its OID';

-- Rules deleted (or changed) directly let their functions go.
CREATE FUNCTION docmodel._migration_unpin_orphans() RETURNS trigger
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	f record;
BEGIN
	FOR f IN SELECT p.oid::regprocedure AS pin FROM pg_proc p
		WHERE p.pronamespace = 'docmodel'::regnamespace
			AND p.proname LIKE '\_migration\_fn\_%' AND p.pronargs = 1
			AND p.proname NOT IN (SELECT docmodel._migration_fn_name(r.doc_type, r.from_version,
				r.collection_id)
				FROM docmodel.migration_rules r)
	LOOP
		EXECUTE format('DROP FUNCTION %s', f.pin);
	END LOOP;
	RETURN NULL;
END
$$;
COMMENT ON FUNCTION docmodel._migration_unpin_orphans() IS
	'docmodel internal: statement trigger: drop the pins of functions no rule calls any more';
CREATE TRIGGER migration_rules_unpin
	AFTER UPDATE OR DELETE OR TRUNCATE ON docmodel.migration_rules
	FOR EACH STATEMENT EXECUTE FUNCTION docmodel._migration_unpin_orphans();

CREATE FUNCTION docmodel._check_migration_steps(steps jsonb) RETURNS void
	AS 'MODULE_PATHNAME', 'migration_check_steps'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel._check_migration_steps(jsonb) IS
	'docmodel internal: raise 22023 naming the step index and op when a steps array is not well formed';

CREATE FUNCTION docmodel.register_migration(doc_type text,
	from_version docmodel.version, to_version docmodel.version,
	steps jsonb DEFAULT NULL, fn regprocedure DEFAULT NULL,
	coll regclass DEFAULT NULL, active boolean DEFAULT true) RETURNS void
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	fn_text text;
	p record;
	same record;
	first_from docmodel.version;
	last_to docmodel.version;
	scope integer := 0;
	place text := '';
BEGIN
	IF doc_type IS NULL OR doc_type = '' OR octet_length(doc_type) > 250 THEN
		RAISE EXCEPTION USING ERRCODE = '22023',
			MESSAGE = format('invalid document type "%s"', doc_type),
			DETAIL = 'A document type is 1 to 250 bytes long.';
	END IF;
	IF from_version IS NULL OR to_version IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = '22023',
			MESSAGE = 'from_version and to_version are required',
			DETAIL = format('Type "%s".', doc_type);
	END IF;
	IF active IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = '22023',
			MESSAGE = 'active must be true or false',
			DETAIL = format('Type "%s", migration %s to %s.', doc_type, from_version, to_version);
	END IF;
	-- A rule of one collection: it replaces the type's global chain there.
	IF coll IS NOT NULL THEN
		SELECT c.id INTO scope FROM docmodel.collection_config AS c WHERE c.coll = register_migration.coll;
		IF NOT FOUND THEN
			RAISE EXCEPTION USING ERRCODE = '22023',
				MESSAGE = format('"%s" is not a docmodel collection', coll),
				DETAIL = format('Type "%s", migration %s to %s: a rule is global (coll NULL) or of one collection.',
					doc_type, from_version, to_version);
		END IF;
		place := format(' in collection %s', coll);
	END IF;
	IF (steps IS NULL) = (fn IS NULL) THEN
		RAISE EXCEPTION USING ERRCODE = '22023',
			MESSAGE = 'give exactly one of steps and fn',
			DETAIL = format('Type "%s", migration %s to %s.', doc_type, from_version, to_version),
			HINT = 'steps => ''[{"op": ...}]'' for declarative steps, fn => ''my_step(jsonb)'' for a function.';
	END IF;
	IF NOT from_version OPERATOR(docmodel.<) to_version THEN
		RAISE EXCEPTION USING ERRCODE = '22023',
			MESSAGE = format('a migration must go to a newer version, not from %s to %s', from_version, to_version),
			DETAIL = format('Type "%s".', doc_type);
	END IF;
	IF steps IS NOT NULL THEN
		PERFORM docmodel._check_migration_steps(steps);
	ELSE
		SELECT pr.pronargs, pr.proargtypes, pr.prorettype, pr.prokind, pr.proretset,
			pr.proname, n.nspname
		INTO p
		FROM pg_proc pr JOIN pg_namespace n ON n.oid = pr.pronamespace
		WHERE pr.oid = fn;
		IF p.prokind <> 'f' OR p.pronargs <> 1 OR p.proargtypes[0] <> 'jsonb'::regtype
			OR p.prorettype <> 'jsonb'::regtype OR p.proretset THEN
			RAISE EXCEPTION USING ERRCODE = '22023',
				MESSAGE = format('migration function %s must take jsonb and return jsonb', fn),
				DETAIL = format('Type "%s", migration %s to %s.', doc_type, from_version, to_version);
		END IF;
		fn_text := format('%I.%I(jsonb)', p.nspname, p.proname);
	END IF;

	-- One registration at a time, so two cannot fork the chain.
	LOCK TABLE docmodel.migration_rules IN SHARE ROW EXCLUSIVE MODE;
	SELECT r.from_version, r.to_version INTO same FROM docmodel.migration_rules r
	WHERE r.doc_type = register_migration.doc_type AND r.collection_id = scope
		AND r.from_version OPERATOR(docmodel.=) register_migration.from_version;
	IF FOUND THEN
		IF same.to_version OPERATOR(docmodel.=) register_migration.to_version THEN
			-- The same rule registered again replaces its steps (a fix).
			UPDATE docmodel.migration_rules r
			SET steps = register_migration.steps, fn = fn_text, registered_at = now(),
				active = register_migration.active
			WHERE r.doc_type = register_migration.doc_type AND r.collection_id = scope
				AND r.from_version OPERATOR(docmodel.=) register_migration.from_version;
			PERFORM docmodel._migration_pin(doc_type, same.from_version, same.to_version, fn, scope);
			RETURN;
		END IF;
		RAISE EXCEPTION USING ERRCODE = '22023',
			MESSAGE = format('type "%s" already has a migration from version %s%s', doc_type, from_version, place),
			DETAIL = format('It goes to version %s.', same.to_version),
			HINT = 'Register the same from and to versions again to replace its steps.';
	END IF;
	SELECT r.from_version INTO first_from FROM docmodel.migration_rules r
	WHERE r.doc_type = register_migration.doc_type AND r.collection_id = scope
	ORDER BY r.from_version LIMIT 1;
	SELECT r.to_version INTO last_to FROM docmodel.migration_rules r
	WHERE r.doc_type = register_migration.doc_type AND r.collection_id = scope
	ORDER BY r.to_version DESC LIMIT 1;
	IF first_from IS NOT NULL
		AND NOT from_version OPERATOR(docmodel.=) last_to
		AND NOT to_version OPERATOR(docmodel.=) first_from THEN
		RAISE EXCEPTION USING ERRCODE = '22023',
			MESSAGE = format('a migration of type "%s" from %s to %s would not extend its chain%s',
				doc_type, from_version, to_version, place),
			DETAIL = format('Type "%s" goes from version %s to %s%s.', doc_type, first_from, last_to, place),
			HINT = format('A new migration starts at %s or ends at %s.', last_to, first_from);
	END IF;
	INSERT INTO docmodel.migration_rules (doc_type, from_version, to_version, steps, fn,
		collection_id, active)
	VALUES (doc_type, from_version, to_version, steps, fn_text, scope, register_migration.active);
	PERFORM docmodel._migration_pin(doc_type, from_version, to_version, fn, scope);
END
$$;
COMMENT ON FUNCTION docmodel.register_migration(text, docmodel.version, docmodel.version, jsonb, regprocedure, regclass, boolean) IS
	'docmodel: register the migration of a document type from one version to the next, by steps or by a jsonb -> jsonb function; of every collection (coll NULL) or of one, active now or not';

CREATE FUNCTION docmodel.set_migration_active(doc_type text,
	from_version docmodel.version, active boolean, coll regclass DEFAULT NULL) RETURNS void
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	scope integer := 0;
BEGIN
	IF active IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'active must be true or false';
	END IF;
	IF coll IS NOT NULL THEN
		SELECT c.id INTO scope FROM docmodel.collection_config AS c
		WHERE c.coll = set_migration_active.coll;
		IF NOT FOUND THEN
			RAISE EXCEPTION USING ERRCODE = '22023',
				MESSAGE = format('"%s" is not a docmodel collection', coll);
		END IF;
	END IF;
	UPDATE docmodel.migration_rules r SET active = set_migration_active.active
	WHERE r.doc_type = set_migration_active.doc_type AND r.collection_id = scope
		AND r.from_version OPERATOR(docmodel.=) set_migration_active.from_version;
	IF NOT FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'P0002',
			MESSAGE = format('type "%s" has no migration from version %s%s', doc_type, from_version,
				CASE WHEN coll IS NULL THEN '' ELSE format(' in collection %s', coll) END),
			HINT = 'Register it with docmodel.register_migration().';
	END IF;
END
$$;
COMMENT ON FUNCTION docmodel.set_migration_active(text, docmodel.version, boolean, regclass) IS
	'docmodel: switch a registered migration on or off (of every collection, coll NULL, or of one)';

CREATE FUNCTION docmodel.current_version(doc_type text, coll regclass) RETURNS docmodel.version
	AS 'MODULE_PATHNAME', 'migration_current_version'
	LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION docmodel.current_version(text, regclass) IS
	'docmodel: the newest version of a document type in collection coll, by its own active migrations, else the global ones (NULL without migrations)';

CREATE FUNCTION docmodel._migration_target(doc_type text, coll regclass, planned boolean)
	RETURNS docmodel.version
	AS 'MODULE_PATHNAME', 'migration_current_version'
	LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION docmodel._migration_target(text, regclass, boolean) IS
	'docmodel internal: current_version(doc_type, coll), counting inactive migrations too when planned';

CREATE FUNCTION docmodel._migration_steps(doc_type text, version docmodel.version,
	target docmodel.version, coll regclass, planned boolean)
	RETURNS integer
	AS 'MODULE_PATHNAME', 'migration_steps'
	LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION docmodel._migration_steps(text, docmodel.version, docmodel.version, regclass, boolean) IS
	'docmodel internal: _migration_steps by the rules of collection coll (else the global ones), inactive ones too when planned';

/*
 * Write rules: per document type (global, collection_id 0, or of one
 * collection), setter steps the collection trigger applies to every write
 * after migrate-on-write (src/migrate.c caches them with the migration
 * rules; the same statement trigger tells every backend).
 */
CREATE TABLE docmodel.write_rules (
	doc_type      text NOT NULL,
	collection_id integer NOT NULL DEFAULT 0,
	steps         jsonb NOT NULL,
	registered_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
	PRIMARY KEY (doc_type, collection_id)
);
COMMENT ON TABLE docmodel.write_rules IS
	'docmodel: setter steps applied to every write of a document type (collection_id 0: every collection)';
SELECT pg_catalog.pg_extension_config_dump('docmodel.write_rules', '');
GRANT SELECT ON docmodel.write_rules TO PUBLIC;
CREATE TRIGGER write_rules_changed
	AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON docmodel.write_rules
	FOR EACH STATEMENT EXECUTE FUNCTION docmodel._migration_rules_changed();

CREATE FUNCTION docmodel._check_write_rule_steps(steps jsonb) RETURNS void
	AS 'MODULE_PATHNAME', 'migration_check_write_rule_steps'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel._check_write_rule_steps(jsonb) IS
	'docmodel internal: raise 22023 when a steps array is not well formed or holds a step a write rule may not (not a setter)';

CREATE FUNCTION docmodel.register_write_rule(doc_type text, steps jsonb,
	coll regclass DEFAULT NULL) RETURNS void
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	scope integer := 0;
BEGIN
	IF doc_type IS NULL OR doc_type = '' OR octet_length(doc_type) > 250 THEN
		RAISE EXCEPTION USING ERRCODE = '22023',
			MESSAGE = format('invalid document type "%s"', doc_type),
			DETAIL = 'A document type is 1 to 250 bytes long.';
	END IF;
	IF steps IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'steps are required',
			DETAIL = format('Type "%s".', doc_type);
	END IF;
	IF coll IS NOT NULL THEN
		SELECT c.id INTO scope FROM docmodel.collection_config AS c
		WHERE c.coll = register_write_rule.coll;
		IF NOT FOUND THEN
			RAISE EXCEPTION USING ERRCODE = '22023',
				MESSAGE = format('"%s" is not a docmodel collection', coll);
		END IF;
	END IF;
	PERFORM docmodel._check_write_rule_steps(steps);
	INSERT INTO docmodel.write_rules AS w (doc_type, collection_id, steps)
	VALUES (doc_type, scope, steps)
	ON CONFLICT ON CONSTRAINT write_rules_pkey
	DO UPDATE SET steps = excluded.steps, registered_at = now();
END
$$;
COMMENT ON FUNCTION docmodel.register_write_rule(text, jsonb, regclass) IS
	'docmodel: register (again: replace) the setter steps every write of a document type runs, of every collection (coll NULL) or of one';

CREATE FUNCTION docmodel.drop_write_rule(doc_type text, coll regclass DEFAULT NULL)
	RETURNS boolean
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	scope integer := 0;
BEGIN
	IF coll IS NOT NULL THEN
		SELECT c.id INTO scope FROM docmodel.collection_config AS c
		WHERE c.coll = drop_write_rule.coll;
		IF NOT FOUND THEN
			RAISE EXCEPTION USING ERRCODE = '22023',
				MESSAGE = format('"%s" is not a docmodel collection', coll);
		END IF;
	END IF;
	DELETE FROM docmodel.write_rules AS w
	WHERE w.doc_type = drop_write_rule.doc_type AND w.collection_id = scope;
	RETURN FOUND;
END
$$;
COMMENT ON FUNCTION docmodel.drop_write_rule(text, regclass) IS
	'docmodel: drop the write rule of a document type (of every collection, coll NULL, or of one); false when there is none';

CREATE FUNCTION docmodel.current_version(doc_type text) RETURNS docmodel.version
	AS 'MODULE_PATHNAME', 'migration_current_version'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.current_version(text) IS
	'docmodel: the newest version of a document type that its migrations reach (NULL without migrations)';

CREATE FUNCTION docmodel.migrate(doc jsonb, target docmodel.version DEFAULT NULL)
	RETURNS jsonb
	AS 'MODULE_PATHNAME', 'migration_migrate'
	LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.migrate(jsonb, docmodel.version) IS
	'docmodel: migrate a document to target (default: its type''s current version); a document already there comes back as it is';

CREATE FUNCTION docmodel._migrate_doc(doc jsonb, target docmodel.version, key text)
	RETURNS jsonb
	AS 'MODULE_PATHNAME', 'migration_migrate_doc'
	LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION docmodel._migrate_doc(jsonb, docmodel.version, text) IS
	'docmodel internal: migrate() whose errors name the document''s key, refusing (23514) a result its schema finds invalid';

CREATE FUNCTION docmodel._migration_pending(doc jsonb, doc_type text, target docmodel.version)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'migration_pending'
	LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION docmodel._migration_pending(jsonb, text, docmodel.version) IS
	'docmodel internal: would migrate() change this document (of this type, to this target)?';

CREATE FUNCTION docmodel._migration_steps(doc_type text, version docmodel.version, target docmodel.version)
	RETURNS integer
	AS 'MODULE_PATHNAME', 'migration_steps'
	LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION docmodel._migration_steps(text, docmodel.version, docmodel.version) IS
	'docmodel internal: how many steps take a document of a type from version (NULL: oldest) to target (NULL: current)';

CREATE FUNCTION docmodel._doc_type(doc jsonb) RETURNS text
	AS 'MODULE_PATHNAME', 'migration_doc_type'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel._doc_type(jsonb) IS
	'docmodel internal: a document''s type field (_type, meta.type or type)';

CREATE FUNCTION docmodel._doc_version(doc jsonb) RETURNS docmodel.version
	AS 'MODULE_PATHNAME', 'migration_doc_version'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel._doc_version(jsonb) IS
	'docmodel internal: a document''s schema version field (_schema, meta.schema or schema)';

CREATE FUNCTION docmodel._migrate_doc(doc jsonb, target docmodel.version, key text, coll regclass)
	RETURNS jsonb
	AS 'MODULE_PATHNAME', 'migration_migrate_doc'
	LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION docmodel._migrate_doc(jsonb, docmodel.version, text, regclass) IS
	'docmodel internal: _migrate_doc of a document of collection coll, by its field names (NULL: any meta style)';

CREATE FUNCTION docmodel.migrate(doc jsonb, target docmodel.version, coll regclass)
	RETURNS jsonb
	AS 'MODULE_PATHNAME', 'migration_migrate'
	LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION docmodel.migrate(jsonb, docmodel.version, regclass) IS
	'docmodel: migrate() of a document of collection coll, its type and version read where coll keeps them (its fields); target NULL: the current version';

CREATE FUNCTION docmodel._migration_pending(doc jsonb, doc_type text, target docmodel.version, coll regclass)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'migration_pending'
	LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION docmodel._migration_pending(jsonb, text, docmodel.version, regclass) IS
	'docmodel internal: _migration_pending of a document of collection coll, by its field names (NULL: any meta style)';

CREATE FUNCTION docmodel._doc_type(doc jsonb, coll regclass) RETURNS text
	AS 'MODULE_PATHNAME', 'migration_doc_type'
	LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION docmodel._doc_type(jsonb, regclass) IS
	'docmodel internal: a document''s type field in collection coll''s field names (NULL: any meta style)';

CREATE FUNCTION docmodel._doc_version(doc jsonb, coll regclass) RETURNS docmodel.version
	AS 'MODULE_PATHNAME', 'migration_doc_version'
	LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION docmodel._doc_version(jsonb, regclass) IS
	'docmodel internal: a document''s schema version field in collection coll''s field names (NULL: any meta style)';

CREATE FUNCTION docmodel.migration_plan(coll regclass)
	RETURNS TABLE(doc_type text, version docmodel.version, docs bigint,
		target docmodel.version, steps integer)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
	-- a collection's own field names (NULL for another table: any style)
	RETURN QUERY EXECUTE format(
		'SELECT s.t, s.v, s.n, docmodel._migration_target(s.t, $1, true),
			docmodel._migration_steps(s.t, s.v, NULL, $1, true)
		FROM (SELECT docmodel._doc_type(doc, $1) AS t,
				docmodel._doc_version(doc, $1) AS v, count(*) AS n
			FROM %s GROUP BY 1, 2) s
		ORDER BY 1, 2', coll)
	USING (SELECT c.coll FROM docmodel.collection_config AS c
		WHERE c.coll = migration_plan.coll);
END
$$;
COMMENT ON FUNCTION docmodel.migration_plan(regclass) IS
	'docmodel: the dry run of migrate_collection: documents per type and version, the target and the steps each needs';

/*
 * The bulk run: CALL migrate_collection() is a C procedure (migrate.c) that
 * commits after each batch; the SQL work is in the three functions below
 * (search_path pinned; a procedure with SET could not commit). The lock is
 * a session advisory lock (1835496052, coll oid): a crashed session drops it
 * with its connection.
 */
CREATE FUNCTION docmodel._migration_start(coll regclass, doc_type text,
	target docmodel.version, batch_size integer) RETURNS bigint
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	k1 constant integer := 1835496052;
	k2 integer;
	run bigint;
	last text;
	done bigint;
	remaining bigint;
	cur_targets jsonb;
	old record;
	-- a collection's own field names and rules (NULL for another table)
	cfg regclass := (SELECT c.coll FROM docmodel.collection_config AS c
		WHERE c.coll = _migration_start.coll);
BEGIN
	IF batch_size IS NULL OR batch_size < 1 THEN
		RAISE EXCEPTION USING ERRCODE = '22023',
			MESSAGE = format('batch_size must be at least 1, not %s', batch_size);
	END IF;
	IF coll IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'coll is required';
	END IF;
	IF target IS NOT NULL AND doc_type IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = '22023',
			MESSAGE = 'a target version needs a doc_type',
			HINT = 'CALL docmodel.migrate_collection(coll, ''user'', ''2.0'').';
	END IF;
	IF doc_type IS NOT NULL THEN
		IF docmodel.current_version(doc_type, cfg) IS NULL THEN
			RAISE EXCEPTION USING ERRCODE = '22023',
				MESSAGE = format('type "%s" has no migrations', doc_type),
				HINT = 'Register one with docmodel.register_migration().';
		END IF;
		-- raises 22023 when no chain reaches target
		PERFORM docmodel._migration_steps(doc_type, NULL, target, cfg, false);
	END IF;
	IF (SELECT count(*) FROM pg_attribute a
		WHERE a.attrelid = coll AND NOT a.attisdropped
			AND ((a.attname = 'id' AND a.atttypid = 'text'::regtype)
				OR (a.attname = 'doc' AND a.atttypid = 'jsonb'::regtype))) <> 2 THEN
		RAISE EXCEPTION USING ERRCODE = '22023',
			MESSAGE = format('%s has no columns id text and doc jsonb', coll),
			HINT = 'migrate_collection works on collections, and on any table with those two columns.';
	END IF;

	k2 := (coll::oid::int8 - CASE WHEN coll::oid::int8 >= 2147483648 THEN 4294967296 ELSE 0 END)::int4;
	-- A call of this session that was interrupted outside its error handling
	-- may have left the lock held: take it over rather than stack it.
	IF EXISTS (SELECT FROM pg_locks l
			WHERE l.locktype = 'advisory' AND l.classid = k1::oid AND l.objid = coll::oid
				AND l.objsubid = 2 AND l.pid = pg_backend_pid() AND l.granted) THEN
		NULL;
	ELSIF NOT pg_try_advisory_lock(k1, k2) THEN
		RAISE EXCEPTION USING ERRCODE = '55P03',
			MESSAGE = format('a migration of %s is already running', coll),
			HINT = 'Wait for it to finish (see docmodel.migration_runs), then call again.';
	END IF;

	BEGIN
		SELECT jsonb_object_agg(t.d, docmodel.current_version(t.d, cfg)::text) INTO cur_targets
		FROM (SELECT DISTINCT r.doc_type AS d FROM docmodel.migration_rules r) t;
		cur_targets := coalesce(cur_targets, '{}'::jsonb);

		-- Resume the unfinished run with the same arguments, if there is one.
		SELECT r.run_id, r.last_key, r.docs_done, r.targets INTO old
		FROM docmodel.migration_run r
		WHERE r.coll = _migration_start.coll
			AND r.doc_type IS NOT DISTINCT FROM _migration_start.doc_type
			AND ((r.target IS NULL AND _migration_start.target IS NULL)
				OR r.target OPERATOR(docmodel.=) _migration_start.target)
			AND r.status <> 'done'
		ORDER BY r.run_id DESC LIMIT 1;
		IF FOUND THEN
			run := old.run_id;
			done := old.docs_done;
			-- Rules changed since: documents before last_key may be behind.
			IF old.targets = cur_targets THEN
				last := old.last_key;
			END IF;
			RAISE NOTICE 'resuming run % of % after key %', run, coll,
				coalesce(quote_literal(last), '(start)');
		ELSE
			run := docmodel._migration_run_new(coll, doc_type, target::text, cur_targets);
			done := 0;
		END IF;
		IF docmodel._citus_distributed(coll) THEN
			remaining := 0;  -- counted by the first batch, on the shards
		ELSE
			-- a collection's own field names (NULL for another table: any style)
			EXECUTE format('SELECT count(*) FROM %s
				WHERE ($1 IS NULL OR id > $1) AND docmodel._migration_pending(doc, $2, $3, $4)', coll)
			INTO remaining USING last, doc_type, target, cfg;
		END IF;
		PERFORM docmodel._migration_run_set(run, 'running', last, done, done + remaining,
			cur_targets, NULL);
	EXCEPTION WHEN query_canceled OR others THEN
		PERFORM pg_advisory_unlock(k1, k2);
		RAISE;
	END;
	RETURN run;
END
$$;
COMMENT ON FUNCTION docmodel._migration_start(regclass, text, docmodel.version, integer) IS
	'docmodel internal: check the arguments of migrate_collection, take its lock, start or resume its run';

CREATE FUNCTION docmodel._migration_batch(run bigint, batch_size integer,
	OUT n bigint, OUT done bigint, OUT total bigint,
	OUT err_state text, OUT err_message text, OUT err_detail text, OUT err_hint text,
	OUT err_context text)
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	r docmodel.migration_run;
	cfg regclass;
	batch_end text;
	pending bigint;
	finished boolean;
	ctx text;
BEGIN
	SELECT * INTO STRICT r FROM docmodel.migration_run m WHERE m.run_id = run;
	-- a collection's own field names (NULL for another table: any style)
	cfg := (SELECT c.coll FROM docmodel.collection_config AS c WHERE c.coll = r.coll);
	done := r.docs_done;
	total := r.docs_total;
	BEGIN
		-- On Citus, a batch per shard, all at once (n NULL: not distributed)
		SELECT c.n, c.pending, c.finished INTO n, pending, finished
		FROM docmodel._citus_migrate_batch(r.coll, r.doc_type, r.target, batch_size, cfg) AS c;
		IF n IS NOT NULL THEN
			done := done + n;
			total := done + pending - n;
			PERFORM docmodel._migration_run_set(run, CASE WHEN finished THEN 'done' ELSE r.status END,
				NULL, done, total, NULL, r.error);
			n := CASE WHEN finished THEN 0 ELSE greatest(n, 1) END;
			RETURN;
		END IF;
		EXECUTE format('SELECT max(id), count(*)
			FROM (SELECT id FROM %s
				WHERE ($1 IS NULL OR id > $1) AND docmodel._migration_pending(doc, $2, $3, $5)
				ORDER BY id LIMIT $4) b', r.coll)
		INTO batch_end, n USING r.last_key, r.doc_type, r.target, batch_size, cfg;
		IF n = 0 THEN
			PERFORM docmodel._migration_run_set(run, 'done', r.last_key, done, done,
				NULL, r.error);
			total := done;
			RETURN;
		END IF;
		EXECUTE format('UPDATE %s SET doc = docmodel._migrate_doc(doc, $3, id, $5)
			WHERE ($1 IS NULL OR id > $1) AND id <= $4
				AND docmodel._migration_pending(doc, $2, $3, $5)', r.coll)
		USING r.last_key, r.doc_type, r.target, batch_end, cfg;
		GET DIAGNOSTICS n = ROW_COUNT;
		done := done + n;
		PERFORM docmodel._migration_run_set(run, r.status, batch_end, done,
			r.docs_total, NULL, r.error);
		-- n = 0 means finished: a batch whose documents were all migrated
		-- meanwhile by their writers still counts as progress
		n := greatest(n, 1);
	EXCEPTION WHEN query_canceled OR others THEN
		-- The batch rolled back; record why, keep what committed.
		GET STACKED DIAGNOSTICS err_state = RETURNED_SQLSTATE, err_message = MESSAGE_TEXT,
			err_detail = PG_EXCEPTION_DETAIL, err_hint = PG_EXCEPTION_HINT,
			ctx = PG_EXCEPTION_CONTEXT;
		-- where in the migration: the lines of docmodel's error context
		SELECT string_agg(l, E'\n') INTO err_context
		FROM regexp_split_to_table(ctx, E'\n') AS l
		WHERE l LIKE 'migration %';
		PERFORM docmodel._migration_run_set(run,
			CASE WHEN err_state = '57014' THEN 'cancelled' ELSE 'failed' END,
			r.last_key, r.docs_done, r.docs_total, NULL,
			err_message || coalesce(' (' || nullif(err_detail, '') || ')', '')
				|| coalesce('; ' || err_context, ''));
		n := 0;
	END;
END
$$;
COMMENT ON FUNCTION docmodel._migration_batch(bigint, integer) IS
	'docmodel internal: migrate the next batch of a run (n = 0: finished, or failed with err_state, err_message and where in the migration, err_context)';

CREATE FUNCTION docmodel._migration_unlock(run bigint) RETURNS boolean
LANGUAGE sql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
	SELECT pg_advisory_unlock(1835496052,
		(r.coll::oid::int8 - CASE WHEN r.coll::oid::int8 >= 2147483648 THEN 4294967296 ELSE 0 END)::int4)
	FROM docmodel.migration_run r WHERE r.run_id = run
$$;
COMMENT ON FUNCTION docmodel._migration_unlock(bigint) IS
	'docmodel internal: release the lock of a run of migrate_collection';

CREATE PROCEDURE docmodel.migrate_collection(coll regclass, doc_type text DEFAULT NULL,
	target docmodel.version DEFAULT NULL, batch_size integer DEFAULT 5000)
	AS 'MODULE_PATHNAME', 'migration_migrate_collection'
	LANGUAGE C;
COMMENT ON PROCEDURE docmodel.migrate_collection(regclass, text, docmodel.version, integer) IS
	'docmodel: migrate every outdated document of a collection, committing batch by batch in key order, resumable; see docmodel.migration_runs';

-- (end of migrations)


-------------------------------------------------------------------------------
-- Collections and documents (src/collection.c, src/document.c, src/kv.c)
-------------------------------------------------------------------------------


-- Non-superusers call docmodel's functions (their table privileges apply).
GRANT USAGE ON SCHEMA docmodel TO PUBLIC;

CREATE SEQUENCE docmodel.collection_config_id_seq AS integer;

-- One row per collection. The id is the argument of the collection's
-- trigger, so the trigger finds its configuration without the relation's
-- name or OID (which differ on Citus shards). Readable by everyone (the
-- trigger of any writer reads it); written only by the _config_* functions
-- below, which check that the caller owns the collection; changes
-- invalidate every backend's cache.
CREATE TABLE docmodel.collection_config (
    id integer PRIMARY KEY
        DEFAULT pg_catalog.nextval('docmodel.collection_config_id_seq'),
    coll regclass NOT NULL UNIQUE,
    doc_type text,
    meta_style text NOT NULL DEFAULT 'underscore'
        CONSTRAINT collection_config_meta_style_check
        CHECK (meta_style IN ('underscore', 'meta', 'plain', 'xattrs')),
    time_unit text NOT NULL DEFAULT 'ms'
        CHECK (time_unit IN ('ms', 's', 'min', 'h', 'day', 'iso')),
    delimiter text NOT NULL DEFAULT '::',
    revisions integer NOT NULL DEFAULT 0 CHECK (revisions >= 0),
    revisions_table regclass,
    max_ttl integer NOT NULL DEFAULT 0 CHECK (max_ttl >= 0),
    type_part integer NOT NULL DEFAULT 1 CHECK (type_part >= 0),
    type_check text NOT NULL DEFAULT 'exact'
        CHECK (type_check IN ('exact', 'case_insensitive', 'off')),
    fields jsonb,
    types text[],
    CONSTRAINT collection_config_types_check CHECK (CASE WHEN types IS NULL
        THEN type_part <> 0 OR doc_type IS NOT NULL
        ELSE type_part = 0 AND doc_type IS NULL AND cardinality(types) > 0
            AND array_position(types, NULL) IS NULL AND '' <> ALL (types) END)
);
ALTER SEQUENCE docmodel.collection_config_id_seq
    OWNED BY docmodel.collection_config.id;
SELECT pg_catalog.pg_extension_config_dump('docmodel.collection_config', '');
SELECT pg_catalog.pg_extension_config_dump('docmodel.collection_config_id_seq', '');
GRANT SELECT ON docmodel.collection_config TO PUBLIC;
COMMENT ON TABLE docmodel.collection_config IS
    'docmodel collections: one row per collection, its trigger''s argument is id';

CREATE FUNCTION docmodel._collection_config_changed() RETURNS trigger
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'collection_config_changed';
COMMENT ON FUNCTION docmodel._collection_config_changed() IS
    'internal: invalidate every backend''s collection configuration cache';
CREATE TRIGGER collection_config_changed
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON docmodel.collection_config
    FOR EACH STATEMENT EXECUTE FUNCTION docmodel._collection_config_changed();

-- The only writers of docmodel.collection_config (src/catalog.c): each
-- checks that the caller owns the collection (42501 otherwise, as ALTER
-- TABLE), then writes as the table's owner.
CREATE FUNCTION docmodel._config_create(coll regclass, doc_type text,
    meta_style text, time_unit text, delimiter text)
    RETURNS integer
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'catalog_config_create';
COMMENT ON FUNCTION docmodel._config_create(regclass, text, text, text, text) IS
    'internal: record a new collection the caller owns and return its id';

CREATE FUNCTION docmodel._config_set_revisions(coll regclass, revisions integer,
    revisions_table regclass)
    RETURNS void
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'catalog_config_set_revisions';
COMMENT ON FUNCTION docmodel._config_set_revisions(regclass, integer, regclass) IS
    'internal: set the history of a collection; the caller owns the collection and the history table';

CREATE FUNCTION docmodel._config_adopt_history(hist regclass)
    RETURNS boolean
    LANGUAGE c VOLATILE STRICT PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'catalog_config_adopt_history';
COMMENT ON FUNCTION docmodel._config_adopt_history(regclass) IS
    'internal: forget dropped collections whose history is hist (the caller owns it); false when there are none';

CREATE FUNCTION docmodel._config_drop(coll regclass)
    RETURNS void
    LANGUAGE c VOLATILE STRICT PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'catalog_config_drop';
COMMENT ON FUNCTION docmodel._config_drop(regclass) IS
    'internal: forget a collection the caller owns';

CREATE FUNCTION docmodel._config_set_max_ttl(coll regclass, max_ttl integer)
    RETURNS void
    LANGUAGE c VOLATILE STRICT PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'catalog_config_set_max_ttl';
COMMENT ON FUNCTION docmodel._config_set_max_ttl(regclass, integer) IS
    'internal: set the max_ttl (seconds) of a collection the caller owns';

CREATE FUNCTION docmodel._config_set_layout(coll regclass, type_part integer,
    type_check text, fields jsonb, types text[])
    RETURNS void
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'catalog_config_set_layout';
COMMENT ON FUNCTION docmodel._config_set_layout(regclass, integer, text, jsonb, text[]) IS
    'internal: set the key layout, field names and body types of a collection the caller owns';

CREATE FUNCTION docmodel._check_collection_options(name text, doc_type text,
    revisions integer, meta_style text, time_unit text, delimiter text)
    RETURNS void
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'collection_check_collection_options';
COMMENT ON FUNCTION docmodel._check_collection_options(text, text, integer, text, text, text) IS
    'internal: raise 22023 for a bad option of create_collection';

CREATE FUNCTION docmodel._check_layout(rel regclass, layout text) RETURNS void
    LANGUAGE c STABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'collection_check_layout';
COMMENT ON FUNCTION docmodel._check_layout(regclass, text) IS
    'internal: raise 55000 or 42804 when a table lacks a column of a docmodel layout (collection, history, documents)';

CREATE FUNCTION docmodel.collection_trigger() RETURNS trigger
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'collection_trigger';
COMMENT ON FUNCTION docmodel.collection_trigger() IS
    'the collection trigger: checks keys and types, stamps management fields, sets cas';

-- create_collection is C: it resolves an unqualified name against the
-- caller's search_path (a pinned search_path would hide it), then calls
-- _create_collection with the schema spelled out.
CREATE FUNCTION docmodel._create_collection(schema_name text, table_name text,
    doc_type text, revisions integer, meta_style text, time_unit text,
    delimiter text)
    RETURNS regclass
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    qname text := pg_catalog.quote_ident(schema_name) OPERATOR(pg_catalog.||) '.'
        OPERATOR(pg_catalog.||) pg_catalog.quote_ident(table_name);
    rel regclass;
    cid integer;
BEGIN
    EXECUTE pg_catalog.format('CREATE TABLE %s (id text COLLATE "C" PRIMARY KEY, '
        'doc jsonb NOT NULL, cas bigint NOT NULL, expires_at timestamptz, '
        'locked_until timestamptz)', qname);
    rel := qname::regclass;
    EXECUTE pg_catalog.format('CREATE INDEX ON %s (expires_at) '
        'WHERE expires_at IS NOT NULL', rel);
    -- A plain DROP TABLE of an earlier collection leaves its row; should
    -- the new table reuse that OID, the row is stale (_config_create
    -- replaces it).
    cid := docmodel._config_create(rel, doc_type, meta_style, time_unit, delimiter);
    EXECUTE pg_catalog.format('CREATE TRIGGER docmodel_collection '
        'BEFORE INSERT OR UPDATE ON %s FOR EACH ROW '
        'EXECUTE FUNCTION docmodel.collection_trigger(%s)', rel, cid);
    -- Locks (issue 14): a DELETE of a locked row is checked; others pay nothing.
    EXECUTE pg_catalog.format('CREATE TRIGGER docmodel_lock '
        'BEFORE DELETE ON %s FOR EACH ROW WHEN (OLD.locked_until IS NOT NULL) '
        'EXECUTE FUNCTION docmodel.collection_trigger(%s)', rel, cid);
    IF revisions OPERATOR(pg_catalog.>) 0 THEN
        PERFORM docmodel.set_revisions(rel, revisions);
    END IF;
    RETURN rel;
END
$$;
COMMENT ON FUNCTION docmodel._create_collection(text, text, text, integer, text, text, text) IS
    'internal: create_collection once the schema is resolved';

CREATE FUNCTION docmodel.create_collection(name text, doc_type text DEFAULT NULL,
    revisions integer DEFAULT 0, meta_style text DEFAULT 'underscore',
    time_unit text DEFAULT 'ms', delimiter text DEFAULT '::',
    max_ttl integer DEFAULT NULL, type_part integer DEFAULT 1,
    type_check text DEFAULT 'exact', fields jsonb DEFAULT NULL,
    types text[] DEFAULT NULL)
    RETURNS regclass
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'collection_create_collection';
COMMENT ON FUNCTION docmodel.create_collection(text, text, integer, text, text, text, integer, integer, text, jsonb, text[]) IS
    'create a collection table (id, doc, cas, expires_at, locked_until; meta for xattrs) with its trigger; max_ttl (seconds) is the default expiry and its bound; type_part, type_check and fields set the key layout and field names; types (with type_part 0) the types read from the body''s type field';

CREATE FUNCTION docmodel.drop_collection(coll regclass) RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    hist regclass;
BEGIN
    SELECT c.revisions_table INTO hist FROM docmodel.collection_config AS c
        WHERE c.coll OPERATOR(pg_catalog.=) $1;
    IF NOT FOUND THEN
        RAISE EXCEPTION '"%" is not a docmodel collection', $1
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Drop a plain table with DROP TABLE.';
    END IF;
    -- The owner's alone (42501), then the collection before its history, in
    -- the order its writers lock them: a transaction that read the
    -- collection and then writes it finishes first, instead of deadlocking
    -- on the history table.
    PERFORM docmodel._config_drop($1);
    -- the copy and aggregate rules it writes or feeds, their triggers
    PERFORM docmodel._drop_copy_rules_of($1);
    EXECUTE pg_catalog.format('LOCK TABLE %s IN ACCESS EXCLUSIVE MODE', $1);
    IF hist IS NOT NULL THEN
        EXECUTE pg_catalog.format('DROP TABLE %s', hist);
    END IF;
    EXECUTE pg_catalog.format('DROP TABLE %s', $1);
END
$$;
COMMENT ON FUNCTION docmodel.drop_collection(regclass) IS
    'drop a collection, its revisions table and its configuration';

CREATE VIEW docmodel.collections AS
    SELECT c.coll AS collection, c.doc_type, c.revisions, c.meta_style,
           c.time_unit, c.delimiter, c.revisions_table, c.id AS config_id,
           c.max_ttl, c.type_part, c.type_check, c.fields, c.types
    FROM docmodel.collection_config AS c
    WHERE EXISTS (SELECT FROM pg_catalog.pg_class AS r
                  WHERE r.oid OPERATOR(pg_catalog.=) c.coll);
GRANT SELECT ON docmodel.collections TO PUBLIC;
COMMENT ON VIEW docmodel.collections IS
    'every docmodel collection and its options';

-- Key-value API (src/kv.c). Each runs as the caller: table privileges apply.
CREATE FUNCTION docmodel.get(coll regclass, key text) RETURNS jsonb
    LANGUAGE c STABLE STRICT PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'kv_get';
COMMENT ON FUNCTION docmodel.get(regclass, text) IS
    'the document with this key, NULL when absent or expired';

CREATE FUNCTION docmodel.meta(coll regclass, key text) RETURNS jsonb
    LANGUAGE c STABLE STRICT PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'kv_meta';
COMMENT ON FUNCTION docmodel.meta(regclass, text) IS
    'Couchbase''s meta(): id, cas, expiration and the management fields of the document with this key, whatever the meta style; NULL when absent or expired';

CREATE FUNCTION docmodel.get_multi(coll regclass, keys text[])
    RETURNS TABLE (key text, doc jsonb, cas bigint)
    LANGUAGE c STABLE STRICT PARALLEL RESTRICTED ROWS 10
    AS 'MODULE_PATHNAME', 'kv_get_multi';
COMMENT ON FUNCTION docmodel.get_multi(regclass, text[]) IS
    'the present documents of these keys, in the order asked';

-- An expiry is "any": an interval, a number of seconds (Couchbase's: over
-- 30 days a Unix time, 0 none), or an untyped literal of either, so that
-- every call written for the interval parameters keeps working; overloads
-- on interval and bigint would make untyped literals and NULL ambiguous.
CREATE FUNCTION docmodel.exists(coll regclass, key text) RETURNS boolean
    LANGUAGE c STABLE STRICT PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'kv_exists';
COMMENT ON FUNCTION docmodel.exists(regclass, text) IS
    'whether a live (not expired) document has this key';

CREATE FUNCTION docmodel.insert(coll regclass, key text, doc jsonb,
    expiry "any" DEFAULT NULL) RETURNS bigint
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'kv_insert';
COMMENT ON FUNCTION docmodel.insert(regclass, text, jsonb, "any") IS
    'insert a new document and return its cas; 23505 when the key exists';

CREATE FUNCTION docmodel.upsert(coll regclass, key text, doc jsonb,
    expiry "any" DEFAULT NULL, preserve_expiry boolean DEFAULT false) RETURNS bigint
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'kv_upsert';
COMMENT ON FUNCTION docmodel.upsert(regclass, text, jsonb, "any", boolean) IS
    'insert or replace a document and return its new cas';

CREATE FUNCTION docmodel.replace(coll regclass, key text, doc jsonb,
    cas bigint DEFAULT NULL, expiry "any" DEFAULT NULL,
    preserve_expiry boolean DEFAULT false) RETURNS bigint
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'kv_replace';
COMMENT ON FUNCTION docmodel.replace(regclass, text, jsonb, bigint, "any", boolean) IS
    'replace a present document (only at this cas when given) and return its new cas';

CREATE FUNCTION docmodel.remove(coll regclass, key text, cas bigint DEFAULT NULL)
    RETURNS bigint
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'kv_remove';
COMMENT ON FUNCTION docmodel.remove(regclass, text, bigint) IS
    'delete a present document (only at this cas when given); returns the cas it had';

CREATE FUNCTION docmodel.touch(coll regclass, key text, expiry "any")
    RETURNS bigint
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'kv_touch';
COMMENT ON FUNCTION docmodel.touch(regclass, text, "any") IS
    'set (or clear with NULL) a present document''s expiry; returns its new cas';

CREATE FUNCTION docmodel.get_and_touch(coll regclass, key text, expiry "any",
    OUT doc jsonb, OUT cas bigint)
    RETURNS record
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'kv_get_and_touch';
COMMENT ON FUNCTION docmodel.get_and_touch(regclass, text, "any") IS
    'set (or clear with NULL) a present document''s expiry and return it with its new cas';

CREATE FUNCTION docmodel.get_and_lock(coll regclass, key text,
    lock_time "any" DEFAULT NULL, OUT doc jsonb, OUT cas bigint)
    RETURNS record
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'kv_get_and_lock';
COMMENT ON FUNCTION docmodel.get_and_lock(regclass, text, "any") IS
    'lock a present document for lock_time (15 s by default, 30 s at most) and return it with the lock''s cas; 55P03 when locked';

CREATE FUNCTION docmodel.unlock(coll regclass, key text, cas bigint)
    RETURNS bigint
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'kv_unlock';
COMMENT ON FUNCTION docmodel.unlock(regclass, text, bigint) IS
    'end the lock of a document, given the lock''s cas; returns its new cas';

CREATE FUNCTION docmodel.purge_expired(coll regclass) RETURNS bigint
    LANGUAGE c VOLATILE STRICT PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'kv_purge_expired';
COMMENT ON FUNCTION docmodel.purge_expired(regclass) IS
    'delete the expired documents of a collection and return how many';

-- Sub-document API (src/subdoc.c): Couchbase's lookup_in and mutate_in.
-- Both run as the caller: lookup_in needs SELECT on the collection,
-- mutate_in SELECT and UPDATE (and INSERT for store_semantics upsert and
-- insert).
CREATE FUNCTION docmodel.lookup_in(coll regclass, key text, specs jsonb)
    RETURNS jsonb
    LANGUAGE c STABLE STRICT PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'subdoc_lookup_in';
COMMENT ON FUNCTION docmodel.lookup_in(regclass, text, jsonb) IS
    'read paths of a document (specs get, exists, count): one result per spec, NULL when the document is absent or expired';

CREATE FUNCTION docmodel.mutate_in(coll regclass, key text, specs jsonb,
    cas bigint DEFAULT NULL, expiry "any" DEFAULT NULL,
    store_semantics text DEFAULT 'replace',
    preserve_expiry boolean DEFAULT false) RETURNS jsonb
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'subdoc_mutate_in';
COMMENT ON FUNCTION docmodel.mutate_in(regclass, text, jsonb, bigint, "any", text, boolean) IS
    'change paths of a document (specs insert, upsert, replace, remove, array_*, increment, decrement), all or nothing; returns the new cas and per-spec results';

CREATE FUNCTION docmodel._mutate_in_apply(doc jsonb, specs jsonb, key text)
    RETURNS jsonb
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'subdoc_mutate_in_apply';
COMMENT ON FUNCTION docmodel._mutate_in_apply(jsonb, jsonb, text) IS
    'internal: doc (NULL: {}) migrated, with the mutate_in specs applied (the new doc of mutate_in''s statement)';

-- The guides' operations (src/ops.c): rename_key and bucket_append. Both
-- run as the caller: rename_key needs INSERT and DELETE on the collection
-- (and SELECT, UPDATE for its statement), bucket_append INSERT and UPDATE
-- (and SELECT).
CREATE FUNCTION docmodel.rename_key(coll regclass, old_key text, new_key text,
    cas bigint DEFAULT NULL) RETURNS bigint
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'collection_rename_key';
COMMENT ON FUNCTION docmodel.rename_key(regclass, text, text, bigint) IS
    'move a document to a new key in one step: _ver continues, _created kept, history carried (the old key''s ends with op rename); returns the new cas';

CREATE FUNCTION docmodel._key_exists_error(coll regclass, key text)
    RETURNS bigint
    LANGUAGE c VOLATILE STRICT PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'key_exists_error';
COMMENT ON FUNCTION docmodel._key_exists_error(regclass, text) IS
    'internal: raise DocumentExists (23505) for key (rename_key''s statement)';

CREATE FUNCTION docmodel.bucket_append(coll regclass, prefix text, value jsonb,
    size integer DEFAULT 100) RETURNS text
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'collection_bucket_append';
COMMENT ON FUNCTION docmodel.bucket_append(regclass, text, jsonb, integer) IS
    'append value to the items of the current bucket document <prefix>::<n>, opening <prefix>::<n+1> when it holds size items; returns the key written';

-- (end of collections)


-------------------------------------------------------------------------------
-- Revisions (src/revision.c)
-------------------------------------------------------------------------------

CREATE FUNCTION docmodel.diff(a jsonb, b jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'json_diff'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.diff(jsonb, jsonb) IS
	'RFC 6902 JSON Patch turning a into b (objects member by member, arrays position by position)';

CREATE FUNCTION docmodel.patch(doc jsonb, patch jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'json_patch'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.patch(jsonb, jsonb) IS
	'Apply an RFC 6902 JSON Patch to doc; an operation that cannot apply (or a failing test) is an error';

-- The one way docmodel names a table it derives from a collection.
CREATE FUNCTION docmodel._derived_name(nsp regnamespace, base text, label text)
    RETURNS name
    LANGUAGE c STABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'collection_derived_name';
COMMENT ON FUNCTION docmodel._derived_name(regnamespace, text, text) IS
    'internal: a free name base_label in nsp, base cut to fit NAMEDATALEN, a number added to label when taken';

CREATE FUNCTION docmodel.set_revisions(coll regclass, keep integer)
    RETURNS regclass
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    cid integer;
    hist regclass;
    nspid oid;
    base name;
    owner name;
    owner_id oid;
    histname name;
    distributed boolean := false;
BEGIN
    IF keep IS NULL OR keep OPERATOR(pg_catalog.<) 0 THEN
        RAISE EXCEPTION 'invalid number of revisions to keep: %', coalesce(keep::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = pg_catalog.format('Collection "%s" was given keep => %s.', $1, coalesce(keep::text, 'NULL')),
                  HINT = 'Give the number of revisions to keep per document, 0 to turn history off.';
    END IF;
    -- Configuration is the owner's, as ALTER TABLE is (_config_set_revisions
    -- checks it too); one set_revisions at a time per collection.
    SELECT r.relname, r.relowner INTO base, owner_id
        FROM pg_catalog.pg_class AS r WHERE r.oid OPERATOR(pg_catalog.=) $1;
    IF NOT pg_catalog.pg_has_role(owner_id, 'USAGE') THEN
        RAISE EXCEPTION 'must be owner of table %', base
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = 'Changing the configuration of a collection takes its ownership.';
    END IF;
    EXECUTE pg_catalog.format('LOCK TABLE %s IN SHARE ROW EXCLUSIVE MODE', $1);
    SELECT c.id, c.revisions_table INTO cid, hist
        FROM docmodel.collection_config AS c
        WHERE c.coll OPERATOR(pg_catalog.=) $1;
    IF NOT FOUND THEN
        RAISE EXCEPTION '"%" is not a docmodel collection', $1
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Create collections with docmodel.create_collection().';
    END IF;
    -- A history table the user dropped is forgotten (and made again below).
    IF hist IS NOT NULL AND NOT EXISTS (SELECT FROM pg_catalog.pg_class AS r
                                        WHERE r.oid OPERATOR(pg_catalog.=) hist) THEN
        hist := NULL;
    END IF;
    -- On Citus, the history of a distributed collection is distributed
    -- with it (colocated, below) and its trigger goes onto every shard.
    IF keep OPERATOR(pg_catalog.>) 0 AND docmodel._citus_distributed($1) THEN
        distributed := true;
        PERFORM pg_catalog.set_config('citus.enable_unsafe_triggers', 'on', true);
    END IF;
    IF keep OPERATOR(pg_catalog.>) 0 AND hist IS NULL THEN
        SELECT r.relnamespace, r.relname, pg_catalog.pg_get_userbyid(r.relowner)
            INTO nspid, base, owner
            FROM pg_catalog.pg_class AS r
            WHERE r.oid OPERATOR(pg_catalog.=) $1;
        -- The history a plain DROP TABLE of a collection of this name left
        -- behind is taken over (its numbering continues): <name>_revisions,
        -- uncut, named by the configuration of a dropped table.
        SELECT h.oid INTO hist FROM pg_catalog.pg_class AS h
            WHERE h.relnamespace OPERATOR(pg_catalog.=) nspid
              AND h.relname OPERATOR(pg_catalog.=) (base::text OPERATOR(pg_catalog.||) '_revisions');
        IF hist IS NOT NULL THEN
            IF NOT docmodel._config_adopt_history(hist) THEN
                hist := NULL;
            END IF;
        END IF;
        IF hist IS NULL THEN
            -- A free name that fits: <name>_revisions, the name cut to fit,
            -- a number added when taken.
            histname := docmodel._derived_name(nspid::regnamespace, base, 'revisions');
            EXECUTE pg_catalog.format('CREATE TABLE %s.%I (id text COLLATE "C" NOT NULL, '
                'ver integer NOT NULL, op text NOT NULL, changed_at timestamptz NOT NULL, '
                'changed_by text, doc jsonb, PRIMARY KEY (id, ver))',
                nspid::regnamespace, histname);
            SELECT h.oid INTO hist FROM pg_catalog.pg_class AS h
                WHERE h.relnamespace OPERATOR(pg_catalog.=) nspid
                  AND h.relname OPERATOR(pg_catalog.=) histname;
            IF owner OPERATOR(pg_catalog.<>) CURRENT_USER THEN
                EXECUTE pg_catalog.format('ALTER TABLE %s OWNER TO %I', hist, owner);
            END IF;
            EXECUTE pg_catalog.format('COMMENT ON TABLE %s IS %L', hist,
                pg_catalog.format('docmodel revisions of collection %s', $1));
        END IF;
    END IF;
    -- (before the configuration names it to the workers)
    IF distributed AND NOT docmodel._citus_distributed(hist) THEN
        PERFORM pg_catalog.create_distributed_table(hist, 'id', colocate_with => $1::text);
        PERFORM pg_catalog.truncate_local_data_after_distributing_table(hist);
    END IF;
    PERFORM docmodel._config_set_revisions($1, keep, hist);
    IF EXISTS (SELECT FROM pg_catalog.pg_trigger AS g WHERE g.tgrelid OPERATOR(pg_catalog.=) $1
               AND g.tgname OPERATOR(pg_catalog.=) 'docmodel_revisions') THEN
        EXECUTE pg_catalog.format('DROP TRIGGER docmodel_revisions ON %s', $1);
    END IF;
    IF EXISTS (SELECT FROM pg_catalog.pg_trigger AS g WHERE g.tgrelid OPERATOR(pg_catalog.=) $1
               AND g.tgname OPERATOR(pg_catalog.=) 'docmodel_revisions_truncate') THEN
        EXECUTE pg_catalog.format('DROP TRIGGER docmodel_revisions_truncate ON %s', $1);
    END IF;
    IF keep OPERATOR(pg_catalog.>) 0 THEN
        EXECUTE pg_catalog.format('CREATE TRIGGER docmodel_revisions '
            'AFTER INSERT OR UPDATE OR DELETE ON %s FOR EACH ROW '
            'EXECUTE FUNCTION docmodel.collection_trigger(%s)', $1, cid);
        EXECUTE pg_catalog.format('CREATE TRIGGER docmodel_revisions_truncate '
            'BEFORE TRUNCATE ON %s FOR EACH STATEMENT '
            'EXECUTE FUNCTION docmodel.collection_trigger(%s)', $1, cid);
        -- Keep at most keep revisions per key from now on.
        EXECUTE pg_catalog.format('DELETE FROM %1$s AS r USING '
            '(SELECT h.id, pg_catalog.max(h.ver) AS newest FROM %1$s AS h GROUP BY h.id) AS n '
            'WHERE r.id OPERATOR(pg_catalog.=) n.id '
            'AND r.ver OPERATOR(pg_catalog.<=) (n.newest OPERATOR(pg_catalog.-) $1)', hist)
            USING keep;
    END IF;
    RETURN hist;
END
$$;
COMMENT ON FUNCTION docmodel.set_revisions(regclass, integer) IS
    'keep the last keep revisions of every document of a collection (0 = off; the history table is kept)';

-- The history table of a collection, or an error naming why there is none.
CREATE FUNCTION docmodel._revisions_table(coll regclass, OUT hist regclass, OUT delim text)
    LANGUAGE plpgsql STABLE PARALLEL SAFE STRICT
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    SELECT c.revisions_table, c.delimiter INTO hist, delim
        FROM docmodel.collection_config AS c
        WHERE c.coll OPERATOR(pg_catalog.=) $1;
    IF NOT FOUND THEN
        RAISE EXCEPTION '"%" is not a docmodel collection', $1
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Create collections with docmodel.create_collection().';
    END IF;
    IF hist IS NULL THEN
        RAISE EXCEPTION 'collection "%" keeps no revisions', $1
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Turn history on with docmodel.set_revisions(coll, keep).';
    END IF;
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_class AS r WHERE r.oid OPERATOR(pg_catalog.=) hist) THEN
        RAISE EXCEPTION 'the revisions table of collection "%" does not exist', $1
            USING ERRCODE = 'undefined_table',
                  HINT = 'Call docmodel.set_revisions() to create a new one.';
    END IF;
    PERFORM docmodel._check_layout(hist, 'history');
END
$$;
COMMENT ON FUNCTION docmodel._revisions_table(regclass) IS
    'internal: the revisions table and key delimiter of a collection';

CREATE FUNCTION docmodel.revisions(coll regclass, key text)
    RETURNS TABLE(ver integer, revision_key text, op text, changed_at timestamptz,
                  changed_by text, doc jsonb)
    LANGUAGE plpgsql STABLE PARALLEL SAFE STRICT
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    t record;
BEGIN
    t := docmodel._revisions_table($1);
    RETURN QUERY EXECUTE pg_catalog.format('SELECT r.ver, r.id OPERATOR(pg_catalog.||) $2 '
        'OPERATOR(pg_catalog.||) ''v'' OPERATOR(pg_catalog.||) $2 OPERATOR(pg_catalog.||) r.ver::text, '
        'r.op, r.changed_at, r.changed_by, r.doc FROM %s AS r '
        'WHERE r.id OPERATOR(pg_catalog.=) $1 ORDER BY r.ver DESC', t.hist)
        USING $2, t.delim;
END
$$;
COMMENT ON FUNCTION docmodel.revisions(regclass, text) IS
    'the stored revisions of a document, newest first (also after it was deleted)';

CREATE FUNCTION docmodel.get_revision(coll regclass, key text, ver integer) RETURNS jsonb
    LANGUAGE plpgsql STABLE PARALLEL SAFE STRICT
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    t record;
    body jsonb;
BEGIN
    t := docmodel._revisions_table($1);
    EXECUTE pg_catalog.format('SELECT r.doc FROM %s AS r WHERE r.id OPERATOR(pg_catalog.=) $1 '
        'AND r.ver OPERATOR(pg_catalog.=) $2', t.hist)
        INTO body USING $2, $3;
    RETURN body;
END
$$;
COMMENT ON FUNCTION docmodel.get_revision(regclass, text, integer) IS
    'the body of revision ver of a document, NULL when there is none';

CREATE FUNCTION docmodel.restore(coll regclass, key text, ver integer) RETURNS bigint
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE STRICT
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    body jsonb;
    newcas bigint;
BEGIN
    PERFORM docmodel._check_layout($1, 'collection');
    body := docmodel.get_revision($1, $2, $3);
    IF body IS NULL THEN
        RAISE EXCEPTION 'revision % of document "%" does not exist', $3, $2
            USING ERRCODE = 'no_data_found',
                  DETAIL = pg_catalog.format('Collection %s has no revision %s of key "%s".', $1, $3, $2),
                  HINT = 'docmodel.revisions(coll, key) lists the stored revisions.';
    END IF;
    -- An insert after a delete, else an update; the trigger numbers and
    -- stamps it, and the update files the current body as a revision.
    EXECUTE pg_catalog.format('INSERT INTO %s AS t (id, doc, cas) VALUES ($1, $2, 0) '
        'ON CONFLICT (id) DO UPDATE SET doc = excluded.doc, expires_at = NULL '
        'RETURNING t.cas', $1)
        INTO newcas USING $2, body;
    RETURN newcas;
END
$$;
COMMENT ON FUNCTION docmodel.restore(regclass, text, integer) IS
    'write revision ver of a document back as its current body (a new revision; works after a delete); returns the new CAS';

-- (end of revisions)

-------------------------------------------------------------------------------
-- Scale-out on Citus (src/citus.c)
-------------------------------------------------------------------------------

-- Every node has its own docmodel catalogs; the coordinator's rows are the
-- truth. The statement triggers of docmodel.collection_config and
-- docmodel.migration_rules (and distribute_collection) send each worker with
-- metadata one call of _citus_apply, in the coordinator's transaction
-- (two-phase commit), carrying the configuration of the distributed
-- collections by name (OIDs differ per node) and the migration rules.
CREATE FUNCTION docmodel._citus_push() RETURNS void
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'citus_push';
COMMENT ON FUNCTION docmodel._citus_push() IS
    'internal: send the coordinator''s collection configuration and migration rules to the Citus workers, in this transaction';

-- Runs on a worker. A row or rule it would change needs, of the role Citus
-- connected as, what changing it on the coordinator needs: membership in
-- the collection's owner role, INSERT and DELETE on the rules.
CREATE FUNCTION docmodel._citus_apply(config jsonb, rules jsonb, schemas jsonb,
    write_rules jsonb DEFAULT '[]') RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    c jsonb;
    rel regclass;
    hist regclass;
    ids integer[] := '{}';
    cur record;
BEGIN
    IF pg_catalog.to_regclass('pg_catalog.pg_dist_local_group') IS NULL THEN
        RAISE EXCEPTION 'docmodel._citus_apply runs on Citus workers only'
            USING ERRCODE = 'feature_not_supported';
    END IF;
    IF EXISTS (SELECT FROM pg_catalog.pg_dist_local_group AS g
               WHERE g.groupid OPERATOR(pg_catalog.=) 0) THEN
        RAISE EXCEPTION 'docmodel._citus_apply runs on Citus workers only'
            USING ERRCODE = 'feature_not_supported';
    END IF;
    FOR c IN SELECT e FROM pg_catalog.jsonb_array_elements(config) AS e LOOP
        rel := pg_catalog.to_regclass(c OPERATOR(pg_catalog.->>) 'coll');
        CONTINUE WHEN rel IS NULL;  -- not on this node
        hist := pg_catalog.to_regclass(c OPERATOR(pg_catalog.->>) 'revisions_table');
        ids := ids OPERATOR(pg_catalog.||) (c OPERATOR(pg_catalog.->>) 'id')::integer;
        SELECT k.* INTO cur FROM docmodel.collection_config AS k
            WHERE k.id OPERATOR(pg_catalog.=) (c OPERATOR(pg_catalog.->>) 'id')::integer;
        CONTINUE WHEN FOUND AND cur.coll OPERATOR(pg_catalog.=) rel
            AND cur.doc_type IS NOT DISTINCT FROM (c OPERATOR(pg_catalog.->>) 'doc_type')
            AND cur.meta_style OPERATOR(pg_catalog.=) (c OPERATOR(pg_catalog.->>) 'meta_style')
            AND cur.time_unit OPERATOR(pg_catalog.=) (c OPERATOR(pg_catalog.->>) 'time_unit')
            AND cur.delimiter OPERATOR(pg_catalog.=) (c OPERATOR(pg_catalog.->>) 'delimiter')
            AND cur.revisions OPERATOR(pg_catalog.=) (c OPERATOR(pg_catalog.->>) 'revisions')::integer
            AND cur.revisions_table IS NOT DISTINCT FROM hist
            AND cur.max_ttl OPERATOR(pg_catalog.=) (c OPERATOR(pg_catalog.->>) 'max_ttl')::integer
            AND cur.type_part OPERATOR(pg_catalog.=) (c OPERATOR(pg_catalog.->>) 'type_part')::integer
            AND cur.type_check OPERATOR(pg_catalog.=) (c OPERATOR(pg_catalog.->>) 'type_check')
            AND cur.fields IS NOT DISTINCT FROM NULLIF(c OPERATOR(pg_catalog.->) 'fields', 'null'::jsonb)
            AND cur.types IS NOT DISTINCT FROM (SELECT pg_catalog.array_agg(t.e ORDER BY t.o)
                FROM pg_catalog.jsonb_array_elements_text(NULLIF(c OPERATOR(pg_catalog.->) 'types', 'null'::jsonb))
                WITH ORDINALITY AS t(e, o));
        -- The history table it names too, by OID: the trigger writes and
        -- prunes revisions there without further checks.
        IF hist IS NOT NULL
           AND NOT pg_catalog.pg_has_role(SESSION_USER, (SELECT r.relowner FROM pg_catalog.pg_class AS r
                                          WHERE r.oid OPERATOR(pg_catalog.=) hist), 'USAGE') THEN
            RAISE EXCEPTION 'must be owner of table %', hist
                USING ERRCODE = 'insufficient_privilege',
                      DETAIL = pg_catalog.format('Collection %s names it as its revisions table.', rel);
        END IF;
        -- the row it replaces too (same id or same table)
        IF NOT pg_catalog.pg_has_role(SESSION_USER, (SELECT r.relowner FROM pg_catalog.pg_class AS r
                                       WHERE r.oid OPERATOR(pg_catalog.=) rel), 'USAGE')
           OR EXISTS (SELECT FROM docmodel.collection_config AS k
                      JOIN pg_catalog.pg_class AS r ON r.oid OPERATOR(pg_catalog.=) k.coll
                      WHERE k.id OPERATOR(pg_catalog.=) (c OPERATOR(pg_catalog.->>) 'id')::integer
                        AND NOT pg_catalog.pg_has_role(SESSION_USER, r.relowner, 'USAGE')) THEN
            RAISE EXCEPTION 'must be owner of table %', rel
                USING ERRCODE = 'insufficient_privilege',
                      DETAIL = 'Changing the configuration of a collection takes its ownership.';
        END IF;
        DELETE FROM docmodel.collection_config AS k
            WHERE k.id OPERATOR(pg_catalog.=) (c OPERATOR(pg_catalog.->>) 'id')::integer
               OR k.coll OPERATOR(pg_catalog.=) rel;
        INSERT INTO docmodel.collection_config (id, coll, doc_type, meta_style, time_unit,
                delimiter, revisions, revisions_table, max_ttl, type_part, type_check, fields, types)
            VALUES ((c OPERATOR(pg_catalog.->>) 'id')::integer, rel,
                (c OPERATOR(pg_catalog.->>) 'doc_type'), (c OPERATOR(pg_catalog.->>) 'meta_style'),
                (c OPERATOR(pg_catalog.->>) 'time_unit'), (c OPERATOR(pg_catalog.->>) 'delimiter'),
                (c OPERATOR(pg_catalog.->>) 'revisions')::integer, hist,
                (c OPERATOR(pg_catalog.->>) 'max_ttl')::integer,
                (c OPERATOR(pg_catalog.->>) 'type_part')::integer,
                (c OPERATOR(pg_catalog.->>) 'type_check'),
                NULLIF(c OPERATOR(pg_catalog.->) 'fields', 'null'::jsonb),
                (SELECT pg_catalog.array_agg(t.e ORDER BY t.o)
                FROM pg_catalog.jsonb_array_elements_text(NULLIF(c OPERATOR(pg_catalog.->) 'types', 'null'::jsonb))
                WITH ORDINALITY AS t(e, o)));
    END LOOP;
    -- Distributed collections the coordinator no longer lists, and those
    -- whose table is gone here (undistributed since).
    FOR cur IN SELECT k.id, k.coll FROM docmodel.collection_config AS k
               WHERE NOT k.id OPERATOR(pg_catalog.=) ANY (ids)
                 AND (docmodel._citus_distributed(k.coll)
                      OR NOT EXISTS (SELECT FROM pg_catalog.pg_class AS r
                                     WHERE r.oid OPERATOR(pg_catalog.=) k.coll)) LOOP
        IF NOT pg_catalog.pg_has_role(SESSION_USER, (SELECT r.relowner FROM pg_catalog.pg_class AS r
                                       WHERE r.oid OPERATOR(pg_catalog.=) cur.coll), 'USAGE') THEN
            RAISE EXCEPTION 'must be owner of table %', cur.coll
                USING ERRCODE = 'insufficient_privilege',
                      DETAIL = 'Changing the configuration of a collection takes its ownership.';
        END IF;
        DELETE FROM docmodel.collection_config AS k WHERE k.id OPERATOR(pg_catalog.=) cur.id;
    END LOOP;
    -- Rules by steps only (a rule's function is the coordinator's).
    IF (SELECT COALESCE(pg_catalog.jsonb_agg(pg_catalog.to_jsonb(m)
                ORDER BY m.doc_type, m.collection_id, m.from_version), '[]')
        FROM docmodel.migration_rules AS m) IS DISTINCT FROM rules THEN
        IF NOT pg_catalog.has_table_privilege(SESSION_USER, 'docmodel.migration_rules',
                                              'INSERT, DELETE') THEN
            RAISE EXCEPTION 'permission denied for table migration_rules'
                USING ERRCODE = 'insufficient_privilege';
        END IF;
        -- Without the rules' triggers: functions pinned here are Citus's to
        -- drop (from the coordinator), not this node's.
        PERFORM pg_catalog.set_config('session_replication_role', 'replica', true);
        DELETE FROM docmodel.migration_rules;
        INSERT INTO docmodel.migration_rules
            SELECT * FROM pg_catalog.jsonb_populate_recordset(NULL::docmodel.migration_rules, rules);
        PERFORM pg_catalog.set_config('session_replication_role', 'origin', true);
        -- An empty INSERT fires the statement trigger that tells every
        -- backend's migration cache.
        INSERT INTO docmodel.migration_rules SELECT * FROM docmodel.migration_rules WHERE false;
    END IF;
    -- The registered schemas the shards' triggers validate writes with
    -- (their statement trigger tells every backend).
    IF (SELECT COALESCE(pg_catalog.jsonb_agg(pg_catalog.to_jsonb(s)
                ORDER BY s.doc_type, s.version), '[]')
        FROM docmodel.schemas AS s) IS DISTINCT FROM schemas THEN
        IF NOT pg_catalog.has_table_privilege(SESSION_USER, 'docmodel.schemas',
                                              'INSERT, DELETE') THEN
            RAISE EXCEPTION 'permission denied for table schemas'
                USING ERRCODE = 'insufficient_privilege';
        END IF;
        DELETE FROM docmodel.schemas;
        INSERT INTO docmodel.schemas
            SELECT * FROM pg_catalog.jsonb_populate_recordset(NULL::docmodel.schemas, schemas);
    END IF;
    -- The write rules the shards' triggers apply (their statement trigger
    -- tells every backend).
    IF (SELECT COALESCE(pg_catalog.jsonb_agg(pg_catalog.to_jsonb(w)
                ORDER BY w.doc_type, w.collection_id), '[]')
        FROM docmodel.write_rules AS w) IS DISTINCT FROM write_rules THEN
        IF NOT pg_catalog.has_table_privilege(SESSION_USER, 'docmodel.write_rules',
                                              'INSERT, DELETE') THEN
            RAISE EXCEPTION 'permission denied for table write_rules'
                USING ERRCODE = 'insufficient_privilege';
        END IF;
        DELETE FROM docmodel.write_rules;
        INSERT INTO docmodel.write_rules
            SELECT * FROM pg_catalog.jsonb_populate_recordset(NULL::docmodel.write_rules, write_rules);
    END IF;
END
$$;
REVOKE ALL ON FUNCTION docmodel._citus_apply(jsonb, jsonb, jsonb, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION docmodel._citus_apply(jsonb, jsonb, jsonb, jsonb) TO PUBLIC;
COMMENT ON FUNCTION docmodel._citus_apply(jsonb, jsonb, jsonb, jsonb) IS
    'internal: on a Citus worker, take the coordinator''s configuration of distributed collections and its migration rules';

-- The checks both functions below share: Citus is there, this is the
-- coordinator, coll is a collection the caller owns. Returns its history.
CREATE FUNCTION docmodel._citus_collection(coll regclass, what text) RETURNS regclass
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    hist regclass;
BEGIN
    IF pg_catalog.to_regclass('pg_catalog.pg_dist_partition') IS NULL THEN
        RAISE EXCEPTION 'cannot %: Citus is not installed', what
            USING ERRCODE = 'feature_not_supported',
                  DETAIL = pg_catalog.format('Collection "%s" stays on this server.', coll),
                  HINT = 'Install Citus, add it to shared_preload_libraries and CREATE EXTENSION citus on every node (README, "Scale-out").';
    END IF;
    SELECT c.revisions_table INTO hist FROM docmodel.collection_config AS c
        WHERE c.coll OPERATOR(pg_catalog.=) $1;
    IF NOT FOUND THEN
        RAISE EXCEPTION '"%" is not a docmodel collection', coll
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Create collections with docmodel.create_collection().';
    END IF;
    IF NOT pg_catalog.pg_has_role((SELECT r.relowner FROM pg_catalog.pg_class AS r
                                   WHERE r.oid OPERATOR(pg_catalog.=) coll), 'USAGE') THEN
        RAISE EXCEPTION 'must be owner of table %', coll
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = 'Changing the configuration of a collection takes its ownership.';
    END IF;
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_dist_local_group AS g
                   WHERE g.groupid OPERATOR(pg_catalog.=) 0) THEN
        RAISE EXCEPTION 'cannot % on a Citus worker', what
            USING ERRCODE = 'feature_not_supported',
                  HINT = 'Call it on the coordinator.';
    END IF;
    IF hist IS NOT NULL AND NOT EXISTS (SELECT FROM pg_catalog.pg_class AS r
                                        WHERE r.oid OPERATOR(pg_catalog.=) hist) THEN
        hist := NULL;
    END IF;
    RETURN hist;
END
$$;
COMMENT ON FUNCTION docmodel._citus_collection(regclass, text) IS
    'internal: check that Citus is installed, this is its coordinator and the caller owns collection coll; return its revisions table';

CREATE FUNCTION docmodel.distribute_collection(coll regclass, shard_count integer DEFAULT NULL)
    RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    SET client_min_messages = warning  -- (Citus's notices of its copy)
    AS $$
DECLARE
    hist regclass := docmodel._citus_collection(coll, 'distribute a collection');
    fn text;
    tg name;
    off name[] := '{}';
BEGIN
    IF shard_count IS NOT NULL AND shard_count OPERATOR(pg_catalog.<) 1 THEN
        RAISE EXCEPTION 'invalid shard count: %', shard_count
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Give a positive number of shards, or NULL for citus.shard_count.';
    END IF;
    -- A rule's function is this node's; the workers would not find it.
    SELECT pg_catalog.format('type "%s" from %s', m.doc_type, m.from_version) INTO fn
        FROM docmodel.migration_rules AS m WHERE m.fn IS NOT NULL LIMIT 1;
    IF fn IS NOT NULL THEN
        RAISE EXCEPTION 'cannot distribute collection "%": a migration rule calls a function', coll
            USING ERRCODE = 'feature_not_supported',
                  DETAIL = pg_catalog.format('The rule of %s runs a function, which the workers do not have.', fn),
                  HINT = 'Register the migration with steps instead.';
    END IF;
    -- Lookups and projections write across shards or read transition
    -- tables: neither can run on the shards.
    SELECT g.tgname INTO tg FROM pg_catalog.pg_trigger AS g
        WHERE g.tgrelid OPERATOR(pg_catalog.=) coll
          AND g.tgname OPERATOR(pg_catalog.~~) 'docmodel\_lookup\_%' LIMIT 1;
    IF tg IS NOT NULL THEN
        RAISE EXCEPTION 'cannot distribute collection "%": it has a lookup', coll
            USING ERRCODE = 'feature_not_supported',
                  DETAIL = pg_catalog.format('Lookup trigger %s writes documents under other keys, which live on other shards.', tg),
                  HINT = 'Drop the lookup (docmodel.drop_lookup) first; index the value with a secondary index instead.';
    END IF;
    SELECT p.mapping INTO fn FROM docmodel.projections AS p
        WHERE p.coll OPERATOR(pg_catalog.=) distribute_collection.coll LIMIT 1;
    IF fn IS NOT NULL THEN
        RAISE EXCEPTION 'cannot distribute collection "%": mapping "%" is projected onto it', coll, fn
            USING ERRCODE = 'feature_not_supported',
                  DETAIL = 'The projection''s triggers read transition tables, which Citus cannot send to the workers.',
                  HINT = 'Stop the projection (docmodel.stop_projection) first; load with docmodel.migrate_tables().';
    END IF;
    -- The collection's triggers go onto its shards.
    PERFORM pg_catalog.set_config('citus.enable_unsafe_triggers', 'on', true);
    IF NOT docmodel._citus_distributed(coll) THEN
        -- The documents already there are copied into the shards as they
        -- are: docmodel's triggers are off for the copy (this transaction
        -- holds the table), so that nothing is stamped, checked or recorded
        -- again, and on again after it, on the shards too.
        FOR tg IN SELECT g.tgname FROM pg_catalog.pg_trigger AS g
                  WHERE g.tgrelid OPERATOR(pg_catalog.=) coll AND NOT g.tgisinternal
                    AND g.tgenabled OPERATOR(pg_catalog.<>) 'D'
                    AND g.tgname OPERATOR(pg_catalog.~~) 'docmodel\_%' LOOP
            EXECUTE pg_catalog.format('ALTER TABLE %s DISABLE TRIGGER %I', coll, tg);
            off := off OPERATOR(pg_catalog.||) tg;
        END LOOP;
        PERFORM pg_catalog.create_distributed_table(coll, 'id', shard_count => shard_count);
        -- (the copied rows would stay on the coordinator's disk, unseen)
        PERFORM pg_catalog.truncate_local_data_after_distributing_table(coll);
        FOREACH tg IN ARRAY off LOOP
            EXECUTE pg_catalog.format('ALTER TABLE %s ENABLE TRIGGER %I', coll, tg);
        END LOOP;
    END IF;
    -- History next to its document: the same shards of the key space.
    IF hist IS NOT NULL AND NOT docmodel._citus_distributed(hist) THEN
        PERFORM pg_catalog.create_distributed_table(hist, 'id', colocate_with => coll::text);
        PERFORM pg_catalog.truncate_local_data_after_distributing_table(hist);
    END IF;
    PERFORM docmodel._citus_push();
END
$$;
COMMENT ON FUNCTION docmodel.distribute_collection(regclass, integer) IS
    'hash-distribute a collection on id over the Citus workers, its revisions table colocated (Citus coordinator only)';

CREATE FUNCTION docmodel.undistribute_collection(coll regclass) RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    hist regclass := docmodel._citus_collection(coll, 'undistribute a collection');
    name text := coll::text;
    hname text := hist::text;
    cfg record;
    cid integer;
    t record;
BEGIN
    IF NOT docmodel._citus_distributed(coll) THEN
        RAISE EXCEPTION 'collection "%" is not distributed', coll
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = 'Distribute it with docmodel.distribute_collection().';
    END IF;
    SELECT c.* INTO cfg FROM docmodel.collection_config AS c
        WHERE c.coll OPERATOR(pg_catalog.=) $1;
    PERFORM pg_catalog.set_config('citus.enable_unsafe_triggers', 'on', true);
    -- Citus copies each table into a new one (new OIDs, same names).
    IF hist IS NOT NULL AND docmodel._citus_distributed(hist) THEN
        PERFORM pg_catalog.undistribute_table(hist);
    END IF;
    PERFORM pg_catalog.undistribute_table(coll);
    coll := name::regclass;
    hist := pg_catalog.to_regclass(hname);
    -- The new table gets a configuration of its own (the old row names the
    -- dropped table), and its triggers name it.
    cid := docmodel._config_create(coll, cfg.doc_type, cfg.meta_style, cfg.time_unit, cfg.delimiter);
    IF hist IS NOT NULL THEN
        PERFORM docmodel._config_set_revisions(coll, cfg.revisions, hist);
    END IF;
    IF cfg.max_ttl OPERATOR(pg_catalog.>) 0 THEN
        PERFORM docmodel._config_set_max_ttl(coll, cfg.max_ttl);
    END IF;
    FOR t IN SELECT g.tgname, pg_catalog.pg_get_triggerdef(g.oid) AS def
             FROM pg_catalog.pg_trigger AS g
             WHERE g.tgrelid OPERATOR(pg_catalog.=) coll
               AND g.tgfoid OPERATOR(pg_catalog.=) 'docmodel.collection_trigger()'::pg_catalog.regprocedure LOOP
        EXECUTE pg_catalog.format('DROP TRIGGER %I ON %s', t.tgname, coll);
        EXECUTE pg_catalog.replace(t.def, pg_catalog.format('collection_trigger(''%s'')', cfg.id),
                                   pg_catalog.format('collection_trigger(''%s'')', cid));
    END LOOP;
    PERFORM docmodel._citus_push();
END
$$;
COMMENT ON FUNCTION docmodel.undistribute_collection(regclass) IS
    'bring a distributed collection and its revisions table back onto the coordinator (Citus coordinator only)';

-- Whether coll is a Citus table (false without Citus).
CREATE FUNCTION docmodel._citus_distributed(coll regclass) RETURNS boolean
    LANGUAGE plpgsql STABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF pg_catalog.to_regclass('pg_catalog.pg_dist_partition') IS NULL THEN
        RETURN false;  -- (a separate test: the query below needs Citus)
    END IF;
    RETURN EXISTS (SELECT FROM pg_catalog.pg_dist_partition AS p
                   WHERE p.logicalrelid OPERATOR(pg_catalog.=) coll);
END
$$;
COMMENT ON FUNCTION docmodel._citus_distributed(regclass) IS
    'internal: whether a table is distributed by Citus (false without Citus)';

-- One batch of migrate_collection on a distributed collection: Citus
-- refuses the batch's UPDATE through the coordinator (_migrate_doc is
-- STABLE and reads the row), so every shard runs its own batch on its
-- worker, all at once: up to batch_size of its outdated documents, its
-- part committing there (migrating is idempotent: the next batch, or a
-- rerun, finds those documents done). n: documents migrated (NULL when
-- coll is not distributed); pending: outdated before the batch; finished:
-- no shard has any left. cfg: the collection, whose field names the
-- workers know by its name (NULL for another table).
CREATE FUNCTION docmodel._citus_migrate_batch(coll regclass, doc_type text,
    target docmodel.version, batch_size integer, cfg regclass,
    OUT n bigint, OUT pending bigint, OUT finished boolean)
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    q text;
    s record;
BEGIN
    IF NOT docmodel._citus_distributed(coll) THEN
        RETURN;
    END IF;
    -- A shard whose statistics say it holds at most batch_size documents
    -- migrates all its outdated ones in one UPDATE (as fast as the
    -- hand-written one); a larger one picks batch_size of them first.
    q := pg_catalog.format('WITH small AS (SELECT c.reltuples OPERATOR(pg_catalog.>=) 0 '
        'AND c.reltuples OPERATOR(pg_catalog.<=) %4$s AS yes FROM pg_catalog.pg_class AS c '
        'WHERE c.oid OPERATOR(pg_catalog.=) %%1$L::pg_catalog.regclass), '
        'w AS (UPDATE %%1$s AS s SET doc = docmodel._migrate_doc(s.doc, %2$L::docmodel.version, s.id, %3$L::pg_catalog.regclass) '
        'WHERE (SELECT yes FROM small) AND docmodel._migration_pending(s.doc, %1$L::text, %2$L::docmodel.version, %3$L::pg_catalog.regclass) RETURNING 1), '
        'p AS MATERIALIZED (SELECT id FROM %%1$s WHERE NOT (SELECT yes FROM small) '
        'AND docmodel._migration_pending(doc, %1$L::text, %2$L::docmodel.version, %3$L::pg_catalog.regclass)), '
        'u AS (UPDATE %%1$s AS s SET doc = docmodel._migrate_doc(s.doc, %2$L::docmodel.version, s.id, %3$L::pg_catalog.regclass) '
        'FROM (SELECT id FROM p LIMIT %4$s) AS b WHERE s.id OPERATOR(pg_catalog.=) b.id RETURNING 1), '
        'n AS (SELECT (SELECT pg_catalog.count(*) FROM w) AS w, (SELECT pg_catalog.count(*) FROM u) AS u, '
        '(SELECT pg_catalog.count(*) FROM p) AS p) '
        'SELECT (n.w OPERATOR(pg_catalog.+) n.u)::pg_catalog.text OPERATOR(pg_catalog.||) '' '' '
        'OPERATOR(pg_catalog.||) (n.w OPERATOR(pg_catalog.+) n.p)::pg_catalog.text FROM n',
        doc_type, target, cfg::pg_catalog.text, batch_size);
    n := 0;
    pending := 0;
    finished := true;
    FOR s IN SELECT * FROM pg_catalog.run_command_on_shards(coll, q) LOOP
        IF NOT s.success THEN
            RAISE EXCEPTION '%', pg_catalog.regexp_replace(s.result, '^ERROR:  ', '')
                USING ERRCODE = 'data_exception',
                      DETAIL = pg_catalog.format('Shard %s of collection "%s".', s.shardid, coll);
        END IF;
        n := n OPERATOR(pg_catalog.+) pg_catalog.split_part(s.result, ' ', 1)::bigint;
        pending := pending OPERATOR(pg_catalog.+) pg_catalog.split_part(s.result, ' ', 2)::bigint;
        IF pg_catalog.split_part(s.result, ' ', 2)::bigint OPERATOR(pg_catalog.>) batch_size THEN
            finished := false;
        END IF;
    END LOOP;
END
$$;
COMMENT ON FUNCTION docmodel._citus_migrate_batch(regclass, text, docmodel.version, integer, regclass) IS
    'internal: migrate one batch of a run on every shard of a distributed collection at once (n NULL when it is not distributed)';

-- (end of scale-out on Citus)


-------------------------------------------------------------------------------
-- Schema validation (src/validate.c)
-------------------------------------------------------------------------------

-- JSON Schema 2020-12 (default), 2019-09 and draft-07 over any jsonb; compiled once per
-- backend (keyed by the schema's bytes), so usable in a CHECK constraint.
CREATE FUNCTION docmodel.schema_valid(schema jsonb, instance jsonb)
    RETURNS boolean
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'schema_valid';
COMMENT ON FUNCTION docmodel.schema_valid(jsonb, jsonb) IS
    'whether instance is valid against the JSON Schema (2020-12, or 2019-09 or draft-07 by $schema)';

CREATE FUNCTION docmodel.schema_errors(schema jsonb, instance jsonb)
    RETURNS TABLE(path text, schema_path text, message text)
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE ROWS 4
    AS 'MODULE_PATHNAME', 'schema_errors';
COMMENT ON FUNCTION docmodel.schema_errors(jsonb, jsonb) IS
    'every violation of the JSON Schema by instance: JSON Pointer into instance, JSON Pointer to the keyword, message';

-- JSON Schema's "basic" output format of the same validation (keywordLocation through
-- references, absoluteKeywordLocation, instanceLocation, error).
CREATE FUNCTION docmodel.schema_output(schema jsonb, instance jsonb)
    RETURNS jsonb
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'schema_output';
COMMENT ON FUNCTION docmodel.schema_output(jsonb, jsonb) IS
    'JSON Schema''s "basic" output: {"valid", "errors": [{"keywordLocation", "absoluteKeywordLocation", "instanceLocation", "error"}]}';

/*
 * Registered JSON Schemas, one per document type and version, with the mode
 * the collection trigger enforces it in. Written only by register_schema and
 * drop_schema (as the caller: only the extension's owner, or a role it
 * grants INSERT, UPDATE and DELETE, may). A statement trigger tells every
 * backend's copy (schema.c) when it changes.
 */
CREATE TABLE docmodel.schemas (
    doc_type      text NOT NULL,
    version       docmodel.version NOT NULL,
    schema        jsonb NOT NULL,
    mode          text NOT NULL DEFAULT 'strict'
                  CHECK (mode IN ('strict', 'moderate', 'warn', 'off')),
    registered_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    PRIMARY KEY (doc_type, version)
);
COMMENT ON TABLE docmodel.schemas IS
    'docmodel: registered JSON Schemas, one per document type and version, and how writes are held to them';
SELECT pg_catalog.pg_extension_config_dump('docmodel.schemas', '');
GRANT SELECT ON docmodel.schemas TO PUBLIC;

CREATE FUNCTION docmodel._schemas_changed() RETURNS trigger
    AS 'MODULE_PATHNAME', 'schema_schemas_changed'
    LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION docmodel._schemas_changed() IS
    'docmodel internal: invalidate every backend''s schema registry copy when docmodel.schemas changes';
CREATE TRIGGER schemas_changed
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON docmodel.schemas
    FOR EACH STATEMENT EXECUTE FUNCTION docmodel._schemas_changed();

CREATE FUNCTION docmodel.register_schema(doc_type text, version docmodel.version,
    schema jsonb, mode text DEFAULT 'strict') RETURNS void
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF doc_type IS NULL OR doc_type = '' OR octet_length(doc_type) > 250 THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('invalid document type "%s"', doc_type),
            DETAIL = 'A document type is 1 to 250 bytes long.';
    END IF;
    IF version IS NULL OR schema IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = 'version and schema are required',
            DETAIL = format('Type "%s".', doc_type);
    END IF;
    IF mode IS NULL OR mode NOT IN ('strict', 'moderate', 'warn', 'off') THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('invalid schema mode "%s"', mode),
            DETAIL = format('Type "%s", version %s.', doc_type, version),
            HINT = 'The modes are strict, moderate, warn and off.';
    END IF;
    -- compile it now: 22023 for a malformed schema, 0A000 for what is out of scope
    PERFORM docmodel.schema_valid(schema, 'null');
    INSERT INTO docmodel.schemas AS s (doc_type, version, schema, mode)
        VALUES (register_schema.doc_type, register_schema.version,
                register_schema.schema, register_schema.mode)
        ON CONFLICT ON CONSTRAINT schemas_pkey DO UPDATE
        SET schema = excluded.schema, mode = excluded.mode,
            registered_at = pg_catalog.now();
END
$$;
COMMENT ON FUNCTION docmodel.register_schema(text, docmodel.version, jsonb, text) IS
    'docmodel: register the JSON Schema of a document type at a version (again: replace it) and its mode: strict, moderate, warn or off';

CREATE FUNCTION docmodel.drop_schema(doc_type text, version docmodel.version)
    RETURNS boolean
LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH d AS (
        DELETE FROM docmodel.schemas s
         WHERE s.doc_type OPERATOR(pg_catalog.=) drop_schema.doc_type
           AND s.version OPERATOR(docmodel.=) drop_schema.version
        RETURNING 1)
    SELECT count(*) OPERATOR(pg_catalog.>) 0 FROM d
$$;
COMMENT ON FUNCTION docmodel.drop_schema(text, docmodel.version) IS
    'docmodel: drop the JSON Schema of a document type at a version; false when there was none';

CREATE FUNCTION docmodel.validate(doc jsonb) RETURNS boolean
    AS 'MODULE_PATHNAME', 'schema_validate'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.validate(jsonb) IS
    'docmodel: whether a document is valid against the schema of its type and version (true when none is registered)';

CREATE FUNCTION docmodel.validation_errors(doc jsonb)
    RETURNS TABLE(path text, schema_path text, message text)
    AS 'MODULE_PATHNAME', 'schema_validation_errors'
    LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 4;
COMMENT ON FUNCTION docmodel.validation_errors(jsonb) IS
    'docmodel: every violation of the schema of a document''s type and version: JSON Pointer into the document, to the keyword, message';

CREATE FUNCTION docmodel.validate(doc jsonb, coll regclass) RETURNS boolean
    AS 'MODULE_PATHNAME', 'schema_validate'
    LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION docmodel.validate(jsonb, regclass) IS
    'docmodel: validate() of a document of collection coll, its type and version read where coll keeps them (its fields)';

CREATE FUNCTION docmodel.validation_errors(doc jsonb, coll regclass)
    RETURNS TABLE(path text, schema_path text, message text)
    AS 'MODULE_PATHNAME', 'schema_validation_errors'
    LANGUAGE C STABLE STRICT PARALLEL RESTRICTED ROWS 4;
COMMENT ON FUNCTION docmodel.validation_errors(jsonb, regclass) IS
    'docmodel: validation_errors() of a document of collection coll, its type and version read where coll keeps them (its fields)';

-- migration_plan(coll, validate)'s check of one document (migrate.c)
CREATE FUNCTION docmodel._plan_error(doc jsonb, key text, coll regclass) RETURNS text
    AS 'MODULE_PATHNAME', 'migration_plan_error'
    LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION docmodel._plan_error(jsonb, text, regclass) IS
    'docmodel internal: the first schema violation ("path: message") of doc migrated in memory to its type''s current version, read by coll''s field names, or the error of a step that cannot apply to it; NULL when valid';

-- The dry run with validation: each document migrated in memory and checked
-- against the schema of its type at the target version.
CREATE FUNCTION docmodel.migration_plan(coll regclass, validate boolean)
    RETURNS TABLE(doc_type text, version docmodel.version, docs bigint,
        target docmodel.version, steps integer, invalid bigint, first_invalid text[])
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN QUERY EXECUTE format(
        'SELECT s.t, s.v, count(*), docmodel._migration_target(s.t, $2, true),
            docmodel._migration_steps(s.t, s.v, NULL, $2, true),
            CASE WHEN $1 THEN count(s.err) END,
            CASE WHEN $1 THEN (array_agg(s.id || '' '' || s.err ORDER BY s.id)
                FILTER (WHERE s.err IS NOT NULL))[1:3] END
        FROM (SELECT d.id, docmodel._doc_type(d.doc, $2) AS t,
                docmodel._doc_version(d.doc, $2) AS v,
                CASE WHEN $1 THEN docmodel._plan_error(d.doc, d.id, $2) END AS err
            FROM %s AS d) s
        GROUP BY 1, 2
        ORDER BY 1, 2', coll)
    -- a collection's own field names (NULL for another table: any style)
    USING validate, (SELECT c.coll FROM docmodel.collection_config AS c
        WHERE c.coll = migration_plan.coll);
END
$$;
COMMENT ON FUNCTION docmodel.migration_plan(regclass, boolean) IS
    'docmodel: the dry run of migrate_collection; with validate, each document migrated in memory and checked against its target version''s schema: how many would fail, the first keys and paths';


-------------------------------------------------------------------------------
-- From tables to documents (0.2.0): mappings of relational tables into
-- documents. Set-up in SQL; the documents are built by one generated query
-- per mapping, which PostgreSQL runs as the caller.
-------------------------------------------------------------------------------

/*
 * A mapping: the root table whose rows become documents, and their type.
 * Its name is its owner's (the role that created it): two roles may each
 * have a mapping of the same name, and no role can take a name another
 * will want. Written only by _mapping_write (catalog.c), which checks the
 * caller and validates what it stores (_mapping_check); only members of
 * the owner role change a mapping.
 */
CREATE TABLE docmodel.mappings (
    name       text NOT NULL CHECK (name OPERATOR(pg_catalog.<>) ''),
    root       regclass NOT NULL,
    doc_type   text NOT NULL,
    owner      regrole NOT NULL,
    created_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    PRIMARY KEY (owner, name)
);
COMMENT ON TABLE docmodel.mappings IS
    'docmodel: mappings of relational tables into documents (name per owner, root table, document type)';
SELECT pg_catalog.pg_extension_config_dump('docmodel.mappings', '');
GRANT SELECT ON docmodel.mappings TO PUBLIC;

/*
 * The parts of a mapping: a table embedded (as an array, an object, or its
 * fields merged) or referenced (by key, or through a junction table) in the
 * documents of the table it sits under. spec holds the join columns (tables
 * by OID), as _mapping_check made it: see README, "From tables to
 * documents".
 */
CREATE TABLE docmodel.mapping_parts (
    mapping text NOT NULL,
    owner   regrole NOT NULL,
    under   regclass NOT NULL,
    field   text NOT NULL,
    tbl     regclass NOT NULL,
    spec    jsonb NOT NULL,
    added   timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
    PRIMARY KEY (owner, mapping, under, field),
    FOREIGN KEY (owner, mapping) REFERENCES docmodel.mappings (owner, name) ON DELETE CASCADE
);
COMMENT ON TABLE docmodel.mapping_parts IS
    'docmodel: the embedded and referenced tables of each mapping';
SELECT pg_catalog.pg_extension_config_dump('docmodel.mapping_parts', '');
GRANT SELECT ON docmodel.mapping_parts TO PUBLIC;

/* Columns of a mapped table renamed (new_name) or left out (NULL). */
CREATE TABLE docmodel.mapping_columns (
    mapping  text NOT NULL,
    owner    regrole NOT NULL,
    tbl      regclass NOT NULL,
    col      name NOT NULL,
    new_name text,
    PRIMARY KEY (owner, mapping, tbl, col),
    FOREIGN KEY (owner, mapping) REFERENCES docmodel.mappings (owner, name) ON DELETE CASCADE
);
COMMENT ON TABLE docmodel.mapping_columns IS
    'docmodel: columns of mapped tables renamed (new_name) or excluded (NULL)';
SELECT pg_catalog.pg_extension_config_dump('docmodel.mapping_columns', '');
GRANT SELECT ON docmodel.mapping_columns TO PUBLIC;

CREATE FUNCTION docmodel._mapping_write(op text, owner regrole, mapping text,
    tbl regclass, under regclass, field text, spec jsonb) RETURNS void
    AS 'MODULE_PATHNAME', 'mapping_write'
    LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION docmodel._mapping_write(text, regrole, text, regclass, regclass, text, jsonb) IS
    'docmodel internal: record a change of a mapping (create, part, column, drop, project, unproject), checking the caller belongs to the mapping''s owner role and may read the table, and storing only what _mapping_check validated';

/* The statement trigger of the mapping tables: every backend's generated
 * projection statements are made again (src/relational.c). */
CREATE FUNCTION docmodel._mappings_changed() RETURNS trigger
    AS 'MODULE_PATHNAME', 'mapping_mappings_changed'
    LANGUAGE C;
COMMENT ON FUNCTION docmodel._mappings_changed() IS
    'docmodel internal: statement trigger: invalidate every backend''s projection statements when a mapping table changes';
CREATE TRIGGER mappings_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
    ON docmodel.mappings FOR EACH STATEMENT EXECUTE FUNCTION docmodel._mappings_changed();
CREATE TRIGGER mappings_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
    ON docmodel.mapping_parts FOR EACH STATEMENT EXECUTE FUNCTION docmodel._mappings_changed();
CREATE TRIGGER mappings_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
    ON docmodel.mapping_columns FOR EACH STATEMENT EXECUTE FUNCTION docmodel._mappings_changed();

-- The owner of the mapping a name means to the current user: its own
-- mapping of that name, else the one of a role it is a member of (42704
-- without one, 42725 when several such roles have one).
CREATE FUNCTION docmodel._mapping_owner(mapping text) RETURNS regrole
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    me oid := (SELECT r.oid FROM pg_roles r WHERE r.rolname = current_user);
    o oid;
    n integer;
BEGIN
    IF mapping IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'mapping must not be null';
    END IF;
    SELECT m.owner INTO o FROM docmodel.mappings m WHERE m.owner = me AND m.name = mapping;
    IF FOUND THEN
        RETURN o;
    END IF;
    WITH RECURSIVE r(oid) AS (
        SELECT a.roleid FROM pg_auth_members a WHERE a.member = me
        UNION SELECT a.roleid FROM pg_auth_members a JOIN r ON a.member = r.oid)
    SELECT min(m.owner::oid), count(*) INTO o, n
    FROM docmodel.mappings m WHERE m.name = mapping AND m.owner IN (SELECT r.oid FROM r);
    IF n = 0 THEN
        RAISE EXCEPTION USING ERRCODE = '42704',
            MESSAGE = format('mapping "%s" does not exist', mapping),
            DETAIL = 'A mapping name is its owner''s: the current user and the roles it is a member of have none of that name.',
            HINT = 'Create it with docmodel.create_mapping().';
    ELSIF n > 1 THEN
        RAISE EXCEPTION USING ERRCODE = '42725',
            MESSAGE = format('mapping name "%s" is ambiguous', mapping),
            DETAIL = format('%s roles the current user is a member of have a mapping of that name.', n),
            HINT = 'SET ROLE to the owner of the mapping meant.';
    END IF;
    RETURN o;
END
$$;
COMMENT ON FUNCTION docmodel._mapping_owner(text) IS
    'docmodel internal: the owner of the mapping a name means to the current user (its own, else a role it belongs to)';

-- The schema-qualified, quoted name of a relation (42P01 when it is gone).
CREATE FUNCTION docmodel._rel_sql(rel oid) RETURNS text
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    res text;
BEGIN
    SELECT format('%I.%I', n.nspname, c.relname) INTO res
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = rel;
    IF res IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '42P01',
            MESSAGE = format('relation with OID %s of a mapping does not exist', rel);
    END IF;
    RETURN res;
END
$$;
COMMENT ON FUNCTION docmodel._rel_sql(oid) IS
    'docmodel internal: a relation''s schema-qualified, quoted name for generated SQL';

-- The equality operator of generated SQL between values of types ltype
-- and rtype: the one of ltype's default btree operator class, named with
-- its schema (pg_catalog's = when there is none), so that no search_path
-- chooses it.
CREATE FUNCTION docmodel._eq_op(ltype oid, rtype oid) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce((SELECT format('OPERATOR(%I.=)', n.nspname)
        FROM pg_opclass c, pg_amop a, pg_operator o, pg_namespace n
        WHERE c.opcmethod = 403 AND c.opcdefault AND c.opcintype = ltype
          AND a.amopfamily = c.opcfamily AND a.amoplefttype = ltype
          AND a.amoprighttype = rtype AND a.amopstrategy = 3
          AND o.oid = a.amopopr AND o.oprname = '=' AND n.oid = o.oprnamespace
        LIMIT 1), 'OPERATOR(pg_catalog.=)')
$$;
COMMENT ON FUNCTION docmodel._eq_op(oid, oid) IS
    'docmodel internal: the schema-qualified equality operator generated SQL compares two types with';

-- The join condition la.lcols[i] = ra.rcols[i] AND ... of generated SQL
-- (lcols columns of ltbl, rcols of rtbl), every equality named with its
-- schema (_eq_op).
CREATE FUNCTION docmodel._join_sql(la text, ltbl oid, lcols jsonb, ra text, rtbl oid, rcols jsonb)
    RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT string_agg(format('%I.%I %s %I.%I', la, l.v,
        docmodel._eq_op((SELECT x.atttypid FROM pg_attribute x WHERE x.attrelid = ltbl AND x.attname = l.v),
                        (SELECT y.atttypid FROM pg_attribute y WHERE y.attrelid = rtbl AND y.attname = r.v)),
        ra, r.v), ' AND ' ORDER BY l.n)
    FROM jsonb_array_elements_text(lcols) WITH ORDINALITY l(v, n)
    JOIN jsonb_array_elements_text(rcols) WITH ORDINALITY r(v, n) USING (n)
$$;
COMMENT ON FUNCTION docmodel._join_sql(text, oid, jsonb, text, oid, jsonb) IS
    'docmodel internal: the join condition of generated SQL, every equality named with its schema';

-- The primary key columns of tbl, in key order (NULL when it has none).
CREATE FUNCTION docmodel._pk_columns(tbl regclass) RETURNS text[]
LANGUAGE sql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT array_agg(a.attname::text ORDER BY k.n)
    FROM pg_index i
    CROSS JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k(att, n)
    JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.att
    WHERE i.indrelid = tbl AND i.indisprimary
$$;
COMMENT ON FUNCTION docmodel._pk_columns(regclass) IS
    'docmodel internal: the primary key columns of a table, in key order';

-- The foreign keys from src to dst: each as its columns and the columns
-- they reference, in constraint order.
CREATE FUNCTION docmodel._fk_columns(src regclass, dst regclass)
    RETURNS TABLE(name name, cols text[], ref_cols text[])
LANGUAGE sql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT c.conname,
        array_agg(a.attname::text ORDER BY k.n),
        array_agg(b.attname::text ORDER BY k.n)
    FROM pg_constraint c
    CROSS JOIN LATERAL unnest(c.conkey, c.confkey) WITH ORDINALITY AS k(att, fatt, n)
    JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.att
    JOIN pg_attribute b ON b.attrelid = c.confrelid AND b.attnum = k.fatt
    WHERE c.contype = 'f' AND c.conrelid = src AND c.confrelid = dst
    GROUP BY c.oid, c.conname
    ORDER BY c.conname
$$;
COMMENT ON FUNCTION docmodel._fk_columns(regclass, regclass) IS
    'docmodel internal: the foreign keys from one table to another, with their columns';

-- Raise 22023 unless every name of cols is a column of tbl.
CREATE FUNCTION docmodel._check_columns(tbl regclass, cols text[], what text)
    RETURNS void
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c text;
BEGIN
    FOREACH c IN ARRAY coalesce(cols, '{}') LOOP
        IF NOT EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = tbl
                AND a.attname = c AND a.attnum > 0 AND NOT a.attisdropped) THEN
            RAISE EXCEPTION USING ERRCODE = '42703',
                MESSAGE = format('column "%s" of %s does not exist', c, what),
                DETAIL = format('Table %s has no column "%s".', tbl, c);
        END IF;
    END LOOP;
END
$$;
COMMENT ON FUNCTION docmodel._check_columns(regclass, text[], text) IS
    'docmodel internal: raise 42703 naming the first of cols that is not a column of tbl';

-- The join of a part: the columns of tbl and of under that match, from the
-- columns given (fk_columns: tbl's side when tbl references under, under's
-- side when under references tbl) or else from the one foreign key declared
-- between the two tables. child_side says which table holds the foreign key.
CREATE FUNCTION docmodel._part_join(mapping text, tbl regclass, under regclass,
    fk_columns text[], child_side text, OUT cols text[], OUT under_cols text[])
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    src regclass := CASE child_side WHEN 'tbl' THEN tbl ELSE under END;
    dst regclass := CASE child_side WHEN 'tbl' THEN under ELSE tbl END;
    n integer;
    fk_cols text[];
    ref_cols text[];
BEGIN
    IF fk_columns IS NOT NULL THEN
        -- a relationship the database does not declare: src's columns given,
        -- matched to dst's primary key in order
        ref_cols := docmodel._pk_columns(dst);
        IF ref_cols IS NULL OR cardinality(fk_columns) <> cardinality(ref_cols) THEN
            RAISE EXCEPTION USING ERRCODE = '22023',
                MESSAGE = format('fk_columns %s of mapping "%s" do not match the primary key of %s',
                    fk_columns, mapping, dst),
                DETAIL = format('%s has primary key %s; give one column of %s for each of its columns, in order.',
                    dst, coalesce(ref_cols::text, '(none)'), src);
        END IF;
        PERFORM docmodel._check_columns(src, fk_columns, src::text);
        fk_cols := fk_columns;
    ELSE
        SELECT count(*) INTO n FROM docmodel._fk_columns(src, dst);
        IF n <> 1 THEN
            RAISE EXCEPTION USING ERRCODE = '22023',
                MESSAGE = format('%s foreign keys from %s to %s in mapping "%s"',
                    CASE WHEN n = 0 THEN 'no' ELSE n::text END, src, dst, mapping),
                HINT = format('Give fk_columns: the columns of %s that hold the key of %s.', src, dst);
        END IF;
        SELECT f.cols, f.ref_cols INTO fk_cols, ref_cols FROM docmodel._fk_columns(src, dst) f;
    END IF;
    IF child_side = 'tbl' THEN
        cols := fk_cols; under_cols := ref_cols;
    ELSE
        cols := ref_cols; under_cols := fk_cols;
    END IF;
END
$$;
COMMENT ON FUNCTION docmodel._part_join(text, regclass, regclass, text[], text) IS
    'docmodel internal: the join columns of a mapped table and the table it sits under';

-- The mapping (owner, mapping), checked; the table a part sits under (the
-- root unless given), which must be the root or a table embedded in the
-- mapping.
CREATE FUNCTION docmodel._mapping_under(owner regrole, mapping text, under regclass)
    RETURNS regclass
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r regclass;
BEGIN
    SELECT m.root INTO r FROM docmodel.mappings m
    WHERE m.owner = _mapping_under.owner AND m.name = _mapping_under.mapping;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = '42704',
            MESSAGE = format('mapping "%s" does not exist', mapping),
            HINT = 'Create it with docmodel.create_mapping().';
    END IF;
    IF under IS NULL OR under = r THEN
        RETURN r;
    END IF;
    IF NOT EXISTS (SELECT FROM docmodel.mapping_parts p
            WHERE p.owner = _mapping_under.owner AND p.mapping = _mapping_under.mapping
              AND p.tbl = _mapping_under.under AND p.spec->>'kind' IN ('array', 'object', 'merge')) THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('%s is not embedded in mapping "%s"', under, mapping),
            DETAIL = 'A part sits under the root table or under a table embedded before it.';
    END IF;
    RETURN under;
END
$$;
COMMENT ON FUNCTION docmodel._mapping_under(regrole, text, regclass) IS
    'docmodel internal: the table a new part of a mapping sits under (42704 without the mapping)';

-- Raise 22023 unless tbl is embedded nowhere else in the mapping yet.
CREATE FUNCTION docmodel._mapping_embed_once(owner regrole, mapping text, tbl regclass, field text)
    RETURNS void
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF tbl = (SELECT m.root FROM docmodel.mappings m
              WHERE m.owner = _mapping_embed_once.owner AND m.name = _mapping_embed_once.mapping)
        OR EXISTS (SELECT FROM docmodel.mapping_parts p
            WHERE p.owner = _mapping_embed_once.owner AND p.mapping = _mapping_embed_once.mapping
              AND p.tbl = _mapping_embed_once.tbl AND p.field <> _mapping_embed_once.field
              AND p.spec->>'kind' IN ('array', 'object', 'merge')) THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('%s is already embedded in mapping "%s"', tbl, mapping),
            DETAIL = 'A table is embedded once per mapping; reference it by key elsewhere (map_reference).';
    END IF;
END
$$;
COMMENT ON FUNCTION docmodel._mapping_embed_once(regrole, text, regclass, text) IS
    'docmodel internal: refuse a table embedded twice in one mapping';

-- The column names of a part's spec member, checked: a non-empty array of
-- names of columns of tbl (of n of them, unless n is NULL).
CREATE FUNCTION docmodel._spec_columns(v jsonb, tbl regclass, n integer, what text)
    RETURNS text[]
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    cols text[];
BEGIN
    IF jsonb_typeof(v) IS DISTINCT FROM 'array' OR jsonb_array_length(v) = 0
            OR jsonb_array_length(v) > 32 OR (n IS NOT NULL AND jsonb_array_length(v) <> n)
            OR EXISTS (SELECT FROM jsonb_array_elements(v) e WHERE jsonb_typeof(e) <> 'string') THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('invalid columns %s of %s', v, what),
            DETAIL = format('They are an array of %s column names of %s.', coalesce(n::text, '1 to 32'), tbl);
    END IF;
    cols := ARRAY(SELECT jsonb_array_elements_text(v));
    PERFORM docmodel._check_columns(tbl, cols, what);
    RETURN cols;
END
$$;
COMMENT ON FUNCTION docmodel._spec_columns(jsonb, regclass, integer, text) IS
    'docmodel internal: the column names a part''s spec gives, checked to be columns of the table';

/*
 * The one validator of what _mapping_write stores: every write of a mapping
 * table passes through it, whoever calls _mapping_write, so a stored
 * mapping holds table OIDs, column names of those tables, key types, and
 * keywords only from fixed lists. Returns what is stored: the spec rebuilt
 * from the checked members only.
 */
CREATE FUNCTION docmodel._mapping_check(op text, owner regrole, mapping text,
    tbl regclass, under regclass, field text, spec jsonb) RETURNS jsonb
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    what text := format('%s in mapping "%s"', tbl, mapping);
    kind text := spec->>'kind';
    src regclass;
    u regclass;
    res jsonb;
    o jsonb;
    via oid;
BEGIN
    IF op IS NULL OR owner IS NULL OR mapping IS NULL OR mapping = '' THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'a mapping change needs an op, an owner and a name';
    END IF;
    CASE op
    WHEN 'create' THEN
        IF tbl IS NULL OR jsonb_typeof(spec->'doc_type') IS DISTINCT FROM 'string' THEN
            RAISE EXCEPTION USING ERRCODE = '22023',
                MESSAGE = format('mapping "%s" needs a root table and a document type', mapping);
        END IF;
        IF docmodel._pk_columns(tbl) IS NULL THEN
            RAISE EXCEPTION USING ERRCODE = '22023',
                MESSAGE = format('table %s of mapping "%s" has no primary key', tbl, mapping),
                DETAIL = 'Document keys are made of the primary key (<type>::<key columns>).',
                HINT = 'Add a primary key to the table.';
        END IF;
        PERFORM docmodel.key(spec->>'doc_type', 'x');   -- 22023 for a type a key cannot start with
        IF EXISTS (SELECT FROM docmodel.mappings m WHERE m.owner = _mapping_check.owner AND m.name = mapping) THEN
            RAISE EXCEPTION USING ERRCODE = '42710',
                MESSAGE = format('mapping "%s" already exists', mapping);
        END IF;
        RETURN jsonb_build_object('doc_type', spec->>'doc_type');
    WHEN 'column' THEN
        PERFORM docmodel._mapping_under(owner, mapping, NULL);
        IF tbl IS NULL OR field IS NULL OR jsonb_typeof(spec) IS DISTINCT FROM 'object'
                OR coalesce(jsonb_typeof(spec->'name'), 'x') NOT IN ('string', 'null')
                OR spec->>'name' = '' THEN
            RAISE EXCEPTION USING ERRCODE = '22023',
                MESSAGE = format('invalid column change of %s', what),
                DETAIL = 'A column change names a column of the table and its new name (a non-empty string, or null to leave it out).';
        END IF;
        PERFORM docmodel._check_columns(tbl, ARRAY[field], what);
        RETURN jsonb_build_object('name', spec->'name');
    WHEN 'drop', 'unproject' THEN
        PERFORM docmodel._mapping_under(owner, mapping, NULL);
        IF op = 'drop' AND EXISTS (SELECT FROM docmodel.projections p
                WHERE p.owner = _mapping_check.owner AND p.mapping = _mapping_check.mapping) THEN
            RAISE EXCEPTION USING ERRCODE = '2BP01',
                MESSAGE = format('cannot drop mapping "%s": it is projected', mapping),
                DETAIL = 'Its projection''s triggers would outlive it.',
                HINT = 'Stop the projection first (docmodel.stop_projection).';
        END IF;
        RETURN NULL;
    WHEN 'project' THEN
        PERFORM docmodel._mapping_under(owner, mapping, NULL);
        IF tbl IS NULL OR under IS NULL THEN
            RAISE EXCEPTION USING ERRCODE = '22023',
                MESSAGE = format('a projection of mapping "%s" needs a table and a collection', mapping);
        END IF;
        PERFORM docmodel._require_collection(under);
        IF NOT tbl::oid = ANY (docmodel._mapping_tables(docmodel._mapping_spec(owner, mapping))) THEN
            RAISE EXCEPTION USING ERRCODE = '22023',
                MESSAGE = format('%s is not a table of mapping "%s"', tbl, mapping);
        END IF;
        -- the projection's triggers on tbl, which its caller (a member of
        -- the owner role) has just created: only they run its statement
        IF jsonb_typeof(spec->'triggers') IS DISTINCT FROM 'array' OR jsonb_array_length(spec->'triggers') <> 3
                OR (SELECT count(DISTINCT g.oid) FROM pg_trigger g
                    WHERE g.oid::text IN (SELECT jsonb_array_elements_text(spec->'triggers'))
                      AND g.tgrelid = tbl AND g.tgfoid = 'docmodel._projection_trigger()'::regprocedure
                      AND g.tgname IN (SELECT docmodel._projection_trigger_name(owner, mapping) || x
                                       FROM unnest('{_i,_u,_d}'::text[]) x)
                      AND g.tgargs = convert_to(owner::oid::text, getdatabaseencoding()) || '\x00'::bytea
                          || convert_to(mapping, getdatabaseencoding()) || '\x00'::bytea) <> 3 THEN
            RAISE EXCEPTION USING ERRCODE = '22023',
                MESSAGE = format('invalid triggers %s of a projection of mapping "%s" on %s',
                    coalesce((spec->'triggers')::text, 'null'), mapping, tbl),
                DETAIL = 'A projection is recorded with the three triggers docmodel.project_tables created on the table.';
        END IF;
        RETURN jsonb_build_object('triggers', (SELECT jsonb_agg(x::bigint ORDER BY x::bigint)
            FROM jsonb_array_elements_text(spec->'triggers') x));
    WHEN 'part' THEN
        NULL;
    ELSE
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('unknown mapping change "%s"', op),
            DETAIL = 'The changes are create, part, column, drop, project and unproject.';
    END CASE;
    -- a part
    IF tbl IS NULL OR under IS NULL OR field IS NULL OR field = '' OR jsonb_typeof(spec) IS DISTINCT FROM 'object'
            OR kind IS NULL OR kind NOT IN ('array', 'object', 'merge', 'reference', 'references') THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('invalid part of %s', what),
            DETAIL = 'A part has a table, the table it sits under, a field name and a spec whose kind is array, object, merge, reference or references.';
    END IF;
    u := docmodel._mapping_under(owner, mapping, under);
    IF kind = 'references' THEN
        IF coalesce(jsonb_typeof(spec->'via'), 'x') NOT IN ('number', 'string') OR spec->>'via' !~ '^[0-9]{1,10}$'
                OR NOT EXISTS (SELECT FROM pg_class c WHERE c.oid::text = spec->>'via' AND c.relkind IN ('r', 'p', 'v', 'm', 'f')) THEN
            RAISE EXCEPTION USING ERRCODE = '22023',
                MESSAGE = format('invalid junction table %s of %s', spec->'via', what);
        END IF;
        via := (spec->>'via')::oid;
        IF NOT has_table_privilege(via, 'SELECT') THEN
            RAISE EXCEPTION USING ERRCODE = '42501',
                MESSAGE = format('permission denied for table %s', via::regclass),
                DETAIL = format('Mapping "%s" reads the table.', mapping);
        END IF;
        src := via;
    ELSE
        src := tbl;
    END IF;
    res := jsonb_build_object('kind', kind,
        'cols', to_jsonb(docmodel._spec_columns(spec->'cols', src, NULL, what)));
    res := res || jsonb_build_object('under_cols',
        to_jsonb(docmodel._spec_columns(spec->'under_cols', u, jsonb_array_length(spec->'cols'), what)));
    IF kind IN ('array', 'object', 'merge') THEN
        PERFORM docmodel._mapping_embed_once(owner, mapping, tbl, field);
    END IF;
    IF kind = 'array' THEN
        IF coalesce(jsonb_typeof(spec->'order_by'), 'null') NOT IN ('array', 'null')
                OR jsonb_array_length(CASE jsonb_typeof(spec->'order_by') WHEN 'array' THEN spec->'order_by' ELSE '[]' END) > 32 THEN
            RAISE EXCEPTION USING ERRCODE = '22023',
                MESSAGE = format('invalid order_by %s of %s', spec->'order_by', what);
        END IF;
        FOR o IN SELECT x FROM jsonb_array_elements(CASE jsonb_typeof(spec->'order_by') WHEN 'array' THEN spec->'order_by' ELSE '[]' END) x LOOP
            IF jsonb_typeof(o) IS DISTINCT FROM 'array' OR jsonb_array_length(o) <> 3
                    OR jsonb_typeof(o->0) <> 'string'
                    OR o->1 NOT IN ('""', '"ASC"', '"DESC"')
                    OR o->2 NOT IN ('""', '"NULLS FIRST"', '"NULLS LAST"') THEN
                RAISE EXCEPTION USING ERRCODE = '22023',
                    MESSAGE = format('invalid order_by item %s of %s', o, what),
                    DETAIL = 'An item is [column, "" or "ASC" or "DESC", "" or "NULLS FIRST" or "NULLS LAST"].';
            END IF;
            PERFORM docmodel._check_columns(tbl, ARRAY[o->>0], what);
        END LOOP;
        IF coalesce(jsonb_typeof(spec->'max_items'), 'null') NOT IN ('number', 'null')
                OR (jsonb_typeof(spec->'max_items') = 'number'
                    AND NOT (spec->>'max_items' ~ '^[0-9]{1,10}$' AND (spec->>'max_items')::bigint BETWEEN 1 AND 2147483647)) THEN
            RAISE EXCEPTION USING ERRCODE = '22023',
                MESSAGE = format('invalid max_items %s of %s', spec->'max_items', what),
                DETAIL = 'max_items is at least 1 (NULL: no limit).';
        END IF;
        res := res || jsonb_build_object('order_by', CASE jsonb_typeof(spec->'order_by') WHEN 'array' THEN spec->'order_by' END,
            'max_items', CASE jsonb_typeof(spec->'max_items') WHEN 'number' THEN (spec->>'max_items')::integer END);
    ELSIF kind IN ('reference', 'references') THEN
        IF jsonb_typeof(spec->'type') IS DISTINCT FROM 'string' THEN
            RAISE EXCEPTION USING ERRCODE = '22023',
                MESSAGE = format('the reference of %s needs a type', what);
        END IF;
        PERFORM docmodel.key(spec->>'type', 'x');
        res := res || jsonb_build_object('type', spec->>'type');
        IF kind = 'references' THEN
            res := res || jsonb_build_object('via', via::bigint,
                'key_cols', to_jsonb(docmodel._spec_columns(spec->'key_cols', via::regclass,
                    cardinality(docmodel._pk_columns(tbl)), what)));
        END IF;
    END IF;
    RETURN res;
END
$$;
COMMENT ON FUNCTION docmodel._mapping_check(text, regrole, text, regclass, regclass, text, jsonb) IS
    'docmodel internal: the one validator of a change of a mapping; returns what _mapping_write stores (22023 for anything else)';

CREATE FUNCTION docmodel.create_mapping(name text, root regclass, doc_type text DEFAULT NULL)
    RETURNS void
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF name IS NULL OR name = '' OR root IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = 'a mapping needs a name and a root table';
    END IF;
    PERFORM docmodel._mapping_write('create', (SELECT r.oid FROM pg_roles r WHERE r.rolname = current_user)::regrole,
        name, root, NULL, NULL, jsonb_build_object('doc_type',
            coalesce(doc_type, (SELECT c.relname::text FROM pg_class c WHERE c.oid = root))));
END
$$;
COMMENT ON FUNCTION docmodel.create_mapping(text, regclass, text) IS
    'docmodel: a new mapping of the current user whose documents are the rows of root, keyed <doc_type>::<primary key> (doc_type: the table''s name unless given)';

CREATE FUNCTION docmodel.drop_mapping(name text) RETURNS boolean
LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    o regrole;
BEGIN
    BEGIN
        o := docmodel._mapping_owner(name);
    EXCEPTION WHEN undefined_object THEN
        RETURN false;
    END;
    PERFORM docmodel._mapping_write('drop', o, name, NULL, NULL, NULL, NULL);
    RETURN true;
END
$$;
COMMENT ON FUNCTION docmodel.drop_mapping(text) IS
    'docmodel: drop a mapping and its parts (2BP01 while it is projected); false when there was none';

-- Order items "col [ASC|DESC] [NULLS FIRST|LAST]", each column checked.
CREATE FUNCTION docmodel._order_items(tbl regclass, order_by text, what text)
    RETURNS jsonb
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    item text;
    m text[];
    res jsonb := '[]';
BEGIN
    IF order_by IS NULL THEN
        RETURN NULL;
    END IF;
    FOREACH item IN ARRAY regexp_split_to_array(btrim(order_by), '\s*,\s*') LOOP
        m := regexp_match(item, '^([A-Za-z_][A-Za-z0-9_$]*|"(?:[^"]|"")+")(\s+(?:asc|desc))?(\s+nulls\s+(?:first|last))?$', 'i');
        IF m IS NULL THEN
            RAISE EXCEPTION USING ERRCODE = '22023',
                MESSAGE = format('invalid order_by "%s" of %s', order_by, what),
                DETAIL = format('"%s" is not a column with an optional ASC or DESC and NULLS FIRST or LAST.', item);
        END IF;
        IF left(m[1], 1) = '"' THEN
            m[1] := replace(substr(m[1], 2, length(m[1]) - 2), '""', '"');
        ELSE
            m[1] := lower(m[1]);
        END IF;
        PERFORM docmodel._check_columns(tbl, ARRAY[m[1]], what);
        res := res || jsonb_build_array(jsonb_build_array(m[1],
            upper(btrim(coalesce(m[2], ''))), upper(regexp_replace(btrim(coalesce(m[3], '')), '\s+', ' ', 'g'))));
    END LOOP;
    RETURN res;
END
$$;
COMMENT ON FUNCTION docmodel._order_items(regclass, text, text) IS
    'docmodel internal: an order_by list parsed into checked columns and directions';

CREATE FUNCTION docmodel.map_embed_array(mapping text, child regclass,
    field text DEFAULT NULL, fk_columns text[] DEFAULT NULL,
    order_by text DEFAULT NULL, max_items integer DEFAULT NULL,
    under regclass DEFAULT NULL) RETURNS void
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    o regrole := docmodel._mapping_owner(mapping);
    u regclass := docmodel._mapping_under(o, mapping, under);
    f text := coalesce(field, (SELECT c.relname::text FROM pg_class c WHERE c.oid = child));
    j record;
BEGIN
    j := docmodel._part_join(mapping, child, u, fk_columns, 'tbl');
    PERFORM docmodel._mapping_write('part', o, mapping, child, u, f, jsonb_build_object(
        'kind', 'array', 'cols', j.cols, 'under_cols', j.under_cols,
        'order_by', docmodel._order_items(child, order_by, format('%s in mapping "%s"', child, mapping)),
        'max_items', max_items));
END
$$;
COMMENT ON FUNCTION docmodel.map_embed_array(text, regclass, text, text[], text, integer, regclass) IS
    'docmodel: embed the rows of child that reference a document''s row (the root''s, or under''s) as an array field (ordered, limited)';

CREATE FUNCTION docmodel.map_embed_object(mapping text, parent regclass,
    field text DEFAULT NULL, merge boolean DEFAULT false,
    fk_columns text[] DEFAULT NULL, under regclass DEFAULT NULL) RETURNS void
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    o regrole := docmodel._mapping_owner(mapping);
    u regclass := docmodel._mapping_under(o, mapping, under);
    f text := coalesce(field, (SELECT c.relname::text FROM pg_class c WHERE c.oid = parent));
    side text := 'under';
    j record;
BEGIN
    PERFORM docmodel._mapping_embed_once(o, mapping, parent, f);
    -- many:1 (under holds the key of parent), or 1:1 the other way round
    IF fk_columns IS NULL AND NOT EXISTS (SELECT FROM docmodel._fk_columns(u, parent))
            AND EXISTS (SELECT FROM docmodel._fk_columns(parent, u)) THEN
        side := 'tbl';
    END IF;
    j := docmodel._part_join(mapping, parent, u, fk_columns, side);
    PERFORM docmodel._mapping_write('part', o, mapping, parent, u, f, jsonb_build_object(
        'kind', CASE WHEN merge THEN 'merge' ELSE 'object' END,
        'cols', j.cols, 'under_cols', j.under_cols));
END
$$;
COMMENT ON FUNCTION docmodel.map_embed_object(text, regclass, text, boolean, text[], regclass) IS
    'docmodel: embed the row of parent a document''s row refers to (or the one row referring to it) as an object field, or merge its fields';

CREATE FUNCTION docmodel.map_reference(mapping text, target regclass,
    field text DEFAULT NULL, fk_columns text[] DEFAULT NULL,
    via regclass DEFAULT NULL, target_type text DEFAULT NULL,
    under regclass DEFAULT NULL) RETURNS void
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    o regrole := docmodel._mapping_owner(mapping);
    u regclass := docmodel._mapping_under(o, mapping, under);
    -- the target's type: the mapping's own for its root table (a table
    -- referring to itself), else the table's name
    t text := coalesce(target_type,
        (SELECT m.doc_type FROM docmodel.mappings m WHERE m.owner = o AND m.name = map_reference.mapping AND m.root = target),
        (SELECT c.relname::text FROM pg_class c WHERE c.oid = target));
    f text := coalesce(field, (SELECT c.relname::text FROM pg_class c WHERE c.oid = target));
    j record;
    k record;
BEGIN
    PERFORM docmodel.key(t, 'x');
    IF via IS NULL THEN
        -- many:1: the document's row holds the target's key
        j := docmodel._part_join(mapping, target, u, fk_columns, 'under');
        PERFORM docmodel._mapping_write('part', o, mapping, target, u, f, jsonb_build_object(
            'kind', 'reference', 'type', t, 'cols', j.cols, 'under_cols', j.under_cols));
    ELSE
        -- many:many: the junction's rows referring to the document's row
        -- give the targets' keys
        j := docmodel._part_join(mapping, via, u, NULL, 'tbl');
        k := docmodel._part_join(mapping, via, target, fk_columns, 'tbl');
        PERFORM docmodel._mapping_write('part', o, mapping, target, u, f, jsonb_build_object(
            'kind', 'references', 'type', t, 'via', via::oid,
            'cols', j.cols, 'under_cols', j.under_cols, 'key_cols', k.cols));
    END IF;
END
$$;
COMMENT ON FUNCTION docmodel.map_reference(text, regclass, text, text[], regclass, text, regclass) IS
    'docmodel: a field holding the document key of the target row (<type>::<key>), or through a junction table (via) an array of them';

CREATE FUNCTION docmodel.map_rename(mapping text, tbl regclass, col name, new_name text)
    RETURNS void
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    o regrole := docmodel._mapping_owner(mapping);
BEGIN
    PERFORM docmodel._check_columns(tbl, ARRAY[col::text], format('%s in mapping "%s"', tbl, mapping));
    IF new_name IS NULL OR new_name = '' THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('invalid new name for column "%s" of %s in mapping "%s"', col, tbl, mapping),
            HINT = 'To leave a column out, use docmodel.map_exclude().';
    END IF;
    PERFORM docmodel._mapping_write('column', o, mapping, tbl, NULL, col,
        jsonb_build_object('name', new_name));
END
$$;
COMMENT ON FUNCTION docmodel.map_rename(text, regclass, name, text) IS
    'docmodel: the field name a column of a mapped table takes in the documents';

CREATE FUNCTION docmodel.map_exclude(mapping text, tbl regclass, col name)
    RETURNS void
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    o regrole := docmodel._mapping_owner(mapping);
BEGIN
    PERFORM docmodel._check_columns(tbl, ARRAY[col::text], format('%s in mapping "%s"', tbl, mapping));
    PERFORM docmodel._mapping_write('column', o, mapping, tbl, NULL, col,
        jsonb_build_object('name', NULL));
END
$$;
COMMENT ON FUNCTION docmodel.map_exclude(text, regclass, name) IS
    'docmodel: leave a column of a mapped table out of the documents';

-- The whole description of mapping (owner, mapping) (root, type, parts,
-- columns) as jsonb, tables as OIDs: what the generators read.
CREATE FUNCTION docmodel._mapping_spec(owner regrole, mapping text) RETURNS jsonb
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    res jsonb;
BEGIN
    PERFORM docmodel._mapping_under(owner, mapping, NULL);
    SELECT jsonb_build_object('name', m.name, 'owner', m.owner::oid, 'root', m.root::oid, 'type', m.doc_type,
        'parts', coalesce((SELECT jsonb_agg(p.spec || jsonb_build_object('tbl', p.tbl::oid,
                'under', p.under::oid, 'field', p.field) ORDER BY p.added)
            FROM docmodel.mapping_parts p WHERE p.owner = m.owner AND p.mapping = m.name), '[]'),
        'columns', coalesce((SELECT jsonb_object_agg(c.tbl::oid || '.' || c.col, c.new_name)
            FROM docmodel.mapping_columns c WHERE c.owner = m.owner AND c.mapping = m.name), '{}'))
    INTO res
    FROM docmodel.mappings m WHERE m.owner = _mapping_spec.owner AND m.name = _mapping_spec.mapping;
    RETURN res;
END
$$;
COMMENT ON FUNCTION docmodel._mapping_spec(regrole, text) IS
    'docmodel internal: a mapping''s root, type, parts and column names as one jsonb';

-- The tables a mapping's documents are made of: the root, the embedded
-- tables and the junction tables (not the tables referenced by key).
CREATE FUNCTION docmodel._mapping_tables(spec jsonb) RETURNS oid[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT array_agg(DISTINCT x) FROM (
        SELECT (spec->>'root')::oid AS x
        UNION ALL SELECT (p->>'tbl')::oid FROM jsonb_array_elements(spec->'parts') p
         WHERE p->>'kind' IN ('array', 'object', 'merge')
        UNION ALL SELECT (p->>'via')::oid FROM jsonb_array_elements(spec->'parts') p
         WHERE p->>'kind' = 'references') s
$$;
COMMENT ON FUNCTION docmodel._mapping_tables(jsonb) IS
    'docmodel internal: the tables whose rows a mapping''s documents are made of';

-- The SQL expression of a document key of type doc_type made of the key
-- column expressions cols, as the layout spec carries (_mapping_layout:
-- delimiter, type_part; '::' and the type first without one). A reference
-- (ref) always names its type: it may point into another collection.
CREATE FUNCTION docmodel._mapping_key_sql(spec jsonb, doc_type text, cols text, ref boolean)
    RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE
        WHEN coalesce(spec->>'delimiter', '::') = '::' AND (ref OR coalesce(spec->>'type_part', '1') <> '0') THEN
            format('docmodel.key(%L::pg_catalog.text, %s)', doc_type, cols)
        WHEN ref OR coalesce(spec->>'type_part', '1') <> '0' THEN
            format('docmodel.key_with(%L::pg_catalog.text, %L::pg_catalog.text, %s)', spec->>'delimiter', doc_type, cols)
        ELSE format('docmodel.key_with(%L::pg_catalog.text, %s)', coalesce(spec->>'delimiter', '::'), cols)
    END
$$;
COMMENT ON FUNCTION docmodel._mapping_key_sql(jsonb, text, text, boolean) IS
    'docmodel internal: the SQL expression of a document key of generated SQL, with the layout''s delimiter and type part';

-- A mapping's spec with the key layout of collection coll: its delimiter,
-- and whether keys carry the type (type_part 1) or not (type_part 0, the
-- collection's one type then being the mapping's); 22023 for a layout
-- whose type is not the key's first part.
CREATE FUNCTION docmodel._mapping_layout(spec jsonb, coll regclass) RETURNS jsonb
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c record;
BEGIN
    PERFORM docmodel._require_collection(coll);
    SELECT x.delimiter, x.type_part, x.doc_type INTO c
    FROM docmodel.collection_config x WHERE x.coll = _mapping_layout.coll;
    IF c.type_part > 1 THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('mapping "%s" cannot write into collection %s, whose keys hold the type in part %s',
                spec->>'name', coll, c.type_part),
            DETAIL = 'A mapping''s keys are <type><delimiter><primary key>, or the primary key alone (type_part 0).';
    END IF;
    IF c.type_part = 0 AND c.doc_type IS DISTINCT FROM spec->>'type' THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('mapping "%s" makes documents of type "%s", collection %s holds type "%s"',
                spec->>'name', spec->>'type', coll, c.doc_type),
            DETAIL = 'Its keys carry no type (type_part 0): every document is of the collection''s type.';
    END IF;
    RETURN spec || jsonb_build_object('delimiter', c.delimiter, 'type_part', c.type_part);
END
$$;
COMMENT ON FUNCTION docmodel._mapping_layout(jsonb, regclass) IS
    'docmodel internal: a mapping''s spec with the key layout (delimiter, type part) of the collection it writes into';

-- The SQL expression of the document of a row of tbl (alias a): its columns
-- (renamed, less those excluded), the parts under tbl, merges last. Every
-- name is quoted (%I), every value a literal (%L), every keyword from a
-- fixed list, every function and operator named with its schema.
CREATE FUNCTION docmodel._mapping_doc_sql(spec jsonb, tbl oid, a text, depth integer)
    RETURNS text
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    pairs text[] := '{}';
    merges text := '';
    col record;
    p jsonb;
    b text := 't' || depth;
    src oid;
    src_sql text;
    cond text;
    keyparts text;
    ord text;
    sub text;
    i integer;
    res text := '';
BEGIN
    IF depth > 32 THEN
        RAISE EXCEPTION USING ERRCODE = '54001',
            MESSAGE = format('mapping "%s" nests more than 32 levels', spec->>'name');
    END IF;
    FOR col IN SELECT a2.attname FROM pg_attribute a2
            WHERE a2.attrelid = tbl AND a2.attnum > 0 AND NOT a2.attisdropped
            ORDER BY a2.attnum LOOP
        IF (spec->'columns') ? (tbl || '.' || col.attname) THEN
            CONTINUE WHEN spec->'columns'->>(tbl || '.' || col.attname) IS NULL;
            pairs := pairs || format('%L::pg_catalog.text, %I.%I', spec->'columns'->>(tbl || '.' || col.attname), a, col.attname);
        ELSE
            pairs := pairs || format('%L::pg_catalog.text, %I.%I', col.attname, a, col.attname);
        END IF;
    END LOOP;
    FOR p IN SELECT x FROM jsonb_array_elements(spec->'parts') x
            WHERE (x->>'under')::oid = tbl LOOP
        src := CASE WHEN p->>'kind' = 'references' THEN (p->>'via')::oid ELSE (p->>'tbl')::oid END;
        src_sql := docmodel._rel_sql(src);
        cond := docmodel._join_sql(b, src, p->'cols', a, tbl, p->'under_cols');
        CASE p->>'kind'
        WHEN 'array' THEN
            SELECT string_agg(format('%I.%I%s%s', b, o->>0,
                    CASE o->>1 WHEN '' THEN '' WHEN 'ASC' THEN ' ASC' WHEN 'DESC' THEN ' DESC' END,
                    CASE o->>2 WHEN '' THEN '' WHEN 'NULLS FIRST' THEN ' NULLS FIRST' WHEN 'NULLS LAST' THEN ' NULLS LAST' END),
                ', ' ORDER BY n) INTO ord
            FROM jsonb_array_elements(CASE jsonb_typeof(p->'order_by') WHEN 'array' THEN p->'order_by' ELSE '[]' END)
                WITH ORDINALITY o(o, n);
            -- without order_by: the child's primary key, so that a document
            -- is the same whichever plan or physical order made it
            IF ord IS NULL THEN
                SELECT string_agg(format('%I.%I', b, c), ', ' ORDER BY n) INTO ord
                FROM unnest(docmodel._pk_columns((p->>'tbl')::oid)) WITH ORDINALITY u(c, n);
            END IF;
            sub := format('pg_catalog.to_jsonb(ARRAY(SELECT %s FROM %s AS %I WHERE %s%s%s))',
                docmodel._mapping_doc_sql(spec, (p->>'tbl')::oid, b, depth + 1), src_sql, b, cond,
                CASE WHEN ord IS NOT NULL THEN ' ORDER BY ' || ord ELSE '' END,
                CASE WHEN jsonb_typeof(p->'max_items') = 'number'
                     THEN ' LIMIT ' || (p->>'max_items')::integer ELSE '' END);
            pairs := pairs || format('%L::pg_catalog.text, %s', p->>'field', sub);
        WHEN 'object' THEN
            pairs := pairs || format('%L::pg_catalog.text, (SELECT %s FROM %s AS %I WHERE %s LIMIT 1)', p->>'field',
                docmodel._mapping_doc_sql(spec, (p->>'tbl')::oid, b, depth + 1), src_sql, b, cond);
        WHEN 'merge' THEN
            merges := merges || format(' OPERATOR(pg_catalog.||) coalesce((SELECT %s FROM %s AS %I WHERE %s LIMIT 1), ''{}''::pg_catalog.jsonb)',
                docmodel._mapping_doc_sql(spec, (p->>'tbl')::oid, b, depth + 1), src_sql, b, cond);
        WHEN 'reference' THEN
            SELECT string_agg(format('%I.%I', a, u), ', '), string_agg(format('%I.%I IS NULL', a, u), ' OR ')
                INTO keyparts, cond
            FROM jsonb_array_elements_text(p->'under_cols') u;
            pairs := pairs || format('%L::pg_catalog.text, CASE WHEN %s THEN NULL ELSE %s END',
                p->>'field', cond, docmodel._mapping_key_sql(spec, p->>'type', keyparts, true));
        WHEN 'references' THEN
            SELECT string_agg(format('%I.%I', b, k), ', ') INTO keyparts
            FROM jsonb_array_elements_text(p->'key_cols') k;
            pairs := pairs || format('%L::pg_catalog.text, pg_catalog.to_jsonb(ARRAY(SELECT %s FROM %s AS %I WHERE %s ORDER BY 1))',
                p->>'field', docmodel._mapping_key_sql(spec, p->>'type', keyparts, true), src_sql, b, cond);
        ELSE
            RAISE EXCEPTION USING ERRCODE = '22023',
                MESSAGE = format('invalid part kind "%s" in mapping "%s"', p->>'kind', spec->>'name');
        END CASE;
    END LOOP;
    -- jsonb_build_object takes at most 100 arguments: 50 pairs a call
    FOR i IN 1 .. greatest(cardinality(pairs), 1) BY 50 LOOP
        res := res || CASE WHEN i > 1 THEN ' OPERATOR(pg_catalog.||) ' ELSE '' END
            || format('pg_catalog.jsonb_build_object(%s)', array_to_string(pairs[i : i + 49], ', '));
    END LOOP;
    -- the row's own fields win over merged ones
    RETURN CASE WHEN merges = '' THEN res
        ELSE format('(%s%s OPERATOR(pg_catalog.||) %s)', '''{}''::pg_catalog.jsonb', merges, res) END;
END
$$;
COMMENT ON FUNCTION docmodel._mapping_doc_sql(jsonb, oid, text, integer) IS
    'docmodel internal: the SQL expression building the document of a row of a mapped table';

-- The query of a mapping's documents: key, doc and the root's primary key
-- columns (k1, k2, ...), in no particular order.
CREATE FUNCTION docmodel._mapping_sql(spec jsonb) RETURNS text
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    root oid := (spec->>'root')::oid;
    pk text[] := docmodel._pk_columns(root);
BEGIN
    IF pk IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('table %s of mapping "%s" has no primary key', root::regclass, spec->>'name');
    END IF;
    RETURN format('SELECT %s AS key, %s AS doc, %s FROM %s AS t0',
        docmodel._mapping_key_sql(spec, spec->>'type',
            (SELECT string_agg(format('t0.%I', c), ', ' ORDER BY n) FROM unnest(pk) WITH ORDINALITY u(c, n)), false),
        docmodel._mapping_doc_sql(spec, root, 't0', 1),
        (SELECT string_agg(format('t0.%I AS k%s', c, n), ', ' ORDER BY n) FROM unnest(pk) WITH ORDINALITY u(c, n)),
        docmodel._rel_sql(root));
END
$$;
COMMENT ON FUNCTION docmodel._mapping_sql(jsonb) IS
    'docmodel internal: the query of a mapping''s documents (key, doc, the root''s key columns k1, k2, ...)';

CREATE FUNCTION docmodel.denormalize(mapping text) RETURNS TABLE(key text, doc jsonb)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    spec jsonb := docmodel._mapping_spec(docmodel._mapping_owner(mapping), mapping);
BEGIN
    RETURN QUERY EXECUTE format('SELECT q.key, q.doc FROM (%s) q ORDER BY %s',
        docmodel._mapping_sql(spec),
        (SELECT string_agg('q.k' || n, ', ' ORDER BY n)
         FROM generate_series(1, cardinality(docmodel._pk_columns((spec->>'root')::oid))) n));
END
$$;
COMMENT ON FUNCTION docmodel.denormalize(text) IS
    'docmodel: the documents a mapping makes of its tables, in primary key order, read as the caller';

-- The spec of denormalize(root, doc_type, depth): tables referring to a
-- table embedded as arrays (depth levels), tables it refers to as key
-- references; every table once.
CREATE FUNCTION docmodel._auto_spec(root regclass, doc_type text, depth integer)
    RETURNS jsonb
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    parts jsonb := '[]';
    seen oid[] := ARRAY[root::oid];
    level oid[] := ARRAY[root::oid];
    next oid[];
    t oid;
    r record;
    d integer;
BEGIN
    IF depth IS NULL OR depth < 0 OR depth > 32 THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('invalid depth %s of denormalize(%s)', depth, root),
            DETAIL = 'depth is 0 (no arrays) to 32.';
    END IF;
    FOR d IN 0 .. depth LOOP
        next := '{}';
        FOREACH t IN ARRAY level LOOP
            -- what t refers to: key references, named after the table (or
            -- the key column when two keys reach one table)
            FOR r IN SELECT c.confrelid AS dst, f.cols, f.ref_cols,
                    count(*) OVER (PARTITION BY c.confrelid) AS n
                FROM pg_constraint c
                CROSS JOIN LATERAL docmodel._fk_columns(c.conrelid, c.confrelid) f
                WHERE c.contype = 'f' AND c.conrelid = t AND f.name = c.conname
                  AND NOT (d > 0 AND c.confrelid = ANY (seen))
                ORDER BY c.conname LOOP
                parts := parts || jsonb_build_object('kind', 'reference', 'tbl', r.dst, 'under', t,
                    'field', CASE WHEN r.n = 1 THEN (SELECT relname FROM pg_class WHERE oid = r.dst)::text
                                  ELSE regexp_replace(r.cols[1], '_id$', '') END,
                    'type', CASE WHEN r.dst = root AND doc_type IS NOT NULL THEN doc_type
                                 ELSE (SELECT relname FROM pg_class WHERE oid = r.dst)::text END,
                    'cols', r.ref_cols, 'under_cols', r.cols);
            END LOOP;
            EXIT WHEN d = depth;
            -- who refers to t: embedded arrays
            FOR r IN SELECT DISTINCT ON (c.conrelid) c.conrelid AS src, f.cols, f.ref_cols
                FROM pg_constraint c
                CROSS JOIN LATERAL docmodel._fk_columns(c.conrelid, c.confrelid) f
                WHERE c.contype = 'f' AND c.confrelid = t AND f.name = c.conname
                  AND NOT c.conrelid = ANY (seen)
                ORDER BY c.conrelid, c.conname LOOP
                seen := seen || r.src;
                next := next || r.src;
                parts := parts || jsonb_build_object('kind', 'array', 'tbl', r.src, 'under', t,
                    'field', (SELECT relname FROM pg_class WHERE oid = r.src)::text,
                    'cols', r.cols, 'under_cols', r.ref_cols, 'order_by',
                    (SELECT jsonb_agg(jsonb_build_array(c2, '', '')) FROM unnest(docmodel._pk_columns(r.src)) c2));
            END LOOP;
        END LOOP;
        level := next;
    END LOOP;
    RETURN jsonb_build_object('name', root::text, 'root', root::oid,
        'type', coalesce(doc_type, (SELECT relname FROM pg_class WHERE oid = root)::text),
        'parts', parts, 'columns', '{}'::jsonb);
END
$$;
COMMENT ON FUNCTION docmodel._auto_spec(regclass, text, integer) IS
    'docmodel internal: the mapping denormalize(root, doc_type, depth) follows, from the declared foreign keys';

CREATE FUNCTION docmodel.denormalize(root regclass, doc_type text DEFAULT NULL,
    depth integer DEFAULT 1) RETURNS TABLE(key text, doc jsonb)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    spec jsonb := docmodel._auto_spec(root, doc_type, depth);
BEGIN
    PERFORM docmodel.key(spec->>'type', 'x');
    RETURN QUERY EXECUTE format('SELECT q.key, q.doc FROM (%s) q ORDER BY %s',
        docmodel._mapping_sql(spec),
        (SELECT string_agg('q.k' || n, ', ' ORDER BY n)
         FROM generate_series(1, cardinality(docmodel._pk_columns(root))) n));
END
$$;
COMMENT ON FUNCTION docmodel.denormalize(regclass, text, integer) IS
    'docmodel: each row of root as a document keyed <type>::<primary key>, with the rows referring to it embedded as arrays (depth levels) and the rows it refers to as key references';

-- The JSON Schema of the documents of rows of tbl under a mapping.
CREATE FUNCTION docmodel._mapping_schema_of(spec jsonb, tbl oid, depth integer)
    RETURNS jsonb
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    props jsonb := '{}';
    req text[] := '{}';
    col record;
    p jsonb;
    s jsonb;
    name text;
    pattern text;
BEGIN
    IF depth > 32 THEN
        RAISE EXCEPTION USING ERRCODE = '54001',
            MESSAGE = format('mapping "%s" nests more than 32 levels', spec->>'name');
    END IF;
    FOR col IN SELECT a.attname, a.attnotnull, a.atttypid, a.atttypmod
        FROM pg_attribute a
        WHERE a.attrelid = tbl AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY a.attnum LOOP
        name := col.attname;
        IF (spec->'columns') ? (tbl || '.' || col.attname) THEN
            name := spec->'columns'->>(tbl || '.' || col.attname);
            CONTINUE WHEN name IS NULL;
        END IF;
        s := docmodel._json_column_schema(col.atttypid, col.atttypmod);
        IF NOT col.attnotnull AND s ? 'type' THEN
            s := jsonb_set(s, '{type}', jsonb_build_array(s->'type', 'null'));
            IF s ? 'enum' THEN
                s := jsonb_set(s, '{enum}', (s->'enum') || 'null'::jsonb);
            END IF;
        END IF;
        props := props || jsonb_build_object(name, s);
        req := req || name;
    END LOOP;
    FOR p IN SELECT x FROM jsonb_array_elements(spec->'parts') x
            WHERE (x->>'under')::oid = tbl LOOP
        pattern := '^' || regexp_replace(p->>'type' || coalesce(spec->>'delimiter', '::'),
            '([.^$*+?()\[\]{}|\\])', '\\\1', 'g');
        CASE p->>'kind'
        WHEN 'array' THEN
            s := jsonb_build_object('type', 'array',
                'items', docmodel._mapping_schema_of(spec, (p->>'tbl')::oid, depth + 1));
            IF p->'max_items' <> 'null' THEN
                s := s || jsonb_build_object('maxItems', p->'max_items');
            END IF;
        WHEN 'object' THEN
            s := jsonb_build_object('anyOf', jsonb_build_array(
                docmodel._mapping_schema_of(spec, (p->>'tbl')::oid, depth + 1),
                jsonb_build_object('type', 'null')));
        WHEN 'merge' THEN
            -- its fields, present when the row is there
            props := docmodel._mapping_schema_of(spec, (p->>'tbl')::oid, depth + 1)->'properties' || props;
            CONTINUE;
        WHEN 'reference' THEN
            s := jsonb_build_object('type', jsonb_build_array('string', 'null'), 'pattern', pattern);
        WHEN 'references' THEN
            s := jsonb_build_object('type', 'array',
                'items', jsonb_build_object('type', 'string', 'pattern', pattern));
        END CASE;
        props := props || jsonb_build_object(p->>'field', s);
        req := req || (p->>'field');
    END LOOP;
    RETURN jsonb_build_object('type', 'object', 'properties', props, 'required', to_jsonb(req));
END
$$;
COMMENT ON FUNCTION docmodel._mapping_schema_of(jsonb, oid, integer) IS
    'docmodel internal: the JSON Schema of the documents of a mapped table''s rows';

-- The JSON Schema of a PostgreSQL type's values as jsonb writes them.
CREATE FUNCTION docmodel._json_type_schema(typname name, typmod integer)
    RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE
        WHEN typname IN ('int2', 'int4', 'int8') THEN '{"type": "integer"}'
        WHEN typname IN ('numeric', 'float4', 'float8') THEN '{"type": "number"}'
        WHEN typname = 'bool' THEN '{"type": "boolean"}'
        WHEN typname IN ('varchar', 'bpchar') AND typmod > 4 THEN
            jsonb_build_object('type', 'string', 'maxLength', typmod - 4)
        WHEN typname = 'uuid' THEN '{"type": "string", "format": "uuid"}'
        WHEN typname = 'date' THEN '{"type": "string", "format": "date"}'
        WHEN typname = 'timestamptz' THEN '{"type": "string", "format": "date-time"}'
        WHEN typname IN ('json', 'jsonb') THEN '{}'
        ELSE '{"type": "string"}'
    END::jsonb
$$;
COMMENT ON FUNCTION docmodel._json_type_schema(name, integer) IS
    'docmodel internal: the JSON Schema of a type''s values in jsonb (integer, number, boolean, string with its format)';

-- The JSON Schema of a column's values in jsonb: a domain as its base type
-- (with the domain's typmod when it sets one), an enum as its labels, an
-- array as items of its element type.
CREATE FUNCTION docmodel._json_column_schema(typ oid, typmod integer)
    RETURNS jsonb
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    t record;
BEGIN
    -- a domain's chain of base types is finite (no cycles): at most as long
    -- as pg_type, bounded here all the same
    FOR i IN 1 .. 64 LOOP
        SELECT y.typname, y.typtype, y.typbasetype, y.typtypmod, y.typelem, y.typcategory
            INTO t FROM pg_type AS y WHERE y.oid OPERATOR(pg_catalog.=) typ;
        EXIT WHEN NOT FOUND OR t.typtype OPERATOR(pg_catalog.<>) 'd';
        typ := t.typbasetype;
        IF t.typtypmod OPERATOR(pg_catalog.<>) -1 THEN
            typmod := t.typtypmod;
        END IF;
    END LOOP;
    IF t IS NULL THEN
        RETURN '{}';
    END IF;
    IF t.typcategory OPERATOR(pg_catalog.=) 'A' AND t.typelem OPERATOR(pg_catalog.<>) 0 THEN
        RETURN jsonb_build_object('type', 'array',
            'items', docmodel._json_column_schema(t.typelem, typmod));
    END IF;
    IF t.typtype OPERATOR(pg_catalog.=) 'e' THEN
        RETURN jsonb_build_object('type', 'string', 'enum',
            (SELECT jsonb_agg(e.enumlabel ORDER BY e.enumsortorder) FROM pg_enum AS e
             WHERE e.enumtypid OPERATOR(pg_catalog.=) typ));
    END IF;
    RETURN docmodel._json_type_schema(t.typname,
        CASE WHEN t.typname IN ('varchar', 'bpchar') THEN typmod END);
END
$$;
COMMENT ON FUNCTION docmodel._json_column_schema(oid, integer) IS
    'docmodel internal: the JSON Schema of a column type''s values in jsonb (domains as their base type, enums as their labels, arrays as items)';

CREATE FUNCTION docmodel.mapping_schema(mapping text, coll regclass DEFAULT NULL) RETURNS jsonb
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    spec jsonb := docmodel._mapping_spec(docmodel._mapping_owner(mapping), mapping);
BEGIN
    -- references keyed as migrate_tables writes them into coll
    IF coll IS NOT NULL THEN
        spec := docmodel._mapping_layout(spec, coll);
    END IF;
    RETURN jsonb_build_object('$schema', 'https://json-schema.org/draft/2020-12/schema',
        'title', format('%s documents of mapping %s', spec->>'type', mapping))
        || docmodel._mapping_schema_of(spec, (spec->>'root')::oid, 1);
END
$$;
COMMENT ON FUNCTION docmodel.mapping_schema(text, regclass) IS
    'docmodel: a JSON Schema (2020-12) of the documents a mapping makes, from the column types and NOT NULLs, ready for register_schema (references keyed with the delimiter of coll, when given)';

-- Raise 22023 unless coll is a docmodel collection.
CREATE FUNCTION docmodel._require_collection(coll regclass) RETURNS void
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT EXISTS (SELECT FROM docmodel.collection_config c WHERE c.coll = _require_collection.coll) THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('"%s" is not a docmodel collection', coll),
            HINT = 'Create collections with docmodel.create_collection().';
    END IF;
END
$$;
COMMENT ON FUNCTION docmodel._require_collection(regclass) IS
    'docmodel internal: raise 22023 unless the table is a docmodel collection';

-- The batch statement of migrate_tables: the next $2 documents of the
-- mapping after root key $1 (a jsonb array; NULL: from the start) upserted
-- into coll; their count and the last root key and document key. Made
-- from the mapping for every batch: no statement is carried from call to
-- call.
CREATE FUNCTION docmodel._migrate_tables_sql(spec jsonb, coll regclass) RETURNS text
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    root oid := (spec->>'root')::oid;
    keys text;
    after_expr text;
BEGIN
    SELECT string_agg('q.k' || i, ', ' ORDER BY i),
           string_agg(format('($1 OPERATOR(pg_catalog.->>) %s)::%s', i - 1, format_type(a.atttypid, a.atttypmod)), ', ' ORDER BY i)
      INTO keys, after_expr
      FROM unnest(docmodel._pk_columns(root)) WITH ORDINALITY u(c, i)
      JOIN pg_attribute a ON a.attrelid = root AND a.attname = u.c;
    RETURN format(
        'WITH b AS (SELECT q.key, q.doc, pg_catalog.jsonb_build_array(%1$s) AS pk, pg_catalog.row_number() OVER (ORDER BY %1$s) AS rn
                    FROM (%2$s) q WHERE $1 IS NULL OR (%1$s) > (%3$s) ORDER BY %1$s LIMIT $2),
              w AS (INSERT INTO %4$s AS c (id, doc) SELECT b.key, b.doc FROM b
                    ON CONFLICT (id) DO UPDATE SET doc = excluded.doc)
         SELECT pg_catalog.count(*), (pg_catalog.array_agg(b.pk ORDER BY b.rn DESC))[1],
                (pg_catalog.array_agg(b.key ORDER BY b.rn DESC))[1] FROM b',
        keys, docmodel._mapping_sql(docmodel._mapping_layout(spec, coll)), after_expr, docmodel._rel_sql(coll));
END
$$;
COMMENT ON FUNCTION docmodel._migrate_tables_sql(jsonb, regclass) IS
    'docmodel internal: the batch statement of migrate_tables, made from the mapping';

-- migrate_tables' start: the run recorded (resuming after the last batch of
-- an unfinished run of the same mapping into coll), the arguments checked;
-- returns the state _migrate_tables_batch carries from batch to batch.
CREATE FUNCTION docmodel._migrate_tables_start(mapping text, coll regclass,
    batch_size integer) RETURNS jsonb
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    spec jsonb := docmodel._mapping_spec(docmodel._mapping_owner(mapping), mapping);
    root oid := (spec->>'root')::oid;
    status text;
    after jsonb;
    done bigint;
    total bigint;
    run bigint;
BEGIN
    IF batch_size IS NULL OR batch_size < 1 THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('invalid batch_size %s of migrate_tables("%s")', batch_size, mapping);
    END IF;
    PERFORM docmodel._require_collection(coll);
    SELECT r.status, r.targets->'after', r.docs_done INTO status, after, done
      FROM docmodel.migration_run r
     WHERE r.coll = _migrate_tables_start.coll AND r.targets->>'mapping' = mapping
       AND r.targets->>'owner' = spec->>'owner'
     ORDER BY r.run_id DESC LIMIT 1;
    IF status IS DISTINCT FROM 'running' AND status IS DISTINCT FROM 'failed' OR after = 'null' THEN
        after := NULL;
        done := 0;
    END IF;
    EXECUTE format('SELECT pg_catalog.count(*) FROM %s', docmodel._rel_sql(root)) INTO total;
    run := docmodel._migration_run_new(coll, spec->>'type', NULL,
        jsonb_build_object('mapping', mapping, 'owner', spec->'owner', 'after', after));
    -- the total from the start, so that a run failing in its first batch
    -- says how much it had to do
    PERFORM docmodel._migration_run_set(run, 'running', NULL, done, total,
        jsonb_build_object('mapping', mapping, 'owner', spec->'owner', 'after', after), NULL);
    RETURN jsonb_build_object('mapping', mapping, 'owner', spec->'owner', 'coll', coll::oid, 'batch', batch_size,
        'after', after, 'done', done, 'total', total, 'run', run);
END
$$;
COMMENT ON FUNCTION docmodel._migrate_tables_start(text, regclass, integer) IS
    'docmodel internal: record a run of migrate_tables (resuming an unfinished one) and check its arguments';

-- One batch of migrate_tables: the next documents upserted into the
-- collection, the run's progress recorded; NULL after the last.
CREATE FUNCTION docmodel._migrate_tables_batch(state jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    coll oid := (state->>'coll')::oid;
    spec jsonb := docmodel._mapping_spec(docmodel._mapping_owner(state->>'mapping'), state->>'mapping');
    n bigint;
    after jsonb;
    last_key text;
    done bigint;
    more boolean;
    err_state text;
    err_msg text;
    err_detail text;
    err_hint text;
    err_context text;
BEGIN
    IF spec->'owner' IS DISTINCT FROM state->'owner' OR jsonb_typeof(state->'batch') IS DISTINCT FROM 'number'
            OR jsonb_typeof(state->'run') IS DISTINCT FROM 'number' THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('invalid state of a run of migrate_tables("%s")', state->>'mapping');
    END IF;
    PERFORM docmodel._require_collection(coll);
    IF NOT pg_try_advisory_xact_lock(1835496052,
            (coll::int8 - CASE WHEN coll::int8 >= 2147483648 THEN 4294967296 ELSE 0 END)::int4) THEN
        RAISE EXCEPTION USING ERRCODE = '55P03',
            MESSAGE = format('a bulk run on collection %s is in progress', coll::regclass);
    END IF;
    BEGIN
        EXECUTE docmodel._migrate_tables_sql(spec, coll) INTO n, after, last_key
            USING CASE WHEN state->'after' <> 'null' THEN state->'after' END, (state->>'batch')::integer;
    EXCEPTION WHEN OTHERS THEN
        -- the batch is rolled back; the run records why (migrate_tables
        -- commits that, then raises the error)
        GET STACKED DIAGNOSTICS err_state = RETURNED_SQLSTATE, err_msg = MESSAGE_TEXT,
            err_detail = PG_EXCEPTION_DETAIL, err_hint = PG_EXCEPTION_HINT,
            err_context = PG_EXCEPTION_CONTEXT;
        PERFORM docmodel._migration_run_set((state->>'run')::bigint, 'failed',
            (SELECT r.last_key FROM docmodel.migration_run r WHERE r.run_id = (state->>'run')::bigint),
            (state->>'done')::bigint, (state->>'total')::bigint,
            jsonb_build_object('mapping', state->>'mapping', 'owner', state->'owner', 'after', state->'after'),
            format('%s: %s', err_state, err_msg));
        RETURN jsonb_build_object('error', jsonb_build_object('state', err_state,
            'message', err_msg, 'detail', err_detail, 'hint', err_hint,
            'context', err_context));
    END;
    done := (state->>'done')::bigint + n;
    more := n = (state->>'batch')::integer;
    PERFORM docmodel._migration_run_set((state->>'run')::bigint, CASE WHEN more THEN 'running' ELSE 'done' END,
        coalesce(last_key, (SELECT r.last_key FROM docmodel.migration_run r WHERE r.run_id = (state->>'run')::bigint)),
        done, (state->>'total')::bigint,
        jsonb_build_object('mapping', state->>'mapping', 'owner', state->'owner', 'after', after), NULL);
    RETURN CASE WHEN more THEN state || jsonb_build_object('after', after, 'done', done) END;
END
$$;
COMMENT ON FUNCTION docmodel._migrate_tables_batch(jsonb) IS
    'docmodel internal: one batch of migrate_tables; the next state, NULL after the last batch, {"error": ...} when the batch failed (recorded in the run)';

CREATE PROCEDURE docmodel.migrate_tables(mapping text, coll regclass,
    batch_size integer DEFAULT 1000)
    AS 'MODULE_PATHNAME', 'migration_migrate_tables'
    LANGUAGE C;
COMMENT ON PROCEDURE docmodel.migrate_tables(text, regclass, integer) IS
    'docmodel: copy the documents of a mapping into a collection (through its trigger), committing batch by batch in primary key order, resumable; see docmodel.migration_runs';

-- Values between tables and documents (src/relational.c)
CREATE FUNCTION docmodel.is_missing(doc jsonb, VARIADIC path text[]) RETURNS boolean
    AS 'MODULE_PATHNAME', 'mapping_is_missing'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.is_missing(jsonb, text[]) IS
    'docmodel: N1QL''s MISSING: the path (member names and array indexes) is not in the document';
CREATE FUNCTION docmodel.is_null(doc jsonb, VARIADIC path text[]) RETURNS boolean
    AS 'MODULE_PATHNAME', 'mapping_is_null'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.is_null(jsonb, text[]) IS
    'docmodel: N1QL''s NULL: the path holds JSON null';
CREATE FUNCTION docmodel.is_valued(doc jsonb, VARIADIC path text[]) RETURNS boolean
    AS 'MODULE_PATHNAME', 'mapping_is_valued'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.is_valued(jsonb, text[]) IS
    'docmodel: N1QL''s valued: the path holds a value other than null';
CREATE FUNCTION docmodel.to_epoch(ts timestamptz, unit text DEFAULT 'ms') RETURNS bigint
    AS 'MODULE_PATHNAME', 'mapping_to_epoch'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.to_epoch(timestamptz, text) IS
    'docmodel: whole units (ns, us, ms, s, min, h, day) since 1970-01-01 UTC, rounded down';
CREATE FUNCTION docmodel.from_epoch(n bigint, unit text DEFAULT 'ms') RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'mapping_from_epoch'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.from_epoch(bigint, text) IS
    'docmodel: the time n units (ns, us, ms, s, min, h, day) after 1970-01-01 UTC';
CREATE FUNCTION docmodel.compact(doc jsonb, options jsonb DEFAULT '{}') RETURNS jsonb
    AS 'MODULE_PATHNAME', 'mapping_compact'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.compact(jsonb, jsonb) IS
    'docmodel: a document made smaller as options say: null and empty members dropped (default), members at their default value dropped, ISO 8601 dates as epoch numbers, GUIDs without dashes';

-- References between documents (keys held in a field)
-- The key of a value embed() meets: a string is a whole key, a number the
-- id part of a key of type key_type (or the collection's doc_type); with
-- key_type given, a string is an id too.
CREATE FUNCTION docmodel._embed_key(v jsonb, coll regclass, key_type text, path text[])
    RETURNS text
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    t text := coalesce(key_type, (SELECT c.doc_type FROM docmodel.collection_config c WHERE c.coll = _embed_key.coll));
BEGIN
    IF jsonb_typeof(v) = 'string' AND key_type IS NULL THEN
        RETURN v #>> '{}';
    END IF;
    IF t IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('path %s of the document holds the number %s, not a key', path, v),
            DETAIL = format('Collection %s has no doc_type to make a key of it.', coll),
            HINT = 'Give key_type: the type of the keys the numbers are the ids of.';
    END IF;
    RETURN docmodel.key_with((SELECT c.delimiter FROM docmodel.collection_config c WHERE c.coll = _embed_key.coll),
        t, v #>> '{}');
END
$$;
COMMENT ON FUNCTION docmodel._embed_key(jsonb, regclass, text, text[]) IS
    'docmodel internal: the document key a value at an embed() path names (a key, or an id of key_type)';

-- embed() below one step of its path: v with what path reaches in it
-- (each element of an array for a * step) replaced by the documents it
-- names (or their summary: the members fields lists).
CREATE FUNCTION docmodel._embed_at(v jsonb, rest text[], coll regclass, key_type text,
    fields text[], path text[]) RETURNS jsonb
LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    step text := rest[1];
    d jsonb;
BEGIN
    IF v IS NULL OR jsonb_typeof(v) = 'null' THEN
        RETURN v;
    END IF;
    IF cardinality(rest) = 0 THEN
        IF jsonb_typeof(v) IN ('string', 'number') THEN
            d := docmodel.get(coll, docmodel._embed_key(v, coll, key_type, path));
            IF fields IS NOT NULL AND jsonb_typeof(d) = 'object' THEN
                d := coalesce((SELECT jsonb_object_agg(f, d -> f) FROM unnest(fields) f WHERE d ? f), '{}');
            END IF;
            RETURN coalesce(d, 'null');
        END IF;
        IF jsonb_typeof(v) <> 'array' OR EXISTS (SELECT FROM jsonb_array_elements(v) e
                WHERE jsonb_typeof(e) NOT IN ('string', 'number', 'null')) THEN
            RAISE EXCEPTION USING ERRCODE = '22023',
                MESSAGE = format('path %s of the document holds %s, not a key or an array of keys',
                    path, jsonb_typeof(v));
        END IF;
        RETURN coalesce((SELECT jsonb_agg(docmodel._embed_at(e, '{}', coll, key_type, fields, path) ORDER BY n)
            FROM jsonb_array_elements(v) WITH ORDINALITY x(e, n)), '[]');
    END IF;
    IF step IS NULL THEN
        RETURN v;
    END IF;
    IF jsonb_typeof(v) = 'array' AND step = '*' THEN
        RETURN coalesce((SELECT jsonb_agg(docmodel._embed_at(e, rest[2:], coll, key_type, fields, path) ORDER BY n)
            FROM jsonb_array_elements(v) WITH ORDINALITY x(e, n)), '[]');
    END IF;
    IF jsonb_typeof(v) = 'object' AND v ? step
            OR jsonb_typeof(v) = 'array' AND step ~ '^-?[0-9]{1,9}$' AND v -> step::integer IS NOT NULL THEN
        RETURN jsonb_set(v, ARRAY[step], docmodel._embed_at(v #> ARRAY[step], rest[2:], coll, key_type, fields, path));
    END IF;
    RETURN v;   -- the path is absent
END
$$;
COMMENT ON FUNCTION docmodel._embed_at(jsonb, text[], regclass, text, text[], text[]) IS
    'docmodel internal: embed() below one step of its path (* for every element of an array)';

CREATE FUNCTION docmodel.embed(doc jsonb, path text[], coll regclass,
    key_type text DEFAULT NULL, fields text[] DEFAULT NULL) RETURNS jsonb
LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF doc IS NULL OR path IS NULL OR coll IS NULL OR cardinality(path) = 0 THEN
        RETURN doc;
    END IF;
    PERFORM docmodel._require_collection(coll);
    RETURN docmodel._embed_at(doc, path, coll, key_type, fields, path);
END
$$;
COMMENT ON FUNCTION docmodel.embed(jsonb, text[], regclass, text, text[]) IS
    'docmodel: the document with the keys at path (* for every element of an array; numbers as ids of key_type) replaced by the documents of coll they name, or their members fields, read as get() reads them (null where none)';

CREATE FUNCTION docmodel.dangling_refs(coll regclass, path text[], target regclass)
    RETURNS TABLE(key text, ref text)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM docmodel._require_collection(target);
    RETURN QUERY EXECUTE format(
        'SELECT d.id, r.ref FROM %1$s AS d
           CROSS JOIN LATERAL jsonb_array_elements_text(CASE jsonb_typeof(d.doc #> $1)
               WHEN ''array'' THEN d.doc #> $1 WHEN ''string'' THEN jsonb_build_array(d.doc #> $1)
               ELSE ''[]'' END) AS r(ref)
          WHERE (d.expires_at IS NULL OR d.expires_at > now())
            AND NOT EXISTS (SELECT FROM %2$s AS t WHERE t.id = r.ref
                            AND (t.expires_at IS NULL OR t.expires_at > now()))
          ORDER BY 1, 2', coll, target)
    USING path;
END
$$;
COMMENT ON FUNCTION docmodel.dangling_refs(regclass, text[], regclass) IS
    'docmodel: the keys at path in the documents of coll that name no live document of target';

/*
 * Live projections: each table a projected mapping reads, and the
 * collection it is projected onto. No statement is stored: the trigger
 * makes its statement from the mapping (_projection_sql) and keeps it for
 * the backend until a mapping table, a table it reads or a schema changes.
 * Written only by _mapping_write.
 */
CREATE TABLE docmodel.projections (
    mapping  text NOT NULL,
    owner    regrole NOT NULL,
    tbl      regclass NOT NULL,
    coll     regclass NOT NULL,
    triggers oid[] NOT NULL,
    PRIMARY KEY (owner, mapping, tbl),
    FOREIGN KEY (owner, mapping) REFERENCES docmodel.mappings (owner, name) ON DELETE CASCADE
);
COMMENT ON TABLE docmodel.projections IS
    'docmodel: the tables of each projected mapping, the collection it is projected onto and the triggers project_tables created';
SELECT pg_catalog.pg_extension_config_dump('docmodel.projections', '');
GRANT SELECT ON docmodel.projections TO PUBLIC;
CREATE TRIGGER mappings_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
    ON docmodel.projections FOR EACH STATEMENT EXECUTE FUNCTION docmodel._mappings_changed();

-- The root keys (k1, k2, ...) of the documents rows of tbl in transition
-- table src feed: joined up the mapping's chain of parts to the root.
CREATE FUNCTION docmodel._projection_roots(spec jsonb, tbl oid, src text) RETURNS text
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    root oid := (spec->>'root')::oid;
    cur oid := tbl;
    prev text := 'c';
    from_sql text := format('%I AS c', src);
    p jsonb;
    i integer := 0;
BEGIN
    WHILE cur <> root LOOP
        SELECT x INTO p FROM jsonb_array_elements(spec->'parts') x
        WHERE (x->>'kind' IN ('array', 'object', 'merge') AND (x->>'tbl')::oid = cur)
           OR (x->>'kind' = 'references' AND (x->>'via')::oid = cur)
        LIMIT 1;
        IF p IS NULL OR i >= 32 THEN
            RETURN NULL;   -- not a table the documents are made of
        END IF;
        i := i + 1;
        from_sql := from_sql || format(' JOIN %s AS %I ON %s', docmodel._rel_sql((p->>'under')::oid), 'u' || i,
            docmodel._join_sql('u' || i, (p->>'under')::oid, p->'under_cols', prev, cur, p->'cols'));
        prev := 'u' || i;
        cur := (p->>'under')::oid;
    END LOOP;
    RETURN format('SELECT %s FROM %s',
        (SELECT string_agg(format('%I.%I AS k%s', prev, c, n), ', ' ORDER BY n)
         FROM unnest(docmodel._pk_columns(root)) WITH ORDINALITY u(c, n)), from_sql);
END
$$;
COMMENT ON FUNCTION docmodel._projection_roots(jsonb, oid, text) IS
    'docmodel internal: the query of the root keys a transition table''s rows of a mapped table feed';

-- The statement trigger tgoid of projection (owner, mapping) on tbl runs
-- for event (insert, update, delete), made from the mapping: the documents
-- of the root keys affected rewritten through the collection (upserted, or
-- deleted when their root row is gone); and the relations it may reach
-- (the mapping's tables, the tables it references by key, the collection).
-- sql is NULL unless tbl is a table of a projection of the mapping and
-- tgoid one of the triggers project_tables created for it.
CREATE FUNCTION docmodel._projection_sql(owner regrole, mapping text, tbl oid, event text,
    tgoid oid, OUT sql text, OUT rels oid[])
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    srcs text[] := CASE event WHEN 'insert' THEN '{new_rows}' WHEN 'update' THEN '{old_rows,new_rows}'
                              WHEN 'delete' THEN '{old_rows}' END;
    coll oid;
    spec jsonb;
    pk text[];
    eq text;
BEGIN
    IF srcs IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = format('invalid projection event "%s"', event);
    END IF;
    SELECT p.coll INTO coll FROM docmodel.projections p
    WHERE p.owner = _projection_sql.owner AND p.mapping = _projection_sql.mapping AND p.tbl = _projection_sql.tbl
      AND _projection_sql.tgoid = ANY (p.triggers);
    IF NOT FOUND THEN
        RETURN;
    END IF;
    spec := docmodel._mapping_layout(docmodel._mapping_spec(owner, mapping), coll);
    IF NOT tbl = ANY (docmodel._mapping_tables(spec)) THEN
        RETURN;
    END IF;
    pk := docmodel._pk_columns((spec->>'root')::oid);
    eq := (SELECT string_agg(format('a.k%s %s q.k%s', n, docmodel._eq_op(x.atttypid, x.atttypid), n), ' AND ' ORDER BY n)
           FROM unnest(pk) WITH ORDINALITY u(c, n)
           JOIN pg_attribute x ON x.attrelid = (spec->>'root')::oid AND x.attname = u.c);
    sql := format(
        'WITH a AS (%1$s),
              d AS (SELECT q.key, q.doc FROM (%2$s) AS q WHERE EXISTS (SELECT FROM a WHERE %3$s)),
              up AS (INSERT INTO %4$s AS c (id, doc) SELECT d.key, d.doc FROM d
                     ON CONFLICT (id) DO UPDATE SET doc = excluded.doc RETURNING 1)
         DELETE FROM %4$s AS c
          WHERE EXISTS (SELECT FROM a WHERE c.id OPERATOR(pg_catalog.=) %5$s)
            AND NOT EXISTS (SELECT FROM d WHERE d.key OPERATOR(pg_catalog.=) c.id)',
        (SELECT string_agg(docmodel._projection_roots(spec, tbl, s), ' UNION ') FROM unnest(srcs) s),
        docmodel._mapping_sql(spec), eq, docmodel._rel_sql(coll),
        docmodel._mapping_key_sql(spec, spec->>'type',
            (SELECT string_agg('a.k' || i, ', ' ORDER BY i) FROM generate_series(1, cardinality(pk)) i), false));
    rels := docmodel._mapping_tables(spec) || coll
        || coalesce((SELECT array_agg((p->>'tbl')::oid) FROM jsonb_array_elements(spec->'parts') p
                     WHERE p->>'kind' IN ('reference', 'references')), '{}');
END
$$;
COMMENT ON FUNCTION docmodel._projection_sql(regrole, text, oid, text, oid) IS
    'docmodel internal: the statement a projection trigger runs for one event of one table, made from the mapping, and the relations it may reach';

CREATE FUNCTION docmodel._projection_trigger() RETURNS trigger
    AS 'MODULE_PATHNAME', 'mapping_projection_trigger'
    LANGUAGE C;
COMMENT ON FUNCTION docmodel._projection_trigger() IS
    'docmodel internal: the statement trigger of a projected table: rewrites the documents its changed rows feed';

-- The name of a projection's triggers: per owner and mapping.
CREATE FUNCTION docmodel._projection_trigger_name(owner regrole, mapping text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT 'docmodel_projection_' OPERATOR(pg_catalog.||)
        pg_catalog.left(pg_catalog.md5(owner::oid::text OPERATOR(pg_catalog.||) '/' OPERATOR(pg_catalog.||) mapping), 12)
$$;
COMMENT ON FUNCTION docmodel._projection_trigger_name(regrole, text) IS
    'docmodel internal: the name of the triggers of a projection of a mapping';

CREATE FUNCTION docmodel.project_tables(mapping text, coll regclass) RETURNS void
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    o regrole := docmodel._mapping_owner(mapping);
    spec jsonb := docmodel._mapping_spec(o, mapping);
    t oid;
    name text := docmodel._projection_trigger_name(o, mapping);
BEGIN
    PERFORM docmodel._require_collection(coll);
    PERFORM docmodel._mapping_layout(spec, coll);   -- keys the collection can hold
    -- its triggers' statements read transition tables, which Citus cannot
    -- send to the workers
    IF docmodel._citus_distributed(coll) THEN
        RAISE EXCEPTION USING ERRCODE = '0A000',
            MESSAGE = format('cannot project mapping "%s" onto distributed collection %s', mapping, coll),
            HINT = 'Load it with docmodel.migrate_tables() instead, which works on a distributed collection.';
    END IF;
    PERFORM docmodel.stop_projection(mapping);
    FOREACH t IN ARRAY docmodel._mapping_tables(spec) LOOP
        -- as the caller: creating triggers takes the table's TRIGGER
        -- privilege; the arguments name the mapping by owner and name
        EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %s REFERENCING NEW TABLE AS new_rows
            FOR EACH STATEMENT EXECUTE FUNCTION docmodel._projection_trigger(%L, %L)',
            name || '_i', docmodel._rel_sql(t), o::oid, mapping);
        EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %s REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
            FOR EACH STATEMENT EXECUTE FUNCTION docmodel._projection_trigger(%L, %L)',
            name || '_u', docmodel._rel_sql(t), o::oid, mapping);
        EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %s REFERENCING OLD TABLE AS old_rows
            FOR EACH STATEMENT EXECUTE FUNCTION docmodel._projection_trigger(%L, %L)',
            name || '_d', docmodel._rel_sql(t), o::oid, mapping);
        PERFORM docmodel._mapping_write('project', o, mapping, t::regclass, coll, NULL,
            jsonb_build_object('triggers', (SELECT jsonb_agg(g.oid::bigint) FROM pg_trigger g
                WHERE g.tgrelid = t AND g.tgname IN (name || '_i', name || '_u', name || '_d'))));
    END LOOP;
END
$$;
COMMENT ON FUNCTION docmodel.project_tables(text, regclass) IS
    'docmodel: keep a collection in step with a mapping''s tables: triggers on every table the documents are made of rewrite exactly the documents a change touches, in the same transaction';

CREATE FUNCTION docmodel.stop_projection(mapping text) RETURNS boolean
LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    o regrole := docmodel._mapping_owner(mapping);
    t oid;
    name text := docmodel._projection_trigger_name(o, mapping);
    found_any boolean := false;
BEGIN
    FOR t IN SELECT p.tbl FROM docmodel.projections p
            WHERE p.owner = o AND p.mapping = stop_projection.mapping LOOP
        -- a table dropped since took its triggers with it
        IF EXISTS (SELECT FROM pg_class c WHERE c.oid = t) THEN
            EXECUTE format('DROP TRIGGER IF EXISTS %I ON %s', name || '_i', docmodel._rel_sql(t));
            EXECUTE format('DROP TRIGGER IF EXISTS %I ON %s', name || '_u', docmodel._rel_sql(t));
            EXECUTE format('DROP TRIGGER IF EXISTS %I ON %s', name || '_d', docmodel._rel_sql(t));
        END IF;
        found_any := true;
    END LOOP;
    IF found_any THEN
        PERFORM docmodel._mapping_write('unproject', o, mapping, NULL, NULL, NULL, NULL);
    END IF;
    RETURN found_any;
END
$$;
COMMENT ON FUNCTION docmodel.stop_projection(text) IS
    'docmodel: drop a mapping''s projection triggers; false when it had none';

CREATE FUNCTION docmodel.advise(coll regclass, sample integer DEFAULT 10000)
    RETURNS TABLE("check" text, severity text, path text, detail text, bytes_saved bigint)
    AS 'MODULE_PATHNAME', 'mapping_advise'
    LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION docmodel.advise(regclass, integer) IS
    'docmodel: modeling advice measured on a sample of a collection''s documents: each finding with its path, plain words and the bytes it would save across the collection';

-- Lookups: documents <lookup_type><delimiter><value> -> {"ref": key} kept
-- by a row trigger per lookup (src/relational.c)
CREATE FUNCTION docmodel._lookup_trigger() RETURNS trigger
    AS 'MODULE_PATHNAME', 'mapping_lookup_trigger'
    LANGUAGE C;
COMMENT ON FUNCTION docmodel._lookup_trigger() IS
    'docmodel internal: the row trigger of a lookup: writes, moves and deletes the lookup documents of a collection''s documents (23505 for a value another document holds)';

CREATE FUNCTION docmodel.create_lookup(coll regclass, lookup_type text, path text[],
    doc_type text DEFAULT NULL, lookup_coll regclass DEFAULT NULL)
    RETURNS bigint
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    lc regclass := coalesce(lookup_coll, coll);
    c record;
    l record;
    type_sql text;
    dup record;
    n bigint;
BEGIN
    PERFORM docmodel._require_collection(coll);
    PERFORM docmodel._require_collection(lc);
    SELECT x.delimiter, x.doc_type, x.type_part INTO c FROM docmodel.collection_config x WHERE x.coll = create_lookup.coll;
    SELECT x.delimiter, x.doc_type, x.type_part INTO l FROM docmodel.collection_config x WHERE x.coll = lc;
    PERFORM docmodel.key_with(l.delimiter, lookup_type, 'x');
    IF doc_type IS NOT NULL THEN
        PERFORM docmodel.key_with(c.delimiter, doc_type, 'x');
    END IF;
    -- its trigger would write other keys' shards from a shard
    IF docmodel._citus_distributed(coll) OR docmodel._citus_distributed(lc) THEN
        RAISE EXCEPTION USING ERRCODE = '0A000',
            MESSAGE = format('cannot create a lookup on distributed collection %s',
                CASE WHEN docmodel._citus_distributed(coll) THEN coll ELSE lc END),
            DETAIL = 'A lookup document lives under its own key, on another shard than the document it indexes; the shards cannot write it.',
            HINT = 'Keep a collection with lookups on the coordinator, or index the value with a secondary index.';
    END IF;
    -- lookup documents live beside the documents, as Couchbase keeps them,
    -- or in a collection of their own: either must accept their type
    IF l.doc_type IS NOT NULL AND l.doc_type <> lookup_type OR l.type_part <> 1 THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = CASE WHEN l.type_part <> 1
                THEN format('collection %s does not key documents by type first, as lookup documents of type "%s" are keyed', lc, lookup_type)
                ELSE format('collection %s holds only documents of type "%s", not lookup documents of type "%s"',
                    lc, l.doc_type, lookup_type) END,
            HINT = 'Keep the lookup documents in a collection of their own (lookup_coll), created without doc_type or with the lookup type.';
    END IF;
    IF path IS NULL OR cardinality(path) = 0 THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('lookup "%s" on %s needs a path', lookup_type, coll);
    END IF;
    -- the documents it indexes: of doc_type (the type their key gives under
    -- the collection's layout) when given; never the lookup documents
    -- beside them
    type_sql := CASE
        WHEN doc_type IS NULL THEN 'true'
        WHEN c.type_part = 0 THEN pg_catalog.quote_literal(c.doc_type IS NOT DISTINCT FROM doc_type)
        ELSE format('(pg_catalog.string_to_array(d.id, %L::pg_catalog.text))[%s] OPERATOR(pg_catalog.=) %L::pg_catalog.text',
            c.delimiter, c.type_part, doc_type) END
        || CASE WHEN lc = coll THEN ' AND NOT pg_catalog.starts_with(d.id, $2 OPERATOR(pg_catalog.||) $3)' ELSE '' END;
    -- the documents there already: one value, one document
    EXECUTE format('SELECT d.doc OPERATOR(pg_catalog.#>>) $1 AS v, (pg_catalog.array_agg(d.id ORDER BY d.id))[1:2] AS keys
        FROM %s AS d WHERE pg_catalog.jsonb_typeof(d.doc OPERATOR(pg_catalog.#>) $1) IN (''string'', ''number'', ''boolean'')
          AND %s
        GROUP BY 1 HAVING pg_catalog.count(*) > 1 ORDER BY 1 LIMIT 1', docmodel._rel_sql(coll), type_sql)
        INTO dup USING path, lookup_type, l.delimiter;
    IF dup.v IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = '23505',
            MESSAGE = format('value "%s" of lookup "%s" is taken', dup.v, lookup_type),
            DETAIL = format('Documents "%s" and "%s" both hold it.', dup.keys[1], dup.keys[2]);
    END IF;
    -- as the caller: a trigger takes the collection's TRIGGER privilege
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE ON %s
        FOR EACH ROW EXECUTE FUNCTION docmodel._lookup_trigger(%L, %L, %L, %L, %L)',
        'docmodel_lookup_' || lookup_type, docmodel._rel_sql(coll), lookup_type, path::text, l.delimiter,
        lc::oid, coalesce(doc_type, ''));
    -- index what is there; a lookup document already there for another
    -- document is a taken value
    EXECUTE format('INSERT INTO %s AS l (id, doc)
        SELECT $2 OPERATOR(pg_catalog.||) $3 OPERATOR(pg_catalog.||) (d.doc OPERATOR(pg_catalog.#>>) $1),
            pg_catalog.jsonb_build_object(''ref'', d.id) FROM %s AS d
        WHERE pg_catalog.jsonb_typeof(d.doc OPERATOR(pg_catalog.#>) $1) IN (''string'', ''number'', ''boolean'')
          AND %s
        ON CONFLICT (id) DO NOTHING', docmodel._rel_sql(lc), docmodel._rel_sql(coll), type_sql)
        USING path, lookup_type, l.delimiter;
    GET DIAGNOSTICS n = ROW_COUNT;
    EXECUTE format('SELECT d.id, l.doc OPERATOR(pg_catalog.->>) ''ref'' AS ref FROM %s AS d JOIN %s AS l
            ON l.id OPERATOR(pg_catalog.=) ($2 OPERATOR(pg_catalog.||) $3 OPERATOR(pg_catalog.||) (d.doc OPERATOR(pg_catalog.#>>) $1))
        WHERE pg_catalog.jsonb_typeof(d.doc OPERATOR(pg_catalog.#>) $1) IN (''string'', ''number'', ''boolean'')
          AND %s AND l.doc OPERATOR(pg_catalog.->>) ''ref'' IS DISTINCT FROM d.id LIMIT 1',
        docmodel._rel_sql(coll), docmodel._rel_sql(lc), type_sql)
        INTO dup USING path, lookup_type, l.delimiter;
    IF dup IS NOT NULL AND dup.id IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = '23505',
            MESSAGE = format('a lookup document of lookup "%s" names another document than "%s"', lookup_type, dup.id),
            DETAIL = format('It names "%s".', dup.ref);
    END IF;
    RETURN n;
END
$$;
COMMENT ON FUNCTION docmodel.create_lookup(regclass, text, text[], text, regclass) IS
    'docmodel: keep lookup documents <lookup_type><delimiter><value> -> {"ref": key} for the value at path of the documents of coll (of doc_type only, when given), in coll or in lookup_coll; returns how many documents were indexed';

CREATE FUNCTION docmodel._lookup_coll(coll regclass, lookup_type text) RETURNS regclass
    AS 'MODULE_PATHNAME', 'mapping_lookup_coll'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel._lookup_coll(regclass, text) IS
    'docmodel internal: the collection holding the lookup documents of a lookup of coll (as its trigger names it); NULL without that lookup';

CREATE FUNCTION docmodel.drop_lookup(coll regclass, lookup_type text) RETURNS boolean
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    lc regclass;
BEGIN
    PERFORM docmodel._require_collection(coll);
    lc := docmodel._lookup_coll(coll, lookup_type);
    IF lc IS NULL THEN
        RETURN false;
    END IF;
    EXECUTE format('DROP TRIGGER %I ON %s', 'docmodel_lookup_' || lookup_type, docmodel._rel_sql(coll));
    -- a lookup collection dropped since took its lookup documents with it
    IF EXISTS (SELECT FROM pg_class r WHERE r.oid = lc)
            AND EXISTS (SELECT FROM docmodel.collection_config c WHERE c.coll = lc) THEN
        EXECUTE format('DELETE FROM %s AS d WHERE pg_catalog.starts_with(d.id, $1 OPERATOR(pg_catalog.||) $2)
            AND d.doc OPERATOR(pg_catalog.?) ''ref''', docmodel._rel_sql(lc))
            USING lookup_type, (SELECT c.delimiter FROM docmodel.collection_config c WHERE c.coll = lc);
    END IF;
    RETURN true;
END
$$;
COMMENT ON FUNCTION docmodel.drop_lookup(regclass, text) IS
    'docmodel: stop keeping a lookup and delete its lookup documents; false when there was none';

CREATE FUNCTION docmodel.get_by(coll regclass, lookup_type text, value text) RETURNS jsonb
    AS 'MODULE_PATHNAME', 'mapping_get_by'
    LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION docmodel.get_by(regclass, text, text) IS
    'docmodel: the document a lookup value names (NULL when none), both read as get() reads them, the lookup document from the lookup''s collection';

-- Copies and aggregates (src/copy.c): denormalized copies of source
-- documents' members kept in step in the documents that refer to them, and
-- aggregates of the referring documents kept in the documents they refer
-- to, declared once as rules (docmodel.copy_rules) and kept by row triggers.
CREATE FUNCTION docmodel.ref_keys(doc jsonb, path text) RETURNS text[]
    AS 'MODULE_PATHNAME', 'copy_ref_keys'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.ref_keys(jsonb, text) IS
    'docmodel: the distinct keys (strings and numbers) doc holds at path, a JSON Pointer with * for every element of an array, sorted; the expression of the copy and aggregate rules'' GIN indexes';

CREATE FUNCTION docmodel.copy_values(source_doc jsonb, fields jsonb) RETURNS jsonb
    AS 'MODULE_PATHNAME', 'copy_values'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.copy_values(jsonb, jsonb) IS
    'docmodel: the members a copy rule with these fields copies from source_doc';

CREATE FUNCTION docmodel._copy_put(doc jsonb, path text, ref text, key text, vals jsonb, how text)
    RETURNS jsonb
    AS 'MODULE_PATHNAME', 'copy_put'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel._copy_put(jsonb, text, text, text, jsonb, text) IS
    'docmodel internal: doc with the members of vals set, removed or nulled (how) in every object at path whose member ref holds key';

CREATE FUNCTION docmodel._copy_put_at(doc jsonb, path text, value jsonb) RETURNS jsonb
    AS 'MODULE_PATHNAME', 'copy_put_at'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel._copy_put_at(jsonb, text, jsonb) IS
    'docmodel internal: doc with value at path, the objects on the way made when missing';

CREATE FUNCTION docmodel._copy_add_at(doc jsonb, path text, delta numeric) RETURNS jsonb
    AS 'MODULE_PATHNAME', 'copy_add_at'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel._copy_add_at(jsonb, text, numeric) IS
    'docmodel internal: doc with the number at path increased by delta (anything else there counts as 0)';

/*
 * The rules. kind copy: each document of coll holds at path (a JSON
 * Pointer, * for every element of an array) objects whose member ref is
 * the key of a document of source; fields (member -> pointer, or array of
 * pointers and strings joined) are copied from it. kind aggregate: each
 * document of coll holds at path the aggregate agg of the documents of
 * source whose references at pointer ref (* allowed) hold its key.
 * Written only by _copy_rule_write (catalog.c), which checks the caller
 * owns the collections.
 */
CREATE TABLE docmodel.copy_rules (
    id         serial PRIMARY KEY,
    coll       regclass NOT NULL,
    path       text NOT NULL CHECK (path OPERATOR(pg_catalog.~~) '/%'),
    source     regclass NOT NULL,
    kind       text NOT NULL CHECK (kind OPERATOR(pg_catalog.=) ANY (ARRAY['copy', 'aggregate'])),
    ref        text NOT NULL CHECK (ref OPERATOR(pg_catalog.<>) ''),
    fields     jsonb CHECK ((kind OPERATOR(pg_catalog.=) 'copy') OPERATOR(pg_catalog.=)
                   (pg_catalog.jsonb_typeof(fields) IS NOT DISTINCT FROM 'object')),
    agg        text CHECK ((kind OPERATOR(pg_catalog.=) 'aggregate') OPERATOR(pg_catalog.=)
                   (agg OPERATOR(pg_catalog.~) '^(count|keys|(sum|min|max):/.*)$')),
    on_missing text CHECK (on_missing OPERATOR(pg_catalog.=) ANY (ARRAY['keep', 'null', 'remove', 'refuse'])),
    mode       text NOT NULL DEFAULT 'sync' CHECK (mode OPERATOR(pg_catalog.=) ANY (ARRAY['sync', 'deferred'])
                   AND (mode OPERATOR(pg_catalog.=) 'sync' OR kind OPERATOR(pg_catalog.=) 'copy')),
    created_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    UNIQUE (coll, path)
);
COMMENT ON TABLE docmodel.copy_rules IS
    'docmodel: the copy and aggregate rules: the documents of coll hold at path copies of, or an aggregate over, documents of source';
SELECT pg_catalog.pg_extension_config_dump('docmodel.copy_rules', '');
SELECT pg_catalog.pg_extension_config_dump('docmodel.copy_rules_id_seq', '');
GRANT SELECT ON docmodel.copy_rules TO PUBLIC;

CREATE FUNCTION docmodel._copy_rule_write(op text, coll regclass, path text,
    source regclass, kind text, ref text, fields jsonb, agg text,
    on_missing text, mode text) RETURNS integer
    AS 'MODULE_PATHNAME', 'copy_rule_write'
    LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION docmodel._copy_rule_write(text, regclass, text, regclass, text, text, jsonb, text, text, text) IS
    'docmodel internal: record (create) or forget (drop) a copy or aggregate rule, checking the caller owns the collections';

CREATE FUNCTION docmodel._copy_rules_changed() RETURNS trigger
    AS 'MODULE_PATHNAME', 'copy_rules_changed'
    LANGUAGE C;
COMMENT ON FUNCTION docmodel._copy_rules_changed() IS
    'docmodel internal: statement trigger: invalidate every backend''s copy and aggregate statements when a rule changes';
CREATE TRIGGER copy_rules_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
    ON docmodel.copy_rules FOR EACH STATEMENT EXECUTE FUNCTION docmodel._copy_rules_changed();

CREATE FUNCTION docmodel._copy_source_trigger() RETURNS trigger
    AS 'MODULE_PATHNAME', 'copy_source_trigger'
    LANGUAGE C;
COMMENT ON FUNCTION docmodel._copy_source_trigger() IS
    'docmodel internal: the row trigger of a copy rule on its source collection: rewrites the copies in the documents referring to a written document';
CREATE FUNCTION docmodel._copy_fill_trigger() RETURNS trigger
    AS 'MODULE_PATHNAME', 'copy_fill_trigger'
    LANGUAGE C;
COMMENT ON FUNCTION docmodel._copy_fill_trigger() IS
    'docmodel internal: the row trigger of a copy rule on the referring collection: fills a written document''s copies from their sources';
CREATE FUNCTION docmodel._aggregate_trigger() RETURNS trigger
    AS 'MODULE_PATHNAME', 'copy_aggregate_trigger'
    LANGUAGE C;
COMMENT ON FUNCTION docmodel._aggregate_trigger() IS
    'docmodel internal: the row triggers of an aggregate rule: computes again the aggregates of the documents a written document refers to (AFTER), and a new document''s own (BEFORE INSERT)';

-- The aggregate expression of agg over the referring documents (alias b).
CREATE FUNCTION docmodel._aggregate_expr(agg text) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ptr text;
    num text;
BEGIN
    IF agg OPERATOR(pg_catalog.=) 'count' THEN
        RETURN 'pg_catalog.to_jsonb(pg_catalog.count(*))';
    ELSIF agg OPERATOR(pg_catalog.=) 'keys' THEN
        RETURN 'pg_catalog.to_jsonb(COALESCE(pg_catalog.array_agg(b.id ORDER BY b.id), ''{}''::pg_catalog.text[]))';
    ELSIF agg OPERATOR(pg_catalog.~) '^(sum|min|max):/' THEN
        ptr := pg_catalog.substr(agg, 5);
        PERFORM docmodel.ref_keys('{}', ptr);
        num := pg_catalog.format('CASE WHEN pg_catalog.jsonb_typeof(b.doc OPERATOR(pg_catalog.#>) %1$L::pg_catalog.text[]) '
            'OPERATOR(pg_catalog.=) ''number'' THEN (b.doc OPERATOR(pg_catalog.#>>) %1$L::pg_catalog.text[])::pg_catalog.numeric END',
            ARRAY(SELECT pg_catalog.replace(pg_catalog.replace(t.t, '~1', '/'), '~0', '~')
                  FROM pg_catalog.unnest(pg_catalog.string_to_array(pg_catalog.substr(ptr, 2), '/')) WITH ORDINALITY AS t(t, n)
                  ORDER BY t.n)::text);
        IF pg_catalog.left(agg, 3) OPERATOR(pg_catalog.=) 'sum' THEN
            RETURN pg_catalog.format('pg_catalog.to_jsonb(COALESCE(pg_catalog.sum(%s), 0::pg_catalog.numeric))', num);
        END IF;
        -- the function's name from a fixed list, never the rule's text
        RETURN pg_catalog.format('COALESCE(pg_catalog.to_jsonb(%s(%s)), ''null''::pg_catalog.jsonb)',
            CASE pg_catalog.left(agg, 3) WHEN 'min' THEN 'pg_catalog.min' ELSE 'pg_catalog.max' END, num);
    END IF;
    RAISE EXCEPTION USING ERRCODE = '22023',
        MESSAGE = pg_catalog.format('unknown aggregate "%s"', agg),
        HINT = 'The aggregates are count, keys, sum:/pointer, min:/pointer and max:/pointer.';
END
$$;
COMMENT ON FUNCTION docmodel._aggregate_expr(text) IS
    'docmodel internal: the SQL expression of an aggregate rule''s aggregate over the referring documents';

-- The expression index on the references at refpath of coll: made when
-- missing (make), dropped when no rule uses it any more (not make).
CREATE FUNCTION docmodel._copy_index(coll regclass, refpath text, make boolean) RETURNS void
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    name text := pg_catalog.left((SELECT c.relname FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) coll), 40)
        OPERATOR(pg_catalog.||) '_ref_' OPERATOR(pg_catalog.||) pg_catalog.left(pg_catalog.md5(refpath), 8);
BEGIN
    IF make THEN
        IF EXISTS (SELECT FROM pg_catalog.pg_class i JOIN pg_catalog.pg_class c
                   ON c.relnamespace OPERATOR(pg_catalog.=) i.relnamespace
                   WHERE c.oid OPERATOR(pg_catalog.=) coll AND i.relname OPERATOR(pg_catalog.=) name) THEN
            RETURN;  -- another rule's, on the same references
        END IF;
        -- without a pending list: every write of a rule looks up through it
        EXECUTE pg_catalog.format('CREATE INDEX %I ON %s USING gin (docmodel.ref_keys(doc, %L)) '
            'WITH (fastupdate = off)',
            name, coll, refpath);
    ELSIF NOT EXISTS (SELECT FROM docmodel.copy_rules r
            WHERE (r.kind OPERATOR(pg_catalog.=) 'copy' AND r.coll OPERATOR(pg_catalog.=) _copy_index.coll
                   AND r.path OPERATOR(pg_catalog.||) '/' OPERATOR(pg_catalog.||)
                       pg_catalog.replace(pg_catalog.replace(r.ref, '~', '~0'), '/', '~1') OPERATOR(pg_catalog.=) refpath)
               OR (r.kind OPERATOR(pg_catalog.=) 'aggregate' AND r.source OPERATOR(pg_catalog.=) _copy_index.coll
                   AND r.ref OPERATOR(pg_catalog.=) refpath)) THEN
        EXECUTE pg_catalog.format('DROP INDEX IF EXISTS %I.%I',
            (SELECT n.nspname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
             WHERE c.oid OPERATOR(pg_catalog.=) coll), name);
    END IF;
END
$$;
COMMENT ON FUNCTION docmodel._copy_index(regclass, text, boolean) IS
    'docmodel internal: make, or drop when unused, the GIN index on docmodel.ref_keys(doc, refpath) of a collection';

CREATE FUNCTION docmodel._copy_check(coll regclass, path text, source_coll regclass, mode text)
    RETURNS void
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM docmodel._require_collection(coll);
    PERFORM docmodel._require_collection(source_coll);
    IF path IS NULL OR mode IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'path and mode must not be null';
    END IF;
    PERFORM docmodel.ref_keys('{}', path);
    IF NOT mode OPERATOR(pg_catalog.=) ANY (ARRAY['sync', 'deferred']) THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = pg_catalog.format('invalid mode "%s"', mode),
            HINT = 'mode is sync (kept in the writing transaction) or deferred (copies only: queued, applied by apply_copies).';
    END IF;
    IF docmodel._citus_distributed(coll) OR docmodel._citus_distributed(source_coll) THEN
        RAISE EXCEPTION USING ERRCODE = '0A000',
            MESSAGE = pg_catalog.format('cannot keep copies between %s and %s: one is distributed', coll, source_coll),
            DETAIL = 'The triggers of a rule write documents on other shards than the written one.';
    END IF;
END
$$;
COMMENT ON FUNCTION docmodel._copy_check(regclass, text, regclass, text) IS
    'docmodel internal: the checks create_copy and create_aggregate share';

CREATE FUNCTION docmodel.create_copy(coll regclass, path text, source_coll regclass, fields jsonb,
    ref text DEFAULT 'id', on_missing text DEFAULT 'keep', mode text DEFAULT 'sync')
    RETURNS bigint
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    id integer;
    refpath text;
    n bigint;
BEGIN
    PERFORM docmodel._copy_check(coll, path, source_coll, mode);
    IF fields IS NULL OR ref IS NULL OR ref OPERATOR(pg_catalog.=) '' THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'fields and ref must not be null or empty';
    END IF;
    PERFORM docmodel.copy_values('{}', fields);
    IF on_missing IS NULL OR NOT on_missing OPERATOR(pg_catalog.=) ANY (ARRAY['keep', 'null', 'remove', 'refuse']) THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = pg_catalog.format('invalid on_missing "%s"', on_missing),
            HINT = 'on_missing is keep, null, remove or refuse.';
    END IF;
    -- a copy of itself, or of a collection that copies from it (through
    -- others), would never settle
    IF coll OPERATOR(pg_catalog.=) source_coll OR EXISTS (
        WITH RECURSIVE up(rel) AS (
            SELECT r.source FROM docmodel.copy_rules r
            WHERE r.kind OPERATOR(pg_catalog.=) 'copy' AND r.coll OPERATOR(pg_catalog.=) source_coll
            UNION
            SELECT r.source FROM docmodel.copy_rules r JOIN up ON r.coll OPERATOR(pg_catalog.=) up.rel
            WHERE r.kind OPERATOR(pg_catalog.=) 'copy')
        SELECT FROM up WHERE up.rel OPERATOR(pg_catalog.=) coll) THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = pg_catalog.format('copies of %s into %s would form a cycle', source_coll, coll),
            DETAIL = pg_catalog.format('%s already copies from %s, directly or through other collections.', source_coll, coll);
    END IF;
    IF EXISTS (SELECT FROM docmodel.copy_rules r WHERE r.coll OPERATOR(pg_catalog.=) create_copy.coll
               AND r.path OPERATOR(pg_catalog.=) create_copy.path) THEN
        RAISE EXCEPTION USING ERRCODE = '42710',
            MESSAGE = pg_catalog.format('%s already has a rule at %s', coll, path);
    END IF;
    id := docmodel._copy_rule_write('create', coll, path, source_coll, 'copy', ref, fields, NULL, on_missing, mode);
    refpath := path OPERATOR(pg_catalog.||) '/' OPERATOR(pg_catalog.||)
        pg_catalog.replace(pg_catalog.replace(ref, '~', '~0'), '/', '~1');
    -- as the caller: a trigger takes the collection's ownership
    EXECUTE pg_catalog.format('CREATE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE ON %s '
        'FOR EACH ROW EXECUTE FUNCTION docmodel._copy_source_trigger(%L)',
        'docmodel_copy_' OPERATOR(pg_catalog.||) id, source_coll, id);
    EXECUTE pg_catalog.format('CREATE TRIGGER %I BEFORE INSERT OR UPDATE ON %s '
        'FOR EACH ROW EXECUTE FUNCTION docmodel._copy_fill_trigger(%L)',
        'docmodel_cfill_' OPERATOR(pg_catalog.||) id, coll, id);
    PERFORM docmodel._copy_index(coll, refpath, true);
    -- the documents there already: their copies filled by the trigger
    EXECUTE pg_catalog.format('UPDATE %s AS c SET doc = c.doc WHERE docmodel.ref_keys(c.doc, %L) '
        'OPERATOR(pg_catalog.<>) ''{}''::pg_catalog.text[]', coll, refpath);
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n;
END
$$;
COMMENT ON FUNCTION docmodel.create_copy(regclass, text, regclass, jsonb, text, text, text) IS
    'docmodel: keep copies of source documents'' members (fields) in the objects at path of coll''s documents that refer to them (member ref); returns how many documents were filled';

CREATE FUNCTION docmodel.create_aggregate(coll regclass, path text, source_coll regclass,
    ref_path text, agg text DEFAULT 'count', mode text DEFAULT 'sync')
    RETURNS bigint
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    id integer;
BEGIN
    PERFORM docmodel._copy_check(coll, path, source_coll, mode);
    IF mode OPERATOR(pg_catalog.<>) 'sync' THEN
        RAISE EXCEPTION USING ERRCODE = '0A000',
            MESSAGE = pg_catalog.format('mode "%s" is not supported for aggregates', mode),
            DETAIL = 'Aggregates are kept in the writing transaction (mode sync).';
    END IF;
    IF ref_path IS NULL OR agg IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'ref_path and agg must not be null';
    END IF;
    PERFORM docmodel.ref_keys('{}', ref_path);
    PERFORM docmodel._aggregate_expr(agg);
    IF path OPERATOR(pg_catalog.~) '(^|/)\*(/|$)' THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = pg_catalog.format('the path of an aggregate names one member, not "%s"', path);
    END IF;
    IF EXISTS (SELECT FROM docmodel.copy_rules r WHERE r.coll OPERATOR(pg_catalog.=) create_aggregate.coll
               AND r.path OPERATOR(pg_catalog.=) create_aggregate.path) THEN
        RAISE EXCEPTION USING ERRCODE = '42710',
            MESSAGE = pg_catalog.format('%s already has a rule at %s', coll, path);
    END IF;
    id := docmodel._copy_rule_write('create', coll, path, source_coll, 'aggregate', ref_path, NULL, agg, NULL, mode);
    EXECUTE pg_catalog.format('CREATE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE ON %s '
        'FOR EACH ROW EXECUTE FUNCTION docmodel._aggregate_trigger(%L)',
        'docmodel_agg_' OPERATOR(pg_catalog.||) id, source_coll, id);
    -- a new document gets the aggregate of those already referring to it
    EXECUTE pg_catalog.format('CREATE TRIGGER %I BEFORE INSERT ON %s '
        'FOR EACH ROW EXECUTE FUNCTION docmodel._aggregate_trigger(%L)',
        'docmodel_afill_' OPERATOR(pg_catalog.||) id, coll, id);
    PERFORM docmodel._copy_index(source_coll, ref_path, true);
    RETURN docmodel.refresh_aggregate(coll, path);
END
$$;

CREATE FUNCTION docmodel.refresh_aggregate(coll regclass, path text) RETURNS bigint
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r docmodel.copy_rules;
    n bigint;
BEGIN
    SELECT * INTO r FROM docmodel.copy_rules c WHERE c.coll OPERATOR(pg_catalog.=) refresh_aggregate.coll
        AND c.path OPERATOR(pg_catalog.=) refresh_aggregate.path AND c.kind OPERATOR(pg_catalog.=) 'aggregate';
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = '42704',
            MESSAGE = pg_catalog.format('%s has no aggregate at %s', coll, path);
    END IF;
    -- as the caller (UPDATE on coll, SELECT on the source); the documents
    -- whose aggregate changes, in key order
    EXECUTE pg_catalog.format('UPDATE %1$s AS a SET doc = docmodel._copy_put_at(a.doc, %3$L, x.v) '
        'FROM (SELECT a2.id, (SELECT %5$s FROM %2$s AS b WHERE docmodel.ref_keys(b.doc, %4$L) '
        'OPERATOR(pg_catalog.@>) ARRAY[a2.id]::pg_catalog.text[]) AS v FROM %1$s AS a2 ORDER BY a2.id) AS x '
        'WHERE a.id OPERATOR(pg_catalog.=) x.id AND a.doc OPERATOR(pg_catalog.<>) docmodel._copy_put_at(a.doc, %3$L, x.v)',
        r.coll, r.source, r.path, r.ref, docmodel._aggregate_expr(r.agg));
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n;
END
$$;
COMMENT ON FUNCTION docmodel.refresh_aggregate(regclass, text) IS
    'docmodel: compute again from scratch the aggregate at path of every document of coll; returns how many documents changed';
COMMENT ON FUNCTION docmodel.create_aggregate(regclass, text, regclass, text, text, text) IS
    'docmodel: keep at path of each document of coll an aggregate (count, keys, sum/min/max:/pointer) of the documents of source_coll referring to it at ref_path; returns how many documents were filled';

-- Forget the rule of coll at path of kind kind: its triggers, its index
-- when no other rule uses it; false when there is none.
CREATE FUNCTION docmodel._drop_copy_rule(coll regclass, path text, kind text) RETURNS boolean
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r docmodel.copy_rules;
BEGIN
    SELECT * INTO r FROM docmodel.copy_rules c WHERE c.coll OPERATOR(pg_catalog.=) _drop_copy_rule.coll
        AND c.path OPERATOR(pg_catalog.=) _drop_copy_rule.path AND c.kind OPERATOR(pg_catalog.=) _drop_copy_rule.kind;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    PERFORM docmodel._copy_rule_write('drop', coll, path, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    IF kind OPERATOR(pg_catalog.=) 'copy' THEN
        EXECUTE pg_catalog.format('DROP TRIGGER IF EXISTS %I ON %s', 'docmodel_copy_' OPERATOR(pg_catalog.||) r.id, r.source);
        EXECUTE pg_catalog.format('DROP TRIGGER IF EXISTS %I ON %s', 'docmodel_cfill_' OPERATOR(pg_catalog.||) r.id, r.coll);
        PERFORM docmodel._copy_index(r.coll, r.path OPERATOR(pg_catalog.||) '/' OPERATOR(pg_catalog.||)
            pg_catalog.replace(pg_catalog.replace(r.ref, '~', '~0'), '/', '~1'), false);
    ELSE
        EXECUTE pg_catalog.format('DROP TRIGGER IF EXISTS %I ON %s', 'docmodel_agg_' OPERATOR(pg_catalog.||) r.id, r.source);
        EXECUTE pg_catalog.format('DROP TRIGGER IF EXISTS %I ON %s', 'docmodel_afill_' OPERATOR(pg_catalog.||) r.id, r.coll);
        PERFORM docmodel._copy_index(r.source, r.ref, false);
    END IF;
    RETURN true;
END
$$;
COMMENT ON FUNCTION docmodel._drop_copy_rule(regclass, text, text) IS
    'docmodel internal: forget a copy or aggregate rule, its triggers and its unused index';

-- Forget every rule collection coll is written or read by (drop_collection).
CREATE FUNCTION docmodel._drop_copy_rules_of(coll regclass) RETURNS void
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r record;
BEGIN
    FOR r IN SELECT c.coll, c.path, c.kind FROM docmodel.copy_rules c
             WHERE c.coll OPERATOR(pg_catalog.=) _drop_copy_rules_of.coll
                OR c.source OPERATOR(pg_catalog.=) _drop_copy_rules_of.coll
             ORDER BY c.id LOOP
        PERFORM docmodel._drop_copy_rule(r.coll, r.path, r.kind);
    END LOOP;
END
$$;
COMMENT ON FUNCTION docmodel._drop_copy_rules_of(regclass) IS
    'docmodel internal: forget the copy and aggregate rules a collection is written or read by';

CREATE FUNCTION docmodel.drop_copy(coll regclass, path text) RETURNS boolean
LANGUAGE sql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT docmodel._drop_copy_rule(coll, path, 'copy') $$;
COMMENT ON FUNCTION docmodel.drop_copy(regclass, text) IS
    'docmodel: stop keeping the copies at path of coll (they stay as they are); false when there was no such rule';

CREATE FUNCTION docmodel.drop_aggregate(coll regclass, path text) RETURNS boolean
LANGUAGE sql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT docmodel._drop_copy_rule(coll, path, 'aggregate') $$;
COMMENT ON FUNCTION docmodel.drop_aggregate(regclass, text) IS
    'docmodel: stop keeping the aggregate at path of coll (it stays as it is); false when there was no such rule';

-- Deferred copy rules (src/copy.c, src/copy_worker.c): a write of a source
-- queues its key instead of rewriting the referring documents;
-- apply_copies (or the background worker) rewrites them later, in batches.

/*
 * The source keys of deferred copy rules still to apply: one row per rule
 * and key (a source written again before it is applied queues nothing
 * more). Written by the rules' source triggers, apply_copies and
 * _copy_rule_write (drop), as the table's owner; read by nobody else
 * (docmodel.copy_lag shows the counts).
 */
CREATE TABLE docmodel.copy_queue (
    rule        integer NOT NULL,
    key         text NOT NULL,
    enqueued_at timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
    PRIMARY KEY (rule, key)
);
CREATE INDEX copy_queue_rule_enqueued_at_idx ON docmodel.copy_queue (rule, enqueued_at);
COMMENT ON TABLE docmodel.copy_queue IS
    'docmodel: the source keys whose copies a deferred copy rule has still to rewrite';
SELECT pg_catalog.pg_extension_config_dump('docmodel.copy_queue', '');

CREATE VIEW docmodel.copy_lag AS
SELECT r.id AS rule, r.coll, r.path, r.source,
       pg_catalog.count(q.key) AS queued,
       pg_catalog.min(q.enqueued_at) AS oldest,
       pg_catalog.clock_timestamp() OPERATOR(pg_catalog.-) pg_catalog.min(q.enqueued_at) AS age
FROM docmodel.copy_rules r
LEFT JOIN docmodel.copy_queue q ON q.rule OPERATOR(pg_catalog.=) r.id
WHERE r.mode OPERATOR(pg_catalog.=) 'deferred'
GROUP BY r.id, r.coll, r.path, r.source;
COMMENT ON VIEW docmodel.copy_lag IS
    'docmodel: per deferred copy rule, how many source keys are queued, since when and how long ago';
GRANT SELECT ON docmodel.copy_lag TO PUBLIC;

CREATE FUNCTION docmodel._apply_copies_batch(rule integer, batch_size integer) RETURNS bigint
    AS 'MODULE_PATHNAME', 'copy_apply_copies_batch'
    LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION docmodel._apply_copies_batch(integer, integer) IS
    'docmodel internal: apply up to batch_size queued keys of a deferred copy rule (skipping those another transaction holds); returns how many';

CREATE PROCEDURE docmodel.apply_copies(coll regclass, batch_size integer DEFAULT 1000)
    AS 'MODULE_PATHNAME', 'copy_apply_copies'
    LANGUAGE C;
COMMENT ON PROCEDURE docmodel.apply_copies(regclass, integer) IS
    'docmodel: rewrite the copies the deferred copy rules of coll have queued, batch by batch (batch_size source keys), committing after each; resumable';
