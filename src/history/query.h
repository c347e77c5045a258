/*-------------------------------------------------------------------------
 *
 * history/query.h
 *	  Queries over history that a call per document makes cheap: the
 *	  prepared statement of get(coll, key, as_of) per collection.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_HISTORY_QUERY_H
#define DOCMODEL_HISTORY_QUERY_H

#include "fmgr.h"

/* Cache invalidation subscriber (init.c's dispatcher; no catalog access, no error). */
extern void DocmodelHistoryRelcache(Oid relid);

extern Datum history_get_as_of(PG_FUNCTION_ARGS);
extern Datum history_purge_expired(PG_FUNCTION_ARGS);

#endif /* DOCMODEL_HISTORY_QUERY_H */
