/*-------------------------------------------------------------------------
 *
 * copy/worker.h
 *	  The background worker that applies deferred copy rules (worker.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_COPY_WORKER_H
#define DOCMODEL_COPY_WORKER_H

#include "fmgr.h"

/*
 * The worker's settings, defined in _PG_init, and its registration when
 * docmodel is preloaded with a database set.
 */
extern void DocmodelCopyWorkerInit(void);

/* The worker's entry point (started by the postmaster by this name). */
extern PGDLLEXPORT void docmodel_copy_worker_main(Datum arg);

#endif /* DOCMODEL_COPY_WORKER_H */
