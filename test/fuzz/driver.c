/*-------------------------------------------------------------------------
 *
 * driver.c
 *	  Run a libFuzzer harness inside a backend: fuzz_run(harness, args)
 *	  hands args (libFuzzer's command line) to LLVMFuzzerRunDriver, which
 *	  calls the harness once per input. Each input runs in an internal
 *	  subtransaction and a memory context reset after it, so an ERROR the
 *	  parser raises only ends that input. libFuzzer exits the process when
 *	  it is done (0) or has found something (non-zero), so scripts/fuzz.sh
 *	  calls this from a single-user backend (postgres --single).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/resowner.h"

#include "fuzz.h"

extern int LLVMFuzzerRunDriver(int *argc, char ***argv,
							   int (*cb)(const uint8 *data, size_t size));

PG_FUNCTION_INFO_V1(fuzz_run);

static const struct
{
	const char *name;
	FuzzHarness fn;
} harnesses[] = {
	{"key", FuzzKey},         {"version", FuzzVersion},
	{"pointer", FuzzPointer}, {"steps", FuzzSteps},
	{"patch", FuzzPatch},     {"subdoc_path", FuzzSubdocPath},
	{"schema", FuzzSchema},   {"merge", FuzzMerge},
	{"regex", FuzzRegex},
};

static FuzzHarness current;
static MemoryContext input_cxt;

/* One input for the current harness (FuzzTry's argument). */
typedef struct FuzzInput
{
	const uint8 *data;
	size_t size;
} FuzzInput;

static void
RunCurrent(void *arg)
{
	FuzzInput *in = (FuzzInput *) arg;

	current(in->data, in->size);
}

/* libFuzzer's callback: one input, its ERROR caught, its memory freed. */
static int
RunOne(const uint8 *data, size_t size)
{
	MemoryContext outer = MemoryContextSwitchTo(input_cxt);
	FuzzInput in = {data, size};

	(void) FuzzTry(RunCurrent, &in);
	MemoryContextSwitchTo(outer);
	MemoryContextReset(input_cxt);
	return 0;
}

char *
FuzzCString(const uint8 *data, size_t size)
{
	if (memchr(data, 0, size) != NULL)
		return NULL;
	return pnstrdup((const char *) data, size);
}

Jsonb *
FuzzJsonb(const char *json)
{
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(json)));
}

/* fuzz_run(harness text, args text[]): never returns (libFuzzer exits) */
Datum
fuzz_run(PG_FUNCTION_ARGS)
{
	char *name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	ArrayType *arr = PG_GETARG_ARRAYTYPE_P(1);
	Datum *elems;
	int nelems;
	int argc;
	char **argv;
	int i;

	for (i = 0; i < lengthof(harnesses); i++)
		if (strcmp(harnesses[i].name, name) == 0)
			current = harnesses[i].fn;
	if (current == NULL)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("no fuzz harness \"%s\"", name)));

	deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &elems, NULL,
					  &nelems);
	argc = nelems + 1;
	argv = palloc0(sizeof(char *) * (argc + 1));
	argv[0] = psprintf("fuzz_%s", name);
	for (i = 0; i < nelems; i++)
		argv[i + 1] = TextDatumGetCString(elems[i]);

	input_cxt = AllocSetContextCreate(TopMemoryContext, "fuzz input",
									  ALLOCSET_DEFAULT_SIZES);
	PG_RETURN_INT32(LLVMFuzzerRunDriver(&argc, &argv, RunOne));
}

bool
FuzzTry(void (*fn)(void *arg), void *arg)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	bool ok = true;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		fn(arg);
		ReleaseCurrentSubTransaction();
	}
	PG_CATCH();
	{
		ErrorData *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		if (edata->sqlerrcode == ERRCODE_INTERNAL_ERROR)
		{
			fprintf(stderr, "fuzz: internal error (XX000): %s\n",
					edata->message);
			abort();
		}
		RollbackAndReleaseCurrentSubTransaction();
		ok = false;
	}
	PG_END_TRY();
	MemoryContextSwitchTo(cxt);
	CurrentResourceOwner = owner;
	return ok;
}
