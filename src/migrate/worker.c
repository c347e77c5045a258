/*-------------------------------------------------------------------------
 *
 * migrate/worker.c
 *	  The background worker of start_migration (README, "Schema versions
 *	  and migrations", "From a migration tool"): a bulk run started inside
 *	  a transaction, which migrate_collection cannot be. _migration_launch
 *	  registers a dynamic background worker (no shared_preload_libraries
 *	  needed) for a run start_migration recorded queued; the worker connects
 *	  as the role that called it, waits for the caller's transaction to
 *	  end, and runs the run as migrate_collection does (_migration_start,
 *	  then _migration_batch after _migration_batch, each committed), or
 *	  stops when the run is not there (the caller rolled back) or no longer
 *	  queued (another call took it).
 *
 *	  Shared state: none; the run's progress is in docmodel.migration_run.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/lmgr.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "docmodel.h"
#include "migrate/worker.h"

PG_FUNCTION_INFO_V1(migration_launch);

/* What a run's worker is told (its bgw_extra). */
typedef struct RunWorkerArgs
{
	Oid database;
	Oid role;
	int64 run;
	TransactionId xid; /* the caller's: the run exists once it commits */
	int32 batch_size;
} RunWorkerArgs;

StaticAssertDecl(sizeof(RunWorkerArgs) <= BGW_EXTRALEN,
				 "RunWorkerArgs must fit in bgw_extra");

/*
 * SQL: _migration_launch(run bigint, batch_size integer): register the
 * worker of a queued run, connected as the current user. 53400 when no
 * worker slot is free.
 */
Datum
migration_launch(PG_FUNCTION_ARGS)
{
	BackgroundWorker w;
	RunWorkerArgs a;

	Oid types[2] = {INT8OID, INT8OID};
	Datum values[2];
	int ret;

	memset(&w, 0, sizeof(w));
	memset(&a, 0, sizeof(a));
	a.database = MyDatabaseId;
	a.role = GetUserId();
	a.run = PG_GETARG_INT64(0);
	a.xid = GetTopTransactionId();
	a.batch_size = PG_GETARG_INT32(1);
	if (a.batch_size < 1)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("batch_size must be at least 1, not %d",
							   a.batch_size)));

	/*
	 * Only a run this transaction queued (start_migration, which checked
	 * UPDATE on its collection): no other caller starts a worker.
	 */
	values[0] = Int64GetDatum(a.run);
	values[1] = Int64GetDatum((int64) a.xid);
	DocmodelSpiConnect();
	ret = SPI_execute_with_args(
		"SELECT FROM docmodel.migration_run AS r "
		"WHERE r.run_id OPERATOR(pg_catalog.=) $1 "
		"AND r.status OPERATOR(pg_catalog.=) 'queued' "
		"AND r.xmin::pg_catalog.text OPERATOR(pg_catalog.=) "
		"$2::pg_catalog.text",
		2, types, values, NULL, true, 1);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "reading migration run " INT64_FORMAT " failed", a.run);
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("migration run " INT64_FORMAT
						" was not queued by this transaction",
						a.run),
				 errhint("Start runs with docmodel.start_migration().")));
	SPI_finish();
	w.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	w.bgw_start_time = BgWorkerStart_RecoveryFinished;
	w.bgw_restart_time = BGW_NEVER_RESTART;
	snprintf(w.bgw_library_name, BGW_MAXLEN, "docmodel");
	snprintf(w.bgw_function_name, BGW_MAXLEN, "docmodel_migration_worker_main");
	snprintf(w.bgw_name, BGW_MAXLEN, "docmodel migration run " INT64_FORMAT,
			 a.run);
	snprintf(w.bgw_type, BGW_MAXLEN, "docmodel migration");
	memcpy(w.bgw_extra, &a, sizeof(a));
	w.bgw_notify_pid = 0;
	if (!RegisterDynamicBackgroundWorker(&w, NULL))
		ereport(
			ERROR,
			(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
			 errmsg(
				 "no background worker is free for migration run " INT64_FORMAT,
				 a.run),
			 errhint("Raise max_worker_processes, or run CALL "
					 "docmodel.migrate_collection outside a transaction "
					 "block.")));
	PG_RETURN_VOID();
}

/*
 * Run one statement (args $1 the run, $2 the batch size) in a transaction
 * of its own; the first row's columns as text into out (ncols of them,
 * NULL when absent). Returns false when it gave no row.
 */
static bool
RunStep(const char *sql, const RunWorkerArgs *a, char **out, int ncols)
{
	Oid types[2] = {INT8OID, INT4OID};
	Datum values[2];
	bool found;
	int i;

	values[0] = Int64GetDatum(a->run);
	values[1] = Int32GetDatum(a->batch_size);
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	pgstat_report_activity(STATE_RUNNING, sql);
	DocmodelSpiConnect();
	if (SPI_execute_with_args(sql, 2, types, values, NULL, false, 1) < 0)
		elog(ERROR, "%s failed", sql);
	found = SPI_processed > 0;
	for (i = 0; i < ncols; i++)
	{
		char *v = found ? SPI_getvalue(SPI_tuptable->vals[0],
									   SPI_tuptable->tupdesc, i + 1)
						: NULL;

		out[i] = v ? MemoryContextStrdup(TopMemoryContext, v) : NULL;
	}
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	pgstat_report_activity(STATE_IDLE, NULL);
	return found;
}

/* Record a run as failed with the error in edata (after an abort). */
static void
RecordFailure(const RunWorkerArgs *a, ErrorData *edata)
{
	Oid types[2] = {INT8OID, TEXTOID};
	Datum values[2];

	values[0] = Int64GetDatum(a->run);
	values[1] = CStringGetTextDatum(edata->message ? edata->message : "?");
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	DocmodelSpiConnect();
	(void) SPI_execute_with_args(
		"SELECT docmodel._migration_run_set($1, 'failed', r.last_key, "
		"r.docs_done, r.docs_total, NULL, $2) "
		"FROM docmodel.migration_run AS r "
		"WHERE r.run_id OPERATOR(pg_catalog.=) $1",
		2, types, values, NULL, false, 1);
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
}

/* The run: start it (taking its lock), then batch after batch. */
static void
RunBatches(const RunWorkerArgs *a)
{
	char *row[4];

	/* still queued: the caller committed, and no one took it */
	if (!RunStep("SELECT pg_catalog.format('%s', r.coll::pg_catalog.oid) "
				 "FROM docmodel.migration_run AS r "
				 "WHERE r.run_id OPERATOR(pg_catalog.=) $1 "
				 "AND r.status OPERATOR(pg_catalog.=) 'queued'",
				 a, row, 1))
		return;
	(void) RunStep("SELECT docmodel._migration_start(r.coll, r.doc_type, "
				   "r.target, $2) "
				   "FROM docmodel.migration_run AS r "
				   "WHERE r.run_id OPERATOR(pg_catalog.=) $1",
				   a, row, 1);
	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		(void) RunStep("SELECT n, err_state FROM "
					   "docmodel._migration_batch($1, $2)",
					   a, row, 2);
		if (row[1] != NULL || row[0] == NULL || strcmp(row[0], "0") == 0)
			break;
	}
	(void) RunStep("SELECT docmodel._migration_unlock($1)", a, row, 1);
}

/* The worker of one run. */
void
docmodel_migration_worker_main(Datum arg)
{
	RunWorkerArgs a;

	memcpy(&a, MyBgworkerEntry->bgw_extra, sizeof(a));
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnectionByOid(a.database, a.role, 0);

	/* the run exists once the caller's transaction commits */
	StartTransactionCommand();
	if (TransactionIdIsValid(a.xid))
		XactLockTableWait(a.xid, NULL, NULL, XLTW_None);
	CommitTransactionCommand();

	PG_TRY();
	{
		RunBatches(&a);
	}
	PG_CATCH();
	{
		ErrorData *edata;

		MemoryContextSwitchTo(TopMemoryContext);
		edata = CopyErrorData();
		FlushErrorState();
		AbortCurrentTransaction();
		ereport(LOG,
				(errmsg("docmodel migration run " INT64_FORMAT " failed: %s",
						a.run, edata->message ? edata->message : "?")));
		RecordFailure(&a, edata);
	}
	PG_END_TRY();
}
