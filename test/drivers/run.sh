#!/usr/bin/env bash
# docmodel through real drivers as the ecosystem ships them: node-postgres (the pg package, from
# npm) and psycopg2 (Debian's python3-psycopg2), every parameter as the driver sends it (make test
# runs it in its throwaway cluster; alone: make quick TESTS=drivers). Connects with the PG*
# variables, in a database of its own. Prints one "test drivers DRIVER: CHECK ... ok|FAILED" a
# check; a driver that is not installed and cannot be installed is skipped, in one line saying so.
#
# node-postgres is installed with npm into DOCMODEL_CACHE (default ~/.cache/docmodel), outside
# the repository, once; DRIVERS_PG_VERSION chooses its version (8 by default).
set -u
top="$(cd "$(dirname "$0")/../.." && pwd)"
cache="${DOCMODEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/docmodel}/drivers"
db=docmodel_drivers
psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" ||
	exit 1
psql -X -q -v ON_ERROR_STOP=1 -d "$db" -c "SET client_min_messages = warning" \
	-c "CREATE EXTENSION docmodel" || exit 1
export PGDATABASE=$db
rc=0

# node-postgres
if ! command -v node >/dev/null 2>&1; then
	echo "drivers node suite skipped: node is not installed"
else
	if [ ! -f "$cache/node_modules/pg/package.json" ] && command -v npm >/dev/null 2>&1; then
		mkdir -p "$cache"
		npm install --silent --no-audit --no-fund --prefix "$cache" "pg@${DRIVERS_PG_VERSION:-8}" \
			>"$cache/npm.log" 2>&1 || tail -5 "$cache/npm.log"
	fi
	if [ -f "$cache/node_modules/pg/package.json" ]; then
		NODE_PATH="$cache/node_modules" node "$top/test/drivers/node.js" || rc=1
	else
		echo "drivers node suite skipped: node-postgres (npm package pg) cannot be installed"
	fi
fi

# psycopg2: Debian's, for Debian's python3 (scripts/deps.sh installs python3-psycopg2)
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3 || true)
if [ -n "$py" ] && "$py" -c 'import psycopg2' >/dev/null 2>&1; then
	"$py" "$top/test/drivers/psycopg2_test.py" || rc=1
else
	echo "drivers psycopg2 suite skipped: python3-psycopg2 is not installed"
fi
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1
exit $rc
