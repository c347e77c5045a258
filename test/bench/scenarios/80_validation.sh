# Schema validation: the cost of a schema on writes (100,000 seed-shaped user
# documents inserted into a collection whose type has a schema, against the same collection
# without one), validate() in documents per second, and schema_valid() against
# postgres-json-schema's validate_json_schema (PL/pgSQL, draft 4) on the same rows with the
# same schema of about 30 keywords. postgres-json-schema is installed here from its checkout:
# $POSTGRES_JSON_SCHEMA, by default the vendored copy (scripts/vendor.sh, which make bench and
# make bench-instr source); that line is left out without it. Sourced by run.sh.

VAL_DOCS=${VAL_DOCS:-100000}
VAL_COMPARE=${VAL_COMPARE:-10000} # the rows of schema_valid vs validate_json_schema
# about 30 keywords, all of draft 4 too (so both validators read the same schema)
VAL_SCHEMA='{"type": "object", "required": ["firstName", "lastName", "email", "phones"],
 "properties": {
  "firstName": {"type": "string", "minLength": 1, "maxLength": 64},
  "lastName": {"type": "string", "minLength": 1, "maxLength": 64},
  "email": {"type": "string", "pattern": "^[^@]+@[^@]+$"},
  "age": {"type": "integer", "minimum": 0, "maximum": 150},
  "city": {"type": "string", "enum": ["Oslo", "Bergen", "Paris", "Lyon"]},
  "phones": {"type": "array", "minItems": 1, "maxItems": 3,
   "items": {"type": "object", "required": ["type", "number"],
    "properties": {"type": {"enum": ["home", "work", "mobile", "other"]},
                   "number": {"type": "string", "pattern": "^[0-9]{10}$"}},
    "additionalProperties": false}}}}'

"${PSQL[@]}" >/dev/null <<SQL
SET client_min_messages = warning;
DROP TABLE IF EXISTS bench_val_src, bench_val_rows;
SELECT docmodel.drop_collection(c::regclass) FROM unnest(ARRAY['bench_val_a', 'bench_val_b']) c
 WHERE to_regclass(c) IS NOT NULL;
DELETE FROM docmodel.schemas WHERE doc_type IN ('vuser', 'nuser');
CREATE TABLE bench_val_src AS
SELECT i, jsonb_build_object('_schema', '3.0', 'firstName', 'First' || i, 'lastName', 'Last' || i,
    'email', 'user' || i || '@example.com', 'age', 20 + i % 50, 'city', 'Oslo',
    'phones', jsonb_build_array(jsonb_build_object('type', 'mobile',
      'number', lpad(i::text, 10, '0')))) AS doc
FROM generate_series(1, $VAL_DOCS) i;
SELECT docmodel.create_collection('bench_val_a'), docmodel.create_collection('bench_val_b');
SELECT docmodel.register_schema('vuser', '3.0', '$VAL_SCHEMA');
CREATE TABLE bench_val_rows AS SELECT doc FROM bench_val_src;
VACUUM ANALYZE bench_val_src, bench_val_rows;
SQL

val_reset() {
	"${PSQL[@]}" -c "TRUNCATE bench_val_a, bench_val_b" -c "CHECKPOINT" >/dev/null
}
BENCH_RESET=val_reset bench_sql "insert ${VAL_DOCS} users: schema vs none" 1.3 \
	"INSERT INTO bench_val_a (id, doc) SELECT 'vuser::' || i, doc FROM bench_val_src" \
	"INSERT INTO bench_val_b (id, doc) SELECT 'nuser::' || i, doc FROM bench_val_src"

"${PSQL[@]}" -c "TRUNCATE bench_val_a" \
	-c "INSERT INTO bench_val_a (id, doc) SELECT 'vuser::' || i, doc FROM bench_val_src" \
	-c "VACUUM ANALYZE bench_val_a" >/dev/null
val_ms=()
for ((r = 0; r < BENCH_ROUNDS; r++)); do
	val_ms+=("$(time_sql "SELECT count(*) FILTER (WHERE docmodel.validate(doc)) FROM bench_val_a")")
done
awk -v n="validate(doc), ${VAL_DOCS} docs" -v ms="$(median "${val_ms[@]}")" -v d="$VAL_DOCS" 'BEGIN {
	r = d / (ms / 1000); printf "%-44s %10.1f ms %10.0f docs/s   target >= 200000 docs/s  %s\n",
		n, ms, r, (r >= 200000 ? "met" : "MISSED") }'

pjs=${POSTGRES_JSON_SCHEMA:-}
if [ -f "$pjs/postgres-json-schema.control" ] &&
	make -s -C "$pjs" PG_CONFIG="${PG_CONFIG:-pg_config}" install >/dev/null 2>&1 &&
	"${PSQL[@]}" -c 'CREATE EXTENSION IF NOT EXISTS "postgres-json-schema"' >/dev/null 2>&1; then
	bench_sql "schema_valid vs validate_json_schema, ${VAL_COMPARE}" 0.05 \
		"SELECT count(*) FILTER (WHERE docmodel.schema_valid('$VAL_SCHEMA', doc)) FROM (SELECT doc FROM bench_val_rows LIMIT $VAL_COMPARE) r" \
		"SELECT count(*) FILTER (WHERE validate_json_schema('$VAL_SCHEMA', doc)) FROM (SELECT doc FROM bench_val_rows LIMIT $VAL_COMPARE) r"
	"${PSQL[@]}" -c 'DROP EXTENSION "postgres-json-schema"' >/dev/null
else
	echo "postgres-json-schema not found at ${pjs:-(POSTGRES_JSON_SCHEMA unset)}: schema_valid vs validate_json_schema left out"
fi

"${PSQL[@]}" >/dev/null <<SQL
SET client_min_messages = warning;
SELECT docmodel.drop_schema('vuser', '3.0');
SELECT docmodel.drop_collection('bench_val_a'), docmodel.drop_collection('bench_val_b');
DROP TABLE bench_val_src, bench_val_rows;
SQL
