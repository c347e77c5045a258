# Sourced by the scripts: where PostgreSQL 15 is, and the make to build with.
PGBIN=/usr/lib/postgresql/15/bin
export PG_CONFIG="${PG_CONFIG:-$PGBIN/pg_config}"
export PATH="$PGBIN:$PATH"
TOP="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$TOP"
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
