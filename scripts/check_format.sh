#!/usr/bin/env bash
# make check-format: the C in the project's .clang-format style (every .c and .h of src/ and
# test/), the SQL of sql/parts/ and sql/upgrade/ indented with spaces (four a level) and without
# trailing blanks, and the layout rules of src/ (scripts/check_layout.pl: a header per .c, no
# file over 1,500 lines or function over 100, no circle). Prints one "... ok" or "... FAILED"
# line per check (make test counts them).
set -u
cd "$(dirname "$0")/.." || exit 1
rc=0
if command -v clang-format >/dev/null 2>&1; then
	bad=""
	for f in $(find src test -name '*.[ch]' | sort); do
		clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || bad="$bad $f"
	done
	if [ -z "$bad" ]; then
		echo "format: C in the .clang-format style ... ok"
	else
		echo "format: C in the .clang-format style ... FAILED:$bad (run: make format)"
		rc=1
	fi
else
	# the roots of other majors have no clang-format; the host's run checks the same files
	echo "format: C skipped: clang-format is not installed"
fi
sql="sql/parts/*.sql sql/upgrade/*.sql.in"
tabs=$(grep -nP '^ *\t' $sql | head -5)
blanks=$(grep -nP '[ \t]+$' $sql | head -5)
if [ -z "$tabs$blanks" ]; then
	echo "format: SQL indented with spaces, no trailing blanks ... ok"
else
	echo "format: SQL indented with spaces, no trailing blanks ... FAILED"
	printf '%s\n' $tabs $blanks | head -10
	rc=1
fi
perl scripts/check_layout.pl || rc=1
exit $rc
