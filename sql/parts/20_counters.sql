-------------------------------------------------------------------------------
-- Counters (src/counter/counter.c)
-------------------------------------------------------------------------------

-- One row per counter; non-gapless rows change in place (see src/counter/counter.c).
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


