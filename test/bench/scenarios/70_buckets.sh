# Buckets: bucket_append, Cosmos DB's "batches of 100 comments", against a hand-written
# INSERT ... ON CONFLICT (id) DO UPDATE SET doc = jsonb_set(...) that appends to one document per
# post without the bucket rule, on the same collection (the trigger stamps both). pgbench in
# prepared mode, 4 clients, random posts among 1000, at the cluster's durability settings.

"${PSQL[@]}" >/dev/null <<'SQL'
SET client_min_messages = warning;
DROP TABLE IF EXISTS bench_bk;
DELETE FROM docmodel.collection_config WHERE coll::text = 'bench_bk' OR coll::text ~ '^\d+$';
SELECT docmodel.create_collection('bench_bk') IS NOT NULL;
SQL

bench_dir=$(mktemp -d)
cat > "$bench_dir/bucket_append.sql" <<'SQL'
\set k random(1, 1000)
SELECT docmodel.bucket_append('bench_bk', 'post::' || :k || '::comments', '{"by": "user::1", "text": "Nice post"}');
SQL
cat > "$bench_dir/on_conflict.sql" <<'SQL'
\set k random(1, 1000)
INSERT INTO bench_bk AS c (id, doc) VALUES ('post::' || :k || '::all', '{"items": [{"by": "user::1", "text": "Nice post"}]}')
ON CONFLICT (id) DO UPDATE SET doc = jsonb_set(c.doc, '{items}', (c.doc->'items') || '{"by": "user::1", "text": "Nice post"}'::jsonb);
SQL

PGBENCH_ARGS="-M prepared" bench_tps "buckets: bucket_append vs ON CONFLICT append" 0.8 \
	"$bench_dir/bucket_append.sql" "$bench_dir/on_conflict.sql" 4 8

rm -rf "$bench_dir"
"${PSQL[@]}" -c "SET client_min_messages = warning" \
	-c "SELECT docmodel.drop_collection('bench_bk')" >/dev/null
