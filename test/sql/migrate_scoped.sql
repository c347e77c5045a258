-- Migration rules of one collection, and rules registered inactive.
-- A type's rules are global (every collection) unless registered with
-- coll: a collection with rules of its own for a type uses them, the others
-- keep the global ones. A rule registered with active => false changes no
-- read, write or bulk run; migration_plan shows what it would do (target,
-- steps, and with validate the documents it would make invalid or stop
-- at) until set_migration_active switches it on.
\i test/sql/include/try.sql
SET client_min_messages = warning;

SELECT docmodel.create_collection('shop_users') IS NOT NULL;
SELECT docmodel.create_collection('forum_users') IS NOT NULL;
SELECT docmodel.create_collection('crm_users') IS NOT NULL;
INSERT INTO shop_users (id, doc, cas) VALUES ('user::1', '{"_schema": "1", "name": "Ann Lee"}', 0);
INSERT INTO forum_users (id, doc, cas) VALUES ('user::1', '{"_schema": "1", "name": "Bo Chen"}', 0);
INSERT INTO crm_users (id, doc, cas) VALUES ('user::1', '{"_schema": "1", "name": "Cy Diaz"}', 0);

\echo == a chain of one collection leaves the others alone
SELECT docmodel.register_migration('user', '1', '2', steps => '[
  {"op": "split", "path": "/name", "into": ["/first", "/last"], "separator": " "}]',
  coll => 'shop_users');
SELECT docmodel.get('shop_users', 'user::1') - '{_created,_modified,_createdBy,_modifiedBy}'::text[] AS shop;
SELECT docmodel.get('forum_users', 'user::1')->>'name' AS forum_untouched;
SELECT docmodel.current_version('user') AS global_version,
       docmodel.current_version('user', 'shop_users') AS shop_version,
       docmodel.current_version('user', 'forum_users') AS forum_version;
SELECT docmodel.migrate('{"_type": "user", "_schema": "1", "name": "A B"}') AS migrate_global,
       docmodel.migrate('{"_type": "user", "_schema": "1", "name": "A B"}', NULL, 'shop_users') AS migrate_shop;

\echo == the global chain is the default; a collection with a chain of its own keeps it
SELECT docmodel.register_migration('user', '1', '2', steps => '[
  {"op": "add", "path": "/global", "value": true}]');
SELECT docmodel.get('forum_users', 'user::1')->>'global' AS forum_global,
       docmodel.get('crm_users', 'user::1')->>'global' AS crm_global,
       docmodel.get('shop_users', 'user::1')->>'global' AS shop_global;
-- on write, in that collection's chain
SELECT docmodel.upsert('shop_users', 'user::2', '{"_schema": "1", "name": "Di Eng"}') > 0 AS written;
SELECT doc->>'first' AS first, doc->>'_schema' AS schema FROM shop_users_documents WHERE id = 'user::2';
-- in bulk
CALL docmodel.migrate_collection('shop_users');
CALL docmodel.migrate_collection('forum_users');
SELECT 'shop' AS coll, id, doc ? 'first' AS split, doc ? 'global' AS global, doc->>'_schema' AS schema FROM shop_users_documents
UNION ALL
SELECT 'forum', id, doc ? 'first', doc ? 'global', doc->>'_schema' FROM forum_users_documents ORDER BY 1, 2;
SELECT doc_type, collection_id = (SELECT config_id FROM docmodel.collections WHERE collection = 'shop_users'::regclass) AS shop_rule,
       from_version, to_version, active
FROM docmodel.migration_rules WHERE doc_type = 'user' ORDER BY collection_id, from_version;

\echo == a rule registered inactive: reads, writes and bulk runs ignore it, the plan shows it
SELECT docmodel.register_migration('user', '2', '3', steps => '[
  {"op": "require", "path": "/email", "message": "an email is required"},
  {"op": "add", "path": "/v3", "value": true}]', active => false);
SELECT docmodel.get('crm_users', 'user::1')->>'_schema' AS read_at,
       docmodel.current_version('user') AS current_version;
SELECT docmodel.upsert('crm_users', 'user::2', '{"_schema": "2", "name": "Ed Fox"}') > 0 AS written_without_email;
SELECT doc_type, version, docs, target, steps FROM docmodel.migration_plan('crm_users') ORDER BY 1, 2;
SELECT doc_type, version, docs, target, steps, invalid, first_invalid
FROM docmodel.migration_plan('crm_users', validate => true) ORDER BY 1, 2;
CALL docmodel.migrate_collection('crm_users');
SELECT id, doc->>'_schema' AS schema FROM crm_users_documents ORDER BY id;
-- fixed while inactive (registered again: same versions), then switched on
SELECT docmodel.register_migration('user', '2', '3', steps => '[
  {"op": "default", "path": "/email", "value": "unknown@example.com"},
  {"op": "add", "path": "/v3", "value": true}]', active => false);
SELECT doc_type, version, docs, target, steps, invalid
FROM docmodel.migration_plan('crm_users', validate => true) ORDER BY 1, 2;
SELECT docmodel.set_migration_active('user', '2', true);
SELECT docmodel.get('crm_users', 'user::2') ->> 'email' AS email,
       docmodel.get('crm_users', 'user::2') ->> '_schema' AS schema,
       docmodel.current_version('user') AS current_version;
-- the shop's own chain stays at 2
SELECT docmodel.current_version('user', 'shop_users') AS shop_version;
-- and off again
SELECT docmodel.set_migration_active('user', '2', false);
SELECT docmodel.current_version('user') AS current_version;

\echo == errors
SELECT pg_temp.try($$SELECT docmodel.register_migration('user', '2', '3', steps => '[]', coll => 'pg_class')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('user', '5', '6', steps => '[]', coll => 'shop_users')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('user', '1', '4', steps => '[]', coll => 'shop_users')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('user', '3', '4', steps => '[]', active => NULL)$$);
SELECT pg_temp.try($$SELECT docmodel.set_migration_active('user', '7', true)$$);
SELECT pg_temp.try($$SELECT docmodel.set_migration_active('user', '1', true, 'crm_users')$$);
SELECT pg_temp.try($$SELECT docmodel.set_migration_active('user', '1', NULL)$$);
SELECT pg_temp.try($$SELECT docmodel.set_migration_active('user', '1', true, 'pg_class')$$);

\echo == functions: the global rule and the rule of a collection from the same version are pinned apart
CREATE FUNCTION public.tag_global(doc jsonb) RETURNS jsonb LANGUAGE sql AS $$SELECT doc || '{"tag": "global"}'$$;
CREATE FUNCTION public.tag_forum(doc jsonb) RETURNS jsonb LANGUAGE sql AS $$SELECT doc || '{"tag": "forum"}'$$;
SELECT docmodel.register_migration('tagged', '1', '2', fn => 'public.tag_global(jsonb)');
SELECT docmodel.register_migration('tagged', '1', '2', fn => 'public.tag_forum(jsonb)', coll => 'forum_users');
SELECT docmodel.migrate('{"_type": "tagged", "_schema": "1"}')->>'tag' AS global_tag,
       docmodel.migrate('{"_type": "tagged", "_schema": "1"}', NULL, 'forum_users')->>'tag' AS forum_tag;
SELECT split_part(pg_temp.try($$DROP FUNCTION public.tag_forum(jsonb)$$), ' (', 1) AS pinned;
DELETE FROM docmodel.migration_rules WHERE doc_type = 'tagged';
DROP FUNCTION public.tag_global(jsonb), public.tag_forum(jsonb);

-- the bulk runs this test made, gone (later tests count the runs)
DELETE FROM docmodel.migration_run WHERE coll IN ('shop_users'::regclass, 'forum_users'::regclass, 'crm_users'::regclass);
SELECT setval(pg_get_serial_sequence('docmodel.migration_run', 'run_id'),
  COALESCE((SELECT max(run_id) FROM docmodel.migration_run), 0) + 1, false) > 0 AS run_ids_reset;
\echo == drop_collection takes the rules of its collection along, by an owner who may not write them
CREATE ROLE scoped_owner;
GRANT CREATE ON SCHEMA public TO scoped_owner;
SET ROLE scoped_owner;
SELECT docmodel.create_collection('owned_users') IS NOT NULL;
RESET ROLE;
CREATE FUNCTION public.tag_owned(doc jsonb) RETURNS jsonb LANGUAGE sql AS $$SELECT doc || '{"tag": "owned"}'$$;
SELECT docmodel.register_migration('tagged', '1', '2', fn => 'public.tag_owned(jsonb)', coll => 'owned_users');
SELECT docmodel.register_write_rule('user', '[{"op": "default", "path": "/source", "value": "owned"}]', coll => 'owned_users');
SELECT config_id AS owned_id FROM docmodel.collections WHERE collection = 'owned_users'::regclass \gset
SELECT has_table_privilege('scoped_owner', 'docmodel.migration_rules', 'DELETE') AS owner_may_delete_rules;
SET ROLE scoped_owner;
SELECT docmodel.drop_collection('owned_users');
RESET ROLE;
SELECT (SELECT count(*) FROM docmodel.migration_rules WHERE collection_id = :owned_id) AS its_migrations,
       (SELECT count(*) FROM docmodel.write_rules WHERE collection_id = :owned_id) AS its_write_rules,
       (SELECT count(*) FROM docmodel.migration_rules WHERE doc_type = 'user' AND collection_id = 0) AS global_kept;
-- no pin is left to hold the function
DROP FUNCTION public.tag_owned(jsonb);
REVOKE CREATE ON SCHEMA public FROM scoped_owner;
DROP ROLE scoped_owner;
SELECT docmodel.drop_collection('shop_users');
SELECT docmodel.drop_collection('forum_users');
SELECT docmodel.drop_collection('crm_users');
SELECT count(*) AS scoped_rules_left FROM docmodel.migration_rules WHERE collection_id <> 0;
DELETE FROM docmodel.migration_rules WHERE doc_type = 'user';
