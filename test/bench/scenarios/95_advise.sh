# advise: one call over 100,000 documents (sample => 100000), against its target of 5 s.
if [ -n "${BENCH_INSTR:-}" ]; then
	echo "advise: a time target, not counted by bench-instr"
	return 0 2>/dev/null || exit 0
fi

"${PSQL[@]}" >/dev/null <<'SQL'
SET client_min_messages = warning;
DELETE FROM docmodel.collection_config WHERE coll::text = 'bench_adv' OR coll::text ~ '^\d+$';
DROP TABLE IF EXISTS bench_adv;
SELECT docmodel.create_collection('bench_adv', 'user');
INSERT INTO bench_adv (id, doc)
SELECT 'user::' || i, jsonb_build_object('name', 'User ' || i, 'email', 'user' || i || '@example.com',
    'nickname', CASE WHEN i % 3 = 0 THEN NULL ELSE 'n' END, 'signed_up', '2024-01-02T03:04:05Z',
    'guid', '0f8fad5b-d9cb-469f-a165-70867728950e',
    'phones', jsonb_build_array(jsonb_build_object('type', 'home', 'number', '555-' || i)),
    'address', jsonb_build_object('city', 'Berlin', 'zip', '10' || i % 1000))
FROM generate_series(1, 100000) i;
VACUUM ANALYZE bench_adv;
SQL
ms=()
for ((i = 0; i < BENCH_ROUNDS; i++)); do
	ms+=("$(time_sql "SELECT count(*) FROM docmodel.advise('bench_adv', 100000)")")
done
awk -v m="$(median "${ms[@]}")" 'BEGIN { printf "%-44s %10.1f ms   target <= 5000 ms  %s\n",
	"advise: 100,000 documents", m, (m <= 5000 ? "met" : "MISSED") }'
"${PSQL[@]}" -c "SELECT docmodel.drop_collection('bench_adv')" >/dev/null
