/*-------------------------------------------------------------------------
 *
 * kv.h
 *	  What the collection trigger takes from the key-value API (kv.c):
 *	  the per-row rules of Couchbase's locks and of a collection's max_ttl.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_KV_H
#define DOCMODEL_KV_H

#include "commands/trigger.h"

#include "collection.h"

/* The column of a collection holding its lock (see README, "Locks"). */
#define DOCMODEL_COLL_ATT_LOCKED 5

extern void DocmodelKvRowRules(TriggerData *td, const DocmodelCollection *cfg,
							   Datum *nv, bool *nn, Datum *ov, bool *on);

#endif /* DOCMODEL_KV_H */
