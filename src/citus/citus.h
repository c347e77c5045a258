/*-------------------------------------------------------------------------
 *
 * citus/citus.h
 *	  Scale-out on Citus (citus.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_CITUS_H
#define DOCMODEL_CITUS_H

#include "fmgr.h"

/*
 * Send the coordinator's collection configuration and
 * migration rules to the workers, in this transaction; the statement
 * triggers of those catalogs call it. Does nothing without Citus.
 */
extern void DocmodelCitusPush(void);
/* True on a Citus worker (counters refuse to run there). */
extern bool DocmodelCitusWorker(void);
/* True when relid is a Citus table (its statements go through Citus). */
extern bool DocmodelCitusTable(Oid relid);
/*
 * A write of one document by a KV call on a Citus table without a remote
 * transaction block, where the call is the whole statement: a GUC nest
 * level to pass to DocmodelCitusDone after the write, or -1.
 */
extern int DocmodelCitusAutocommit(FunctionCallInfo fcinfo);
extern void DocmodelCitusDone(int level);

#endif /* DOCMODEL_CITUS_H */
