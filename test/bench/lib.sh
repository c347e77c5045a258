# Benchmark helpers, sourced by test/bench/run.sh; scenarios in test/bench/scenarios/*.sh call them.
# The machine is noisy: every pair runs in alternating rounds (A, B, A, B, ...) and we compare
# medians. Each function prints one line: scenario, medians, ratio, and its target.

BENCH_ROUNDS=${BENCH_ROUNDS:-5}
PSQL=(psql -X -q -v ON_ERROR_STOP=1)

# Print the median of the numbers given as arguments.
median() {
	printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'
}

# Run SQL and print its elapsed milliseconds (server round trip of the one statement);
# a failing statement stops the whole run instead of passing for a fast one.
time_sql() {
	local out
	out=$("${PSQL[@]}" -c '\timing on' -c "$1" 2>&1) || {
		echo "bench: statement failed: $1" >&2
		echo "$out" >&2
		kill -TERM $$
		exit 1
	}
	sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' <<<"$out" | tail -1
}

# bench_sql NAME TARGET_RATIO 'docmodel SQL' 'baseline SQL'
# Times two statements in alternating rounds; ratio = median(docmodel) / median(baseline);
# the target is met when ratio <= TARGET_RATIO. TARGET_RATIO "-" marks an anchor (the
# hand-written or third-party way, measured for comparison). When BENCH_RESET names a command, it runs
# before every round (for statements that change the data they time) and replaces the warm-up.
# BENCH_ABBA=1 alternates which statement goes first (A B, B A, ...; use an even BENCH_ROUNDS):
# for heavy statements whose dirty pages and WAL the second one would otherwise pay for.
bench_sql() {
	local name=$1 target=$2 a=$3 b=$4 i ta=() tb=()
	if [ -z "${BENCH_RESET:-}" ]; then
		time_sql "$a" >/dev/null; time_sql "$b" >/dev/null   # warm both
	fi
	for ((i = 0; i < BENCH_ROUNDS; i++)); do
		[ -n "${BENCH_RESET:-}" ] && $BENCH_RESET
		if [ -n "${BENCH_ABBA:-}" ] && ((i % 2)); then
			tb+=("$(time_sql "$b")")
			ta+=("$(time_sql "$a")")
		else
			ta+=("$(time_sql "$a")")
			tb+=("$(time_sql "$b")")
		fi
	done
	local ma mb
	ma=$(median "${ta[@]}"); mb=$(median "${tb[@]}")
	awk -v n="$name" -v a="$ma" -v b="$mb" -v t="$target" 'BEGIN {
		r = a / b; printf "%-44s %10.1f ms %10.1f ms   ratio %5.2fx   ", n, a, b, r
		if (t == "-") print "anchor (no target)"
		else printf "target <= %.2fx  %s\n", t, (r <= t ? "met" : "MISSED") }'
}

# Run pgbench with a script file and print its tps (excluding connection time).
# PGBENCH_ARGS adds options (e.g. PGBENCH_ARGS="-M prepared" bench_tps ...).
tps_of() {
	local file=$1 clients=$2 secs=$3
	local out
	out=$(pgbench -n ${PGBENCH_ARGS:-} -f "$file" -c "$clients" -j "$clients" -T "$secs" 2>&1) || {
		echo "bench: pgbench failed on $file" >&2
		echo "$out" | tail -5 >&2
		kill -TERM $$
		exit 1
	}
	sed -n 's/^tps = \([0-9.]*\).*/\1/p' <<<"$out" | tail -1
}

# bench_tps NAME TARGET_RATIO docmodel.sql baseline.sql CLIENTS SECONDS
# pgbench in alternating rounds; ratio = median tps(docmodel) / median tps(baseline);
# the target is met when ratio >= TARGET_RATIO.
bench_tps() {
	local name=$1 target=$2 a=$3 b=$4 c=$5 s=$6 i ta=() tb=()
	local rounds=${BENCH_TPS_ROUNDS:-3}
	# ABBA: which side runs first alternates, so a drift of the shared table over the rounds
	# (free space, bloat, growing documents) favours neither
	for ((i = 0; i < rounds; i++)); do
		if ((i % 2 == 0)); then
			ta+=("$(tps_of "$a" "$c" "$s")")
			tb+=("$(tps_of "$b" "$c" "$s")")
		else
			tb+=("$(tps_of "$b" "$c" "$s")")
			ta+=("$(tps_of "$a" "$c" "$s")")
		fi
	done
	local ma mb
	ma=$(median "${ta[@]}"); mb=$(median "${tb[@]}")
	awk -v n="$name" -v a="$ma" -v b="$mb" -v t="$target" 'BEGIN {
		r = a / b; printf "%-44s %10.0f tps %9.0f tps  ratio %5.2fx   ", n, a, b, r
		if (t == "-") print "anchor (no target)"
		else printf "target >= %.2fx  %s\n", t, (r >= t ? "met" : "MISSED") }'
}

# make bench-instr: the same pairs counted in instructions (see instr.sh).
if [ -n "${BENCH_INSTR:-}" ]; then
	source "$(dirname "${BASH_SOURCE[0]}")/instr.sh"
fi
