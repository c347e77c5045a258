-- Schema versions and migrations (src/migrate/migrate.c): register_migration,
-- current_version, migrate() with every step op, migration_plan and
-- migrate_collection. Every error shows its SQLSTATE.
\set SHOW_CONTEXT never
\i test/sql/include/try.sql

-- Apply steps (one rule 1 -> 2 of type "optest") to a document; show the
-- result without the type and schema fields.
CREATE FUNCTION pg_temp.step(steps jsonb, doc jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM docmodel.migration_rules WHERE doc_type = 'optest';
  PERFORM docmodel.register_migration('optest', '1', '2', steps);
  RETURN docmodel.migrate(doc || '{"_type": "optest", "_schema": "1"}') - '_type' - '_schema';
END $$;
-- The same, returning the error as text.
CREATE FUNCTION pg_temp.step_err(steps text, doc text) RETURNS text LANGUAGE sql AS $$
  SELECT pg_temp.try(format('SELECT pg_temp.step(%L, %L)', steps, doc))
$$;

\echo == the seed: user 1.0 -> 2.0 (split name), 2.0 -> 3.0 (phone -> phones)
SELECT docmodel.current_version('user') AS before_any_rule;
SELECT docmodel.register_migration('user', '1.0', '2.0', steps => '[
  {"op": "split", "path": "/name", "into": ["/firstName", "/lastName"], "separator": " "}]');
SELECT docmodel.current_version('user');
SELECT docmodel.register_migration('user', '2.0', '3.0', steps => '[
  {"op": "wrap", "path": "/phone", "into": "/phones", "template": {"type": "other", "number": "$"}}]');
SELECT docmodel.current_version('user'), docmodel.current_version('nobody');
SELECT doc_type, from_version, to_version, steps IS NOT NULL AS has_steps, fn
FROM docmodel.migration_rules ORDER BY 1, 2;

-- 1.0 -> 3.0 through 2.0: both steps, and the version set.
SELECT docmodel.migrate('{"_type": "user", "_schema": "1.0", "name": "Joe Smith", "phone": "555-1234"}');
-- 2.0 -> 3.0.
SELECT docmodel.migrate('{"_type": "user", "_schema": "2.0", "firstName": "Ann", "lastName": "Lee", "phone": "555-9"}');
-- A target below current: 1.0 -> 2.0 only.
SELECT docmodel.migrate('{"_type": "user", "_schema": "1.0", "name": "Joe Smith", "phone": "555-1234"}', '2.0');
-- Already at the target: unchanged; past it: down (the way down of wrap).
SELECT docmodel.migrate('{"_type": "user", "_schema": "3.0", "phones": []}');
SELECT docmodel.migrate('{"_type": "user", "_schema": "3.0", "phones": []}', '2.0');
SELECT docmodel.migrate('{"_type": "user", "_schema": "1.0", "name": "A B"}', '1.0');
SELECT docmodel.migrate('{"_type": "user", "_schema": "4.0", "x": 1}');
-- Versions compare numerically: "3" is 3.0.
SELECT docmodel.migrate('{"_type": "user", "_schema": "3", "x": 1}');
-- A number as version, and no version at all (taken as the oldest, 1.0).
SELECT docmodel.migrate('{"_type": "user", "_schema": 2, "phone": "1"}');
SELECT docmodel.migrate('{"_type": "user", "name": "Cher"}');
-- No type, a type without migrations, not an object, NULL: unchanged.
SELECT docmodel.migrate('{"name": "Joe Smith"}'),
       docmodel.migrate('{"_type": "order", "_schema": "1.0"}'),
       docmodel.migrate('[1, 2]'), docmodel.migrate(NULL);
-- The meta styles: "meta": {"type", "schema"} and plain "type"/"schema".
SELECT docmodel.migrate('{"meta": {"type": "user", "schema": "1.0"}, "name": "Joe Smith"}');
SELECT docmodel.migrate('{"type": "user", "schema": "2.0", "phone": "7"}');
-- Errors: a bad version in the document, one no chain starts at, a target
-- no chain reaches.
SELECT pg_temp.try($$SELECT docmodel.migrate('{"_type": "user", "_schema": "one"}')$$);
SELECT pg_temp.try($$SELECT docmodel.migrate('{"_type": "user", "_schema": true}')$$);
SELECT pg_temp.try($$SELECT docmodel.migrate('{"_type": "user", "_schema": "1.5"}')$$);
SELECT pg_temp.try($$SELECT docmodel.migrate('{"_type": "user", "_schema": "1.0"}', '2.5')$$);
SELECT pg_temp.try($$SELECT docmodel.migrate('{"_type": "user", "_schema": "1.0"}', 'v2')$$);

\echo == the chain: prepend, replace, refuse forks and gaps
SELECT docmodel.register_migration('user', '0.9', '1.0', steps => '[{"op": "remove", "path": "/legacy"}]');
SELECT docmodel.migrate('{"_type": "user", "_schema": "0.9", "legacy": 1, "name": "Al Bo", "phone": "3"}');
-- Without a version a document is at the oldest version, now 0.9.
SELECT pg_temp.try($$SELECT docmodel.migrate('{"_type": "user", "name": "Al Bo"}')$$);
-- Registering the same rule again replaces its steps.
SELECT docmodel.register_migration('user', '0.9', '1.0', steps => '[{"op": "default", "path": "/legacy", "value": 0}, {"op": "remove", "path": "/legacy"}]');
SELECT docmodel.migrate('{"_type": "user", "name": "Al Bo"}');
SELECT pg_temp.try($$SELECT docmodel.register_migration('user', '1.0', '2.5', steps => '[]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('user', '4.0', '5.0', steps => '[]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('user', '0.5', '0.8', steps => '[]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('user', '3.0', '2.0', steps => '[]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('user', '3.0', '3.00', steps => '[]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('user', '3.0', '4.0')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('user', '3.0', '4.0', steps => '[]', fn => 'pg_catalog.jsonb_typeof(jsonb)')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('', '1', '2', steps => '[]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration(NULL, '1', '2', steps => '[]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('x', NULL, '2', steps => '[]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('x', '1..2', '2', steps => '[]')$$);
DELETE FROM docmodel.migration_rules WHERE doc_type = 'user' AND from_version::text = '0.9';
SELECT docmodel.current_version('user');

\echo == steps are checked when registered (22023 naming step and op)
SELECT pg_temp.try($$SELECT docmodel.register_migration('x', '1', '2', steps => '{"op": "add"}')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('x', '1', '2', steps => '[1]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('x', '1', '2', steps => '[{"path": "/a"}]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('x', '1', '2', steps => '[{"op": 1}]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('x', '1', '2', steps => '[{"op": "remove", "path": "/a"}, {"op": "rename", "path": "/a"}]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('x', '1', '2', steps => '[{"op": "add", "path": "/a"}]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('x', '1', '2', steps => '[{"op": "remove"}]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('x', '1', '2', steps => '[{"op": "remove", "path": "/a", "value": 1}]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('x', '1', '2', steps => '[{"op": "remove", "path": "a"}]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('x', '1', '2', steps => '[{"op": "remove", "path": "/a~2"}]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('x', '1', '2', steps => '[{"op": "remove", "path": 7}]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('x', '1', '2', steps => '[{"op": "replace", "path": "", "value": {}}]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('x', '1', '2', steps => '[{"op": "move", "from": "/a", "path": "/a/b"}]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('x', '1', '2', steps => '[{"op": "copy", "path": "/b"}]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('x', '1', '2', steps => '[{"op": "split", "path": "/a", "into": "/b"}]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('x', '1', '2', steps => '[{"op": "split", "path": "/a", "into": []}]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('x', '1', '2', steps => '[{"op": "split", "path": "/a", "into": ["/b"], "separator": ""}]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('x', '1', '2', steps => '[{"op": "join", "paths": ["/a", "/b"]}]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('x', '1', '2', steps => '[{"op": "cast", "path": "/a", "to": "date"}]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('x', '1', '2', steps => '[{"op": "to_epoch", "path": "/a", "unit": "week"}]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('x', '1', '2', steps => '[{"op": "nest", "paths": ["/a"], "into": "/a/b"}]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('x', '1', '2', steps => '[{"op": "for_each", "path": "/a", "steps": {}}]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('x', '1', '2', steps => '[{"op": "for_each", "path": "/a", "steps": [{"op": "cast", "path": "", "to": "number"}, {"op": "wrap"}]}]')$$);
SELECT count(*) AS rules_of_x FROM docmodel.migration_rules WHERE doc_type = 'x';

\echo == RFC 6902 ops
-- add: a key, an array position, the end of an array ("-"), nested
SELECT pg_temp.step('[{"op": "add", "path": "/b", "value": {"c": [1]}}]', '{"a": 1}');
SELECT pg_temp.step('[{"op": "add", "path": "/a/1", "value": "x"}, {"op": "add", "path": "/a/-", "value": "z"}, {"op": "add", "path": "/o/k", "value": true}]', '{"a": [1, 2], "o": {}}');
SELECT pg_temp.step('[{"op": "add", "path": "/a", "value": 2}]', '{"a": 1}');
SELECT pg_temp.step_err('[{"op": "add", "path": "/x/y", "value": 1}]', '{"a": 1}');
SELECT pg_temp.step_err('[{"op": "add", "path": "/a/5", "value": 1}]', '{"a": [1]}');
SELECT pg_temp.step_err('[{"op": "add", "path": "/a/b", "value": 1}]', '{"a": 1}');
-- remove
SELECT pg_temp.step('[{"op": "remove", "path": "/a"}, {"op": "remove", "path": "/b/0"}]', '{"a": 1, "b": [1, 2], "c": 3}');
SELECT pg_temp.step_err('[{"op": "remove", "path": "/nope"}]', '{"a": 1}');
-- replace
SELECT pg_temp.step('[{"op": "replace", "path": "/a/k", "value": [null]}]', '{"a": {"k": 1}}');
SELECT pg_temp.step_err('[{"op": "replace", "path": "/b", "value": 1}]', '{"a": 1}');
-- move
SELECT pg_temp.step('[{"op": "move", "from": "/a", "path": "/b/a"}]', '{"a": 1, "b": {}}');
SELECT pg_temp.step_err('[{"op": "move", "from": "/zz", "path": "/b"}]', '{"a": 1}');
-- copy (a deep copy: changing the copy leaves the source)
SELECT pg_temp.step('[{"op": "copy", "from": "/a", "path": "/b"}, {"op": "add", "path": "/b/y", "value": 2}]', '{"a": {"x": 1}}');
SELECT pg_temp.step_err('[{"op": "copy", "from": "/zz", "path": "/b"}]', '{"a": 1}');
-- test
SELECT pg_temp.step('[{"op": "test", "path": "/a", "value": {"x": [1, "s", null, true, 2.50]}}]', '{"a": {"x": [1, "s", null, true, 2.5]}}');
SELECT pg_temp.step_err('[{"op": "test", "path": "/a", "value": 2}]', '{"a": 1}');
SELECT pg_temp.step_err('[{"op": "test", "path": "/b", "value": 2}]', '{"a": 1}');

\echo == docmodel ops
-- default: added when missing, kept when present (even null)
SELECT pg_temp.step('[{"op": "default", "path": "/a", "value": 0}, {"op": "default", "path": "/b", "value": 0}, {"op": "default", "path": "/c", "value": 0}]', '{"a": 5, "c": null}');
SELECT pg_temp.step_err('[{"op": "default", "path": "/x/y", "value": 0}]', '{}');
-- split: the last target takes the rest; missing pieces stay absent;
-- a missing source is left alone
SELECT pg_temp.step('[{"op": "split", "path": "/name", "into": ["/firstName", "/lastName"]}]', '{"name": "Joe van Smith"}');
SELECT pg_temp.step('[{"op": "split", "path": "/name", "into": ["/firstName", "/lastName"]}]', '{"name": "Cher"}');
SELECT pg_temp.step('[{"op": "split", "path": "/d", "into": ["/y", "/m", "/d"], "separator": "-"}]', '{"d": "2024-01-31"}');
SELECT pg_temp.step('[{"op": "split", "path": "/name", "into": ["/firstName", "/lastName"]}]', '{"other": 1}');
SELECT pg_temp.step_err('[{"op": "split", "path": "/name", "into": ["/f", "/l"]}]', '{"name": 42}');
-- join: the inverse of split; absent or null parts are skipped
SELECT pg_temp.step('[{"op": "join", "paths": ["/firstName", "/lastName"], "into": "/name"}]', '{"firstName": "Joe", "lastName": "Smith"}');
SELECT pg_temp.step('[{"op": "join", "paths": ["/y", "/m", "/d"], "into": "/date", "separator": "-"}]', '{"y": 2024, "m": "01", "d": null}');
SELECT pg_temp.step('[{"op": "join", "paths": ["/a", "/b"], "into": "/c"}]', '{"x": 1}');
SELECT pg_temp.step_err('[{"op": "join", "paths": ["/a", "/b"], "into": "/c"}]', '{"a": "s", "b": {"x": 1}}');
-- split then join gives the original back
SELECT pg_temp.step('[{"op": "split", "path": "/n", "into": ["/a", "/b"]}, {"op": "join", "paths": ["/a", "/b"], "into": "/n"}]', '{"n": "Joe van Smith"}');
-- wrap: into another field with a template; in place without one
SELECT pg_temp.step('[{"op": "wrap", "path": "/phone", "into": "/phones", "template": {"type": "other", "number": "$", "tags": ["$"]}}]', '{"phone": "555"}');
SELECT pg_temp.step('[{"op": "wrap", "path": "/tag"}]', '{"tag": "a"}');
SELECT pg_temp.step('[{"op": "wrap", "path": "/phone", "into": "/phones"}]', '{"x": 1}');
SELECT pg_temp.step_err('[{"op": "wrap", "path": "/phone", "into": "/phones"}]', '{"phone": "1", "phones": []}');
-- cast
SELECT pg_temp.step('[{"op": "cast", "path": "/a", "to": "number"}, {"op": "cast", "path": "/b", "to": "string"}, {"op": "cast", "path": "/c", "to": "boolean"}, {"op": "cast", "path": "/d", "to": "boolean"}, {"op": "cast", "path": "/e", "to": "number"}, {"op": "cast", "path": "/f", "to": "string"}, {"op": "cast", "path": "/g", "to": "number"}]',
  '{"a": " 12.50 ", "b": 1e3, "c": "yes", "d": 0, "e": true, "f": false, "g": null}');
SELECT pg_temp.step_err('[{"op": "cast", "path": "/a", "to": "number"}]', '{"a": "12abc"}');
SELECT pg_temp.step_err('[{"op": "cast", "path": "/a", "to": "boolean"}]', '{"a": "maybe"}');
SELECT pg_temp.step_err('[{"op": "cast", "path": "/a", "to": "string"}]', '{"a": [1]}');
-- an absent path is left alone: the document comes back as it was
SELECT pg_temp.step('[{"op": "cast", "path": "/absent", "to": "number"}]', '{"a": 1}');
-- to_epoch / from_epoch with units
SELECT pg_temp.step('[{"op": "to_epoch", "path": "/ms"}, {"op": "to_epoch", "path": "/s", "unit": "s"}, {"op": "to_epoch", "path": "/day", "unit": "day"}, {"op": "to_epoch", "path": "/old", "unit": "h"}]',
  '{"ms": "2024-01-02T03:04:05.123Z", "s": "2024-01-02T03:04:05Z", "day": "2024-01-02", "old": "1969-12-31T23:30:00Z"}');
SELECT pg_temp.step('[{"op": "from_epoch", "path": "/ms"}, {"op": "from_epoch", "path": "/min", "unit": "min"}, {"op": "from_epoch", "path": "/n"}]',
  '{"ms": 1704164645123, "min": 28402744, "n": null}');
SELECT pg_temp.step('[{"op": "to_epoch", "path": "/t"}, {"op": "from_epoch", "path": "/t"}]', '{"t": "2020-02-29T12:00:00.5+02:00"}');
SELECT pg_temp.step_err('[{"op": "to_epoch", "path": "/t"}]', '{"t": "next tuesday"}');
SELECT pg_temp.step_err('[{"op": "to_epoch", "path": "/t"}]', '{"t": 17}');
SELECT pg_temp.step_err('[{"op": "from_epoch", "path": "/t"}]', '{"t": "17"}');
SELECT pg_temp.step_err('[{"op": "from_epoch", "path": "/t", "unit": "day"}]', '{"t": 1e12}');
-- strip_dashes
SELECT pg_temp.step('[{"op": "strip_dashes", "path": "/id"}]', '{"id": "23ad6bac-7599-4874-af98-7af734027e1d"}');
SELECT pg_temp.step_err('[{"op": "strip_dashes", "path": "/id"}]', '{"id": 12}');
-- nest: fields move under an object (created when needed); unnest: back out
SELECT pg_temp.step('[{"op": "nest", "paths": ["/street", "/city", "/zip"], "into": "/address"}]', '{"street": "Main St 1", "city": "Oslo", "name": "A"}');
SELECT pg_temp.step('[{"op": "nest", "paths": ["/city"], "into": "/address"}]', '{"city": "Oslo", "address": {"street": "x"}}');
SELECT pg_temp.step('[{"op": "nest", "paths": ["/city"], "into": "/address"}]', '{"name": "A"}');
SELECT pg_temp.step_err('[{"op": "nest", "paths": ["/city"], "into": "/address"}]', '{"city": "Oslo", "address": "x"}');
SELECT pg_temp.step('[{"op": "unnest", "path": "/address"}]', '{"address": {"street": "Main St 1", "city": "Oslo"}, "name": "A"}');
SELECT pg_temp.step('[{"op": "unnest", "path": "/a/b", "into": ""}]', '{"a": {"b": {"x": 1}, "c": 2}}');
SELECT pg_temp.step_err('[{"op": "unnest", "path": "/address"}]', '{"address": {"name": "B"}, "name": "A"}');
SELECT pg_temp.step_err('[{"op": "unnest", "path": "/address"}]', '{"address": [1]}');
-- for_each: nested steps on every element, paths relative to the element
SELECT pg_temp.step('[{"op": "for_each", "path": "/phones", "steps": [{"op": "strip_dashes", "path": "/number"}, {"op": "default", "path": "/type", "value": "other"}]}]',
  '{"phones": [{"number": "555-12-34"}, {"number": "555-9", "type": "home"}]}');
SELECT pg_temp.step('[{"op": "for_each", "path": "/ids", "steps": [{"op": "cast", "path": "", "to": "number"}]}]', '{"ids": ["1", "22"]}');
SELECT pg_temp.step_err('[{"op": "for_each", "path": "/phones", "steps": [{"op": "test", "path": "/type", "value": "home"}]}]',
  '{"phones": [{"type": "home"}, {"type": "work"}]}');
SELECT pg_temp.step_err('[{"op": "for_each", "path": "/phones", "steps": []}]', '{"phones": "555"}');
-- an empty steps list only bumps the version
SELECT pg_temp.step('[]', '{"a": 1}');
DELETE FROM docmodel.migration_rules WHERE doc_type = 'optest';

\echo == function steps, mixed with declarative ones in one chain
CREATE FUNCTION migrate_gadget_v2(doc jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT doc - 'size' || jsonb_build_object('dims', jsonb_build_object('w', doc->'size'->0, 'h', doc->'size'->1))
$$;
SELECT docmodel.register_migration('gadget', '1', '2', fn => 'migrate_gadget_v2(jsonb)');
SELECT docmodel.register_migration('gadget', '2', '3', steps => '[{"op": "nest", "paths": ["/price"], "into": "/offer"}]');
SELECT doc_type, from_version, to_version, fn FROM docmodel.migration_rules WHERE doc_type = 'gadget' ORDER BY 2;
SELECT docmodel.migrate('{"_type": "gadget", "_schema": "1", "size": [3, 4], "price": 9}');
CREATE FUNCTION migrate_bad_null(doc jsonb) RETURNS jsonb LANGUAGE sql AS $$ SELECT NULL::jsonb $$;
CREATE FUNCTION migrate_bad_array(doc jsonb) RETURNS jsonb LANGUAGE sql AS $$ SELECT '[1]'::jsonb $$;
CREATE FUNCTION migrate_bad_sig(doc json) RETURNS jsonb LANGUAGE sql AS $$ SELECT '{}'::jsonb $$;
SELECT pg_temp.try($$SELECT docmodel.register_migration('gadget', '3', '4', fn => 'migrate_bad_sig(json)')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('gadget', '3', '4', fn => 'jsonb_typeof(jsonb)')$$);
SELECT docmodel.register_migration('gadget', '3', '4', fn => 'migrate_bad_null(jsonb)');
SELECT pg_temp.try($$SELECT docmodel.migrate('{"_type": "gadget", "_schema": "3"}')$$);
SELECT docmodel.register_migration('gadget', '3', '4', fn => 'migrate_bad_array(jsonb)');
SELECT pg_temp.try($$SELECT docmodel.migrate('{"_type": "gadget", "_schema": "3"}')$$);
-- The rule pins its function: DROP fails (2BP01); with CASCADE the pin goes
-- and the rule fails (42883) until registered again.
SELECT pg_temp.try($$DROP FUNCTION migrate_bad_array(jsonb)$$);
DROP FUNCTION migrate_bad_array(jsonb) CASCADE;
SELECT pg_temp.try($$SELECT docmodel.migrate('{"_type": "gadget", "_schema": "3"}')$$);
DELETE FROM docmodel.migration_rules WHERE doc_type = 'gadget';
DROP FUNCTION migrate_gadget_v2(jsonb), migrate_bad_null(jsonb), migrate_bad_sig(json);

\echo == migration_plan and migrate_collection on a table with id and doc
CREATE TABLE migrate_users (id text COLLATE "C" PRIMARY KEY, doc jsonb NOT NULL);
INSERT INTO migrate_users
SELECT 'user::' || lpad(i::text, 3, '0'),
  CASE i % 3
    WHEN 0 THEN jsonb_build_object('_type', 'user', '_schema', '1.0', 'name', 'First' || i || ' Last', 'phone', '555-' || i)
    WHEN 1 THEN jsonb_build_object('_type', 'user', '_schema', '2.0', 'firstName', 'F', 'lastName', 'L', 'phone', '555-' || i)
    ELSE jsonb_build_object('_type', 'user', '_schema', '3.0', 'firstName', 'F', 'lastName', 'L', 'phones', '[]'::jsonb)
  END
FROM generate_series(1, 30) i;
INSERT INTO migrate_users VALUES ('order::1', '{"_type": "order", "total": 5}'), ('note::1', '{"text": "no type"}'),
  ('user::900', '{"_type": "user", "name": "No Version"}');
-- user::021 has a name that is not a string: splitting it fails.
UPDATE migrate_users SET doc = doc || '{"name": 21}' WHERE id = 'user::021';
SELECT * FROM docmodel.migration_plan('migrate_users');
-- Bad arguments (a CALL cannot run inside try(): it commits).
CALL docmodel.migrate_collection('migrate_users', batch_size => 0);
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
CALL docmodel.migrate_collection('migrate_users', target => '2.0');
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
CALL docmodel.migrate_collection('migrate_users', 'order');
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
CALL docmodel.migrate_collection('migrate_users', 'user', '2.5');
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
CALL docmodel.migrate_collection('pg_class');
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
-- It commits batch by batch, so not inside a transaction block or a function.
BEGIN;
CALL docmodel.migrate_collection('migrate_users');
ROLLBACK;
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
SELECT pg_temp.try($$CALL docmodel.migrate_collection('migrate_users')$$);
-- A run in batches of 4 stops at user::021, in its 4th batch: the three
-- batches before stay migrated, the failing batch is untouched.
SET client_min_messages = warning;
CALL docmodel.migrate_collection('migrate_users', batch_size => 4);
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
RESET client_min_messages;
SELECT run_id, coll, doc_type, target, last_key, docs_done, docs_total, status, error,
  finished_at IS NULL AS unfinished
FROM docmodel.migration_runs;
SELECT id, doc->>'_schema' AS version FROM migrate_users
WHERE id IN ('user::018', 'user::019', 'user::021', 'user::022') ORDER BY id;
SELECT doc->>'_schema' AS version, count(*) FROM migrate_users GROUP BY 1 ORDER BY 1;
-- Fix the rule (cast the name to a string first) and run again: the same
-- run resumes after user::018 and finishes.
SELECT docmodel.register_migration('user', '1.0', '2.0', steps => '[
  {"op": "cast", "path": "/name", "to": "string"},
  {"op": "split", "path": "/name", "into": ["/firstName", "/lastName"], "separator": " "}]');
SET client_min_messages = warning;
CALL docmodel.migrate_collection('migrate_users', batch_size => 4);
RESET client_min_messages;
SELECT run_id, coll, doc_type, target, last_key, docs_done, docs_total, status, error,
  finished_at IS NULL AS unfinished
FROM docmodel.migration_runs;
SELECT * FROM docmodel.migration_plan('migrate_users');
SELECT doc FROM migrate_users WHERE id IN ('user::003', 'user::021', 'user::900') ORDER BY id;
-- Nothing left: a second run finds nothing and is done at once.
SET client_min_messages = warning;
CALL docmodel.migrate_collection('migrate_users');
RESET client_min_messages;
SELECT run_id, docs_done, docs_total, status FROM docmodel.migration_runs ORDER BY run_id;

-- A run to a target below current, for one type (a table without the
-- collection trigger): older documents go up, newer ones down, keeping
-- under _kept what the way down drops.
CREATE TABLE migrate_users2 (id text PRIMARY KEY, doc jsonb);
INSERT INTO migrate_users2 VALUES
  ('a', '{"_type": "user", "_schema": "1.0", "name": "Ann Lee", "phone": "1"}'),
  ('b', '{"_type": "user", "_schema": "3.0", "phones": []}'),
  ('c', '{"_type": "gizmo", "_schema": "1.0", "name": "Not A User"}');
SET client_min_messages = warning;
CALL docmodel.migrate_collection('migrate_users2', 'user', '2.0');
RESET client_min_messages;
SELECT id, doc FROM migrate_users2 ORDER BY id;
SELECT run_id, coll, doc_type, target, docs_done, status FROM docmodel.migration_runs WHERE run_id > 2;


\echo == collections: _schema stamped, migrate on write, get() migrates
CREATE FUNCTION pg_temp.body(doc jsonb) RETURNS jsonb LANGUAGE sql AS $$
  SELECT doc - '_created' - '_createdBy' - '_modified' - '_modifiedBy'
$$;
SELECT docmodel.create_collection('migrate_coll');
-- Without _schema: the current version, nothing migrated.
INSERT INTO migrate_coll (id, doc) VALUES ('user::1', '{"firstName": "Ann", "phones": []}');
-- An outdated application writes a 1.0 document: stored as 3.0.
INSERT INTO migrate_coll (id, doc) VALUES ('user::2', '{"_schema": "1.0", "name": "Joe Smith", "phone": "555"}');
UPDATE migrate_coll SET doc = '{"_schema": "2.0", "firstName": "Ann", "lastName": "Lee", "phone": "7"}' WHERE id = 'user::1';
SELECT docmodel.upsert('migrate_coll', 'user::3', '{"_schema": "2.0", "firstName": "Bo", "phone": "8"}') > 0 AS upserted;
-- A type without migrations gets no _schema.
INSERT INTO migrate_coll (id, doc) VALUES ('order::1', '{"total": 5}');
SELECT id, pg_temp.body(doc) FROM migrate_coll_documents ORDER BY id;
-- A write whose migration cannot apply is refused, naming the key.
SELECT pg_temp.try($$INSERT INTO migrate_coll (id, doc) VALUES ('user::9', '{"_schema": "2.0", "phone": "1", "phones": []}')$$);
SELECT pg_temp.try($$INSERT INTO migrate_coll (id, doc) VALUES ('user::9', '{"_schema": "x.1"}')$$);
SELECT count(*) FROM migrate_coll WHERE id = 'user::9';
-- A document stored before its type had migrations is migrated on read by
-- get() and get_multi() (stored as it was until written).
INSERT INTO migrate_coll (id, doc) VALUES ('widget::1', '{"_schema": "1", "color": "red"}');
SELECT docmodel.register_migration('widget', '1', '2', steps => '[{"op": "wrap", "path": "/color", "into": "/colors"}]');
SELECT pg_temp.body(docmodel.get('migrate_coll', 'widget::1'));
SELECT key, pg_temp.body(doc) FROM docmodel.get_multi('migrate_coll', '{widget::1,user::1,order::1}');
SELECT pg_temp.body(doc) FROM migrate_coll_documents WHERE id = 'widget::1';
-- migrate_collection on a collection: the trigger stamps each write.
SET client_min_messages = warning;
CALL docmodel.migrate_collection('migrate_coll');
RESET client_min_messages;
SELECT id, doc->'_ver' AS ver, pg_temp.body(doc) FROM migrate_coll_documents WHERE id = 'widget::1';
-- The meta and plain styles.
SELECT docmodel.create_collection('migrate_meta', meta_style => 'meta');
INSERT INTO migrate_meta (id, doc) VALUES ('user::1', '{"meta": {"schema": "1.0"}, "name": "Joe Smith"}'),
  ('user::2', '{"name": "Ann"}');
SELECT id, doc->'meta'->'schema' AS schema, doc - 'meta' AS body FROM migrate_meta ORDER BY id;
SELECT docmodel.create_collection('migrate_plain', meta_style => 'plain');
INSERT INTO migrate_plain (id, doc) VALUES ('user::1', '{"schema": "2.0", "phone": "1"}');
SELECT doc->'schema' AS schema, doc->'phones' AS phones, doc ? 'phone' AS has_phone FROM migrate_plain;
SELECT docmodel.drop_collection('migrate_coll'), docmodel.drop_collection('migrate_meta'),
  docmodel.drop_collection('migrate_plain');


\echo == privileges: any role reads the rules, registering takes the owner rights
CREATE ROLE migrate_app;
GRANT SELECT, INSERT, UPDATE ON migrate_users TO migrate_app;
-- a change of the registry makes every backend reload the rules on next use
SELECT docmodel.register_migration('user', '2.0', '3.0', steps => '[
  {"op": "wrap", "path": "/phone", "into": "/phones", "template": {"type": "other", "number": "$"}}]');
SET ROLE migrate_app;
SELECT docmodel.migrate('{"_type": "user", "_schema": "2.0", "phone": "1"}');
INSERT INTO migrate_users VALUES ('user::app', '{"_type": "user", "_schema": "1.0", "name": "App User"}');
SET client_min_messages = warning;
CALL docmodel.migrate_collection('migrate_users');
RESET client_min_messages;
SELECT doc FROM migrate_users WHERE id = 'user::app';
SELECT docmodel.register_migration('user', '3.0', '4.0', steps => '[]');
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
RESET ROLE;
REVOKE ALL ON migrate_users FROM migrate_app;
DROP ROLE migrate_app;


\echo == a rule written into the registry by hand is checked when the rules load
INSERT INTO docmodel.migration_rules (doc_type, from_version, to_version, steps)
VALUES ('broken', '1', '2', '[{"op": "nope"}]');
SELECT pg_temp.try($$SELECT docmodel.migrate('{"_type": "user", "_schema": "2.0", "phone": "1"}')$$);
DELETE FROM docmodel.migration_rules WHERE doc_type = 'broken';
SELECT docmodel.migrate('{"_type": "user", "_schema": "2.0", "phone": "1"}');

DROP TABLE migrate_users, migrate_users2;
DELETE FROM docmodel.migration_run;
DELETE FROM docmodel.migration_rules;
