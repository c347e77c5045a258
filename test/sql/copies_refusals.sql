-- What copy and aggregate rules refuse when declared, and what a deferred
-- rule queues: aggregates that would feed each other forever, a collection
-- recorded as its own documents view, and source writes that change no copy.
\i test/sql/include/try.sql
SET client_min_messages = warning;
\set VERBOSITY sqlstate
SELECT docmodel.create_collection('cr_a') IS NOT NULL, docmodel.create_collection('cr_b') IS NOT NULL,
       docmodel.create_collection('cr_c') IS NOT NULL;
INSERT INTO cr_a VALUES ('a1', '{"b": "b1", "c": "c1"}');
INSERT INTO cr_b VALUES ('b1', '{"a": "a1", "c": "c1"}');
INSERT INTO cr_c VALUES ('c1', '{"a": "a1"}');
-- A aggregates B; B aggregating A would recompute forever (a sum of _ver
-- changes each time it is written): refused, directly or through C
SELECT docmodel.create_aggregate('cr_a', '/versions', 'cr_b', '/a', 'sum:/_ver');
SELECT pg_temp.try($$SELECT docmodel.create_aggregate('cr_b', '/versions', 'cr_a', '/b', 'sum:/_ver')$$);
SELECT docmodel.create_aggregate('cr_c', '/n', 'cr_a', '/c', 'count');
SELECT pg_temp.try($$SELECT docmodel.create_aggregate('cr_b', '/n', 'cr_c', '/a', 'count')$$);
-- a copy the other way is no aggregate cycle (books copy authors' names,
-- authors count books), nor is a collection aggregating itself (a tree)
SELECT docmodel.create_copy('cr_b', '/copied', 'cr_a', '{"v": "/versions"}') IS NOT NULL AS copy;
INSERT INTO cr_a VALUES ('t1', '{}'), ('t2', '{"parent": "t1"}');
SELECT docmodel.create_aggregate('cr_a', '/children', 'cr_a', '/parent', 'count');
UPDATE cr_b SET doc = doc || '{"x": 1}';
SELECT id, doc->'versions' AS versions, doc->'children' AS children FROM cr_a ORDER BY id;
-- the documents view of a collection is a view, never the collection itself
SELECT pg_temp.try($$SELECT docmodel._config_set_documents('cr_a', 'cr_a')$$);
SELECT pg_temp.try($$SELECT docmodel._config_set_documents('cr_a', 'cr_b')$$);
SELECT documents FROM docmodel.collections WHERE collection = 'cr_a'::regclass;
-- a deferred rule queues a source key only when a document holds copies of
-- it and they change
SELECT docmodel.create_collection('cr_src') IS NOT NULL, docmodel.create_collection('cr_dst') IS NOT NULL;
INSERT INTO cr_src VALUES ('s1', '{"name": "One", "other": 1}');
INSERT INTO cr_dst VALUES ('d1', '{"src": {"id": "s1"}}');
SELECT docmodel.create_copy('cr_dst', '/src', 'cr_src', '{"name": "/name"}', mode => 'deferred') AS filled;
UPDATE cr_src SET doc = jsonb_set(doc, '{other}', '2');
INSERT INTO cr_src VALUES ('s2', '{"name": "Two"}');
SELECT count(*) AS queued_for_no_copy FROM docmodel.copy_queue;
UPDATE cr_src SET doc = jsonb_set(doc, '{name}', '"Uno"') WHERE id = 's1';
UPDATE cr_src SET doc = jsonb_set(doc, '{name}', '"Dos"') WHERE id = 's2';
SELECT key FROM docmodel.copy_queue ORDER BY key;
-- a document referring to s2 is filled when written
INSERT INTO cr_dst VALUES ('d2', '{"src": {"id": "s2"}}');
SELECT id, doc->'src'->>'name' AS name FROM cr_dst ORDER BY id;
CALL docmodel.apply_copies('cr_dst');
SELECT id, doc->'src'->>'name' AS name FROM cr_dst ORDER BY id;
SELECT docmodel.drop_collection(c) FROM unnest(ARRAY['cr_dst', 'cr_src', 'cr_c', 'cr_b', 'cr_a']) AS c;
