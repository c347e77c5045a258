#!/usr/bin/env bash
# Migration tools as teams run them (make test runs this in its throwaway cluster, the PG*
# variables set): the sqitch project (test/tools/sqitch) and the node-pg-migrate project
# (test/tools/node-pg-migrate) each deploy a collection and a rule with its bulk run inside their
# default transactions, then revert the rule. Checked after each: every document at the version
# the tool left. A tool that is not installed (sqitch from Debian, node-pg-migrate from npm into
# NPM_CACHE) is reported skipped in one line.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
NPM_CACHE=${NPM_CACHE:-/var/cache/docmodel/npm}
rc=0

# the count of tool_users documents at version $2 in database $1, all of them: "500/500"
at_version() {
	psql -XAtq -d "$1" -c "SELECT count(*) FILTER (WHERE doc ->> '_schema' = '$2') || '/' || count(*) FROM tool_users"
}
# wait for every run of database $1 to end
wait_runs() {
	psql -XAtq -d "$1" -c "SELECT string_agg(docmodel.wait_migration(run_id, interval '120 seconds'), ',') FROM docmodel.migration_run"
}
check() {
	local name=$1 want=$2 got=$3
	if [ "$got" = "$want" ]; then
		echo "tools: $name ... ok"
	else
		echo "tools: $name ... FAILED (want $want, got $got)"
		rc=1
	fi
}

# sqitch: deploy (each change in its BEGIN/COMMIT), a run started inside it, then revert.
if command -v sqitch >/dev/null 2>&1 && perl -MDBD::Pg -e 1 >/dev/null 2>&1; then
	db=docmodel_sqitch
	psql -XAtq -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
	export SQITCH_FULLNAME=docmodel SQITCH_EMAIL=docmodel@example.com
	out=$(cd "$here/sqitch" && sqitch deploy --verify "db:pg:$db" 2>&1)
	check "sqitch deploy" 0 $?
	check "sqitch: the run started in the deploy's transaction" done "$(wait_runs $db)"
	check "sqitch: every document at 2.0" 500/500 "$(at_version $db 2.0)"
	out=$(cd "$here/sqitch" && sqitch revert -y --to @HEAD^ "db:pg:$db" 2>&1)
	check "sqitch revert" 0 $?
	check "sqitch: every document back at 1.0" 500/500 "$(at_version $db 1.0)"
	check "sqitch: the rule dropped" 0 "$(psql -XAtq -d $db -c "SELECT count(*) FROM docmodel.migration_rules")"
	[ $rc = 0 ] || echo "$out"
	psql -XAtq -d postgres -c "DROP DATABASE $db" >/dev/null
else
	echo "tools: sqitch skipped: sqitch or DBD::Pg is not installed (apt-get install sqitch libdbd-pg-perl)"
fi

# node-pg-migrate: .sql migrations, each sent as one string in its transaction.
npm_bin="$NPM_CACHE/node_modules/.bin/node-pg-migrate"
if [ ! -x "$npm_bin" ] && command -v npm >/dev/null 2>&1; then
	mkdir -p "$NPM_CACHE" && (cd "$NPM_CACHE" && { [ -f package.json ] || npm init -y >/dev/null 2>&1; } &&
		timeout 300 npm install --no-audit --no-fund node-pg-migrate@7 pg >/dev/null 2>&1)
fi
if [ -x "$npm_bin" ] && command -v node >/dev/null 2>&1; then
	db=docmodel_npgm
	psql -XAtq -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
	export DATABASE_URL="postgres://${PGUSER:-postgres}:${PGPASSWORD:-}@localhost:${PGPORT:-5432}/$db"
	out=$(cd "$here/node-pg-migrate" && "$npm_bin" up --no-verbose 2>&1)
	check "node-pg-migrate up" 0 $?
	check "node-pg-migrate: the run started in the migration's transaction" done "$(wait_runs $db)"
	check "node-pg-migrate: every document at 2.0" 500/500 "$(at_version $db 2.0)"
	out=$(cd "$here/node-pg-migrate" && "$npm_bin" down --no-verbose 2>&1)
	check "node-pg-migrate down" 0 $?
	check "node-pg-migrate: every document back at 1.0" 500/500 "$(at_version $db 1.0)"
	check "node-pg-migrate: the rule dropped" 0 "$(psql -XAtq -d $db -c "SELECT count(*) FROM docmodel.migration_rules")"
	[ $rc = 0 ] || echo "$out"
	psql -XAtq -d postgres -c "DROP DATABASE $db" >/dev/null
else
	echo "tools: node-pg-migrate skipped: node or node-pg-migrate is not installed (npm install node-pg-migrate pg in $NPM_CACHE)"
fi
exit $rc
