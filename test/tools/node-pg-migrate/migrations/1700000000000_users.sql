-- Up Migration
CREATE EXTENSION IF NOT EXISTS docmodel;
SELECT docmodel.create_collection('tool_users');
INSERT INTO tool_users (id, doc)
SELECT 'user::' || i, jsonb_build_object('_schema', '1.0', 'name', 'User ' || i, 'phone', '555-' || i)
FROM generate_series(1, 500) i;

-- Down Migration
SELECT docmodel.drop_collection('tool_users');
