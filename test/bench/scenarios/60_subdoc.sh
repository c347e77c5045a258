# Sub-document API: mutate_in and lookup_in against the SQL they replace, on the same
# collection. pgbench in prepared mode with random keys over 100k documents (each with a phone
# list), at the cluster's durability settings.

"${PSQL[@]}" >/dev/null <<'SQL'
SET client_min_messages = warning;
DROP TABLE IF EXISTS bench_sd;
DELETE FROM docmodel.collection_config WHERE coll::text = 'bench_sd' OR coll::text ~ '^\d+$';
SELECT docmodel.create_collection('bench_sd') IS NOT NULL;
INSERT INTO bench_sd (id, doc)
SELECT 'user::' || i,
       jsonb_build_object('name', 'User ' || i, 'email', 'user' || i || '@example.com',
                          'logins', 0,
                          'phones', jsonb_build_array(jsonb_build_object('type', 'home', 'number', '555-' || i)),
                          'address', jsonb_build_object('city', 'Berlin', 'zip', '10' || i % 1000))
FROM generate_series(1, 100000) AS i;
VACUUM ANALYZE bench_sd;
SQL

bench_dir=$(mktemp -d)
cat > "$bench_dir/mutate_in.sql" <<'SQL'
\set k random(1, 100000)
SELECT docmodel.mutate_in('bench_sd', 'user::' || :k, '[{"op": "array_append", "path": "phones", "value": {"type": "work", "number": "555-0000"}}]');
SQL
cat > "$bench_dir/jsonb_set.sql" <<'SQL'
\set k random(1, 100000)
UPDATE bench_sd SET doc = jsonb_set(doc, '{phones}', (doc->'phones') || '{"type": "work", "number": "555-0000"}'::jsonb) WHERE id = 'user::' || :k;
SQL
cat > "$bench_dir/lookup_in.sql" <<'SQL'
\set k random(1, 100000)
SELECT docmodel.lookup_in('bench_sd', 'user::' || :k, '[{"op": "get", "path": "address.city"}]');
SQL
cat > "$bench_dir/select_path.sql" <<'SQL'
\set k random(1, 100000)
SELECT doc #> '{address,city}' FROM bench_sd WHERE id = 'user::' || :k;
SQL

PGBENCH_ARGS="-M prepared" bench_tps "subdoc: mutate_in array_append vs jsonb_set" 1.0 \
	"$bench_dir/mutate_in.sql" "$bench_dir/jsonb_set.sql" 1 8
PGBENCH_ARGS="-M prepared" bench_tps "subdoc: lookup_in get vs SELECT doc #>" 0.9 \
	"$bench_dir/lookup_in.sql" "$bench_dir/select_path.sql" 2 8

rm -rf "$bench_dir"
"${PSQL[@]}" -c "SET client_min_messages = warning" \
	-c "SELECT docmodel.drop_collection('bench_sd')" >/dev/null
