-- Up Migration
-- The rule, and its bulk run: node-pg-migrate sends this as one string in
-- its transaction; start_migration queues the run, a background worker
-- runs it once the transaction commits.
SELECT docmodel.register_migration('user', '1.0', '2.0', steps => '[
  {"op": "split", "path": "/name", "into": ["/firstName", "/lastName"], "separator": " "}]');
SELECT docmodel.start_migration('tool_users', 'user', '2.0');

-- Down Migration
-- Documents back down in this transaction, then the rule goes.
SELECT docmodel.set_migration_active('user', '1.0', false);
SELECT docmodel.migrate_documents('tool_users', 'user', '1.0');
SELECT docmodel.drop_migration('user', '1.0');
