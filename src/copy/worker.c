/*-------------------------------------------------------------------------
 *
 * copy/worker.c
 *	  The copy worker: a background worker that applies the queued keys of
 *	  the deferred copy rules of one database (README, "Copies and
 *	  aggregates"), started when docmodel is in shared_preload_libraries and
 *	  docmodel.copy_worker_database names a database.
 *
 *	  Every docmodel.copy_worker_interval it reads the deferred rules with
 *	  queued keys and applies each, batch after batch (one transaction per
 *	  batch, through docmodel._apply_copies_batch), as the owner of the
 *	  rule's collection, the role the rule's statements run as in mode sync:
 *	  never with more privilege than that owner has. An error in one rule is
 *	  logged and the worker goes on with the next; the rule is tried again at
 *	  the next round. The same error of the same rule is logged once per
 *	  COPY_WORKER_LOG_REPEAT seconds, with how often it came meanwhile. SIGTERM ends it between statements (the batches check
 *	  for interrupts); it restarts after a crash, after
 *	  COPY_WORKER_RESTART seconds.
 *
 *	  Shared state: none (the settings are read from the configuration
 *	  file, the queue is docmodel.copy_queue). Worker-local: the last error
 *	  logged per failing rule (Failures).
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
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "common/hashfn.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "utils/snapmgr.h"

#include "docmodel.h"
#include "copy/worker.h"

/* Seconds before the postmaster starts a worker that ended in error again. */
#define COPY_WORKER_RESTART 10

/* The most rules one round applies (the rest wait for the next round). */
#define COPY_WORKER_MAX_RULES 10000

/* Seconds during which a rule's same error again is counted, not logged. */
#define COPY_WORKER_LOG_REPEAT 300

/* docmodel.copy_worker_database: the database the worker serves, or "". */
static char *copy_worker_database = NULL;
/* docmodel.copy_worker_role: the role it connects as ("": the superuser). */
static char *copy_worker_role = NULL;
/* docmodel.copy_worker_interval: milliseconds between rounds. */
static int copy_worker_interval = 1000;
/* docmodel.copy_worker_batch_size: source keys per batch (transaction). */
static int copy_worker_batch_size = 1000;

/*
 * Define the copy worker's settings; when docmodel is being preloaded with
 * a database set, register the worker.
 */
void
DocmodelCopyWorkerInit(void)
{
	BackgroundWorker w;

	DefineCustomStringVariable(
		"docmodel.copy_worker_database",
		"The database whose deferred copy rules the copy worker applies.",
		"Empty (the default): no worker. Read at server start, when docmodel "
		"is in shared_preload_libraries.",
		&copy_worker_database, "", PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomStringVariable(
		"docmodel.copy_worker_role", "The role the copy worker connects as.",
		"Empty (the default): the bootstrap superuser. Each rule is applied "
		"as the owner of its collection, which the role must be a member of. "
		"Read when the worker starts.",
		&copy_worker_role, "", PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("docmodel.copy_worker_interval",
							"Time between two rounds of the copy worker.", NULL,
							&copy_worker_interval, 1000, 10, 3600 * 1000,
							PGC_SIGHUP, GUC_UNIT_MS, NULL, NULL, NULL);
	DefineCustomIntVariable(
		"docmodel.copy_worker_batch_size",
		"Source keys the copy worker applies per transaction.", NULL,
		&copy_worker_batch_size, 1000, 1, 100000, PGC_SIGHUP, 0, NULL, NULL,
		NULL);

	if (!process_shared_preload_libraries_in_progress ||
		copy_worker_database == NULL || copy_worker_database[0] == '\0')
		return;
	memset(&w, 0, sizeof(w));
	w.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	w.bgw_start_time = BgWorkerStart_RecoveryFinished;
	w.bgw_restart_time = COPY_WORKER_RESTART;
	snprintf(w.bgw_library_name, BGW_MAXLEN, "docmodel");
	snprintf(w.bgw_function_name, BGW_MAXLEN, "docmodel_copy_worker_main");
	snprintf(w.bgw_name, BGW_MAXLEN, "docmodel copy worker");
	snprintf(w.bgw_type, BGW_MAXLEN, "docmodel copy worker");
	RegisterBackgroundWorker(&w);
}

typedef struct WorkerRule
{
	int32 id;
	Oid owner;
} WorkerRule;

/*
 * The deferred rules with queued keys, in id order, into *rules (in cxt);
 * 0 when docmodel (0.2.0 or later) is not installed in the database.
 */
static int
ReadRules(WorkerRule **rules, MemoryContext cxt)
{
	int n = 0;
	uint64 i;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	DocmodelSpiConnect();
	if (SPI_execute("SELECT pg_catalog.to_regclass('docmodel.copy_queue') "
					"IS NOT NULL",
					true, 1) == SPI_OK_SELECT &&
		SPI_processed == 1 &&
		strcmp(SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1),
			   "t") == 0)
	{
		if (SPI_execute(
				"SELECT r.id, c.relowner FROM docmodel.copy_rules AS r "
				"JOIN pg_catalog.pg_class AS c ON c.oid "
				"OPERATOR(pg_catalog.=) r.coll::pg_catalog.oid "
				"WHERE r.mode OPERATOR(pg_catalog.=) 'deferred' AND EXISTS "
				"(SELECT FROM docmodel.copy_queue AS q WHERE q.rule "
				"OPERATOR(pg_catalog.=) r.id) ORDER BY r.id",
				true, COPY_WORKER_MAX_RULES) != SPI_OK_SELECT)
			ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
							errmsg("reading the deferred copy rules failed")));
		*rules =
			MemoryContextAlloc(cxt, sizeof(WorkerRule) * Max(SPI_processed, 1));
		for (i = 0; i < SPI_processed; i++)
		{
			bool isnull;

			(*rules)[n].id = DatumGetInt32(SPI_getbinval(
				SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));
			(*rules)[n].owner = DatumGetObjectId(SPI_getbinval(
				SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2, &isnull));
			n++;
		}
	}
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	return n;
}

/*
 * One batch of rule r in its own transaction, as the owner of its
 * collection; return how many keys it applied. Errors propagate.
 */
static int64
WorkerBatch(WorkerRule *r)
{
	Oid types[2] = {INT4OID, INT4OID};
	Datum values[2];
	int64 n = 0;
	bool isnull;
	DocmodelOwnerSwitch sw;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	DocmodelSpiConnect();
	/* never more than the rule's owner may: the connected role must have
	 * its privileges */
	if (!has_privs_of_role(GetUserId(), r->owner))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("the copy worker's role cannot act as the owner of "
						"copy rule %d's collection",
						r->id),
				 errhint("Set docmodel.copy_worker_role to a role that is a "
						 "member of the owner, or leave it empty.")));
	/* each batch in a clean environment of its own: a fixed search_path,
	 * and nothing the owner's code sets reaches the next batch (another
	 * owner's) */
	DocmodelBecomeRole(&sw, r->owner, DOCMODEL_FIXED_PATH);
	values[0] = Int32GetDatum(r->id);
	values[1] = Int32GetDatum(copy_worker_batch_size);
	if (SPI_execute_with_args("SELECT docmodel._apply_copies_batch($1, $2)", 2,
							  types, values, NULL, false, 1) != SPI_OK_SELECT)
		ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
						errmsg("applying copy rule %d failed", r->id)));
	n = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
									SPI_tuptable->tupdesc, 1, &isnull));
	DocmodelRestoreUser(&sw);
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	return n;
}

/* The last error logged of a failing rule: its message's hash, when, and
 * how often the same error came since. */
typedef struct WorkerFailure
{
	int32 rule;
	uint32 hash;
	TimestampTz logged;
	int64 repeats;
} WorkerFailure;

static HTAB *Failures = NULL;

/*
 * Whether to log error edata of rule: not when the rule's last logged error
 * had the same message less than COPY_WORKER_LOG_REPEAT seconds ago (then
 * it is counted). When it logs an error that came again meanwhile, it says
 * first how often. edata NULL: the rule succeeded (forget its error).
 */
static bool
LogFailure(int32 rule, ErrorData *edata)
{
	WorkerFailure *f;
	bool found;
	uint32 hash;
	TimestampTz now = GetCurrentTimestamp();

	if (Failures != NULL &&
		hash_get_num_entries(Failures) >= COPY_WORKER_MAX_RULES)
	{
		hash_destroy(Failures);
		Failures = NULL;
	}
	if (Failures == NULL)
		Failures =
			DocmodelHash("docmodel copy worker failures", 16, sizeof(int32),
						 sizeof(WorkerFailure), false, NULL);
	if (edata == NULL)
	{
		(void) hash_search(Failures, &rule, HASH_REMOVE, NULL);
		return false;
	}
	hash = edata->message ? hash_bytes((const unsigned char *) edata->message,
									   strlen(edata->message))
						  : 0;
	f = hash_search(Failures, &rule, HASH_ENTER, &found);
	if (found && f->hash == hash &&
		!TimestampDifferenceExceeds(f->logged, now,
									COPY_WORKER_LOG_REPEAT * 1000))
	{
		f->repeats++;
		return false;
	}
	if (found && f->repeats > 0)
		ereport(LOG, (errmsg("copy rule %d failed %lld more times with its "
							 "last logged error",
							 rule, (long long) f->repeats)));
	f->hash = hash;
	f->logged = now;
	f->repeats = 0;
	return true;
}

/* One round: every deferred rule with queued keys, until its queue is
 * drained (a batch takes fewer keys than the batch size) or fails. */
static void
WorkerRound(MemoryContext cxt)
{
	WorkerRule *rules = NULL;
	int n = ReadRules(&rules, cxt);
	int i;

	for (i = 0; i < n; i++)
	{
		for (;;)
		{
			MemoryContext old = CurrentMemoryContext;
			int64 done = 0;
			bool failed = false;

			CHECK_FOR_INTERRUPTS();
			pgstat_report_activity(STATE_RUNNING, "applying deferred copies");
			PG_TRY();
			{
				done = WorkerBatch(&rules[i]);
			}
			PG_CATCH();
			{
				ErrorData *edata;

				/* log it (once while it repeats), roll back, go on with the
				 * next rule */
				MemoryContextSwitchTo(old);
				edata = CopyErrorData();
				if (LogFailure(rules[i].id, edata))
					EmitErrorReport();
				FreeErrorData(edata);
				FlushErrorState();
				AbortCurrentTransaction();
				failed = true;
			}
			PG_END_TRY();
			pgstat_report_activity(STATE_IDLE, NULL);
			if (!failed)
				(void) LogFailure(rules[i].id, NULL);
			if (failed || done < copy_worker_batch_size)
				break;
		}
	}
	MemoryContextReset(cxt);
}

/* The worker's main loop. */
void
docmodel_copy_worker_main(Datum arg)
{
	MemoryContext cxt;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnection(copy_worker_database,
										 copy_worker_role != NULL &&
												 copy_worker_role[0] != '\0'
											 ? copy_worker_role
											 : NULL,
										 0);
	ereport(LOG, (errmsg("docmodel copy worker started on database \"%s\"",
						 copy_worker_database)));
	cxt = AllocSetContextCreate(TopMemoryContext, "docmodel copy worker",
								ALLOCSET_DEFAULT_SIZES);
	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
		WorkerRound(cxt);
		(void) WaitLatch(MyLatch,
						 WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 copy_worker_interval, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}
