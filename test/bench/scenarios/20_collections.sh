# Collections: the key-value API and the trigger against the SQL
# they replace. pgbench runs in prepared mode (-M prepared) with random keys
# over 100k documents; the bulk insert is 100k documents, INSERT ... SELECT.

"${PSQL[@]}" >/dev/null <<'SQL'
SET client_min_messages = warning;
DROP TABLE IF EXISTS bench_coll, bench_plain, bench_src, bench_ins_coll, bench_ins_plain;
DELETE FROM docmodel.collection_config
WHERE coll::text IN ('bench_coll', 'bench_ins_coll') OR coll::text ~ '^\d+$';
CREATE TABLE bench_src AS
SELECT 'user::' || i AS id,
       jsonb_build_object('name', 'User ' || i, 'email', 'user' || i || '@example.com',
                          'age', i % 90, 'tags', jsonb_build_array('a', 'b'),
                          'address', jsonb_build_object('city', 'Berlin', 'zip', '10' || i % 1000)) AS doc
FROM generate_series(1, 100000) AS i;
SELECT docmodel.create_collection('bench_coll') IS NOT NULL;
INSERT INTO bench_coll (id, doc) SELECT id, doc FROM bench_src;
CREATE TABLE bench_plain (id text COLLATE "C" PRIMARY KEY, doc jsonb NOT NULL,
                          cas bigint NOT NULL, expires_at timestamptz);
INSERT INTO bench_plain SELECT id, doc, cas, expires_at FROM bench_coll;
SELECT docmodel.create_collection('bench_ins_coll') IS NOT NULL;
CREATE TABLE bench_ins_plain (id text COLLATE "C" PRIMARY KEY, doc jsonb NOT NULL,
                              cas bigint NOT NULL, expires_at timestamptz);
VACUUM ANALYZE bench_src, bench_coll, bench_plain;
SQL

bench_dir=$(mktemp -d)
cat > "$bench_dir/get.sql" <<'SQL'
\set k random(1, 100000)
SELECT docmodel.get('bench_coll', 'user::' || :k);
SQL
cat > "$bench_dir/select.sql" <<'SQL'
\set k random(1, 100000)
SELECT doc FROM bench_coll WHERE id = 'user::' || :k;
SQL
cat > "$bench_dir/upsert.sql" <<'SQL'
\set k random(1, 100000)
SELECT docmodel.upsert('bench_coll', 'user::' || :k::int, jsonb_build_object('name', 'User', 'n', :k::int, 'tags', jsonb_build_array('a', 'b')));
SQL
cat > "$bench_dir/on_conflict.sql" <<'SQL'
\set k random(1, 100000)
INSERT INTO bench_plain AS p (id, doc, cas) VALUES ('user::' || :k::int, jsonb_build_object('name', 'User', 'n', :k::int, 'tags', jsonb_build_array('a', 'b')), 1)
ON CONFLICT (id) DO UPDATE SET doc = EXCLUDED.doc, cas = p.cas + 1;
SQL

# pgbench in prepared mode for these pairs.
PGBENCH_ARGS="-M prepared" bench_tps "collections: get vs SELECT doc (prepared)" 0.85 \
	"$bench_dir/get.sql" "$bench_dir/select.sql" 2 8
PGBENCH_ARGS="-M prepared" bench_tps "collections: upsert vs INSERT ON CONFLICT" 0.80 \
	"$bench_dir/upsert.sql" "$bench_dir/on_conflict.sql" 2 8

bench_sql "collections: INSERT 100k docs vs plain table" 1.5 \
	"TRUNCATE bench_ins_coll; INSERT INTO bench_ins_coll (id, doc) SELECT id, doc FROM bench_src" \
	"TRUNCATE bench_ins_plain; INSERT INTO bench_ins_plain SELECT id, doc, 0, NULL FROM bench_src"

rm -rf "$bench_dir"
"${PSQL[@]}" -c "SET client_min_messages = warning" \
	-c "SELECT docmodel.drop_collection(c) FROM unnest('{bench_coll,bench_ins_coll}'::regclass[]) c" \
	-c "DROP TABLE bench_plain, bench_src, bench_ins_plain" >/dev/null
