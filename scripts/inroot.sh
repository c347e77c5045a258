#!/usr/bin/env bash
# make TARGET PG=N for a major the host's release does not ship: the checkout (as it is, edits
# included, without its build products) is copied into the root of the release that ships N
# (scripts/root.sh, made on first use), and make TARGET runs there against that major.
# The vendored sources beside the checkout (Citus, the JSON-Schema-Test-Suite) are mounted at the
# same path inside. What the target leaves in dist/ is copied back into the checkout's dist/.
#
#   scripts/inroot.sh MAJOR TARGET [VAR=VALUE...]
set -eu
major=$1
shift
TOP="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$TOP"
scripts/root.sh make "$major"
root=$(scripts/root.sh path "$major")

source scripts/vendor.sh
binds="" env=""
if [ -d "$VENDOR" ]; then
	binds=$VENDOR
	env="CITUS_SRC=$CITUS_SRC JSON_SCHEMA_TEST_SUITE=$JSON_SCHEMA_TEST_SUITE POSTGRES_JSON_SCHEMA=$POSTGRES_JSON_SCHEMA"
fi

# A build directory of its own per run, removed after it: no object of another major is left
# to link, and runs at once (make test-all beside make deb-check) do not meet.
mkdir -p "$root/build"
build=$(mktemp -d "$root/build/docmodel.XXXXXX")
build=${build#"$root"}
chmod 755 "$root$build"
trap 'rm -rf "${root:?}$build"' EXIT
tar -C "$TOP" --exclude=./.git --exclude='*.o' --exclude='*.so' --exclude='*.bc' \
	--exclude=./results --exclude=./output_iso --exclude=./tmp_check --exclude=./dist \
	--exclude=./log --exclude=./debian/.debhelper -cf - . | tar -C "$root$build" -xf -
# PGXS's bitcode for JIT inlining needs clang, which the roots do not carry.
rc=0
DOCMODEL_ROOT_BINDS="$binds" DOCMODEL_ROOT_ENV="$env" \
	scripts/root.sh run "$major" bash -c 'cd "$0" && exec make "$@"' "$build" \
	PG_CONFIG="/usr/lib/postgresql/$major/bin/pg_config" with_llvm=no "$@" || rc=$?
if [ -d "$root$build/dist" ]; then
	mkdir -p dist
	cp -a "$root$build/dist/." dist/
fi
exit $rc
