#!/usr/bin/env bash
# make bench: build, install, and run test/bench/run.sh on a throwaway cluster.
set -eu
source "$(dirname "$0")/env.sh"
build_install
# The periods extension is one of the revisions anchors; without its package that line is left out.
if ! dpkg -s postgresql-$PG_MAJOR-periods >/dev/null 2>&1; then
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		postgresql-$PG_MAJOR-periods >/dev/null 2>&1 || echo "bench: postgresql-$PG_MAJOR-periods not installable; its anchor is left out"
fi
# PostgreSQL's default durability, what users run: pg_virtualenv turns fsync off, so turn it
# back on (run.sh prints the settings it ran with).
pg_virtualenv 9>&- -v "$PG_MAJOR" -o shared_buffers=512MB -o max_wal_size=4GB \
	-o fsync=on -o synchronous_commit=on -o full_page_writes=on \
	bash test/bench/run.sh "$@"
