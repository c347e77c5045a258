-- Deploy docmodel_tools:user_2 to pg
-- The rule, and its bulk run: start_migration queues the run in this
-- transaction; a background worker runs it once sqitch commits.

BEGIN;

SELECT docmodel.register_migration('user', '1.0', '2.0', steps => '[
  {"op": "split", "path": "/name", "into": ["/firstName", "/lastName"], "separator": " "}]');
SELECT docmodel.start_migration('tool_users', 'user', '2.0');

COMMIT;
