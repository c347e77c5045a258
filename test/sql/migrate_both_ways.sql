-- Schema versions both ways: every step's inverse, reading and writing at a
-- version, rolling back with nothing lost, compatibility modes.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS docmodel;
RESET client_min_messages;

\echo == every step knows its way down
SELECT step, op, inverse, lossless, drops FROM docmodel.step_inverses('[
  {"op": "add", "path": "/a", "value": 1},
  {"op": "remove", "path": "/b"},
  {"op": "replace", "path": "/c", "value": 2},
  {"op": "move", "from": "/d", "path": "/e"},
  {"op": "copy", "from": "/e", "path": "/f"},
  {"op": "test", "path": "/e", "value": 1},
  {"op": "default", "path": "/g", "value": []},
  {"op": "split", "path": "/name", "into": ["/first", "/last"]},
  {"op": "join", "paths": ["/x", "/y"], "into": "/xy", "separator": "-"},
  {"op": "wrap", "path": "/phone", "into": "/phones", "template": {"type": "other", "number": "$"}},
  {"op": "unwrap", "path": "/tags"},
  {"op": "cast", "path": "/age", "to": "number", "from": "string"},
  {"op": "cast", "path": "/n", "to": "string"},
  {"op": "to_epoch", "path": "/t", "unit": "s"},
  {"op": "from_epoch", "path": "/u"},
  {"op": "strip_dashes", "path": "/guid"},
  {"op": "nest", "paths": ["/street", "/city"], "into": "/address"},
  {"op": "nest", "paths": ["/a/street"], "into": "/address"},
  {"op": "unnest", "path": "/address"},
  {"op": "for_each", "path": "/items", "steps": [{"op": "move", "from": "/qty", "path": "/quantity"}]},
  {"op": "drop_empty"},
  {"op": "replace_regex", "path": "/p", "pattern": "[^0-9]", "with": ""},
  {"op": "require", "path": "/p"},
  {"op": "format_date", "path": "/d"}]') ORDER BY step;
-- unwrap, wrap's inverse, and cast's "from" are steps of their own
SELECT docmodel._migration_inverse('[{"op": "cast", "path": "/a", "to": "number"}]') -> 'down';
SELECT docmodel.step_inverses('[{"op": "nope"}]');
SELECT docmodel.step_inverses('[{"op": "cast", "path": "/a", "to": "number", "from": "date"}]');

\echo == the management guide: user 1.0 -> 2.0 -> 3.0
SELECT docmodel.register_migration('user', '1.0', '2.0', steps => '[
  {"op": "split", "path": "/name", "into": ["/firstName", "/lastName"], "separator": " "}]');
SELECT docmodel.register_migration('user', '2.0', '3.0', steps => '[
  {"op": "wrap", "path": "/phone", "into": "/phones", "template": {"type": "other", "number": "$"}}]');
SELECT from_version, to_version, down_steps, reversible, lossless
FROM docmodel.migration_rules WHERE doc_type = 'user' ORDER BY from_version;
SELECT docmodel.migrate('{"_type": "user", "_schema": "3.0", "firstName": "Joe", "lastName": "Smith",
  "phones": [{"type": "mobile", "number": "555-1"}, {"type": "home", "number": "555-2"}]}', '2.0');
SELECT docmodel.migrate('{"_type": "user", "_schema": "3.0", "firstName": "Joe", "lastName": "Smith",
  "phones": [{"type": "mobile", "number": "555-1"}]}', '1.0');
-- a version no chain reaches, either way
SELECT docmodel.migrate('{"_type": "user", "_schema": "3.0", "phones": []}', '1.5');

SELECT docmodel.create_collection('bw_users') IS NOT NULL AS created;
SELECT docmodel.insert('bw_users', 'user::1', '{"firstName": "Joe", "lastName": "Smith",
  "phones": [{"type": "mobile", "number": "555-1"}, {"type": "home", "number": "555-2"}]}') > 0 AS ok;
SELECT docmodel.insert('bw_users', 'user::2', '{"_schema": "1.0", "name": "Ann Lee", "phone": "555-3"}') > 0 AS ok;
SELECT docmodel.insert('bw_users', 'user::3', '{"firstName": "Mary Ann", "lastName": "Lee", "phones": []}') > 0 AS ok;
SELECT id, doc - '{_created,_createdBy,_modified,_modifiedBy}'::text[] AS doc FROM bw_users ORDER BY id;

\echo == reading at a version: an argument, or a setting of the session
SELECT docmodel.get('bw_users', 'user::1', as_version => '2.0') - '{_created,_createdBy,_modified,_modifiedBy}'::text[];
SELECT docmodel.get('bw_users', 'user::1', as_version => '1.0') ->> 'name';
SELECT docmodel.get('bw_users', 'user::1', as_version => '3.0') -> 'phones' -> 1 ->> 'number';
SELECT key, doc ->> '_schema', doc ->> 'phone' FROM docmodel.get_multi('bw_users', '{user::1,user::2}', as_version => '2.0');
SELECT docmodel.get('bw_users', 'user::1', as_version => '7.0');
SELECT docmodel.lookup_in('bw_users', 'user::1', '[{"op": "get", "path": "phone"}, {"op": "get", "path": "phones"}]', as_version => '2.0');
SELECT docmodel.lookup_in('bw_users', 'user::1', '[{"op": "get", "path": "name"}]', as_version => NULL);
SET docmodel.versions = '{"user": "2.0"}';
SELECT docmodel.get('bw_users', 'user::1') ->> 'phone', docmodel.get('bw_users', 'user::1') ->> '_schema';
SELECT docmodel.lookup_in('bw_users', 'user::1', '[{"op": "get", "path": "phone"}]');

\echo == writing at a version: what 2.0 cannot say is kept from the stored 3.0
-- GetPut: writing back what was read at 2.0 leaves the stored document as it is
SELECT doc ->> '_ver' AS ver_before FROM bw_users WHERE id = 'user::1' \gset
SELECT docmodel.upsert('bw_users', 'user::1', docmodel.get('bw_users', 'user::1')) > 0 AS ok;
SELECT doc ->> '_ver' = :'ver_before' AS unchanged, doc -> 'phones' AS phones FROM bw_users WHERE id = 'user::1';
-- PutGet: a 2.0 write of a new number; the second phone and the first one's type stay
SELECT docmodel.upsert('bw_users', 'user::1', docmodel.get('bw_users', 'user::1') || '{"phone": "555-9"}') > 0 AS ok;
SELECT doc -> 'phones' AS phones, doc ->> '_schema' AS schema FROM bw_users WHERE id = 'user::1';
SELECT docmodel.get('bw_users', 'user::1') ->> 'phone' AS read_at_2;
-- a 2.0 write without a version field is at the session's version
SELECT docmodel.upsert('bw_users', 'user::4', '{"firstName": "Bo", "lastName": "Ek", "phone": "555-4"}') > 0 AS ok;
SELECT doc -> 'phones', doc ->> '_schema' FROM bw_users WHERE id = 'user::4';
-- mutate_in at 2.0
SELECT docmodel.mutate_in('bw_users', 'user::1', '[{"op": "upsert", "path": "lastName", "value": "Smyth"}]') IS NOT NULL AS ok;
SELECT doc ->> 'lastName', jsonb_array_length(doc -> 'phones') FROM bw_users WHERE id = 'user::1';
-- a bad setting names the type
SET docmodel.versions = '{"user": "two"}';
SET docmodel.versions = '[1]';
RESET docmodel.versions;

\echo == rolling back: down to 1.0 and up again gives every document back
CREATE TEMP TABLE bw_before AS
    SELECT id, doc - '{_created,_createdBy,_modified,_modifiedBy,_ver}'::text[] AS doc FROM bw_users;
-- while 3.0 is current, a collection cannot be taken below it
CALL docmodel.migrate_collection('bw_users', 'user', '2.0');
SELECT * FROM docmodel.migration_plan('bw_users', target => '1.0');
SELECT docmodel.set_migration_active('user', '2.0', false);
-- 3.0 documents now read at 2.0, the current version
SELECT docmodel.get('bw_users', 'user::1') ->> 'phone';
SET client_min_messages = warning;
CALL docmodel.migrate_collection('bw_users', 'user', '2.0', batch_size => 2);
RESET client_min_messages;
SELECT id, doc ->> '_schema', doc ->> 'phone', doc -> '_kept' FROM bw_users ORDER BY id;
-- a 2.0 release writing a whole document keeps what was kept
SELECT docmodel.upsert('bw_users', 'user::3', '{"_schema": "2.0", "firstName": "Mary Ann", "lastName": "Lee"}') > 0 AS ok;
SELECT doc -> '_kept' FROM bw_users WHERE id = 'user::3';
SELECT docmodel.set_migration_active('user', '1.0', false);
SET client_min_messages = warning;
CALL docmodel.migrate_collection('bw_users', 'user', '1.0');
RESET client_min_messages;
SELECT id, doc ->> '_schema', doc ->> 'name', doc -> '_kept' FROM bw_users ORDER BY id;
SELECT doc_type, target, docs_done, status FROM docmodel.migration_runs ORDER BY run_id;
-- and up again
SELECT docmodel.set_migration_active('user', '1.0', true);
SELECT docmodel.set_migration_active('user', '2.0', true);
SET client_min_messages = warning;
CALL docmodel.migrate_collection('bw_users');
RESET client_min_messages;
SELECT b.id, (u.doc - '{_created,_createdBy,_modified,_modifiedBy,_ver}'::text[]) = b.doc AS same
FROM bw_before b JOIN bw_users u USING (id) ORDER BY b.id;

\echo == a one-way rule, down_fn, compatibility modes
SELECT docmodel.register_migration('acct', '1', '2', steps => '[{"op": "unnest", "path": "/addr"}]');
SELECT docmodel.migrate('{"_type": "acct", "_schema": "2", "city": "Oslo"}', '1');
SELECT reversible FROM docmodel.migration_rules WHERE doc_type = 'acct';
SELECT docmodel.set_compatibility('acct', 'full');
SELECT docmodel.set_compatibility('acct', 'sideways');
CREATE FUNCTION bw_nest(d jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE
    AS $$ SELECT (d - 'city') || jsonb_build_object('addr', jsonb_build_object('city', d -> 'city')) $$;
SELECT docmodel.register_migration('acct', '1', '2', steps => '[{"op": "unnest", "path": "/addr"}]',
    down_fn => 'bw_nest(jsonb)');
SELECT reversible, down_fn FROM docmodel.migration_rules WHERE doc_type = 'acct';
SELECT docmodel.migrate('{"_type": "acct", "_schema": "2", "city": "Oslo"}', '1');
SELECT docmodel.set_compatibility('acct', 'full');
SELECT docmodel.register_migration('acct', '2', '3', steps => '[{"op": "cast", "path": "/zip", "to": "number"}]');
SELECT docmodel.register_migration('acct', '2', '3', steps => '[{"op": "cast", "path": "/zip", "to": "number", "from": "string"}]');
SELECT docmodel.migrate('{"_type": "acct", "_schema": "3", "zip": 42}', '2');
SELECT * FROM docmodel.compatibility;
-- with a mode set, a new rule is also checked both ways against the JSON
-- Schemas of its versions, on their examples and stored documents
SELECT docmodel.create_collection('bw_profiles') IS NOT NULL AS created;
SELECT docmodel.register_schema('prof', '1', '{"type": "object", "required": ["name"],
  "examples": [{"name": "Ann Lee"}, {"name": "Cher"}]}');
SELECT docmodel.register_schema('prof', '2', '{"type": "object", "required": ["first"],
  "properties": {"first": {"type": "string", "minLength": 1}}}');
SELECT docmodel.register_schema('prof', '3', '{"type": "object", "required": ["phones", "first"],
  "properties": {"phones": {"type": "array", "minItems": 1}}}');
INSERT INTO bw_profiles (id, doc) VALUES ('prof::1', '{"_schema": "1", "name": "Bo Ek", "phone": "1"}'),
  ('prof::2', '{"_schema": "1", "name": "Cy Ode"}');
SELECT docmodel.set_compatibility('prof', 'full');
SELECT docmodel.register_migration('prof', '1', '2', steps => '[{"op": "split", "path": "/name", "into": ["/first", "/last"]}]');
-- prof::2 has no phone: going up it would have no phones, which 3 refuses
SELECT docmodel.register_migration('prof', '2', '3', steps => '[{"op": "wrap", "path": "/phone", "into": "/phones"}]');
SELECT count(*) FROM docmodel.migration_rules WHERE doc_type = 'prof';
SELECT docmodel.register_migration('prof', '2', '3', steps => '[{"op": "default", "path": "/phone", "value": "none"}, {"op": "wrap", "path": "/phone", "into": "/phones"}]');
-- the way down of this one gives a document 3 refuses (no first): the
-- second example of 4 has no given
SELECT docmodel.register_migration('prof', '3', '4', steps => '[{"op": "move", "from": "/first", "path": "/given"}]');
SELECT docmodel.register_schema('prof', '4', '{"type": "object", "examples": [{"given": "Al", "last": "Bo", "phones": ["1"]}, {"last": "Only", "phones": ["2"]}]}');
SELECT docmodel.register_migration('prof', '3', '4', steps => '[{"op": "move", "from": "/first", "path": "/given"}]');
SELECT docmodel.set_compatibility('prof', 'backward');
SELECT docmodel.register_migration('prof', '3', '4', steps => '[{"op": "move", "from": "/first", "path": "/given"}]');
SELECT docmodel.drop_collection('bw_profiles');

-- the errors of the way down's own pieces
SELECT docmodel.register_migration('uw', '1', '2', steps => '[{"op": "wrap", "path": "/tags"}]');
SELECT docmodel.register_migration('uw', '2', '3', steps => '[{"op": "unwrap", "path": "/tags", "into": "/tag"}]');
SELECT docmodel.migrate('{"_type": "uw", "_schema": "2", "tags": "x"}', '3');
SELECT docmodel.migrate('{"_type": "uw", "_schema": "2", "tags": ["x"], "tag": 1}', '3');
CREATE FUNCTION bw_array(d jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$ SELECT '[]'::jsonb $$;
CREATE FUNCTION bw_text(d text) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT d $$;
SELECT docmodel.register_migration('uw', '2', '3', steps => '[{"op": "unwrap", "path": "/tags", "into": "/tag"}]',
  down_fn => 'bw_text(text)');
SELECT docmodel.register_migration('uw', '2', '3', steps => '[{"op": "unwrap", "path": "/tags", "into": "/tag"}]',
  down_fn => 'bw_array(jsonb)');
SELECT docmodel.migrate('{"_type": "uw", "_schema": "3", "tag": "x"}', '2');
SELECT * FROM docmodel.migration_plan('bw_users', target => NULL);
SELECT docmodel.set_compatibility('uw', NULL);
DELETE FROM docmodel.migration_rules WHERE doc_type = 'uw';
DROP FUNCTION bw_array(jsonb), bw_text(text);

-- the down function is pinned as the function of a rule is
DROP FUNCTION bw_nest(jsonb);

SELECT docmodel.drop_collection('bw_users');
DELETE FROM docmodel.migration_rules WHERE doc_type IN ('user', 'acct', 'prof');
DROP FUNCTION bw_nest(jsonb);
DELETE FROM docmodel.compatibility;
DELETE FROM docmodel.schemas WHERE doc_type = 'prof';
DELETE FROM docmodel.migration_run;
