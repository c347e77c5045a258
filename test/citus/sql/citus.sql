-- Scale-out on Citus (run by scripts/citus.sh on a coordinator and two
-- workers): distribute_collection, and the single-node contract from the
-- coordinator on a distributed collection.
-- (pg_temp functions stay on the coordinator: Citus warns, quietly here)
SET client_min_messages TO error;
\i test/sql/include/try.sql
SET citus.next_shard_id TO 990000;
-- The node a shard of rel holding key is on (workers only: 1 or 2).
CREATE FUNCTION pg_temp.node_of(rel regclass, key text) RETURNS int LANGUAGE sql AS $$
  SELECT dense_rank FROM (SELECT n.groupid, dense_rank() OVER (ORDER BY n.nodeport)
                          FROM pg_dist_node n WHERE n.groupid <> 0) r
  WHERE r.groupid = (SELECT p.groupid FROM pg_dist_placement p
                     WHERE p.shardid = get_shard_id_for_distribution_column(rel, key))
$$;
RESET client_min_messages;

SELECT docmodel.create_collection('users', 'user', revisions => 3);
-- Before it is distributed, the coordinator holds it.
SELECT pg_temp.try($$SELECT docmodel.undistribute_collection('users')$$);
SELECT pg_temp.try($$SELECT docmodel.distribute_collection('users', 0)$$);
SELECT pg_temp.try($$SELECT docmodel.distribute_collection('pg_class')$$);
SELECT docmodel.distribute_collection('users', 4);
-- Hash-distributed on id, history colocated.
SELECT logicalrelid, partmethod, column_to_column_name(logicalrelid, partkey) AS col,
       colocationid = (SELECT colocationid FROM pg_dist_partition WHERE logicalrelid = 'users'::regclass) AS colocated
FROM pg_dist_partition WHERE logicalrelid IN ('users'::regclass, 'users_revisions'::regclass) ORDER BY 1;
-- Every worker has the configuration, naming its own tables.
SELECT nodeport > 0 AS worker, result FROM run_command_on_workers(
  $$SELECT string_agg(format('%s %s %s %s', id, coll, revisions, revisions_table), ',') FROM docmodel.collection_config$$)
ORDER BY nodeport;

-- Plain SQL writes, stamped on the shards.
INSERT INTO users (id, doc) VALUES ('user::1', '{"name": "Ada"}'), ('user::2', '{"name": "Bob"}');
UPDATE users SET doc = doc || '{"age": 36}' WHERE id = 'user::1';
COPY users (id, doc) FROM stdin;
user::c	{"name": "Cy"}
user::d	{"name": "Di"}
\.
INSERT INTO users (id, doc) VALUES ('user::2', '{"name": "Bo"}')
  ON CONFLICT (id) DO UPDATE SET doc = EXCLUDED.doc;
DELETE FROM users WHERE id = 'user::d';
SELECT id, doc->>'name' AS name, doc->'_ver' AS ver, doc->>'_type' AS type, cas > 0 AS cas
FROM users ORDER BY id;
-- Type checks and key checks run on the shards too.
SELECT pg_temp.try($$INSERT INTO users (id, doc) VALUES ('order::1', '{}')$$);
SELECT pg_temp.try($$INSERT INTO users (id, doc) VALUES ('user::9', '[1]')$$);
SELECT pg_temp.try($$UPDATE users SET id = 'user::8' WHERE id = 'user::1'$$);

-- The KV API.
SELECT docmodel.insert('users', 'user::5', '{"name": "Eve"}') > 0 AS inserted;
SELECT pg_temp.try($$SELECT docmodel.insert('users', 'user::5', '{"name": "Eve"}')$$);
SELECT docmodel.upsert('users', 'user::5', '{"name": "Eva"}') > 0 AS upserted;
SELECT split_part(pg_temp.try($$SELECT docmodel.replace('users', 'user::5', '{"name": "X"}', cas => 1)$$), ' (', 1) AS replace;
SELECT cas AS cas5 FROM users WHERE id = 'user::5' \gset
SELECT docmodel.replace('users', 'user::5', '{"name": "Evi"}', cas => :cas5) > 0 AS replaced;
SELECT docmodel.get('users', 'user::5')->>'name' AS name, docmodel.exists('users', 'user::5') AS exists;
-- A write that is the whole statement commits with the worker's own
-- commit (no remote transaction block); a statement writing several, or a
-- transaction block, still commits or rolls back as one.
\set VERBOSITY terse
SELECT docmodel.upsert('users', k, '{"name": "M"}') FROM (VALUES ('user::60'), ('order::61')) v(k);
\set VERBOSITY default
BEGIN;
SELECT docmodel.upsert('users', 'user::62', '{"name": "R"}') > 0 AS upserted;
ROLLBACK;
SELECT count(*) AS none FROM users WHERE id IN ('user::60', 'user::62');
SELECT docmodel.upsert('users', 'user::63', '{"name": "T"}') > 0 AS upserted;
SHOW citus.function_opens_transaction_block;  -- (restored after the write)
DELETE FROM users WHERE id = 'user::63';
SELECT key, doc->>'name' AS name FROM docmodel.get_multi('users', ARRAY['user::1', 'user::5', 'user::7']) ORDER BY key;
SELECT docmodel.touch('users', 'user::5', 3600) > 0 AS touched;
SELECT (SELECT expires_at IS NOT NULL FROM users WHERE id = 'user::5') AS expires;
-- Locks hold on the shards, and the lock's cas carries them there: a
-- replace, a mutate_in, an unlock or a remove presenting it passes, others
-- are refused.
SELECT docmodel.insert('users', 'user::50', '{"name": "Lu"}') > 0 AS inserted;
SELECT (l).doc->>'name' AS locked, (l).cas AS lockcas
FROM (SELECT docmodel.get_and_lock('users', 'user::50', 30) AS l) x \gset
SELECT :'locked' AS locked;
SELECT split_part(pg_temp.try($$SELECT docmodel.upsert('users', 'user::50', '{"name": "Z"}')$$), ' (', 1) AS upsert;
SELECT split_part(pg_temp.try($$SELECT docmodel.mutate_in('users', 'user::50', '[{"op": "upsert", "path": "x", "value": 1}]')$$), ' (', 1) AS mutate_in;
SELECT split_part(pg_temp.try($$SELECT docmodel.remove('users', 'user::50')$$), ' (', 1) AS remove;
SELECT docmodel.replace('users', 'user::50', '{"name": "Lou"}', cas => :lockcas) > 0 AS replaced_locked;
SELECT locked_until IS NULL AS unlocked FROM users WHERE id = 'user::50';
SELECT (l).cas AS lockcas FROM (SELECT docmodel.get_and_lock('users', 'user::50', 30) AS l) x \gset
SELECT docmodel.mutate_in('users', 'user::50', '[{"op": "upsert", "path": "x", "value": 1}]', cas => :lockcas)->'cas' IS NOT NULL AS mutated_locked;
SELECT (l).cas AS lockcas FROM (SELECT docmodel.get_and_lock('users', 'user::50', 30) AS l) x \gset
SELECT docmodel.unlock('users', 'user::50', :lockcas) > 0 AS unlocked;
SELECT (l).cas AS lockcas FROM (SELECT docmodel.get_and_lock('users', 'user::50', 30) AS l) x \gset
SELECT docmodel.remove('users', 'user::50', :lockcas) > 0 AS removed_locked;
SELECT doc->>'name' AS name, doc->'x' AS x, op FROM docmodel.revisions('users', 'user::50') ORDER BY ver;
-- Sub-documents: read on the shard, changed on the coordinator between a
-- locking read and the write (Citus runs no VOLATILE function on a shard).
SELECT docmodel.lookup_in('users', 'user::1', '[{"op": "get", "path": "age"}]');
SELECT docmodel.mutate_in('users', 'user::1', '[{"op": "increment", "path": "age", "delta": 1}, {"op": "upsert", "path": "nick", "value": "A"}]')->'results' AS results;
SELECT doc->'age' AS age, doc->'nick' AS nick, doc->'_ver' AS ver FROM users WHERE id = 'user::1';
SELECT docmodel.mutate_in('users', 'user::6', '[{"op": "upsert", "path": "name", "value": "Gus"}]', store_semantics => 'upsert')->'results' AS upserted;
SELECT split_part(pg_temp.try($$SELECT docmodel.mutate_in('users', 'user::6', '[{"op": "insert", "path": "name", "value": "G"}]')$$), ' (', 1) AS path_exists;
SELECT split_part(pg_temp.try($$SELECT docmodel.mutate_in('users', 'user::6', '[{"op": "upsert", "path": "b", "value": 1}]', store_semantics => 'insert')$$), ' (', 1) AS doc_exists;
SELECT split_part(pg_temp.try($$SELECT docmodel.mutate_in('users', 'user::7', '[{"op": "upsert", "path": "a", "value": 1}]')$$), ' (', 1) AS absent;
SELECT split_part(pg_temp.try($$SELECT docmodel.mutate_in('users', 'user::6', '[{"op": "upsert", "path": "a", "value": 1}]', cas => 1)$$), ' (', 1) AS stale;
SELECT doc->>'name' AS name, doc ? 'a' AS a FROM users WHERE id = 'user::6';
SELECT docmodel.remove('users', 'user::6') > 0 AS removed;
SELECT docmodel.remove('users', 'user::5') > 0 AS removed;
SELECT docmodel.exists('users', 'user::5') AS exists;

-- Revisions: history written on the shard next to its document.
SELECT ver, op, doc->>'name' AS name FROM docmodel.revisions('users', 'user::1') ORDER BY ver;
SELECT ver, op FROM docmodel.revisions('users', 'user::5') ORDER BY ver;
SELECT docmodel.restore('users', 'user::5', 1) > 0 AS restored;
SELECT doc->>'name' AS name, doc->'_ver' AS ver FROM users WHERE id = 'user::5';
WITH r AS MATERIALIZED (SELECT DISTINCT id FROM users_revisions)
SELECT r.id, pg_temp.node_of('users_revisions', r.id) = pg_temp.node_of('users', r.id) AS same_node
FROM r ORDER BY 1;

-- Key lookups go to one shard.
EXPLAIN (COSTS OFF) SELECT doc FROM users WHERE id = docmodel.key('user', 1);

-- Migrations: the rules reach the workers, documents migrate on read, on
-- write, and in bulk, shard by shard on both workers.
INSERT INTO users (id, doc)
  SELECT 'user::' || g, jsonb_build_object('name', 'n' || g, '_schema', '1') FROM generate_series(10, 209) g;
WITH d AS MATERIALIZED (SELECT id FROM users WHERE doc->>'_schema' = '1')
SELECT count(*) AS at_1, count(DISTINCT pg_temp.node_of('users', id)) AS nodes FROM d;
SELECT docmodel.register_migration('user', '1', '2', steps => '[{"op": "add", "path": "/plan", "value": "free"}]');
SELECT nodeport > 0 AS worker, result FROM run_command_on_workers(
  $$SELECT string_agg(format('%s %s %s', doc_type, from_version, to_version), ',') FROM docmodel.migration_rules$$)
ORDER BY nodeport;
SELECT docmodel.get('users', 'user::10')->>'plan' AS plan_on_read;
UPDATE users SET doc = doc || '{"seen": true}' WHERE id = 'user::11';
SELECT doc->>'_schema' AS schema, doc->>'plan' AS plan FROM users WHERE id = 'user::11';
SELECT * FROM docmodel.migration_plan('users') ORDER BY version;
-- Batches run shard by shard on the workers.
SET client_min_messages TO warning;  -- (progress notices carry rates)
CALL docmodel.migrate_collection('users', batch_size => 50);
RESET client_min_messages;
SELECT status, docs_done FROM docmodel.migration_runs;
SELECT count(*) FILTER (WHERE doc->>'_schema' = '1') AS at_1, count(*) FILTER (WHERE doc->>'plan' = 'free') AS migrated FROM users;
SELECT * FROM docmodel.migration_plan('users') ORDER BY version;
-- Shards that their statistics say are small migrate in one UPDATE each.
SELECT docmodel.register_migration('user', '2', '3', steps => '[{"op": "add", "path": "/tier", "value": 1}]');
ANALYZE users;
SET client_min_messages TO warning;
CALL docmodel.migrate_collection('users', batch_size => 1000);
RESET client_min_messages;
SELECT status, docs_done, docs_total FROM docmodel.migration_runs ORDER BY run_id;
SELECT count(*) FILTER (WHERE doc->>'tier' = '1') AS at_3, count(*) AS docs FROM users;
-- A rule's function would be this node's alone: refused on distribution.
CREATE FUNCTION public.upgrade_order(doc jsonb) RETURNS jsonb LANGUAGE sql AS 'SELECT doc';
SELECT docmodel.register_migration('order', '1', '2', fn => 'public.upgrade_order(jsonb)');
SELECT docmodel.create_collection('orders', 'order');
SELECT pg_temp.try($$SELECT docmodel.distribute_collection('orders')$$);
DELETE FROM docmodel.migration_rules WHERE doc_type = 'order';
SELECT docmodel.distribute_collection('orders');
SELECT docmodel.drop_collection('orders');

-- Registered schemas reach the workers: the shards validate writes.
SELECT docmodel.register_schema('user', '3', '{"type": "object", "required": ["name"]}');
SELECT nodeport > 0 AS worker, result FROM run_command_on_workers(
  $$SELECT string_agg(doc_type || ' ' || version, ',') FROM docmodel.schemas$$)
ORDER BY nodeport;
SELECT split_part(pg_temp.try($$INSERT INTO users (id, doc) VALUES ('user::400', '{"_schema": "3"}')$$), ' (', 1) AS invalid;
INSERT INTO users (id, doc) VALUES ('user::401', '{"_schema": "3", "name": "V"}');
SELECT docmodel.drop_schema('user', '3');
SELECT result FROM run_command_on_workers($$SELECT count(*) FROM docmodel.schemas$$);
INSERT INTO users (id, doc) VALUES ('user::400', '{"_schema": "3"}');
DELETE FROM users WHERE id IN ('user::400', 'user::401');

-- A collection on the coordinator is read and changed in place; once
-- distributed, in the same session, through the shards.
SELECT docmodel.create_collection('pets') IS NOT NULL AS created;
SELECT docmodel.insert('pets', 'pets::1', '{"n": 1}') > 0 AS inserted;
SELECT docmodel.get('pets', 'pets::1')->'n' AS n, docmodel.mutate_in('pets', 'pets::1', '[{"op": "increment", "path": "n", "delta": 1}]')->'results' AS local;
SELECT docmodel.distribute_collection('pets') IS NOT NULL AS distributed;
SELECT docmodel.get('pets', 'pets::1')->'n' AS n, docmodel.mutate_in('pets', 'pets::1', '[{"op": "increment", "path": "n", "delta": 1}]')->'results' AS sharded;
SELECT docmodel.get('pets', 'pets::1')->'n' AS n, docmodel.exists('pets', 'pets::1') AS exists;
SELECT docmodel.drop_collection('pets');

-- bucket_append works on the shards; rename_key and lookups are refused
-- (0A000): their triggers would write other keys' shards from a shard.
SELECT docmodel.create_collection('logs') IS NOT NULL AS created;
SELECT docmodel.distribute_collection('logs') IS NOT NULL AS distributed;
SELECT docmodel.bucket_append('logs', 'log::d1', '{"a": 1}', 2) AS bucket,
       docmodel.bucket_append('logs', 'log::d1', '{"a": 2}', 2) AS same,
       docmodel.bucket_append('logs', 'log::d1', '{"a": 3}', 2) AS next;
SELECT id, doc->'items' AS items FROM logs ORDER BY id;
SELECT split_part(pg_temp.try($$SELECT docmodel.rename_key('logs', 'log::d1::1', 'log::d1::9')$$), ' (', 1) AS rename;
SELECT split_part(pg_temp.try($$SELECT docmodel.create_lookup('logs', 'day', '{day}')$$), ' (', 1) AS lookup;
SELECT docmodel.undistribute_collection('logs') IS NOT NULL AS undistributed;
SELECT docmodel.create_lookup('logs', 'day', '{day}') AS indexed;
SELECT split_part(pg_temp.try($$SELECT docmodel.distribute_collection('logs')$$), ' (', 1) AS distribute;
SELECT docmodel.drop_collection('logs');

-- Tables to documents: migrate_tables loads a distributed collection; a
-- projection onto one is refused (0A000), and one onto a collection stops
-- it from being distributed.
CREATE TABLE person (id int PRIMARY KEY, name text);
CREATE TABLE address (id int PRIMARY KEY, person_id int REFERENCES person, city text);
INSERT INTO person VALUES (1, 'Ada'), (2, 'Bob');
INSERT INTO address VALUES (1, 1, 'Rome'), (2, 1, 'Oslo');
SELECT docmodel.create_mapping('people', 'person', 'person') IS NOT NULL AS mapped;
SELECT docmodel.map_embed_array('people', 'address', 'addresses', order_by => 'id') IS NOT NULL AS embedded;
SELECT docmodel.create_collection('persons') IS NOT NULL AS created;
SELECT docmodel.distribute_collection('persons') IS NOT NULL AS distributed;
CALL docmodel.migrate_tables('people', 'persons');
SELECT id, doc->>'name' AS name, jsonb_array_length(doc->'addresses') AS addresses FROM persons ORDER BY id;
SELECT split_part(pg_temp.try($$SELECT docmodel.project_tables('people', 'persons')$$), ' (', 1) AS project;
SELECT docmodel.undistribute_collection('persons') IS NOT NULL AS undistributed;
SELECT docmodel.project_tables('people', 'persons') IS NOT NULL AS projected;
SELECT split_part(pg_temp.try($$SELECT docmodel.distribute_collection('persons')$$), ' (', 1) AS distribute;
SELECT docmodel.stop_projection('people');
SELECT docmodel.drop_mapping('people');
SELECT docmodel.drop_collection('persons');
DROP TABLE address, person;

-- purge_expired on the shards.
INSERT INTO users (id, doc, expires_at) VALUES ('user::300', '{}', now() - interval '1 hour'),
  ('user::301', '{}', now() - interval '1 hour');
SELECT docmodel.purge_expired('users') AS purged;

-- Configuration changes reach the workers, in the same transaction.
BEGIN;
SELECT docmodel.set_revisions('users', 5) IS NOT NULL AS set;
ROLLBACK;
SELECT result FROM run_command_on_workers($$SELECT string_agg(revisions::text, ',') FROM docmodel.collection_config$$);
SELECT docmodel.set_revisions('users', 5) IS NOT NULL AS set;
SELECT result FROM run_command_on_workers($$SELECT string_agg(revisions::text, ',') FROM docmodel.collection_config$$);

-- Counters from the coordinator: no repeats, also as a key default.
SELECT docmodel.next_id('user') AS a, docmodel.next_id('user') AS b;
INSERT INTO users (id, doc) VALUES (docmodel.next_key('user'), '{"name": "k"}');
SELECT id, doc->>'name' AS name FROM users WHERE id = docmodel.key('user', 3);
-- On a worker they would count apart: refused there.
SELECT result FROM run_command_on_workers($$SELECT docmodel.next_id('user')$$);

-- undistribute_collection brings it back.
SELECT docmodel.undistribute_collection('users');
SELECT count(*) FROM pg_dist_partition WHERE logicalrelid::text IN ('users', 'users_revisions');
UPDATE users SET doc = doc || '{"x": 1}' WHERE id = 'user::1';
SELECT doc->'_ver' AS ver FROM users WHERE id = 'user::1';
SELECT count(*) AS revisions FROM docmodel.revisions('users', 'user::1');
SELECT collection, revisions_table FROM docmodel.collections;
SELECT docmodel.drop_collection('users');

-- A collection with its own key layout and field names (keys carry no type,
-- the type field is docType): the workers' triggers read the same layout.
SELECT docmodel.create_collection('members', doc_type => 'member', type_part => 0,
  fields => '{"type": "docType", "ver": "rev"}') IS NOT NULL AS created;
SELECT docmodel.distribute_collection('members') IS NOT NULL AS distributed;
INSERT INTO members (id, doc) VALUES ('123', '{"name": "Fred"}');
SELECT id, doc->>'docType' AS type, doc->'rev' AS rev, doc ? '_type' AS underscore FROM members;
SELECT result FROM run_command_on_workers($$SELECT string_agg(type_part || ' ' || type_check || ' ' || coalesce(fields::text, '-'), ',') FROM docmodel.collection_config WHERE type_part = 0$$);
-- Brought back, it keeps its whole configuration: layout, field names, types.
CREATE TEMP TABLE members_cfg AS
SELECT doc_type, meta_style, time_unit, delimiter, max_ttl, type_part, type_check, fields, types
FROM docmodel.collections WHERE collection = 'members'::regclass;
SELECT docmodel.undistribute_collection('members') IS NOT NULL AS undistributed;
SELECT count(*) AS changed FROM (SELECT doc_type, meta_style, time_unit, delimiter, max_ttl,
  type_part, type_check, fields, types FROM docmodel.collections WHERE collection = 'members'::regclass
  EXCEPT SELECT * FROM members_cfg) x;
INSERT INTO members (id, doc) VALUES ('124', '{"name": "Wilma"}');
SELECT id, doc->>'docType' AS type, doc->'rev' AS rev, doc ? '_type' AS underscore FROM members ORDER BY id;
SELECT docmodel.drop_collection('members');

-- History turned on after distributing is distributed with the collection.
-- A collection that holds documents is distributed with them and their
-- history copied into the shards as they are (cas and stamps kept).
SELECT docmodel.create_collection('notes') IS NOT NULL AS created;
SELECT docmodel.distribute_collection('notes') IS NOT NULL AS distributed;
INSERT INTO notes (id, doc) VALUES ('note::1', '{"text": "a"}'), ('note::2', '{"text": "z"}');
SELECT docmodel.set_revisions('notes', 3)::text AS history;
SELECT colocationid = (SELECT colocationid FROM pg_dist_partition WHERE logicalrelid = 'notes'::regclass) AS colocated
FROM pg_dist_partition WHERE logicalrelid = 'notes_revisions'::regclass;
UPDATE notes SET doc = '{"text": "b"}' WHERE id = 'note::1';
SELECT docmodel.undistribute_collection('notes') IS NOT NULL AS undistributed;
CREATE TEMP TABLE notes_before AS SELECT * FROM notes;
SELECT docmodel.distribute_collection('notes') IS NOT NULL AS distributed;
SELECT count(*) AS unchanged FROM notes n JOIN notes_before b USING (id)
WHERE n.doc = b.doc AND n.cas = b.cas AND n.expires_at IS NOT DISTINCT FROM b.expires_at;
UPDATE notes SET doc = '{"text": "c"}' WHERE id = 'note::1';
SELECT pg_temp.try($$INSERT INTO notes (id, doc) VALUES ('note::3', '[1]')$$);
SELECT id, doc->>'text' AS text, doc->'_ver' AS ver FROM notes ORDER BY id;
SELECT ver, op, doc->>'text' AS text FROM docmodel.revisions('notes', 'note::1') ORDER BY ver;
SELECT docmodel.drop_collection('notes');

-- A collection with meta_style 'columns' (stamps in typed columns, writers
-- as ids of this node's docmodel.writers) is distributed with its writers
-- as names in the body and its writer columns null on the shards: every
-- read shows the same documents as before, and a moved shard keeps them.
CREATE ROLE alice LOGIN;
CREATE ROLE bob LOGIN;
SELECT docmodel.create_collection('accts', 'acct', revisions => 5, meta_style => 'columns') IS NOT NULL AS created;
GRANT ALL ON accts, accts_revisions, accts_documents TO alice, bob;
SET SESSION AUTHORIZATION alice;
SELECT docmodel.insert('accts', 'acct::' || g, jsonb_build_object('n', g)) > 0 AS inserted
FROM generate_series(1, 6) g;
RESET SESSION AUTHORIZATION;
SET SESSION AUTHORIZATION bob;
SELECT docmodel.upsert('accts', 'acct::' || g, jsonb_build_object('n', g, 'by', 'bob')) > 0 AS updated
FROM generate_series(1, 3) g;
RESET SESSION AUTHORIZATION;
SET docmodel.actor = 'importer';
SELECT docmodel.mutate_in('accts', 'acct::2', '[{"op": "upsert", "path": "x", "value": 1}]')->'cas' IS NOT NULL AS mutated;
SELECT docmodel.insert('accts', 'acct::7', '{"n": 7}') > 0 AS inserted;
RESET docmodel.actor;
SELECT a.id, a.doc, w1.name AS created_by, w2.name AS modified_by, a.ver
FROM accts a LEFT JOIN docmodel.writers w1 ON w1.id = created_by LEFT JOIN docmodel.writers w2 ON w2.id = modified_by
ORDER BY id;
-- What every read shows before.
CREATE TEMP TABLE accts_reads AS
SELECT 'get' AS how, 'acct::' || g AS key, docmodel.get('accts', 'acct::' || g) AS doc FROM generate_series(1, 7) g
UNION ALL SELECT 'meta', 'acct::' || g, docmodel.meta('accts', 'acct::' || g) - 'cas' FROM generate_series(1, 7) g
UNION ALL SELECT 'multi', key, doc FROM docmodel.get_multi('accts', ARRAY['acct::1', 'acct::2', 'acct::5', 'acct::7'])
UNION ALL SELECT 'view', id, doc FROM accts_documents
UNION ALL SELECT 'rev ' || r.ver, 'acct::' || g, r.doc FROM generate_series(1, 7) g, docmodel.revisions('accts', 'acct::' || g) r
UNION ALL SELECT 'getrev', 'acct::2', docmodel.get_revision('accts', 'acct::2', 1);
SELECT how, key, doc->>'_createdBy' AS created_by, doc->>'_modifiedBy' AS modified_by, doc->'_ver' AS ver
FROM accts_reads WHERE how IN ('get', 'rev 1', 'rev 2') ORDER BY key, how;
SELECT docmodel.distribute_collection('accts', 4) IS NOT NULL AS distributed;
-- The shards: the names in the body, the writer columns null, times and
-- versions in their columns.
SELECT id, created_by, modified_by, doc, ver, created_at IS NOT NULL AS created_at FROM accts ORDER BY id;
SELECT id, ver, created_by, modified_by, doc FROM accts_revisions ORDER BY id, ver;
-- Every read is as before.
SET client_min_messages TO error;
CREATE FUNCTION pg_temp.accts_diff() RETURNS TABLE (how text, key text, was jsonb, now jsonb) LANGUAGE sql AS $$
  WITH now AS (
    SELECT 'get' AS how, 'acct::' || g AS key, docmodel.get('accts', 'acct::' || g) AS doc FROM generate_series(1, 7) g
    UNION ALL SELECT 'meta', 'acct::' || g, docmodel.meta('accts', 'acct::' || g) - 'cas' FROM generate_series(1, 7) g
    UNION ALL SELECT 'multi', key, doc FROM docmodel.get_multi('accts', ARRAY['acct::1', 'acct::2', 'acct::5', 'acct::7'])
    UNION ALL SELECT 'view', id, doc FROM accts_documents
    UNION ALL SELECT 'rev ' || r.ver, 'acct::' || g, r.doc FROM generate_series(1, 7) g, docmodel.revisions('accts', 'acct::' || g) r
    UNION ALL SELECT 'getrev', 'acct::2', docmodel.get_revision('accts', 'acct::2', 1))
  SELECT how, key, b.doc, n.doc FROM accts_reads b FULL JOIN now n USING (how, key)
  WHERE b.doc IS DISTINCT FROM n.doc ORDER BY 1, 2
$$;
RESET client_min_messages;
SELECT * FROM pg_temp.accts_diff();
-- Writes on the shards stamp the writers' names (bob's, an actor's).
SET SESSION AUTHORIZATION bob;
SELECT docmodel.upsert('accts', 'acct::4', '{"n": 40}') > 0 AS updated;
SELECT docmodel.insert('accts', 'acct::8', '{"n": 8}') > 0 AS inserted;
UPDATE accts SET doc = doc || '{"seen": true}' WHERE id = 'acct::7';
SELECT docmodel.mutate_in('accts', 'acct::5', '[{"op": "increment", "path": "n", "delta": 1}]')->'cas' IS NOT NULL AS mutated;
RESET SESSION AUTHORIZATION;
BEGIN;
SET LOCAL citus.propagate_set_commands = 'local';
SET LOCAL docmodel.actor = 'svc';
INSERT INTO accts (id, doc) VALUES ('acct::9', '{"n": 9}');
COMMIT;
-- A kept writer (docmodel.keep_stamps) stays in the body there too; a
-- restore is a write of the restorer.
BEGIN;
SET LOCAL citus.propagate_set_commands = 'local';
SET LOCAL docmodel.keep_stamps = on;
INSERT INTO accts (id, doc) VALUES ('acct::21', '{"n": 21, "_createdBy": "loader"}');
COMMIT;
SELECT docmodel.restore('accts', 'acct::3', 1) > 0 AS restored;
SELECT id, doc, created_by, modified_by, ver FROM accts WHERE id IN ('acct::3', 'acct::21') ORDER BY id;
SELECT docmodel.get('accts', 'acct::3') - '{_created,_modified}'::text[] AS restored;
SELECT docmodel.upsert('accts', 'acct::4', '{"n": 40}') > 0 AS same_body;
SELECT id, doc, created_by, modified_by, ver FROM accts WHERE id IN ('acct::4', 'acct::5', 'acct::7', 'acct::8', 'acct::9') ORDER BY id;
SELECT key, doc->>'_createdBy' AS created_by, doc->>'_modifiedBy' AS modified_by, doc->'_ver' AS ver, doc->'n' AS n
FROM docmodel.get_multi('accts', ARRAY['acct::4', 'acct::5', 'acct::7', 'acct::8', 'acct::9']);
SELECT ver, op, changed_by, doc->>'_createdBy' AS created_by, doc->>'_modifiedBy' AS modified_by, doc->'n' AS n
FROM docmodel.revisions('accts', 'acct::4') ORDER BY ver;
-- No writer is recorded on the workers.
SELECT nodeport > 0 AS worker, result FROM run_command_on_workers($$SELECT count(*) FROM docmodel.writers$$) ORDER BY nodeport;
-- A shard moved to the other worker keeps every name.
CREATE TEMP TABLE accts_docs AS SELECT 'acct::' || g AS id, docmodel.get('accts', 'acct::' || g) AS doc FROM generate_series(1, 9) g;
SELECT pg_temp.node_of('accts', 'acct::4') AS node_before \gset
SELECT citus_move_shard_placement(get_shard_id_for_distribution_column('accts', 'acct::4'),
  s.nodename, s.nodeport, t.nodename, t.nodeport, shard_transfer_mode => 'block_writes')
FROM pg_dist_placement p JOIN pg_dist_node s ON s.groupid = p.groupid,
     pg_dist_node t
WHERE p.shardid = get_shard_id_for_distribution_column('accts', 'acct::4')
  AND t.groupid NOT IN (0, p.groupid);
SELECT pg_temp.node_of('accts', 'acct::4') <> :node_before AS moved;
SELECT count(*) AS changed FROM accts_docs a WHERE a.doc IS DISTINCT FROM docmodel.get('accts', a.id);
SELECT ver, doc->>'_createdBy' AS created_by, doc->>'_modifiedBy' AS modified_by FROM docmodel.revisions('accts', 'acct::4') ORDER BY ver;
SET SESSION AUTHORIZATION alice;
SELECT docmodel.upsert('accts', 'acct::4', '{"n": 41}') > 0 AS updated;
RESET SESSION AUTHORIZATION;
SELECT doc->>'_createdBy' AS created_by, doc->>'_modifiedBy' AS modified_by, doc->'_ver' AS ver FROM accts_documents WHERE id = 'acct::4';
-- Back on the coordinator: the rows as the shards kept them, read the same;
-- a write there keeps the creator, in the columns again.
DELETE FROM accts_docs;
INSERT INTO accts_docs SELECT 'acct::' || g, docmodel.get('accts', 'acct::' || g) FROM generate_series(1, 9) g;
CREATE TEMP TABLE accts_revs AS SELECT r.* FROM accts_docs d, docmodel.revisions('accts', d.id) r;
-- Its meta style is not converted while it is distributed.
CALL docmodel.set_meta_style('accts', 'underscore');
SELECT docmodel.undistribute_collection('accts') IS NOT NULL AS undistributed;
SELECT count(*) AS changed FROM accts_docs a WHERE a.doc IS DISTINCT FROM docmodel.get('accts', a.id);
SELECT count(*) AS changed FROM (SELECT r.* FROM accts_docs d, docmodel.revisions('accts', d.id) r
  EXCEPT SELECT * FROM accts_revs) x;
SET SESSION AUTHORIZATION bob;
SELECT docmodel.upsert('accts', 'acct::8', '{"n": 80}') > 0 AS updated;
RESET SESSION AUTHORIZATION;
SELECT docmodel.upsert('accts', 'acct::1', '{"n": 10}') > 0 AS updated;
SELECT docmodel.upsert('accts', 'acct::9', '{"n": 9}') > 0 AS same_body;
SELECT a.id, a.doc, w1.name AS created_by, w2.name AS modified_by, a.ver
FROM accts a LEFT JOIN docmodel.writers w1 ON w1.id = created_by LEFT JOIN docmodel.writers w2 ON w2.id = modified_by
WHERE a.id IN ('acct::1', 'acct::2', 'acct::8', 'acct::9') ORDER BY a.id;
SELECT key, doc->>'_createdBy' AS created_by, doc->>'_modifiedBy' AS modified_by, doc->'_ver' AS ver
FROM docmodel.get_multi('accts', ARRAY['acct::1', 'acct::2', 'acct::8', 'acct::9']);
SELECT ver, doc->>'_createdBy' AS created_by, doc->>'_modifiedBy' AS modified_by FROM docmodel.revisions('accts', 'acct::1') ORDER BY ver;
SELECT docmodel.drop_collection('accts');
-- A bulk migration of a distributed columns collection reads each document
-- with its stamps, shard by shard, as on one server.
SELECT docmodel.create_collection('tallies', 'tally', meta_style => 'columns') IS NOT NULL AS created;
INSERT INTO tallies (id, doc) SELECT 'tally::' || g, jsonb_build_object('n', g, '_schema', '1') FROM generate_series(1, 20) g;
UPDATE tallies SET doc = doc || '{"seen": 1}' WHERE id IN ('tally::1', 'tally::2');
SELECT docmodel.distribute_collection('tallies') IS NOT NULL AS distributed;
SELECT docmodel.register_migration('tally', '1', '2', steps => '[{"op": "copy", "from": "/_ver", "path": "/v0"}]');
SET client_min_messages TO warning;
CALL docmodel.migrate_collection('tallies', batch_size => 5);
RESET client_min_messages;
SELECT status, docs_done, error FROM docmodel.migration_runs WHERE coll = 'tallies'::regclass;
SELECT count(*) AS docs, count(*) FILTER (WHERE doc->>'_schema' = '2') AS at_2,
       count(*) FILTER (WHERE doc->'v0' = '1') AS v0_1, count(*) FILTER (WHERE doc->'v0' = '2') AS v0_2,
       count(*) FILTER (WHERE doc->>'_createdBy' = current_user) AS created_by_me
FROM tallies_documents;
SELECT doc - '_created' - '_modified' AS doc FROM tallies_documents WHERE id = 'tally::1';
SELECT docmodel.drop_collection('tallies');
DELETE FROM docmodel.migration_rules WHERE doc_type = 'tally';
-- A distributed collection's view and history follow it to a new owner and
-- a new schema, as on one server.
SELECT docmodel.create_collection('handed', revisions => 2) IS NOT NULL AS created;
INSERT INTO handed (id, doc) VALUES ('doc::1', '{"n": 1}');
SELECT docmodel.distribute_collection('handed') IS NOT NULL AS distributed;
UPDATE handed SET doc = '{"n": 2}';
GRANT CREATE ON SCHEMA public TO bob;
ALTER TABLE handed OWNER TO bob;
CREATE SCHEMA elsewhere;
GRANT USAGE, CREATE ON SCHEMA elsewhere TO bob;
ALTER TABLE handed SET SCHEMA elsewhere;
SELECT c.relname, c.relnamespace::regnamespace AS schema, pg_get_userbyid(c.relowner) AS owner
FROM pg_class c WHERE c.relname IN ('handed', 'handed_documents', 'handed_revisions') ORDER BY 1;
SET ROLE bob;
SELECT ver, op, doc->'n' AS n FROM docmodel.revisions('elsewhere.handed', 'doc::1');
SELECT doc->'n' AS n, doc->'_ver' AS ver FROM elsewhere.handed_documents;
SELECT docmodel.drop_collection('elsewhere.handed');
RESET ROLE;
DROP SCHEMA elsewhere;
REVOKE CREATE ON SCHEMA public FROM bob;
SET client_min_messages TO warning;
CALL citus_cleanup_orphaned_resources();
RESET client_min_messages;
DROP ROLE alice, bob;
