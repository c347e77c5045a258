/*-------------------------------------------------------------------------
 *
 * collection/locks.c
 *	  Locks (README, "Locks") and max_ttl as rules of the row, applied by
 *	  the collection trigger to every write (DocmodelKvRowRules), and the
 *	  cas a KV call presents for its key while its statement runs
 *	  (DocmodelKvPresent: set and restored around it by kv.c, also on
 *	  error), so the trigger lets that write through a lock.
 *
 * Backend-local state: DocmodelKvPresent. No catalog access per row.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "commands/trigger.h"
#include "utils/builtins.h"
#include "utils/rel.h"
#include "utils/timestamp.h"

#include "collection/cberror.h"
#include "collection/layout.h"
#include "collection/locks.h"

DocmodelKvPresentState DocmodelKvPresent;

/*
 * Raise 55P03 DocumentLocked: document key is locked until until (a
 * wall-clock time).
 */
void
DocmodelKvLocked(Oid relid, const char *key, int key_len, TimestampTz until)
{
	long secs;
	int usecs;

	TimestampDifference(GetCurrentTimestamp(), until, &secs, &usecs);
	ereport(ERROR,
			(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
			 errmsg("document \"%.*s\" is locked", key_len, key),
			 errdetail("Its lock (docmodel.get_and_lock) ends in %ld.%03d s, "
					   "at %s.",
					   secs, usecs / 1000, timestamptz_to_str(until)),
			 errhint("Write with the cas get_and_lock returned (which "
					 "unlocks), call docmodel.unlock(), or retry once the "
					 "lock has ended."),
			 DocmodelErrCollection(relid, "locked_until"),
			 errcouchbase("DocumentLocked")));
}

/*
 * The per-row rules of locks and max_ttl, applied by the collection trigger
 * to every write before anything else (also before its shortcuts for an
 * untouched or unchanged body). For an UPDATE, nv/nn are the new row and
 * ov/on the stored one; for a DELETE all four are NULL; for an INSERT
 * ov/on are NULL.
 *
 * A live lock (locked_until in the future, the document not expired)
 * refuses the write with 55P03 unless it carries the lock's cas: a KV call
 * presenting it (DocmodelKvPresent) or an UPDATE assigning it to the column cas.
 * An UPDATE that passes clears an ended or carried lock, unless it sets
 * locked_until itself (get_and_lock, unlock). An unlocked row costs one
 * null test. With max_ttl, a new expiry is bounded by it and none becomes
 * it (Couchbase's rules); without, nothing is done.
 */
void
DocmodelKvRowRules(TriggerData *td, const DocmodelCollection *cfg, Datum *nv,
				   bool *nn, Datum *ov, bool *on)
{
	const int L = DOCMODEL_COLL_ATT_LOCKED - 1;
	const int C = DOCMODEL_COLL_ATT_CAS - 1;
	const int E = DOCMODEL_COLL_ATT_EXPIRES - 1;
	TupleDesc desc = RelationGetDescr(td->tg_relation);
	Datum dv[DOCMODEL_COLL_ATT_LOCKED];
	bool dn[DOCMODEL_COLL_ATT_LOCKED];
	bool is_update = TRIGGER_FIRED_BY_UPDATE(td->tg_event);

	if (TRIGGER_FIRED_BY_DELETE(td->tg_event))
	{
		int i;

		if (!DocmodelHasOptionalColumn(td->tg_relation,
									   DOCMODEL_COLL_ATT_LOCKED))
			return;
		for (i = 0; i < DOCMODEL_COLL_ATT_LOCKED; i++)
			dv[i] = heap_getattr(td->tg_trigtuple, i + 1, desc, &dn[i]);
		ov = dv;
		on = dn;
	}
	/* an unlocked row (locked_until NULL) stops at the null test */
	if (ov != NULL && desc->natts >= DOCMODEL_COLL_ATT_LOCKED && !on[L] &&
		DocmodelHasOptionalColumn(td->tg_relation, DOCMODEL_COLL_ATT_LOCKED))
	{
		TimestampTz until = DatumGetTimestampTz(ov[L]);
		bool live = on[E] || DatumGetTimestampTz(ov[E]) >
								 GetCurrentTransactionStartTimestamp();
		text *key = DatumGetTextPP(ov[DOCMODEL_COLL_ATT_ID - 1]);
		int key_len = VARSIZE_ANY_EXHDR(key);
		int64 cas = on[C] ? 0 : DatumGetInt64(ov[C]);

		if (live && until > GetCurrentTimestamp())
		{
			bool carried =
				DocmodelKvPresent.set && DocmodelKvPresent.cas == cas &&
				DocmodelKvPresent.key_len == key_len &&
				memcmp(DocmodelKvPresent.key, VARDATA_ANY(key), key_len) == 0;

			if (!carried && is_update && !nn[C] &&
				DatumGetInt64(nv[C]) == cas &&
				bms_is_member(DOCMODEL_COLL_ATT_CAS -
								  FirstLowInvalidHeapAttributeNumber,
							  td->tg_updatedcols))
				carried = true;
			if (!carried)
				DocmodelKvLocked(RelationGetRelid(td->tg_relation),
								 VARDATA_ANY(key), key_len, until);
		}
		if (is_update && !bms_is_member(DOCMODEL_COLL_ATT_LOCKED -
											FirstLowInvalidHeapAttributeNumber,
										td->tg_updatedcols))
		{
			nv[L] = (Datum) 0;
			nn[L] = true;
		}
	}
	if (nv != NULL && cfg->max_ttl > 0)
	{
		TimestampTz bound = GetCurrentTransactionStartTimestamp() +
							(int64) cfg->max_ttl * USECS_PER_SEC;

		if (nn[E] || DatumGetTimestampTz(nv[E]) > bound)
		{
			nv[E] = TimestampTzGetDatum(bound);
			nn[E] = false;
		}
	}
}
