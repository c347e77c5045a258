/*
 * fuzz_regex.c: ECMA-262 patterns (src/jsonschema/regex.c, regex_run.c).
 * Input: a pattern and, after the first newline, a text. A pattern may be
 * refused (a syntax error, a backreference, too many states). One that
 * compiles must agree with itself wrapped in lookarounds, whose passes run
 * the text forward (lookbehind) and backward (lookahead, the reversed
 * automaton): P matches somewhere exactly when (?=P) and (?<=P) do; ^(?=P)
 * as ^(?:P), (?<=P)$ as (?:P)$; (?!P) and (?<!P) the complements of (?=P)
 * and (?<=P) at the same anchor.
 */
#include "postgres.h"

#include "mb/pg_wchar.h"

#include "fuzz.h"
#include "jsonschema/regex.h"

/* Whether "pre P post" matches text: 1, 0, or -1 when it does not compile. */
static int
FuzzRegexTry(const char *pre, const char *p, const char *post, const char *text)
{
	char *src = psprintf("%s%s%s", pre, p, post);
	EcmaStatus st;
	char *err;
	EcmaRegex *re = DocmodelRegexCompile(src, strlen(src), &st, &err);

	if (re == NULL)
		return -1;
	return DocmodelRegexMatch(re, text, strlen(text)) ? 1 : 0;
}

/* a and b both compiled: they must be equal (same) or complements. */
static void
FuzzRegexSame(int a, int b, bool same, const char *what, const char *p)
{
	if (a < 0 || b < 0)
		return;
	FuzzCheck(same ? a == b : a != b, "%s: %d and %d for pattern \"%s\"", what,
			  a, b, p);
}

void
FuzzRegex(const uint8 *data, size_t size)
{
	char *str = FuzzCString(data, size);
	char *nl;
	const char *text;
	int m;

	if (str == NULL || !pg_verifymbstr(str, size, true))
		return;
	nl = strchr(str, '\n');
	if (nl != NULL)
		*nl = '\0';
	text = nl != NULL ? nl + 1 : "";
	m = FuzzRegexTry("", str, "", text);
	if (m < 0)
		return;
	FuzzRegexSame(m, FuzzRegexTry("(?=", str, ")", text), true, "P, (?=P)",
				  str);
	FuzzRegexSame(m, FuzzRegexTry("(?<=", str, ")", text), true, "P, (?<=P)",
				  str);
	FuzzRegexSame(FuzzRegexTry("^(?:", str, ")", text),
				  FuzzRegexTry("^(?=", str, ")", text), true, "^(?:P), ^(?=P)",
				  str);
	FuzzRegexSame(FuzzRegexTry("(?:", str, ")$", text),
				  FuzzRegexTry("(?<=", str, ")$", text), true,
				  "(?:P)$, (?<=P)$", str);
	FuzzRegexSame(FuzzRegexTry("^(?!", str, ")", text),
				  FuzzRegexTry("^(?=", str, ")", text), false, "^(?!P), ^(?=P)",
				  str);
	FuzzRegexSame(FuzzRegexTry("(?<!", str, ")$", text),
				  FuzzRegexTry("(?<=", str, ")$", text), false,
				  "(?<!P)$, (?<=P)$", str);
}
