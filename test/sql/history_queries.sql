-- Queries over history: get(..., as_of), collection_as_of, changes, blame.
\i test/sql/include/try.sql
SET docmodel.actor = 'alice';
SELECT docmodel.create_collection('hq', revisions => 100) IS NOT NULL AS created;
-- (an insert is dated by its modified stamp, in milliseconds: t0 is a whole
-- millisecond before it)
SELECT clock_timestamp() AS t0 \gset
SELECT pg_sleep(0.002);
INSERT INTO hq (id, doc, cas) VALUES ('user::1', '{"name": "Joe", "a": {"b": 1, "c": [1, 2]}}', 0);
SELECT now() AS t1 \gset
SET docmodel.actor = 'bob';
UPDATE hq SET doc = jsonb_set(doc, '{a,b}', '2') WHERE id = 'user::1';
SELECT now() AS t2 \gset
UPDATE hq SET doc = doc || '{"name": "Joe Smith"}' WHERE id = 'user::1';
SELECT now() AS t3 \gset
DELETE FROM hq WHERE id = 'user::1';
SELECT now() AS t4 \gset
SELECT pg_sleep(0.002);
SELECT docmodel.restore('hq', 'user::1', 2) > 0 AS restored;
SELECT now() AS t5 \gset
-- as of each moment
SELECT docmodel.get('hq', 'user::1', as_of => :'t0'::timestamptz) IS NULL AS before_insert;
SELECT d->'name', d->'a', d->'_ver' FROM docmodel.get('hq', 'user::1', as_of => :'t1'::timestamptz) AS d;
SELECT d->'name', d->'a', d->'_ver' FROM docmodel.get('hq', 'user::1', as_of => :'t2'::timestamptz) AS d;
SELECT d->'name', d->'a', d->'_ver' FROM docmodel.get('hq', 'user::1', as_of => :'t3'::timestamptz) AS d;
SELECT docmodel.get('hq', 'user::1', as_of => :'t4'::timestamptz) IS NULL AS while_deleted;
SELECT d->'name', d->'a', d->'_ver' FROM docmodel.get('hq', 'user::1', as_of => :'t5'::timestamptz) AS d;
SELECT d->'_ver' FROM docmodel.get('hq', 'user::1', as_of => now()) AS d;
SELECT id, doc->'_ver' FROM docmodel.collection_as_of('hq', :'t3'::timestamptz);
SELECT count(*) FROM docmodel.collection_as_of('hq', :'t4'::timestamptz);
-- changes
SELECT ver, changed_by, op, CASE WHEN op = $$update$$ THEN (SELECT jsonb_agg(e) FROM jsonb_array_elements(patch) e WHERE e->>'path' NOT LIKE '/\_%') END AS patch FROM docmodel.changes('hq', 'user::1');
SELECT ver, op FROM docmodel.changes('hq', 'user::1', since => :'t2'::timestamptz, until => :'t4'::timestamptz);
-- blame
SELECT path, ver, changed_by FROM docmodel.blame('hq', 'user::1');
-- NULLs and odd values
SELECT pg_temp.try($$SELECT docmodel.get(NULL, 'k', as_of => now())$$);
SELECT pg_temp.try($$SELECT docmodel.get('hq', 'k', as_of => NULL)$$);
SELECT docmodel.get('hq', NULL, as_of => now()) IS NULL AS null_key;
SELECT pg_temp.try($$SELECT docmodel.collection_as_of('hq', NULL)$$);
SELECT pg_temp.try($$SELECT docmodel.changes(NULL, 'k')$$);
SELECT count(*) FROM docmodel.changes('hq', NULL);
SELECT count(*) FROM docmodel.blame('hq', NULL);
SELECT count(*) FROM docmodel.blame('hq', 'nobody');
CREATE TABLE hq_plain (id text);
SELECT pg_temp.try($$SELECT docmodel.get('hq_plain', 'k', as_of => now())$$);
SELECT docmodel.create_collection('hq_nohist') IS NOT NULL AS created;
SELECT pg_temp.try($$SELECT docmodel.blame('hq_nohist', 'k')$$);

-- path_history: the revisions whose change touched a path, by the index
SELECT docmodel.create_collection('hp', revisions => 10) IS NOT NULL AS created;
SELECT pg_temp.try($$SELECT docmodel.path_history('hp', '/a')$$);
SELECT docmodel.set_path_index('hp', true);
INSERT INTO hp (id, doc, cas) VALUES ('p::1', '{"a": {"b": 1, "c": 1}, "d": 1}', 0),
                                     ('p::2', '{"a": {"b": 1}, "d": 1}', 0);
UPDATE hp SET doc = jsonb_set(doc, '{a,b}', '2') WHERE id = 'p::1';
UPDATE hp SET doc = jsonb_set(doc, '{d}', '2') WHERE id = 'p::1';
UPDATE hp SET doc = jsonb_set(doc, '{a}', '{"b": 1, "c": 5}') WHERE id = 'p::2';
UPDATE hp SET doc = doc - 'a' WHERE id = 'p::1';
DELETE FROM hp WHERE id = 'p::2';
SELECT id, ver, changed_by, old, new FROM docmodel.path_history('hp', '/a/b') ORDER BY id, ver;
SELECT id, ver, old, new FROM docmodel.path_history('hp', '/a') ORDER BY id, ver;
SELECT id, ver, old, new FROM docmodel.path_history('hp', '/a/c') ORDER BY id, ver;
SELECT id, ver, old, new FROM docmodel.path_history('hp', '/d') ORDER BY id, ver;
SELECT count(*) FROM docmodel.path_history('hp', '/nowhere');
SELECT count(*) FROM docmodel.path_history('hp', '/a/b', since => now() + interval '1 day');
SELECT id, ver, ARRAY(SELECT k FROM unnest(paths) k WHERE k NOT LIKE '%/\_%') AS paths FROM hp_revisions ORDER BY id, ver;
SELECT pg_temp.try($$SELECT docmodel.path_history('hp', 'a/b')$$);
SELECT pg_temp.try($$SELECT docmodel.path_history('hp', '/a~2')$$);
SELECT pg_temp.try($$SELECT docmodel.path_history('hp', NULL)$$);
SELECT pg_temp.try($$SELECT docmodel.path_history(NULL, '/a')$$);
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM hp_revisions r WHERE r.paths && docmodel._pointer_keys('/a/b');
RESET enable_seqscan;
SELECT docmodel._pointer_keys('/a/b~1c'), docmodel._pointer_path('/a/b~1c/~0d');
SELECT pg_temp.try($$SELECT docmodel.set_path_index('hp', NULL)$$);
SELECT pg_temp.try($$SELECT docmodel.set_path_index('hq_nohist', true)$$);

-- erase_path: the value goes from the document and every revision
SELECT docmodel.create_collection('he', revisions => 10) IS NOT NULL AS created;
SELECT docmodel.set_path_index('he', true);
INSERT INTO he (id, doc, cas) VALUES ('e::1', '{"ssn": "123-45-6789", "name": "Ann"}', 0),
                                     ('e::2', '{"ssn": "999-99-9999", "name": "Bob"}', 0);
UPDATE he SET doc = doc || '{"name": "Ann B"}' WHERE id = 'e::1';
UPDATE he SET doc = doc || '{"ssn": {"old": "123-45-6789", "k123-45-6789": 1}}' WHERE id = 'e::1';
UPDATE he SET doc = doc || '{"age": 40}' WHERE id = 'e::1';
SELECT docmodel.erase_path('he', 'e::1', '/ssn');
SELECT count(*) AS holding FROM (SELECT h::text FROM he_revisions h UNION ALL SELECT c::text FROM he c) t(x)
  WHERE x LIKE '%123-45-6789%';
SELECT id, doc->'name' AS name, doc->'age' AS age, doc ? 'ssn' AS has_ssn FROM he ORDER BY id;
SELECT ver, op, changed_by, doc->'name' AS name, doc ? 'ssn' AS has_ssn FROM docmodel.revisions('he', 'e::1');
SELECT id, path, erased_by FROM docmodel.erasures('he');
SELECT pg_temp.try($$SELECT docmodel.erase_path('he', 'e::1', '')$$);
SELECT pg_temp.try($$SELECT docmodel.erase_path('he', 'e::1', 'ssn')$$);
SELECT pg_temp.try($$SELECT docmodel.erase_path('he', NULL, '/ssn')$$);
SELECT docmodel.erase_path('he', 'nobody', '/ssn');
CREATE ROLE hq_reader;
GRANT SELECT, UPDATE ON he, he_revisions TO hq_reader;
SET ROLE hq_reader;
SELECT pg_temp.try($$SELECT docmodel.erase_path('he', 'e::2', '/ssn')$$);
SELECT pg_temp.try($$SELECT docmodel._record_erasure('he', 'e::2', '/x')$$);
SELECT count(*) FROM docmodel.erasures('he');
SELECT d->'name' FROM docmodel.get('he', 'e::2', as_of => now()) AS d;
RESET ROLE;
SELECT pg_temp.try($$SELECT * FROM docmodel.erasures('he')$$);
SET ROLE hq_reader;
SELECT pg_temp.try($$SELECT docmodel.set_path_index('he', false)$$);
RESET ROLE;
REVOKE ALL ON he, he_revisions FROM hq_reader;
SET ROLE hq_reader;
SELECT pg_temp.try($$SELECT docmodel.get('he', 'e::2', as_of => now())$$);
SELECT pg_temp.try($$SELECT * FROM docmodel.erasures('he')$$);
SELECT count(*) AS erasures_seen FROM docmodel.erasures;
SELECT pg_temp.try($$INSERT INTO docmodel.erasures VALUES ('he', 'x', '/y', now(), 'me')$$);
RESET ROLE;
SELECT count(*) AS erasures_seen FROM docmodel.erasures;
DROP ROLE hq_reader;

-- retention by age: kept while among the last keep or younger than keep_for
SELECT docmodel.create_collection('hk', revisions => 2) IS NOT NULL AS created;
INSERT INTO hk (id, doc, cas) VALUES ('k::1', '{"n": 0}', 0);
UPDATE hk SET doc = '{"n": 1}' WHERE id = 'k::1';
UPDATE hk SET doc = '{"n": 2}' WHERE id = 'k::1';
UPDATE hk SET doc = '{"n": 3}' WHERE id = 'k::1';
SELECT array_agg(ver ORDER BY ver) FROM hk_revisions;
SELECT docmodel.set_revisions('hk', 2, keep_for => interval '1 hour') IS NOT NULL AS set;
SELECT keep_for FROM (SELECT revisions_keep_for AS keep_for FROM docmodel.collection_config WHERE coll = 'hk'::regclass) s;
UPDATE hk SET doc = '{"n": 4}' WHERE id = 'k::1';
UPDATE hk SET doc = '{"n": 5}' WHERE id = 'k::1';
SELECT array_agg(ver ORDER BY ver) FROM hk_revisions;
-- age them: older than keep_for, they go on the next write and in purge_expired
UPDATE hk_revisions SET changed_at = changed_at - interval '2 hours' WHERE ver <= 3;
SELECT docmodel.purge_expired('hk');
SELECT array_agg(ver ORDER BY ver) FROM hk_revisions;
UPDATE hk_revisions SET changed_at = changed_at - interval '2 hours';
UPDATE hk SET doc = '{"n": 6}' WHERE id = 'k::1';
SELECT array_agg(ver ORDER BY ver) FROM hk_revisions;
SELECT pg_temp.try($$SELECT docmodel.set_revisions('hk', 2, keep_for => interval '-1 hour')$$);
SELECT docmodel.set_revisions('hk', 2) IS NOT NULL AS set;
SELECT revisions_keep_for FROM docmodel.collection_config WHERE coll = 'hk'::regclass;
-- the path index goes as it came
SELECT docmodel.set_path_index('hp', false);
SELECT count(*) FROM pg_attribute WHERE attrelid = 'hp_revisions'::regclass AND attname = 'paths' AND NOT attisdropped;
UPDATE hp SET doc = doc || '{"z": 1}' WHERE id = 'p::1';
SELECT pg_temp.try($$SELECT docmodel.path_history('hp', '/z')$$);
DO $$ BEGIN
  PERFORM docmodel.drop_collection(c) FROM unnest('{hq,hp,hq_nohist,he,hk}'::regclass[]) c;
END $$;
DROP TABLE hq_plain;
