/*-------------------------------------------------------------------------
 *
 * migrate/run.c
 *	  The bulk run of migrations: the migrate_collection procedure, which
 *	  migrates a collection in batches, committing between them (its SQL
 *	  work is in sql/parts/30_migrations.sql).
 *
 *	  Shared state: none in the backend; a run's progress is in the run
 *	  table, so an interrupted run resumes where it stopped.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/relation.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/timestamp.h"

#include "collection/config.h"
#include "docmodel.h"
#include "collection/version.h"
#include "migrate/run.h"
#include "collection/layout.h"

PG_FUNCTION_INFO_V1(migration_migrate_collection);
PG_FUNCTION_INFO_V1(migration_migrate_tables);

/* Run one statement through SPI with text arguments; raise on failure. */
static void
RunSpi(const char *sql, int nargs, Oid *types, Datum *values, const char *nulls,
	   int expect)
{
	int ret = SPI_execute_with_args(sql, nargs, types, values, nulls, false, 0);

	if (ret != expect)
		elog(ERROR, "%s failed: %s", sql, SPI_result_code_string(ret));
}

/*
 * Raise again the error a bulk run's batch caught and recorded (its SQLSTATE
 * text, message, detail, hint and context), once that record is committed.
 */
static void
RaiseRecorded(const char *state, const char *msg, const char *detail,
			  const char *hint, const char *where)
{
	ereport(ERROR,
			(errcode(MAKE_SQLSTATE(state[0], state[1], state[2], state[3],
								   state[4])),
			 errmsg_internal("%s", msg),
			 (detail && detail[0]) ? errdetail_internal("%s", detail) : 0,
			 (hint && hint[0]) ? errhint("%s", hint) : 0,
			 (where && where[0]) ? errcontext("%s", where) : 0));
}

/* Return column col of the first result row as a palloc'd string, or NULL. */
static char *
SpiText(int col)
{
	return SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, col);
}

/*
 * Check that the table relid still has the columns a run reads and writes
 * by name (id text, doc jsonb): 55000 or 42804 naming the column. Locks it
 * for the current transaction; a table that is gone is left to the run's
 * SQL, which reports it.
 */
static void
CheckRunTable(Oid relid)
{
	Relation rel = try_relation_open(relid, AccessShareLock);

	if (rel == NULL)
		return;
	DocmodelCheckLayout(rel, DOCMODEL_LAYOUT_DOCUMENTS);
	relation_close(rel, NoLock);
}

/*
 * CALL migrate_collection(coll, doc_type, target, batch_size): start or
 * resume a run (_migration_start), then migrate batch after batch
 * (_migration_batch), committing after each and printing its progress. A
 * batch that fails is rolled back and recorded by _migration_batch; its
 * error is raised here after that record is committed and the lock freed.
 * Must be called by CALL outside a transaction block (it commits).
 */
Datum
migration_migrate_collection(PG_FUNCTION_ARGS)
{
	Oid types[4] = {OIDOID, TEXTOID, TEXTOID, INT4OID};
	Datum values[4];
	char nulls[5] = "    ";
	Oid btypes[2] = {INT8OID, INT4OID};
	Datum bvalues[2];
	int64 run;
	int64 this_run = 0;
	int64 done = 0;
	TimestampTz started;
	char *collname;
	int i;

	DocmodelRequireCall(fcinfo, "migrate_collection");
	for (i = 0; i < 4; i++)
	{
		values[i] = PG_GETARG_DATUM(i); /* ignored where null */
		nulls[i] = PG_ARGISNULL(i) ? 'n' : ' ';
	}
	if (!PG_ARGISNULL(2)) /* the version as text */
		values[2] = CStringGetTextDatum(
			DocmodelVersionToCString(PG_GETARG_DOCVERSION_P(2)));

	if (!PG_ARGISNULL(0))
		CheckRunTable(PG_GETARG_OID(0));
	if (SPI_connect_ext(SPI_OPT_NONATOMIC) != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	RunSpi("SELECT docmodel._migration_start($1::pg_catalog.regclass, $2, "
		   "$3::docmodel.version, $4)",
		   4, types, values, nulls, SPI_OK_SELECT);
	run = pg_strtoint64(SpiText(1));
	collname = PG_ARGISNULL(0) ? "" : get_rel_name(PG_GETARG_OID(0));
	SPI_commit();
	SPI_start_transaction();

	started = GetCurrentTimestamp();
	bvalues[0] = Int64GetDatum(run);
	bvalues[1] = PG_ARGISNULL(3) ? Int32GetDatum(5000) : PG_GETARG_DATUM(3);
	for (;;)
	{
		char *n_text;
		char *state;
		int64 n;
		int64 total;
		double secs;
		double rate;

		RunSpi("SELECT * FROM docmodel._migration_batch($1, $2)", 2, btypes,
			   bvalues, NULL, SPI_OK_SELECT);
		n_text = SpiText(1);
		n = pg_strtoint64(n_text);
		done = pg_strtoint64(SpiText(2));
		total = pg_strtoint64(SpiText(3));
		state = SpiText(4);
		if (state != NULL)
		{
			/* keep the error past the commit that records it */
			char *msg = SpiText(5);
			char *detail = SpiText(6);
			char *hint = SpiText(7);
			char *where = SpiText(8); /* the step, key and path */

			SPI_commit();
			SPI_start_transaction();
			RunSpi("SELECT docmodel._migration_unlock($1)", 1, btypes, bvalues,
				   NULL, SPI_OK_SELECT);
			RaiseRecorded(state, msg, detail, hint, where);
		}
		SPI_commit();
		SPI_start_transaction();
		if (n == 0)
			break;
		this_run += n;
		secs = (double) (GetCurrentTimestamp() - started) / USECS_PER_SEC;
		rate = (double) this_run / Max(secs, 0.001);
		ereport(NOTICE,
				(errmsg("migrated " INT64_FORMAT "/" INT64_FORMAT
						" (%d%%), %.0f docs/s, eta %.0fs",
						done, total, (int) (100.0 * done / Max(total, 1)), rate,
						ceil((double) Max(total - done, 0) / Max(rate, 1.0)))));
	}
	RunSpi("SELECT docmodel._migration_unlock($1)", 1, btypes, bvalues, NULL,
		   SPI_OK_SELECT);
	SPI_finish();
	ereport(NOTICE, (errmsg("run " INT64_FORMAT " done: " INT64_FORMAT
							" documents of %s migrated",
							run, done, collname ? collname : "?")));
	PG_RETURN_VOID();
}

/*
 * CALL migrate_tables(mapping, coll, batch_size): the documents of a
 * mapping upserted into a collection batch by batch, each batch committed
 * (relational.sql's _migrate_tables_start and _migrate_tables_batch do the
 * work and record the run; the state between them travels as text).
 */
Datum
migration_migrate_tables(PG_FUNCTION_ARGS)
{
	Oid types[3] = {TEXTOID, OIDOID, INT4OID};
	Datum values[3];
	char nulls[4] = "   ";
	Oid stype = TEXTOID;
	Datum state;
	char *text;
	int i;

	DocmodelRequireCall(fcinfo, "migrate_tables");
	for (i = 0; i < 3; i++)
	{
		values[i] = PG_GETARG_DATUM(i); /* ignored where null */
		nulls[i] = PG_ARGISNULL(i) ? 'n' : ' ';
	}
	if (SPI_connect_ext(SPI_OPT_NONATOMIC) != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	RunSpi("SELECT docmodel._migrate_tables_start($1, "
		   "$2::pg_catalog.regclass, $3)",
		   3, types, values, nulls, SPI_OK_SELECT);
	for (text = SpiText(1); text != NULL; text = SpiText(1))
	{
		SPI_commit();
		SPI_start_transaction();
		state = CStringGetTextDatum(text);
		RunSpi(
			"SELECT s, e OPERATOR(pg_catalog.->>) 'state', "
			"e OPERATOR(pg_catalog.->>) 'message', "
			"e OPERATOR(pg_catalog.->>) 'detail', "
			"e OPERATOR(pg_catalog.->>) 'hint', "
			"e OPERATOR(pg_catalog.->>) 'context' "
			"FROM docmodel._migrate_tables_batch($1::pg_catalog.jsonb) AS s, "
			"LATERAL (SELECT s OPERATOR(pg_catalog.->) 'error') AS x(e)",
			1, &stype, &state, NULL, SPI_OK_SELECT);
		if (SpiText(2) != NULL)
		{
			/* the failed batch was recorded: commit that, then raise */
			char *code = SpiText(2);
			char *msg = SpiText(3);
			char *detail = SpiText(4);
			char *hint = SpiText(5);
			char *where = SpiText(6);

			SPI_commit();
			SPI_start_transaction();
			RaiseRecorded(code, msg, detail, hint, where);
		}
	}
	SPI_commit();
	SPI_start_transaction();
	SPI_finish();
	PG_RETURN_VOID();
}
