/*-------------------------------------------------------------------------
 *
 * history/revision.c
 *	  Document revisions (README, "Revisions"): the per-row history
 *	  writer that the collection trigger calls after an UPDATE or DELETE
 *	  really happened (diff and patch are in json/patch.c).
 *
 *	  Shared state: none between backends. The history writer takes its
 *	  configuration from collection/config.c's cache (copied to the stack per
 *	  call, as that cache asks) and opens the
 *	  history table by OID on every call. The only backend-local static is
 *	  PkeyInfo, the IndexInfo of an (id, ver) btree, built once in
 *	  TopMemoryContext and never changed. Writers of one key are serialized
 *	  by the row lock on its collection row; an insert of a key, which has
 *	  no row to lock yet, first waits for the key's deleters
 *	  (WaitForKeyWriters).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "funcapi.h"
#include "catalog/index.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/executor.h"
#include "executor/nodeModifyTable.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "rewrite/rewriteHandler.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/fmgroids.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "collection/config.h"
#include "collection/fields.h"
#include "json/util.h"
#include "compat.h"
#include "docmodel.h"
#include "history/revision.h"
#include "json/patch.h"
#include "collection/layout.h"
#include "collection/stamp.h"

/* ------------------------------------------------------------------------
 * History
 *
 * A collection with revisions has a history table <name>_revisions(id,
 * ver, op, changed_at, changed_by, doc) with PRIMARY KEY (id, ver), found
 * by the OID in the collection's configuration (never by name). Revision v
 * of a key holds the body that had _ver v, and op says what ended it:
 * 'update', 'delete', 'expire' (written over after its expiry) or
 * 'truncate'. After revision N is written, revisions <= N - keep of that
 * key are deleted.
 *
 * The collection trigger calls in here: DocmodelRevisionTrigger() for the
 * AFTER INSERT OR UPDATE OR DELETE row event and the BEFORE TRUNCATE statement event,
 * and DocmodelRevisionFirstVer() for the _ver of a new document. History is
 * written straight into the heap and its indexes (no SPI, no planning); the
 * history table's own triggers and rules do not fire, and a writer of the
 * collection needs no privilege on it. Columns a user added to the history
 * table get their defaults (or NULL), and its NOT NULL and CHECK constraints
 * hold, as for an INSERT (HistoryOpen chooses the executor path then).
 *
 * meta_style 'columns' (collection/columns.c): the history table has the
 * stamp columns created_at, modified_at, created_by and modified_by too
 * (found by name, DocmodelHistoryStampColumns; its own ver is the
 * revision's _ver), doc holds the body as the collection stored it, and
 * a revision carries the stamp columns of the row it files. The readers
 * (revisions, get_revision: sql/parts/50_revisions.sql) merge them with
 * docmodel._document, so they return what the other styles store.
 * Writers of one key are serialized by the row lock on the collection row
 * (an insert, by WaitForKeyWriters), so history of one key is written by
 * one transaction at a time.
 * ------------------------------------------------------------------------
 */

/* Column numbers of a history table. */
#define REV_ATT_ID 1
#define REV_ATT_VER 2
#define REV_ATT_OP 3
#define REV_ATT_AT 4
#define REV_ATT_BY 5
#define REV_ATT_DOC 6

/* An open history table, ready to take revisions. */
typedef struct HistoryWriter
{
	Relation rel;
	Relation pkey;            /* its (id, ver) primary key index */
	bool fast;                /* a heap whose one index is pkey, without
							   * added columns or CHECKs: no executor */
	ExprState **defaults;     /* when !fast: per column, its default or NULL */
	bool constrained;         /* when !fast: CHECK or generated columns */
	EState *estate;           /* when !fast */
	ResultRelInfo *rri;       /* when !fast */
	TupleTableSlot *slot;     /* for inserts, when !fast */
	TupleTableSlot *scanslot; /* for the pruning scan, made on first use */
	MemoryContext cxt;        /* where HistoryOpen ran: the slots live here */
	int32 keep;
	Datum who;
	Datum at;
	const AttrNumber *stamps; /* meta_style 'columns': the history's stamp
							   * columns (DocmodelStampColumn), else NULL */
	AttrNumber paths;         /* its column paths (text[]), else 0 */
	Relation pathsidx;        /* fast path: the GIN index on paths, or NULL */
	IndexInfo *pathsinfo;     /* its IndexInfo */
	bool aged;                /* keep_for: prune only revisions older */
	TimestampTz cutoff;       /* than this */
	Datum keys;               /* the next revision's paths (0: the root's) */
} HistoryWriter;

/*
 * The stamps a revision files (meta_style 'columns'), indexed by
 * DocmodelStampColumn; the ver entry is unused (the revision's own ver).
 */
typedef struct RevisionStamps
{
	Datum v[DOCMODEL_STAMP_NCOLUMNS];
	bool n[DOCMODEL_STAMP_NCOLUMNS];
} RevisionStamps;

/* Is attnum (from 1) one of the stamp columns stamps (NULL: none)? */
static bool
IsStampColumn(const AttrNumber *stamps, int attnum)
{
	int i;

	for (i = 0; stamps != NULL && i < DOCMODEL_STAMP_NCOLUMNS; i++)
		if (stamps[i] == attnum)
			return true;
	return false;
}

/*
 * The column paths of a history table: text[], the keys of the pointers
 * the change that ended each revision touched (DocmodelJsonDiffKeys), for
 * path_history's GIN index; 0 when the table has none (set_revisions adds
 * it).
 */
static AttrNumber
HistoryPathsColumn(TupleDesc desc)
{
	int i;

	for (i = REV_ATT_DOC; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (!att->attisdropped && att->atttypid == TEXTARRAYOID &&
			strcmp(NameStr(att->attname), "paths") == 0)
			return i + 1;
	}
	return 0;
}

/*
 * The index of indexes other than pkey, opened, when it is a GIN index on
 * the paths column alone (no expression, no predicate), else NULL.
 */
static Relation
HistoryPathsIndex(List *indexes, Oid pkey, AttrNumber paths)
{
	ListCell *lc;

	foreach (lc, indexes)
	{
		Relation idx;

		if (lfirst_oid(lc) == pkey)
			continue;
		idx = index_open(lfirst_oid(lc), RowExclusiveLock);
		if (idx->rd_rel->relam == GIN_AM_OID && idx->rd_index->indnatts == 1 &&
			idx->rd_index->indkey.values[0] == paths &&
			RelationGetIndexExpressions(idx) == NIL &&
			RelationGetIndexPredicate(idx) == NIL)
			return idx;
		index_close(idx, NoLock);
	}
	return NULL;
}

/* IndexInfo of every (id, ver) primary key, built once (fast path). */
static IndexInfo *PkeyInfo = NULL;

/*
 * Open the history table relid and its primary key; raise 42P01 when it
 * is gone, 55000 or 42804 when a column was dropped or changed, and 22023
 * when it lost its primary key.
 */
static Relation
HistoryOpenRel(const DocmodelCollection *cfg, LOCKMODE mode, Relation *pkey)
{
	Relation rel = try_table_open(cfg->revisions_relid, mode);
	Oid pk;

	if (rel == NULL)
		ereport(
			ERROR,
			(errcode(ERRCODE_UNDEFINED_TABLE),
			 errmsg("the revisions table of collection \"%s\" does not exist",
					get_rel_name(cfg->relid) ? get_rel_name(cfg->relid) : "?"),
			 errdetail("The collection's configuration names a table that "
					   "was dropped."),
			 errhint("Call docmodel.set_revisions() to create a new one, "
					 "or with 0 to turn history off.")));
	/* columns: 55000 or 42804 naming the column (cached per relcache entry) */
	DocmodelCheckLayout(rel, DOCMODEL_LAYOUT_HISTORY);
	pk = RelationGetPrimaryKeyIndex(rel);
	if (rel->rd_rel->relkind != RELKIND_RELATION || !OidIsValid(pk))
		ereport(
			ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("table \"%s\" does not have the layout of a docmodel "
					"revisions table",
					RelationGetRelationName(rel)),
			 errdetail("A revisions table is (id text, ver integer, op text, "
					   "changed_at timestamptz, changed_by text, doc jsonb, "
					   "PRIMARY KEY (id, ver)).")));
	*pkey = index_open(pk, mode);
	if ((*pkey)->rd_index->indnkeyatts != 2 ||
		(*pkey)->rd_index->indkey.values[0] != REV_ATT_ID ||
		(*pkey)->rd_index->indkey.values[1] != REV_ATT_VER)
		ereport(
			ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg(
				 "the primary key of revisions table \"%s\" is not (id, ver)",
				 RelationGetRelationName(rel))));
	return rel;
}

/*
 * Whether w takes the fast path (w->fast): a heap whose indexes are its
 * primary key and at most the path index (opened into w->pathsidx),
 * without added columns (added) or CHECKs.
 */
static void
HistoryChoosePath(HistoryWriter *w, bool added)
{
	List *indexes = RelationGetIndexList(w->rel);

	w->pathsidx = NULL;
	w->fast = !added && !w->constrained &&
			  w->rel->rd_rel->relam == HEAP_TABLE_AM_OID &&
			  w->pkey->rd_rel->relam == BTREE_AM_OID;
	/* the fast path takes the path index too (set_revisions' own) */
	if (w->fast && list_length(indexes) == 2 && w->paths > 0)
		w->pathsidx =
			HistoryPathsIndex(indexes, RelationGetRelid(w->pkey), w->paths);
	if (w->pathsidx != NULL)
		w->pathsinfo = BuildIndexInfo(w->pathsidx);
	else
		w->fast = w->fast && list_length(indexes) == 1;
	list_free(indexes);
}

/*
 * Open the history table of cfg for writing revisions. A plain heap whose
 * indexes are the primary key and at most the GIN index of paths takes the
 * fast path: heap_insert and index_insert directly, no executor state. Any
 * other index (a user may add some) goes through ExecInsertIndexTuples.
 */
static void
HistoryOpen(HistoryWriter *w, const DocmodelCollection *cfg)
{
	TupleDesc desc;
	TupleConstr *constr;
	bool added = false;
	int i;

	w->rel = HistoryOpenRel(cfg, RowExclusiveLock, &w->pkey);
	w->keep = cfg->revisions;
	/* 55000 or 42804 naming the column when one is missing or changed */
	w->stamps = cfg->columns ? DocmodelHistoryStampColumns(w->rel) : NULL;
	desc = RelationGetDescr(w->rel);
	/* Foreign keys are checked by triggers, which history writes skip. */
	if (w->rel->rd_rel->relhastriggers && RelationGetFKeyList(w->rel) != NIL)
	{
		ForeignKeyCacheInfo *fk = linitial(RelationGetFKeyList(w->rel));

		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("revisions table \"%s\" has a foreign key",
						RelationGetRelationName(w->rel)),
				 errdetail("Constraint \"%s\" would be checked by a trigger; "
						   "docmodel writes history without firing triggers.",
						   get_constraint_name(fk->conoid)),
				 errhint("Drop the foreign key, or check the values with a "
						 "CHECK constraint.")));
	}
	constr = desc->constr;
	w->paths = HistoryPathsColumn(desc);
	w->keys = (Datum) 0;
	/* (the stamp and paths columns are docmodel's own, not added ones) */
	for (i = REV_ATT_DOC; i < desc->natts; i++)
		if (!TupleDescAttr(desc, i)->attisdropped &&
			!IsStampColumn(w->stamps, i + 1) && i + 1 != w->paths)
			added = true;
	w->constrained = constr != NULL &&
					 (constr->num_check > 0 || constr->has_generated_stored);
	HistoryChoosePath(w, added);
	w->scanslot = NULL;
	w->cxt = CurrentMemoryContext;
	if (w->fast)
	{
		if (PkeyInfo == NULL)
		{
			MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

			PkeyInfo = makeIndexInfo(2, 2, BTREE_AM_OID, NIL, NIL, true, false,
									 true, false);
			PkeyInfo->ii_IndexAttrNumbers[0] = REV_ATT_ID;
			PkeyInfo->ii_IndexAttrNumbers[1] = REV_ATT_VER;
			MemoryContextSwitchTo(old);
		}
		w->estate = NULL;
		w->rri = NULL;
		w->slot = NULL;
	}
	else
	{
		RangeTblEntry *rte = makeNode(RangeTblEntry);

		/* A range table of the one relation, for ExecConstraints' errors. */
		rte->rtekind = RTE_RELATION;
		rte->relid = RelationGetRelid(w->rel);
		rte->relkind = w->rel->rd_rel->relkind;
		rte->rellockmode = RowExclusiveLock;
		w->estate = CreateExecutorState();
		DocmodelInitRangeTable(w->estate, rte, 0, NULL);
		w->rri = makeNode(ResultRelInfo);
		InitResultRelInfo(w->rri, w->rel, 1, NULL, 0);
		ExecOpenIndices(w->rri, false);
		w->slot = table_slot_create(w->rel, NULL);
		/* Added columns: their defaults, as an INSERT omitting them gets. */
		w->defaults = palloc0(sizeof(ExprState *) * desc->natts);
		for (i = REV_ATT_DOC; i < desc->natts; i++)
		{
			Form_pg_attribute att = TupleDescAttr(desc, i);
			Node *expr;

			if (att->attisdropped || att->attgenerated ||
				IsStampColumn(w->stamps, i + 1) || i + 1 == w->paths)
				continue;
			expr = build_column_default(w->rel, i + 1);
			if (expr != NULL)
				w->defaults[i] = ExecPrepareExpr((Expr *) expr, w->estate);
		}
	}
	w->aged = cfg->has_keep_for;
	if (w->aged)
		w->cutoff = DatumGetTimestampTz(DirectFunctionCall2(
			timestamptz_mi_interval,
			TimestampTzGetDatum(GetCurrentTransactionStartTimestamp()),
			IntervalPGetDatum(&cfg->keep_for)));
	w->who = CStringGetTextDatum(DocmodelWho());
	w->at = TimestampTzGetDatum(GetCurrentTransactionStartTimestamp());
}

/* Close what HistoryOpen opened (locks are kept to the end of transaction). */
static void
HistoryClose(HistoryWriter *w)
{
	if (w->scanslot != NULL)
		ExecDropSingleTupleTableSlot(w->scanslot);
	if (!w->fast)
	{
		ExecDropSingleTupleTableSlot(w->slot);
		ExecCloseIndices(w->rri);
		FreeExecutorState(w->estate);
	}
	if (w->pathsidx != NULL)
		index_close(w->pathsidx, NoLock);
	index_close(w->pkey, NoLock);
	table_close(w->rel, NoLock);
}

/* Initialize the scan keys id = key [AND ver <= upto] on the primary key. */
static int
HistoryKeys(Relation pkey, ScanKeyData *sk, Datum id, int32 upto)
{
	ScanKeyEntryInitialize(&sk[0], 0, 1, BTEqualStrategyNumber, InvalidOid,
						   pkey->rd_indcollation[0], F_TEXTEQ, id);
	if (upto == PG_INT32_MAX)
		return 1;
	ScanKeyEntryInitialize(&sk[1], 0, 2, BTLessEqualStrategyNumber, InvalidOid,
						   InvalidOid, F_INT4LE, Int32GetDatum(upto));
	return 2;
}

/*
 * Delete the revisions of key id numbered upto or less. With newtup (fast
 * path only), turn the first of them into newtup instead (heap_update: the
 * row's space is reused, no new page) and return true; return false when
 * there was none to recycle.
 */
static bool
HistoryPrune(HistoryWriter *w, Datum id, int32 upto, HeapTuple newtup)
{
	ScanKeyData sk[2];
	int nkeys = HistoryKeys(w->pkey, sk, id, upto);
	IndexScanDesc scan;
	Snapshot snap;
	bool recycled = false;

	if (w->scanslot == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(w->cxt);

		w->scanslot = table_slot_create(w->rel, NULL);
		MemoryContextSwitchTo(old);
	}
	/*
	 * A fresh MVCC snapshot: what others committed by now (whatever the
	 * statement's snapshot is) and what this transaction wrote in earlier
	 * commands; not rows of the current command, which heap_update and
	 * heap_delete could not take.
	 */
	snap = RegisterSnapshot(GetLatestSnapshot());
	scan = index_beginscan(w->rel, w->pkey, snap, nkeys, 0);
	index_rescan(scan, sk, nkeys, NULL, 0);
	while (index_getnext_slot(scan, ForwardScanDirection, w->scanslot))
	{
		TM_FailureData tmfd;
		TM_Result res;

		/* keep_for: a revision replaced since the cutoff stays */
		if (w->aged)
		{
			bool isnull;
			Datum at = slot_getattr(w->scanslot, REV_ATT_AT, &isnull);

			if (isnull || DatumGetTimestampTz(at) >= w->cutoff)
				continue;
		}
		if (newtup != NULL && !recycled)
		{
			LockTupleMode mode;

			res = heap_update(w->rel, &w->scanslot->tts_tid, newtup,
							  GetCurrentCommandId(true), InvalidSnapshot, true,
							  &tmfd, &mode);
			recycled = (res == TM_Ok);
		}
		else
			res = table_tuple_delete(w->rel, &w->scanslot->tts_tid,
									 GetCurrentCommandId(true), InvalidSnapshot,
									 InvalidSnapshot, true, &tmfd, false);
		/* Changed meanwhile by someone else: it is gone, as wanted. */
		if (res != TM_Ok && res != TM_Updated && res != TM_Deleted &&
			res != TM_SelfModified)
			elog(ERROR, "could not delete an old revision: %d", (int) res);
	}
	index_endscan(scan);
	UnregisterSnapshot(snap);
	return recycled;
}

/*
 * Insert a revision row (values, nulls: every column of the history table)
 * through the executor: added columns get their defaults when defaults is
 * true, NOT NULL and CHECK constraints and every index are checked.
 */
static void
HistoryInsertSlow(HistoryWriter *w, Datum *values, bool *nulls, bool defaults)
{
	TupleDesc desc = RelationGetDescr(w->rel);
	TupleTableSlot *slot = w->slot;
	List *recheck;
	ExprContext *econtext = GetPerTupleExprContext(w->estate);
	int i;

	for (i = REV_ATT_DOC; defaults && i < desc->natts; i++)
		if (w->defaults[i] != NULL)
			values[i] =
				ExecEvalExprSwitchContext(w->defaults[i], econtext, &nulls[i]);
	ExecClearTuple(slot);
	memcpy(slot->tts_values, values, sizeof(Datum) * desc->natts);
	memcpy(slot->tts_isnull, nulls, sizeof(bool) * desc->natts);
	ExecStoreVirtualTuple(slot);
	if (w->constrained && desc->constr->has_generated_stored)
		ExecComputeStoredGenerated(w->rri, w->estate, slot, CMD_INSERT);
	/* NOT NULL and CHECK, with their own errors (23502, 23514). */
	if (desc->constr != NULL)
		ExecConstraints(w->rri, slot, w->estate);
	table_tuple_insert(w->rel, slot, GetCurrentCommandId(true), 0, NULL);
	recheck =
		ExecInsertIndexTuples(w->rri, slot, w->estate, false, false, NULL, NIL);
	/* A deferrable unique index is checked now: no trigger rechecks it. */
	if (recheck != NIL)
		ereport(ERROR,
				(errcode(ERRCODE_UNIQUE_VIOLATION),
				 errmsg("duplicate key value violates unique constraint "
						"\"%s\"",
						get_rel_name(linitial_oid(recheck))),
				 errdetail("Revision %d of document \"%s\" conflicts with "
						   "a row of \"%s\".",
						   DatumGetInt32(values[REV_ATT_VER - 1]),
						   TextDatumGetCString(values[REV_ATT_ID - 1]),
						   RelationGetRelationName(w->rel)),
				 errtable(w->rel),
				 err_generic_string(PG_DIAG_CONSTRAINT_NAME,
									get_rel_name(linitial_oid(recheck)))));
	ResetPerTupleExprContext(w->estate);
}

/* Fast path: the index entries of tup, in the primary key and the path index. */
static void
HistoryIndexInsert(HistoryWriter *w, Datum *values, bool *nulls, HeapTuple tup)
{
	index_insert(w->pkey, values, nulls, &tup->t_self, w->rel, UNIQUE_CHECK_YES,
				 false, PkeyInfo);
	if (w->pathsidx != NULL)
		index_insert(w->pathsidx, &values[w->paths - 1], &nulls[w->paths - 1],
					 &tup->t_self, w->rel, UNIQUE_CHECK_NO, false,
					 w->pathsinfo);
}

/*
 * Write revision ver of key id (op, body doc; rs: its stamp columns, for
 * meta_style 'columns'), then prune to keep. On the fast path the revision
 * that falls out of the window is overwritten in place by the new one.
 */
static void
HistoryWrite(HistoryWriter *w, Datum id, int32 ver, const char *op, Datum doc,
			 const RevisionStamps *rs)
{
	TupleDesc desc = RelationGetDescr(w->rel);
	Datum *values = palloc(sizeof(Datum) * desc->natts);
	bool *nulls = palloc(sizeof(bool) * desc->natts);
	int i;

	for (i = 0; i < desc->natts; i++)
		nulls[i] = true;
	values[REV_ATT_ID - 1] = id;
	values[REV_ATT_VER - 1] = Int32GetDatum(ver);
	values[REV_ATT_OP - 1] = CStringGetTextDatum(op);
	values[REV_ATT_AT - 1] = w->at;
	values[REV_ATT_BY - 1] = w->who;
	values[REV_ATT_DOC - 1] = doc;
	for (i = 0; i < REV_ATT_DOC; i++)
		nulls[i] = false;
	if (w->paths > 0)
	{
		values[w->paths - 1] =
			w->keys != (Datum) 0 ? w->keys : DocmodelJsonDiffKeys(NULL, NULL);
		nulls[w->paths - 1] = false;
	}
	for (i = 0; w->stamps != NULL && i < DOCMODEL_STAMP_NCOLUMNS; i++)
	{
		if (i == DOCMODEL_STAMP_VER)
			continue;
		values[w->stamps[i] - 1] = rs->v[i];
		nulls[w->stamps[i] - 1] = rs->n[i];
	}
	if (w->fast)
	{
		HeapTuple tup = heap_form_tuple(desc, values, nulls);
		bool recycled = false;

		if (ver > w->keep)
			recycled = HistoryPrune(w, id, ver - w->keep, tup);
		if (!recycled)
			simple_heap_insert(w->rel, tup);
		if (!HeapTupleIsHeapOnly(tup))
			HistoryIndexInsert(w, values, nulls, tup);
		heap_freetuple(tup);
	}
	else
	{
		HistoryInsertSlow(w, values, nulls, true);
		if (ver > w->keep)
			(void) HistoryPrune(w, id, ver - w->keep, NULL);
	}
	pfree(values);
	pfree(nulls);
}

/* The column holding a row's management fields: meta for xattrs. */
#define VER_COL(cfg) \
	((cfg)->xattrs ? DOCMODEL_COLL_ATT_META : DOCMODEL_COLL_ATT_DOC)

/*
 * rename_key's history (collection/config.h, DocmodelRename): carry the revisions
 * of key from below ver to key to, each whole (op, time, writer, added
 * columns), and file the body that had _ver ver, olddoc, as revision ver
 * with op 'rename' under both keys: the old key's history ends with it (a
 * later insert of the old key numbers after it), the new key's goes on
 * from it.
 */
static void
HistoryCarry(HistoryWriter *w, Datum from, Datum to, int32 ver, Datum olddoc,
			 const RevisionStamps *rs)
{
	TupleDesc desc = RelationGetDescr(w->rel);
	Datum *values = palloc(sizeof(Datum) * desc->natts);
	bool *nulls = palloc(sizeof(bool) * desc->natts);
	TupleTableSlot *slot = table_slot_create(w->rel, NULL);
	ScanKeyData sk[2];
	int nkeys = HistoryKeys(w->pkey, sk, from, ver - 1);
	Snapshot snap = RegisterSnapshot(GetLatestSnapshot());
	IndexScanDesc scan = index_beginscan(w->rel, w->pkey, snap, nkeys, 0);

	index_rescan(scan, sk, nkeys, NULL, 0);
	while (index_getnext_slot(scan, ForwardScanDirection, slot))
	{
		TM_FailureData tmfd;

		slot_getallattrs(slot);
		memcpy(values, slot->tts_values, sizeof(Datum) * desc->natts);
		memcpy(nulls, slot->tts_isnull, sizeof(bool) * desc->natts);
		values[REV_ATT_ID - 1] = to;
		if (w->fast)
		{
			HeapTuple tup = heap_form_tuple(desc, values, nulls);

			simple_heap_insert(w->rel, tup);
			HistoryIndexInsert(w, values, nulls, tup);
			heap_freetuple(tup);
		}
		else
			HistoryInsertSlow(w, values, nulls, false);
		if (table_tuple_delete(w->rel, &slot->tts_tid,
							   GetCurrentCommandId(true), InvalidSnapshot,
							   InvalidSnapshot, true, &tmfd, false) != TM_Ok)
			elog(ERROR, "could not move a revision of a renamed document");
	}
	index_endscan(scan);
	UnregisterSnapshot(snap);
	ExecDropSingleTupleTableSlot(slot);
	HistoryWrite(w, from, ver, "rename", olddoc, rs);
	HistoryWrite(w, to, ver, "rename", olddoc, rs);
	pfree(values);
	pfree(nulls);
}

/*
 * Return the version field (fields.h: DOC_FIELD_VER of cfg's fields) of
 * the stored document doc (its meta column, for xattrs) of key id, or -1 when it has none; raise 22003 naming the key when it is
 * beyond the integers.
 */
static int32
DocVer(const DocmodelCollection *cfg, Jsonb *doc, Datum id)
{
	int32 ver;
	bool error = false;
	const DocFieldSet *fs = cfg->fs;
	JsonbContainer *c;
	JsonbValue *v = NULL;

	if (!JB_ROOT_IS_OBJECT(doc))
		return -1;
	c = DocmodelFieldContainer(fs, &doc->root);
	if (c != NULL)
		v = DocmodelFieldValue(fs, c, DOC_FIELD_VER);
	if (v == NULL || v->type != jbvNumeric)
		return -1;
	ver = numeric_int4_opt_error(v->val.numeric, &error);
	if (error)
	{
		text *key = DatumGetTextPP(id);

		/* a version the history's integer column cannot number */
		DocmodelVersionOverflow(
			VARDATA_ANY(key), VARSIZE_ANY_EXHDR(key),
			DatumGetCString(DirectFunctionCall1(
				numeric_out, NumericGetDatum(v->val.numeric))));
	}
	return ver;
}

/*
 * The _ver of collection row tup of key id (-1 when it has none), and for
 * meta_style 'columns' (cstamps: the collection's stamp columns, else
 * NULL) the stamp columns it files into rs: there _ver is the ver column.
 */
static int32
RowVer(const DocmodelCollection *cfg, const AttrNumber *cstamps, HeapTuple tup,
	   TupleDesc desc, Datum id, RevisionStamps *rs)
{
	bool isnull;
	Datum meta;
	int i;

	if (cstamps == NULL)
	{
		meta = heap_getattr(tup, VER_COL(cfg), desc, &isnull);
		return isnull ? -1 : DocVer(cfg, DatumGetJsonbP(meta), id);
	}
	for (i = 0; i < DOCMODEL_STAMP_NCOLUMNS; i++)
		rs->v[i] = heap_getattr(tup, cstamps[i], desc, &rs->n[i]);
	if (!rs->n[DOCMODEL_STAMP_VER])
		return DatumGetInt32(rs->v[DOCMODEL_STAMP_VER]);
	/* a row set_meta_style has not converted: its document has the fields */
	meta = heap_getattr(tup, DOCMODEL_COLL_ATT_DOC, desc, &isnull);
	return isnull ? -1 : DocVer(cfg, DatumGetJsonbP(meta), id);
}

/* Is the row's expires_at at or before the transaction's start? */
static bool
RowExpired(HeapTuple tup, TupleDesc desc)
{
	bool isnull;
	Datum d;

	if (desc->natts < DOCMODEL_COLL_ATT_EXPIRES)
		return false;
	d = heap_getattr(tup, DOCMODEL_COLL_ATT_EXPIRES, desc, &isnull);
	return !isnull &&
		   DatumGetTimestampTz(d) <= GetCurrentTransactionStartTimestamp();
}

/* Write every document of the collection as a 'truncate' revision. */
static void
HistoryOfTruncate(const DocmodelCollection *cfg, Relation coll)
{
	HistoryWriter w;
	Snapshot snap = RegisterSnapshot(GetLatestSnapshot());
	TableScanDesc scan = table_beginscan(coll, snap, 0, NULL);
	TupleTableSlot *slot = table_slot_create(coll, NULL);
	MemoryContext rowcxt =
		AllocSetContextCreate(CurrentMemoryContext, "docmodel truncate history",
							  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old;
	const AttrNumber *cstamps =
		cfg->columns ? DocmodelStampColumns(coll) : NULL;
	RevisionStamps rs;

	HistoryOpen(&w, cfg);
	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		bool isnull;
		bool docnull;
		Datum id = slot_getattr(slot, DOCMODEL_COLL_ATT_ID, &isnull);
		Datum doc = slot_getattr(slot, DOCMODEL_COLL_ATT_DOC, &docnull);
		int32 ver;

		if (isnull || docnull)
			continue;
		old = MemoryContextSwitchTo(rowcxt);
		ver = RowVer(cfg, cstamps, ExecFetchSlotHeapTuple(slot, false, NULL),
					 RelationGetDescr(coll), id, &rs);
		if (ver > 0)
			HistoryWrite(&w, id, ver, "truncate", doc, &rs);
		MemoryContextSwitchTo(old);
		MemoryContextReset(rowcxt);
	}
	ExecDropSingleTupleTableSlot(slot);
	table_endscan(scan);
	UnregisterSnapshot(snap);
	HistoryClose(&w);
	MemoryContextDelete(rowcxt);
}

/*
 * The delete of key id (version ver, document olddoc) that rename_key makes
 * while moving it: its revisions go to the new key (true); false when the
 * delete is not a rename's.
 */
static bool
HistoryOfRename(DocmodelCollection *cfg, Datum id, int32 ver, Datum olddoc,
				const RevisionStamps *rs)
{
	text *key = DatumGetTextPP(id);
	HistoryWriter w;

	if (!DocmodelRename.set || DocmodelRename.relid != cfg->relid ||
		DocmodelRename.from_len != VARSIZE_ANY_EXHDR(key) ||
		memcmp(DocmodelRename.from, VARDATA_ANY(key),
			   DocmodelRename.from_len) != 0)
		return false;
	HistoryOpen(&w, cfg);
	HistoryCarry(&w, id,
				 PointerGetDatum(cstring_to_text_with_len(
					 DocmodelRename.to, DocmodelRename.to_len)),
				 ver, olddoc, rs);
	HistoryClose(&w);
	return true;
}

/*
 * A new document took its _ver in the BEFORE event, before its unique check
 * could wait for a delete of the key: when two inserts of a deleted key
 * choose at once, the first commits, a delete of it commits while the
 * second waits, and the second would store the version that delete's
 * tombstone holds. Every such tombstone is committed by now (the unique
 * check waited for its delete), so one look at the history finds it; the
 * insert is refused (40001, retryable) instead of storing a document whose
 * next update could never file its revision.
 */
static void
HistoryCheckInsert(DocmodelCollection *cfg, Datum id, int32 ver)
{
	if (DocmodelRevisionFirstVer(cfg, NULL, id, 0) > ver)
	{
		text *key = DatumGetTextPP(id);

		ereport(ERROR, (errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
						errmsg("document \"%.*s\" was deleted while it was "
							   "inserted again",
							   (int) VARSIZE_ANY_EXHDR(key), VARDATA_ANY(key)),
						errdetail("Version %d, chosen for the new document, is "
								  "taken by a revision of the key.",
								  ver),
						errhint("Retry the insert.")));
	}
}

/* The history half of the collection trigger; see revision.h. */
Datum
DocmodelRevisionTrigger(FunctionCallInfo fcinfo)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	DocmodelCollection cfg;
	TupleDesc desc = RelationGetDescr(td->tg_relation);
	HeapTuple oldtup = td->tg_trigtuple;
	HistoryWriter w;
	Datum id;
	Datum olddoc;
	bool isnull;
	const char *op;
	int32 ver;
	const AttrNumber *cstamps;
	RevisionStamps rs;
	RevisionStamps newrs;

	if (td->tg_trigger->tgnargs != 1)
		DocmodelTriggerMisuse("collection_trigger",
							  "a trigger with the collection id argument");
	cfg = *DocmodelCollectionById(pg_strtoint32(td->tg_trigger->tgargs[0]));
	/* on a Citus shard: the colocated shard of the history */
	DocmodelCheckTriggerRelation(td->tg_relation, td->tg_trigger->tgname, &cfg);
	if (cfg.revisions <= 0 || !OidIsValid(cfg.revisions_relid))
		return PointerGetDatum(NULL);

	if (TRIGGER_FIRED_BY_TRUNCATE(td->tg_event))
	{
		if (TRIGGER_FIRED_BEFORE(td->tg_event))
			HistoryOfTruncate(&cfg, td->tg_relation);
		return PointerGetDatum(NULL);
	}
	if (!TRIGGER_FIRED_AFTER(td->tg_event) ||
		!TRIGGER_FIRED_FOR_ROW(td->tg_event))
		DocmodelTriggerMisuse(
			"collection_trigger",
			"an AFTER INSERT OR UPDATE OR DELETE FOR EACH ROW "
			"trigger (history)");

	id = heap_getattr(oldtup, DOCMODEL_COLL_ATT_ID, desc, &isnull);
	if (isnull)
		return PointerGetDatum(NULL);
	olddoc = heap_getattr(oldtup, DOCMODEL_COLL_ATT_DOC, desc, &isnull);
	if (isnull)
		return PointerGetDatum(NULL);
	/* meta_style 'columns': _ver and the stamps in columns */
	cstamps = cfg.columns ? DocmodelStampColumns(td->tg_relation) : NULL;
	ver = RowVer(&cfg, cstamps, oldtup, desc, id, &rs);
	if (ver <= 0)
		return PointerGetDatum(NULL); /* never stamped: no number to file */
	if (TRIGGER_FIRED_BY_UPDATE(td->tg_event))
	{
		bool newnull;

		(void) heap_getattr(td->tg_newtuple,
							cstamps ? cstamps[DOCMODEL_STAMP_VER]
									: VER_COL(&cfg),
							desc, &newnull);

		/*
		 * The BEFORE event keeps _ver on a no-op update (see collection/trigger.c),
		 * so a revision is due exactly when _ver moved on.
		 */
		if (RowExpired(oldtup, desc))
			op = "expire";
		else if (newnull || RowVer(&cfg, cstamps, td->tg_newtuple, desc, id,
								   &newrs) == ver)
			return PointerGetDatum(NULL); /* a no-op update */
		else
			op = "update";
	}
	else if (TRIGGER_FIRED_BY_DELETE(td->tg_event))
	{
		if (HistoryOfRename(&cfg, id, ver, olddoc, &rs))
			return PointerGetDatum(NULL);
		op = "delete";
	}
	else
	{
		HistoryCheckInsert(&cfg, id, ver);
		return PointerGetDatum(NULL);
	}
	HistoryOpen(&w, &cfg);
	/* an update: the pointers it changed, for path_history */
	if (w.paths > 0 && TRIGGER_FIRED_BY_UPDATE(td->tg_event))
	{
		Datum newdoc =
			heap_getattr(td->tg_newtuple, DOCMODEL_COLL_ATT_DOC, desc, &isnull);

		if (!isnull)
			w.keys = DocmodelJsonDiffKeys(DatumGetJsonbP(olddoc),
										  DatumGetJsonbP(newdoc));
	}
	HistoryWrite(&w, id, ver, op, olddoc, &rs);
	HistoryClose(&w);
	return PointerGetDatum(NULL);
}

/*
 * Wait until no other transaction is inserting or deleting key id in the
 * collection coll, and lock a live row of the key (FOR KEY SHARE) so that
 * no delete of it can commit before this insert's unique check. Then every
 * tombstone of the key is committed or never will be, and the history read
 * that follows sees it. The waiting is what _bt_check_unique() does later
 * anyway; doing it first keeps a delete that commits while an insert waits
 * from handing the insert a version its tombstone already has.
 */
static void
WaitForKeyWriters(Relation coll, Datum id)
{
	Oid pkoid = RelationGetPrimaryKeyIndex(coll);
	Relation pkey;
	TupleTableSlot *slot;
	SnapshotData dirty;
	ScanKeyData sk;
	bool again;

	if (!OidIsValid(pkoid))
		return; /* no key to wait on: nothing keeps keys unique */
	pkey = index_open(pkoid, AccessShareLock);
	slot = table_slot_create(coll, NULL);
	InitDirtySnapshot(dirty);
	ScanKeyEntryInitialize(&sk, 0, 1, BTEqualStrategyNumber, InvalidOid,
						   pkey->rd_indcollation[0], F_TEXTEQ, id);
	do
	{
		IndexScanDesc scan = index_beginscan(coll, pkey, &dirty, 1, 0);
		TransactionId xwait = InvalidTransactionId;
		bool live;
		ItemPointerData tid;

		again = false;
		index_rescan(scan, &sk, 1, NULL, 0);
		live = index_getnext_slot(scan, ForwardScanDirection, slot);
		if (live)
		{
			xwait = TransactionIdIsValid(dirty.xmin) ? dirty.xmin : dirty.xmax;
			tid = slot->tts_tid;
		}
		index_endscan(scan);
		if (TransactionIdIsValid(xwait))
		{
			XactLockTableWait(xwait, coll, &tid, XLTW_InsertIndex);
			again = true;
		}
		else if (live)
		{
			TM_FailureData tmfd;
			TM_Result res;

			res = table_tuple_lock(coll, &tid, GetActiveSnapshot(), slot,
								   GetCurrentCommandId(false),
								   LockTupleKeyShare, LockWaitBlock, 0, &tmfd);
			/* changed meanwhile: look again; ours (TM_Invisible, ...): fine */
			again = (res == TM_Updated || res == TM_Deleted);
		}
	} while (again);
	ExecDropSingleTupleTableSlot(slot);
	index_close(pkey, NoLock);
}

/* The _ver a new document with key id starts at; see revision.h. */
int32
DocmodelRevisionFirstVer(const DocmodelCollection *cfg, Relation coll, Datum id,
						 int32 floor)
{
	Relation rel;
	Relation pkey;
	ScanKeyData sk[1];
	IndexScanDesc scan;
	TupleTableSlot *slot;
	int32 ver = floor;

	if (!OidIsValid(cfg->revisions_relid))
		return floor;
	rel = try_table_open(cfg->revisions_relid, AccessShareLock);
	if (rel == NULL)
		return floor; /* dropped: nothing to continue after */
	table_close(rel, NoLock);
	if (coll != NULL)
		WaitForKeyWriters(coll, id);
	rel = HistoryOpenRel(cfg, AccessShareLock, &pkey);
	slot = table_slot_create(rel, NULL);
	(void) HistoryKeys(pkey, sk, id, PG_INT32_MAX);
	scan = index_beginscan(rel, pkey, SnapshotSelf, 1, 0);
	index_rescan(scan, sk, 1, NULL, 0);
	if (index_getnext_slot(scan, BackwardScanDirection, slot))
	{
		bool isnull;
		Datum d = slot_getattr(slot, REV_ATT_VER, &isnull);

		if (!isnull && DatumGetInt32(d) == PG_INT32_MAX)
		{
			text *key = DatumGetTextPP(id);

			DocmodelVersionOverflow(VARDATA_ANY(key), VARSIZE_ANY_EXHDR(key),
									psprintf("%d", PG_INT32_MAX));
		}
		if (!isnull && DatumGetInt32(d) >= floor)
			ver = DatumGetInt32(d) + 1;
	}
	index_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	index_close(pkey, NoLock);
	table_close(rel, NoLock);
	return ver;
}

/*
 * The stamps a version's readers date it by (sql/parts/50_revisions.sql):
 * the version, modified time and modifier of a document of collection coll
 * as its stored row shows them (the body, merged with its stamp columns
 * for meta_style 'columns'; the meta column for 'xattrs'), each NULL when
 * the document does not carry it or it is not the collection's kind of
 * value. The time is the start of the time unit the stamp names (a stamp
 * in milliseconds stands for its whole millisecond).
 */
static int64
HistoryUnitMicros(DocmodelTimeUnit unit)
{
	switch (unit)
	{
		case DOCMODEL_TIME_MS:
			return INT64CONST(1000);
		case DOCMODEL_TIME_S:
			return INT64CONST(1000000);
		case DOCMODEL_TIME_MIN:
			return INT64CONST(60000000);
		case DOCMODEL_TIME_H:
			return INT64CONST(3600000000);
		case DOCMODEL_TIME_DAY:
			return USECS_PER_DAY;
		case DOCMODEL_TIME_ISO:
			break;
	}
	return 0;
}

PG_FUNCTION_INFO_V1(history_stamps);

Datum
history_stamps(PG_FUNCTION_ARGS)
{
	TupleDesc tupdesc;
	Datum values[3];
	bool nulls[3] = {true, true, true};
	const DocmodelCollection *cfg;
	Jsonb *doc;
	JsonbContainer *c;
	JsonbValue *v;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	tupdesc = BlessTupleDesc(tupdesc);
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_DATUM(
			HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
	cfg = DocmodelCollectionOf(PG_GETARG_OID(0));
	doc = PG_GETARG_JSONB_P(1);
	c = JB_ROOT_IS_OBJECT(doc) ? DocmodelFieldContainer(cfg->fs, &doc->root)
							   : NULL;
	if (c == NULL)
		PG_RETURN_DATUM(
			HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
	v = DocmodelFieldValue(cfg->fs, c, DOC_FIELD_VER);
	if (v != NULL && v->type == jbvNumeric)
	{
		bool error = false;
		int32 ver = numeric_int4_opt_error(v->val.numeric, &error);

		if (!error)
		{
			values[0] = Int32GetDatum(ver);
			nulls[0] = false;
		}
	}
	v = DocmodelFieldValue(cfg->fs, c, DOC_FIELD_MODIFIED);
	if (v != NULL)
	{
		int64 per = HistoryUnitMicros(cfg->time_unit);
		TimestampTz ts;

		if (per == 0 && v->type == jbvString &&
			DocmodelParseIso8601(v->val.string.val, v->val.string.len, &ts))
			nulls[1] = false;
		else if (per != 0 && v->type == jbvNumeric)
		{
			char *txt = DatumGetCString(DirectFunctionCall1(
				numeric_out, NumericGetDatum(v->val.numeric)));
			char *end;
			int64 n;

			errno = 0;
			n = strtoi64(txt, &end, 10);
			if (errno == 0 && *end == '\0' && end != txt &&
				DocmodelFromEpoch(n, per * 1000, &ts))
				nulls[1] = false;
		}
		if (!nulls[1])
			values[1] = TimestampTzGetDatum(ts);
	}
	v = DocmodelFieldValue(cfg->fs, c, DOC_FIELD_MODIFIED_BY);
	if (v != NULL && v->type == jbvString)
	{
		values[2] = PointerGetDatum(
			cstring_to_text_with_len(v->val.string.val, v->val.string.len));
		nulls[2] = false;
	}
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/* Prune the revisions of one key (HistoryPurge's group); see below. */
static void
HistoryPurgeGroup(HistoryWriter *w, ItemPointerData *tids, int32 *vers,
				  TimestampTz *ats, int n)
{
	int32 newest = vers[n - 1];
	int i;

	for (i = 0; i < n; i++)
	{
		TM_FailureData tmfd;
		TM_Result res;

		if (vers[i] > newest - w->keep || (w->aged && ats[i] >= w->cutoff))
			continue;
		res = table_tuple_delete(w->rel, &tids[i], GetCurrentCommandId(true),
								 InvalidSnapshot, InvalidSnapshot, true, &tmfd,
								 false);
		if (res != TM_Ok && res != TM_Updated && res != TM_Deleted &&
			res != TM_SelfModified)
			elog(ERROR, "could not delete an old revision: %d", (int) res);
	}
}

/*
 * Prune the whole history of collection cfg as a write prunes a key's
 * (purge_expired), when it has a keep_for: of each key, the revisions that are not among its last
 * keep and, with keep_for, older than it; the number of revisions deleted.
 * Like the history writer, it needs no privilege on the history table.
 */
int64
DocmodelRevisionPurge(const DocmodelCollection *cfg)
{
	HistoryWriter w;
	Snapshot snap;
	IndexScanDesc scan;
	TupleTableSlot *slot;
	int room = 64;
	int n = 0;
	ItemPointerData *tids;
	int32 *vers;
	TimestampTz *ats;
	text *cur = NULL;
	int64 deleted = 0;

	/* (without keep_for, every write has pruned its key already) */
	if (cfg->revisions <= 0 || !OidIsValid(cfg->revisions_relid) ||
		!cfg->has_keep_for)
		return 0;
	HistoryOpen(&w, cfg);
	tids = palloc(sizeof(ItemPointerData) * room);
	vers = palloc(sizeof(int32) * room);
	ats = palloc(sizeof(TimestampTz) * room);
	slot = table_slot_create(w.rel, NULL);
	snap = RegisterSnapshot(GetLatestSnapshot());
	scan = index_beginscan(w.rel, w.pkey, snap, 0, 0);
	index_rescan(scan, NULL, 0, NULL, 0);
	for (;;)
	{
		bool more = index_getnext_slot(scan, ForwardScanDirection, slot);
		bool isnull;
		text *id = NULL;

		CHECK_FOR_INTERRUPTS();
		if (more)
			id = DatumGetTextPP(slot_getattr(slot, REV_ATT_ID, &isnull));
		if (n > 0 &&
			(!more || VARSIZE_ANY_EXHDR(id) != VARSIZE_ANY_EXHDR(cur) ||
			 memcmp(VARDATA_ANY(id), VARDATA_ANY(cur),
					VARSIZE_ANY_EXHDR(cur)) != 0))
		{
			int i;

			HistoryPurgeGroup(&w, tids, vers, ats, n);
			for (i = 0; i < n; i++)
				if (vers[i] <= vers[n - 1] - w.keep &&
					!(w.aged && ats[i] >= w.cutoff))
					deleted++;
			n = 0;
		}
		if (!more)
			break;
		if (n == 0)
		{
			if (cur != NULL)
				pfree(cur);
			cur = (text *) PG_DETOAST_DATUM_COPY(PointerGetDatum(id));
		}
		if (n == room)
		{
			room *= 2;
			tids = repalloc(tids, sizeof(ItemPointerData) * room);
			vers = repalloc(vers, sizeof(int32) * room);
			ats = repalloc(ats, sizeof(TimestampTz) * room);
		}
		tids[n] = slot->tts_tid;
		vers[n] = DatumGetInt32(slot_getattr(slot, REV_ATT_VER, &isnull));
		ats[n] = DatumGetTimestampTz(slot_getattr(slot, REV_ATT_AT, &isnull));
		n++;
	}
	index_endscan(scan);
	UnregisterSnapshot(snap);
	ExecDropSingleTupleTableSlot(slot);
	HistoryClose(&w);
	return deleted;
}
