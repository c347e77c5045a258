# Revisions (issue 5): the history the collection trigger writes, against the same collection
# without history. Documents are aged first (12 writes each), so every write in the timed part
# also prunes (keep = 10): the steady state, not the cheap first ten revisions.
# Sourced by test/bench/run.sh (bench_sql, bench_tps, PSQL from lib.sh).

rev_n=${REV_BENCH_DOCS:-50000}
"${PSQL[@]}" <<SQL
SET client_min_messages = warning;
DROP TABLE IF EXISTS rev_bench_on, rev_bench_on_revisions, rev_bench_off;
DELETE FROM docmodel.collection_config WHERE coll::text IN ('rev_bench_on', 'rev_bench_off');
SELECT docmodel.create_collection('rev_bench_on', revisions => 10);
SELECT docmodel.create_collection('rev_bench_off');
INSERT INTO rev_bench_on (id, doc, cas)
  SELECT 'user::' || i, jsonb_build_object('name', 'user ' || i, 'email', 'u' || i || '@example.com',
         'n', 0, 'tags', jsonb_build_array('a', 'b', 'c'), 'address', jsonb_build_object('city', 'Oslo', 'zip', i)), 0
  FROM generate_series(1, $rev_n) i;
INSERT INTO rev_bench_off SELECT * FROM rev_bench_on;
DO \$\$ BEGIN
  FOR r IN 1..11 LOOP
    UPDATE rev_bench_on SET doc = doc || jsonb_build_object('n', r);
    UPDATE rev_bench_off SET doc = doc || jsonb_build_object('n', r);
  END LOOP;
END \$\$;
VACUUM ANALYZE rev_bench_on, rev_bench_on_revisions, rev_bench_off;
SQL

bench_sql "revisions: UPDATE ${rev_n} docs, keep=10" 1.8 \
	"UPDATE rev_bench_on SET doc = doc || jsonb_build_object('n', (doc->>'n')::int + 1)" \
	"UPDATE rev_bench_off SET doc = doc || jsonb_build_object('n', (doc->>'n')::int + 1)"

rev_dir=$(mktemp -d)
cat > "$rev_dir/on.sql" <<SQL
\set k random(1, $rev_n)
UPDATE rev_bench_on SET doc = doc || jsonb_build_object('n', :k + random()) WHERE id = 'user::' || :k;
SQL
cat > "$rev_dir/off.sql" <<SQL
\set k random(1, $rev_n)
UPDATE rev_bench_off SET doc = doc || jsonb_build_object('n', :k + random()) WHERE id = 'user::' || :k;
SQL
bench_tps "revisions: pgbench 1-doc UPDATE, keep=10" 0.9 "$rev_dir/on.sql" "$rev_dir/off.sql" 4 5
rm -rf "$rev_dir"
"${PSQL[@]}" -c "SELECT docmodel.drop_collection('rev_bench_on'), docmodel.drop_collection('rev_bench_off')" >/dev/null
