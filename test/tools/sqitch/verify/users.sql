-- Verify docmodel_tools:users on pg

SELECT 1 / count(*) FROM tool_users;
