/*-------------------------------------------------------------------------
 *
 * collection/docview.c
 *	  The INSTEAD OF trigger of a documents view (<collection>_documents)
 *	  of meta_style 'columns', whose doc is computed: an INSERT, UPDATE or
 *	  DELETE of the view is the same statement on the collection, run as
 *	  the caller (the collection's privileges, triggers and checks apply),
 *	  and returns the row as the view shows it (RETURNING).
 *
 * Backend-local state: DocviewPlans, the three prepared statements of each
 * collection (by configuration id), dropped when the collection's relcache
 * entry is invalidated. Per row: no catalog access, no planning.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "collection/config.h"
#include "collection/docview.h"
#include "docmodel.h"

PG_FUNCTION_INFO_V1(docview_documents_trigger);

typedef enum DocviewStmt
{
	DOCVIEW_INSERT,
	DOCVIEW_UPDATE,
	DOCVIEW_DELETE,
	DOCVIEW_NSTMTS
} DocviewStmt;

/*
 * %1$s: the collection; %2$s: its document as the view shows it. A row
 * comes back in the view's columns (id, doc, cas, expires_at,
 * locked_until).
 */
#define DOCVIEW_RETURNING                                                   \
	" RETURNING c.id, docmodel._document(%2$d, c.id, c.doc, c.created_at, " \
	"c.modified_at, c.ver, c.created_by, c.modified_by), c.cas, "           \
	"c.expires_at, c.locked_until"

static const char *const DocviewSql[DOCVIEW_NSTMTS] = {
	[DOCVIEW_INSERT] =
		"INSERT INTO %1$s AS c (id, doc, expires_at, "
		"locked_until) VALUES ($1, $2, $3, $4)" DOCVIEW_RETURNING,
	[DOCVIEW_UPDATE] = "UPDATE %1$s AS c SET id = $5, doc = $2, "
					   "expires_at = $3, locked_until = $4 "
					   "WHERE c.id OPERATOR(pg_catalog.=) $1" DOCVIEW_RETURNING,
	[DOCVIEW_DELETE] = "DELETE FROM %1$s AS c WHERE c.id "
					   "OPERATOR(pg_catalog.=) $1 RETURNING c.id",
};
static const Oid DocviewArgs[5] = {TEXTOID, JSONBOID, TIMESTAMPTZOID,
								   TIMESTAMPTZOID, TEXTOID};
static const int DocviewNargs[DOCVIEW_NSTMTS] = {4, 5, 1};

typedef struct DocviewPlans
{
	int32 id;  /* hash key: the collection's configuration id */
	Oid relid; /* the collection */
	SPIPlanPtr plans[DOCVIEW_NSTMTS];
} DocviewPlans;

static HTAB *DocviewCache = NULL;

/* Drop a collection's plans when it changes (relcache subscriber). */
void
DocmodelDocviewRelcache(Oid relid)
{
	HASH_SEQ_STATUS status;
	DocviewPlans *p;

	if (DocviewCache == NULL)
		return;
	hash_seq_init(&status, DocviewCache);
	while ((p = hash_seq_search(&status)) != NULL)
		if (relid == InvalidOid || p->relid == relid)
		{
			int i;

			for (i = 0; i < DOCVIEW_NSTMTS; i++)
				if (p->plans[i] != NULL)
					SPI_freeplan(p->plans[i]);
			hash_search(DocviewCache, &p->id, HASH_REMOVE, NULL);
		}
}

/* The prepared statement stmt of collection id (SPI connected). */
static SPIPlanPtr
DocviewPlan(int32 id, DocviewStmt stmt)
{
	DocviewPlans *p;
	bool found;

	if (DocviewCache == NULL)
		DocviewCache =
			DocmodelHash("docmodel documents views", 16, sizeof(int32),
						 sizeof(DocviewPlans), false, NULL);
	p = hash_search(DocviewCache, &id, HASH_ENTER, &found);
	if (!found)
	{
		memset(p->plans, 0, sizeof(p->plans));
		p->relid = InvalidOid;
	}
	if (p->plans[stmt] == NULL)
	{
		Oid relid = DocmodelCollectionById(id)->relid;
		char *nsp = get_namespace_name(get_rel_namespace(relid));
		char *rel = get_rel_name(relid);
		SPIPlanPtr plan;

		if (nsp == NULL || rel == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_TABLE),
					 errmsg("collection with OID %u does not exist", relid)));
		plan = SPI_prepare(psprintf(DocviewSql[stmt],
									quote_qualified_identifier(nsp, rel), id),
						   DocviewNargs[stmt], (Oid *) DocviewArgs);
		if (plan == NULL)
			elog(ERROR, "SPI_prepare failed: %s",
				 SPI_result_code_string(SPI_result));
		DocmodelCheckPlanTargets(plan, &relid, 1);
		if (SPI_keepplan(plan) != 0)
			elog(ERROR, "SPI_keepplan failed");
		/* the lookups may have processed invalidations: find it again */
		p = hash_search(DocviewCache, &id, HASH_ENTER, &found);
		if (!found)
			memset(p->plans, 0, sizeof(p->plans));
		p->relid = relid;
		p->plans[stmt] = plan;
	}
	return p->plans[stmt];
}

/*
 * _documents_trigger(): INSTEAD OF INSERT OR UPDATE OR DELETE FOR EACH ROW
 * on a documents view, with the collection's configuration id as its one
 * argument. The view's columns are (id, doc, cas, expires_at,
 * locked_until); cas is the collection's to set.
 */
Datum
docview_documents_trigger(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	TupleDesc desc;
	HeapTuple src;
	DocviewStmt stmt;
	Datum values[5];
	char nulls[5] = {' ', ' ', ' ', ' ', ' '};
	bool isnull;
	int32 id;
	int ret;
	HeapTuple result = NULL;
	int i;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_INSTEAD(td->tg_event) ||
		!TRIGGER_FIRED_FOR_ROW(td->tg_event))
		DocmodelTriggerMisuse("_documents_trigger",
							  "an INSTEAD OF ... FOR EACH ROW trigger");
	desc = RelationGetDescr(td->tg_relation);
	if (td->tg_trigger->tgnargs != 1 || desc->natts != 5 ||
		TupleDescAttr(desc, 0)->atttypid != TEXTOID ||
		TupleDescAttr(desc, 1)->atttypid != JSONBOID ||
		TupleDescAttr(desc, 3)->atttypid != TIMESTAMPTZOID ||
		TupleDescAttr(desc, 4)->atttypid != TIMESTAMPTZOID)
		DocmodelTriggerMisuse("_documents_trigger",
							  "a trigger with the collection id argument on a "
							  "view (id, doc, cas, expires_at, locked_until)");
	id = pg_strtoint32(td->tg_trigger->tgargs[0]);
	if (TRIGGER_FIRED_BY_INSERT(td->tg_event))
		stmt = DOCVIEW_INSERT;
	else if (TRIGGER_FIRED_BY_UPDATE(td->tg_event))
		stmt = DOCVIEW_UPDATE;
	else
		stmt = DOCVIEW_DELETE;
	/* $1: the key (the old one for UPDATE and DELETE), $2-$4 the new row's,
	 * $5 the new key */
	src = stmt == DOCVIEW_UPDATE ? td->tg_newtuple : td->tg_trigtuple;
	for (i = 0; i < 5; i++)
	{
		static const int atts[5] = {1, 2, 4, 5, 1};
		int att = atts[i];
		HeapTuple t =
			(i == 0 && stmt != DOCVIEW_INSERT) ? td->tg_trigtuple : src;

		values[i] = heap_getattr(t, att, desc, &isnull);
		nulls[i] = isnull ? 'n' : ' ';
	}
	DocmodelSpiConnect();
	ret = SPI_execute_plan(DocviewPlan(id, stmt), values, nulls, false, 1);
	if (ret < 0)
		elog(ERROR, "SPI_execute_plan failed: %s", SPI_result_code_string(ret));
	if (SPI_processed == 1)
		result = stmt == DOCVIEW_DELETE ? td->tg_trigtuple
										: SPI_copytuple(SPI_tuptable->vals[0]);
	SPI_finish();
	return PointerGetDatum(result);
}
