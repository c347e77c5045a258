/*-------------------------------------------------------------------------
 *
 * collection/locks.h
 *	  Locks and max_ttl, the rules of the row (locks.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_COLLECTION_LOCKS_H
#define DOCMODEL_COLLECTION_LOCKS_H

#include "compat.h"
#include "commands/trigger.h"
#include "utils/timestamp.h"

#include "collection/config.h"

/* The cas a KV call presents for its key while its statement runs. */
typedef struct DocmodelKvPresentState
{
	bool set;
	const char *key;
	int key_len;
	int64 cas;
} DocmodelKvPresentState;

extern DocmodelKvPresentState DocmodelKvPresent;

/* Raise 55P03 DocumentLocked: document key is locked until until. */
extern void DocmodelKvLocked(Oid relid, const char *key, int key_len,
							 TimestampTz until) pg_attribute_noreturn();

/*
 * The per-row rules of locks and max_ttl, applied by the collection trigger
 * to every write (nv/nn the new row, ov/on the stored one; NULL where there
 * is none).
 */
extern void DocmodelKvRowRules(TriggerData *td, const DocmodelCollection *cfg,
							   Datum *nv, bool *nn, Datum *ov, bool *on);

#endif /* DOCMODEL_COLLECTION_LOCKS_H */
