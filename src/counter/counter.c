/*-------------------------------------------------------------------------
 *
 * counter/counter.c
 *	  Atomic counters that hand out IDs like sequences (README
 *	  "Counters"): count::user -> user::124. A counter is one row of
 *	  docmodel.counter_state, not a catalog object, so 100,000 per-parent
 *	  counters cost 100,000 small rows.
 *
 *	  Non-gapless counters change in place, outside MVCC, the way
 *	  sequence.c changes a sequence's tuple: the incrementer finds the row
 *	  through the primary key, takes the buffer's exclusive content lock
 *	  for a few instructions, writes the new value into the tuple and
 *	  releases the lock. No row lock is held to transaction end, so an
 *	  open transaction never blocks another incrementer, and a rolled-back
 *	  increment leaves a gap.
 *
 *	  Crash safety follows sequence.c's "log ahead" scheme. The row keeps
 *	  value (last value handed out) and reserved (a bound WAL-logged ahead
 *	  of value). When an increment leaves fewer than COUNTER_RENEW_LEFT
 *	  values below reserved, or the page has not been WAL-logged since the
 *	  last checkpoint, it sets reserved COUNTER_LOG_VALS above the new value
 *	  and writes an ordinary XLOG_HEAP_INPLACE record of the tuple (page
 *	  image and WAL image are the same, so full-page images and redo stay
 *	  standard); the other increments change value only in the buffer.
 *	  Every value handed out is <= a reserved whose record is flushed
 *	  before the value is returned (when synchronous_commit is on). Since a
 *	  reservation is renewed while some of it is left, the value is
 *	  normally covered by the previous, already flushed record: each
 *	  backend remembers the last reservations it saw on a counter with a
 *	  page LSN at or after their record, and waits only when none of them
 *	  is known flushed; the backend that wrote a record flushes it at once
 *	  (CounterMakeDurable). The first increment of a counter it creates
 *	  inserts the row already holding the value and a reservation, so the
 *	  value rests on the INSERT's WAL and lasts exactly when the creating
 *	  transaction commits. After a crash the replayed row may carry an old
 *	  value but always a reserved >= every value handed out, so the first
 *	  increment of a new server life continues above reserved: the row's
 *	  "life" column records the server life (postmaster start time and end
 *	  of crash recovery) in which reserved was last logged.
 *
 *	  Gapless counters are ordinary MVCC rows updated by a prepared
 *	  UPDATE: transactional, no gaps, writers serialize. A row is either
 *	  gapless or not for its whole life (counter_state_guard refuses other
 *	  UPDATEs), so in-place writes and MVCC updates never meet on a row.
 *
 *	  Shared state: the counter_state rows. Locking rule: an in-place
 *	  change holds the buffer's exclusive content lock from reading the
 *	  tuple to writing it (and its WAL record); readers hold the share
 *	  lock. Backend-local caches: the table and index OIDs, the privileges
 *	  checked, and where each counter's row was found (name -> TID, checked
 *	  on every use: block still in the relation, row visible, same name,
 *	  with the reservations last seen on that row, tied to its TID and xmin);
 *	  all reset by a relcache invalidation of counter_state; the privileges
 *	  also by any change of a role or a membership (docmodel.c dispatches
 *	  both to the subscribers here). Also this server life's id and the
 *	  prepared SPI plans.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/heapam_xlog.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/skey.h"
#include "access/table.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "access/xloginsert.h"
#include "access/xlogrecovery.h"
#include "catalog/namespace.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "common/int.h"
#include "commands/trigger.h"
#include "common/hashfn.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "collection/config.h"
#include "compat.h"
#include "docmodel.h"
#include "collection/key.h"
#include "counter/counter.h"
#include "citus/citus.h"

/*
 * How many values a reservation WAL-logs ahead (sequence.c's SEQ_LOG_VALS is
 * 32), and how many must be left before a new one is logged: the value
 * handed out is then still covered by the previous, older reservation, and
 * a record (one flush) is written per COUNTER_LOG_VALS - COUNTER_RENEW_LEFT
 * values.
 */
#define COUNTER_LOG_VALS 96
#define COUNTER_RENEW_LEFT 32

/* At most this many name -> TID entries are cached per backend. */
#define COUNTER_TID_CACHE_SIZE 1024

/* A reservation seen: reserved, and a page LSN at or after its WAL record. */
typedef struct CounterSeenRes
{
	int64 reserved;
	XLogRecPtr lsn;
} CounterSeenRes;

/* A cached location of a counter's row (validated on every use). */
typedef struct CounterTidEntry
{
	char name[DOCMODEL_MAX_KEY_BYTES + 1]; /* hash key */
	ItemPointerData tid;
	TransactionId xmin;     /* the row seen[] belong to (tid and xmin) */
	int nseen;              /* how many of seen[] are valid */
	CounterSeenRes seen[2]; /* this life's last two reservations seen */
} CounterTidEntry;

/* What an in-place change of a row saw and did (for its durability). */
typedef struct CounterChange
{
	ItemPointerData tid; /* the row changed */
	TransactionId xmin;  /* its raw xmin */
	bool own;            /* created by this (sub)transaction, uncommitted */
	bool wrote;          /* a reservation record was written */
	CounterSeenRes now;  /* reserved after the change, page LSN */
} CounterChange;

/* The fixed-width head of a counter_state tuple (no NULLs: all NOT NULL). */
typedef struct CounterRow
{
	int64 value;    /* last value handed out */
	int64 reserved; /* WAL-logged bound: value <= reserved */
	int64 life;     /* server life that logged reserved */
	bool gapless;   /* MVCC counter, never changed in place */
					/* name text follows */
} CounterRow;

/* What an in-place operation does to the value. */
typedef enum CounterOp
{
	COUNTER_READ,  /* read the current value */
	COUNTER_ADD,   /* value + arg */
	COUNTER_RAISE, /* greatest(value, arg) */
	COUNTER_SUB    /* greatest(value - arg, 0): decrement */
} CounterOp;

/* Outcome of looking a counter up. */
typedef enum CounterFound
{
	COUNTER_ABSENT,
	COUNTER_DONE,
	COUNTER_IS_GAPLESS,
	COUNTER_OVERFLOW
} CounterFound;

/* Backend-local caches (see banner). */
static Oid stateRelid = InvalidOid;
static Oid stateIndexid = InvalidOid;
static int64 serverLife = 0;
static XLogRecPtr knownFlushed = InvalidXLogRecPtr;
static HTAB *tidCache = NULL;
static Oid aclUser = InvalidOid;
static bool aclChecked = false; /* aclGranted and aclRls hold for aclUser */
static AclMode aclGranted = 0;
static bool aclRls = false; /* row-level security applies to aclUser */
static SPIPlanPtr planInsert = NULL;
static SPIPlanPtr planGapless[COUNTER_SUB + 1]; /* by CounterOp */
static SPIPlanPtr planDelete = NULL;

PG_FUNCTION_INFO_V1(counter_create);
PG_FUNCTION_INFO_V1(counter_incr);
PG_FUNCTION_INFO_V1(counter_decrement);
PG_FUNCTION_INFO_V1(counter_value);
PG_FUNCTION_INFO_V1(counter_advance);
PG_FUNCTION_INFO_V1(counter_drop);
PG_FUNCTION_INFO_V1(counter_next_id);
PG_FUNCTION_INFO_V1(counter_next_key);
PG_FUNCTION_INFO_V1(counter_keys);
PG_FUNCTION_INFO_V1(counter_next_key_in);
PG_FUNCTION_INFO_V1(counter_state_value);
PG_FUNCTION_INFO_V1(counter_state_guard);

/* Forget the cached OIDs when counter_state or its index changes. */
void
DocmodelCounterRelcache(Oid relid)
{
	if (relid == InvalidOid || relid == stateRelid || relid == stateIndexid)
	{
		stateRelid = InvalidOid;
		stateIndexid = InvalidOid;
		aclChecked = false;
		if (tidCache != NULL)
		{
			hash_destroy(tidCache);
			tidCache = NULL;
		}
	}
}

/*
 * Forget the privileges checked when any role's attributes (SUPERUSER,
 * BYPASSRLS) or any membership change: pg_authid or pg_auth_members.
 */
void
DocmodelCounterSyscache(int cacheid, uint32 hashvalue)
{
	aclChecked = false;
}

/*
 * Check that the current user holds mode on counter_state (SELECT to read a
 * counter, UPDATE to change one) and that no row-level security policy
 * applies to it there: the in-place access reads and writes the row
 * directly and could not honour one (0A000). Both verdicts are remembered
 * per user until counter_state's relcache entry is invalidated (GRANT,
 * REVOKE, ALTER TABLE ... ROW LEVEL SECURITY, CREATE POLICY) or a role or
 * membership changes (ALTER ROLE, GRANT role): see the subscribers above.
 */
static void
CounterCheckAcl(Oid relid, AclMode mode)
{
	Oid user = GetUserId();

	if (user != aclUser || !aclChecked)
	{
		aclUser = user;
		aclGranted = 0;
		aclChecked = true;
		aclRls = check_enable_rls(relid, InvalidOid, true) == RLS_ENABLED;
	}
	if ((aclGranted & mode) != mode)
	{
		if (pg_class_aclcheck(relid, user, mode) != ACLCHECK_OK)
			aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_TABLE, "counter_state");
		aclGranted |= mode;
	}
	if (aclRls)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("counters cannot be used while row-level security "
						"applies to docmodel.counter_state"),
				 errdetail("Role \"%s\" is subject to the row security "
						   "policies of docmodel.counter_state; counters are "
						   "changed in place and cannot honour them.",
						   GetUserNameFromId(user, false)),
				 errhint("Disable row level security on "
						 "docmodel.counter_state, or use a role that owns it "
						 "or has BYPASSRLS.")));
}

/* Find counter_state and its primary key index (cached per backend). */
static void
CounterResolve(Oid *relid, Oid *indexid)
{
	if (!OidIsValid(stateRelid) || !OidIsValid(stateIndexid))
	{
		Oid nsp = get_namespace_oid("docmodel", false);
		Oid r = get_relname_relid("counter_state", nsp);
		Oid i = get_relname_relid("counter_state_pkey", nsp);

		if (!OidIsValid(r) || !OidIsValid(i))
			elog(ERROR, "docmodel.counter_state or its primary key is missing");
		stateRelid = r;
		stateIndexid = i;
	}
	*relid = stateRelid;
	*indexid = stateIndexid;
}

/*
 * Return this server life's id: a hash of the postmaster's start time and
 * the end of the last crash recovery, so it changes with every restart and
 * every crash restart. 0 while in recovery (a standby has no stable life).
 */
static int64
CounterLife(void)
{
	if (serverLife == 0)
	{
		uint64 h;

		if (RecoveryInProgress())
			return 0;
		h = hash_combine64((uint64) PgStartTime,
						   (uint64) GetXLogReplayRecPtr(NULL));
		if (h == 0)
			h = 1;
		serverLife = (int64) h;
	}
	return serverLife;
}

/* Return the value a row stands for, seen from this server life. */
static int64
CounterCurrent(const CounterRow *row, int64 life)
{
	if (row->gapless || row->life == life)
		return row->value;
	/* reserved was logged in an earlier life: values up to it may be out */
	return Max(row->value, row->reserved);
}

/* Check a counter name against the key rules (22023, 22001). */
static void
CounterCheckName(text *name)
{
	DocmodelCheckKey(VARDATA_ANY(name), VARSIZE_ANY_EXHDR(name),
					 DOCMODEL_DEFAULT_DELIM, strlen(DOCMODEL_DEFAULT_DELIM),
					 true);
}

/*
 * Refuse writes where a sequence refuses them (read-only, standby), and on
 * a Citus worker.
 */
static void
CounterCheckWritable(const char *fn)
{
	PreventCommandIfReadOnly(fn);
	PreventCommandDuringRecovery(fn);
	/* a worker's counter_state would be a second sequence: repeats */
	if (DocmodelCitusWorker())
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot execute %s on a Citus worker", fn),
				 errdetail("Counters live on the coordinator; this node's "
						   "docmodel.counter_state would count apart."),
				 errhint("Call it on the coordinator.")));
}

/*
 * Make value, just handed out by the change chg, durable as a commit would
 * (synchronous_commit), then remember chg's reservation in e (the cache
 * entry of the row, or NULL).
 *
 * value is durable once the WAL record that logged some reservation >= value
 * in this server life is flushed. A page LSN seen together with reserved
 * under the buffer lock is at or after that record, so each (reserved, page
 * LSN) pair this backend saw on the row is such a witness; the oldest one
 * covering value waits least, and is normally flushed already, because
 * reservations are renewed COUNTER_RENEW_LEFT values early and the backend
 * that logs one flushes it at once. A row created by our own open transaction needs
 * no flush: it and its values last only if that transaction commits, and
 * the commit flushes its WAL.
 */
static void
CounterMakeDurable(CounterTidEntry *e, int64 value, const CounterChange *chg)
{
	XLogRecPtr need = chg->now.lsn;
	int i;

	if (chg->own)
		;
	else if (synchronous_commit > SYNCHRONOUS_COMMIT_OFF)
	{
		if (!chg->wrote && e != NULL)
			for (i = 0; i < e->nseen; i++)
				if (e->seen[i].reserved >= value && e->seen[i].lsn < need)
					need = e->seen[i].lsn;
		if (need > knownFlushed)
		{
			knownFlushed = GetFlushRecPtr(NULL);
			if (need > knownFlushed)
			{
				XLogFlush(need);
				knownFlushed = need;
			}
		}
	}
	else if (chg->wrote)
		XLogSetAsyncXactLSN(chg->now.lsn);

	if (e == NULL)
		return;
	/* the first sighting of a reservation has the smallest LSN: keep it */
	if (e->nseen > 0 && e->seen[e->nseen - 1].reserved == chg->now.reserved)
		return;
	if (e->nseen == lengthof(e->seen))
	{
		e->seen[0] = e->seen[1];
		e->nseen--;
	}
	e->seen[e->nseen++] = chg->now;
}

/* Whether the counter row tup is named verify (column 5). */
static bool
CounterNamed(Relation rel, HeapTuple tup, text *verify)
{
	bool isnull;
	text *stored = (text *) DatumGetPointer(
		heap_getattr(tup, 5, RelationGetDescr(rel), &isnull));

	return !isnull && VARSIZE_ANY_EXHDR(stored) == VARSIZE_ANY_EXHDR(verify) &&
		   memcmp(VARDATA_ANY(stored), VARDATA_ANY(verify),
				  VARSIZE_ANY_EXHDR(verify)) == 0;
}

/*
 * Store next as the value of counter row (tuple tup in buf, exclusively
 * locked) in place, WAL-logging a new reservation when one is due; return
 * whether it was logged.
 */
static bool
CounterStore(Relation rel, Buffer buf, HeapTuple tup, CounterRow *row,
			 int64 next, int64 life, CounterOp op)
{
	Page page;
	bool needlog;

	/*
	 * Log a new reservation in a new life, after a checkpoint (for the
	 * full-page image), and once fewer than COUNTER_RENEW_LEFT values are
	 * left: next is then still covered by the reservation logged before.
	 */
	page = BufferGetPage(buf);
	needlog = row->life != life || next > row->reserved - COUNTER_RENEW_LEFT ||
			  PageGetLSN(page) <= GetRedoRecPtr() || op == COUNTER_SUB;

	START_CRIT_SECTION();
	row->value = next;
	if (needlog)
	{
		int64 ahead;

		/* a decrement logs its value exactly: a crash must not undo it */
		if (op == COUNTER_SUB)
			ahead = next;
		else if (pg_add_s64_overflow(next, COUNTER_LOG_VALS, &ahead))
			ahead = PG_INT64_MAX;
		row->reserved = ahead;
		row->life = life;
	}
	MarkBufferDirty(buf);
	if (needlog && RelationNeedsWAL(rel))
	{
		xl_heap_inplace xlrec;
		XLogRecPtr recptr;

		DocmodelInplaceInit(xlrec, ItemPointerGetOffsetNumber(&tup->t_self));
		XLogBeginInsert();
		XLogRegisterData((char *) &xlrec, DocmodelSizeOfHeapInplace);
		XLogRegisterBuffer(0, buf, REGBUF_STANDARD);
		XLogRegisterBufData(0, (char *) tup->t_data + tup->t_data->t_hoff,
							tup->t_len - tup->t_data->t_hoff);
		recptr = XLogInsert(RM_HEAP_ID, XLOG_HEAP_INPLACE);
		PageSetLSN(page, recptr);
	}
	END_CRIT_SECTION();
	return needlog;
}

/*
 * Apply op to the counter row that tid (from the index or the TID cache)
 * leads to, under the buffer's content lock. Returns COUNTER_ABSENT when no
 * version of the HOT chain is visible to snapshot, or when verify is given
 * and the row found is not named verify. For a non-gapless row and a writing op,
 * the change is made in place (and WAL-logged ahead when needed) and *chg
 * describes it; a gapless row is only read.
 */
static CounterFound
CounterAtTid(Relation rel, ItemPointer tid, text *verify, Snapshot snapshot,
			 CounterOp op, int64 arg, int64 *result, bool *gapless,
			 CounterChange *chg)
{
	Buffer buf;
	HeapTupleData tup;
	bool all_dead;
	CounterRow *row;
	int64 life = CounterLife();
	int64 cur;
	int64 next;
	bool needlog;

	buf = ReadBuffer(rel, ItemPointerGetBlockNumber(tid));
	LockBuffer(buf,
			   op == COUNTER_READ ? BUFFER_LOCK_SHARE : BUFFER_LOCK_EXCLUSIVE);
	if (!heap_hot_search_buffer(tid, rel, buf, snapshot, &tup, &all_dead, true))
	{
		UnlockReleaseBuffer(buf);
		return COUNTER_ABSENT;
	}
	if (HeapTupleHasNulls(&tup) ||
		tup.t_len - tup.t_data->t_hoff < offsetof(CounterRow, gapless) + 1)
		elog(ERROR, "malformed docmodel.counter_state tuple");
	if (verify != NULL && !CounterNamed(rel, &tup, verify))
	{
		UnlockReleaseBuffer(buf);
		return COUNTER_ABSENT;
	}
	row = (CounterRow *) GETSTRUCT(&tup);
	*gapless = row->gapless;
	cur = CounterCurrent(row, life);
	if (op == COUNTER_READ || row->gapless)
	{
		*result = cur;
		UnlockReleaseBuffer(buf);
		return row->gapless && op != COUNTER_READ ? COUNTER_IS_GAPLESS
												  : COUNTER_DONE;
	}

	if (op == COUNTER_ADD)
	{
		if (pg_add_s64_overflow(cur, arg, &next))
		{
			UnlockReleaseBuffer(buf);
			return COUNTER_OVERFLOW;
		}
	}
	else if (op == COUNTER_SUB)
		next = cur > arg ? cur - arg : 0;
	else
		next = Max(cur, arg);

	needlog = CounterStore(rel, buf, &tup, row, next, life, op);

	*result = next;
	chg->tid = tup.t_self;
	chg->xmin = HeapTupleHeaderGetRawXmin(tup.t_data);
	chg->own = !HeapTupleHeaderXminCommitted(tup.t_data) &&
			   TransactionIdIsCurrentTransactionId(chg->xmin);
	chg->wrote = needlog;
	chg->now.reserved = row->reserved;
	chg->now.lsn = PageGetLSN(BufferGetPage(buf));
	UnlockReleaseBuffer(buf);
	return COUNTER_DONE;
}

/* Return the cache entry for name (creating the cache), or NULL. */
static CounterTidEntry *
CounterTidLookup(text *name, bool create)
{
	char key[DOCMODEL_MAX_KEY_BYTES + 1];
	int len = VARSIZE_ANY_EXHDR(name);
	bool found;
	CounterTidEntry *e;

	if (len > DOCMODEL_MAX_KEY_BYTES)
		return NULL;
	if (tidCache == NULL)
	{
		if (!create)
			return NULL;
		tidCache = DocmodelHash(
			"docmodel counter TIDs", 256, DOCMODEL_MAX_KEY_BYTES + 1,
			sizeof(CounterTidEntry), true, CacheMemoryContext);
	}
	memcpy(key, VARDATA_ANY(name), len);
	key[len] = '\0';
	if (create && hash_get_num_entries(tidCache) >= COUNTER_TID_CACHE_SIZE)
	{
		/* full: start over rather than track recency */
		hash_destroy(tidCache);
		tidCache = NULL;
		return CounterTidLookup(name, true);
	}
	e = hash_search(tidCache, key, create ? HASH_ENTER : HASH_FIND, &found);
	if (e != NULL && create && !found)
	{
		ItemPointerSetInvalid(&e->tid);
		e->xmin = InvalidTransactionId;
		e->nseen = 0;
	}
	return e;
}

/*
 * Look the counter up by name and apply op (see CounterAtTid): first at the
 * TID this backend found it at before (checked: the block still exists, the
 * row there is visible and has this name), else through the primary key.
 * Writers use SnapshotSelf (latest committed row, or our own); readers use
 * the active snapshot.
 */
static CounterFound
CounterAccess(text *name, CounterOp op, int64 arg, int64 *result, bool *gapless)
{
	Oid relid;
	Oid indexid;
	Relation rel;
	Snapshot snapshot;
	CounterFound found = COUNTER_ABSENT;
	CounterChange chg;
	CounterTidEntry *cached;

	CounterResolve(&relid, &indexid);
	CounterCheckAcl(relid, op == COUNTER_READ ? ACL_SELECT : ACL_UPDATE);
	rel = table_open(relid,
					 op == COUNTER_READ ? AccessShareLock : RowExclusiveLock);
	snapshot = op == COUNTER_READ ? GetActiveSnapshot() : SnapshotSelf;
	if (snapshot == NULL)
		snapshot = GetTransactionSnapshot();

	/*
	 * The cached TID's block may have been truncated away by VACUUM since it
	 * was cached (that needs AccessExclusiveLock, which our lock now keeps
	 * out), so check it against the relation's size before reading it.
	 */
	cached = CounterTidLookup(name, false);
	if (cached != NULL && ItemPointerIsValid(&cached->tid) &&
		ItemPointerGetBlockNumber(&cached->tid) <
			RelationGetNumberOfBlocks(rel))
	{
		ItemPointerData t = cached->tid;

		found = CounterAtTid(rel, &t, name, snapshot, op, arg, result, gapless,
							 &chg);
	}
	if (found == COUNTER_ABSENT)
	{
		Relation idx = index_open(indexid, AccessShareLock);
		IndexScanDesc scan;
		ScanKeyData key;
		ItemPointer tid;

		ScanKeyEntryInitialize(&key, 0, 1, BTEqualStrategyNumber, InvalidOid,
							   C_COLLATION_OID, F_TEXTEQ,
							   PointerGetDatum(name));
		scan = index_beginscan(rel, idx, snapshot, 1, 0);
		index_rescan(scan, &key, 1, NULL, 0);
		while ((tid = index_getnext_tid(scan, ForwardScanDirection)) != NULL)
		{
			ItemPointerData t = *tid;

			found = CounterAtTid(rel, &t, NULL, snapshot, op, arg, result,
								 gapless, &chg);
			if (found != COUNTER_ABSENT)
			{
				cached = CounterTidLookup(name, true);
				if (cached != NULL)
					cached->tid = t;
				break;
			}
		}
		index_endscan(scan);
		index_close(idx, AccessShareLock);
	}
	table_close(rel, NoLock);

	if (found == COUNTER_DONE && op != COUNTER_READ && !*gapless)
	{
		/* reservations seen count only on the row they were seen on */
		if (cached != NULL && (!ItemPointerEquals(&cached->tid, &chg.tid) ||
							   cached->xmin != chg.xmin))
		{
			cached->tid = chg.tid;
			cached->xmin = chg.xmin;
			cached->nseen = 0;
		}
		CounterMakeDurable(cached, *result, &chg);
	}
	return found;
}

/* Prepare (once) and run a plan on counter_state; return rows processed. */
static uint64
CounterRunPlan(SPIPlanPtr *plan, const char *sql, int nargs, Oid *types,
			   Datum *values, int64 *result)
{
	int rc;
	uint64 n;

	DocmodelSpiConnect();
	if (*plan == NULL)
	{
		SPIPlanPtr p = SPI_prepare(sql, nargs, types);

		if (p == NULL)
			elog(ERROR, "SPI_prepare failed for \"%s\": %s", sql,
				 SPI_result_code_string(SPI_result));
		SPI_keepplan(p);
		*plan = p;
	}
	rc = SPI_execute_plan(*plan, values, NULL, false, 0);
	if (rc < 0)
		elog(ERROR, "SPI_execute_plan failed for \"%s\": %s", sql,
			 SPI_result_code_string(rc));
	n = SPI_processed;
	if (n > 0 && result != NULL && SPI_tuptable != NULL)
	{
		bool isnull;
		Datum d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1,
								&isnull);

		*result = isnull ? 0 : DatumGetInt64(d);
	}
	SPI_finish();
	return n;
}

/*
 * Insert a counter row unless the name exists; return whether inserted.
 * taken says whether value was handed out already (the first increment of
 * a counter created by it): then the row is inserted with a reservation for
 * this server life, so the value rests on the INSERT's WAL and is durable
 * when the creating transaction commits, as a sequence created and used in
 * one transaction is; no in-place change or flush of its own follows.
 */
static bool
CounterInsert(text *name, int64 value, bool taken, bool gapless)
{
	Oid types[5] = {INT8OID, INT8OID, INT8OID, BOOLOID, TEXTOID};
	Datum values[5];
	int64 reserved = value;
	int64 life = 0;

	if (taken)
	{
		if (pg_add_s64_overflow(value, COUNTER_LOG_VALS, &reserved))
			reserved = PG_INT64_MAX;
		life = CounterLife();
	}
	values[0] = Int64GetDatum(value);
	values[1] = Int64GetDatum(reserved);
	values[2] = Int64GetDatum(life);
	values[3] = BoolGetDatum(gapless);
	values[4] = PointerGetDatum(name);
	return CounterRunPlan(&planInsert,
						  "INSERT INTO docmodel.counter_state "
						  "(value, reserved, life, gapless, name) "
						  "VALUES ($1, $2, $3, $4, $5) "
						  "ON CONFLICT (name) DO NOTHING",
						  5, types, values, NULL) > 0;
}

/*
 * Apply op (a writing one) to the gapless counter name by an MVCC UPDATE;
 * return false when no row was updated (dropped meanwhile).
 */
static bool
CounterGapless(text *name, CounterOp op, int64 arg, int64 *result)
{
	static const char *const sql[] = {
		[COUNTER_ADD] = "UPDATE docmodel.counter_state "
						"SET value = value OPERATOR(pg_catalog.+) $2, "
						"reserved = value OPERATOR(pg_catalog.+) $2 "
						"WHERE name OPERATOR(pg_catalog.=) $1 RETURNING value",
		[COUNTER_RAISE] =
			"UPDATE docmodel.counter_state "
			"SET value = GREATEST(value, $2), "
			"reserved = GREATEST(value, $2) "
			"WHERE name OPERATOR(pg_catalog.=) $1 RETURNING value",
		[COUNTER_SUB] =
			"UPDATE docmodel.counter_state "
			"SET value = GREATEST(value OPERATOR(pg_catalog.-) $2, 0), "
			"reserved = GREATEST(value OPERATOR(pg_catalog.-) $2, 0) "
			"WHERE name OPERATOR(pg_catalog.=) $1 RETURNING value"};
	Oid types[2] = {TEXTOID, INT8OID};
	Datum values[2];

	values[0] = PointerGetDatum(name);
	values[1] = Int64GetDatum(arg);
	return CounterRunPlan(&planGapless[op], sql[op], 2, types, values, result) >
		   0;
}

/* Raise P0002 for an absent counter. */
static void
CounterAbsent(text *name)
{
	ereport(ERROR,
			(errcode(ERRCODE_NO_DATA_FOUND),
			 errmsg("counter \"%s\" does not exist", text_to_cstring(name)),
			 errhint("Create it with docmodel.counter_create(), or pass "
					 "initial to docmodel.incr().")));
}

/* Raise 2200H when a counter would pass the largest bigint. */
static void
CounterOverflow(text *name, int64 arg)
{
	ereport(ERROR,
			(errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
			 errmsg("counter \"%s\" reached its maximum value",
					text_to_cstring(name)),
			 errdetail("Adding " INT64_FORMAT " would pass " INT64_FORMAT ".",
					   arg, PG_INT64_MAX)));
}

/*
 * Add delta to a counter (op COUNTER_ADD; COUNTER_SUB subtracts it, never
 * below 0) and return the new value. When it is absent and create is true,
 * create it (non-gapless) holding the value returned: start itself when
 * return_start (incr's and decrement's initial), else start + delta
 * (next_id). When absent and not create, raise P0002.
 */
static int64
CounterAdd(text *name, CounterOp op, int64 delta, bool create, int64 start,
		   bool return_start)
{
	int attempt;

	for (attempt = 0; attempt < 3; attempt++)
	{
		int64 result = 0;
		bool gapless = false;
		CounterFound found;

		found = CounterAccess(name, op, delta, &result, &gapless);
		if (found == COUNTER_DONE)
			return result;
		if (found == COUNTER_OVERFLOW)
			CounterOverflow(name, delta);
		if (found == COUNTER_IS_GAPLESS)
		{
			if (op == COUNTER_ADD && result > PG_INT64_MAX - delta)
				CounterOverflow(name, delta);
			if (CounterGapless(name, op, delta, &result))
				return result;
			continue; /* dropped meanwhile: absent */
		}
		/* absent */
		if (!create)
			CounterAbsent(name);
		if (return_start)
			result = start;
		else if (pg_add_s64_overflow(start, delta, &result))
			CounterOverflow(name, delta);
		if (CounterInsert(name, result, true, false))
			return result;
		/* created meanwhile by another session: increment that one */
	}
	CounterAbsent(name);
	return 0; /* keep the compiler quiet */
}

/* Return whether a key part contains the delimiter. */
static bool
CounterHasDelim(text *part)
{
	const char *d = VARDATA_ANY(part);
	int len = VARSIZE_ANY_EXHDR(part);
	int dlen = strlen(DOCMODEL_DEFAULT_DELIM);
	int i;

	for (i = 0; i + dlen <= len; i++)
		if (memcmp(d + i, DOCMODEL_DEFAULT_DELIM, dlen) == 0)
			return true;
	return false;
}

/*
 * Build count::[parents::]doc_type from next_id's arguments, checking every
 * part; set *prefix (when wanted) to doc_type::[parents::], the prefix of the
 * keys next_key and counter_keys return.
 */
static text *
CounterIdName(FunctionCallInfo fcinfo, char **prefix)
{
	StringInfoData parents;
	StringInfoData buf;
	text *doc_type;
	Datum *elems;
	bool *nulls;
	int n;
	int i;

	DocmodelRequireArg(fcinfo, 0, "doc_type");
	DocmodelRequireArg(fcinfo, 1, "parents");
	doc_type = PG_GETARG_TEXT_PP(0);
	initStringInfo(&parents);
	deconstruct_array(PG_GETARG_ARRAYTYPE_P(1), TEXTOID, -1, false,
					  TYPALIGN_INT, &elems, &nulls, &n);
	for (i = 0; i < n; i++)
	{
		text *p;

		if (nulls[i])
			ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
							errmsg("parent %d must not be null", i + 1)));
		p = DatumGetTextPP(elems[i]);
		if (CounterHasDelim(p))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid key part \"%s\"", text_to_cstring(p)),
					 errdetail("A key part may not contain the delimiter "
							   "\"%s\".",
							   DOCMODEL_DEFAULT_DELIM)));
		appendBinaryStringInfo(&parents, VARDATA_ANY(p), VARSIZE_ANY_EXHDR(p));
		appendStringInfoString(&parents, DOCMODEL_DEFAULT_DELIM);
	}
	if (CounterHasDelim(doc_type))
		ereport(
			ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid document type \"%s\"", text_to_cstring(doc_type)),
			 errdetail("A key part may not contain the delimiter \"%s\".",
					   DOCMODEL_DEFAULT_DELIM)));
	initStringInfo(&buf);
	appendStringInfo(&buf, "count%s%s%s", DOCMODEL_DEFAULT_DELIM, parents.data,
					 text_to_cstring(doc_type));
	DocmodelCheckKey(buf.data, buf.len, DOCMODEL_DEFAULT_DELIM,
					 strlen(DOCMODEL_DEFAULT_DELIM), true);
	if (prefix != NULL)
		*prefix = psprintf("%s%s%s", text_to_cstring(doc_type),
						   DOCMODEL_DEFAULT_DELIM, parents.data);
	return cstring_to_text_with_len(buf.data, buf.len);
}

/* Raise 22023 for a part of a key next_key_in() would build. */
static void
pg_attribute_noreturn() CounterBadPart(const char *what, const char *part,
									   const char *coll, const char *delim)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid %s \"%s\"", what, part),
			 errdetail("A key part of collection \"%s\" is not empty and "
					   "contains neither its delimiter \"%s\" nor \"%s\".",
					   coll, delim, DOCMODEL_DEFAULT_DELIM)));
}

/*
 * next_key_in's and counter_keys_in's arguments (coll, doc_type, VARIADIC
 * parents): the counter, count::[parents::]doc_type as next_id names it
 * (so next_key(doc_type, ...) and next_key_in(coll, doc_type, ...) share
 * it), and in *prefix the key up to its number in the layout of collection
 * coll: its delimiter; the type at part type_part, the parents around it
 * (parents first fill the parts before it); no type part when type_part is
 * 0. doc_type NULL: the collection's doc_type; one given must be it, or one
 * of a body-typed collection's types.
 */
static text *
CounterIdNameIn(FunctionCallInfo fcinfo, char **prefix)
{
	const DocmodelCollection *cfg;
	char *coll;
	char delim[DOCMODEL_MAX_DELIM_BYTES + 1];
	int type_part;
	char *doc_type;
	Datum *elems;
	bool *nulls;
	int n;
	int i;
	int k;
	StringInfoData name;
	StringInfoData key;

	DocmodelRequireArg(fcinfo, 0, "coll");
	DocmodelRequireArg(fcinfo, 2, "parents");
	cfg = DocmodelCollectionOf(PG_GETARG_OID(0));
	coll = get_rel_name(cfg->relid);
	if (coll == NULL)
		coll = "(dropped)";
	memcpy(delim, cfg->delim, cfg->delim_len);
	delim[cfg->delim_len] = '\0';
	type_part = cfg->type_part;
	if (!PG_ARGISNULL(1))
		doc_type = text_to_cstring(PG_GETARG_TEXT_PP(1));
	else if (cfg->has_doc_type)
		doc_type = pnstrdup(cfg->doc_type, cfg->doc_type_len);
	else
		ereport(
			ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("collection \"%s\" needs a doc_type for its keys", coll),
			 errdetail("It has no doc_type of its own."),
			 errhint("Give the type of the documents the keys are for.")));
	if (DOCMODEL_BODY_TYPED(cfg)
			? !DocmodelTypeAllowed(cfg, doc_type, strlen(doc_type))
			: (cfg->has_doc_type &&
			   !DocmodelSameType(cfg->type_check, doc_type, strlen(doc_type),
								 cfg->doc_type, cfg->doc_type_len)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("document type \"%s\" is not a type of collection "
						"\"%s\"",
						doc_type, coll)));
	if (doc_type[0] == '\0' || strstr(doc_type, delim) != NULL ||
		strstr(doc_type, DOCMODEL_DEFAULT_DELIM) != NULL)
		CounterBadPart("document type", doc_type, coll, delim);
	deconstruct_array(PG_GETARG_ARRAYTYPE_P(2), TEXTOID, -1, false,
					  TYPALIGN_INT, &elems, &nulls, &n);
	if (type_part > 1 && n < type_part - 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("collection \"%s\" needs %d parent%s before the "
						"type in its keys",
						coll, type_part - 1, type_part == 2 ? "" : "s"),
				 errdetail("Its keys hold the type in part %d.", type_part)));
	initStringInfo(&name);
	initStringInfo(&key);
	appendStringInfoString(&name, "count" DOCMODEL_DEFAULT_DELIM);
	for (i = 0, k = 1; i <= n; i++, k++)
	{
		char *p;

		CHECK_FOR_INTERRUPTS();
		if (k == type_part)
		{
			appendStringInfo(&key, "%s%s", doc_type, delim);
			if (i == n)
				break;
			k++;
		}
		if (i == n)
			break;
		if (nulls[i])
			ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
							errmsg("parent %d must not be null", i + 1)));
		p = TextDatumGetCString(elems[i]);
		if (p[0] == '\0' || strstr(p, delim) != NULL ||
			strstr(p, DOCMODEL_DEFAULT_DELIM) != NULL)
			CounterBadPart("key part", p, coll, delim);
		appendStringInfo(&key, "%s%s", p, delim);
		appendStringInfo(&name, "%s" DOCMODEL_DEFAULT_DELIM, p);
	}
	appendStringInfoString(&name, doc_type);
	DocmodelCheckKey(name.data, name.len, DOCMODEL_DEFAULT_DELIM,
					 strlen(DOCMODEL_DEFAULT_DELIM), true);
	/* the longest key it will make must be a key of the collection */
	appendStringInfoString(&key, "9223372036854775807");
	DocmodelCheckKey(key.data, key.len, delim, strlen(delim), true);
	key.data[key.len - 19] = '\0';
	*prefix = key.data;
	return cstring_to_text_with_len(name.data, name.len);
}

/* counter_create(name, start, gapless): create a counter; 23505 if it exists. */
Datum
counter_create(PG_FUNCTION_ARGS)
{
	text *name;
	int64 start;

	DocmodelRequireArg(fcinfo, 0, "counter name");
	DocmodelRequireArg(fcinfo, 1, "start");
	DocmodelRequireArg(fcinfo, 2, "gapless");
	name = PG_GETARG_TEXT_PP(0);
	start = PG_GETARG_INT64(1);
	CounterCheckName(name);
	CounterCheckWritable("docmodel.counter_create()");
	if (start < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("counter start must not be negative"),
				 errdetail("Counter \"%s\" was given start " INT64_FORMAT ".",
						   text_to_cstring(name), start)));
	if (!CounterInsert(name, start, false, PG_GETARG_BOOL(2)))
		ereport(
			ERROR,
			(errcode(ERRCODE_UNIQUE_VIOLATION),
			 errmsg("counter \"%s\" already exists", text_to_cstring(name)),
			 errhint("Use docmodel.counter_advance() to raise an existing "
					 "counter."),
			 err_generic_string(PG_DIAG_SCHEMA_NAME, "docmodel"),
			 err_generic_string(PG_DIAG_TABLE_NAME, "counter_state"),
			 err_generic_string(PG_DIAG_COLUMN_NAME, "name"),
			 err_generic_string(PG_DIAG_CONSTRAINT_NAME, "counter_state_pkey"),
			 err_generic_string(PG_DIAG_DATATYPE_NAME, "DocumentExists")));
	PG_RETURN_VOID();
}

/*
 * Run incr (op COUNTER_ADD) or decrement (COUNTER_SUB): (name, delta,
 * initial) -> the new value; an absent counter is created at initial, which
 * is returned, or P0002 without initial.
 */
static Datum
CounterIncrDecr(FunctionCallInfo fcinfo, CounterOp op)
{
	text *name;
	int64 delta;
	bool has_initial = !PG_ARGISNULL(2);
	int64 initial = has_initial ? PG_GETARG_INT64(2) : 0;

	DocmodelRequireArg(fcinfo, 0, "counter name");
	DocmodelRequireArg(fcinfo, 1, "delta");
	name = PG_GETARG_TEXT_PP(0);
	delta = PG_GETARG_INT64(1);
	CounterCheckName(name);
	if (delta < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("counter delta must not be negative"),
				 errdetail("Counter \"%s\" was given delta " INT64_FORMAT ".",
						   text_to_cstring(name), delta),
				 op == COUNTER_ADD
					 ? errhint("Counters only go up; a delta of 0 reads the "
							   "value.")
					 : errhint("docmodel.decrement() subtracts delta; use "
							   "docmodel.incr() to add.")));
	if (initial < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("counter initial value must not be negative"),
				 errdetail("Counter \"%s\" was given initial " INT64_FORMAT ".",
						   text_to_cstring(name), initial)));
	CounterCheckWritable(op == COUNTER_ADD ? "docmodel.incr()"
										   : "docmodel.decrement()");
	PG_RETURN_INT64(CounterAdd(name, op, delta, has_initial, initial, true));
}

/* incr(name, delta, initial): add delta >= 0 and return the new value. */
Datum
counter_incr(PG_FUNCTION_ARGS)
{
	return CounterIncrDecr(fcinfo, COUNTER_ADD);
}

/*
 * decrement(name, delta, initial): subtract delta >= 0, never below 0, and
 * return the new value (Couchbase's decrement).
 */
Datum
counter_decrement(PG_FUNCTION_ARGS)
{
	return CounterIncrDecr(fcinfo, COUNTER_SUB);
}

/* counter_value(name): the current value, NULL when absent. */
Datum
counter_value(PG_FUNCTION_ARGS)
{
	text *name = PG_GETARG_TEXT_PP(0);
	int64 result = 0;
	bool gapless = false;

	CounterCheckName(name);
	if (CounterAccess(name, COUNTER_READ, 0, &result, &gapless) != COUNTER_DONE)
		PG_RETURN_NULL();
	PG_RETURN_INT64(result);
}

/* counter_advance(name, at_least): raise to at least at_least, never lower. */
Datum
counter_advance(PG_FUNCTION_ARGS)
{
	text *name;
	int64 at_least;
	int64 result = 0;
	bool gapless = false;
	CounterFound found;

	DocmodelRequireArg(fcinfo, 0, "counter name");
	DocmodelRequireArg(fcinfo, 1, "at_least");
	name = PG_GETARG_TEXT_PP(0);
	at_least = PG_GETARG_INT64(1);
	CounterCheckName(name);
	CounterCheckWritable("docmodel.counter_advance()");
	found = CounterAccess(name, COUNTER_RAISE, at_least, &result, &gapless);
	if (found == COUNTER_IS_GAPLESS)
		found = CounterGapless(name, COUNTER_RAISE, at_least, &result)
					? COUNTER_DONE
					: COUNTER_ABSENT;
	if (found != COUNTER_DONE)
		CounterAbsent(name);
	PG_RETURN_INT64(result);
}

/* counter_drop(name): delete a counter; P0002 when absent. */
Datum
counter_drop(PG_FUNCTION_ARGS)
{
	text *name;
	Oid types[1] = {TEXTOID};
	Datum values[1];

	DocmodelRequireArg(fcinfo, 0, "counter name");
	name = PG_GETARG_TEXT_PP(0);
	CounterCheckName(name);
	CounterCheckWritable("docmodel.counter_drop()");
	values[0] = PointerGetDatum(name);
	if (CounterRunPlan(&planDelete,
					   "DELETE FROM docmodel.counter_state "
					   "WHERE name OPERATOR(pg_catalog.=) $1",
					   1, types, values, NULL) == 0)
		CounterAbsent(name);
	PG_RETURN_VOID();
}

/* next_id(doc_type, VARIADIC parents): increment count::[parents::]doc_type. */
Datum
counter_next_id(PG_FUNCTION_ARGS)
{
	text *name = CounterIdName(fcinfo, NULL);

	CounterCheckWritable("docmodel.next_id()");
	PG_RETURN_INT64(CounterAdd(name, COUNTER_ADD, 1, true, 0, false));
}

/* next_key(doc_type, VARIADIC parents): doc_type::[parents::]next_id. */
Datum
counter_next_key(PG_FUNCTION_ARGS)
{
	char *prefix;
	text *name = CounterIdName(fcinfo, &prefix);
	int64 id;

	CounterCheckWritable("docmodel.next_key()");
	id = CounterAdd(name, COUNTER_ADD, 1, true, 0, false);
	PG_RETURN_TEXT_P(cstring_to_text(psprintf("%s" INT64_FORMAT, prefix, id)));
}

/*
 * next_key_in(coll, doc_type, VARIADIC parents): the next key in the
 * layout of collection coll (see CounterIdNameIn), from next_id's counter.
 */
Datum
counter_next_key_in(PG_FUNCTION_ARGS)
{
	char *prefix;
	text *name = CounterIdNameIn(fcinfo, &prefix);
	int64 id;

	CounterCheckWritable("docmodel.next_key_in()");
	id = CounterAdd(name, COUNTER_ADD, 1, true, 0, false);
	PG_RETURN_TEXT_P(cstring_to_text(psprintf("%s" INT64_FORMAT, prefix, id)));
}

/* State of a counter_keys scan. */
typedef struct CounterKeysState
{
	char *prefix;
	int64 last;
} CounterKeysState;

/*
 * The most keys counter_keys returns: past it a counter's range is refused
 * (54000) rather than streamed to a client that collects it (get_multi's
 * ARRAY(SELECT ...)). See doc/counters.md.
 */
#define COUNTER_KEYS_MAX 1000000

/* counter_keys(doc_type, VARIADIC parents): every key from 1 to the value. */
Datum
counter_keys(PG_FUNCTION_ARGS)
{
	FuncCallContext *funcctx;
	CounterKeysState *st;

	if (SRF_IS_FIRSTCALL())
	{
		MemoryContext old;
		text *name;
		int64 value = 0;
		bool gapless = false;

		funcctx = SRF_FIRSTCALL_INIT();
		old = MemoryContextSwitchTo(funcctx->multi_call_memory_ctx);
		st = palloc(sizeof(CounterKeysState));
		/* counter_keys_in(coll, doc_type, parents): coll's layout */
		name = PG_NARGS() == 3 ? CounterIdNameIn(fcinfo, &st->prefix)
							   : CounterIdName(fcinfo, &st->prefix);
		MemoryContextSwitchTo(old);
		if (CounterAccess(name, COUNTER_READ, 0, &value, &gapless) !=
			COUNTER_DONE)
			value = 0;
		if (value > COUNTER_KEYS_MAX)
			ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
							errmsg("counter \"%s\" has too many keys to list",
								   text_to_cstring(name)),
							errdetail("Its value is " INT64_FORMAT
									  "; counter_keys lists at most %d keys.",
									  value, COUNTER_KEYS_MAX),
							errhint("List a range of keys yourself, e.g. "
									"'%s' || generate_series(lo, hi).",
									st->prefix)));
		st->last = value;
		funcctx->user_fctx = st;
	}
	funcctx = SRF_PERCALL_SETUP();
	st = funcctx->user_fctx;
	if ((int64) funcctx->call_cntr < st->last)
	{
		/* SRF_RETURN_NEXT advances call_cntr before it evaluates its value */
		text *key = cstring_to_text(psprintf("%s" INT64_FORMAT, st->prefix,
											 (int64) funcctx->call_cntr + 1));

		SRF_RETURN_NEXT(funcctx, PointerGetDatum(key));
	}
	SRF_RETURN_DONE(funcctx);
}

/*
 * counter_state_value(value, reserved, life, gapless): the value a raw
 * counter_state row stands for in this server life (the view's column).
 */
Datum
counter_state_value(PG_FUNCTION_ARGS)
{
	CounterRow row;

	row.value = PG_GETARG_INT64(0);
	row.reserved = PG_GETARG_INT64(1);
	row.life = PG_GETARG_INT64(2);
	row.gapless = PG_GETARG_BOOL(3);
	PG_RETURN_INT64(CounterCurrent(&row, CounterLife()));
}

/*
 * counter_state_guard(): BEFORE UPDATE trigger on counter_state. Only a
 * gapless row may be updated (non-gapless rows change in place, which an
 * MVCC update would race with), and name and gapless never change.
 */
Datum
counter_state_guard(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;
	TupleDesc desc;
	HeapTuple oldtup;
	HeapTuple newtup;
	bool isnull;
	bool oldgapless;
	Datum oldname;
	Datum newname;

	if (!CALLED_AS_TRIGGER(fcinfo) ||
		!TRIGGER_FIRED_BY_UPDATE(trigdata->tg_event) ||
		!TRIGGER_FIRED_FOR_ROW(trigdata->tg_event))
		DocmodelTriggerMisuse("counter_state_guard", "a row trigger on UPDATE");
	desc = trigdata->tg_relation->rd_att;
	oldtup = trigdata->tg_trigtuple;
	newtup = trigdata->tg_newtuple;
	oldgapless = DatumGetBool(heap_getattr(oldtup, 4, desc, &isnull));
	oldname = heap_getattr(oldtup, 5, desc, &isnull);
	newname = heap_getattr(newtup, 5, desc, &isnull);
	if (!oldgapless)
		ereport(
			ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("counter \"%s\" is not gapless and cannot be updated",
					TextDatumGetCString(oldname)),
			 errdetail("A non-gapless counter changes in place, outside "
					   "transactions."),
			 errhint("Use docmodel.incr() or docmodel.counter_advance().")));
	if (isnull ||
		!DatumGetBool(DirectFunctionCall2Coll(texteq, C_COLLATION_OID, oldname,
											  newname)) ||
		DatumGetBool(heap_getattr(newtup, 4, desc, &isnull)) != oldgapless)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot change the name or kind of counter \"%s\"",
						TextDatumGetCString(oldname))));
	return PointerGetDatum(newtup);
}
