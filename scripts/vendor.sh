# Sourced with TOP set (scripts/env.sh, scripts/inroot.sh): VENDOR, the directory of the vendored
# sources (Citus, the JSON-Schema-Test-Suite, postgres-json-schema) beside the checkout, or
# beside its main checkout for a git worktree; and, unless already set, the variables naming
# each: CITUS_SRC, JSON_SCHEMA_TEST_SUITE, POSTGRES_JSON_SCHEMA.
VENDOR="$TOP/../shared/vendor"
if [ ! -d "$VENDOR" ]; then
	vendor_common=$(git -C "$TOP" rev-parse --path-format=absolute --git-common-dir 2>/dev/null || true)
	[ -z "$vendor_common" ] || VENDOR="$(dirname "$vendor_common")/../shared/vendor"
fi
[ ! -d "$VENDOR" ] || VENDOR=$(cd "$VENDOR" && pwd)
export CITUS_SRC="${CITUS_SRC:-$VENDOR/citus}"
export JSON_SCHEMA_TEST_SUITE="${JSON_SCHEMA_TEST_SUITE:-$VENDOR/json-schema-test-suite}"
export POSTGRES_JSON_SCHEMA="${POSTGRES_JSON_SCHEMA:-$VENDOR/postgres-json-schema}"
