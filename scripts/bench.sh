#!/usr/bin/env bash
# make bench: build, install, and run test/bench/run.sh on a throwaway cluster.
set -eu
source "$(dirname "$0")/env.sh"
build_install
pg_virtualenv -v 15 -o shared_buffers=512MB -o max_wal_size=4GB -o synchronous_commit=off \
	bash test/bench/run.sh "$@"
