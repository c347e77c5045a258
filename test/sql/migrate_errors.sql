-- Migration errors say where: whatever its
-- SQLSTATE, an error raised while a migration works carries a context line
-- naming the step's index and op, the type and versions, the key and the
-- step's JSON Pointer; bulk runs record and raise it too. And pointers are
-- compared token by token: "/a" is no ancestor of "/ab".
\set SHOW_CONTEXT never
\i test/sql/include/try.sql

-- Run sql; show 'SQLSTATE: message' and the migration lines of the error's
-- context.
CREATE FUNCTION pg_temp.where_(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE st text; msg text; ctx text;
BEGIN
  EXECUTE sql;
  RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, ctx = PG_EXCEPTION_CONTEXT;
  RETURN st || ': ' || msg || coalesce(E'\n  ' || (SELECT string_agg(l, E'\n  ')
    FROM regexp_split_to_table(ctx, E'\n') AS l WHERE l LIKE 'migration %'), E'\n  (no context)');
END $$;

SELECT docmodel.create_collection('werr');

\echo == errors of any SQLSTATE raised inside a step name step, op, key and path
-- cast: numeric_in's own 22003 on a number too large
SELECT docmodel.register_migration('num', '1', '2', steps => '[
  {"op": "default", "path": "/note", "value": "x"},
  {"op": "cast", "path": "/n", "to": "number"}]');
SELECT pg_temp.where_($$SELECT docmodel.insert('werr', 'num::1', '{"_schema": "1", "n": "1e400000"}')$$);
SELECT pg_temp.where_($$SELECT docmodel.migrate('{"_type": "num", "_schema": "1", "n": "-1e-400000"}')$$);
-- inside a for_each: the step is "1.1" and the path the element's
SELECT docmodel.register_migration('cart', '1', '2', steps => '[
  {"op": "for_each", "path": "/items", "steps": [{"op": "cast", "path": "/qty", "to": "number"}]}]');
SELECT pg_temp.where_($$SELECT docmodel.insert('werr', 'cart::1', '{"_schema": "1", "items": [{"qty": "1"}, {"qty": "9e999999"}]}')$$);
-- the step's own errors (22000, 22007, 22008) carry the same context
SELECT docmodel.register_migration('ops', '1', '2', steps => '[
  {"op": "move", "from": "/a", "path": "/b"},
  {"op": "split", "path": "/name", "into": ["/first", "/last"]},
  {"op": "to_epoch", "path": "/at"},
  {"op": "from_epoch", "path": "/ts", "unit": "day"}]');
SELECT pg_temp.where_($$SELECT docmodel.insert('werr', 'ops::1', '{"_schema": "1"}')$$);
SELECT pg_temp.where_($$SELECT docmodel.insert('werr', 'ops::2', '{"_schema": "1", "a": 1, "name": 7}')$$);
SELECT pg_temp.where_($$SELECT docmodel.insert('werr', 'ops::3', '{"_schema": "1", "a": 1, "at": "soon"}')$$);
SELECT pg_temp.where_($$SELECT docmodel.insert('werr', 'ops::4', '{"_schema": "1", "a": 1, "ts": 1e12}')$$);
-- a function rule: its own error (22012) names the rule, the function and the key
CREATE FUNCTION werr_fn(doc jsonb) RETURNS jsonb LANGUAGE sql AS $$
  SELECT doc || jsonb_build_object('r', 1 / (doc->>'d')::int) $$;
SELECT docmodel.register_migration('fn', '1', '2', fn => 'werr_fn(jsonb)');
SELECT pg_temp.where_($$SELECT docmodel.insert('werr', 'fn::1', '{"_schema": "1", "d": 0}')$$);
-- get() names the key too; migrate() without a key names the rest
-- (an old document stored without the trigger, as a restore would)
SET session_replication_role = replica;
INSERT INTO werr (id, doc, cas) VALUES ('num::9', '{"_type": "num", "_schema": "1", "n": "1e400000"}', 1);
RESET session_replication_role;
SELECT pg_temp.where_($$SELECT docmodel.get('werr', 'num::9')$$);
SELECT pg_temp.where_($$SELECT * FROM docmodel.get_multi('werr', '{num::9}')$$);
-- a bulk run records where in its error and raises it with the context
SET client_min_messages = warning;
\set SHOW_CONTEXT always
CALL docmodel.migrate_collection('werr');
\set SHOW_CONTEXT never
RESET client_min_messages;
SELECT status, error FROM docmodel.migration_runs WHERE coll = 'werr'::regclass;
-- (the record goes, so later suites see no run of a dropped table)
DELETE FROM docmodel.migration_run WHERE coll = 'werr'::regclass;
DELETE FROM werr;

\echo == pointers compare token by token (finding 8)
-- a sibling is no child: "/ab", "/a~1b" (the key "a/b") next to "/a"
SELECT pg_temp.try($$SELECT docmodel.register_migration('ptr', '1', '2', steps => '[{"op": "nest", "paths": ["/a"], "into": "/ab"}]')$$);
SELECT docmodel.migrate('{"_type": "ptr", "_schema": "1", "a": 1, "b": 2}') - '_type' - '_schema' AS nested;
DELETE FROM docmodel.migration_rules WHERE doc_type = 'ptr';
SELECT pg_temp.try($$SELECT docmodel.register_migration('ptr', '1', '2', steps => '[{"op": "nest", "paths": ["/a"], "into": "/a~1b"}, {"op": "nest", "paths": ["/c~1d"], "into": "/c"}, {"op": "move", "from": "/x", "path": "/xy"}, {"op": "move", "from": "/p", "path": "/p~1q"}]')$$);
SELECT docmodel.migrate('{"_type": "ptr", "_schema": "1", "a": 1, "c/d": 2, "x": 3, "p": 4}') - '_type' - '_schema' AS moved;
DELETE FROM docmodel.migration_rules WHERE doc_type = 'ptr';
-- a child, or itself, is refused (22023)
SELECT pg_temp.try($$SELECT docmodel.register_migration('ptr', '1', '2', steps => '[{"op": "nest", "paths": ["/a"], "into": "/a/b"}]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('ptr', '1', '2', steps => '[{"op": "nest", "paths": ["/b", "/a"], "into": "/a"}]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('ptr', '1', '2', steps => '[{"op": "move", "from": "/a", "path": "/a/b/c"}]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('ptr', '1', '2', steps => '[{"op": "move", "from": "/a~1b", "path": "/a~1b/c"}]')$$);
-- patch() uses the same comparison
SELECT docmodel.patch('{"a": 1}', '[{"op": "move", "from": "/a", "path": "/ab"}]');
SELECT docmodel.patch('{"a": 1, "a/b": {}}', '[{"op": "move", "from": "/a", "path": "/a~1b/c"}]');
SELECT pg_temp.try($$SELECT docmodel.patch('{"a": {}}', '[{"op": "move", "from": "/a", "path": "/a/b"}]')$$);

SELECT docmodel.drop_collection('werr');
DELETE FROM docmodel.migration_rules WHERE doc_type IN ('num', 'cart', 'ops', 'fn', 'ptr');
DROP FUNCTION werr_fn(jsonb);
