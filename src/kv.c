/*-------------------------------------------------------------------------
 *
 * kv.c
 *	  The key-value API of collections (Couchbase semantics): get,
 *	  get_multi, insert, upsert, replace, remove, touch, purge_expired.
 *	  Each runs one prepared statement on the collection as the caller (so
 *	  the caller's table privileges apply); the collection trigger does the
 *	  stamping. An expired document is absent to every function.
 *
 * Shared state: KvCache, a hash in TopMemoryContext from a collection's OID
 * to its prepared plans (this backend only). Plans are prepared on first
 * use from the relation's current qualified name and kept (SPI_keepplan).
 * A relcache invalidation of the relation (rename, ALTER, DROP), or any
 * change of a schema (pg_namespace: a renamed schema changes the qualified
 * name), marks the entry stale: its plans are dropped and prepared again
 * under the new name, since a cached plan re-analyzes its query text, and
 * a renamed table or schema must not redirect it to a table that took the
 * old name. A plan is checked when prepared to reach the collection's OID
 * and no other relation. Revalidating an entry also checks the collection's
 * layout (collection.c). Every call locks the relation first, which
 * processes pending invalidations before a plan is chosen. Stale plans are
 * freed only when no KV call is running in this backend (KvDepth == 0).
 * The invalidation subscribers are called by docmodel.c's dispatchers.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/pg_list.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/plancache.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"
#include "executor/tuptable.h"
#include "nodes/params.h"
#include "tcop/dest.h"
#include "access/xact.h"

#include "collection.h"
#include "migrate.h"

PG_FUNCTION_INFO_V1(kv_get);
PG_FUNCTION_INFO_V1(kv_get_multi);
PG_FUNCTION_INFO_V1(kv_insert);
PG_FUNCTION_INFO_V1(kv_upsert);
PG_FUNCTION_INFO_V1(kv_replace);
PG_FUNCTION_INFO_V1(kv_remove);
PG_FUNCTION_INFO_V1(kv_touch);
PG_FUNCTION_INFO_V1(kv_purge_expired);

/* The statements, %s being the collection's qualified name. */
typedef enum KvStmt
{
	KV_GET,
	KV_GET_MULTI,
	KV_INSERT,
	KV_UPSERT,
	KV_UPDATE,
	KV_REPLACE,
	KV_STORED_CAS,
	KV_REMOVE,
	KV_TOUCH,
	KV_PURGE,
	KV_NSTMTS
} KvStmt;

#define LIVE(c)                                                           \
	"(" c "expires_at IS NULL OR " c "expires_at OPERATOR(pg_catalog.>) " \
	"pg_catalog.now())"

static const char *const KvSql[KV_NSTMTS] = {
	[KV_GET] =
		"SELECT doc FROM %s WHERE id OPERATOR(pg_catalog.=) $1 AND " LIVE(""),
	[KV_GET_MULTI] = "SELECT k.key, c.doc, c.cas "
					 "FROM pg_catalog.unnest($1) WITH ORDINALITY AS k(key, n) "
					 "JOIN %s AS c ON c.id OPERATOR(pg_catalog.=) "
					 "(k.key COLLATE pg_catalog.\"C\") "
					 "WHERE " LIVE("c.") " ORDER BY k.n",
	[KV_INSERT] = "INSERT INTO %s AS c (id, doc, expires_at) "
				  "VALUES ($1, $2, pg_catalog.now() OPERATOR(pg_catalog.+) $3) "
				  "ON CONFLICT (id) DO UPDATE SET doc = EXCLUDED.doc, "
				  "expires_at = EXCLUDED.expires_at "
				  "WHERE c.expires_at OPERATOR(pg_catalog.<=) pg_catalog.now() "
				  "RETURNING c.cas",
	[KV_UPSERT] = "INSERT INTO %s AS c (id, doc, expires_at) "
				  "VALUES ($1, $2, pg_catalog.now() OPERATOR(pg_catalog.+) $3) "
				  "ON CONFLICT (id) DO UPDATE SET doc = EXCLUDED.doc, "
				  "expires_at = EXCLUDED.expires_at RETURNING c.cas",
	[KV_UPDATE] = "UPDATE %s AS c SET doc = $2, "
				  "expires_at = pg_catalog.now() OPERATOR(pg_catalog.+) $3 "
				  "WHERE c.id OPERATOR(pg_catalog.=) $1 RETURNING c.cas",
	[KV_REPLACE] = "UPDATE %s AS c SET doc = $2, "
				   "expires_at = pg_catalog.now() OPERATOR(pg_catalog.+) $3 "
				   "WHERE c.id OPERATOR(pg_catalog.=) $1 AND " LIVE(
					   "c.") " AND ($4 IS NULL OR c.cas OPERATOR(pg_catalog.=) "
							 "$4) RETURNING c.cas",
	[KV_STORED_CAS] =
		"SELECT cas FROM %s WHERE id OPERATOR(pg_catalog.=) $1 AND " LIVE(""),
	[KV_REMOVE] =
		"DELETE FROM %s AS c WHERE c.id OPERATOR(pg_catalog.=) $1 AND " LIVE(
			"c.") " AND ($2 IS NULL OR c.cas OPERATOR(pg_catalog.=) $2) "
				  "RETURNING c.cas",
	[KV_TOUCH] = "UPDATE %s AS c SET expires_at = pg_catalog.now() "
				 "OPERATOR(pg_catalog.+) $2 "
				 "WHERE c.id OPERATOR(pg_catalog.=) $1 AND " LIVE(
					 "c.") " RETURNING c.cas",
	[KV_PURGE] = "DELETE FROM %s WHERE expires_at OPERATOR(pg_catalog.<=) "
				 "pg_catalog.now()",
};

/* Parameter types of each statement. */
static const Oid KvArgs[KV_NSTMTS][4] = {
	[KV_GET] = {TEXTOID},
	[KV_GET_MULTI] = {TEXTARRAYOID},
	[KV_INSERT] = {TEXTOID, JSONBOID, INTERVALOID},
	[KV_UPSERT] = {TEXTOID, JSONBOID, INTERVALOID},
	[KV_UPDATE] = {TEXTOID, JSONBOID, INTERVALOID},
	[KV_REPLACE] = {TEXTOID, JSONBOID, INTERVALOID, INT8OID},
	[KV_STORED_CAS] = {TEXTOID},
	[KV_REMOVE] = {TEXTOID, INT8OID},
	[KV_TOUCH] = {TEXTOID, INTERVALOID},
	[KV_PURGE] = {InvalidOid},
};
static const int KvNargs[KV_NSTMTS] = {
	[KV_GET] = 1,    [KV_GET_MULTI] = 1, [KV_INSERT] = 3,     [KV_UPSERT] = 3,
	[KV_UPDATE] = 3, [KV_REPLACE] = 4,   [KV_STORED_CAS] = 1, [KV_REMOVE] = 2,
	[KV_TOUCH] = 2,  [KV_PURGE] = 0,
};

/* One collection's prepared plans. */
typedef struct KvRel
{
	Oid relid;  /* hash key */
	bool valid; /* checked to be a collection, plans current */
	SPIPlanPtr plans[KV_NSTMTS];
} KvRel;

static HTAB *KvCache = NULL;
static int KvDepth = 0;
static List *KvStale = NIL; /* plans to free when KvDepth is 0 */

/* Mark an invalidated collection's plans stale (relcache subscriber). */
void
DocmodelKvRelcache(Oid relid)
{
	HASH_SEQ_STATUS status;
	KvRel *entry;

	if (KvCache == NULL)
		return;
	if (OidIsValid(relid))
	{
		entry = hash_search(KvCache, &relid, HASH_FIND, NULL);
		if (entry != NULL)
			entry->valid = false;
		return;
	}
	hash_seq_init(&status, KvCache);
	while ((entry = hash_seq_search(&status)) != NULL)
		entry->valid = false;
}

/*
 * Mark every collection's plans stale when a schema changes (pg_namespace
 * syscache subscriber): a renamed schema changes the qualified name the
 * plans were prepared from, and their text would lead elsewhere.
 */
void
DocmodelKvSyscache(int cacheid, uint32 hashvalue)
{
	DocmodelKvRelcache(InvalidOid);
}

/* Move a stale entry's plans to the free list, and free it when idle. */
static void
KvRetirePlans(KvRel *entry)
{
	MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);
	int i;

	for (i = 0; i < KV_NSTMTS; i++)
	{
		if (entry->plans[i] != NULL)
			KvStale = lappend(KvStale, entry->plans[i]);
		entry->plans[i] = NULL;
	}
	MemoryContextSwitchTo(old);
	if (KvDepth == 0 && KvStale != NIL)
	{
		ListCell *lc;

		foreach (lc, KvStale)
			SPI_freeplan((SPIPlanPtr) lfirst(lc));
		list_free(KvStale);
		KvStale = NIL;
	}
}

/*
 * Lock the collection relid in mode (processing pending invalidations) and
 * return its plan cache entry, checked to be a collection.
 */
static KvRel *
KvLookup(Oid relid, LOCKMODE mode)
{
	KvRel *entry;
	bool found;

	if (KvCache == NULL)
	{
		HASHCTL ctl;

		memset(&ctl, 0, sizeof(ctl));
		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(KvRel);
		KvCache =
			hash_create("docmodel kv plans", 64, &ctl, HASH_ELEM | HASH_BLOBS);
	}
	LockRelationOid(relid, mode);
	entry = hash_search(KvCache, &relid, HASH_ENTER, &found);
	if (!found)
	{
		memset(entry->plans, 0, sizeof(entry->plans));
		entry->valid = false;
	}
	if (!entry->valid)
	{
		KvRetirePlans(entry);
		(void) DocmodelCollectionIdByRelid(relid, false);
		DocmodelCheckLayoutOf(relid, DOCMODEL_LAYOUT_COLLECTION);
		/* the checks may have processed invalidations: entry is current */
		entry = hash_search(KvCache, &relid, HASH_FIND, NULL);
		entry->valid = true;
	}
	return entry;
}

/*
 * Check that plan, prepared from the collection's qualified name, reads
 * and writes the collection relid and no other relation.
 */
static void
KvCheckPlanTarget(SPIPlanPtr plan, Oid relid)
{
	ListCell *lc;

	foreach (lc, SPI_plan_get_plan_sources(plan))
	{
		CachedPlanSource *ps = (CachedPlanSource *) lfirst(lc);
		ListCell *lq;

		foreach (lq, ps->query_list)
		{
			Query *q = lfirst_node(Query, lq);
			ListCell *lr;

			foreach (lr, q->rtable)
			{
				RangeTblEntry *rte = lfirst_node(RangeTblEntry, lr);

				if (rte->rtekind == RTE_RELATION && rte->relid != relid)
					elog(ERROR,
						 "docmodel: statement for relation %u reached "
						 "relation %u",
						 relid, rte->relid);
			}
		}
	}
}

/* Return the prepared plan of stmt for the collection (SPI connected). */
static SPIPlanPtr
KvPlan(KvRel *entry, KvStmt stmt)
{
	if (entry->plans[stmt] == NULL)
	{
		char *nsp = get_namespace_name(get_rel_namespace(entry->relid));
		char *rel = get_rel_name(entry->relid);
		SPIPlanPtr plan;

		if (nsp == NULL || rel == NULL)
			elog(ERROR, "relation %u has gone", entry->relid);
		plan = SPI_prepare(
			psprintf(KvSql[stmt], quote_qualified_identifier(nsp, rel)),
			KvNargs[stmt], (Oid *) KvArgs[stmt]);
		if (plan == NULL)
			elog(ERROR, "SPI_prepare failed: %s",
				 SPI_result_code_string(SPI_result));
		KvCheckPlanTarget(plan, entry->relid);
		if (SPI_keepplan(plan) != 0)
			elog(ERROR, "SPI_keepplan failed");
		entry->plans[stmt] = plan;
	}
	return entry->plans[stmt];
}

/* Run a plan; KvDepth counts running calls so stale plans wait. */
static int
KvExec(KvRel *entry, KvStmt stmt, Datum *values, const char *nulls,
	   bool read_only, long count)
{
	SPIPlanPtr plan = KvPlan(entry, stmt);
	int ret;

	KvDepth++;
	PG_TRY();
	{
		ret = SPI_execute_plan(plan, values, nulls, read_only, count);
	}
	PG_FINALLY();
	{
		KvDepth--;
	}
	PG_END_TRY();
	if (ret < 0)
		elog(ERROR, "SPI_execute_plan failed: %s", SPI_result_code_string(ret));
	return ret;
}

/* Raise 22023 when a required argument is NULL. */
static void
KvRequire(FunctionCallInfo fcinfo, int argno, const char *name)
{
	if (PG_ARGISNULL(argno))
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("%s must not be null", name)));
}

/* Raise 22023 unless an expiry (when given) lies in the future. */
static void
KvCheckExpiry(FunctionCallInfo fcinfo, int argno, const char *key)
{
	TimestampTz now;
	Datum at;

	if (PG_ARGISNULL(argno))
		return;
	now = GetCurrentTransactionStartTimestamp();
	at = DirectFunctionCall2(timestamptz_pl_interval, TimestampTzGetDatum(now),
							 PG_GETARG_DATUM(argno));
	if (DatumGetTimestampTz(at) <= now)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("expiry must be positive"),
				 errdetail("Expiry %s given for document \"%s\".",
						   DatumGetCString(DirectFunctionCall1(
							   interval_out, PG_GETARG_DATUM(argno))),
						   key),
				 errhint("Give NULL for a document that does not expire.")));
}

/* Return the single bigint result of the last statement (SPI connected). */
static int64
KvResultCas(void)
{
	bool isnull;

	return DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
									   SPI_tuptable->tupdesc, 1, &isnull));
}

/* Raise P0002 DocumentNotFound. */
static void
KvNotFound(Oid relid, const char *key)
{
	ereport(ERROR,
			(errcode(ERRCODE_NO_DATA_FOUND),
			 errmsg("document \"%s\" does not exist", key),
			 errdetail("Collection \"%s\" has no document with key \"%s\" "
					   "(or it has expired).",
					   get_rel_name(relid), key),
			 errhint("Use docmodel.insert() or docmodel.upsert() to create "
					 "it.")));
}

/*
 * After a replace or remove matched nothing: raise DocumentNotFound, or
 * CasMismatch naming the given and the stored cas.
 */
static void
KvNothingMatched(KvRel *entry, Datum keyd, const char *key, bool has_cas,
				 int64 cas)
{
	Datum values[1] = {keyd};

	KvExec(entry, KV_STORED_CAS, values, NULL, false, 1);
	if (SPI_processed == 0 || !has_cas)
		KvNotFound(entry->relid, key);
	ereport(ERROR,
			(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
			 errmsg("CAS mismatch for document \"%s\"", key),
			 errdetail("Key \"%s\": the given cas is " INT64_FORMAT
					   ", the stored cas is " INT64_FORMAT ".",
					   key, cas, KvResultCas()),
			 errhint("Read the document again and retry with its current "
					 "cas.")));
}

/*
 * Run stmt, a write that must match the live document (replace, remove,
 * touch), and return the cas it leaves. cas_arg is the argument holding the
 * caller's cas (-1 for none): nothing matched is DocumentNotFound, or
 * CasMismatch when a cas was given and the document is there.
 */
static int64
KvWriteLive(FunctionCallInfo fcinfo, KvRel *entry, KvStmt stmt, Datum *values,
			const char *nulls, const char *key, int cas_arg)
{
	int64 cas;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	KvExec(entry, stmt, values, nulls, false, 0);
	if (SPI_processed == 0 && cas_arg < 0)
		KvNotFound(entry->relid, key);
	if (SPI_processed == 0)
		KvNothingMatched(entry, values[0], key, !PG_ARGISNULL(cas_arg),
						 PG_ARGISNULL(cas_arg) ? 0 : PG_GETARG_INT64(cas_arg));
	cas = KvResultCas();
	SPI_finish();
	return cas;
}

/* get(coll, key) -> jsonb: the live document, or NULL. */
Datum
kv_get(PG_FUNCTION_ARGS)
{
	KvRel *entry = KvLookup(PG_GETARG_OID(0), AccessShareLock);
	Datum values[1] = {PG_GETARG_DATUM(1)};
	Datum result = (Datum) 0;
	bool isnull = true;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	KvExec(entry, KV_GET, values, NULL, true, 1);
	if (SPI_processed == 1)
	{
		result = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1,
							   &isnull);
		if (!isnull)
			result = SPI_datumTransfer(result, false, -1);
	}
	SPI_finish();
	if (isnull)
		PG_RETURN_NULL();
	/* schema version: see migrate.c (get returns the current version) */
	{
		Jsonb *doc = DatumGetJsonbP(result);
		Jsonb *cur =
			DocmodelMigrate(doc, NULL, text_to_cstring(PG_GETARG_TEXT_PP(1)));

		if (cur != doc)
			result = JsonbPGetDatum(cur);
	}
	PG_RETURN_DATUM(result);
}

/*
 * get_multi's DestReceiver: each row of the query, migrated in a context
 * reset after the row, goes to the function's tuplestore (which spills
 * past work_mem) as it comes, so memory stays that of one row whatever the
 * result's size (as pgvector's SampleCallback does per sampled row).
 */
typedef struct KvMultiReceiver
{
	DestReceiver pub;
	Tuplestorestate *store;
	MemoryContext rowcxt;
} KvMultiReceiver;

/* Migrate one row and hand it to the tuplestore. */
static bool
KvMultiReceive(TupleTableSlot *slot, DestReceiver *self)
{
	KvMultiReceiver *r = (KvMultiReceiver *) self;
	MemoryContext old = MemoryContextSwitchTo(r->rowcxt);
	HeapTuple tup = ExecCopySlotHeapTuple(slot);

	/* schema version: see migrate.c (each doc at its current version) */
	tuplestore_puttuple(
		r->store, DocmodelMigrateTuple(tup, slot->tts_tupleDescriptor, 1, 2));
	MemoryContextSwitchTo(old);
	MemoryContextReset(r->rowcxt);
	return true;
}

/* Nothing to set up or tear down per query. */
static void
KvMultiStartup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
}

static void
KvMultiShutdown(DestReceiver *self)
{
}

static void
KvMultiDestroy(DestReceiver *self)
{
}

/*
 * get_multi(coll, keys) -> (key, doc, cas): the live ones, in the order
 * asked (a key asked twice comes twice), streamed through KvMultiReceiver.
 */
Datum
kv_get_multi(PG_FUNCTION_ARGS)
{
	KvRel *entry = KvLookup(PG_GETARG_OID(0), AccessShareLock);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	KvMultiReceiver recv;
	SPIExecuteOptions options;
	ParamListInfo params = makeParamList(1);
	int ret;

	InitMaterializedSRF(fcinfo, 0);
	memset(&recv, 0, sizeof(recv));
	recv.pub.receiveSlot = KvMultiReceive;
	recv.pub.rStartup = KvMultiStartup;
	recv.pub.rShutdown = KvMultiShutdown;
	recv.pub.rDestroy = KvMultiDestroy;
	recv.pub.mydest = DestNone;
	recv.store = rsinfo->setResult;
	recv.rowcxt = AllocSetContextCreate(
		CurrentMemoryContext, "docmodel get_multi row", ALLOCSET_DEFAULT_SIZES);
	/* the keys as they are: no copy of a large array */
	params->params[0].value = PG_GETARG_DATUM(1);
	params->params[0].isnull = false;
	params->params[0].pflags = PARAM_FLAG_CONST;
	params->params[0].ptype = TEXTARRAYOID;
	memset(&options, 0, sizeof(options));
	options.params = params;
	options.read_only = true;
	options.dest = (DestReceiver *) &recv;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	/* KvDepth counts running calls so stale plans wait: see KvExec */
	KvDepth++;
	PG_TRY();
	{
		ret = SPI_execute_plan_extended(KvPlan(entry, KV_GET_MULTI), &options);
	}
	PG_FINALLY();
	{
		KvDepth--;
	}
	PG_END_TRY();
	if (ret < 0)
		elog(ERROR, "SPI_execute_plan_extended failed: %s",
			 SPI_result_code_string(ret));
	SPI_finish();
	MemoryContextDelete(recv.rowcxt);
	return (Datum) 0;
}

/* Run insert or upsert: (coll, key, doc, expiry). */
static Datum
KvWrite(FunctionCallInfo fcinfo, KvStmt stmt)
{
	KvRel *entry;
	char *key;
	Datum values[3];
	char nulls[3] = {' ', ' ', ' '};
	int64 cas;

	KvRequire(fcinfo, 0, "collection");
	KvRequire(fcinfo, 1, "key");
	KvRequire(fcinfo, 2, "document");
	key = text_to_cstring(PG_GETARG_TEXT_PP(1));
	KvCheckExpiry(fcinfo, 3, key);
	entry = KvLookup(PG_GETARG_OID(0), RowExclusiveLock);
	values[0] = PG_GETARG_DATUM(1);
	values[1] = PG_GETARG_DATUM(2);
	values[2] = PG_ARGISNULL(3) ? (Datum) 0 : PG_GETARG_DATUM(3);
	if (PG_ARGISNULL(3))
		nulls[2] = 'n';
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	/*
	 * upsert of a present key: a plain UPDATE fires the trigger once, where
	 * INSERT ... ON CONFLICT would stamp the row as an insert first.
	 */
	if (stmt == KV_UPSERT)
		KvExec(entry, KV_UPDATE, values, nulls, false, 0);
	if (stmt != KV_UPSERT || SPI_processed == 0)
		KvExec(entry, stmt, values, nulls, false, 0);
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNIQUE_VIOLATION),
				 errmsg("document \"%s\" already exists", key),
				 errdetail("Collection \"%s\" has a document with key \"%s\".",
						   get_rel_name(entry->relid), key),
				 errhint("Use docmodel.upsert() or docmodel.replace() to "
						 "overwrite it.")));
	cas = KvResultCas();
	SPI_finish();
	PG_RETURN_INT64(cas);
}

/* insert(coll, key, doc, expiry) -> cas; 23505 when the key is live. */
Datum
kv_insert(PG_FUNCTION_ARGS)
{
	return KvWrite(fcinfo, KV_INSERT);
}

/* upsert(coll, key, doc, expiry) -> cas: insert or replace. */
Datum
kv_upsert(PG_FUNCTION_ARGS)
{
	return KvWrite(fcinfo, KV_UPSERT);
}

/* replace(coll, key, doc, cas, expiry) -> cas; P0002 absent, 40001 stale. */
Datum
kv_replace(PG_FUNCTION_ARGS)
{
	KvRel *entry;
	char *key;
	Datum values[4];
	char nulls[4] = {' ', ' ', ' ', ' '};

	KvRequire(fcinfo, 0, "collection");
	KvRequire(fcinfo, 1, "key");
	KvRequire(fcinfo, 2, "document");
	key = text_to_cstring(PG_GETARG_TEXT_PP(1));
	KvCheckExpiry(fcinfo, 4, key);
	entry = KvLookup(PG_GETARG_OID(0), RowExclusiveLock);
	values[0] = PG_GETARG_DATUM(1);
	values[1] = PG_GETARG_DATUM(2);
	values[2] = PG_ARGISNULL(4) ? (Datum) 0 : PG_GETARG_DATUM(4);
	values[3] = PG_ARGISNULL(3) ? (Datum) 0 : PG_GETARG_DATUM(3);
	if (PG_ARGISNULL(4))
		nulls[2] = 'n';
	if (PG_ARGISNULL(3))
		nulls[3] = 'n';
	PG_RETURN_INT64(
		KvWriteLive(fcinfo, entry, KV_REPLACE, values, nulls, key, 3));
}

/* remove(coll, key, cas) -> the removed document's cas. */
Datum
kv_remove(PG_FUNCTION_ARGS)
{
	KvRel *entry;
	char *key;
	Datum values[2];
	char nulls[2] = {' ', ' '};

	KvRequire(fcinfo, 0, "collection");
	KvRequire(fcinfo, 1, "key");
	key = text_to_cstring(PG_GETARG_TEXT_PP(1));
	entry = KvLookup(PG_GETARG_OID(0), RowExclusiveLock);
	values[0] = PG_GETARG_DATUM(1);
	values[1] = PG_ARGISNULL(2) ? (Datum) 0 : PG_GETARG_DATUM(2);
	if (PG_ARGISNULL(2))
		nulls[1] = 'n';
	PG_RETURN_INT64(
		KvWriteLive(fcinfo, entry, KV_REMOVE, values, nulls, key, 2));
}

/* touch(coll, key, expiry) -> new cas: set or clear (NULL) the expiry. */
Datum
kv_touch(PG_FUNCTION_ARGS)
{
	KvRel *entry;
	char *key;
	Datum values[2];
	char nulls[2] = {' ', ' '};

	KvRequire(fcinfo, 0, "collection");
	KvRequire(fcinfo, 1, "key");
	key = text_to_cstring(PG_GETARG_TEXT_PP(1));
	KvCheckExpiry(fcinfo, 2, key);
	entry = KvLookup(PG_GETARG_OID(0), RowExclusiveLock);
	values[0] = PG_GETARG_DATUM(1);
	values[1] = PG_ARGISNULL(2) ? (Datum) 0 : PG_GETARG_DATUM(2);
	if (PG_ARGISNULL(2))
		nulls[1] = 'n';
	PG_RETURN_INT64(
		KvWriteLive(fcinfo, entry, KV_TOUCH, values, nulls, key, -1));
}

/* purge_expired(coll) -> how many expired documents were deleted. */
Datum
kv_purge_expired(PG_FUNCTION_ARGS)
{
	KvRel *entry = KvLookup(PG_GETARG_OID(0), RowExclusiveLock);
	uint64 n;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	KvExec(entry, KV_PURGE, NULL, NULL, false, 0);
	n = SPI_processed;
	SPI_finish();
	PG_RETURN_INT64((int64) n);
}
