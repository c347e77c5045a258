#!/usr/bin/env bash
# Benchmark runner: runs test/bench/scenarios/*.sh (or the ones named as arguments) against the
# cluster in the environment (make bench gives it a throwaway one).
set -eu
cd "$(dirname "$0")"
source ./lib.sh
"${PSQL[@]}" -c 'CREATE EXTENSION IF NOT EXISTS docmodel'
if [ -n "${BENCH_INSTR:-}" ]; then
	echo "docmodel benchmarks in instructions (thousands per statement, or per pgbench transaction; CPU only, not waits, so durability settings do not matter here)"
else
	echo "docmodel benchmarks: medians of ${BENCH_ROUNDS} alternating rounds (pgbench: ${BENCH_TPS_ROUNDS:-3})"
fi
"${PSQL[@]}" -At -c "SELECT 'settings: ' || string_agg(name || '=' || setting, ', ' ORDER BY name)
	FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'full_page_writes',
	'shared_buffers', 'max_wal_size', 'wal_level', 'autovacuum', 'server_version')"
printf '%-44s %13s %13s\n' scenario docmodel baseline
shopt -s nullglob
if [ $# -gt 0 ]; then scenarios=("$@"); else scenarios=(scenarios/*.sh); fi
for s in "${scenarios[@]}"; do
	source "$s"
done
