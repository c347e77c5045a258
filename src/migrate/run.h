/*-------------------------------------------------------------------------
 *
 * migrate/run.h
 *	  Bulk runs: migrate_collection and migrate_tables (run.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_MIGRATE_RUN_H
#define DOCMODEL_MIGRATE_RUN_H

#include "fmgr.h"

/* SQL-callable. */
extern Datum migration_migrate_collection(PG_FUNCTION_ARGS);
extern Datum migration_migrate_tables(PG_FUNCTION_ARGS);

#endif /* DOCMODEL_MIGRATE_RUN_H */
