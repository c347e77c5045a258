#!/usr/bin/env bash
# Run the TAP suites of test/t with PostgreSQL::Test::Cluster. Its initdb refuses root, so as
# root the tests run as the postgres user with a temporary directory it owns.
set -u
source "$(dirname "$0")/env.sh"
shopt -s nullglob
tests=(test/t/*.pl)
# TAP_TESTS="040_upgrade 043_majors": only those (make quick passes the names it finds here).
if [ -n "${TAP_TESTS:-}" ]; then
	tests=()
	for t in $TAP_TESTS; do tests+=("test/t/$t.pl"); done
fi
[ ${#tests[@]} -eq 0 ] && { echo "no TAP tests"; exit 0; }
pgxs=$(cd "$(dirname "$("$PG_CONFIG" --pgxs)")/../.." && pwd)
tmp=$(mktemp -d /tmp/docmodel_tap.XXXXXX)
chmod 755 "$tmp"
# The tests run from a copy, so the postgres user can read them wherever the checkout is (the
# regression tests' scripts too: a TAP test may run one, then look at what it made).
mkdir -p "$tmp/test/t" "$tmp/test/sql"
cp test/t/*.pl "$tmp/test/t/"
cp -r test/sql/. "$tmp/test/sql/"
run=()
if [ "$(id -u)" -eq 0 ]; then
	chown -R postgres "$tmp"
	run=(runuser -u postgres --)
fi
cd "$tmp"
rc=0
for t in "${tests[@]}"; do
	rm -rf "$tmp/tmp_check"
	"${run[@]}" 9>&- env TESTDIR="$tmp" PATH="$PATH" PG_REGRESS="$pgxs/src/test/regress/pg_regress" \
		PGPORT=65432 TMPDIR="$tmp" \
		prove -I "$pgxs/src/test/perl" -I test/t "$t" || {
		rc=1
		for l in "$tmp"/tmp_check/log/*; do echo "--- $l"; tail -40 "$l"; done
	}
done
rm -rf "$tmp"
exit $rc
