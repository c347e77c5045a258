\echo
\echo '--- Schema versions and migrations -----------------------------------'
\echo 'The user document of the modeling guides went through three shapes:'
\echo '  1.0  {"name": "Joe Smith", "phone": "555-1234"}'
\echo '  2.0  {"firstName": "Joe", "lastName": "Smith", "phone": "555-1234"}'
\echo '  3.0  {"firstName": ..., "phones": [{"type": "other", "number": "555-1234"}]}'
\echo 'Three generations of the application wrote into one collection before'
\echo 'docmodel knew the rules, so it holds documents of all three versions:'
SELECT docmodel.create_collection('app_users') AS collection;
INSERT INTO app_users (id, doc)
SELECT 'user::' || i,
  CASE WHEN i % 3 = 1 THEN jsonb_build_object('_schema', '1.0', 'name', 'Joe' || i || ' Smith', 'phone', '555-' || i)
       WHEN i % 3 = 2 THEN jsonb_build_object('_schema', '2.0', 'firstName', 'Ann' || i, 'lastName', 'Lee', 'phone', '555-' || i)
       ELSE jsonb_build_object('_schema', '3.0', 'firstName', 'Bo' || i, 'phones', '[]'::jsonb) END
FROM generate_series(1, 3000) i;
SELECT id, doc - '_created' - '_createdBy' - '_modified' - '_modifiedBy' - '_ver' AS doc
FROM app_users WHERE id IN ('user::1', 'user::2', 'user::3') ORDER BY id;

\echo
\echo 'The rules, registered once, in order. Steps are declarative (checked when'
\echo 'registered) or a jsonb -> jsonb function:'
SELECT docmodel.register_migration('user', '1.0', '2.0', steps => '[
  {"op": "split", "path": "/name", "into": ["/firstName", "/lastName"], "separator": " "}]');
SELECT docmodel.register_migration('user', '2.0', '3.0', steps => '[
  {"op": "wrap", "path": "/phone", "into": "/phones", "template": {"type": "other", "number": "$"}}]');
SELECT docmodel.current_version('user');
\echo 'A step with a typo is refused at once, naming the step and its op:'
\set ON_ERROR_STOP 0
\set SHOW_CONTEXT never
SELECT docmodel.register_migration('user', '3.0', '4.0', steps => '[{"op": "remove", "path": "/x"}, {"op": "rename", "path": "/y"}]');
\set SHOW_CONTEXT errors
\set ON_ERROR_STOP 1

\echo
\echo 'migrate() applies every step from the document''s version up to the current'
\echo 'one (1.0 -> 3.0 passes through 2.0), or up to a target:'
SELECT docmodel.migrate('{"_type": "user", "_schema": "1.0", "name": "Joe Smith", "phone": "555-1234"}');
SELECT docmodel.migrate('{"_type": "user", "_schema": "1.0", "name": "Joe Smith", "phone": "555-1234"}', '2.0');

\echo
\echo 'The dry run: what a bulk migration of the collection would do.'
SELECT * FROM docmodel.migration_plan('app_users');

\echo
\echo 'A lazy read: get() returns the current shape; the stored row is untouched.'
SELECT docmodel.get('app_users', 'user::1') - '_created' - '_createdBy' - '_modified' - '_modifiedBy' AS "get('user::1')";
SELECT doc->>'_schema' AS stored_version FROM app_users WHERE id = 'user::1';
\echo 'Migrate on write: an outdated application writing the 1.0 shape stores 3.0.'
UPDATE app_users SET doc = '{"_schema": "1.0", "name": "Joe Smythe", "phone": "555-1"}' WHERE id = 'user::1';
SELECT doc - '_created' - '_createdBy' - '_modified' - '_modifiedBy' AS stored FROM app_users WHERE id = 'user::1';

\echo
\echo 'The bulk run: batch by batch in key order, each batch committed, with a'
\echo 'progress line per batch. Interrupted (cancel, crash, a failing document),'
\echo 'a second CALL resumes after the last committed batch.'
CALL docmodel.migrate_collection('app_users', batch_size => 500);
SELECT run_id, coll, docs_done, docs_total, status, finished_at IS NOT NULL AS finished
FROM docmodel.migration_runs WHERE coll = 'app_users'::regclass;
SELECT * FROM docmodel.migration_plan('app_users');

SELECT docmodel.drop_collection('app_users');
-- later chapters start without user migrations
DELETE FROM docmodel.migration_rules WHERE doc_type = 'user';
