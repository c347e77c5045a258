#!/usr/bin/env bash
# make fuzz FUZZ_TIME=<seconds per harness>: build the libFuzzer harnesses of test/fuzz with
# docmodel's sources (coverage, AddressSanitizer, UndefinedBehaviorSanitizer), replay every
# input kept in test/fuzz/regressions, then fuzz each harness for FUZZ_TIME seconds from its
# seeds in test/fuzz/corpus. The harnesses run inside a single-user backend of a throwaway
# cluster (see test/fuzz/driver.c); the library they load is built here, so nothing is
# installed and the install lock is not needed.
set -u
source "$(dirname "$0")/env.sh"
FUZZ_TIME="${FUZZ_TIME:-60}"
HARNESSES="${HARNESSES:-key version pointer steps patch subdoc_path schema merge regex}"
CLANG="${CLANG:-clang}"
rt=$("$CLANG" -print-resource-dir)/lib/linux
asan_rt="$rt/libclang_rt.asan-x86_64.so"
for f in "$asan_rt" "$rt/libclang_rt.fuzzer_no_main-x86_64.a"; do
	[ -f "$f" ] || { echo "fuzz: $f missing (clang 14 and libclang-rt-14-dev)" >&2; exit 1; }
done

work=$(mktemp -d /tmp/docmodel-fuzz.XXXXXX)
chmod 755 "$work"
findings="$TOP/test/fuzz/findings"
[ -n "${FUZZ_KEEP:-}" ] || trap 'rm -rf "$work"' EXIT

# Build: docmodel's sources and the harnesses, instrumented, into one loadable library.
cflags="-O1 -g -fPIC -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined
	-fno-sanitize-recover=all -Wno-ignored-attributes -I$($PG_CONFIG --includedir-server) -Isrc -Itest/fuzz"
objs=""
for c in src/*.c src/*/*.c test/fuzz/*.c; do
	o="$work/$(echo "${c%.c}" | tr / _).o"
	"$CLANG" $cflags -c "$c" -o "$o" 2>>"$work/build.log" ||
		{ cat "$work/build.log"; echo "fuzz: build failed"; exit 1; }
	objs="$objs $o"
done
"$CLANG" -shared -fPIC -o "$work/preload.so" test/sanitize/preload.c -ldl || exit 1
"$CLANG" -shared -Wl,-Bsymbolic -fsanitize=address,undefined -o "$work/docmodel_fuzz.so" $objs \
	"$rt/libclang_rt.fuzzer_no_main-x86_64.a" -lstdc++ || { echo "fuzz: link failed"; exit 1; }

# A throwaway cluster for single-user backends, run as postgres.
as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" -eq 0 ] && chown -R postgres "$work"
as_pg initdb -D "$work/data" -A trust --no-sync -E UTF8 --locale=C.UTF-8 >"$work/initdb.log" 2>&1 ||
	{ cat "$work/initdb.log"; exit 1; }
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

# single <harness> <libFuzzer args...>: one fuzz_run in a single-user backend; its exit status.
single() {
	local h=$1
	shift
	local arr="" a
	for a in "$@"; do arr="$arr${arr:+,}'$a'"; done
	printf '%s\n' \
		"CREATE OR REPLACE FUNCTION fuzz_run(text, text[]) RETURNS int AS '$work/docmodel_fuzz.so' LANGUAGE C STRICT" \
		"SELECT fuzz_run('$h', ARRAY[$arr]::text[])" |
		as_pg env LD_PRELOAD="$asan_rt $work/preload.so" postgres --single -D "$work/data" -F \
			-c max_stack_depth=2MB postgres >"$work/$h.out" 2>&1
}

failed=""
for h in $HARNESSES; do
	# Every input once found (or written) for this harness: it must pass.
	# (copies in the work directory: the postgres user may not read the checkout)
	mkdir -p "$work/regressions/$h"
	cp test/fuzz/regressions/$h/* "$work/regressions/$h/" 2>/dev/null
	reg=$(ls "$work/regressions/$h"/* 2>/dev/null)
	if [ -n "$reg" ]; then
		if single "$h" -runs=1 $reg; then
			echo "fuzz $h: $(echo "$reg" | wc -w) regression inputs pass"
		else
			echo "fuzz $h: a regression input FAILED"; tail -40 "$work/$h.out"; failed="$failed $h"
			continue
		fi
	fi
	mkdir -p "$work/corpus/$h" "$work/artifacts/$h"
	cp test/fuzz/corpus/$h/* "$work/corpus/$h/" 2>/dev/null
	[ "$(id -u)" -eq 0 ] && chown -R postgres "$work"
	dict=""
	[ -f test/fuzz/$h.dict ] && cp -L test/fuzz/$h.dict "$work/$h.dict" && dict="-dict=$work/$h.dict"
	if single "$h" -max_total_time="$FUZZ_TIME" -timeout=10 -rss_limit_mb=4096 -max_len=4096 \
		-print_final_stats=1 -artifact_prefix="$work/artifacts/$h/" $dict "$work/corpus/$h"; then
		echo "fuzz $h: $(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/$h.out" |
			grep -o '[0-9]*$') inputs in ${FUZZ_TIME}s, corpus $(ls "$work/corpus/$h" | wc -l), no finding"
	else
		echo "fuzz $h: FINDING"
		tail -60 "$work/$h.out"
		mkdir -p "$findings/$h"
		cp "$work/artifacts/$h"/* "$findings/$h/" 2>/dev/null
		echo "input kept in test/fuzz/findings/$h/: fix it, then move it to test/fuzz/regressions/$h/"
		failed="$failed $h"
	fi
done
if [ -n "$failed" ]; then
	echo "fuzz: findings in:$failed"
	exit 1
fi
echo "fuzz: $(echo $HARNESSES | wc -w) harnesses, no finding"
