/*
 * fuzz_pointer.c: the JSON Pointer parser (RFC 6901, src/json/pointer.c), reached as users
 * reach them: every RFC 6902 patch op with the input as its path or from
 * (src/json/patch.c), and migration steps with it as path, from, paths and
 * into (src/migrate/steps.c). A pointer is refused with an ERROR or resolves;
 * nothing else may happen.
 */
#include "postgres.h"

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "utils/json.h"
#include "utils/jsonb.h"

#include "fuzz.h"
#include "json/patch.h"

extern Datum migration_check_steps(PG_FUNCTION_ARGS);

static const char *const doc_json =
	"{\"a\": {\"b\": [1, 2, {\"c\": 3}], \"\": 4}, \"~\": {\"/\": [5]}, "
	"\"0\": [], \"s\": \"x-y\"}";

/* patch ops and migration steps, %1$s being the pointer as a JSON string */
static const char *const patches[] = {
	"[{\"op\": \"add\", \"path\": %1$s, \"value\": 1}]",
	"[{\"op\": \"remove\", \"path\": %1$s}]",
	"[{\"op\": \"replace\", \"path\": %1$s, \"value\": [1]}]",
	"[{\"op\": \"test\", \"path\": %1$s, \"value\": 3}]",
	"[{\"op\": \"move\", \"from\": %1$s, \"path\": \"/a/b/0\"}]",
	"[{\"op\": \"move\", \"from\": \"/a\", \"path\": %1$s}]",
	"[{\"op\": \"copy\", \"from\": %1$s, \"path\": %1$s}]",
	"[{\"op\": \"copy\", \"from\": \"/~0\", \"path\": %1$s}]",
};
static const char *const steps[] = {
	"[{\"op\": \"remove\", \"path\": %1$s}]",
	"[{\"op\": \"move\", \"from\": %1$s, \"path\": \"/a/b\"}]",
	"[{\"op\": \"move\", \"from\": \"/a/b\", \"path\": %1$s}]",
	"[{\"op\": \"nest\", \"paths\": [\"/a\", %1$s], \"into\": \"/a/x\"}]",
	"[{\"op\": \"nest\", \"paths\": [\"/a\"], \"into\": %1$s}]",
	"[{\"op\": \"split\", \"path\": %1$s, \"into\": [%1$s, \"/b\"], "
	"\"separator\": \"-\"}]",
	"[{\"op\": \"for_each\", \"path\": %1$s, \"steps\": "
	"[{\"op\": \"remove\", \"path\": %1$s}]}]",
};

typedef struct Call
{
	Jsonb *doc;
	Jsonb *arg;
} Call;

static void
Patch(void *arg)
{
	Call *c = arg;

	DocmodelPatch(c->doc, c->arg);
}

static void
DocmodelStepsCheck(void *arg)
{
	Call *c = arg;

	DirectFunctionCall1(migration_check_steps, JsonbPGetDatum(c->arg));
}

void
FuzzPointer(const uint8 *data, size_t size)
{
	char *str = FuzzCString(data, size);
	StringInfoData quoted;
	Call c;
	int i;

	if (str == NULL || !pg_verifymbstr(str, size, true))
		return;
	initStringInfo(&quoted);
	escape_json(&quoted, str);
	c.doc = FuzzJsonb(doc_json);
	for (i = 0; i < lengthof(patches); i++)
	{
		c.arg = FuzzJsonb(psprintf(patches[i], quoted.data));
		FuzzTry(Patch, &c);
	}
	for (i = 0; i < lengthof(steps); i++)
	{
		c.arg = FuzzJsonb(psprintf(steps[i], quoted.data));
		FuzzTry(DocmodelStepsCheck, &c);
	}
}
