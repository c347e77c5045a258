#!/usr/bin/env bash
# make sanitize: build the library with AddressSanitizer and UndefinedBehaviorSanitizer
# (-fsanitize=address,undefined -fno-sanitize-recover=all), install it, run every pg_regress
# and isolation suite against a throwaway server started with the sanitizer runtime preloaded,
# and fail on any failed test or any sanitizer report in the server log. The sanitized library
# replaces the installed one for the run, so the whole run holds /tmp/docmodel-install.lock
# and ends by building and installing the normal library again, still under the lock.
set -u
source "$(dirname "$0")/env.sh"
if [ -z "${DOCMODEL_LOCK_HELD:-}" ]; then
	exec 9>>/tmp/docmodel-install.lock
	flock 9
	export DOCMODEL_LOCK_HELD=1
fi

CC="${CC:-gcc}"
san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
libasan=$("$CC" -print-file-name=libasan.so)
[ -f "$libasan" ] || { echo "sanitize: $libasan missing"; echo "0 passed, 1 failed"; exit 1; }

work=$(mktemp -d /tmp/docmodel-sanitize.XXXXXX)
chmod 755 "$work"
data="$work/data"
port=$((54000 + RANDOM % 1000))
as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

restore() {
	as_pg pg_ctl -D "$data" -m immediate stop >/dev/null 2>&1
	# Put the normal library back for the next run on this machine.
	make -s clean >/dev/null 2>&1
	build_install || echo "sanitize: re-installing the normal build FAILED"
	rm -rf "$work"
}
trap restore EXIT

make -s clean >/dev/null 2>&1
if ! make -s CC="$CC" COPT="$san" PG_CONFIG="$PG_CONFIG" all >"$work/build.log" 2>&1 ||
	! $sudo make -s CC="$CC" COPT="$san" PG_CONFIG="$PG_CONFIG" install >>"$work/build.log" 2>&1; then
	cat "$work/build.log"; echo "sanitize: build failed"; echo "0 passed, 1 failed"; exit 1
fi
lib="$($PG_CONFIG --pkglibdir)/docmodel.so"
ldd "$lib" | grep -q libasan || { echo "sanitize: $lib is not sanitized"; exit 1; }

# The server, its children and every backend run with the runtime preloaded (preload.c keeps
# ASan's start-up out of glibc's gettext lock). Postgres does not free at exit: no leak check.
"$CC" -shared -fPIC -o "$work/preload.so" test/sanitize/preload.c -ldl || exit 1
[ "$(id -u)" -eq 0 ] && chown -R postgres "$work"
as_pg initdb -D "$data" -A trust --no-sync -E UTF8 --locale=C.UTF-8 >"$work/initdb.log" 2>&1 ||
	{ cat "$work/initdb.log"; exit 1; }
cat >>"$data/postgresql.conf" <<CONF
port = $port
unix_socket_directories = '$work'
listen_addresses = ''
fsync = off
max_prepared_transactions = 10
CONF
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:log_path=$work/asan"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$work/ubsan"
as_pg env LD_PRELOAD="$libasan $work/preload.so" ASAN_OPTIONS="$ASAN_OPTIONS" \
	UBSAN_OPTIONS="$UBSAN_OPTIONS" pg_ctl -D "$data" -l "$work/server.log" -w start >/dev/null 9>&- ||
	{ cat "$work/server.log"; echo "sanitize: server did not start"; echo "0 passed, 1 failed"; exit 1; }
unset ASAN_OPTIONS UBSAN_OPTIONS

rm -rf results regression.diffs regression.out output_iso
export PGHOST="$work" PGPORT="$port" PGUSER=postgres
make -s PG_CONFIG="$PG_CONFIG" installcheck ISOLATION= >"$work/regress.log" 2>&1; rrc=$?
[ -s regression.diffs ] && cp regression.diffs "$work/regress.diffs"
make -s PG_CONFIG="$PG_CONFIG" installcheck REGRESS= >"$work/iso.log" 2>&1; irc=$?
[ -s regression.diffs ] && cp regression.diffs "$work/iso.diffs"
cat "$work/regress.log" "$work/iso.log"
for d in regress iso; do
	[ -s "$work/$d.diffs" ] && { echo "--- $d diffs (first 200 lines) ---"; head -200 "$work/$d.diffs"; }
done

pass=$(cat "$work/regress.log" "$work/iso.log" | grep -cE "$REGRESS_OK")
fail=$(cat "$work/regress.log" "$work/iso.log" | grep -cE "$REGRESS_FAILED")
rc=0
[ $rrc -eq 0 ] && [ $irc -eq 0 ] || { rc=1; echo "sanitize: a suite exited non-zero"; }
# Any report from either sanitizer fails the run, whether or not a test noticed.
reports=$(cat "$work"/asan.* "$work"/ubsan.* 2>/dev/null;
	grep -E 'AddressSanitizer|UndefinedBehaviorSanitizer|runtime error:' "$work/server.log")
if [ -n "$reports" ]; then
	echo "--- sanitizer reports ---"
	echo "$reports" | head -200
	rc=1
	fail=$((fail + 1))
fi
grep -E 'server process .* was terminated|terminated by signal' "$work/server.log" &&
	{ rc=1; echo "sanitize: a backend crashed"; }
echo "$pass passed, $fail failed"
exit $rc
