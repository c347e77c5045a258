-- Revert docmodel_tools:user_2 from pg
-- Documents go back down in this transaction (the rule switched off
-- first, so that 1.0 is the current version), then the rule goes.

BEGIN;

SELECT docmodel.set_migration_active('user', '1.0', false);
SELECT docmodel.migrate_documents('tool_users', 'user', '1.0');
SELECT docmodel.drop_migration('user', '1.0');

COMMIT;
