/*-------------------------------------------------------------------------
 *
 * citus/citus.c
 *	  Scale-out on Citus (README, "Scale-out"): keeping what the collection
 *	  triggers on the workers' shards read -- docmodel.collection_config,
 *	  docmodel.migration_rules and docmodel.schemas -- in step with the
 *	  coordinator.
 *
 * Each node has its own copy of docmodel's catalogs (the extension is
 * created on every node). The coordinator's rows are the truth; after every
 * statement that changes them (their statement triggers call
 * DocmodelCitusPush) and when a collection is distributed, the coordinator
 * sends every worker with metadata one call of docmodel._citus_apply()
 * carrying the configuration of its distributed collections (tables by
 * name, since OIDs differ per node), the migration rules and the schemas. It goes
 * through Citus's own transactional command channel (the one its DDL
 * propagation uses): the workers' copies commit or roll back with the
 * coordinator's transaction, by two-phase commit.
 *
 * Counters are the coordinator's: DocmodelCitusWorker() lets counter.c
 * refuse them on a worker, whose own counter_state is another sequence.
 *
 * Shared state: the addresses of Citus's GetLocalGroupId and IsCitusTable,
 * looked up once per backend. Nothing here reads a catalog per row.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_namespace.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "nodes/plannodes.h"
#include "optimizer/optimizer.h"
#include "tcop/pquery.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/portal.h"

#include "docmodel.h"
#include "citus/citus.h"

PG_FUNCTION_INFO_V1(citus_push);

/* Citus's transactional send to every worker with metadata (13.x). */
typedef void (*SendToWorkersFn)(const char *command);

/* Whether a relation is a Citus table (13.x). */
typedef bool (*IsCitusTableFn)(Oid relid);

/* Citus's group id of this node (0: the coordinator), cached by Citus. */
typedef int32 (*LocalGroupFn)(void);

/* GetLocalGroupId when Citus is installed here; looked up once. */
static LocalGroupFn LocalGroup = NULL;
static bool LocalGroupKnown = false;

/*
 * A C function of Citus's library, or 42883 naming it. Citus built against
 * PostgreSQL 16 or later with PGXS's default hidden symbol visibility
 * exports its SQL functions only (scripts/citus.sh builds it with default
 * visibility; see doc/scale-out.md).
 */
static void *
CitusFunction(const char *name)
{
	void *fn = load_external_function("citus", name, false, NULL);

	if (fn == NULL)
		ereport(
			ERROR,
			(errcode(ERRCODE_UNDEFINED_FUNCTION),
			 errmsg("Citus's library does not export %s", name),
			 errhint("docmodel's scale-out calls Citus's C functions: build "
					 "Citus with default symbol visibility "
					 "(make CFLAGS_SL_MODULE=).")));
	return fn;
}

/*
 * The command that brings a worker's catalogs in step, or NULL when there
 * is nobody to send it to: Citus absent, this node not the coordinator, or
 * no worker with metadata.
 */
static char *
PushCommand(void)
{
	char *command = NULL;
	int ret;

	if (!OidIsValid(
			get_relname_relid("pg_dist_partition", PG_CATALOG_NAMESPACE)))
		return NULL;
	DocmodelSpiConnect();
	/* not read-only: a statement trigger must see its statement's rows */
	ret = SPI_execute(
		"SELECT pg_catalog.format('SELECT docmodel._citus_apply(%L::jsonb, "
		"%L::jsonb, %L::jsonb, %L::jsonb)', "
		" (SELECT COALESCE(pg_catalog.jsonb_agg(pg_catalog."
		"jsonb_build_object("
		"   'id', c.id, 'coll', pg_catalog.format('%I.%I', n.nspname, "
		"r.relname), "
		"   'doc_type', c.doc_type, 'meta_style', c.meta_style, "
		"   'time_unit', c.time_unit, 'delimiter', c.delimiter, "
		"   'revisions', c.revisions, 'max_ttl', c.max_ttl, "
		"   'type_part', c.type_part, 'type_check', c.type_check, "
		"   'fields', c.fields, 'types', c.types, "
		"   'revisions_table', (SELECT pg_catalog.format('%I.%I', hn.nspname, "
		"h.relname) "
		"     FROM pg_catalog.pg_class AS h JOIN pg_catalog.pg_namespace AS hn "
		"     ON hn.oid OPERATOR(pg_catalog.=) h.relnamespace "
		"     WHERE h.oid OPERATOR(pg_catalog.=) c.revisions_table)) "
		"   ORDER BY c.id), '[]') "
		"  FROM docmodel.collection_config AS c "
		"  JOIN pg_catalog.pg_class AS r ON r.oid OPERATOR(pg_catalog.=) "
		"c.coll "
		"  JOIN pg_catalog.pg_namespace AS n "
		"  ON n.oid OPERATOR(pg_catalog.=) r.relnamespace "
		"  WHERE EXISTS (SELECT FROM pg_catalog.pg_dist_partition AS p "
		"    WHERE p.logicalrelid::pg_catalog.oid OPERATOR(pg_catalog.=) "
		"c.coll::pg_catalog.oid)), "
		" (SELECT "
		"COALESCE(pg_catalog.jsonb_agg(pg_catalog.to_jsonb(m) "
		"   ORDER BY m.doc_type, m.collection_id, m.from_version), '[]') "
		"  FROM docmodel.migration_rules AS m "
		"  WHERE m.fn IS NULL), "
		" (SELECT COALESCE(pg_catalog.jsonb_agg(pg_catalog.to_jsonb(s) "
		"   ORDER BY s.doc_type, s.version), '[]') "
		"  FROM docmodel.schemas AS s), "
		" (SELECT COALESCE(pg_catalog.jsonb_agg(pg_catalog.to_jsonb(w) "
		"   ORDER BY w.doc_type, w.collection_id), '[]') "
		"  FROM docmodel.write_rules AS w)) "
		"WHERE EXISTS (SELECT FROM pg_catalog.pg_dist_local_group AS g "
		"  WHERE g.groupid OPERATOR(pg_catalog.=) 0) "
		"AND EXISTS (SELECT FROM pg_catalog.pg_dist_node AS d "
		"  WHERE d.hasmetadata AND d.isactive "
		"  AND d.groupid OPERATOR(pg_catalog.<>) 0)",
		false, 1);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "reading docmodel's catalogs for Citus failed: %d", ret);
	if (SPI_processed == 1)
	{
		char *s = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);

		if (s != NULL)
		{
			command = SPI_palloc(strlen(s) + 1);
			strcpy(command, s);
		}
	}
	SPI_finish();
	return command;
}

/*
 * Send every worker with metadata the coordinator's collection
 * configuration and migration rules, in this transaction (see the file
 * banner). Does nothing without Citus, on a worker, or with no workers.
 */
void
DocmodelCitusPush(void)
{
	char *command = PushCommand();
	SendToWorkersFn send;

	if (command == NULL)
		return;
	send = (SendToWorkersFn) CitusFunction("SendCommandToWorkersWithMetadata");
	send(command);
	pfree(command);
}

/*
 * Return true on a Citus worker (a node of a group other than the
 * coordinator's). Cheap enough per call: Citus caches its group id.
 */
bool
DocmodelCitusWorker(void)
{
	if (!LocalGroupKnown)
	{
		/* only where CREATE EXTENSION citus ran (so it is preloaded) */
		if (OidIsValid(
				get_relname_relid("pg_dist_local_group", PG_CATALOG_NAMESPACE)))
			LocalGroup = (LocalGroupFn) CitusFunction("GetLocalGroupId");
		LocalGroupKnown = true;
	}
	return LocalGroup != NULL && LocalGroup() != 0;
}

/*
 * Return true when relid is a Citus table (its rows on the workers, or
 * reached through Citus's executor). Citus's IsCitusTable reads its
 * metadata cache; without Citus in this database, false.
 */
bool
DocmodelCitusTable(Oid relid)
{
	static IsCitusTableFn citus_table = NULL;

	if (citus_table == NULL)
	{
		if (!OidIsValid(
				get_relname_relid("pg_dist_partition", PG_CATALOG_NAMESPACE)))
			return false;
		citus_table = (IsCitusTableFn) CitusFunction("IsCitusTable");
	}
	return citus_table(relid);
}

/*
 * Whether the call of fcinfo is the whole of a top-level statement outside
 * a transaction block, "SELECT f(...)" with no FROM, whose arguments (all
 * evaluated before the call) are not volatile: then nothing of the
 * transaction runs after the call returns but the commit.
 */
static bool
WholeStatement(FunctionCallInfo fcinfo)
{
	PlannedStmt *ps;
	TargetEntry *tle;

	if (IsTransactionBlock() || ActivePortal == NULL ||
		list_length(ActivePortal->stmts) != 1)
		return false;
	ps = linitial(ActivePortal->stmts);
	if (!IsA(ps, PlannedStmt) || ps->commandType != CMD_SELECT ||
		ps->hasModifyingCTE || ps->subplans != NIL || ps->planTree == NULL ||
		!IsA(ps->planTree, Result) || ps->planTree->lefttree != NULL ||
		ps->planTree->initPlan != NIL ||
		((Result *) ps->planTree)->resconstantqual != NULL ||
		list_length(ps->planTree->targetlist) != 1)
		return false;
	tle = linitial(ps->planTree->targetlist);
	return fcinfo->flinfo->fn_expr == (Node *) tle->expr &&
		   IsA(tle->expr, FuncExpr) &&
		   !contain_volatile_functions((Node *) ((FuncExpr *) tle->expr)->args);
}

/*
 * Return a GUC nest level when the call of fcinfo (a KV write on a Citus
 * table) may write its one document without a remote transaction block, with
 * citus.function_opens_transaction_block off until DocmodelCitusDone;
 * else -1. Citus wraps every write made inside a function in BEGIN ...
 * COMMIT on the worker (two more round trips than the same statement
 * sent by hand), so that a statement calling the function for many rows
 * commits or aborts as one. A call that is the whole statement
 * (WholeStatement) writes one row: nothing can fail after it on the
 * coordinator, and the worker's autocommit is the statement's commit, as
 * for the statement sent by hand. Citus's delegation of function calls
 * to workers asks the same of a call.
 */
int
DocmodelCitusAutocommit(FunctionCallInfo fcinfo)
{
	int level;

	if (!WholeStatement(fcinfo))
		return -1;
	level = NewGUCNestLevel();
	(void) set_config_option("citus.function_opens_transaction_block", "off",
							 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true,
							 0, false);
	return level;
}

/* Restore the setting DocmodelCitusAutocommit changed (level >= 0). */
void
DocmodelCitusDone(int level)
{
	if (level >= 0)
		AtEOXact_GUC(true, level);
}

/* _citus_push(): DocmodelCitusPush() for distribute_collection(). */
Datum
citus_push(PG_FUNCTION_ARGS)
{
	DocmodelCitusPush();
	PG_RETURN_VOID();
}
