# Revisions: history written by the collection trigger, against the same collection
# without history. The history starts full (10 revisions per document, so the documents start
# at _ver 11): every timed write also drops the oldest revision, the steady state, not the
# cheap first ten. Side by side, the anchors (other ways), on the same documents: a PL/pgSQL
# trigger doing the same work on the collection without history, and the periods extension's
# system versioning on a plain table (when its package is installed). Sourced by
# test/bench/run.sh (bench_sql, bench_tps, PSQL from lib.sh).

rev_n=${REV_BENCH_DOCS:-50000}
rev_periods=0
if [ -z "${BENCH_INSTR:-}" ] &&
	"${PSQL[@]}" -Atc "SELECT 1 FROM pg_available_extensions WHERE name = 'periods'" | grep -q 1; then
	rev_periods=1
fi
"${PSQL[@]}" >/dev/null <<SQL
SET client_min_messages = warning;
DROP TABLE IF EXISTS rev_bench_on, rev_bench_on_revisions, rev_bench_off, rev_bench_pl,
  rev_bench_pl_revisions, rev_bench_src;
DROP FUNCTION IF EXISTS rev_bench_pl_history();
DELETE FROM docmodel.collection_config
  WHERE coll::text IN ('rev_bench_on', 'rev_bench_off', 'rev_bench_pl');
SELECT docmodel.create_collection('rev_bench_on', revisions => 10);
SELECT docmodel.create_collection('rev_bench_off');
SELECT docmodel.create_collection('rev_bench_pl');
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

-- The PL/pgSQL anchor: the same history (no-op updates skipped, keep = 10), by hand. Its
-- documents start at _ver 1, so its full history is revisions -9 to 0.
CREATE TABLE rev_bench_pl_revisions (LIKE rev_bench_on_revisions INCLUDING ALL);
INSERT INTO rev_bench_pl_revisions
  SELECT id, ver - 10, op, changed_at, changed_by, doc FROM rev_bench_on_revisions;
INSERT INTO rev_bench_pl (id, doc, cas) SELECT id, doc, 0 FROM rev_bench_src;
CREATE FUNCTION rev_bench_pl_history() RETURNS trigger LANGUAGE plpgsql AS \$\$
DECLARE
  v integer := (OLD.doc->>'_ver')::integer;
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.doc - '{_ver,_modified,_modifiedBy}'::text[]
                        = OLD.doc - '{_ver,_modified,_modifiedBy}'::text[] THEN
    RETURN NULL;
  END IF;
  INSERT INTO rev_bench_pl_revisions
    VALUES (OLD.id, v, lower(TG_OP), now(), current_user, OLD.doc);
  DELETE FROM rev_bench_pl_revisions WHERE id = OLD.id AND ver <= v - 10;
  RETURN NULL;
END
\$\$;
CREATE TRIGGER rev_bench_pl_history AFTER UPDATE OR DELETE ON rev_bench_pl
  FOR EACH ROW EXECUTE FUNCTION rev_bench_pl_history();
VACUUM ANALYZE rev_bench_on, rev_bench_on_revisions, rev_bench_off, rev_bench_pl,
  rev_bench_pl_revisions;
SQL
if [ $rev_periods = 1 ]; then
	# periods: system versioning keeps every version (no limit) in its own history table.
	"${PSQL[@]}" >/dev/null <<SQL
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS periods CASCADE;
DROP TABLE IF EXISTS rev_bench_sv, rev_bench_sv_history, rev_bench_plain CASCADE;
CREATE TABLE rev_bench_plain (id text PRIMARY KEY, doc jsonb NOT NULL);
CREATE TABLE rev_bench_sv (id text PRIMARY KEY, doc jsonb NOT NULL);
INSERT INTO rev_bench_plain SELECT id, doc FROM rev_bench_src;
INSERT INTO rev_bench_sv SELECT id, doc FROM rev_bench_src;
SELECT periods.add_system_time_period('rev_bench_sv');
SELECT periods.add_system_versioning('rev_bench_sv');
VACUUM ANALYZE rev_bench_plain, rev_bench_sv;
SQL
fi
"${PSQL[@]}" -c "DROP TABLE rev_bench_src" >/dev/null

rev_update="SET doc = doc || jsonb_build_object('n', (doc->>'n')::int + 1)"
bench_sql "revisions: UPDATE ${rev_n} docs, keep=10" 1.8 \
	"UPDATE rev_bench_on $rev_update" "UPDATE rev_bench_off $rev_update"
bench_sql "  anchor: PL/pgSQL history trigger, keep=10" - \
	"UPDATE rev_bench_pl $rev_update" "UPDATE rev_bench_off $rev_update"
if [ $rev_periods = 1 ]; then
	bench_sql "  anchor: periods system versioning" - \
		"UPDATE rev_bench_sv $rev_update" "UPDATE rev_bench_plain $rev_update"
fi

# The single-document runs start from vacuumed tables, not from the dead rows and index
# entries the bulk rounds left (both sides alike).
"${PSQL[@]}" -c "VACUUM ANALYZE rev_bench_on, rev_bench_on_revisions, rev_bench_off, rev_bench_pl, rev_bench_pl_revisions" >/dev/null
rev_dir=$(mktemp -d)
chmod 755 "$rev_dir"
for t in on off pl; do
	cat > "$rev_dir/$t.sql" <<SQL
\set k random(1, $rev_n)
UPDATE rev_bench_$t SET doc = doc || jsonb_build_object('n', :k + random()) WHERE id = 'user::' || :k;
SQL
done
bench_tps "revisions: pgbench 1-doc UPDATE, keep=10" 0.9 "$rev_dir/on.sql" "$rev_dir/off.sql" 2 5
bench_tps "  anchor: PL/pgSQL history trigger, keep=10" - "$rev_dir/pl.sql" "$rev_dir/off.sql" 2 5
rm -rf "$rev_dir"
"${PSQL[@]}" >/dev/null <<SQL
SET client_min_messages = warning;
SELECT docmodel.drop_collection(c)
  FROM unnest('{rev_bench_on,rev_bench_off,rev_bench_pl}'::regclass[]) c;
DROP FUNCTION rev_bench_pl_history();
DROP TABLE rev_bench_pl_revisions;
DROP TABLE IF EXISTS rev_bench_sv, rev_bench_sv_history, rev_bench_plain CASCADE;
SQL
