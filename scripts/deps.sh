#!/usr/bin/env bash
# Install what a fresh Debian machine lacks to build and test docmodel against PostgreSQL
# PG_MAJOR (scripts/env.sh): its server, its server headers (postgres.h, from
# postgresql-server-dev-N; pgxs.mk alone comes with the client package and proves nothing),
# pg_virtualenv (postgresql-common), IPC::Run for TAP, make and a C compiler.
set -eu
source "$(dirname "$0")/env.sh"
need=()
case "$PG_CONFIG" in
/usr/lib/postgresql/*)
	[ -x "/usr/lib/postgresql/$PG_MAJOR/bin/postgres" ] || need+=("postgresql-$PG_MAJOR")
	[ -f "/usr/include/postgresql/$PG_MAJOR/server/postgres.h" ] ||
		need+=("postgresql-server-dev-$PG_MAJOR")
	;;
esac
command -v pg_virtualenv >/dev/null 2>&1 || need+=(postgresql-common)
perl -MIPC::Run -e 1 >/dev/null 2>&1 || need+=(libipc-run-perl)
command -v make >/dev/null 2>&1 || need+=(make)
command -v gcc >/dev/null 2>&1 || need+=(gcc)
# the drivers' suite (test/drivers): Debian's psycopg2 for Debian's python3, node and npm for
# node-postgres (installed from npm by test/drivers/run.sh).
[ -x /usr/bin/python3 ] && ! /usr/bin/python3 -c 'import psycopg2' >/dev/null 2>&1 &&
	need+=(python3-psycopg2)
command -v node >/dev/null 2>&1 || need+=(nodejs)
command -v npm >/dev/null 2>&1 || need+=(npm)
# make dist and its check in make test: unzip reads the archive back.
command -v unzip >/dev/null 2>&1 || need+=(unzip)
# make test's migration tools suite (test/tools): sqitch and its PostgreSQL driver (node-pg-migrate
# comes from npm, installed by the suite itself).
case "${DEPS_FOR:-}" in
fuzz | sanitize) ;;
*)
	command -v sqitch >/dev/null 2>&1 || need+=(sqitch)
	perl -MDBD::Pg -e 1 >/dev/null 2>&1 || need+=(libdbd-pg-perl)
	;;
esac
# make fuzz: clang with its libFuzzer and sanitizer runtimes; make sanitize: gcc's libasan.
case "${DEPS_FOR:-}" in
fuzz)
	command -v clang >/dev/null 2>&1 || need+=(clang)
	ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a >/dev/null 2>&1 ||
		need+=(libclang-rt-14-dev)
	;;
sanitize)
	[ -f "$(gcc -print-file-name=libasan.so)" ] || need+=("libgcc-$(gcc -dumpversion | cut -d. -f1)-dev")
	;;
esac
[ ${#need[@]} -eq 0 ] && exit 0
echo "docmodel: installing ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
incdir=$("$PG_CONFIG" --includedir-server)
[ -f "$incdir/postgres.h" ] || { echo "docmodel: $incdir/postgres.h still missing" >&2; exit 1; }
