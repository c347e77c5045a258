/*-------------------------------------------------------------------------
 *
 * compat.h
 *	  Every difference between the PostgreSQL majors docmodel builds against
 *	  (15 to 18), in one place per concern, behind PG_VERSION_NUM: the
 *	  source files are written against 15's API and include this header
 *	  after PostgreSQL's own. Where a function only gained arguments, a
 *	  macro of the same name supplies them, so call sites stay as they are.
 *
 *	  It includes nothing heavy (a file may name its own functions as
 *	  PostgreSQL names a type it does not include): its wrappers of a
 *	  PostgreSQL header's functions are defined when that header was
 *	  included first (project headers come after PostgreSQL's).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_COMPAT_H
#define DOCMODEL_COMPAT_H

#if PG_VERSION_NUM < 150000
#error "docmodel needs PostgreSQL 15 or later"
#endif

/*
 * 18: noreturn became a prefix (pg_noreturn); docmodel's declarations keep
 * the attribute after the parameter list.
 */
#if PG_VERSION_NUM >= 180000 && !defined(pg_attribute_noreturn)
#define pg_attribute_noreturn() __attribute__((noreturn))
#endif

/*
 * 16: a setting's "extra" is allocated by guc_malloc in GUC's memory context
 * and freed with guc_free (pfree); 15 frees it with free(), so it is
 * malloc'd there.
 */
#if PG_VERSION_NUM >= 160000
#define DocmodelGucMalloc(size) guc_malloc(LOG, (size))
#define DocmodelGucFree(p) guc_free(p)
#else
#define DocmodelGucMalloc(size) malloc(size)
#define DocmodelGucFree(p) free(p)
#endif

/* 16: the varlena macros (VARSIZE, VARDATA_ANY, ...) left postgres.h. */
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

/* 16: one ownership check for every catalog (object_ownercheck). */
#if PG_VERSION_NUM >= 160000
#include "catalog/pg_class_d.h"
#define pg_class_ownercheck(relid, roleid) \
	object_ownercheck(RelationRelationId, (relid), (roleid))
#endif

/* 17: PGPROC's local transaction id moved into its virtual xid. */
#if PG_VERSION_NUM >= 170000
#define DocmodelMyLxid (MyProc->vxid.lxid)
#else
#define DocmodelMyLxid (MyProc->lxid)
#endif

/*
 * 16: heap_update reports which indexes need new entries (update_indexes);
 * docmodel's callers tell from HeapTupleIsHeapOnly, as on 15.
 */
#if PG_VERSION_NUM >= 160000 && defined(HEAPAM_H)
static inline TM_Result
DocmodelHeapUpdate(Relation rel, ItemPointer otid, HeapTuple newtup,
				   CommandId cid, Snapshot crosscheck, bool wait,
				   TM_FailureData *tmfd, LockTupleMode *lockmode)
{
	TU_UpdateIndexes update_indexes;

	return heap_update(rel, otid, newtup, cid, crosscheck, wait, tmfd, lockmode,
					   &update_indexes);
}
#define heap_update(rel, otid, newtup, cid, crosscheck, wait, tmfd, lockmode) \
	DocmodelHeapUpdate(rel, otid, newtup, cid, crosscheck, wait, tmfd, lockmode)
#endif

/* 16: ExecInsertIndexTuples' onlySummarizing (false: every index). */
#if PG_VERSION_NUM >= 160000
#include "executor/executor.h" /* declared before the macro renames it */
#define ExecInsertIndexTuples(rri, slot, estate, update, noDupErr,           \
							  specConflict, arbiterIndexes)                  \
	ExecInsertIndexTuples(rri, slot, estate, update, noDupErr, specConflict, \
						  arbiterIndexes, false)
#endif

/* 16: EvalPlanQualInit's resultRelations (NIL: no ModifyTable above). */
#if PG_VERSION_NUM >= 160000
#define EvalPlanQualInit(epq, estate, subplan, auxrowmarks, epqParam) \
	EvalPlanQualInit(epq, estate, subplan, auxrowmarks, epqParam, NIL)
#endif

/* makeIndexInfo: 16's summarizing, 18's withoutoverlaps (both false). */
#include "nodes/makefuncs.h"
#if PG_VERSION_NUM >= 180000
#define makeIndexInfo(natts, nkeyatts, amoid, exprs, preds, unique, nnd,      \
					  isready, concurrent)                                    \
	makeIndexInfo(natts, nkeyatts, amoid, exprs, preds, unique, nnd, isready, \
				  concurrent, false, false)
#elif PG_VERSION_NUM >= 160000
#define makeIndexInfo(natts, nkeyatts, amoid, exprs, preds, unique, nnd,      \
					  isready, concurrent)                                    \
	makeIndexInfo(natts, nkeyatts, amoid, exprs, preds, unique, nnd, isready, \
				  concurrent, false)
#endif

/*
 * 18: the in-place update WAL record carries the invalidation messages the
 * update sends (docmodel's counters send none) and their database; redo
 * reads them, so they must be set. DocmodelInplaceInit(xlrec, offnum)
 * fills the record and DocmodelSizeOfHeapInplace is its size.
 */
#if PG_VERSION_NUM >= 180000
#define DocmodelInplaceInit(xlrec, off)        \
	do                                         \
	{                                          \
		(xlrec).offnum = (off);                \
		(xlrec).dbId = MyDatabaseId;           \
		(xlrec).tsId = MyDatabaseTableSpace;   \
		(xlrec).relcacheInitFileInval = false; \
		(xlrec).nmsgs = 0;                     \
	} while (0)
#define DocmodelSizeOfHeapInplace MinSizeOfHeapInplace
#else
#define DocmodelInplaceInit(xlrec, off) ((xlrec).offnum = (off))
#define DocmodelSizeOfHeapInplace SizeOfHeapInplace
#endif

/* 18: index_beginscan's instrumentation (NULL: none). */
#if PG_VERSION_NUM >= 180000
#include "access/genam.h"
#define index_beginscan(heap, index, snapshot, nkeys, norderbys) \
	index_beginscan(heap, index, snapshot, NULL, nkeys, norderbys)
#endif

/*
 * 18: RelationGetPrimaryKeyIndex hides a deferrable primary key unless
 * asked; before 18 it returned it (true: as before).
 */
#if PG_VERSION_NUM >= 180000
#include "utils/relcache.h"
#define RelationGetPrimaryKeyIndex(rel) RelationGetPrimaryKeyIndex(rel, true)
#endif

/*
 * The range table of an executor state made by hand for one relation
 * (rte, its RT index 1): the privileges its statement would require and
 * the columns it updates (which column triggers, generated columns and
 * constraint messages consult). On 16 and later these live in an
 * RTEPermissionInfo beside the range table; on 15 in the entry itself.
 * Checking the privileges stays the caller's (pg_class_aclcheck), as the
 * executor checks them only for a planned statement.
 */
#ifdef EXECUTOR_H
static inline void
DocmodelInitRangeTable(EState *estate, RangeTblEntry *rte, AclMode perms,
					   Bitmapset *updatedCols)
{
#if PG_VERSION_NUM >= 160000
	RTEPermissionInfo *perminfo = makeNode(RTEPermissionInfo);

	perminfo->relid = rte->relid;
	perminfo->inh = rte->inh;
	perminfo->requiredPerms = perms;
	perminfo->updatedCols = updatedCols;
	rte->perminfoindex = 1;
#if PG_VERSION_NUM >= 180000
	ExecInitRangeTable(estate, list_make1(rte), list_make1(perminfo),
					   bms_make_singleton(1));
#else
	ExecInitRangeTable(estate, list_make1(rte), list_make1(perminfo));
#endif
#else
	rte->requiredPerms = perms;
	rte->updatedCols = updatedCols;
	ExecInitRangeTable(estate, list_make1(rte));
#endif
}
#endif /* EXECUTOR_H */

/*
 * 16: parse_datetime reports a soft error through an ErrorSaveContext node
 * (15: a bool *have_error); *failed says whether the text did not parse.
 */
#if defined(_FORMATTING_H_)
#if PG_VERSION_NUM >= 160000
#include "nodes/miscnodes.h"
#endif
static inline Datum
DocmodelParseDatetime(text *value, text *fmt, Oid collid, bool strict,
					  Oid *typid, int32 *typmod, int *tz, bool *failed)
{
#if PG_VERSION_NUM >= 160000
	ErrorSaveContext escontext = {T_ErrorSaveContext};
	Datum d = parse_datetime(value, fmt, collid, strict, typid, typmod, tz,
							 (Node *) &escontext);

	*failed = escontext.error_occurred;
	return d;
#else
	*failed = false;
	return parse_datetime(value, fmt, collid, strict, typid, typmod, tz,
						  failed);
#endif
}
#endif

#endif /* DOCMODEL_COMPAT_H */
