#!/usr/bin/env bash
# The official JSON-Schema-Test-Suite through schema_valid (make test runs it in its throwaway
# cluster). Loads tests/draft2020-12, tests/draft2019-09 and tests/draft7: every required file,
# optional/*.json and optional/format/*.json. Prints per keyword file how many cases passed,
# failed, were out of scope (refused with 0A000: remote $ref, a construct of a pattern, a keyword
# or dialect not offered) or not supported (run.sql's list, each with its reason, as the README
# lists them), lists the failures, and exits 1 if any case failed. Cases of format.json saying
# "only an annotation by default" are counted apart ("asserted"): docmodel asserts formats unless
# the schema says "x-docmodel-format": "annotation".
#
# JSON_SCHEMA_TEST_SUITE: the suite's checkout; by default the vendored copy (scripts/vendor.sh);
# without it the run says "not found".
set -u
top="$(cd "$(dirname "$0")/../.." && pwd)"
TOP=$top
source "$top/scripts/vendor.sh"
suite=$JSON_SCHEMA_TEST_SUITE
if [ ! -d "$suite/tests/draft2020-12" ] || [ ! -d "$suite/tests/draft7" ]; then
	echo "JSON-Schema-Test-Suite not found at $suite (set JSON_SCHEMA_TEST_SUITE): skipped"
	exit 0
fi
db=docmodel_jsonschema
sqlf=$(mktemp)
trap 'rm -f "$sqlf"' EXIT
{
	echo "DROP DATABASE IF EXISTS $db;"
	echo "CREATE DATABASE $db;"
	echo "\\c $db"
	echo "SET client_min_messages = warning;"
	echo "CREATE EXTENSION docmodel;"
	echo "CREATE TABLE suite_file(dialect text, file text, content json);"
	for dialect in draft2020-12 draft2019-09 draft7; do
		[ -d "$suite/tests/$dialect" ] || continue
		files=$(cd "$suite/tests/$dialect" && ls *.json optional/*.json optional/format/*.json 2>/dev/null)
		for f in $files; do
			echo "\\set content \`cat '$suite/tests/$dialect/$f'\`"
			echo "INSERT INTO suite_file VALUES ('$dialect', '$f', :'content'::json);"
		done
	done
	cat "$top/test/jsonschema/run.sql"
} > "$sqlf"
out=$(psql -X -q -v ON_ERROR_STOP=1 -d postgres -f "$sqlf" 2>&1)
rc=$?
echo "$out"
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1
if [ $rc -ne 0 ]; then
	echo "test jsonschema-suite ... FAILED (psql exited $rc)"
	exit 1
fi
if echo "$out" | grep -q '^FAILED CASES: 0$'; then
	echo "test jsonschema-suite ... ok"
	exit 0
fi
echo "test jsonschema-suite ... FAILED"
exit 1
