#!/usr/bin/env bash
# Which PostgreSQL the scripts and the Makefile build and test against:
#
#   scripts/pg_config.sh              the pg_config to use: PG's (PG=17) when PG is set, else the
#                                     newest installed (as PGXS takes the newest), else the one
#                                     of the major this machine's Debian release ships (which
#                                     make deps installs)
#   scripts/pg_config.sh --major      that pg_config's major
#   scripts/pg_config.sh --default    the major this machine's Debian release ships
#   scripts/pg_config.sh --local N    exit 0 when major N is installed here or can be installed
#                                     from this release (else it runs in a root: scripts/root.sh)
set -u

# The major the release ships: what its "postgresql" package depends on, else by codename.
default_major() {
	local m codename
	m=$(apt-cache depends postgresql 2>/dev/null | sed -n 's/^ *Depends: postgresql-\([0-9][0-9]*\)$/\1/p' | head -n1)
	if [ -z "$m" ]; then
		codename=$(. /etc/os-release 2>/dev/null; echo "${VERSION_CODENAME:-}")
		case "$codename" in
		bookworm) m=15 ;;
		trixie) m=17 ;;
		forky) m=18 ;;
		*) m=15 ;;
		esac
	fi
	echo "$m"
}

pg_config_path() {
	local p
	if [ -n "${PG:-}" ]; then
		echo "/usr/lib/postgresql/$PG/bin/pg_config"
		return
	fi
	p=$(ls /usr/lib/postgresql/*/bin/pg_config 2>/dev/null | sort -V | tail -n1)
	[ -n "$p" ] || p="/usr/lib/postgresql/$(default_major)/bin/pg_config"
	echo "$p"
}

major_of() {
	case "$1" in
	/usr/lib/postgresql/*/bin/pg_config)
		local m=${1#/usr/lib/postgresql/}
		echo "${m%%/*}"
		;;
	*) "$1" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/' ;;
	esac
}

case "${1:-}" in
"") pg_config_path ;;
--major) major_of "${PG_CONFIG:-$(pg_config_path)}" ;;
--default) default_major ;;
--local)
	[ -x "/usr/lib/postgresql/$2/bin/pg_config" ] || [ "$2" = "$(default_major)" ]
	;;
*)
	echo "usage: scripts/pg_config.sh [--major|--default|--local N]" >&2
	exit 2
	;;
esac
