# Counters: next_id against nextval() on a plain sequence, and against the
# hand-written counter table when each increment sits in a transaction held open 1 ms.
# Sourced by test/bench/run.sh (lib.sh's bench_tps / bench_sql are in scope).
cdir=$(mktemp -d)
"${PSQL[@]}" >/dev/null <<'SQL'
SET client_min_messages = warning;
DROP TABLE IF EXISTS bench_counters;
DROP SEQUENCE IF EXISTS bench_counter_seq;
CREATE SEQUENCE bench_counter_seq;
CREATE TABLE bench_counters (name text PRIMARY KEY, v bigint NOT NULL);
INSERT INTO bench_counters VALUES ('user', 0);
SELECT docmodel.next_id('user');
SELECT docmodel.counter_create('bench::held');
SQL
echo "SELECT docmodel.next_id('user');" > "$cdir/next_id.sql"
echo "SELECT nextval('bench_counter_seq');" > "$cdir/nextval.sql"
printf 'BEGIN;\nSELECT docmodel.incr(%s);\n\\sleep 1 ms\nCOMMIT;\n' "'bench::held'" > "$cdir/held_incr.sql"
printf 'BEGIN;\nUPDATE bench_counters SET v = v + 1 WHERE name = %s RETURNING v;\n\\sleep 1 ms\nCOMMIT;\n' "'user'" > "$cdir/held_update.sql"

bench_tps "next_id('user') vs nextval(), 1 client" 0.8 "$cdir/next_id.sql" "$cdir/nextval.sql" 1 5
bench_tps "next_id('user') vs nextval(), 4 clients" 0.8 "$cdir/next_id.sql" "$cdir/nextval.sql" 4 5
bench_tps "incr held 1 ms vs UPDATE..RETURNING, 4 cl" 3 "$cdir/held_incr.sql" "$cdir/held_update.sql" 4 5

# 100,000 per-parent counters: one timed run each (creation is not repeatable), docmodel's
# first next_id per parent against 100,000 CREATE SEQUENCE (one catalog object each).
tc=$(time_sql "SELECT count(docmodel.next_id('user', 'company' || g)) FROM generate_series(1, 100000) g")
ts=$(time_sql "DO \$\$BEGIN FOR i IN 1..100000 LOOP EXECUTE format('CREATE SEQUENCE bench_seq_%s', i); IF i % 1000 = 0 THEN COMMIT; END IF; END LOOP; END\$\$")
awk -v n="create 100,000 per-parent counters vs seqs" -v a="$tc" -v b="$ts" 'BEGIN {
	r = a / b; printf "%-44s %10.1f ms %10.1f ms   ratio %5.2fx   target <= %.2fx  %s\n",
		n, a, b, r, 1.0, (r <= 1.0 ? "met" : "MISSED") }'
"${PSQL[@]}" -At -c "SELECT 'counter_state for ' || count(*) || ' counters: ' || pg_size_pretty(pg_total_relation_size('docmodel.counter_state')) || ' (heap ' || pg_size_pretty(pg_relation_size('docmodel.counter_state')) || '), ' || round(pg_total_relation_size('docmodel.counter_state')::numeric / count(*)) || ' bytes per counter incl. index' FROM docmodel.counter_state"
"${PSQL[@]}" -c "DO \$\$BEGIN FOR i IN 1..100000 LOOP EXECUTE format('DROP SEQUENCE bench_seq_%s', i); IF i % 1000 = 0 THEN COMMIT; END IF; END LOOP; END\$\$" \
	-c "DROP TABLE bench_counters" -c "DROP SEQUENCE bench_counter_seq"
rm -rf "$cdir"
