/*
 * fuzz_version.c: the version parser (src/collection/version.c). Whatever parses prints
 * back to a text that parses to an equal version and prints the same.
 */
#include "postgres.h"

#include "mb/pg_wchar.h"

#include "fuzz.h"
#include "collection/version.h"

static void
ParseRaising(void *arg)
{
	DocmodelVersionFromCString((const char *) arg, true);
}

void
FuzzVersion(const uint8 *data, size_t size)
{
	char *str = FuzzCString(data, size);
	DocVersion *v;
	DocVersion *again;
	char *out;

	if (str == NULL || !pg_verifymbstr(str, size, true))
		return;
	v = DocmodelVersionFromCString(str, false);
	FuzzCheck(FuzzTry(ParseRaising, str) == (v != NULL),
			  "raise=false and raise=true disagree on \"%s\"", str);
	if (v == NULL)
		return;
	FuzzCheck(v->nparts >= 1 && v->nparts <= DOCVERSION_MAX_PARTS,
			  "%d parts in \"%s\"", v->nparts, str);
	out = DocmodelVersionToCString(v);
	again = DocmodelVersionFromCString(out, false);
	FuzzCheck(again != NULL, "\"%s\" prints as \"%s\", which does not parse",
			  str, out);
	FuzzCheck(DocmodelVersionCmp(v, again) == 0 &&
				  DocmodelVersionCmp(again, v) == 0,
			  "\"%s\" and its text \"%s\" compare unequal", str, out);
	FuzzCheck(strcmp(DocmodelVersionToCString(again), out) == 0,
			  "\"%s\" prints differently after a round trip", out);
}
