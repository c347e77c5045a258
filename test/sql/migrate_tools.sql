-- Bulk migrations from inside a transaction, as migration tools run them:
-- start_migration (a background worker runs the run once the caller
-- commits), wait_migration, migrate_documents (in the caller's
-- transaction), and drop_migration.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS docmodel;
RESET client_min_messages;

SELECT docmodel.create_collection('tool_users') IS NOT NULL AS created;
INSERT INTO tool_users (id, doc)
SELECT 'user::' || i, jsonb_build_object('_schema', '1', 'name', 'User ' || i, 'phone', '555-' || i)
FROM generate_series(1, 50) i;

\echo == a migration file in a transaction: register, start, commit; a worker runs it
BEGIN;
SELECT docmodel.register_migration('user', '1', '2', steps => '[
  {"op": "split", "path": "/name", "into": ["/first", "/last"]}]');
-- CALL migrate_collection cannot run here
CALL docmodel.migrate_collection('tool_users');
ROLLBACK;
BEGIN;
SELECT docmodel.register_migration('user', '1', '2', steps => '[
  {"op": "split", "path": "/name", "into": ["/first", "/last"]}]');
SELECT docmodel.start_migration('tool_users', batch_size => 7) AS run \gset
SELECT status, docs_done FROM docmodel.migration_runs WHERE run_id = :run;
-- waiting inside the transaction that started it would wait for ever
SELECT set_config('tools.run', :'run', false) IS NOT NULL AS set;
DO $$
BEGIN
    PERFORM docmodel.wait_migration(current_setting('tools.run')::bigint);
EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE '%: %', SQLSTATE, replace(SQLERRM, current_setting('tools.run'), 'N');
END
$$;
ROLLBACK;
-- the run went with the transaction; the worker finds nothing to do
SELECT count(*) FROM docmodel.migration_runs WHERE run_id = :run;
BEGIN;
SELECT docmodel.register_migration('user', '1', '2', steps => '[
  {"op": "split", "path": "/name", "into": ["/first", "/last"]}]');
SELECT docmodel.start_migration('tool_users', batch_size => 7) AS run \gset
COMMIT;
SELECT docmodel.wait_migration(:run);
SELECT status, docs_done, docs_total FROM docmodel.migration_runs WHERE run_id = :run;
SELECT count(*) FILTER (WHERE doc ->> '_schema' = '2') AS at_2, count(*) FROM tool_users;
SELECT doc ->> 'first', doc ->> 'last' FROM tool_users WHERE id = 'user::7';

\echo == several statements sent as one string are one transaction block too
SELECT docmodel.register_migration('user', '2', '3', steps => '[
  {"op": "wrap", "path": "/phone", "into": "/phones"}]') \; SELECT docmodel.start_migration('tool_users', 'user', '3') AS run \gset
SELECT docmodel.wait_migration(:run, interval '60 seconds');
SELECT count(*) FILTER (WHERE doc ->> '_schema' = '3') AS at_3 FROM tool_users;

\echo == a small collection in the caller transaction
BEGIN;
SELECT docmodel.register_migration('user', '3', '4', steps => '[
  {"op": "default", "path": "/tags", "value": []}]');
SELECT docmodel.migrate_documents('tool_users');
SELECT count(*) FILTER (WHERE doc ->> '_schema' = '4') AS at_4 FROM tool_users;
COMMIT;
SELECT docmodel.migrate_documents('tool_users');

\echo == reverting: drop_migration, the last rule of the chain
SELECT docmodel.drop_migration('user', '2');
SELECT docmodel.drop_migration('user', '3');
SELECT docmodel.drop_migration('user', '3');
SELECT docmodel.drop_migration('user', NULL);
SELECT docmodel.drop_migration('user', '1', 'pg_class');
SELECT from_version, to_version FROM docmodel.migration_rules WHERE doc_type = 'user' ORDER BY 1;

\echo == errors
SELECT docmodel.start_migration(NULL);
SELECT docmodel.start_migration('tool_users', batch_size => 0);
SELECT docmodel.start_migration('tool_users', 'user', '9');
SELECT docmodel.wait_migration(NULL);
SELECT docmodel.wait_migration(-1);
SELECT docmodel.migrate_documents('tool_users', NULL, '2');

SELECT docmodel.drop_collection('tool_users');
DELETE FROM docmodel.migration_rules WHERE doc_type = 'user';
DELETE FROM docmodel.migration_run;

\echo == no worker for a run this transaction did not queue
SELECT docmodel._migration_launch(1, 10);
SELECT docmodel._migration_launch(NULL, 10);
SELECT docmodel._migration_launch(1, 0);
