# Scale-out on Citus: on a throwaway coordinator + 2 workers (scripts/citus.sh),
# single-key get and upsert through the coordinator against the same statements written by
# hand on the same distributed table, and migrate_collection of 500,000 documents against the
# hand-written migration. Skipped (one line) without Citus, and by make bench-instr (its
# single-user backend counts on one server, not through a coordinator and its workers).

if [ -n "${BENCH_INSTR:-}" ]; then
	echo "citus: skipped (a coordinator and two workers, not counted by bench-instr)"
elif ! ../../scripts/citus.sh installed; then
	echo "citus: skipped (Citus 13.2 is not installed: scripts/citus.sh install)"
else
	# (scripts/citus.sh runs its command from the checkout's top; fsync on, as users run)
	CITUS_FSYNC=on ../../scripts/citus.sh cluster bash test/bench/citus.sh
fi
