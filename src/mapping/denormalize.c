/*-------------------------------------------------------------------------
 *
 * mapping/denormalize.c
 *	  The rows of denormalize, streamed: _denormalize_rows opens a cursor on
 *	  the set-based query docmodel._denormalize_sql makes of the mapping
 *	  (never on text a caller gives) and returns its rows one per call
 *	  (ValuePerCall), fetching them in growing batches. denormalize() is an
 *	  SQL function that PostgreSQL inlines into the calling query, where
 *	  this function runs in the target list (ProjectSet), so that a LIMIT
 *	  above stops the cursor instead of waiting for every document, as a
 *	  function scanned in FROM (materialized whole) would. The query runs
 *	  as the caller, with the caller's snapshot. No state outlives the call
 *	  that reads the rows: the cursor is closed when the rows end, when the
 *	  calling query ends or rescans, or with the transaction on an error.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "docmodel.h"
#include "mapping/denormalize.h"

PG_FUNCTION_INFO_V1(mapping_denormalize_rows);

/* The first batch is small (a LIMIT reads little), the next ones grow to this. */
#define DENORMALIZE_FIRST_BATCH 8
#define DENORMALIZE_MAX_BATCH 1024

typedef struct DenormalizeState
{
	char *portal;        /* the cursor's name; NULL once closed */
	MemoryContext batch; /* the rows of the current batch */
	Datum *rows;         /* (key text, doc jsonb) composites */
	uint64 nrows;
	uint64 next;
	long fetch; /* rows the next fetch asks for */
	bool done;  /* the cursor has no more rows */
} DenormalizeState;

/* Close the cursor (the end of the rows, or the calling query's end or
 * rescan: an ExprContext callback). */
static void
DenormalizeClose(Datum arg)
{
	DenormalizeState *st = (DenormalizeState *) DatumGetPointer(arg);

	if (st->portal != NULL)
	{
		Portal portal = SPI_cursor_find(st->portal);

		st->portal = NULL;
		if (portal != NULL)
			SPI_cursor_close(portal);
	}
}

/* Open the cursor on the query of the arguments' mapping (set-based, in
 * primary key order; made by docmodel._denormalize_sql). */
static void
DenormalizeOpen(FunctionCallInfo fcinfo, DenormalizeState *st,
				MemoryContext keep)
{
	Oid types[5] = {BOOLOID, TEXTOID, REGCLASSOID, TEXTOID, INT4OID};
	Datum values[5];
	char nulls[5];
	bool isnull;
	char *sql;
	Datum rels;
	Datum *elems;
	int nelems;
	Oid *oids;
	SPIPlanPtr plan;
	Portal portal;
	int i;

	for (i = 0; i < 5; i++)
	{
		values[i] = PG_ARGISNULL(i) ? (Datum) 0 : PG_GETARG_DATUM(i);
		nulls[i] = PG_ARGISNULL(i) ? 'n' : ' ';
	}
	DocmodelSpiConnect();
	if (SPI_execute_with_args(
			"SELECT s.sql, s.rels FROM docmodel._denormalize_sql($1, $2, $3, "
			"$4, $5) AS s",
			5, types, values, nulls, true, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "making the query of denormalize failed");
	sql = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	rels =
		SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull);
	if (sql == NULL || isnull)
		elog(ERROR, "making the query of denormalize failed");
	deconstruct_array(DatumGetArrayTypeP(rels), OIDOID, sizeof(Oid), true,
					  TYPALIGN_INT, &elems, NULL, &nelems);
	oids = palloc(sizeof(Oid) * Max(nelems, 1));
	for (i = 0; i < nelems; i++)
		oids[i] = DatumGetObjectId(elems[i]);
	/* planned for the first rows (cursor_tuple_fraction): a LIMIT above
	 * reads a few, a full read still reads each table once */
	plan = SPI_prepare_cursor(sql, 0, NULL,
							  CURSOR_OPT_NO_SCROLL | CURSOR_OPT_FAST_PLAN);
	if (plan == NULL)
		elog(ERROR, "preparing the query of denormalize failed: %s",
			 SPI_result_code_string(SPI_result));
	/* generated from the mapping's OIDs, planned from their names: the same
	 * relations */
	DocmodelCheckPlanTargets(plan, oids, nelems);
	/* read-only: the calling query's snapshot */
	portal = SPI_cursor_open(NULL, plan, NULL, NULL, true);
	st->portal = MemoryContextStrdup(keep, portal->name);
	SPI_finish();
}

/* The next batch of rows, copied out of SPI into st->batch as composite
 * datums (SPI_returntuple); the previous batch, returned already, is freed. */
static void
DenormalizeFetch(DenormalizeState *st)
{
	MemoryContext old;
	Portal portal;
	uint64 i;

	MemoryContextReset(st->batch);
	st->rows = NULL;
	st->nrows = st->next = 0;
	/* SPI_returntuple copies into the context current at SPI_connect */
	old = MemoryContextSwitchTo(st->batch);
	DocmodelSpiConnect();
	portal = SPI_cursor_find(st->portal);
	if (portal == NULL)
		elog(ERROR, "the cursor of denormalize is gone");
	SPI_cursor_fetch(portal, true, st->fetch);
	if (SPI_processed > 0)
	{
		st->rows = MemoryContextAlloc(st->batch, sizeof(Datum) * SPI_processed);
		for (i = 0; i < SPI_processed; i++)
			st->rows[i] = PointerGetDatum(
				SPI_returntuple(SPI_tuptable->vals[i], SPI_tuptable->tupdesc));
	}
	st->nrows = SPI_processed;
	if (SPI_processed < (uint64) st->fetch)
		st->done = true;
	st->fetch = Min(st->fetch * 4, DENORMALIZE_MAX_BATCH);
	SPI_finish();
	MemoryContextSwitchTo(old);
}

/*
 * docmodel._denormalize_rows(by_mapping boolean, mapping text, root
 * regclass, doc_type text, depth integer) RETURNS TABLE(key text, doc
 * jsonb): the documents of a mapping (by_mapping) or of denormalize(root,
 * doc_type, depth), in primary key order, one per call.
 */
Datum
mapping_denormalize_rows(PG_FUNCTION_ARGS)
{
	FuncCallContext *funcctx;
	DenormalizeState *st;
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	if (SRF_IS_FIRSTCALL())
	{
		MemoryContext old;

		funcctx = SRF_FIRSTCALL_INIT();
		old = MemoryContextSwitchTo(funcctx->multi_call_memory_ctx);
		st = palloc0(sizeof(DenormalizeState));
		st->batch = AllocSetContextCreate(funcctx->multi_call_memory_ctx,
										  "docmodel denormalize rows",
										  ALLOCSET_DEFAULT_SIZES);
		st->fetch = DENORMALIZE_FIRST_BATCH;
		funcctx->user_fctx = st;
		MemoryContextSwitchTo(old);
		DenormalizeOpen(fcinfo, st, funcctx->multi_call_memory_ctx);
		/* registered after SRF_FIRSTCALL_INIT's own: called before it frees st */
		RegisterExprContextCallback(rsinfo->econtext, DenormalizeClose,
									PointerGetDatum(st));
	}
	funcctx = SRF_PERCALL_SETUP();
	st = (DenormalizeState *) funcctx->user_fctx;
	if (st->next >= st->nrows && !st->done)
		DenormalizeFetch(st);
	if (st->next < st->nrows)
		SRF_RETURN_NEXT(funcctx, st->rows[st->next++]);
	UnregisterExprContextCallback(rsinfo->econtext, DenormalizeClose,
								  PointerGetDatum(st));
	DenormalizeClose(PointerGetDatum(st));
	SRF_RETURN_DONE(funcctx);
}
