/*
 * fuzz_patch.c: RFC 6902 patch and diff (src/json/patch.c). Input: a document
 * and a second JSON text on the lines after the first newline. The second is
 * applied as a patch to the first (it may be refused), and diff() of the two
 * must patch the first into exactly the second. Without a newline the input
 * is a patch applied to a fixed document.
 */
#include "postgres.h"

#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"

#include "fuzz.h"
#include "json/patch.h"

extern Datum json_diff(PG_FUNCTION_ARGS);

typedef struct Call
{
	Jsonb *doc;
	Jsonb *patch;
} Call;

static void
Patch(void *arg)
{
	Call *c = arg;

	DocmodelPatch(c->doc, c->patch);
}

void
FuzzPatch(const uint8 *data, size_t size)
{
	char *str = FuzzCString(data, size);
	char *nl;
	Call c;
	Jsonb *b;
	Jsonb *d;
	Jsonb *r;

	if (str == NULL || !pg_verifymbstr(str, size, true))
		return;
	nl = strchr(str, '\n');
	if (nl == NULL)
	{
		c.doc = FuzzJsonb("{\"a\": [1, {\"b\": null}], \"c\": {\"d\": \"e\"}}");
		c.patch = FuzzJsonb(str);
		DocmodelPatch(c.doc, c.patch);
		return;
	}
	*nl = '\0';
	c.doc = FuzzJsonb(str);
	b = FuzzJsonb(nl + 1);
	c.patch = b;
	FuzzTry(Patch, &c);

	d = DatumGetJsonbP(DirectFunctionCall2(json_diff, JsonbPGetDatum(c.doc),
										   JsonbPGetDatum(b)));
	r = DocmodelPatch(c.doc, d);
	FuzzCheck(DatumGetBool(DirectFunctionCall2(jsonb_eq, JsonbPGetDatum(r),
											   JsonbPGetDatum(b))),
			  "patch(a, diff(a, b)) is not b: a %s, b %s, diff %s",
			  JsonbToCString(NULL, &c.doc->root, 0),
			  JsonbToCString(NULL, &b->root, 0),
			  JsonbToCString(NULL, &d->root, 0));
}
