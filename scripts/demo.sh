#!/usr/bin/env bash
# make demo: build, install, and walk through the tour (demo/*.sql, in order, in one psql
# session) on a throwaway cluster.
set -eu
source "$(dirname "$0")/env.sh"
build_install
args=()
for f in demo/*.sql; do args+=(-f "$f"); done
pg_virtualenv 9>&- -v 15 psql -X -q -v ON_ERROR_STOP=1 -P pager=off "${args[@]}"
