-- distribute_collection without Citus: a clear refusal (the Citus suite,
-- test/citus, runs the rest on a cluster).
\i test/sql/include/try.sql
SELECT docmodel.create_collection('dist_users', 'user');
SELECT pg_temp.try($$SELECT docmodel.distribute_collection('dist_users')$$);
SELECT pg_temp.try($$SELECT docmodel.distribute_collection('dist_users', 8)$$);
SELECT pg_temp.try($$SELECT docmodel.undistribute_collection('dist_users')$$);
-- The workers' half refuses to run anywhere else; the push does nothing.
SELECT pg_temp.try($$SELECT docmodel._citus_apply('[]', '[]', '[]')$$);
SELECT docmodel._citus_push();
-- The collection works as before.
INSERT INTO dist_users (id, doc) VALUES ('user::1', '{"name": "Ada"}');
SELECT id, doc->'_ver' AS ver FROM dist_users_documents;
SELECT docmodel.drop_collection('dist_users');
