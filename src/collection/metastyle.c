/*-------------------------------------------------------------------------
 *
 * collection/metastyle.c
 *	  set_meta_style(coll, meta_style, batch_size): a populated collection
 *	  converted between the meta styles 'underscore' and 'columns', batch
 *	  by batch in key order, committing after each, resumable.
 *
 * The state of a conversion is in the collection's configuration
 * (meta_style_to: the style it goes to; meta_style_key: the last key
 * done), written by _config_set_meta_style (catalog.c). While it runs the
 * collection has meta_style 'columns' and its stamp columns, both ways: a
 * row whose ver column is null holds its document as the underscore style
 * stores it, and every reader (columns.c, DocmodelColumnsDocument) and the
 * trigger (which splits such a stored document before a write) take it so.
 * Going back, the last step (under ACCESS EXCLUSIVE) merges the rows
 * written in columns meanwhile, then switches the style and drops the
 * columns.
 *
 * A batch rewrites rows without the collection trigger's stamps, cas or
 * history: while its UPDATE of one key runs, the trigger lets exactly that
 * row of that collection through (DocmodelMetaStyleConverting).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "collection/columns.h"
#include "collection/config.h"
#include "collection/layout.h"
#include "collection/metastyle.h"
#include "docmodel.h"

PG_FUNCTION_INFO_V1(metastyle_batch);
PG_FUNCTION_INFO_V1(metastyle_set_meta_style);

/* The most rows one batch takes. */
#define METASTYLE_MAX_BATCH 100000

/* The row a batch is rewriting (its collection, its key), or none. */
static Oid ConvertRelid = InvalidOid;
static text *ConvertKey = NULL;

/*
 * Whether the collection trigger's event td is the UPDATE of the row a
 * batch is rewriting: then the trigger lets it through as it is.
 */
bool
DocmodelMetaStyleConverting(TriggerData *td)
{
	Datum id;
	bool isnull;
	text *t;

	if (!OidIsValid(ConvertRelid) || ConvertKey == NULL ||
		RelationGetRelid(td->tg_relation) != ConvertRelid ||
		!TRIGGER_FIRED_BY_UPDATE(td->tg_event) ||
		!TRIGGER_FIRED_FOR_ROW(td->tg_event) || td->tg_newtuple == NULL)
		return false;
	id = heap_getattr(td->tg_newtuple, DOCMODEL_COLL_ATT_ID,
					  RelationGetDescr(td->tg_relation), &isnull);
	if (isnull)
		return false;
	t = DatumGetTextPP(id);
	return VARSIZE_ANY_EXHDR(t) == VARSIZE_ANY_EXHDR(ConvertKey) &&
		   memcmp(VARDATA_ANY(t), VARDATA_ANY(ConvertKey),
				  VARSIZE_ANY_EXHDR(t)) == 0;
}

/* Raise 22023 unless batch is a batch size set_meta_style takes. */
static void
CheckBatch(int32 batch)
{
	if (batch < 1 || batch > METASTYLE_MAX_BATCH)
		ereport(ERROR, (errcode(batch < 1 ? ERRCODE_INVALID_PARAMETER_VALUE
										  : ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						errmsg("batch_size %d is out of range", batch),
						errdetail("set_meta_style takes 1 to %d rows a batch.",
								  METASTYLE_MAX_BATCH)));
}

/* Run the prepared UPDATE plan for key with values, the trigger let by. */
static void
RewriteRow(SPIPlanPtr plan, Oid relid, Datum *values, const char *nulls)
{
	ConvertRelid = relid;
	ConvertKey = DatumGetTextPP(values[0]);
	PG_TRY();
	{
		if (SPI_execute_plan(plan, values, nulls, false, 0) != SPI_OK_UPDATE)
			ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
							errmsg("set_meta_style: rewriting a row failed")));
	}
	PG_FINALLY();
	{
		ConvertRelid = InvalidOid;
		ConvertKey = NULL;
	}
	PG_END_TRY();
}

/*
 * One row of a batch: doc (and, going back, the stamp columns sv, sn) of
 * key into values/nulls of the UPDATE ($1 key, $2 doc, $3.. the columns).
 * Returns false when the row stays as it is.
 */
static bool
ConvertRow(const DocmodelCollection *cfg, bool to_columns, text *key,
		   Jsonb *doc, Datum *sv, bool *sn, Datum *values, char *nulls)
{
	Datum v[DOCMODEL_STAMP_NCOLUMNS];
	bool n[DOCMODEL_STAMP_NCOLUMNS];
	Jsonb *out;
	int i;

	if (to_columns)
	{
		if (!DocmodelColumnsSplit(cfg, VARDATA_ANY(key), VARSIZE_ANY_EXHDR(key),
								  doc, &out, v, n, false))
			return false;
	}
	else
	{
		if (sn[DOCMODEL_STAMP_VER])
			return false;
		out = DocmodelColumnsDocument(cfg, VARDATA_ANY(key),
									  VARSIZE_ANY_EXHDR(key), doc, sv, sn);
		memset(n, true, sizeof(n));
	}
	values[0] = PointerGetDatum(key);
	nulls[0] = ' ';
	values[1] = JsonbPGetDatum(out);
	nulls[1] = ' ';
	for (i = 0; i < DOCMODEL_STAMP_NCOLUMNS; i++)
	{
		values[2 + i] = n[i] ? (Datum) 0 : v[i];
		nulls[2 + i] = n[i] ? 'n' : ' ';
	}
	return true;
}

/*
 * Read the conversion state of collection relid: its config id, the style
 * it goes to (NULL: none), the last key done. Returns false without one.
 */
static bool
ReadState(Oid relid, int32 *id, char **to, char **after)
{
	Oid types[1] = {OIDOID};
	Datum values[1] = {ObjectIdGetDatum(relid)};
	bool isnull;

	if (SPI_execute_with_args(
			"SELECT c.id, c.meta_style_to, c.meta_style_key "
			"FROM docmodel.collection_config AS c "
			"WHERE c.coll::pg_catalog.oid OPERATOR(pg_catalog.=) $1",
			1, types, values, NULL, true, 1) != SPI_OK_SELECT)
		ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
						errmsg("reading docmodel.collection_config failed")));
	if (SPI_processed != 1)
		return false;
	*id = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0],
									  SPI_tuptable->tupdesc, 1, &isnull));
	*to = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2);
	*after = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3);
	return *to != NULL;
}

/* The statements of a batch on collection qname (see metastyle_batch). */
static void
PlanBatch(const char *qname, bool to_columns, bool sweep, SPIPlanPtr *sel,
		  SPIPlanPtr *upd)
{
	Oid stypes[2] = {TEXTOID, INT4OID};
	Oid utypes[7] = {TEXTOID, JSONBOID, TIMESTAMPTZOID, TIMESTAMPTZOID,
					 INT4OID, INT4OID,  INT4OID};

	*sel = SPI_prepare(
		psprintf("SELECT c.id, c.doc, c.created_at, c.modified_at, c.ver, "
				 "c.created_by, c.modified_by FROM %s AS c WHERE %s AND "
				 "c.ver IS %s NULL ORDER BY c.id LIMIT $2 FOR UPDATE",
				 qname,
				 sweep ? "$1::pg_catalog.text IS NULL"
					   : "($1::pg_catalog.text IS NULL OR c.id "
						 "OPERATOR(pg_catalog.>) $1)",
				 to_columns ? "" : "NOT"),
		2, stypes);
	*upd = SPI_prepare(
		psprintf("UPDATE %s AS c SET doc = $2, created_at = $3, "
				 "modified_at = $4, ver = $5, created_by = $6, "
				 "modified_by = $7 WHERE c.id OPERATOR(pg_catalog.=) $1",
				 qname),
		7, utypes);
	if (*sel == NULL || *upd == NULL)
		ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
						errmsg("set_meta_style: preparing a batch failed")));
}

/* Record after as the last key done of the conversion of coll to to. */
static void
RecordKey(Datum coll, const char *to, const char *after)
{
	Oid types[3] = {REGCLASSOID, TEXTOID, TEXTOID};
	Datum values[3] = {coll, CStringGetTextDatum(to),
					   after ? CStringGetTextDatum(after) : (Datum) 0};
	char nulls[3] = {' ', ' ', after ? ' ' : 'n'};

	if (SPI_execute_with_args("SELECT docmodel._config_set_meta_style($1, "
							  "'columns', $2, $3)",
							  3, types, values, nulls, false,
							  0) != SPI_OK_SELECT)
		ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
						errmsg("set_meta_style: recording progress failed")));
}

/*
 * _meta_style_batch(coll, batch_size, sweep) -> bigint: the next
 * batch_size rows of the conversion under way of coll (the owner's alone)
 * after its last key done, rewritten; the number of rows taken (fewer than
 * batch_size: the pass is over). sweep (going back, under the lock of the
 * last step): the rows still in columns, whatever their key. 0 when no
 * conversion is under way.
 */
Datum
metastyle_batch(PG_FUNCTION_ARGS)
{
	Oid relid;
	int32 batch;
	bool sweep;
	int32 id;
	char *to;
	char *after;
	bool to_columns;
	DocmodelCollection cfg;
	SPIPlanPtr sel;
	SPIPlanPtr upd;
	SPITupleTable *tt;
	uint64 nrows;
	uint64 i;
	char *last = NULL;
	MemoryContext rowcxt;
	MemoryContext old;
	Datum svalues[2];
	char snulls[2];

	DocmodelRequireArg(fcinfo, 0, "coll");
	DocmodelRequireArg(fcinfo, 1, "batch_size");
	DocmodelRequireArg(fcinfo, 2, "sweep");
	relid = PG_GETARG_OID(0);
	batch = PG_GETARG_INT32(1);
	sweep = PG_GETARG_BOOL(2);
	CheckBatch(batch);
	DocmodelRequireOwner(relid);
	DocmodelSpiConnect();
	if (!ReadState(relid, &id, &to, &after))
	{
		SPI_finish();
		PG_RETURN_INT64(0);
	}
	cfg = *DocmodelCollectionById(id);
	to_columns = strcmp(to, "columns") == 0;
	if (!cfg.columns || (sweep && to_columns))
	{
		SPI_finish();
		PG_RETURN_INT64(0);
	}
	PlanBatch(
		quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
								   get_rel_name(relid)),
		to_columns, sweep, &sel, &upd);
	svalues[0] = (after && !sweep) ? CStringGetTextDatum(after) : (Datum) 0;
	snulls[0] = (after && !sweep) ? ' ' : 'n';
	svalues[1] = Int32GetDatum(batch);
	snulls[1] = ' ';
	if (SPI_execute_plan(sel, svalues, snulls, false, 0) != SPI_OK_SELECT)
		ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
						errmsg("set_meta_style: reading a batch failed")));
	tt = SPI_tuptable;
	nrows = SPI_processed;
	rowcxt = AllocSetContextCreate(CurrentMemoryContext, "set_meta_style row",
								   ALLOCSET_DEFAULT_SIZES);
	for (i = 0; i < nrows; i++)
	{
		Datum row[7];
		bool rn[7];
		Datum values[7];
		char nulls[7];
		int c;

		CHECK_FOR_INTERRUPTS();
		old = MemoryContextSwitchTo(rowcxt);
		for (c = 0; c < 7; c++)
			row[c] = SPI_getbinval(tt->vals[i], tt->tupdesc, c + 1, &rn[c]);
		if (!rn[0] && !rn[1] &&
			ConvertRow(&cfg, to_columns, DatumGetTextPP(row[0]),
					   DatumGetJsonbP(row[1]), &row[2], &rn[2], values, nulls))
			RewriteRow(upd, relid, values, nulls);
		MemoryContextSwitchTo(old);
		MemoryContextReset(rowcxt);
		if (i == nrows - 1 && !rn[0])
			last = SPI_getvalue(tt->vals[i], tt->tupdesc, 1);
	}
	if (!sweep && last != NULL)
		RecordKey(PG_GETARG_DATUM(0), to, last);
	SPI_finish();
	PG_RETURN_INT64((int64) nrows);
}

/* Run "SELECT sql" with coll, meta_style/batch; its first column. */
static Datum
RunStep(const char *sql, int nargs, Oid *types, Datum *values)
{
	bool isnull;

	if (SPI_execute_with_args(sql, nargs, types, values, NULL, false, 0) !=
			SPI_OK_SELECT ||
		SPI_processed != 1)
		ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
						errmsg("set_meta_style: \"%s\" failed", sql)));
	return SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1,
						 &isnull);
}

/*
 * CALL set_meta_style(coll, meta_style, batch_size): begin (or resume) the
 * conversion (_meta_style_begin), its batches, committing after each, and
 * its last step (_meta_style_finish). Must be called by CALL outside a
 * transaction block; the caller must own the collection.
 */
Datum
metastyle_set_meta_style(PG_FUNCTION_ARGS)
{
	Oid types[3] = {REGCLASSOID, TEXTOID, INT4OID};
	Datum values[3];

	DocmodelRequireArg(fcinfo, 0, "coll");
	DocmodelRequireArg(fcinfo, 1, "meta_style");
	DocmodelRequireArg(fcinfo, 2, "batch_size");
	CheckBatch(PG_GETARG_INT32(2));
	DocmodelRequireOwner(PG_GETARG_OID(0));
	DocmodelRequireCall(fcinfo, "set_meta_style");
	values[0] = PG_GETARG_DATUM(0);
	values[1] = PG_GETARG_DATUM(1);
	values[2] = PG_GETARG_DATUM(2);
	if (SPI_connect_ext(SPI_OPT_NONATOMIC) != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (DatumGetBool(RunStep("SELECT docmodel._meta_style_begin($1, $2)", 2,
							 types, values)))
	{
		Oid btypes[2] = {REGCLASSOID, INT4OID};
		Datum bvalues[2] = {values[0], values[2]};

		for (;;)
		{
			CHECK_FOR_INTERRUPTS();
			SPI_commit();
			SPI_start_transaction();
			if (DatumGetInt64(
					RunStep("SELECT docmodel._meta_style_batch($1, $2, false)",
							2, btypes, bvalues)) < PG_GETARG_INT32(2))
				break;
		}
		SPI_commit();
		SPI_start_transaction();
		(void) RunStep("SELECT docmodel._meta_style_finish($1, $2)", 2, btypes,
					   bvalues);
	}
	SPI_commit();
	SPI_start_transaction();
	SPI_finish();
	PG_RETURN_VOID();
}
