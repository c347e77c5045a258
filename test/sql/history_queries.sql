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
