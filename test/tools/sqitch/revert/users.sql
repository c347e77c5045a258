-- Revert docmodel_tools:users from pg

BEGIN;

SELECT docmodel.drop_collection('tool_users');

COMMIT;
