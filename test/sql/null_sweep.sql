-- Every function of schema docmodel, called by a role with no privileges
-- but on its own objects: with every argument NULL, with each argument NULL
-- in turn, and with each argument set in turn to edge values of its type
-- (empty, huge, negative, the extremes, another role's table, a catalog).
-- No call may crash the server or raise an internal error (class XX), and
-- none may run past statement_timeout. Each call is its own statement (a DO
-- block from \gexec); the outcomes are logged, only the offending ones shown.
SET client_min_messages = warning;
CREATE ROLE sweeper;
GRANT CREATE ON SCHEMA public TO sweeper;
SELECT docmodel.create_collection('sweep_victim', revisions => 2);
INSERT INTO sweep_victim (id, doc, cas) VALUES ('user::1', '{"n": 1}', 0);

CREATE TEMP TABLE sweep_value (typ regtype, typical boolean, val text);
INSERT INTO sweep_value VALUES
  ('regclass', true, $$'sweep'::regclass$$),
  ('regclass', false, $$'sweep_victim'::regclass$$),
  ('regclass', false, $$'sweep_plain'::regclass$$),
  ('regclass', false, $$'pg_catalog.pg_class'::regclass$$),
  ('regclass', false, $$'docmodel.collection_config'::regclass$$),
  ('regclass', false, $$0::oid::regclass$$),
  ('text', true, $$'user::1'$$),
  ('text', false, $$''$$),
  ('text', false, $$'::'$$),
  ('text', false, $$E'\\'$$),
  ('text', false, $$repeat('a', 20000)$$),
  ('text', false, $$'sweep'$$),
  ('text', false, $$'create'$$),
  ('text', false, $$'part'$$),
  ('text', false, $$'project'$$),
  ('name', true, $$'id'$$),
  ('name', false, $$''$$),
  ('jsonb', true, $${}'::jsonb$$),
  ('jsonb', false, $$'null'::jsonb$$),
  ('jsonb', false, $$'[]'::jsonb$$),
  ('jsonb', false, $$'"s"'::jsonb$$),
  ('jsonb', false, $$'-1'::jsonb$$),
  ('jsonb', false, $$'[null, {}]'::jsonb$$),
  ('jsonb', false, $${"a": [1, {"b": null}], "_type": "user", "_ver": 1}'::jsonb$$),
  ('jsonb', false, $$'[{"op": "copy", "from": "", "path": "/b"}]'::jsonb$$),
  ('jsonb', false, $$'[{"coll": "sweep_victim", "id": 1, "revisions_table": "sweep_plain"}]'::jsonb$$),
  ('jsonb', false, $$'[{"op": "get", "path": "a"}]'::jsonb$$),
  ('integer', true, $$1$$),
  ('integer', false, $$0$$),
  ('integer', false, $$-1$$),
  ('integer', false, $$2147483647$$),
  ('integer', false, $$-2147483648$$),
  ('bigint', true, $$1$$),
  ('bigint', false, $$0$$),
  ('bigint', false, $$-1$$),
  ('bigint', false, $$9223372036854775807$$),
  ('bigint', false, $$-9223372036854775808$$),
  ('boolean', true, $$true$$),
  ('boolean', false, $$false$$),
  ('text[]', true, $${a}'::text[]$$),
  ('text[]', false, $${}'::text[]$$),
  ('text[]', false, $${NULL}'::text[]$$),
  ('text[]', false, $${"",""}'::text[]$$),
  ('text[]', false, $$array_fill('x'::text, ARRAY[10000])$$),
  ('docmodel.version', true, $$'1'::docmodel.version$$),
  ('docmodel.version', false, $$'0'::docmodel.version$$),
  ('docmodel.version', false, $$'65535.65535.65535'::docmodel.version$$),
  ('"any"', true, $$1$$),
  ('"any"', false, $$'x'::text$$),
  ('"any"', false, $$'-1 day'::interval$$),
  ('"any"', false, $$9223372036854775807$$),
  ('regprocedure', true, $$'pg_catalog.lower(text)'::regprocedure$$),
  ('oid', true, $$'sweep'::regclass::oid$$),
  ('oid', false, $$0::oid$$),
  ('regnamespace', true, $$'public'::regnamespace$$),
  ('timestamp with time zone', true, $$'2024-01-01 00:00:00+00'::timestamptz$$),
  ('timestamp with time zone', false, $$'infinity'::timestamptz$$),
  ('timestamp with time zone', false, $$'-infinity'::timestamptz$$),
  ('interval', true, $$'1 second'::interval$$),
  ('interval', false, $$'-1 day'::interval$$),
  ('interval', false, $$'178000000 years'::interval$$),
  ('cstring', true, $$'1'::cstring$$),
  ('cstring', false, $$''::cstring$$);
-- typical values given as untyped literals get their type's cast
UPDATE sweep_value SET val = '''' || val WHERE val LIKE '{%' OR val LIKE '[%';

-- The calls: per function, every argument NULL; each in turn NULL; each in
-- turn an edge value (the others typical).
CREATE TEMP TABLE sweep_call (n serial, fn regprocedure, sql text);
CREATE FUNCTION pg_temp.sweep_sql(p oid, args text[]) RETURNS text LANGUAGE sql AS $$
  SELECT CASE
    WHEN pr.prokind = 'p' THEN format('CALL %s(%s)', pr.oid::regproc, array_to_string(args, ', '))
    WHEN pr.prokind = 'a' THEN format('SELECT %s(x) FROM (VALUES (%s)) AS v(x)', pr.oid::regproc, args[1])
    ELSE format('SELECT * FROM %s(%s)', pr.oid::regproc, array_to_string(args, ', ')) END
  FROM pg_proc pr WHERE pr.oid = p $$;
CREATE FUNCTION pg_temp.sweep_arg(t regtype, val text) RETURNS text LANGUAGE sql AS $$
  SELECT CASE WHEN t = '"any"'::regtype THEN coalesce(val, 'NULL::integer')
              ELSE format('(%s)::%s', coalesce(val, 'NULL'), t) END $$;
WITH f AS (
  SELECT p.oid, ARRAY(SELECT unnest(p.proargtypes::regtype[])) AS types, p.pronargs AS n
  FROM pg_proc p
  WHERE p.pronamespace = 'docmodel'::regnamespace
    AND NOT ('internal'::regtype = ANY (p.proargtypes::regtype[]))
), typical AS (
  SELECT f.oid, array_agg(pg_temp.sweep_arg(t.typ,
           (SELECT v.val FROM sweep_value v WHERE v.typ = t.typ AND v.typical)) ORDER BY t.i) AS args
  FROM f CROSS JOIN LATERAL unnest(f.types) WITH ORDINALITY AS t(typ, i)
  GROUP BY f.oid
)
INSERT INTO sweep_call (fn, sql)
SELECT f.oid, pg_temp.sweep_sql(f.oid, coalesce(
  (SELECT array_agg(pg_temp.sweep_arg(t, NULL)) FROM unnest(f.types) t), '{}'))
FROM f
UNION ALL
SELECT f.oid, pg_temp.sweep_sql(f.oid, ty.args[:i - 1] || pg_temp.sweep_arg(f.types[i], v.val) || ty.args[i + 1:])
FROM f JOIN typical ty USING (oid)
CROSS JOIN LATERAL generate_subscripts(f.types, 1) AS i
CROSS JOIN LATERAL (SELECT NULL::text AS val
                    UNION ALL SELECT v.val FROM sweep_value v WHERE v.typ = f.types[i]) AS v;
SELECT count(*) > 3000 AS many_calls, count(DISTINCT fn) > 150 AS most_functions FROM sweep_call;

CREATE TEMP TABLE sweep_log (n integer, state text, msg text);
GRANT SELECT ON sweep_call TO sweeper;
GRANT INSERT ON sweep_log TO sweeper;
CREATE FUNCTION pg_temp.sweep_one(k integer) RETURNS void LANGUAGE plpgsql AS $$
DECLARE st text; msg text; q text;
BEGIN
  SELECT c.sql INTO q FROM sweep_call c WHERE c.n = k;
  BEGIN
    EXECUTE q;
    INSERT INTO sweep_log VALUES (k, 'ok', NULL);
  EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
    INSERT INTO sweep_log VALUES (k, st, msg);
  END;
END $$;

SET ROLE sweeper;
CREATE TABLE sweep_plain (id integer PRIMARY KEY, v text);
SELECT docmodel.create_collection('sweep', revisions => 2);
INSERT INTO sweep (id, doc, cas) VALUES ('user::1', '{"n": 1}', 0);
SET statement_timeout = '20s';
-- (the calls' own notices and warnings, and their echo, are not shown: an
-- error escaping a call's block, a crash or a timeout still is)
SET client_min_messages = error;
\set ECHO none
SELECT format('DO $sweep$ BEGIN PERFORM pg_temp.sweep_one(%s); END $sweep$', n)
FROM sweep_call ORDER BY n \gexec
\set ECHO all
SET client_min_messages = warning;
RESET statement_timeout;

-- docmodel's trigger functions on a table of the caller's, fired as they
-- were not made to be: 39P01 (or the refusal of a table that is not the
-- trigger's own), never an internal error.
\i test/sql/include/try.sql
CREATE TABLE sweep_trig (id text PRIMARY KEY, doc jsonb, cas bigint, expires_at timestamptz);
CREATE TRIGGER a AFTER INSERT ON sweep_trig FOR EACH STATEMENT
  EXECUTE FUNCTION docmodel.collection_trigger();
SELECT pg_temp.try($$INSERT INTO sweep_trig VALUES ('user::1', '{}', 0)$$);
DROP TRIGGER a ON sweep_trig;
CREATE TRIGGER a AFTER INSERT ON sweep_trig FOR EACH STATEMENT
  EXECUTE FUNCTION docmodel.collection_trigger('2147483647');
SELECT pg_temp.try($$INSERT INTO sweep_trig VALUES ('user::1', '{}', 0)$$);
DROP TRIGGER a ON sweep_trig;
CREATE TRIGGER a BEFORE INSERT ON sweep_trig FOR EACH ROW
  EXECUTE FUNCTION docmodel.collection_trigger('x');
SELECT pg_temp.try($$INSERT INTO sweep_trig VALUES ('user::1', '{}', 0)$$);
DROP TRIGGER a ON sweep_trig;
CREATE TRIGGER a AFTER INSERT ON sweep_trig FOR EACH STATEMENT
  EXECUTE FUNCTION docmodel.counter_state_guard();
SELECT pg_temp.try($$INSERT INTO sweep_trig VALUES ('user::1', '{}', 0)$$);
DROP TRIGGER a ON sweep_trig;
CREATE TRIGGER a AFTER INSERT ON sweep_trig FOR EACH ROW
  EXECUTE FUNCTION docmodel._lookup_trigger();
SELECT pg_temp.try($$INSERT INTO sweep_trig VALUES ('user::1', '{}', 0)$$);
DROP TRIGGER a ON sweep_trig;
CREATE TRIGGER a AFTER INSERT ON sweep_trig FOR EACH ROW
  EXECUTE FUNCTION docmodel._projection_trigger();
SELECT pg_temp.try($$INSERT INTO sweep_trig VALUES ('user::1', '{}', 0)$$);
DROP TRIGGER a ON sweep_trig;
CREATE TRIGGER a AFTER INSERT ON sweep_trig FOR EACH ROW
  EXECUTE FUNCTION docmodel._collection_config_changed();
SELECT pg_temp.try($$INSERT INTO sweep_trig VALUES ('user::1', '{}', 0)$$);
DROP TABLE sweep_trig;
RESET ROLE;

-- Internal errors (and any call not logged: it escaped its block).
SELECT c.sql, l.state, l.msg
FROM sweep_call c LEFT JOIN sweep_log l USING (n)
WHERE l.n IS NULL OR l.state LIKE 'XX%'
ORDER BY c.n;
-- The victim's document and history are untouched.
SELECT id, doc->>'n' AS n FROM sweep_victim;

DROP TABLE sweep_plain, sweep CASCADE;
SELECT docmodel.drop_collection('sweep_victim');
REVOKE CREATE ON SCHEMA public FROM sweeper;
DROP OWNED BY sweeper;
DROP ROLE sweeper;
