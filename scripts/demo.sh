#!/usr/bin/env bash
# make demo: build, install, and walk through the tour (demo/*.sql, in order, in one psql
# session) on a throwaway cluster; then, with Citus installed, its scale-out chapter
# (demo/citus) on a throwaway Citus cluster.
set -eu
source "$(dirname "$0")/env.sh"
build_install
args=()
for f in demo/*.sql; do args+=(-f "$f"); done
pg_virtualenv 9>&- -v "$PG_MAJOR" psql -X -q -v ON_ERROR_STOP=1 -P pager=off "${args[@]}"
# The scale-out chapter, on a throwaway Citus cluster, when Citus is installed.
if scripts/citus.sh installed; then
	scripts/citus.sh cluster psql -X -q -v ON_ERROR_STOP=1 -P pager=off -f demo/citus/70_scaleout.sql
else
	echo
	echo "(The scale-out chapter, demo/citus/, runs when Citus is installed: scripts/citus.sh install.)"
fi
