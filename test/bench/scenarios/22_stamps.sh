# Stamps: what the management fields (_ver, _created, _modified, _createdBy, _modifiedBy) cost at
# scale, against a plain table (id text COLLATE "C" PRIMARY KEY, doc jsonb NOT NULL) holding the
# same documents: a collection of the default style (the stamps inside the jsonb body) and one
# created with meta_style => 'columns' (the stamps in typed columns, the body as written).
# BENCH_STAMP_DOCS documents (1,000,000; the small user documents of 20_collections, keys
# user::N). Four measures: table size (pg_total_relation_size), bulk INSERT ... SELECT, a full
# UPDATE of every document, and get against SELECT doc (pgbench -M prepared, random keys).
# Targets are for the columns style (size <= 1.20x, INSERT and UPDATE <= 1.15x, get >= 0.90x);
# the default style is printed beside each as an anchor. Without meta_style 'columns' (probed
# in a rolled-back subtransaction) its lines say skipped.
# The INSERT and UPDATE pairs are heavy at this size: each round starts from the same state
# (BENCH_RESET: emptied, or reloaded and vacuumed, then a CHECKPOINT), alternates which side
# goes first (BENCH_ABBA) and they run BENCH_STAMP_ROUNDS rounds (4) instead of BENCH_ROUNDS.
# The floors (informative rows, anchor "-"): a hand-written table with the columns of the
# columns collection (bench_stamp_floor: the same names, types, order and expires_at index)
# whose stamps come from column DEFAULTs (now(), 1, a constant writer id and cas) with no
# trigger, and the same table with the cheapest C row trigger PostgreSQL ships (contrib's
# insert_username, BEFORE INSERT OR UPDATE, filling one more text column; its row says
# skipped when the extension is not installed). An UPDATE must bump ver and modified_at,
# which without a trigger only the statement can do: the floors' UPDATE sets them. They show
# what any row trigger costs against the plain table, which the columns style's targets
# (INSERT and UPDATE <= 1.15x) are measured against.
# Sourced by test/bench/run.sh (bench_sql, bench_tps, PSQL from lib.sh).

stamp_n=${BENCH_STAMP_DOCS:-1000000}
stamp_rounds=${BENCH_STAMP_ROUNDS:-4}
stamp_k=$((stamp_n / 1000))k

# Is meta_style 'columns' there? Created and rolled back, whatever the outcome.
stamp_cols=0
if "${PSQL[@]}" -At 2>&1 <<'SQL' | grep -q 'stamp probe: columns=yes'; then
SET client_min_messages = notice;
DO $$
DECLARE
    ok boolean := false;
BEGIN
    BEGIN
        PERFORM docmodel.create_collection('bench_stamp_probe', meta_style => 'columns');
        ok := true;
        RAISE EXCEPTION 'probe rolled back';
    EXCEPTION WHEN OTHERS THEN
        NULL;
    END;
    RAISE NOTICE 'stamp probe: columns=%', CASE WHEN ok THEN 'yes' ELSE 'no' END;
END
$$;
SQL
	stamp_cols=1
fi
stamp_colls=bench_stamp_def
[ $stamp_cols = 1 ] && stamp_colls="bench_stamp_def bench_stamp_cols"

"${PSQL[@]}" >/dev/null <<SQL
SET client_min_messages = warning;
SELECT docmodel.drop_collection(collection) FROM docmodel.collections
 WHERE collection::text IN ('bench_stamp_def', 'bench_stamp_cols');
DROP TABLE IF EXISTS bench_stamp_src, bench_stamp_plain, bench_stamp_def, bench_stamp_cols,
    bench_stamp_floor, bench_stamp_floor_trg;
CREATE TABLE bench_stamp_src AS
SELECT 'user::' || i AS id,
       jsonb_build_object('name', 'User ' || i, 'email', 'user' || i || '@example.com',
                          'age', i % 90, 'tags', jsonb_build_array('a', 'b'),
                          'address', jsonb_build_object('city', 'Berlin', 'zip', '10' || i % 1000)) AS doc
FROM generate_series(1, $stamp_n) AS i;
CREATE TABLE bench_stamp_plain (id text COLLATE "C" PRIMARY KEY, doc jsonb NOT NULL);
SELECT docmodel.create_collection('bench_stamp_def') IS NOT NULL;
-- the floors: the columns collection's table, its stamps from defaults
CREATE TABLE bench_stamp_floor (id text COLLATE "C" PRIMARY KEY, doc jsonb NOT NULL,
    cas bigint NOT NULL DEFAULT 1, expires_at timestamptz, locked_until timestamptz,
    created_at timestamptz DEFAULT now(), modified_at timestamptz DEFAULT now(),
    ver integer DEFAULT 1, created_by integer DEFAULT 1, modified_by integer DEFAULT 1);
CREATE INDEX ON bench_stamp_floor (expires_at) WHERE expires_at IS NOT NULL;
SQL
# The same with contrib's insert_username as its row trigger (and the text column it fills).
stamp_floors=bench_stamp_floor
if "${PSQL[@]}" -At -c "SELECT 1 FROM pg_available_extensions WHERE name = 'insert_username'" | grep -q 1; then
	"${PSQL[@]}" >/dev/null <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS insert_username;
CREATE TABLE bench_stamp_floor_trg (LIKE bench_stamp_floor INCLUDING DEFAULTS INCLUDING INDEXES,
    trigger_user text);
CREATE TRIGGER bench_stamp_floor_trg BEFORE INSERT OR UPDATE ON bench_stamp_floor_trg
    FOR EACH ROW EXECUTE FUNCTION insert_username(trigger_user);
SQL
	stamp_floors="bench_stamp_floor bench_stamp_floor_trg"
fi
if [ $stamp_cols = 1 ]; then
	"${PSQL[@]}" -c "SELECT docmodel.create_collection('bench_stamp_cols', meta_style => 'columns') IS NOT NULL" >/dev/null
fi

# Empty every table (the INSERT pairs' reset).
stamp_empty() {
	local t
	for t in bench_stamp_plain $stamp_colls $stamp_floors; do
		"${PSQL[@]}" -c "TRUNCATE $t" >/dev/null
	done
	"${PSQL[@]}" -c "CHECKPOINT" >/dev/null
}
# Reload the tables named from the source, vacuumed (the UPDATE pairs' reset).
stamp_reload() {
	local t
	for t in "$@"; do
		"${PSQL[@]}" -c "TRUNCATE $t" -c "INSERT INTO $t (id, doc) SELECT id, doc FROM bench_stamp_src" \
			-c "VACUUM ANALYZE $t" >/dev/null
	done
	"${PSQL[@]}" -c "CHECKPOINT" >/dev/null
}
"${PSQL[@]}" -c "VACUUM ANALYZE bench_stamp_src" >/dev/null
stamp_reload bench_stamp_plain $stamp_colls $stamp_floors

stamp_skip() {
	printf '%-44s skipped: meta_style columns not available\n' "$1"
}

# Size: one line per style, against the plain table.
stamp_size() {
	local name=$1 target=$2 t=$3
	"${PSQL[@]}" -At -F ' ' -c "SELECT pg_total_relation_size('$t'), pg_total_relation_size('bench_stamp_plain')" |
		awk -v n="$name" -v t="$target" '{
			r = $1 / $2; printf "%-44s %10.1f MB %10.1f MB   ratio %5.2fx   ", n, $1 / 1048576, $2 / 1048576, r
			if (t == "-") print "anchor (no target)"
			else printf "target <= %.2fx  %s\n", t, (r <= t ? "met" : "MISSED") }'
}
# Where the bytes of a row go (averages over every row): heap and index bytes per row (pages
# over rows: line pointer, alignment and page free space included), the row as a datum
# (pg_column_size of the row: its 24-byte header and null bitmap, every column), the doc
# column, the id, and what the other columns take.
stamp_bytes() {
	local t=$1
	"${PSQL[@]}" -At -F ' ' -c "SELECT pg_relation_size('$t') / count(*)::float8,
	        (pg_total_relation_size('$t') - pg_relation_size('$t')) / count(*)::float8,
	        avg(pg_column_size(t.*)), avg(pg_column_size(t.doc)), avg(pg_column_size(t.id))
	   FROM $t AS t" |
		awk -v n="  bytes/row $t" '{
			printf "%-44s heap %.0f, indexes %.0f; row %.1f = doc %.1f + id %.1f + rest %.1f\n",
				n, $1, $2, $3, $4, $5, $3 - $4 - $5 }'
}
stamp_size "stamps: size ${stamp_k} docs, default vs plain" - bench_stamp_def
if [ $stamp_cols = 1 ]; then
	stamp_size "stamps: size ${stamp_k} docs, columns vs plain" 1.20 bench_stamp_cols
else
	stamp_skip "stamps: size ${stamp_k} docs, columns vs plain"
fi
for t in bench_stamp_plain $stamp_colls; do
	stamp_bytes $t
done

# get against SELECT doc from the plain table.
stamp_dir=$(mktemp -d)
chmod 755 "$stamp_dir"
for t in def cols; do
	cat > "$stamp_dir/get_$t.sql" <<SQL
\set k random(1, $stamp_n)
SELECT docmodel.get('bench_stamp_$t', 'user::' || :k);
SQL
done
cat > "$stamp_dir/select.sql" <<SQL
\set k random(1, $stamp_n)
SELECT doc FROM bench_stamp_plain WHERE id = 'user::' || :k;
SQL
PGBENCH_ARGS="-M prepared" bench_tps "stamps: get ${stamp_k}, default vs SELECT doc" - \
	"$stamp_dir/get_def.sql" "$stamp_dir/select.sql" 2 8
if [ $stamp_cols = 1 ]; then
	PGBENCH_ARGS="-M prepared" bench_tps "stamps: get ${stamp_k}, columns vs SELECT doc" 0.90 \
		"$stamp_dir/get_cols.sql" "$stamp_dir/select.sql" 2 8
else
	stamp_skip "stamps: get ${stamp_k}, columns vs SELECT doc"
fi
rm -rf "$stamp_dir"

stamp_pair() {
	BENCH_ROUNDS=$stamp_rounds BENCH_ABBA=1 bench_sql "$@"
}
BENCH_RESET=stamp_empty stamp_pair "stamps: INSERT ${stamp_k}, default vs plain" - \
	"INSERT INTO bench_stamp_def (id, doc) SELECT id, doc FROM bench_stamp_src" \
	"INSERT INTO bench_stamp_plain (id, doc) SELECT id, doc FROM bench_stamp_src"
if [ $stamp_cols = 1 ]; then
	BENCH_RESET=stamp_empty stamp_pair "stamps: INSERT ${stamp_k}, columns vs plain" 1.15 \
		"INSERT INTO bench_stamp_cols (id, doc) SELECT id, doc FROM bench_stamp_src" \
		"INSERT INTO bench_stamp_plain (id, doc) SELECT id, doc FROM bench_stamp_src"
else
	stamp_skip "stamps: INSERT ${stamp_k}, columns vs plain"
fi

stamp_update="SET doc = doc || '{\"n\": 1}'"
BENCH_RESET="stamp_reload bench_stamp_def bench_stamp_plain" stamp_pair \
	"stamps: UPDATE ${stamp_k}, default vs plain" - \
	"UPDATE bench_stamp_def $stamp_update" "UPDATE bench_stamp_plain $stamp_update"
if [ $stamp_cols = 1 ]; then
	BENCH_RESET="stamp_reload bench_stamp_cols bench_stamp_plain" stamp_pair \
		"stamps: UPDATE ${stamp_k}, columns vs plain" 1.15 \
		"UPDATE bench_stamp_cols $stamp_update" "UPDATE bench_stamp_plain $stamp_update"
else
	stamp_skip "stamps: UPDATE ${stamp_k}, columns vs plain"
fi

# The floors of a row trigger (anchors): no trigger, and the cheapest C one.
BENCH_RESET=stamp_empty stamp_pair "stamps: INSERT ${stamp_k}, no trigger vs plain" - \
	"INSERT INTO bench_stamp_floor (id, doc) SELECT id, doc FROM bench_stamp_src" \
	"INSERT INTO bench_stamp_plain (id, doc) SELECT id, doc FROM bench_stamp_src"
stamp_floor_update="$stamp_update, ver = ver + 1, modified_at = now()"
BENCH_RESET="stamp_reload bench_stamp_floor bench_stamp_plain" stamp_pair \
	"stamps: UPDATE ${stamp_k}, no trigger vs plain" - \
	"UPDATE bench_stamp_floor $stamp_floor_update" "UPDATE bench_stamp_plain $stamp_update"
if [ "$stamp_floors" != bench_stamp_floor ]; then
	BENCH_RESET=stamp_empty stamp_pair "stamps: INSERT ${stamp_k}, insert_username vs plain" - \
		"INSERT INTO bench_stamp_floor_trg (id, doc) SELECT id, doc FROM bench_stamp_src" \
		"INSERT INTO bench_stamp_plain (id, doc) SELECT id, doc FROM bench_stamp_src"
	BENCH_RESET="stamp_reload bench_stamp_floor_trg bench_stamp_plain" stamp_pair \
		"stamps: UPDATE ${stamp_k}, insert_username vs plain" - \
		"UPDATE bench_stamp_floor_trg $stamp_floor_update" "UPDATE bench_stamp_plain $stamp_update"
else
	printf '%-44s skipped: extension insert_username not available\n' "stamps: INSERT/UPDATE ${stamp_k}, insert_username"
fi

"${PSQL[@]}" >/dev/null <<'SQL'
SET client_min_messages = warning;
SELECT docmodel.drop_collection(collection) FROM docmodel.collections
 WHERE collection::text IN ('bench_stamp_def', 'bench_stamp_cols');
DROP TABLE IF EXISTS bench_stamp_src, bench_stamp_plain, bench_stamp_floor, bench_stamp_floor_trg;
SQL
