#!/usr/bin/env bash
# Citus for docmodel's scale-out suite, the way a user gets it.
#
#   scripts/citus.sh installed        exit 0 when Citus 13.2.x is installed for PG_MAJOR
#   scripts/citus.sh install          install it: the distribution's package when apt has one,
#                                     else build the Citus source tarball (CITUS_SRC: a directory
#                                     holding citus-13.2.2.tar.gz and its PostgreSQL 15 patch, or
#                                     the tarball itself). Does nothing when already installed;
#                                     fails at once for a major Citus 13.2 does not support
#                                     (it supports 15 to 17).
#   scripts/citus.sh supported        exit 0 when Citus 13.2 supports PG_MAJOR
#   scripts/citus.sh cluster CMD...   start a throwaway cluster (a coordinator and two workers on
#                                     loopback, data in a temporary directory, docmodel and
#                                     citus created on every node), run CMD with PGHOST/PGPORT/
#                                     PGUSER/PGDATABASE naming the coordinator and CITUS_WORKERS
#                                     the workers' ports, then tear the cluster down. The nodes
#                                     run without fsync unless CITUS_FSYNC=on (make bench sets
#                                     it: benchmarks run at PostgreSQL's default durability).
#
# Building needs about 3 minutes on 2 cores; the build tree lives under /tmp and is removed.
set -eu
source "$(dirname "$0")/env.sh"

CITUS_VERSION=13.2.2
# The PostgreSQL majors Citus 13.2 builds against.
CITUS_MAJORS="15 16 17"
# CITUS_SRC: by default the vendored copy (scripts/vendor.sh, sourced by env.sh).
# Ports of the throwaway cluster: coordinator, then the workers.
CITUS_PORTS="${CITUS_PORTS:-59771 59772 59773}"

extdir=$("$PG_CONFIG" --sharedir)/extension
libdir=$("$PG_CONFIG" --pkglibdir)

citus_installed() {
	[ -f "$libdir/citus.so" ] && [ -f "$extdir/citus.control" ] &&
		grep -qE "^default_version *= *'13\.2-" "$extdir/citus.control" &&
		# with the C functions docmodel calls (a build that hides them is built again)
		{ ! command -v nm >/dev/null 2>&1 || nm -D --defined-only "$libdir/citus.so" | grep -q ' SendCommandToWorkersWithMetadata$'; }
}

citus_supported() {
	case " $CITUS_MAJORS " in *" $PG_MAJOR "*) return 0 ;; esac
	return 1
}

citus_install() {
	citus_installed && return 0
	citus_supported || {
		echo "citus: Citus $CITUS_VERSION supports PostgreSQL ${CITUS_MAJORS// /, }, not $PG_MAJOR" >&2
		return 1
	}
	export DEBIAN_FRONTEND=noninteractive
	# A distribution package (Citus's own apt repository, or a distribution that carries it).
	local pkg
	for pkg in postgresql-$PG_MAJOR-citus-13.2 postgresql-$PG_MAJOR-citus; do
		if apt-cache show "$pkg" >/dev/null 2>&1; then
			echo "citus: installing the $pkg package"
			$sudo apt-get install -y -qq --no-install-recommends "$pkg" >/dev/null &&
				citus_installed && return 0
		fi
	done
	# The source tarball.
	local tarball patch=""
	local srcdir=$CITUS_SRC
	if [ -f "$CITUS_SRC" ]; then
		tarball="$CITUS_SRC"
		srcdir=$(dirname "$CITUS_SRC")
	else
		tarball="$CITUS_SRC/citus-$CITUS_VERSION.tar.gz"
	fi
	# PostgreSQL 15's recent minors export a function Citus copies (see the vendor README).
	[ "$PG_MAJOR" != 15 ] || [ ! -f "$srcdir/pg15-minor-createdb.patch" ] ||
		patch="$srcdir/pg15-minor-createdb.patch"
	if [ ! -f "$tarball" ]; then
		echo "citus: no package for PostgreSQL $PG_MAJOR and no source at $tarball (set CITUS_SRC)" >&2
		return 1
	fi
	echo "citus: no package for PostgreSQL $PG_MAJOR; building $tarball"
	local need=("postgresql-server-dev-$PG_MAJOR" libcurl4-openssl-dev liblz4-dev libzstd-dev libssl-dev
		libkrb5-dev libselinux1-dev libxslt1-dev libpam0g-dev libreadline-dev zlib1g-dev libicu-dev
		make gcc patch)
	local missing=() p
	for p in "${need[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		echo "citus: installing build dependencies ${missing[*]}"
		$sudo apt-get update -qq
		$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
	fi
	local build
	build=$(mktemp -d /tmp/citus-build.XXXXXX)
	# shellcheck disable=SC2064
	trap "rm -rf '$build'" RETURN
	tar xzf "$tarball" -C "$build"
	(
		cd "$build/citus-$CITUS_VERSION"
		[ -z "$patch" ] || patch -s -p1 <"$patch"
		./configure -q PG_CONFIG="$PG_CONFIG" >"$build/configure.log" 2>&1 ||
			{ tail -30 "$build/configure.log" >&2; exit 1; }
		# PGXS hides a library's symbols from PostgreSQL 16 on; docmodel calls Citus's C
		# functions (src/citus/citus.c), so they stay visible.
		make -s -j2 CFLAGS_SL_MODULE= >"$build/make.log" 2>&1 || { tail -40 "$build/make.log" >&2; exit 1; }
		$sudo make -s install CFLAGS_SL_MODULE= >"$build/install.log" 2>&1 || { tail -20 "$build/install.log" >&2; exit 1; }
	)
	citus_installed || { echo "citus: built, but $libdir/citus.so is not Citus 13.2" >&2; return 1; }
	echo "citus: Citus $CITUS_VERSION installed"
}

# The throwaway cluster. initdb refuses root, so the nodes run as postgres.
run_as=()
[ "$(id -u)" -eq 0 ] && run_as=(runuser -u postgres --)

cluster_stop() {
	local dir=$1 p
	for p in $CITUS_PORTS; do
		[ -f "$dir/n$p/postmaster.pid" ] &&
			"${run_as[@]}" pg_ctl -D "$dir/n$p" -m immediate -w stop >/dev/null 2>&1
	done
	rm -rf "$dir"
}

cluster_run() {
	local dir p coord="" workers=""
	dir=$(mktemp -d /tmp/docmodel-citus.XXXXXX)
	chmod 755 "$dir"
	[ ${#run_as[@]} -eq 0 ] || chown postgres "$dir"
	# shellcheck disable=SC2064
	trap "cluster_stop '$dir'" EXIT
	for p in $CITUS_PORTS; do
		if [ -z "$coord" ]; then coord=$p; else workers="$workers $p"; fi
		"${run_as[@]}" initdb -D "$dir/n$p" -U postgres -A trust --no-sync >"$dir/initdb$p.log" 2>&1 ||
			{ cat "$dir/initdb$p.log" >&2; return 1; }
		cat >>"$dir/n$p/postgresql.conf" <<-EOF
			port = $p
			listen_addresses = '127.0.0.1'
			unix_socket_directories = '$dir'
			shared_preload_libraries = 'citus'
			fsync = ${CITUS_FSYNC:-off}
			max_connections = 100
			citus.enable_unsafe_triggers = on
		EOF
		"${run_as[@]}" pg_ctl -D "$dir/n$p" -l "$dir/n$p.log" -w start >/dev/null ||
			{ cat "$dir/n$p.log" >&2; return 1; }
		"${run_as[@]}" psql -X -q -h 127.0.0.1 -p "$p" -U postgres -d postgres -v ON_ERROR_STOP=1 \
			-c 'CREATE EXTENSION citus' -c 'CREATE EXTENSION docmodel' >/dev/null
	done
	"${run_as[@]}" psql -X -q -h 127.0.0.1 -p "$coord" -U postgres -d postgres -v ON_ERROR_STOP=1 \
		-c "SELECT citus_set_coordinator_host('127.0.0.1', $coord)" >/dev/null
	for p in $workers; do
		"${run_as[@]}" psql -X -q -h 127.0.0.1 -p "$coord" -U postgres -d postgres -v ON_ERROR_STOP=1 \
			-c "SELECT citus_add_node('127.0.0.1', $p)" >/dev/null
	done
	PGHOST=127.0.0.1 PGPORT=$coord PGUSER=postgres PGDATABASE=postgres CITUS_WORKERS="${workers# }" \
		CITUS_DIR="$dir" "$@"
}

case "${1:-}" in
installed) citus_installed ;;
supported) citus_supported ;;
install) citus_install ;;
cluster)
	shift
	cluster_run "$@"
	;;
*)
	echo "usage: scripts/citus.sh installed|install|cluster CMD..." >&2
	exit 2
	;;
esac
