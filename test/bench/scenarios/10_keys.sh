# Keys: building and parsing keys in C against the plain SQL they replace, 2M rows.
"${PSQL[@]}" -c 'SET client_min_messages = warning' -c 'DROP TABLE IF EXISTS bench_keys' \
	-c "CREATE TABLE bench_keys AS SELECT concat_ws('::', 'user', i) AS k FROM generate_series(1, 2000000) i" \
	-c 'VACUUM ANALYZE bench_keys'

bench_sql "key('user', i) vs concat_ws, 2M rows" 1.25 \
	"SELECT sum(length(docmodel.key('user', i))) FROM generate_series(1, 2000000) i" \
	"SELECT sum(length(concat_ws('::', 'user', i))) FROM generate_series(1, 2000000) i"

bench_sql "key_type(k) vs split_part, 2M rows" 1.0 \
	"SELECT sum(length(docmodel.key_type(k))) FROM bench_keys" \
	"SELECT sum(length(split_part(k, '::', 1))) FROM bench_keys"

"${PSQL[@]}" -c 'DROP TABLE bench_keys'
