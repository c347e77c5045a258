# Queries over history: 100,000 documents with 10 revisions each (1,000,000 revisions, a
# minute apart), one path (/rare) changed in 0.1% of them. get(..., as_of) against get;
# collection_as_of against a hand-written DISTINCT ON over the revisions and the live table;
# path_history of /rare against a scan of the history for its changes (and the plan of the
# index read it makes). Sourced by test/bench/run.sh (bench_sql, bench_tps, PSQL from lib.sh).

hist_n=${HIST_BENCH_DOCS:-100000}
"${PSQL[@]}" >/dev/null <<SQL
SET client_min_messages = warning;
DROP TABLE IF EXISTS hist_bench, hist_bench_revisions;
DELETE FROM docmodel.collection_config WHERE coll::text = 'hist_bench';
SELECT docmodel.create_collection('hist_bench', revisions => 10);
SELECT docmodel.set_path_index('hist_bench', true);
-- version v of user::i: n = v, written at 2026-01-01 + v minutes (+ i ms); /rare changes
-- from version 5 to 6 in one document in 100 (1,000 of 1,000,000 revisions)
CREATE TEMP TABLE hist_bench_src AS
  SELECT 'user::' || i AS id, v,
         timestamptz '2026-01-01 00:00:00+00' + v * interval '1 minute' + i * interval '1 ms' AS at,
         jsonb_build_object('name', 'user ' || i, 'email', 'u' || i || '@example.com', 'n', v,
                            'rare', CASE WHEN i % 100 = 0 AND v > 5 THEN 1 ELSE 0 END,
                            'address', jsonb_build_object('city', 'Oslo', 'zip', i),
                            '_type', 'user', '_ver', v, '_createdBy', 'bench', '_modifiedBy', 'bench',
                            '_created', docmodel.to_epoch(timestamptz '2026-01-01 00:00:00+00' + interval '1 minute' + i * interval '1 ms'),
                            '_modified', docmodel.to_epoch(timestamptz '2026-01-01 00:00:00+00' + v * interval '1 minute' + i * interval '1 ms')) AS doc
  FROM generate_series(1, $hist_n) i, generate_series(1, 11) v;
ALTER TABLE hist_bench DISABLE TRIGGER USER;
INSERT INTO hist_bench (id, doc, cas) SELECT id, doc, 0 FROM hist_bench_src WHERE v = 11;
ALTER TABLE hist_bench ENABLE TRIGGER USER;
INSERT INTO hist_bench_revisions (id, ver, op, changed_at, changed_by, doc, paths)
  SELECT s.id, s.v, 'update', n.at, 'bench', s.doc, docmodel._diff_keys(s.doc, n.doc)
  FROM hist_bench_src s JOIN hist_bench_src n ON n.id = s.id AND n.v = s.v + 1;
VACUUM ANALYZE hist_bench, hist_bench_revisions;
SQL
hist_t="timestamptz '2026-01-01 00:05:30+00'"
"${PSQL[@]}" -At <<SQL
SELECT 'history: ' || (SELECT count(*) FROM hist_bench) || ' documents, '
       || (SELECT count(*) FROM hist_bench_revisions) || ' revisions, '
       || (SELECT count(*) FROM docmodel.path_history('hist_bench', '/rare')) || ' changed /rare';
SQL
hist_dir=$(mktemp -d)
chmod 755 "$hist_dir"
cat > "$hist_dir/as_of.sql" <<SQL
\set k random(1, $hist_n)
SELECT docmodel.get('hist_bench', 'user::' || :k, as_of => $hist_t);
SQL
cat > "$hist_dir/get.sql" <<SQL
\set k random(1, $hist_n)
SELECT docmodel.get('hist_bench', 'user::' || :k);
SQL
bench_tps "history: get(..., as_of) vs get" 0.5 "$hist_dir/as_of.sql" "$hist_dir/get.sql" 2 5
rm -rf "$hist_dir"
bench_sql "history: collection_as_of ${hist_n} docs" 1.5 \
	"SELECT count(*) FROM docmodel.collection_as_of('hist_bench', $hist_t)" \
	"SELECT count(*) FROM (SELECT DISTINCT ON (x.id) x.id, x.doc FROM (
	   SELECT r.id, r.ver, r.doc, r.changed_at AS ended FROM hist_bench_revisions r
	   UNION ALL SELECT c.id, (c.doc->>'_ver')::int, c.doc, 'infinity' FROM hist_bench c) x
	 WHERE x.ended > $hist_t ORDER BY x.id, x.ver) y"
bench_sql "history: path_history of a 0.1% path" 0.05 \
	"SELECT count(*) FROM docmodel.path_history('hist_bench', '/rare')" \
	"SELECT count(*) FROM (SELECT r.doc->'rare' AS old,
	   lead(r.doc->'rare') OVER (PARTITION BY r.id ORDER BY r.ver) AS new
	 FROM hist_bench_revisions r) x WHERE x.new IS NOT NULL AND x.old IS DISTINCT FROM x.new"
"${PSQL[@]}" -At <<SQL | sed 's/^/  plan: /'
EXPLAIN (COSTS OFF) SELECT r.id, r.ver FROM hist_bench_revisions r
  WHERE r.paths OPERATOR(pg_catalog.&&) docmodel._pointer_keys('/rare');
SQL
"${PSQL[@]}" >/dev/null <<SQL
SET client_min_messages = warning;
SELECT docmodel.drop_collection('hist_bench');
SQL
