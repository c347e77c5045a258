#!/usr/bin/env bash
# make test-all: make test on every supported major (MAJORS, default 15 17 18), each where it
# runs (the host for the major this release ships, else a root of the release that ships it:
# make test PG=N). Prints each run's output, then one line per major with its time, and the
# total as the closing line; exits 1 when any run failed or counted a failure.
set -u
cd "$(dirname "$0")/.."
MAJORS="${MAJORS:-15 17 18}"
logdir=$(mktemp -d /tmp/docmodel-test-all.XXXXXX)
trap 'rm -rf "$logdir"' EXIT
rc=0 pass=0 fail=0 summary=""
for m in $MAJORS; do
	echo "=== PostgreSQL $m: make test PG=$m"
	t0=$(date +%s)
	make --no-print-directory test PG="$m" 2>&1 | tee "$logdir/$m.log"
	r=${PIPESTATUS[0]}
	secs=$(($(date +%s) - t0))
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$logdir/$m.log" | tail -n1)
	if [ -z "$line" ]; then
		line="0 passed, 1 failed"
		r=1
	fi
	p=${line%% passed*}
	f=${line#*passed, }
	f=${f%% failed*}
	pass=$((pass + p))
	fail=$((fail + f))
	[ "$r" = 0 ] && [ "$f" = 0 ] || rc=1
	summary="$summary$(printf 'pg%s: %s passed, %s failed (%d s, make test exited %s)' "$m" "$p" "$f" "$secs" "$r")\n"
done
echo "=== make test-all"
printf "%b" "$summary" | sed -E 's/^(pg[0-9]+: [0-9]+ passed, [0-9]+ failed) \((.*)\)$/\1\n  (\2)/'
echo "$pass passed, $fail failed"
exit $rc
