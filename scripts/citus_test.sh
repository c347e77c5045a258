#!/usr/bin/env bash
# The Citus suite (test/citus): pg_regress on a throwaway coordinator and two workers
# (scripts/citus.sh cluster), with docmodel as installed by the caller. Prints pg_regress's
# lines ("test citus ... ok") and the diffs of a failure.
set -u
source "$(dirname "$0")/env.sh"
pgregress="$(dirname "$("$PG_CONFIG" --pgxs)")/../../src/test/regress/pg_regress"
out=$(mktemp -d /tmp/docmodel-citus-out.XXXXXX)
tests=$(cd test/citus/sql && ls *.sql | sed 's/\.sql$//' | sort)
# shellcheck disable=SC2086
scripts/citus.sh cluster bash -c '"$0" --use-existing --host="$PGHOST" --port="$PGPORT" \
	--user=postgres --dbname=postgres --inputdir=test/citus --outputdir="$1" ${@:2}' \
	"$pgregress" "$out" $tests
rc=$?
[ -s "$out/regression.diffs" ] && head -300 "$out/regression.diffs"
rm -rf "$out"
exit $rc
