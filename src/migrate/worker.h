/*-------------------------------------------------------------------------
 *
 * migrate/worker.h
 *	  The background worker of start_migration (worker.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_MIGRATE_WORKER_H
#define DOCMODEL_MIGRATE_WORKER_H

#include "postgres.h"

/* The worker's entry point (a dynamic background worker per run). */
extern PGDLLEXPORT void docmodel_migration_worker_main(Datum arg);

#endif /* DOCMODEL_MIGRATE_WORKER_H */
