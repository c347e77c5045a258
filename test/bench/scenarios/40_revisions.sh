# Revisions (issue 5): history written by the collection trigger, against the same collection
# without history. The history starts full (10 revisions per document, so the documents start
# at _ver 11): every timed write also drops the oldest revision, the steady state, not the
# cheap first ten. Sourced by test/bench/run.sh (bench_sql, bench_tps, PSQL from lib.sh).

rev_n=${REV_BENCH_DOCS:-50000}
"${PSQL[@]}" >/dev/null <<SQL
SET client_min_messages = warning;
DROP TABLE IF EXISTS rev_bench_on, rev_bench_on_revisions, rev_bench_off, rev_bench_src;
DELETE FROM docmodel.collection_config WHERE coll::text IN ('rev_bench_on', 'rev_bench_off');
SELECT docmodel.create_collection('rev_bench_on', revisions => 10);
SELECT docmodel.create_collection('rev_bench_off');
CREATE TABLE rev_bench_src AS
  SELECT 'user::' || i AS id,
         jsonb_build_object('name', 'user ' || i, 'email', 'u' || i || '@example.com', 'n', 0,
                            'tags', jsonb_build_array('a', 'b', 'c'),
                            'address', jsonb_build_object('city', 'Oslo', 'zip', i)) AS doc
  FROM generate_series(1, $rev_n) i;
INSERT INTO rev_bench_on_revisions
  SELECT s.id, v, 'update', now(), 'bench', s.doc || jsonb_build_object('_ver', v)
  FROM rev_bench_src s, generate_series(1, 10) v;
INSERT INTO rev_bench_on (id, doc, cas) SELECT id, doc, 0 FROM rev_bench_src;
INSERT INTO rev_bench_off (id, doc, cas) SELECT id, doc, 0 FROM rev_bench_src;
DROP TABLE rev_bench_src;
VACUUM ANALYZE rev_bench_on, rev_bench_on_revisions, rev_bench_off;
SQL

bench_sql "revisions: UPDATE ${rev_n} docs, keep=10" 1.8 \
	"UPDATE rev_bench_on SET doc = doc || jsonb_build_object('n', (doc->>'n')::int + 1)" \
	"UPDATE rev_bench_off SET doc = doc || jsonb_build_object('n', (doc->>'n')::int + 1)"

rev_dir=$(mktemp -d)
for t in on off; do
	cat > "$rev_dir/$t.sql" <<SQL
\set k random(1, $rev_n)
UPDATE rev_bench_$t SET doc = doc || jsonb_build_object('n', :k + random()) WHERE id = 'user::' || :k;
SQL
done
bench_tps "revisions: pgbench 1-doc UPDATE, keep=10" 0.9 "$rev_dir/on.sql" "$rev_dir/off.sql" 2 5
rm -rf "$rev_dir"
"${PSQL[@]}" -c "SELECT docmodel.drop_collection('rev_bench_on'), docmodel.drop_collection('rev_bench_off')" >/dev/null
