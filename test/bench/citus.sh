#!/usr/bin/env bash
# The Citus benchmark (scenarios/70_citus.sh), run by scripts/citus.sh cluster against its
# coordinator (PGHOST/PGPORT). Same helpers and output as the other scenarios.
set -eu
cd "$(dirname "$0")"
source ./lib.sh
CITUS_DOCS=${CITUS_DOCS:-500000}

"${PSQL[@]}" >/dev/null <<SQL
SET client_min_messages = warning;
SELECT docmodel.create_collection('bench_dist', 'user') IS NOT NULL;
SELECT docmodel.distribute_collection('bench_dist');
INSERT INTO bench_dist (id, doc)
SELECT 'user::' || i, jsonb_build_object('name', 'User ' || i, 'age', i % 90, '_schema', '1',
                                         'tags', jsonb_build_array('a', 'b'))
FROM generate_series(1, $CITUS_DOCS) AS i;
VACUUM ANALYZE bench_dist;
SQL

bench_dir=$(mktemp -d)
cat > "$bench_dir/get.sql" <<'SQL'
\set k random(1, 100000)
SELECT docmodel.get('bench_dist', 'user::' || :k);
SQL
cat > "$bench_dir/select.sql" <<'SQL'
\set k random(1, 100000)
SELECT doc FROM bench_dist WHERE id = 'user::' || :k AND (expires_at IS NULL OR expires_at > now());
SQL
cat > "$bench_dir/upsert.sql" <<'SQL'
\set k random(1, 100000)
SELECT docmodel.upsert('bench_dist', 'user::' || :k::int, jsonb_build_object('name', 'User', 'n', :k::int, '_schema', '1'));
SQL
cat > "$bench_dir/on_conflict.sql" <<'SQL'
\set k random(1, 100000)
INSERT INTO bench_dist AS p (id, doc) VALUES ('user::' || :k::int, jsonb_build_object('name', 'User', 'n', :k::int, '_schema', '1'))
ON CONFLICT (id) DO UPDATE SET doc = EXCLUDED.doc;
SQL
PGBENCH_ARGS="-M prepared" bench_tps "citus: get vs SELECT doc (coordinator)" 0.80 \
	"$bench_dir/get.sql" "$bench_dir/select.sql" 2 8
PGBENCH_ARGS="-M prepared" bench_tps "citus: upsert vs INSERT ON CONFLICT" 0.80 \
	"$bench_dir/upsert.sql" "$bench_dir/on_conflict.sql" 2 8

# migrate_collection against the hand-written migration, each on a distributed id/doc table
# reloaded with the version-1 documents before every timed statement (as scenario 50 does).
# Citus refuses UPDATE ... SET doc = docmodel.migrate(doc) through the coordinator (a STABLE
# function reading the row), so the hand-written one runs on every shard.
"${PSQL[@]}" >/dev/null <<SQL
SET client_min_messages = warning;
CREATE TABLE bench_mig_src (id text COLLATE "C" PRIMARY KEY, doc jsonb NOT NULL);
CREATE TABLE bench_mig_a (id text COLLATE "C" PRIMARY KEY, doc jsonb NOT NULL);
CREATE TABLE bench_mig_b (id text COLLATE "C" PRIMARY KEY, doc jsonb NOT NULL);
SELECT create_distributed_table(t, 'id') FROM unnest('{bench_mig_src,bench_mig_a,bench_mig_b}'::regclass[]) t;
INSERT INTO bench_mig_src SELECT id, doc FROM bench_dist;
DELETE FROM docmodel.migration_rules WHERE doc_type = 'user';
SELECT docmodel.register_migration('user', '1', '2', steps => '[{"op": "add", "path": "/plan", "value": "free"}]');
SQL
citus_reset() {
	"${PSQL[@]}" -c "TRUNCATE bench_mig_a, bench_mig_b" \
		-c "INSERT INTO bench_mig_a SELECT * FROM bench_mig_src" \
		-c "INSERT INTO bench_mig_b SELECT * FROM bench_mig_src" \
		-c "VACUUM ANALYZE bench_mig_a, bench_mig_b" >/dev/null
}
n=$("${PSQL[@]}" -At -c "SELECT count(*) FROM bench_mig_src")
PGOPTIONS='-c client_min_messages=warning' BENCH_RESET=citus_reset BENCH_ROUNDS=${CITUS_ROUNDS:-3} \
	bench_sql "citus: migrate_collection $n docs vs UPDATE" 1.2 \
	"CALL docmodel.migrate_collection('bench_mig_a', batch_size => 50000)" \
	"SELECT sum(split_part(result, ' ', 2)::bigint) FROM run_command_on_shards('bench_mig_b', \$\$UPDATE %s SET doc = docmodel.migrate(doc)\$\$)"

rm -rf "$bench_dir"
