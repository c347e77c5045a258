#!/usr/bin/env bash
# make deb: the Debian package postgresql-N-docmodel for PostgreSQL PG_MAJOR (debian/, built with
# pg_buildext as PGDG builds extension packages), into dist/. Builds from a copy of the checkout
# (edits included), so the checkout keeps no build products; without the regression run at
# build time (DEB_BUILD_OPTIONS=nocheck): debian/tests/installcheck runs them against the
# installed package (make deb-check).
#
#   scripts/deb.sh            build
#   scripts/deb.sh check      build, install it with dpkg -i, CREATE EXTENSION, and run the
#                             autopkgtest debian/tests/installcheck (in a root: it changes the
#                             machine's packages)
set -eu
source "$(dirname "$0")/env.sh"
version=$(sed -n "s/^default_version *= *'\(.*\)'/\1/p" docmodel.control)
debversion=$(sed -n '1s/^docmodel (\(.*\)) .*/\1/p' debian/changelog)
if [ "${debversion%-*}" != "$version" ]; then
	echo "deb: debian/changelog's version $debversion is not docmodel.control's $version" >&2
	exit 1
fi
need=()
for p in build-essential debhelper dpkg-dev postgresql-server-dev-all; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	echo "deb: installing ${need[*]}"
	$sudo apt-get update -qq
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		"${need[@]}" >/dev/null
fi

work=$(mktemp -d /tmp/docmodel-deb.XXXXXX)
trap 'rm -rf "$work"' EXIT
src="$work/docmodel-$version"
mkdir -p "$src"
tar -C "$TOP" --exclude=./.git --exclude='*.o' --exclude='*.so' --exclude='*.bc' \
	--exclude=./results --exclude=./output_iso --exclude=./tmp_check --exclude=./dist \
	--exclude=./log -cf - . | tar -C "$src" -xf -
(
	cd "$src"
	# this major only (pg_buildext builds every installed major that debian/pgversions names)
	echo "$PG_MAJOR" >debian/pgversions
	pg_buildext updatecontrol >/dev/null
	# PGXS's JIT bitcode needs the clang that built the server; without it, no bitcode.
	if ! command -v "$(sed -n 's/^CLANG *= *//p' "$(dirname "$("$PG_CONFIG" --pgxs)")/../Makefile.global")" \
		>/dev/null 2>&1; then
		export MAKEVARS="with_llvm=no"
	fi
	DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -b >"$work/build.log" 2>&1 ||
		{ tail -40 "$work/build.log" >&2; exit 1; }
)
mkdir -p dist
deb="postgresql-$PG_MAJOR-docmodel_${debversion}_$(dpkg --print-architecture).deb"
cp "$work/$deb" dist/
echo "deb: dist/$deb"
dpkg-deb -c "dist/$deb" | awk '{print "  " $6}' | grep -E '\.(so|control|sql)$' | head -5

[ "${1:-}" = check ] || exit 0
# The acceptance of a package: it installs with dpkg -i, CREATE EXTENSION works, and the
# autopkgtest passes.
$sudo dpkg -i "dist/$deb" >/dev/null
pg_virtualenv -v "$PG_MAJOR" psql -X -q -v ON_ERROR_STOP=1 \
	-c 'CREATE EXTENSION docmodel' -c "SELECT extversion FROM pg_extension WHERE extname = 'docmodel'"
echo "deb: autopkgtest debian/tests/installcheck"
# the tests of the source package, against the installed package (no build products here)
cd "$src" && debian/tests/installcheck
