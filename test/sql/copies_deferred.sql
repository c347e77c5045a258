-- Deferred copy rules: a write of a source queues its key (once per rule
-- and key), apply_copies rewrites the referring documents later through
-- the collection trigger; the lag view; on_missing; privileges; errors.
SET client_min_messages = warning;
\set VERBOSITY sqlstate
SELECT docmodel.create_collection('dauthors') IS NOT NULL AS authors,
       docmodel.create_collection('dbooks', revisions => 5) IS NOT NULL AS books;
INSERT INTO dauthors (id, doc) VALUES
  ('a1', '{"firstName": "Thomas", "lastName": "Andersen"}'),
  ('a2', '{"firstName": "William", "lastName": "Wakefield"}');
INSERT INTO dbooks (id, doc) VALUES
  ('b1', '{"name": "Azure Cosmos DB 101", "authors": [{"id": "a1"}, {"id": "a2"}]}'),
  ('b2', '{"name": "Azure Cosmos DB for RDBMS Users", "authors": [{"id": "a1"}]}');
-- declaring fills the documents there already, as in mode sync
SELECT docmodel.create_copy('dbooks', '/authors/*', 'dauthors',
  '{"name": ["/firstName", " ", "/lastName"]}', mode => 'deferred');
SELECT mode FROM docmodel.copy_rules WHERE coll = 'dbooks'::regclass;
SELECT id, doc->'authors' AS authors, doc->'_ver' AS ver FROM dbooks_documents ORDER BY id;
-- a write of a book fills its copies from the sources at once
INSERT INTO dbooks (id, doc) VALUES ('b3', '{"name": "Learn", "authors": [{"id": "a2"}]}');
SELECT doc->'authors' FROM dbooks WHERE id = 'b3';
-- a rename queues the author's key and rewrites no book
UPDATE dauthors SET doc = jsonb_set(doc, '{lastName}', '"Andersen-Smith"') WHERE id = 'a1';
SELECT id, doc->'authors'->0->>'name' AS first, doc->'_ver' AS ver FROM dbooks_documents ORDER BY id;
SELECT key FROM docmodel.copy_queue ORDER BY key;
-- a hot source queues once; a change the copies do not show queues nothing
UPDATE dauthors SET doc = jsonb_set(doc, '{lastName}', '"Andersen-Jones"') WHERE id = 'a1';
UPDATE dauthors SET doc = jsonb_set(doc, '{lastName}', '"Andersen"') WHERE id = 'a1';
UPDATE dauthors SET doc = jsonb_set(doc, '{age}', '40') WHERE id = 'a2';
SELECT rule > 0 AS rule, key FROM docmodel.copy_queue ORDER BY key;
-- the lag, per rule
SELECT coll, path, source, queued, oldest <= now() AS oldest, age >= '0'::interval AS age FROM docmodel.copy_lag;
-- apply: the books of a1 are rewritten (stamped, versioned, history kept)
UPDATE dauthors SET doc = jsonb_set(doc, '{lastName}', '"Andersen-Smith"') WHERE id = 'a1';
CALL docmodel.apply_copies('dbooks');
SELECT id, doc->'authors' AS authors, doc->'_ver' AS ver FROM dbooks_documents ORDER BY id;
SELECT count(*) AS history FROM dbooks_revisions WHERE id = 'b1';
SELECT queued, oldest, age FROM docmodel.copy_lag;
-- nothing queued: nothing to do
CALL docmodel.apply_copies('dbooks', 1);
-- in batches: 30 authors renamed, applied 7 keys per transaction
INSERT INTO dauthors (id, doc) SELECT 'm' || i, jsonb_build_object('firstName', 'M', 'lastName', i::text) FROM generate_series(1, 30) i;
INSERT INTO dbooks (id, doc) SELECT 'mb' || i, jsonb_build_object('authors', jsonb_build_array(jsonb_build_object('id', 'm' || i), jsonb_build_object('id', 'm' || (i % 30 + 1)))) FROM generate_series(1, 30) i;
UPDATE dauthors SET doc = jsonb_set(doc, '{firstName}', '"N"') WHERE id LIKE 'm%';
SELECT queued FROM docmodel.copy_lag;
SELECT docmodel._apply_copies_batch(id, 7) FROM docmodel.copy_rules WHERE coll = 'dbooks'::regclass;
SELECT queued FROM docmodel.copy_lag;
CALL docmodel.apply_copies('dbooks', 7);
SELECT queued FROM docmodel.copy_lag;
SELECT count(*) AS stale FROM dbooks b, jsonb_array_elements(b.doc->'authors') r JOIN dauthors a ON a.id = r->>'id'
WHERE r->>'name' IS DISTINCT FROM (a.doc->>'firstName') || ' ' || (a.doc->>'lastName');

-- on_missing in mode deferred: keep queues nothing; null and remove queue
-- the key (a delete, or rename_key's delete of the old key); refuse
-- refuses at once
SELECT docmodel.create_collection('dp') IS NOT NULL, docmodel.create_collection('d_keep') IS NOT NULL,
       docmodel.create_collection('d_null') IS NOT NULL, docmodel.create_collection('d_rm') IS NOT NULL,
       docmodel.create_collection('d_ref') IS NOT NULL;
INSERT INTO dp (id, doc) VALUES ('p::1', '{"name": "Steve"}'), ('p::2', '{"name": "Ann"}'), ('p::3', '{"name": "Bo"}');
SELECT docmodel.create_copy('d_keep', '/c', 'dp', '{"name": "/name"}', mode => 'deferred'),
       docmodel.create_copy('d_null', '/c', 'dp', '{"name": "/name"}', on_missing => 'null', mode => 'deferred'),
       docmodel.create_copy('d_rm', '/c', 'dp', '{"name": "/name"}', on_missing => 'remove', mode => 'deferred'),
       docmodel.create_copy('d_ref', '/c', 'dp', '{"name": "/name"}', on_missing => 'refuse', mode => 'deferred');
INSERT INTO d_keep (id, doc) VALUES ('o1', '{"c": {"id": "p::1"}}'), ('o2', '{"c": {"id": "p::2"}}');
INSERT INTO d_null (id, doc) VALUES ('o1', '{"c": {"id": "p::1"}}'), ('o2', '{"c": {"id": "p::2"}}');
INSERT INTO d_rm (id, doc) VALUES ('o1', '{"c": {"id": "p::1"}}'), ('o2', '{"c": {"id": "p::2"}}');
INSERT INTO d_ref (id, doc) VALUES ('o3', '{"c": {"id": "p::3"}}');
-- refuse: a missing source, or deleting a referred one, at once (23503)
INSERT INTO d_ref (id, doc) VALUES ('o4', '{"c": {"id": "nobody"}}');
DELETE FROM dp WHERE id = 'p::3';
SELECT docmodel.rename_key('dp', 'p::3', 'p::33');
DELETE FROM docmodel.copy_queue WHERE true;
-- the keys that go are queued (for null and remove); the new key of a
-- rename is not: nobody refers to it yet
DELETE FROM dp WHERE id = 'p::1';
SELECT docmodel.rename_key('dp', 'p::2', 'p::22') > 0;
SELECT r.coll, q.key FROM docmodel.copy_queue q JOIN docmodel.copy_rules r ON r.id = q.rule ORDER BY 1, 2;
CALL docmodel.apply_copies('d_keep');
CALL docmodel.apply_copies('d_null');
CALL docmodel.apply_copies('d_rm');
SELECT 'keep' AS rule, id, doc->'c' AS c FROM d_keep UNION ALL
SELECT 'null', id, doc->'c' FROM d_null UNION ALL
SELECT 'remove', id, doc->'c' FROM d_rm ORDER BY 1, 2;
-- the references do not follow a renamed key; a document referring to the
-- new key is filled from it
UPDATE d_null SET doc = jsonb_set(doc, '{c,id}', '"p::22"') WHERE id = 'o2';
SELECT doc->'c' FROM d_null WHERE id = 'o2';

-- errors and odd arguments
CALL docmodel.apply_copies(NULL);
CALL docmodel.apply_copies('dbooks', NULL);
CALL docmodel.apply_copies('dbooks', 0);
CALL docmodel.apply_copies('dbooks', 100001);
CALL docmodel.apply_copies(0::oid::regclass);
BEGIN;
CALL docmodel.apply_copies('dbooks');
ROLLBACK;
SELECT docmodel._apply_copies_batch(NULL, 1);
SELECT docmodel._apply_copies_batch(2147483647, 1);
SELECT docmodel._apply_copies_batch(-1, 1);
SELECT docmodel._apply_copies_batch(id, -5) FROM docmodel.copy_rules WHERE coll = 'dbooks'::regclass;
-- a sync rule has no queue; an aggregate is not a copy rule
SELECT docmodel.create_aggregate('dauthors', '/n', 'dbooks', '/authors/*/id', mode => 'deferred');
SELECT docmodel.create_aggregate('dauthors', '/n', 'dbooks', '/authors/*/id');
SELECT docmodel._apply_copies_batch(id, 10) FROM docmodel.copy_rules WHERE coll = 'dauthors'::regclass;
SELECT docmodel.create_copy('d_keep', '/s', 'dauthors', '{"n": "/firstName"}');
SELECT docmodel._apply_copies_batch(id, 10) FROM docmodel.copy_rules WHERE coll = 'd_keep'::regclass AND path = '/s';
SELECT docmodel.create_copy('d_keep', '/t', 'dauthors', '{"n": "/firstName"}', mode => 'soon');
SELECT docmodel.create_copy('d_keep', '/t', 'dauthors', '{"n": "/firstName"}', mode => NULL);
CALL docmodel.apply_copies('pg_class');

-- privileges: applying needs UPDATE on the collection (42501 otherwise);
-- the documents are then rewritten as its owner, as a source write does in
-- mode sync (no right on the source needed); the queue is nobody's to read
CREATE ROLE copy_applier;
UPDATE dauthors SET doc = jsonb_set(doc, '{firstName}', '"Tom"') WHERE id = 'a1';
SET ROLE copy_applier;
CALL docmodel.apply_copies('dbooks');
SELECT docmodel._apply_copies_batch(id, 10) FROM docmodel.copy_rules WHERE coll = 'dbooks'::regclass;
SELECT count(*) FROM docmodel.copy_queue;
SELECT queued FROM docmodel.copy_lag WHERE coll = 'dbooks'::regclass;
RESET ROLE;
GRANT UPDATE ON dbooks TO copy_applier;
SET ROLE copy_applier;
CALL docmodel.apply_copies('dbooks');
SELECT queued FROM docmodel.copy_lag WHERE coll = 'dbooks'::regclass;
RESET ROLE;
SELECT doc->'authors'->0->>'name' FROM dbooks WHERE id = 'b1';
-- only the owner declares or drops a rule, deferred or not
SET ROLE copy_applier;
SELECT docmodel.drop_copy('dbooks', '/authors/*');
RESET ROLE;
REVOKE ALL ON dbooks FROM copy_applier;
DROP ROLE copy_applier;

-- drop_copy forgets the rule's queued keys
UPDATE dauthors SET doc = jsonb_set(doc, '{firstName}', '"T."') WHERE id = 'a1';
SELECT count(*) FROM docmodel.copy_queue;
SELECT docmodel.drop_copy('dbooks', '/authors/*');
SELECT count(*) FROM docmodel.copy_queue;
SELECT count(*) FROM docmodel.copy_lag WHERE coll = 'dbooks'::regclass;
SELECT docmodel.drop_collection(c) FROM unnest(ARRAY['dbooks', 'dauthors', 'dp', 'd_keep', 'd_null', 'd_rm', 'd_ref']) c;
SELECT count(*) AS rules, (SELECT count(*) FROM docmodel.copy_queue) AS queued FROM docmodel.copy_rules;
