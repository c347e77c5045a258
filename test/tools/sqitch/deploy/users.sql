-- Deploy docmodel_tools:users to pg

BEGIN;

CREATE EXTENSION IF NOT EXISTS docmodel;
SELECT docmodel.create_collection('tool_users');
INSERT INTO tool_users (id, doc)
SELECT 'user::' || i, jsonb_build_object('_schema', '1.0', 'name', 'User ' || i, 'phone', '555-' || i)
FROM generate_series(1, 500) i;

COMMIT;
