#!/usr/bin/env bash
# make soak SOAK_SECONDS=<n> (default 300): build, install, and on a throwaway cluster run
# pgbench with 4 clients mixing next_key+insert, replace with CAS retries, remove and
# re-insert of the same keys, updates with revisions on and migrate on read, while a loop
# registers a new schema version and runs migrate_collection again and again. Then check
# (test/soak/check.sql): no error but the expected ones, every counter value handed out once,
# every key's versions without gaps a delete did not cause, amcheck on every index. Holds
# /tmp/docmodel-install.lock from its install to its end, as make test does.
# PGOPTIONS='-c docmodel.default_meta_style=columns' make soak: the same on a collection with
# meta_style 'columns'.
set -u
source "$(dirname "$0")/env.sh"
SOAK_SECONDS="${SOAK_SECONDS:-300}"

if [ "${1:-}" != "--inner" ]; then
	build_install || { echo "soak: build failed"; exit 1; }
	work=$(mktemp -d /tmp/docmodel-soak.XXXXXX)
	chmod 755 "$work"
	trap 'rm -rf "$work"' EXIT
	cp test/soak/* "$work/"
	[ "$(id -u)" -eq 0 ] && chown -R postgres "$work"
	# The cluster must not inherit the lock's descriptor (fd 9): a server left behind would
	# hold the machine's install lock for ever.
	SOAK_SECONDS="$SOAK_SECONDS" pg_virtualenv -v "$PG_MAJOR" "$TOP/scripts/soak.sh" --inner "$work" 9>&-
	exit $?
fi

# Inside pg_virtualenv: PGHOST, PGPORT, PGUSER, PGDATABASE point at the throwaway cluster.
work=$2
psql -qX -f "$work/setup.sql" >"$work/setup.log" 2>&1 || { cat "$work/setup.log"; exit 1; }

# The migration loop: version v -> v+1 (one more field), then migrate the collection.
(
	v=1
	end=$((SECONDS + SOAK_SECONDS))
	while [ $SECONDS -lt $end ]; do
		psql -qX -v ON_ERROR_STOP=1 -c "SELECT docmodel.register_migration('user', '$v', '$((v + 1))',
			'[{\"op\": \"add\", \"path\": \"/m$v\", \"value\": $v}]')" >/dev/null 2>>"$work/migrate.err" ||
			{ sleep 1; continue; }
		v=$((v + 1))
		psql -qX -v ON_ERROR_STOP=1 -c "CALL docmodel.migrate_collection('soak', 'user', NULL, 500)" \
			>/dev/null 2>>"$work/migrate.err" && echo ok >>"$work/migrate.runs"
		sleep 2
	done
) &
loop=$!

pgbench -n -c 4 -j 2 -T "$SOAK_SECONDS" \
	-f "$work/insert_new.bench@2" -f "$work/replace_cas.bench@3" -f "$work/remove_hot.bench@2" \
	-f "$work/insert_hot.bench@2" -f "$work/update_hot.bench@3" -f "$work/read_cold.bench@3" \
	-f "$work/mutate_hot.bench@2" -f "$work/lock_hot.bench@1" \
	>"$work/pgbench.log" 2>&1
prc=$?
wait $loop
# pgbench's totals, then each script's name and transaction count on one line
grep -E '^(number of (transactions|failed)|tps|latency average)' "$work/pgbench.log" | sed 's/^/pgbench: /'
awk '/^SQL script/ { name = $NF; sub(".*/", "", name) }
	/^ - [0-9]+ transactions/ { print "pgbench: " name ": " $2 " transactions" }' "$work/pgbench.log"
[ $prc -eq 0 ] || { echo "soak: pgbench exited $prc"; tail -20 "$work/pgbench.log"; }
echo "migrate_collection runs completed: $(wc -l <"$work/migrate.runs" 2>/dev/null || echo 0)"
if [ -s "$work/migrate.err" ]; then
	grep -E 'ERROR|FATAL' "$work/migrate.err" | tr -d '\001\002' >"$work/migrate.err1"
	psql -qX -c "\\copy soak.migrate_errors FROM '$work/migrate.err1' WITH (FORMAT csv, DELIMITER E'\\x02', QUOTE E'\\x01')"
fi

psql -X -f "$work/check.sql" 2>&1 | tee "$work/check.log"
crc=${PIPESTATUS[0]}
problems=$(psql -XtA -c "SELECT count(*) FROM soak.problems" 2>/dev/null || echo "?")
if [ $crc -ne 0 ] || [ $prc -ne 0 ] || [ "$problems" != 0 ]; then
	echo "soak: FAILED ($problems problems; check exited $crc, pgbench $prc)"
	exit 1
fi
echo "soak: OK (${SOAK_SECONDS}s, no problem found)"
