#!/usr/bin/env bash
# make test: build, install, and run every suite (pg_regress, isolation, TAP) on throwaway
# clusters; print each suite's member results and a closing "N passed, N failed".
set -u
source "$(dirname "$0")/env.sh"
# Citus for the scale-out suite: installed, or built from its source when that is here (before
# the install lock: the build takes minutes). Without it the suite is skipped, in one line.
citus=""
if scripts/citus.sh installed || scripts/citus.sh install >/dev/null 2>&1; then
	citus=1
fi
build_install || { echo "build failed"; echo "0 passed, 1 failed"; exit 1; }

logdir=$(mktemp -d)
rm -rf results output_columns regression.diffs regression.out
# The collection-level regression tests (test/columns_tests) run a second time with
# docmodel.default_meta_style = columns (make installcheck META_STYLE=columns), each reported as
# "NAME (columns)".
columns_tests=$(grep -v '^#' test/columns_tests | tr '\n' ' ')

# pg_regress, isolation, the examples of README.md and doc/ (test/readme/check.pl), the
# JSON-Schema-Test-Suite (test/jsonschema/run.sh), the migration tools (test/tools/run.sh) and
# the drivers' suite (test/drivers/run.sh) share one throwaway cluster; each runs even if another
# failed.
pg_virtualenv 9>&- -v "$PG_MAJOR" bash -c '
	make -s PG_CONFIG="$0" installcheck ISOLATION= > "$1/regress.log" 2>&1; echo $? > "$1/regress.rc"
	[ -s regression.diffs ] && cp regression.diffs "$1/regress.diffs"
	make -s PG_CONFIG="$0" installcheck ISOLATION= REGRESS="$2" META_STYLE=columns 2>&1 |
		sed -E "s/^(test [a-z0-9_]+|(not )?ok [0-9]+ +[-+] +[a-z0-9_]+)/\1 (columns)/" > "$1/columns.log"
	echo ${PIPESTATUS[0]} > "$1/columns.rc"
	[ -s output_columns/regression.diffs ] && cp output_columns/regression.diffs "$1/columns.diffs"
	make -s PG_CONFIG="$0" installcheck REGRESS= > "$1/iso.log" 2>&1; echo $? > "$1/iso.rc"
	[ -s regression.diffs ] && cp regression.diffs "$1/iso.diffs"
	perl test/readme/check.pl README.md > "$1/readme.log" 2>&1; echo $? > "$1/readme.rc"
	test/jsonschema/run.sh > "$1/jsonschema.log" 2>&1; echo $? > "$1/jsonschema.rc"
	test/tools/run.sh > "$1/tools.log" 2>&1; echo $? > "$1/tools.rc"
	test/drivers/run.sh > "$1/drivers.log" 2>&1; echo $? > "$1/drivers.rc"
	true
' "$PG_CONFIG" "$logdir" "$columns_tests" > "$logdir/virtualenv.log" 2>&1 || true
cat "$logdir/regress.log" "$logdir/columns.log" "$logdir/iso.log" "$logdir/readme.log" "$logdir/jsonschema.log" "$logdir/tools.log" "$logdir/drivers.log" 2>/dev/null
for d in regress columns iso; do
	if [ -s "$logdir/$d.diffs" ]; then
		echo "--- $d diffs (first 300 lines) ---"
		head -300 "$logdir/$d.diffs"
	fi
done

# META.json against PGXN's meta spec and docmodel.control; in a git checkout also the release
# archive make dist makes (a copy in a root has no git).
if git rev-parse --git-dir >/dev/null 2>&1; then
	DIST_DIR="$logdir/dist" scripts/dist.sh
else
	perl test/meta/check.pl
fi > "$logdir/meta.log" 2>&1; echo $? > "$logdir/meta.rc"
cat "$logdir/meta.log"

# The documentation's relative links (README.md, CONTRIBUTING.md, CHANGELOG.md, doc/): files
# and anchors that exist.
perl test/readme/links.pl > "$logdir/links.log" 2>&1; echo $? > "$logdir/links.rc"
cat "$logdir/links.log"

# Formatting: the C in the .clang-format style, the SQL indented with spaces.
scripts/check_format.sh > "$logdir/format.log" 2>&1; echo $? > "$logdir/format.rc"
cat "$logdir/format.log"

# The SQLSTATE policy (README, "Errors") against the C, the SQL, the expected outputs and README's
# Errors table.
perl test/errors/check.pl > "$logdir/errors.log" 2>&1; echo $? > "$logdir/errors.rc"
cat "$logdir/errors.log"

# scripts/root.sh's refusal of roots another user could have made or changed.
test/roots/check.sh > "$logdir/roots.log" 2>&1; echo $? > "$logdir/roots.rc"
cat "$logdir/roots.log"

# TAP: each test starts its own clusters.
scripts/tap.sh > "$logdir/tap.log" 2>&1; echo $? > "$logdir/tap.rc"
cat "$logdir/tap.log"

# Citus: a coordinator and two workers (scripts/citus.sh), the suite of test/citus.
if [ -n "$citus" ]; then
	scripts/citus_test.sh > "$logdir/citus.log" 2>&1; echo $? > "$logdir/citus.rc"
	cat "$logdir/citus.log"
else
	if scripts/citus.sh supported; then
		echo "citus suite skipped: Citus 13.2 is not installed and cannot be built here (scripts/citus.sh install)"
	else
		echo "citus suite skipped: Citus 13.2 does not support PostgreSQL $PG_MAJOR"
	fi
	echo 0 > "$logdir/citus.rc"
fi

logs="$logdir/regress.log $logdir/columns.log $logdir/iso.log $logdir/readme.log $logdir/jsonschema.log $logdir/tools.log $logdir/drivers.log $logdir/meta.log $logdir/links.log $logdir/format.log $logdir/errors.log $logdir/roots.log $logdir/citus.log"
pass=$(cat $logs 2>/dev/null | grep -cE "$REGRESS_OK")
fail=$(cat $logs 2>/dev/null | grep -cE "$REGRESS_FAILED")
# the README check counts one per block; if it stopped before any block failed, count it once
if [ "$(cat "$logdir/readme.rc" 2>/dev/null || echo 1)" != 0 ] &&
	! grep -q '\.\.\. FAILED' "$logdir/readme.log" 2>/dev/null; then
	fail=$((fail + 1))
fi
tpass=$(grep -cE '^test/t/.*\.\. ok$' "$logdir/tap.log")
tfiles=$(ls test/t/*.pl 2>/dev/null | wc -l)
pass=$((pass + tpass))
fail=$((fail + tfiles - tpass))
rc=0
for s in regress columns iso readme jsonschema tools drivers meta links format errors roots tap citus; do
	r=$(cat "$logdir/$s.rc" 2>/dev/null || echo 1)
	[ "$r" = 0 ] || { rc=1; echo "suite $s exited $r"; }
done
if [ ! -f "$logdir/regress.rc" ]; then
	echo "--- pg_virtualenv ---"; cat "$logdir/virtualenv.log"
fi
[ "$fail" -eq 0 ] || rc=1
rm -rf "$logdir"
echo "$pass passed, $fail failed"
exit $rc
