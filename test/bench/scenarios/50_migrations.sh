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

"${PSQL[@]}" -c "DROP TABLE bench_mig_src, bench_mig_a, bench_mig_b" \
	-c "DELETE FROM docmodel.migration_rules WHERE doc_type = 'user'" \
	-c "DELETE FROM docmodel.migration_run" >/dev/null
