/*-------------------------------------------------------------------------
 *
 * docmodel.c
 *	  Module entry point: PG_MODULE_MAGIC, _PG_init and the docmodel.*
 *	  settings. Each concern registers its own cache callbacks lazily, on
 *	  first use, so nothing here needs to know about them.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/guc.h"

#include "docmodel.h"

PG_MODULE_MAGIC;

/* docmodel.actor: who writes, stamped as _createdBy/_modifiedBy. */
char *docmodel_actor = NULL;

void _PG_init(void);

/* Define the docmodel.* settings. */
void
_PG_init(void)
{
	DefineCustomStringVariable(
		"docmodel.actor",
		"Who is writing, stamped into _createdBy and _modifiedBy.",
		"When empty, session_user is stamped.", &docmodel_actor, "",
		PGC_USERSET, 0, NULL, NULL, NULL);

	MarkGUCPrefixReserved("docmodel");
}
