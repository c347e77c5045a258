/*-------------------------------------------------------------------------
 *
 * history/query.c
 *	  get(coll, key, as_of): the document as it was at a time, read by a
 *	  statement prepared once per collection (the queries over history are
 *	  otherwise SQL: sql/parts/50_revisions.sql, which also writes this
 *	  statement, _get_as_of_sql).
 *
 *	  Backend-local state: AsOfCache ("docmodel as-of plans"), per
 *	  collection its history table and the kept plan; dropped on a relcache
 *	  event of either, of docmodel.collection_config, or on any schema
 *	  change (init.c's dispatchers); a plan in use when that happens is
 *	  freed by the next call that finds it stale.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"

#include "collection/config.h"
#include "collection/kv.h"
#include "history/revision.h"
#include "docmodel.h"
#include "history/query.h"

PG_FUNCTION_INFO_V1(history_get_as_of);
PG_FUNCTION_INFO_V1(history_purge_expired);

typedef struct AsOfPlan
{
	Oid relid;       /* hash key: the collection */
	Oid hist;        /* its history table */
	SPIPlanPtr plan; /* NULL: none yet */
	bool stale;      /* invalidated while in use: free it on next use */
} AsOfPlan;

static HTAB *AsOfCache = NULL;
static int AsOfDepth = 0; /* calls running (a plan in use is not freed) */

/* Drop the plans that read relid (relcache subscriber; InvalidOid: all). */
void
DocmodelHistoryRelcache(Oid relid)
{
	HASH_SEQ_STATUS status;
	AsOfPlan *p;
	bool all = !OidIsValid(relid) || relid == DocmodelConfigRelidCached();

	if (AsOfCache == NULL)
		return;
	hash_seq_init(&status, AsOfCache);
	while ((p = hash_seq_search(&status)) != NULL)
		if (all || p->relid == relid || p->hist == relid)
		{
			if (AsOfDepth > 0)
				p->stale = true;
			else
			{
				if (p->plan != NULL)
					SPI_freeplan(p->plan);
				hash_search(AsOfCache, &p->relid, HASH_REMOVE, NULL);
			}
		}
}

/*
 * The prepared statement of get(coll, key, as_of) for collection relid
 * (SPI connected): made by _get_as_of_sql, which checks the collection and
 * its history table as every reader of history does (42809, 55000, 42P01),
 * and checked to read those two tables alone.
 */
static SPIPlanPtr
AsOfPlanFor(Oid relid)
{
	AsOfPlan *p;
	bool found;
	Oid argtypes[2] = {TEXTOID, TIMESTAMPTZOID};
	Oid qtype[1] = {REGCLASSOID};
	Datum qarg[1];
	Oid rels[2];
	bool isnull;
	char *sql;
	SPIPlanPtr plan;

	if (AsOfCache == NULL)
		AsOfCache = DocmodelHash("docmodel as-of plans", 16, sizeof(Oid),
								 sizeof(AsOfPlan), false, NULL);
	p = hash_search(AsOfCache, &relid, HASH_ENTER, &found);
	if (found && p->stale)
	{
		if (p->plan != NULL && AsOfDepth == 0)
			SPI_freeplan(p->plan);
		p->plan = NULL;
		p->stale = false;
	}
	if (!found)
	{
		p->plan = NULL;
		p->stale = false;
		p->hist = InvalidOid;
	}
	if (p->plan != NULL)
		return p->plan;
	qarg[0] = ObjectIdGetDatum(relid);
	if (SPI_execute_with_args("SELECT s.hist::pg_catalog.oid, s.sql "
							  "FROM docmodel._get_as_of_sql($1) AS s",
							  1, qtype, qarg, NULL, true, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "docmodel._get_as_of_sql failed");
	rels[0] = relid;
	rels[1] = DatumGetObjectId(SPI_getbinval(
		SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	sql = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2);
	if (isnull || sql == NULL)
		elog(ERROR, "docmodel._get_as_of_sql returned no statement");
	plan = SPI_prepare(sql, 2, argtypes);
	if (plan == NULL)
		elog(ERROR, "SPI_prepare failed: %s",
			 SPI_result_code_string(SPI_result));
	DocmodelCheckPlanTargets(plan, rels, 2);
	if (SPI_keepplan(plan) != 0)
		elog(ERROR, "SPI_keepplan failed");
	/* (the lookup above may have invalidated the entry: find it again) */
	p = hash_search(AsOfCache, &relid, HASH_ENTER, &found);
	if (found && p->plan != NULL && AsOfDepth == 0)
		SPI_freeplan(p->plan);
	p->hist = rels[1];
	p->plan = plan;
	p->stale = false;
	return plan;
}

/*
 * SQL: get(coll, key, as_of) -> jsonb, the document as it was at as_of
 * (doc/revisions.md, "As of a time"); NULL coll or as_of 22004, NULL key
 * NULL. Runs as the caller: SELECT on the collection and its history,
 * their row-level security.
 */
Datum
history_get_as_of(PG_FUNCTION_ARGS)
{
	Oid relid;
	SPIPlanPtr plan;
	Datum values[2];
	Datum result = (Datum) 0;
	bool isnull = true;

	DocmodelRequireArg(fcinfo, 0, "coll");
	DocmodelRequireArg(fcinfo, 2, "as_of");
	relid = PG_GETARG_OID(0);
	(void) DocmodelCollectionOf(relid); /* 42809 (cached when it is one) */
	DocmodelSpiConnect();
	AsOfDepth++;
	PG_TRY();
	{
		plan = AsOfPlanFor(relid);
		if (!PG_ARGISNULL(1))
		{
			values[0] = PG_GETARG_DATUM(1);
			values[1] = PG_GETARG_DATUM(2);
			if (SPI_execute_plan(plan, values, NULL, true, 1) != SPI_OK_SELECT)
				elog(ERROR, "the statement of get(..., as_of) failed");
			if (SPI_processed == 1)
			{
				result = SPI_getbinval(SPI_tuptable->vals[0],
									   SPI_tuptable->tupdesc, 2, &isnull);
				if (!isnull)
					result = SPI_datumTransfer(result, false, -1);
			}
		}
	}
	PG_FINALLY();
	{
		AsOfDepth--;
	}
	PG_END_TRY();
	SPI_finish();
	if (isnull)
		PG_RETURN_NULL();
	PG_RETURN_DATUM(result);
}

/*
 * SQL: purge_expired(coll) -> bigint: the expired documents deleted (the
 * key-value API's, kv_purge_expired), then, for a collection with
 * keep_for, the revisions past keep and keep_for (set_revisions).
 */
Datum
history_purge_expired(PG_FUNCTION_ARGS)
{
	Datum n;

	DocmodelRequireArg(fcinfo, 0, "coll");
	n = DirectFunctionCall1(kv_purge_expired, PG_GETARG_DATUM(0));
	(void) DocmodelRevisionPurge(DocmodelCollectionOf(PG_GETARG_OID(0)));
	PG_RETURN_DATUM(n);
}
