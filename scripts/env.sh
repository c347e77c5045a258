# Sourced by the scripts: which PostgreSQL (PG_CONFIG as make passes it, else PG=N's, else the
# newest installed: scripts/pg_config.sh), its major (PG_MAJOR) and binaries, and the make to
# build with.
TOP="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$TOP"
[ -n "${PG_CONFIG:-}" ] || PG_CONFIG=$(scripts/pg_config.sh)
export PG_CONFIG
PG_MAJOR=$(PG_CONFIG="$PG_CONFIG" scripts/pg_config.sh --major)
PGBIN=$(dirname "$PG_CONFIG")
[ -x "$PGBIN/postgres" ] || PGBIN=$("$PG_CONFIG" --bindir 2>/dev/null || echo "$PGBIN")
export PG_MAJOR PGBIN
export PATH="$PGBIN:$PATH"
source "$TOP/scripts/vendor.sh"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

# Build with -Werror and install into the PostgreSQL the server loads from. The installed
# library is shared by every checkout on the machine, so one run at a time holds
# /tmp/docmodel-install.lock from its install to its end (two checkouts testing at once
# would otherwise test each other's code).
build_install() {
	if [ -z "${DOCMODEL_LOCK_HELD:-}" ]; then
		exec 9>>/tmp/docmodel-install.lock
		flock 9
		export DOCMODEL_LOCK_HELD=1
	fi
	make -s PG_CONFIG="$PG_CONFIG" all >/dev/null &&
		$sudo make -s PG_CONFIG="$PG_CONFIG" install >/dev/null
}

# A passed and a failed test in pg_regress's output: "test name ... ok" up to 15, TAP-like
# "ok 1 - name" and "not ok 1 - name" from 16 (grep -E patterns).
REGRESS_OK='\.\.\. ok( |$)|^ok [0-9]+ +[-+] '
REGRESS_FAILED='\.\.\. (FAILED|failed)|^not ok [0-9]+ +[-+] '
