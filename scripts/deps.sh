#!/usr/bin/env bash
# Install what a fresh Debian machine lacks to build and test docmodel:
# PostgreSQL 15 server and headers, pg_virtualenv (postgresql-common), IPC::Run for TAP.
set -eu
need=()
[ -x /usr/lib/postgresql/15/bin/postgres ] || need+=(postgresql-15)
[ -f /usr/lib/postgresql/15/lib/pgxs/src/makefiles/pgxs.mk ] || need+=(postgresql-server-dev-15)
command -v pg_virtualenv >/dev/null 2>&1 || need+=(postgresql-common)
perl -MIPC::Run -e 1 >/dev/null 2>&1 || need+=(libipc-run-perl)
command -v make >/dev/null 2>&1 || need+=(make)
command -v gcc >/dev/null 2>&1 || need+=(gcc)
[ ${#need[@]} -eq 0 ] && exit 0
echo "docmodel: installing ${need[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
