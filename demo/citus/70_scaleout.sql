-- The tour's scale-out chapter: run by `make demo` on a throwaway Citus cluster (a coordinator
-- and two workers, scripts/citus.sh) when Citus is installed; docmodel and citus are created
-- on every node already.
\pset footer off
\pset null '(null)'
\echo
\echo '--- Scale-out on Citus ---------------------------------------------------'
\echo 'A coordinator and two workers. One call spreads a collection over the workers,'
\echo 'hash-partitioned by key like a Couchbase bucket; its history goes along.'
SET client_min_messages = warning;
SELECT docmodel.create_collection('accounts', 'account', revisions => 3) AS collection;
SELECT docmodel.distribute_collection('accounts', shard_count => 8);
RESET client_min_messages;
SELECT logicalrelid AS "table", count(*) AS shards FROM pg_dist_shard
WHERE logicalrelid IN ('accounts'::regclass, 'accounts_revisions'::regclass) GROUP BY 1 ORDER BY 1;

\echo 'Plain SQL writes from the coordinator, keys from a counter (counters live on'
\echo 'the coordinator; a worker refuses them); the collection trigger stamps the rows'
\echo 'on the shards, and the keys land on both workers:'
INSERT INTO accounts (id, doc)
SELECT docmodel.next_key('account'), jsonb_build_object('owner', 'user' || g, 'balance', 100)
FROM generate_series(1, 1000) g;
UPDATE accounts SET doc = doc || '{"balance": 90}' WHERE id = 'account::7';
WITH k AS MATERIALIZED (SELECT id FROM accounts)
SELECT n.nodeport AS worker, count(*) AS accounts
FROM k JOIN pg_dist_placement p ON p.shardid = get_shard_id_for_distribution_column('accounts', k.id)
JOIN pg_dist_node n USING (groupid) GROUP BY 1 ORDER BY 1;
\echo 'A lookup by key goes to one shard (Task Count: 1):'
EXPLAIN (COSTS OFF) SELECT doc FROM accounts WHERE id = docmodel.key('account', 7);
SELECT docmodel.get('accounts', 'account::7') - '_created' - '_modified' AS doc;
\echo 'Its history was written on the same worker, next to it:'
SELECT ver, op, doc->'balance' AS balance FROM docmodel.revisions('accounts', 'account::7');

\echo 'A migration registered on the coordinator reaches every worker: documents'
\echo 'migrate when read, and when written on their shard.'
SELECT docmodel.register_migration('account', '1', '2',
  steps => '[{"op": "add", "path": "/currency", "value": "EUR"}]');
INSERT INTO accounts (id, doc) VALUES ('account::2000', '{"owner": "old", "balance": 5, "_schema": "1"}');
SELECT doc->>'_schema' AS schema, doc->>'currency' AS currency FROM accounts WHERE id = 'account::2000';
SELECT * FROM docmodel.migration_plan('accounts');

\echo 'migrate_collection: a batch on every shard at once, each on its worker:'
SET client_min_messages = warning;
CALL docmodel.migrate_collection('accounts');
RESET client_min_messages;
SELECT * FROM docmodel.migration_plan('accounts');

\echo 'Sub-document changes and locks work on the shards too:'
SELECT docmodel.mutate_in('accounts', 'account::7',
  '[{"op": "decrement", "path": "balance", "delta": 30}]')->'results' AS results;
SELECT (l).cas AS lockcas FROM (SELECT docmodel.get_and_lock('accounts', 'account::7', 10) AS l) x \gset
SELECT docmodel.replace('accounts', 'account::7',
  '{"owner": "user7", "balance": 60, "currency": "EUR"}', cas => :lockcas) > 0 AS replaced_under_lock;
SELECT doc->'balance' AS balance FROM accounts WHERE id = 'account::7';
SELECT docmodel.next_key('account') AS next_key;
