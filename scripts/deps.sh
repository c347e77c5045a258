#!/usr/bin/env bash
# Install what a fresh Debian machine lacks to build and test docmodel: PostgreSQL 15 server,
# its server headers (postgres.h, from postgresql-server-dev-15; pgxs.mk alone comes with the
# client package and proves nothing), pg_virtualenv (postgresql-common), IPC::Run for TAP,
# make and a C compiler.
set -eu
need=()
[ -x /usr/lib/postgresql/15/bin/postgres ] || need+=(postgresql-15)
incdir=$(/usr/lib/postgresql/15/bin/pg_config --includedir-server 2>/dev/null || echo /usr/include/postgresql/15/server)
[ -f "$incdir/postgres.h" ] || need+=(postgresql-server-dev-15)
command -v pg_virtualenv >/dev/null 2>&1 || need+=(postgresql-common)
perl -MIPC::Run -e 1 >/dev/null 2>&1 || need+=(libipc-run-perl)
command -v make >/dev/null 2>&1 || need+=(make)
command -v gcc >/dev/null 2>&1 || need+=(gcc)
# make fuzz: clang with its libFuzzer and sanitizer runtimes; make sanitize: gcc's libasan.
case "${DEPS_FOR:-}" in
fuzz)
	command -v clang >/dev/null 2>&1 || need+=(clang)
	ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a >/dev/null 2>&1 ||
		need+=(libclang-rt-14-dev)
	;;
sanitize)
	[ -f /usr/lib/gcc/x86_64-linux-gnu/12/libasan.so ] || need+=(libgcc-12-dev)
	;;
esac
[ ${#need[@]} -eq 0 ] && exit 0
echo "docmodel: installing ${need[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
incdir=$(/usr/lib/postgresql/15/bin/pg_config --includedir-server)
[ -f "$incdir/postgres.h" ] || { echo "docmodel: $incdir/postgres.h still missing" >&2; exit 1; }
