#!/usr/bin/env bash
# make quick TESTS="collection collection_cas": build, install, and run only the named
# pg_regress (test/sql), isolation (test/specs) and TAP (test/t) tests on a throwaway cluster: the
# contributor's short loop; the name "readme" runs the examples of README.md and doc/
# (test/readme/check.pl), "errors" the SQLSTATE policy check (test/errors/check.pl), "tools"
# the migration tools' projects (test/tools/run.sh), "drivers" the drivers' suite
# (test/drivers/run.sh).
# META_STYLE=columns: the pg_regress tests with docmodel.default_meta_style set to it (results in
# output_columns/). make test runs everything.
set -u
source "$(dirname "$0")/env.sh"
build_install || { echo "build failed"; exit 1; }
rc=0
reg=""
iso=""
readme=""
tools=""
drivers=""
tap=""
for t in ${TESTS:-}; do
	[ "$t" = readme ] && readme=1
	[ "$t" = tools ] && tools=1
	[ "$t" = drivers ] && drivers=1
	[ "$t" = errors ] && { perl test/errors/check.pl || rc=1; }
	[ -f "test/t/$t.pl" ] && tap="$tap $t"
	[ -f "test/sql/$t.sql" ] && reg="$reg $t"
	[ -f "test/specs/$t.spec" ] && iso="$iso $t"
done
rm -f regression.diffs
[ -z "$reg$iso$readme$tools$drivers" ] || pg_virtualenv 9>&- -v "$PG_MAJOR" bash -c '
	rc=0
	if [ -n "$1" ]; then make -s PG_CONFIG="$0" installcheck REGRESS="$1" ISOLATION= META_STYLE="$4" || rc=1; fi
	if [ -n "$2" ]; then make -s PG_CONFIG="$0" installcheck REGRESS= ISOLATION="$2" || rc=1; fi
	if [ -n "$3" ]; then perl test/readme/check.pl README.md || rc=1; perl test/readme/links.pl || rc=1; fi
	if [ -n "$5" ]; then test/tools/run.sh || rc=1; fi
	if [ -n "$6" ]; then test/drivers/run.sh || rc=1; fi
	exit $rc
' "$PG_CONFIG" "$reg" "$iso" "$readme" "${META_STYLE:-}" "$tools" "$drivers" || rc=1
if [ -n "$tap" ]; then TAP_TESTS="$tap" scripts/tap.sh || rc=1; fi
exit $rc
