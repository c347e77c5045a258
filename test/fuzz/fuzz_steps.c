/*
 * fuzz_steps.c: the migration-step checker (src/migrate_steps.c), as
 * register_migration calls it: the input is the steps array as JSON text.
 */
#include "postgres.h"

#include "fmgr.h"
#include "mb/pg_wchar.h"

#include "fuzz.h"

extern Datum migration_check_steps(PG_FUNCTION_ARGS);

void
FuzzSteps(const uint8 *data, size_t size)
{
	char *str = FuzzCString(data, size);

	if (str == NULL || !pg_verifymbstr(str, size, true))
		return;
	DirectFunctionCall1(migration_check_steps, JsonbPGetDatum(FuzzJsonb(str)));
}
