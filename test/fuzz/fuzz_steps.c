/*
 * fuzz_steps.c: the migration step language (src/migrate/steps.c). The
 * input is a steps array as JSON text: it is parsed as register_migration
 * checks it (DocmodelStepsCheck, which _check_migration_steps calls), and the steps
 * that parse are applied to a document with a value of every kind, as a
 * read or a write migrates one.
 */
#include "postgres.h"

#include "fmgr.h"
#include "mb/pg_wchar.h"

#include "fuzz.h"
#include "json/tree.h"
#include "migrate/steps.h"

/* Every JSON kind, empties, multibyte text, dates, epochs, nesting. */
static const char *const fuzz_steps_doc =
	"{\"a\": 1, \"b\": \"x-y-z\", \"c\": [1, {\"d\": null, \"e\": \"\"}, [], "
	"{}], \"phone\": \"(555) 123-4567\", \"t\": \"2024-01-02T03:04:05.678Z\", "
	"\"n\": 1544759124000, \"o\": {\"p\": {}, \"q\": [], \"r\": {\"s\": "
	"null}}, \"u\": \"J\\u00f6\\u00f6rg Gr\\u00f6\\u00dfe\", \"v\": true, "
	"\"w\": null, \"x\": \"\", \"name\": \"Joe van Smith\"}";

void
FuzzSteps(const uint8 *data, size_t size)
{
	char *str = FuzzCString(data, size);
	ApplyCx cx = {.key = "fuzz::1",
				  .type = "fuzz",
				  .from = "1",
				  .to = "2",
				  .prefix = "",
				  .room = JSONTREE_MAX_BYTES};
	JsonbValue root;
	Step *steps;
	int nsteps;
	Jsonb *out;
	Jsonb *canon;
	char *text;

	if (str == NULL || !pg_verifymbstr(str, size, true))
		return;
	steps = DocmodelStepsCheck(FuzzJsonb(str), &nsteps);
	DocmodelJsonTreeFromJsonb(FuzzJsonb(fuzz_steps_doc), &root);
	DocmodelStepsApply(&cx, steps, nsteps, &root);
	out = DocmodelJsonTreeToJsonb(&root);
	/* the tree's writer gives PostgreSQL's own bytes for the same value */
	text = JsonbToCString(NULL, &out->root, VARSIZE(out));
	canon = FuzzJsonb(text);
	FuzzCheck(VARSIZE(out) == VARSIZE(canon) &&
				  memcmp(out, canon, VARSIZE(out)) == 0,
			  "the written document %s differs from its jsonb_in bytes", text);
}
