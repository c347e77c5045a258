# Instruction counts for the benchmark pairs (make bench-instr, scripts/instr.sh). Sourced by
# lib.sh when BENCH_INSTR is set: bench_sql and bench_tps then count instead of timing.
# Environment (from scripts/instr.sh): INSTR_DIR (cluster data and sockets), INSTR_PORT,
# INSTR_AS_PG (the command prefix that runs as the cluster's owner), PGBIN.
#
# A statement is counted in a single-user backend (postgres --single) under callgrind, from
# parse to commit (the functions named by INSTR_TOGGLES): the server is stopped for it and
# started again after. pgbench scripts are expanded into plain statements: \set v random(a, b)
# picks a value (the same seed for both scripts of a pair), \sleep is dropped.

INSTR_SETTINGS="-c shared_buffers=512MB -c synchronous_commit=off -c autovacuum=off -c full_page_writes=off -c max_wal_size=4GB"
# docmodel and PL/pgSQL are loaded when the single-user backend starts, before the counting: the
# first call of a statement would otherwise count their _PG_init (its GUCs: a few million
# instructions), a cost per backend, not per statement, and one that moves with every setting added.
INSTR_PRELOAD="-c session_preload_libraries=docmodel,plpgsql"
# Callgrind flips the counting on entering and leaving each of INSTR_TOGGLES, so one called
# inside another turns it off while it runs: the parse, analysis and planning of statements run
# through SPI inside a counted one (a trigger's, PL/pgSQL's, an SPI_execute's) are left out.
# INSTR_TOGGLES=PortalRun counts them, and leaves out the top-level parse, plan and commit.
INSTR_TOGGLES=${INSTR_TOGGLES:-"PortalRun pg_parse_query pg_analyze_and_rewrite_fixedparams pg_plan_queries StartTransactionCommand CommitTransactionCommand"}
INSTR_TX=${INSTR_TX:-1000} # pgbench transactions counted per script (plus 200 to warm up)
INSTR_WAIT=${INSTR_WAIT:-3600} # seconds pg_ctl waits for the server to start or stop
# INSTR_KEEP: a directory to keep every count's callgrind output in (NNN.out, in the order
# counted; NNN.sql the statements counted), for callgrind_annotate.

instr_start() {
	# No autovacuum (it would run at random moments) and no full-page images (every restart
	# checkpoints, and the first write of each page after it would carry one).
	$INSTR_AS_PG "$PGBIN/pg_ctl" -D "$INSTR_DIR/data" -w -t "$INSTR_WAIT" -l "$INSTR_DIR/server.log" \
		-o "-p $INSTR_PORT -k $INSTR_DIR -c listen_addresses= $INSTR_SETTINGS" start >/dev/null
}

# The shutdown checkpoint after a large set-up (hundreds of MB of dirty buffers, fsync on) can
# take longer than pg_ctl's default minute on a loaded machine: a server still running then
# would keep the single-user backend out of its data directory.
instr_stop() {
	$INSTR_AS_PG "$PGBIN/pg_ctl" -D "$INSTR_DIR/data" -w -t "$INSTR_WAIT" -m fast stop >/dev/null
}

# instr_fail MESSAGE: print it with the backend's error lines and stop the whole run (a count
# that is not one must not pass for a result).
instr_fail() {
	echo "bench-instr: $1" >&2
	grep -E -A1 'ERROR:|FATAL:|PANIC:' "$INSTR_DIR/single.err" 2>/dev/null | head -6 >&2
	kill -TERM $$
	exit 1
}

# instr_count FILE: print the instructions the statements of FILE (each ending with ";" and
# an empty line) take in one single-user backend. A statement that fails, a backend that does
# not start or dies, or a server that does not stop or start stops the run.
instr_count() {
	local file=$1 out=$INSTR_DIR/callgrind.out toggles=() t rc=0 total
	for t in $INSTR_TOGGLES; do toggles+=(--toggle-collect="$t"); done
	instr_stop || instr_fail "the server did not stop within ${INSTR_WAIT} s"
	rm -f "$out"
	# shellcheck disable=SC2086
	$INSTR_AS_PG valgrind -q --tool=callgrind --callgrind-out-file="$out" "${toggles[@]}" \
		"$PGBIN/postgres" --single -j -D "$INSTR_DIR/data" $INSTR_SETTINGS $INSTR_PRELOAD postgres \
		<"$file" >"$INSTR_DIR/single.out" 2>"$INSTR_DIR/single.err" || rc=$?
	instr_start || instr_fail "the server did not start again (see $INSTR_DIR/server.log)"
	if [ $rc -ne 0 ] || grep -qE 'ERROR:|FATAL:|PANIC:' "$INSTR_DIR/single.err"; then
		instr_fail "a statement failed or the single-user backend exited with $rc:"
	fi
	total=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$out" 2>/dev/null | head -1)
	[ -n "$total" ] && [ "$total" -gt 0 ] || instr_fail "no instructions counted (${total:-no totals line in $out})"
	if [ -n "${INSTR_KEEP:-}" ]; then
		local n
		mkdir -p "$INSTR_KEEP"
		n=$(printf '%03d' $(($(find "$INSTR_KEEP" -name '*.out' | wc -l) + 1)))
		cp "$out" "$INSTR_KEEP/$n.out"
		cp "$file" "$INSTR_KEEP/$n.sql"
	fi
	echo "$total"
}

# instr_expand SCRIPT COUNT [prepared]: write COUNT pgbench transactions of SCRIPT as plain
# statements, or, with "prepared" (pgbench -M prepared, as the timed pair runs), as one PREPARE
# per statement of SCRIPT (its variables become $1, $2, ...) and an EXECUTE per transaction.
instr_expand() {
	awk -v n="$2" -v mode="${3:-}" -v seed=4711 '
		{ lines[++nl] = $0 }
		END {
			srand(seed)
			for (i = 0; i < n; i++) {
				delete val; stmt = ""; ns = 0
				for (l = 1; l <= nl; l++) {
					s = lines[l]
					if (s ~ /^\\set [a-z_]+ random\(/) {
						split(s, w, /[ (,)]+/)
						val[w[2]] = w[4] + int(rand() * (w[5] - w[4] + 1))
						continue
					}
					if (s ~ /^\\sleep/ || s ~ /^[ \t]*$/) continue
					if (s ~ /^\\/) { print "bench-instr: cannot expand " s > "/dev/stderr"; exit 1 }
					stmt = stmt s "\n"
					if (s !~ /;[ \t]*$/) continue
					ns++
					if (mode == "prepared") {
						# the parameters in order of first use, each variable once
						if (i == 0) {
							np = 0; p = stmt
							while (match(p, /:[a-z_]+/)) {
								v = substr(p, RSTART + 1, RLENGTH - 1)
								if (v in val && !((ns, v) in pos)) { pos[ns, v] = ++np; order[ns, np] = v }
								p = substr(p, RSTART + RLENGTH)
							}
							nparams[ns] = np
							for (k = 1; k <= np; k++) {
								v = order[ns, k]
								gsub(":" v "([^a-zA-Z0-9_]|$)", "$" k "&", stmt)
								gsub("\\$" k ":" v, "$" k, stmt)
							}
							sub(/;[ \t]*\n$/, "", stmt)
							printf "PREPARE instr_s%d AS %s;\n\n", ns, stmt
						}
						args = ""
						for (k = 1; k <= nparams[ns]; k++)
							args = args (k > 1 ? ", " : "") "\x27" val[order[ns, k]] "\x27"
						printf "EXECUTE instr_s%d%s;\n\n", ns, nparams[ns] ? "(" args ")" : ""
					} else {
						for (v in val) gsub(":" v "([^a-zA-Z0-9_]|$)", val[v] "&", stmt)
						for (v in val) gsub(val[v] ":" v, val[v], stmt)
						printf "%s\n", stmt
					}
					stmt = ""
				}
			}
		}' "$1"
}

# One result line: NAME, the two counts (thousands of instructions per statement or
# transaction), and RATIO as the timed pair would give it.
instr_line() {
	awk -v n="$1" -v a="$2" -v b="$3" -v r="$4" -v how="$5" 'BEGIN {
		printf "%-44s %10.0f kI %10.0f kI   ratio %5.2fx   (%s)\n", n, a / 1000, b / 1000, r, how }'
}

# bench_sql NAME TARGET 'docmodel SQL' 'baseline SQL': one execution each (after BENCH_RESET).
bench_sql() {
	local name=$1 a=$3 b=$4 f=$INSTR_DIR/stmt.sql ia ib
	[ -n "${BENCH_RESET:-}" ] && $BENCH_RESET
	printf '%s;\n\n' "$a" >"$f"
	ia=$(instr_count "$f")
	[ -n "${BENCH_RESET:-}" ] && $BENCH_RESET
	printf '%s;\n\n' "$b" >"$f"
	ib=$(instr_count "$f")
	instr_line "$name" "$ia" "$ib" "$(awk -v a="$ia" -v b="$ib" 'BEGIN { print a / b }')" \
		"docmodel/baseline"
}

# bench_tps NAME TARGET docmodel.sql baseline.sql CLIENTS SECONDS: INSTR_TX transactions of
# each script (the count of 200 more minus the count of 200: the warm-up is left out).
bench_tps() {
	local name=$1 a=$3 b=$4 n=$INSTR_TX f=$INSTR_DIR/tx.sql ia ib s i0 i1 mode="" how
	# counted as the timed pair runs: prepared when pgbench is given -M prepared
	case " ${PGBENCH_ARGS:-} " in *" -M prepared "*) mode=prepared ;; esac
	for s in a b; do
		instr_expand "${!s}" 200 "$mode" >"$f"
		i0=$(instr_count "$f")
		instr_expand "${!s}" $((n + 200)) "$mode" >"$f"
		i1=$(instr_count "$f")
		printf -v "i$s" '%s' "$(awk -v x="$i0" -v y="$i1" -v n="$n" 'BEGIN { print (y - x) / n }')"
	done
	instr_line "$name" "$ia" "$ib" "$(awk -v a="$ia" -v b="$ib" 'BEGIN { print b / a }')" \
		"baseline/docmodel, like tps; ${mode:-simple protocol}"
}
