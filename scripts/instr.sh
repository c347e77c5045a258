#!/usr/bin/env bash
# make bench-instr: the benchmark scenarios counted in CPU instructions instead of timed.
# Each statement of a pair runs in a single-user backend under valgrind's callgrind, so the
# count is the same from run to run on a noisy machine: use it to judge a change of a few
# percent that make bench cannot resolve. Instructions leave out cache misses, lock waits and
# I/O, so the tps and time ratios of make bench stay the measure of the targets.
# Arguments name scenarios (e.g. scenarios/40_revisions.sh), as for make bench.
set -eu
source "$(dirname "$0")/env.sh"
command -v valgrind >/dev/null 2>&1 || {
	echo "docmodel: installing valgrind"
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends valgrind >/dev/null
}
build_install

INSTR_DIR=$(mktemp -d /tmp/docmodel_instr.XXXXXX)
chmod 755 "$INSTR_DIR"
INSTR_AS_PG=""
if [ "$(id -u)" -eq 0 ]; then
	chown postgres "$INSTR_DIR"
	INSTR_AS_PG="runuser -u postgres --"
fi
INSTR_PORT=$((20000 + RANDOM % 20000))
export INSTR_DIR INSTR_AS_PG INSTR_PORT PGBIN
source test/bench/instr.sh
$INSTR_AS_PG "$PGBIN/initdb" -D "$INSTR_DIR/data" -A trust --no-sync >/dev/null
trap 'instr_stop 2>/dev/null; rm -rf "$INSTR_DIR"' EXIT
instr_start
export PGHOST=$INSTR_DIR PGPORT=$INSTR_PORT PGDATABASE=postgres
PGUSER=$(id -un)
[ -n "$INSTR_AS_PG" ] && PGUSER=postgres
export PGUSER BENCH_INSTR=1
# Smaller data than make bench where a scenario lets us choose: counts per row do not change.
export MIG_DOCS=${MIG_DOCS:-20000}
export BENCH_STAMP_DOCS=${BENCH_STAMP_DOCS:-100000}
bash test/bench/run.sh "$@"
