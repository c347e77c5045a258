#!/usr/bin/env bash
# A root of the Debian release that ships a PostgreSQL major, for building and testing docmodel
# against a major the host's release does not have (its binaries need their own release's libc).
# This is how Debian itself builds for other releases (pbuilder, sbuild).
#
#   scripts/root.sh path MAJOR        print the root's directory (made or not)
#   scripts/root.sh check MAJOR       refuse (exit 1, saying why) unless the roots' directory and
#                                     the major's root, where they exist, are root's alone
#   scripts/root.sh make MAJOR        make the root unless it is there and current
#   scripts/root.sh run MAJOR CMD...  make it if needed, then run CMD inside it, in a private
#                                     mount namespace with /proc, /dev and /dev/shm mounted
#                                     (nothing stays mounted after CMD ends)
#
# Roots live under DOCMODEL_ROOTS (default /var/lib/docmodel-roots), one per release, and are
# kept: a root is made again only when its package list (below) or its release changes, which
# its stamp file records. The archive is the one the host's apt uses (read from its sources).
#
# What runs in a root runs as root: a root, and the directory holding the roots, must be ones no
# other user could have made or changed. Before any use, the roots' directory and each of its
# parents, the root, its stamp and its lock must be owned by root and writable by no one else
# (a parent may be world-writable with the sticky bit, as /var/tmp is: then nobody else can
# rename what root made in it) and no symbolic link; anything else is refused with a message
# saying what to remove. The lock is taken on the roots' directory itself (no file to plant a
# link at).
set -eu

ROOTS="${DOCMODEL_ROOTS:-/var/lib/docmodel-roots}"

# Refuse (exit 1) unless path is root's alone: not a link, owned by uid 0, not writable by group
# or others (unless sticky is "sticky" and the sticky bit is set).
trusted() {
	local path=$1 sticky=${2:-} owner mode
	if [ -L "$path" ]; then
		echo "docmodel: $path is a symbolic link; refusing to use it for a root (remove it)" >&2
		exit 1
	fi
	owner=$(stat -c %u "$path")
	mode=$(stat -c %a "$path")
	if [ "$owner" != 0 ]; then
		echo "docmodel: $path is owned by $(stat -c %U "$path"), not root; refusing to use it for a root (remove it, or set DOCMODEL_ROOTS to a directory only root can write)" >&2
		exit 1
	fi
	# group or other write bit, unless sticky is allowed and set
	if [ $((0$mode & 022)) != 0 ] && ! { [ -n "$sticky" ] && [ $((0$mode & 01000)) != 0 ]; }; then
		echo "docmodel: $path (mode $mode) is writable by others than root; refusing to use it for a root (remove it, or set DOCMODEL_ROOTS to a directory only root can write)" >&2
		exit 1
	fi
}

# The roots' directory, its parents and the major's root (and what it holds that is read before
# use), as far as they exist.
root_check() {
	local dir p
	dir=$(root_dir "$1")
	p=$(dirname "$ROOTS")
	case "$ROOTS" in /*) ;; *)
		echo "docmodel: DOCMODEL_ROOTS must be an absolute path, not $ROOTS" >&2
		exit 1 ;;
	esac
	while :; do
		[ -e "$p" ] && trusted "$p" sticky
		[ "$p" = / ] && break
		p=$(dirname "$p")
	done
	[ -e "$ROOTS" ] || [ -L "$ROOTS" ] || return 0
	trusted "$ROOTS"
	local f
	for f in "$dir" "$dir.new" "$dir/.docmodel-stamp" "$ROOTS/$(release_of "$1").log"; do
		if [ -e "$f" ] || [ -L "$f" ]; then trusted "$f"; fi
	done
	return 0
}

# The release that ships each major.
release_of() {
	case "$1" in
	15) echo bookworm ;;
	17) echo trixie ;;
	18) echo forky ;;
	*) echo "docmodel: no Debian release known to ship PostgreSQL $1" >&2; return 1 ;;
	esac
}

# What a root holds: the server and its headers, pg_virtualenv and pg_buildext
# (postgresql-common), the build tools, IPC::Run for TAP, what Citus's build needs, and
# debhelper for `make deb`. PGXS's bitcode (with_llvm) is turned off by the scripts, so no clang.
packages() {
	echo "postgresql-$1 postgresql-server-dev-$1 postgresql-common make gcc libc6-dev perl
		libipc-run-perl patch debhelper dpkg-dev fakeroot
		libcurl4-openssl-dev liblz4-dev libzstd-dev libssl-dev libkrb5-dev libselinux1-dev
		libxslt1-dev libpam0g-dev libreadline-dev zlib1g-dev libicu-dev unzip" | tr -s ' \t\n' ' '
}

# The archive the host's apt uses (deb822 or one-line sources), its main Debian suite.
mirror() {
	local m
	# the first source of a release itself (a suite without -security, -updates, ...)
	m=$(awk '/^URIs:/ {u=$2} /^Suites:/ {for (i = 2; i <= NF; i++) if ($i !~ /-/) {print u; exit}}' \
		/etc/apt/sources.list.d/*.sources 2>/dev/null || true)
	[ -n "$m" ] || m=$(awk '$1 == "deb" {o = ($2 ~ /^\[/) ? 1 : 0; if ($(3 + o) !~ /-/) {print $(2 + o); exit}}' \
		/etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true)
	[ -n "$m" ] || { echo "docmodel: no Debian archive in the host's apt sources" >&2; return 1; }
	echo "$m"
}

root_dir() { echo "$ROOTS/$(release_of "$1")"; }

stamp_of() {
	local rel
	rel=$(release_of "$1")
	echo "$rel $(packages "$1")" | sha256sum | cut -c1-16
}

# Mount /proc, /dev and /dev/shm into the root inside the current (private) mount namespace.
mounts() {
	local r=$1
	mount --make-rprivate / 2>/dev/null || true
	mount -t proc proc "$r/proc"
	mount --rbind /dev "$r/dev"
	mount -t tmpfs -o mode=1777 tmpfs "$r/dev/shm"
}

root_make() {
	local major=$1 rel dir stamp m new t0
	rel=$(release_of "$major")
	dir=$(root_dir "$major")
	stamp=$(stamp_of "$major")
	root_check "$major"
	if [ -f "$dir/.docmodel-stamp" ] && [ "$(cat "$dir/.docmodel-stamp")" = "$stamp" ]; then
		return 0
	fi
	if [ ! -e "$ROOTS" ]; then
		mkdir -p "$(dirname "$ROOTS")"
		mkdir -m 755 "$ROOTS" 2>/dev/null || true
	fi
	root_check "$major"
	exec 8<"$ROOTS"
	flock 8
	root_check "$major"
	# another run may have made it while this one waited
	if [ -f "$dir/.docmodel-stamp" ] && [ "$(cat "$dir/.docmodel-stamp")" = "$stamp" ]; then
		exec 8>&-
		return 0
	fi
	t0=$(date +%s)
	m=$(mirror)
	if ! command -v debootstrap >/dev/null 2>&1; then
		echo "docmodel: installing debootstrap"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null ||
			{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
				--no-install-recommends debootstrap >/dev/null; }
	fi
	# bookworm's debootstrap has no script for releases after trixie; they are made like sid.
	local script=""
	[ -f "/usr/share/debootstrap/scripts/$rel" ] || script=/usr/share/debootstrap/scripts/sid
	new="$dir.new"
	rm -rf "$new"
	echo "docmodel: making the $rel root for PostgreSQL $major in $dir (a few minutes, once)"
	# The archive may fail requests for a minute or two now and then: five tries, each from
	# scratch, waiting longer each time.
	local try
	for try in 1 2 3 4 5; do
		rm -rf "$new"
		debootstrap --variant=minbase "$rel" "$new" "$m" $script >"$ROOTS/$rel.log" 2>&1 && break
		[ "$try" = 5 ] && { tail -30 "$ROOTS/$rel.log" >&2; return 1; }
		echo "docmodel: debootstrap failed (try $try of 5), again in $((30 * try)) s"
		sleep $((30 * try))
	done
	# No services start inside the root; no cluster is made at install (pg_virtualenv makes its own).
	printf '#!/bin/sh\nexit 101\n' >"$new/usr/sbin/policy-rc.d"
	chmod 755 "$new/usr/sbin/policy-rc.d"
	mkdir -p "$new/etc/postgresql-common/createcluster.d"
	echo "create_main_cluster = false" >"$new/etc/postgresql-common/createcluster.d/docmodel.conf"
	# A release in development may carry Release files past their Valid-Until date.
	echo 'Acquire::Check-Valid-Until "false";' >"$new/etc/apt/apt.conf.d/99docmodel"
	unshare --mount bash -c "$(declare -f mounts); mounts '$new'; chroot '$new' env -i \
		PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 \
		sh -c 'for try in 1 2 3; do apt-get update -qq && apt-get install -y -qq --no-install-recommends \
			$(packages "$major") && apt-get clean && exit 0; sleep 60; done; exit 1'" >>"$ROOTS/$rel.log" 2>&1 ||
		{ tail -30 "$ROOTS/$rel.log" >&2; return 1; }
	echo "$stamp" >"$new/.docmodel-stamp"
	echo $(($(date +%s) - t0)) >"$new/.docmodel-seconds"
	rm -rf "$dir"
	mv "$new" "$dir"
	echo "docmodel: $rel root made in $(cat "$dir/.docmodel-seconds") s"
	exec 8>&-
}

# Run CMD inside the root: the caller's environment is not carried in, but for what is named
# in DOCMODEL_ROOT_ENV (NAME=VALUE words) and a few basics.
root_run() {
	local major=$1 dir
	shift
	root_make "$major"
	root_check "$major"
	dir=$(root_dir "$major")
	unshare --mount bash -c "$(declare -f mounts); mounts '$dir'"'
		for b in ${DOCMODEL_ROOT_BINDS:-}; do
			mkdir -p "$0$b"; mount --bind "$b" "$0$b"
		done
		exec chroot "$0" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 DOCMODEL_IN_ROOT=1 \
			TERM="${TERM:-dumb}" ${DOCMODEL_ROOT_ENV:-} "$@"' "$dir" "$@"
}

cmd="${1:-}"
[ $# -ge 2 ] || { echo "usage: scripts/root.sh path|check|make|run MAJOR [CMD...]" >&2; exit 2; }
major=$2
shift 2
case "$cmd" in
path) root_dir "$major" ;;
check) root_check "$major" ;;
make) root_make "$major" ;;
run) root_run "$major" "$@" ;;
*)
	echo "usage: scripts/root.sh path|check|make|run MAJOR [CMD...]" >&2
	exit 2
	;;
esac
