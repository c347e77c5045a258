# Migrations: the seed's user 1.0 -> 3.0 (split name, phone ->
# phones) on 200,000 documents, against the hand-written jsonb UPDATE doing
# the same change, each pair on the same kind of table (plain id/doc tables,
# reloaded from one source before every timed statement: a migrated table
# has nothing left to migrate). Sourced by run.sh (lib.sh is loaded).

MIG_DOCS=${MIG_DOCS:-200000}

"${PSQL[@]}" >/dev/null <<SQL
SET client_min_messages = warning;
DROP TABLE IF EXISTS bench_mig_src, bench_mig_a, bench_mig_b;
DELETE FROM docmodel.migration_rules WHERE doc_type = 'user';
CREATE TABLE bench_mig_src AS
SELECT 'user::' || i AS id,
  jsonb_build_object('_type', 'user', '_schema', '1.0', 'name', 'First' || i || ' Last' || i,
    'phone', '555-' || lpad(i::text, 7, '0'), 'email', 'user' || i || '@example.com',
    'age', 20 + i % 50, 'city', 'Oslo') AS doc
FROM generate_series(1, $MIG_DOCS) i;
CREATE TABLE bench_mig_a (id text COLLATE "C" PRIMARY KEY, doc jsonb NOT NULL);
CREATE TABLE bench_mig_b (id text COLLATE "C" PRIMARY KEY, doc jsonb NOT NULL);
SELECT docmodel.register_migration('user', '1.0', '2.0', steps => '[
  {"op": "split", "path": "/name", "into": ["/firstName", "/lastName"], "separator": " "}]');
SELECT docmodel.register_migration('user', '2.0', '3.0', steps => '[
  {"op": "wrap", "path": "/phone", "into": "/phones", "template": {"type": "other", "number": "\$"}}]');
SQL

# The hand-written UPDATE: the same change in jsonb operators.
MIG_HAND="UPDATE bench_mig_b SET doc = (doc - 'name' - 'phone') || jsonb_build_object(
  'firstName', split_part(doc->>'name', ' ', 1),
  'lastName', substr(doc->>'name', strpos(doc->>'name', ' ') + 1),
  'phones', jsonb_build_array(jsonb_build_object('type', 'other', 'number', doc->'phone')),
  '_schema', '3.0')"

# Reload both tables with the 1.0 documents (not timed).
mig_reset() {
	"${PSQL[@]}" -c "TRUNCATE bench_mig_a, bench_mig_b" \
		-c "INSERT INTO bench_mig_a SELECT * FROM bench_mig_src ORDER BY id" \
		-c "INSERT INTO bench_mig_b SELECT * FROM bench_mig_src ORDER BY id" \
		-c "VACUUM ANALYZE bench_mig_a, bench_mig_b" -c "CHECKPOINT" >/dev/null
}

# Each pair times its statement on freshly reloaded tables (BENCH_RESET), against MIG_HAND.
mig_pair() {
	PGOPTIONS='-c client_min_messages=warning' BENCH_RESET=mig_reset bench_sql "$1" "$2" "$3" "$MIG_HAND"
}

mig_k=$((MIG_DOCS / 1000))
mig_pair "migrate: UPDATE migrate(doc) ${mig_k}k 1.0->3.0" 1.00 \
	"UPDATE bench_mig_a SET doc = docmodel.migrate(doc)"
mig_pair "migrate: migrate_collection ${mig_k}k 1.0->3.0" 1.15 \
	"CALL docmodel.migrate_collection('bench_mig_a', batch_size => 5000)"

# Reading current documents: migrate() returns each as it is.
"${PSQL[@]}" -c "UPDATE bench_mig_a SET doc = docmodel.migrate(doc)" -c "VACUUM ANALYZE bench_mig_a" >/dev/null
BENCH_ROUNDS=11 bench_sql "migrate: SELECT migrate(doc) current ${mig_k}k" 1.05 \
	"SELECT docmodel.migrate(doc) FROM bench_mig_a" \
	"SELECT doc FROM bench_mig_a"
# ... and against the check an application writes by hand (type and version read, the
# document passed on when current).
BENCH_ROUNDS=11 bench_sql "migrate: SELECT migrate(doc) vs hand check ${mig_k}k" 1.05 \
	"SELECT docmodel.migrate(doc) FROM bench_mig_a" \
	"SELECT CASE WHEN doc->>'_type' = 'user' AND doc->>'_schema' IS DISTINCT FROM '3.0' THEN NULL ELSE doc END FROM bench_mig_a"

# Both ways: the 3.0 documents (from the runs above) taken down to 1.0 by
# migrate_collection (which keeps what a way down drops), against the
# hand-written reverse UPDATE (which keeps nothing).
MIG_DOWN_HAND="UPDATE bench_mig_b SET doc = (doc - 'firstName' - 'lastName' - 'phones') || jsonb_build_object(
  'name', concat_ws(' ', doc->>'firstName', doc->>'lastName'),
  'phone', doc->'phones'->0->'number', '_schema', '1.0')"
mig_reset3() {
	"${PSQL[@]}" -c "TRUNCATE bench_mig_a, bench_mig_b" \
		-c "INSERT INTO bench_mig_a SELECT id, docmodel.migrate(doc) FROM bench_mig_src ORDER BY id" \
		-c "INSERT INTO bench_mig_b SELECT * FROM bench_mig_a ORDER BY id" \
		-c "DELETE FROM docmodel.migration_run" \
		-c "VACUUM ANALYZE bench_mig_a, bench_mig_b" -c "CHECKPOINT" >/dev/null
}
PGOPTIONS='-c client_min_messages=warning' BENCH_RESET=mig_reset3 bench_sql \
	"migrate: migrate_collection down ${mig_k}k 3.0->1.0" 1.15 \
	"CALL docmodel.migrate_collection('bench_mig_a', 'user', '1.0', batch_size => 5000)" \
	"$MIG_DOWN_HAND"

# Two releases side by side: a collection of 100,000 3.0 documents with two
# phones each; get at 2.0 (one step down) against get at 3.0, and a write
# of a 2.0 document (migrated up, keeping the second phone from the stored
# one) against a write of the same document at 3.0.
"${PSQL[@]}" >/dev/null <<SQL
SET client_min_messages = warning;
SELECT docmodel.drop_collection(collection) FROM docmodel.collections WHERE collection = to_regclass('bench_bw');
SELECT docmodel.create_collection('bench_bw');
INSERT INTO bench_bw (id, doc)
SELECT 'user::' || i, jsonb_build_object('firstName', 'First' || i, 'lastName', 'Last' || i,
  'email', 'user' || i || '@example.com', 'age', 20 + i % 50,
  'phones', jsonb_build_array(jsonb_build_object('type', 'mobile', 'number', '555-' || i),
    jsonb_build_object('type', 'home', 'number', '556-' || i)))
FROM generate_series(1, 100000) i;
VACUUM ANALYZE bench_bw;
SQL
bench_dir=$(mktemp -d)
cat > "$bench_dir/get_at.sql" <<'SQL'
\set k random(1, 100000)
SELECT docmodel.get('bench_bw', 'user::' || :k, as_version => '2.0');
SQL
cat > "$bench_dir/get_cur.sql" <<'SQL'
\set k random(1, 100000)
SELECT docmodel.get('bench_bw', 'user::' || :k);
SQL
cat > "$bench_dir/put_at.sql" <<'SQL'
\set k random(1, 100000)
SELECT docmodel.upsert('bench_bw', 'user::' || :k, jsonb_build_object('_schema', '2.0',
  'firstName', 'First' || :k, 'lastName', 'Last' || :k, 'email', 'user' || :k || '@example.com',
  'age', 20 + :k % 50, 'phone', '555-' || :k));
SQL
cat > "$bench_dir/put_cur.sql" <<'SQL'
\set k random(1, 100000)
SELECT docmodel.upsert('bench_bw', 'user::' || :k, jsonb_build_object('_schema', '3.0',
  'firstName', 'First' || :k, 'lastName', 'Last' || :k, 'email', 'user' || :k || '@example.com',
  'age', 20 + :k % 50, 'phones', jsonb_build_array(jsonb_build_object('type', 'mobile', 'number', '555-' || :k),
    jsonb_build_object('type', 'home', 'number', '556-' || :k))));
SQL
PGBENCH_ARGS="-M prepared" bench_tps "migrate: get at 2.0 vs get at 3.0 (current)" 0.80 \
	"$bench_dir/get_at.sql" "$bench_dir/get_cur.sql" 2 8
PGBENCH_ARGS="-M prepared" bench_tps "migrate: upsert at 2.0 vs upsert at 3.0" 0.75 \
	"$bench_dir/put_at.sql" "$bench_dir/put_cur.sql" 2 8
rm -rf "$bench_dir"
"${PSQL[@]}" -c "SELECT docmodel.drop_collection('bench_bw')" >/dev/null

"${PSQL[@]}" -c "DROP TABLE bench_mig_src, bench_mig_a, bench_mig_b" \
	-c "DELETE FROM docmodel.migration_rules WHERE doc_type = 'user'" \
	-c "DELETE FROM docmodel.migration_run" >/dev/null
