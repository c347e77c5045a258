/*-------------------------------------------------------------------------
 *
 * collection/kv.c
 *	  The key-value API of collections (Couchbase semantics): get,
 *	  get_multi, exists, insert, upsert, replace, remove, touch,
 *	  get_and_touch, get_and_lock, unlock, purge_expired; Couchbase's
 *	  expiry numbers; and the per-row rules of locks and max_ttl that the
 *	  collection trigger applies to every write (DocmodelKvRowRules).
 *	  Each runs one prepared statement on the collection as the caller (so
 *	  the caller's table privileges apply); the collection trigger does the
 *	  stamping. An expired document is absent to every function. get,
 *	  lookup_in and exists read one document by key through the primary key
 *	  index without a statement (KvReadDirect) when the caller has SELECT on
 *	  the table and no row-level security applies; else by the statement.
 *
 * Shared state: KvCache, a hash in TopMemoryContext from a collection's OID
 * to its prepared plans (this backend only). Plans are prepared on first
 * use from the relation's current qualified name and kept (SPI_keepplan).
 * A relcache invalidation of the relation (rename, ALTER, DROP), or any
 * change of a schema (docmodel.c's NamedPlanSubscribers: a renamed schema
 * changes the qualified name), marks the entry stale: its plans are
 * dropped and prepared again under the new name, since a cached plan
 * re-analyzes its query text, and a renamed table or schema must not
 * redirect it to a table that took the old name. A plan is checked when
 * prepared to reach the collection's OID and no other relation
 * (DocmodelCheckPlanTargets). Revalidating an entry also checks the
 * collection's layout (collection/config.c). Every call locks the relation first,
 * which processes pending invalidations before a plan is chosen. Stale plans
 * are freed only when no KV call is running in this backend (KvDepth == 0).
 * The invalidation subscribers are called by docmodel.c's dispatchers.
 *
 * Locks (README, "Locks") are state of the row, not row locks: column
 * locked_until holds the wall-clock time a lock taken by get_and_lock ends,
 * and the row's cas is the lock's cas. DocmodelKvPresent is the cas a KV call
 * (replace, remove, unlock with a cas) presents for its key while its
 * statement runs (set and restored around it, also on error), so the
 * trigger lets that write through a lock; a plain UPDATE presents a cas by
 * assigning the column cas.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relscan.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_namespace.h"
#include "utils/acl.h"
#include "utils/fmgroids.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"
#include "access/sysattr.h"
#include "executor/executor.h"
#include "nodes/makefuncs.h"
#include "parser/parsetree.h"
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

#include "collection/columns.h"
#include "collection/config.h"
#include "compat.h"
#include "json/tree.h"
#include "collection/expiry.h"
#include "collection/kv.h"
#include "collection/locks.h"
#include "migrate/migrate.h"
#include "citus/citus.h"
#include "collection/layout.h"

PG_FUNCTION_INFO_V1(kv_get);
PG_FUNCTION_INFO_V1(kv_get_multi);
PG_FUNCTION_INFO_V1(kv_insert);
PG_FUNCTION_INFO_V1(kv_upsert);
PG_FUNCTION_INFO_V1(kv_replace);
PG_FUNCTION_INFO_V1(kv_remove);
PG_FUNCTION_INFO_V1(kv_touch);
PG_FUNCTION_INFO_V1(kv_purge_expired);
PG_FUNCTION_INFO_V1(kv_exists);
PG_FUNCTION_INFO_V1(kv_get_and_touch);
PG_FUNCTION_INFO_V1(kv_get_and_lock);
PG_FUNCTION_INFO_V1(kv_unlock);
PG_FUNCTION_INFO_V1(kv_meta);
PG_FUNCTION_INFO_V1(kv_replace_if_cas);
PG_FUNCTION_INFO_V1(kv_remove_if_cas);

/* The statements, %s being the collection's qualified name. */
typedef enum KvStmt
{
	KV_GET,
	KV_GET_MULTI,
	KV_INSERT,
	KV_UPSERT,
	KV_UPDATE,
	KV_UPDATE_KEEP,
	KV_REPLACE,
	KV_STORED_CAS,
	KV_REMOVE,
	KV_TOUCH,
	KV_PURGE,
	KV_EXISTS,
	KV_LOCK,
	KV_UNLOCK,
	KV_META,
	KV_NSTMTS
} KvStmt;

#define LIVE(c)                                                           \
	"(" c "expires_at IS NULL OR " c "expires_at OPERATOR(pg_catalog.>) " \
	"pg_catalog.now())"

/*
 * Statements are formatted with the collection's qualified name and, as
 * the second argument (%2$s), its lock column: "c.locked_until", or a NULL
 * for a collection of the 0.1.0 schema that its update has not reached;
 * as the third (%3$s), the document a read returns: "c.doc", or for
 * meta_style 'columns' the body with its stamp columns merged
 * (docmodel._document, collection/columns.c).
 */

/*
 * Keep the stored expiry when $n says so (preserve_expiry) and it is live
 * at $now, the transaction's start (now(), passed as a parameter: Citus
 * refuses a STABLE function inside CASE on a distributed table).
 */
#define KEEP_EXPIRY(n, now, other)                               \
	"CASE WHEN " n " AND (c.expires_at IS NULL OR c.expires_at " \
	"OPERATOR(pg_catalog.>) " now ") THEN c.expires_at ELSE " other " END"

/* %2$s unprinted, for a statement without it (arguments leave no gap) */
#define KV_NO_LOCK "%2$.0s"

static const char *const KvSql[KV_NSTMTS] = {
	[KV_GET] = KV_NO_LOCK
	"SELECT %3$s FROM %1$s AS c WHERE c.id OPERATOR(pg_catalog.=) "
	"$1 AND " LIVE("c."),
	/* a locked document shows cas -1 to readers, as Couchbase's does */
	[KV_GET_MULTI] = "SELECT k.key, %3$s, CASE WHEN %2$s IS NULL "
					 "THEN c.cas WHEN %2$s OPERATOR(pg_catalog.>) "
					 "pg_catalog.clock_timestamp() THEN -1 ELSE c.cas END "
					 "FROM pg_catalog.unnest($1) WITH ORDINALITY AS k(key, n) "
					 "JOIN %1$s AS c ON c.id OPERATOR(pg_catalog.=) "
					 "(k.key COLLATE pg_catalog.\"C\") "
					 "WHERE " LIVE("c.") " ORDER BY k.n",
	[KV_INSERT] = "INSERT INTO %s AS c (id, doc, expires_at) "
				  "VALUES ($1, $2, $3) "
				  "ON CONFLICT (id) DO UPDATE SET doc = EXCLUDED.doc, "
				  "expires_at = EXCLUDED.expires_at "
				  "WHERE c.expires_at OPERATOR(pg_catalog.<=) $5 "
				  "RETURNING c.cas",
	[KV_UPSERT] = "INSERT INTO %s AS c (id, doc, expires_at) "
				  "VALUES ($1, $2, $3) "
				  "ON CONFLICT (id) DO UPDATE SET doc = EXCLUDED.doc, "
				  "expires_at = " KEEP_EXPIRY(
					  "$4", "$5", "EXCLUDED.expires_at") " RETURNING c.cas",
	/* upsert of a present key; _KEEP with preserve_expiry */
	[KV_UPDATE] = "UPDATE %s AS c SET doc = $2, expires_at = $3 "
				  "WHERE c.id OPERATOR(pg_catalog.=) $1 RETURNING c.cas",
	[KV_UPDATE_KEEP] =
		"UPDATE %s AS c SET doc = $2, "
		"expires_at = " KEEP_EXPIRY(
			"$4", "$5",
			"$3") " WHERE c.id OPERATOR(pg_catalog.=) $1 RETURNING c.cas",
	/*
	 * A cas given is assigned to the column too: that carries a lock on a
	 * Citus shard, where DocmodelKvPresent is not seen (DocmodelKvRowRules); -1,
	 * which no row has, carries none. The trigger sets the new cas.
	 */
	[KV_REPLACE] =
		"UPDATE %s AS c SET doc = $2, cas = CASE WHEN $4 IS NULL THEN -1 "
		"ELSE $4 END, expires_at = " KEEP_EXPIRY(
			"$5", "$6", "$3") " WHERE c.id OPERATOR(pg_catalog.=) $1 "
							  "AND " LIVE("c.") " AND ($4 IS NULL OR "
												"c.cas "
												"OPERATOR(pg_catalog.=) "
												"$4) RETURNING c.cas",
	[KV_STORED_CAS] = "SELECT c.cas, %2$s FROM %1$s AS c "
					  "WHERE c.id OPERATOR(pg_catalog.=) $1 AND " LIVE("c."),
	[KV_REMOVE] =
		"DELETE FROM %s AS c WHERE c.id OPERATOR(pg_catalog.=) $1 AND " LIVE(
			"c.") " AND ($2 IS NULL OR c.cas OPERATOR(pg_catalog.=) $2) "
				  "RETURNING c.cas",
	[KV_TOUCH] = KV_NO_LOCK "UPDATE %1$s AS c SET expires_at = $2 "
							"WHERE c.id OPERATOR(pg_catalog.=) $1 AND " LIVE(
								"c.") " RETURNING c.cas, %3$s",
	[KV_PURGE] = "DELETE FROM %s WHERE expires_at OPERATOR(pg_catalog.<=) "
				 "pg_catalog.now()",
	[KV_EXISTS] =
		"SELECT FROM %s WHERE id OPERATOR(pg_catalog.=) $1 AND " LIVE(""),
	[KV_LOCK] = KV_NO_LOCK "UPDATE %1$s AS c SET locked_until = $2 "
						   "WHERE c.id OPERATOR(pg_catalog.=) $1 AND " LIVE(
							   "c.") " RETURNING c.cas, %3$s",
	[KV_UNLOCK] =
		"UPDATE %s AS c SET locked_until = NULL, cas = $2 "
		"WHERE c.id OPERATOR(pg_catalog.=) $1 AND " LIVE(
			"c.") " AND c.cas OPERATOR(pg_catalog.=) $2 AND c.locked_until "
				  "OPERATOR(pg_catalog.>) $3 "
				  "RETURNING c.cas",
	/* the column meta exists in xattrs collections only */
	[KV_META] = "SELECT %3$s, c.cas, c.expires_at, pg_catalog.to_jsonb(c) "
				"OPERATOR(pg_catalog.->) 'meta' FROM %1$s AS c " KV_NO_LOCK
				"WHERE c.id OPERATOR(pg_catalog.=) $1 AND " LIVE("c."),
};

/* Parameter types of each statement. */
static const Oid KvArgs[KV_NSTMTS][6] = {
	[KV_GET] = {TEXTOID},
	[KV_GET_MULTI] = {TEXTARRAYOID},
	/* the last timestamptz of these: now(), the transaction's start */
	[KV_INSERT] = {TEXTOID, JSONBOID, TIMESTAMPTZOID, BOOLOID, TIMESTAMPTZOID},
	[KV_UPSERT] = {TEXTOID, JSONBOID, TIMESTAMPTZOID, BOOLOID, TIMESTAMPTZOID},
	[KV_UPDATE] = {TEXTOID, JSONBOID, TIMESTAMPTZOID},
	[KV_UPDATE_KEEP] = {TEXTOID, JSONBOID, TIMESTAMPTZOID, BOOLOID,
						TIMESTAMPTZOID},
	[KV_REPLACE] = {TEXTOID, JSONBOID, TIMESTAMPTZOID, INT8OID, BOOLOID,
					TIMESTAMPTZOID},
	[KV_STORED_CAS] = {TEXTOID},
	[KV_REMOVE] = {TEXTOID, INT8OID},
	[KV_TOUCH] = {TEXTOID, TIMESTAMPTZOID},
	[KV_PURGE] = {InvalidOid},
	[KV_EXISTS] = {TEXTOID},
	[KV_LOCK] = {TEXTOID, TIMESTAMPTZOID},
	/* $3: clock_timestamp(), passed (Citus refuses VOLATILE in WHERE) */
	[KV_UNLOCK] = {TEXTOID, INT8OID, TIMESTAMPTZOID},
	[KV_META] = {TEXTOID},
};
static const int KvNargs[KV_NSTMTS] = {
	[KV_GET] = 1,     [KV_GET_MULTI] = 1,  [KV_INSERT] = 5,
	[KV_UPSERT] = 5,  [KV_UPDATE] = 3,     [KV_UPDATE_KEEP] = 5,
	[KV_REPLACE] = 6, [KV_STORED_CAS] = 1, [KV_REMOVE] = 2,
	[KV_TOUCH] = 2,   [KV_PURGE] = 0,      [KV_EXISTS] = 1,
	[KV_LOCK] = 2,    [KV_UNLOCK] = 3,     [KV_META] = 1,
};

/* One collection's prepared plans. */
typedef struct KvRel
{
	Oid relid;       /* hash key */
	bool valid;      /* checked to be a collection, plans current */
	bool locks;      /* has the column locked_until (not a 0.1.0 table) */
	int32 config_id; /* its collection_config id */
	bool columns;    /* meta_style 'columns': reads merge the stamps */
	bool citus;      /* a Citus table (DocmodelCitusTable): statements only */
	Oid pkey; /* the unique btree on (id) for KvReadDirect, or InvalidOid */
	bool rls; /* relrowsecurity: KvReadDirect asks check_enable_rls */
	/* KvSql's statements, then KvExt's */
	SPIPlanPtr plans[KV_NSTMTS + DOCMODEL_KV_EXT_STMTS];
} KvRel;

/* Other modules' statements (DocmodelKvWriteWith), by slot. */
static const DocmodelKvSql *KvExt[DOCMODEL_KV_EXT_STMTS];

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

/* Move a stale entry's plans to the free list, and free it when idle. */
static void
KvRetirePlans(KvRel *entry)
{
	MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);
	int i;

	for (i = 0; i < lengthof(entry->plans); i++)
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
 * Return the index KvReadDirect reads collection entry->relid (locked) by:
 * its primary key when that is a unique btree on column id alone and the
 * collection is a plain heap table; else InvalidOid (the statement path).
 * Not for a Citus table (its data is on the workers; KvLookup asks).
 */
static Oid
KvDirectIndex(KvRel *entry)
{
	Relation rel;
	Oid pkey = InvalidOid;

	rel = table_open(entry->relid, NoLock);
	entry->rls = rel->rd_rel->relrowsecurity;
	/* a table with inheritance children: a SELECT reads them too */
	if (rel->rd_rel->relkind == RELKIND_RELATION &&
		rel->rd_rel->relam == HEAP_TABLE_AM_OID && !rel->rd_rel->relhassubclass)
	{
		list_free(RelationGetIndexList(rel)); /* sets rd_pkindex */
		if (OidIsValid(rel->rd_pkindex))
		{
			Relation idx = index_open(rel->rd_pkindex, AccessShareLock);

			if (idx->rd_rel->relam == BTREE_AM_OID &&
				idx->rd_index->indisunique && idx->rd_index->indnkeyatts == 1 &&
				idx->rd_index->indnatts == 1 &&
				idx->rd_index->indkey.values[0] == DOCMODEL_COLL_ATT_ID &&
				idx->rd_index->indisvalid && idx->rd_indexprs == NIL &&
				RelationGetIndexPredicate(idx) == NIL)
				pkey = RelationGetRelid(idx);
			index_close(idx, AccessShareLock);
		}
	}
	table_close(rel, NoLock);
	return pkey;
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
		KvCache = DocmodelHash("docmodel kv plans", 64, sizeof(Oid),
							   sizeof(KvRel), false, NULL);
	LockRelationOid(relid, mode);
	entry = hash_search(KvCache, &relid, HASH_ENTER, &found);
	if (!found)
	{
		memset(entry->plans, 0, sizeof(entry->plans));
		entry->valid = false;
	}
	if (!entry->valid)
	{
		int32 id;

		KvRetirePlans(entry);
		id = DocmodelRequireCollection(relid);
		DocmodelCheckLayoutOf(relid, DOCMODEL_LAYOUT_COLLECTION);
		/* the checks may have processed invalidations: entry is current */
		entry = hash_search(KvCache, &relid, HASH_FIND, NULL);
		entry->config_id = id;
		entry->columns = DocmodelCollectionById(id)->columns;
		entry->locks =
			get_attnum(relid, "locked_until") == DOCMODEL_COLL_ATT_LOCKED;
		entry->citus = DocmodelCitusTable(relid);
		entry->pkey = entry->citus ? InvalidOid : KvDirectIndex(entry);
		entry->valid = true;
	}
	return entry;
}

/* Return the prepared plan of stmt for the collection (SPI connected). */
static SPIPlanPtr
KvPlan(KvRel *entry, KvStmt stmt)
{
	if (entry->plans[stmt] == NULL)
	{
		char *nsp = get_namespace_name(get_rel_namespace(entry->relid));
		char *rel = get_rel_name(entry->relid);
		const DocmodelKvSql *ext =
			stmt >= KV_NSTMTS ? KvExt[stmt - KV_NSTMTS] : NULL;
		SPIPlanPtr plan;

		if (nsp == NULL || rel == NULL)
			elog(ERROR, "relation %u has gone", entry->relid);
		plan = SPI_prepare(
			psprintf(ext ? ext->sql : KvSql[stmt],
					 quote_qualified_identifier(nsp, rel),
					 entry->locks ? "c.locked_until"
								  : "NULL::pg_catalog.timestamptz",
					 entry->columns ? DocmodelDocumentSql(entry->relid, "c")
									: "c.doc"),
			ext ? ext->nargs : KvNargs[stmt],
			ext ? (Oid *) ext->argtypes : (Oid *) KvArgs[stmt]);
		if (plan == NULL)
			elog(ERROR, "SPI_prepare failed: %s",
				 SPI_result_code_string(SPI_result));
		DocmodelCheckPlanTargets(plan, &entry->relid, 1);
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
	MemoryContext cxt = CurrentMemoryContext;
	int ret;

	KvDepth++;
	PG_TRY();
	{
		ret = SPI_execute_plan(plan, values, nulls, read_only, count);
	}
	PG_CATCH();
	{
		KvDepth--;
		DocmodelErrHideStatement(plan, cxt);
	}
	PG_END_TRY();
	KvDepth--;
	if (ret < 0)
		elog(ERROR, "SPI_execute_plan failed: %s", SPI_result_code_string(ret));
	return ret;
}

/* get_and_lock's lock time: 15 s by default, 30 s at most (Couchbase's). */
#define KV_LOCK_DEFAULT_SECS 15
#define KV_LOCK_MAX_SECS 30

/* Return the single bigint result of the last statement (SPI connected). */
static int64
KvResultCas(void)
{
	bool isnull;

	return DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
									   SPI_tuptable->tupdesc, 1, &isnull));
}

/* Return the second column of the last statement's row as a timestamptz. */
static bool
KvResultLockedUntil(TimestampTz *until)
{
	bool isnull;
	Datum d =
		SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull);

	if (isnull)
		return false;
	*until = DatumGetTimestampTz(d);
	return *until > GetCurrentTimestamp();
}

/* Set by replace_if_cas, remove_if_cas; cleared before their statement runs. */
static bool KvSoftCas = false;

/*
 * After a replace or remove matched nothing: raise
 * DocumentNotFound; DocumentLocked when the document is locked (a write
 * with another cas than the lock's); else CasMismatch naming the given and
 * the stored cas, or with soft return 0 (no cas is 0).
 */
static int64
KvNothingMatched(KvRel *entry, Datum keyd, const char *key, bool has_cas,
				 int64 cas, bool soft)
{
	Datum values[1] = {keyd};
	TimestampTz until;

	KvExec(entry, KV_STORED_CAS, values, NULL, false, 1);
	if (SPI_processed == 0 || !has_cas)
		DocmodelKvNotFound(entry->relid, key);
	if (KvResultLockedUntil(&until))
		DocmodelKvLocked(entry->relid, key, strlen(key), until);
	if (soft)
		return 0;
	DocmodelKvCasMismatch(entry->relid, key, cas, KvResultCas());
}

/*
 * Run stmt presenting cas for key (when cas_arg holds one): the trigger
 * lets the write through the document's lock when cas is the lock's.
 */
static void
KvExecPresenting(FunctionCallInfo fcinfo, KvRel *entry, KvStmt stmt,
				 Datum *values, const char *nulls, const char *key, int cas_arg)
{
	bool save_set = DocmodelKvPresent.set;
	const char *save_key = DocmodelKvPresent.key;
	int save_len = DocmodelKvPresent.key_len;
	int64 save_cas = DocmodelKvPresent.cas;

	if (cas_arg >= 0 && !PG_ARGISNULL(cas_arg))
	{
		DocmodelKvPresent.set = true;
		DocmodelKvPresent.key = key;
		DocmodelKvPresent.key_len = strlen(key);
		DocmodelKvPresent.cas = PG_GETARG_INT64(cas_arg);
	}
	PG_TRY();
	{
		KvExec(entry, stmt, values, nulls, false, 0);
	}
	PG_FINALLY();
	{
		DocmodelKvPresent.set = save_set;
		DocmodelKvPresent.key = save_key;
		DocmodelKvPresent.key_len = save_len;
		DocmodelKvPresent.cas = save_cas;
	}
	PG_END_TRY();
}

/*
 * Run stmt, a write that must match the live document (replace, remove,
 * touch, lock), and return the cas it leaves (SPI stays connected: the
 * statement's row is in SPI_tuptable). cas_arg is the argument holding the
 * caller's cas (-1 for none): nothing matched is DocumentNotFound, or
 * DocumentLocked or CasMismatch when a cas was given and the document is
 * there.
 */
static int64
KvWriteLiveKeep(FunctionCallInfo fcinfo, KvRel *entry, KvStmt stmt,
				Datum *values, const char *nulls, const char *key, int cas_arg)
{
	bool soft = KvSoftCas;

	KvSoftCas = false;
	DocmodelSpiConnect();
	KvExecPresenting(fcinfo, entry, stmt, values, nulls, key, cas_arg);
	if (SPI_processed == 0 && cas_arg < 0)
		DocmodelKvNotFound(entry->relid, key);
	if (SPI_processed == 0)
		return KvNothingMatched(
			entry, values[0], key, !PG_ARGISNULL(cas_arg),
			PG_ARGISNULL(cas_arg) ? 0 : PG_GETARG_INT64(cas_arg), soft);
	return KvResultCas();
}

/* KvWriteLiveKeep, then SPI_finish. */
static int64
KvWriteLive(FunctionCallInfo fcinfo, KvRel *entry, KvStmt stmt, Datum *values,
			const char *nulls, const char *key, int cas_arg)
{
	int64 cas =
		KvWriteLiveKeep(fcinfo, entry, stmt, values, nulls, key, cas_arg);

	SPI_finish();
	return cas;
}

/* get(coll, key) -> jsonb: the live document, or NULL. */
Datum
kv_get(PG_FUNCTION_ARGS)
{
	Jsonb *doc = DocmodelKvGet(PG_GETARG_OID(0), PG_GETARG_DATUM(1));

	if (doc == NULL)
		PG_RETURN_NULL();
	PG_RETURN_JSONB_P(doc);
}

/*
 * Read the live document key of the collection (locked by KvLookup) by its
 * primary key without a statement, as "SELECT doc ... WHERE id = $1 AND
 * live" would under the active snapshot: into *doc (a copy in the current
 * context, NULL when absent or expired; doc may be NULL to ask only
 * whether it is there). Return false, having read nothing, when the
 * statement path must answer: no direct index (KvDirectIndex), row-level
 * security applies to the caller, or the caller lacks SELECT on the table
 * (the statement raises 42501, or reads by column privileges).
 */
static bool
KvReadDirect(KvRel *entry, Datum keyd, Jsonb **doc, bool *found)
{
	Relation rel;
	Relation idx;
	IndexScanDesc scan;
	TupleTableSlot *slot;
	ScanKeyData skey;

	if (!OidIsValid(entry->pkey) || !ActiveSnapshotSet() ||
		pg_class_aclcheck(entry->relid, GetUserId(), ACL_SELECT) !=
			ACLCHECK_OK ||
		(entry->rls &&
		 check_enable_rls(entry->relid, InvalidOid, true) != RLS_NONE))
		return false;
	rel = table_open(entry->relid, NoLock);
	idx = index_open(entry->pkey, AccessShareLock);
	ScanKeyEntryInitialize(&skey, 0, 1, BTEqualStrategyNumber, InvalidOid,
						   idx->rd_indcollation[0], F_TEXTEQ, keyd);
	slot = table_slot_create(rel, NULL);
	scan = index_beginscan(rel, idx, GetActiveSnapshot(), 1, 0);
	index_rescan(scan, &skey, 1, NULL, 0);
	*found = false;
	if (doc != NULL)
		*doc = NULL;
	if (index_getnext_slot(scan, ForwardScanDirection, slot))
	{
		bool isnull;
		Datum exp = slot_getattr(slot, DOCMODEL_COLL_ATT_EXPIRES, &isnull);

		/* LIVE: expires_at IS NULL OR expires_at > now() */
		*found = isnull || DatumGetTimestampTz(exp) >
							   GetCurrentTransactionStartTimestamp();
		if (*found && doc != NULL)
		{
			Datum d = slot_getattr(slot, DOCMODEL_COLL_ATT_DOC, &isnull);

			if (!isnull && entry->columns)
				*doc = DocmodelColumnsSlotDocument(entry->config_id, rel, slot,
												   keyd, d);
			else if (!isnull)
				*doc = DatumGetJsonbPCopy(d);
		}
	}
	index_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	index_close(idx, NoLock);
	table_close(rel, NoLock);
	return true;
}

/*
 * How reads of the collection of entry migrate a document: by its fields
 * (*fs), or not at all (false: an xattrs collection, whose body carries
 * no version and is taken to be current).
 */
static bool
KvReadMigrates(KvRel *entry, const DocFieldSet **fs)
{
	const DocmodelCollection *cfg = DocmodelCollectionById(entry->config_id);

	*fs = cfg->fs; /* never freed (fields.c) */
	return !cfg->xattrs;
}

/* The live document key of collection relid, migrated; see kv.h. */
Jsonb *
DocmodelKvGet(Oid relid, Datum keyd)
{
	KvRel *entry = KvLookup(relid, AccessShareLock);
	Datum values[1] = {keyd};
	Jsonb *doc = NULL;
	const DocFieldSet *fs;
	bool found;

	if (!KvReadDirect(entry, keyd, &doc, &found))
	{
		DocmodelSpiConnect();
		KvExec(entry, KV_GET, values, NULL, true, 1);
		if (SPI_processed == 1)
		{
			bool isnull;
			Datum result = SPI_getbinval(SPI_tuptable->vals[0],
										 SPI_tuptable->tupdesc, 1, &isnull);

			if (!isnull)
				doc = DatumGetJsonbP(SPI_datumTransfer(result, false, -1));
		}
		SPI_finish();
	}
	if (doc == NULL || !KvReadMigrates(entry, &fs))
		return doc;
	/* schema version: see migrate.c (get returns the current version) */
	return DocmodelMigrateIn(doc, NULL, TextDatumGetCString(keyd), fs,
							 entry->config_id);
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
	bool migrates; /* KvReadMigrates */
	const DocFieldSet *fs;
	int32 scope; /* the collection's rules: its config id */
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
		r->store, r->migrates
					  ? DocmodelMigrateTuple(tup, slot->tts_tupleDescriptor, 1,
											 2, r->fs, r->scope)
					  : tup);
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
	recv.migrates = KvReadMigrates(entry, &recv.fs);
	recv.scope = entry->config_id;
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

	DocmodelSpiConnect();
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

/*
 * Run insert or upsert: (coll, key, doc, expiry[, preserve_expiry]).
 * upsert's preserve_expiry keeps the expiry of a live stored document.
 */
static Datum
KvWrite(FunctionCallInfo fcinfo, KvStmt stmt)
{
	KvRel *entry;
	char *key;
	Datum values[5];
	char nulls[5] = {' ', ' ', ' ', ' ', ' '};
	TimestampTz at;
	bool preserve;
	int64 cas;
	int level;

	DocmodelRequireArg(fcinfo, 0, "collection");
	DocmodelRequireArg(fcinfo, 1, "key");
	DocmodelRequireArg(fcinfo, 2, "document");
	key = text_to_cstring(PG_GETARG_TEXT_PP(1));
	preserve = stmt == KV_UPSERT && DocmodelKvPreserveExpiry(fcinfo, 4, 3);
	if (!DocmodelKvExpiryAt(fcinfo, 3, key, &at))
		nulls[2] = 'n';
	entry = KvLookup(PG_GETARG_OID(0), RowExclusiveLock);
	values[0] = PG_GETARG_DATUM(1);
	values[1] = PG_GETARG_DATUM(2);
	values[2] = TimestampTzGetDatum(at);
	values[3] = BoolGetDatum(preserve);
	values[4] = TimestampTzGetDatum(GetCurrentTransactionStartTimestamp());
	level = entry->citus ? DocmodelCitusAutocommit(fcinfo) : -1;
	DocmodelSpiConnect();
	/*
	 * upsert of a present key: a plain UPDATE fires the trigger once, where
	 * INSERT ... ON CONFLICT would stamp the row as an insert first.
	 */
	if (stmt == KV_UPSERT)
		KvExec(entry, preserve ? KV_UPDATE_KEEP : KV_UPDATE, values, nulls,
			   false, 0);
	if (stmt != KV_UPSERT || SPI_processed == 0)
		KvExec(entry, stmt, values, nulls, false, 0);
	if (SPI_processed == 0)
		DocmodelKvExists(entry->relid, key);
	cas = KvResultCas();
	SPI_finish();
	DocmodelCitusDone(level);
	PG_RETURN_INT64(cas);
}

/* insert(coll, key, doc, expiry) -> cas; 23505 when the key is live. */
Datum
kv_insert(PG_FUNCTION_ARGS)
{
	return KvWrite(fcinfo, KV_INSERT);
}

/* upsert(coll, key, doc, expiry, preserve_expiry) -> cas: insert or replace. */
Datum
kv_upsert(PG_FUNCTION_ARGS)
{
	return KvWrite(fcinfo, KV_UPSERT);
}

/*
 * replace(coll, key, doc, cas, expiry, preserve_expiry) -> cas; P0002
 * absent, 40001 stale, 55P03 locked (a cas given for a locked document
 * must be the lock's, which unlocks it).
 */
Datum
kv_replace(PG_FUNCTION_ARGS)
{
	KvRel *entry;
	char *key;
	Datum values[6];
	char nulls[6] = {' ', ' ', ' ', ' ', ' ', ' '};
	TimestampTz at;
	bool preserve;

	DocmodelRequireArg(fcinfo, 0, "collection");
	DocmodelRequireArg(fcinfo, 1, "key");
	DocmodelRequireArg(fcinfo, 2, "document");
	key = text_to_cstring(PG_GETARG_TEXT_PP(1));
	preserve = DocmodelKvPreserveExpiry(fcinfo, 5, 4);
	if (!DocmodelKvExpiryAt(fcinfo, 4, key, &at))
		nulls[2] = 'n';
	entry = KvLookup(PG_GETARG_OID(0), RowExclusiveLock);
	values[0] = PG_GETARG_DATUM(1);
	values[1] = PG_GETARG_DATUM(2);
	values[2] = TimestampTzGetDatum(at);
	values[3] = PG_ARGISNULL(3) ? (Datum) 0 : PG_GETARG_DATUM(3);
	values[4] = BoolGetDatum(preserve);
	values[5] = TimestampTzGetDatum(GetCurrentTransactionStartTimestamp());
	if (PG_ARGISNULL(3))
		nulls[3] = 'n';
	PG_RETURN_INT64(
		KvWriteLive(fcinfo, entry, KV_REPLACE, values, nulls, key, 3));
}

/*
 * Run fn (kv_replace or kv_remove) with its cas (argument cas_arg, not
 * NULL) presented softly: NULL instead of CasMismatch.
 */
static Datum
KvIfCas(FunctionCallInfo fcinfo, PGFunction fn, int cas_arg)
{
	Datum result = (Datum) 0;

	DocmodelRequireArg(fcinfo, cas_arg, "cas");
	KvSoftCas = true;
	PG_TRY();
	{
		result = fn(fcinfo);
	}
	PG_FINALLY();
	{
		KvSoftCas = false;
	}
	PG_END_TRY();
	if (DatumGetInt64(result) == 0)
		PG_RETURN_NULL();
	return result;
}

/* replace_if_cas(coll, key, doc, cas, expiry, preserve_expiry) -> cas or NULL. */
Datum
kv_replace_if_cas(PG_FUNCTION_ARGS)
{
	return KvIfCas(fcinfo, kv_replace, 3);
}

/* remove_if_cas(coll, key, cas) -> the removed document's cas or NULL. */
Datum
kv_remove_if_cas(PG_FUNCTION_ARGS)
{
	return KvIfCas(fcinfo, kv_remove, 2);
}

/*
 * Before remove(coll, key, cas) on a Citus table: a document locked with
 * cas is unlocked first, since the lock's DELETE trigger on a shard does
 * not see the cas presented (DocmodelKvPresent is this backend's) but the unlock
 * carries it there (it assigns the cas). Returns the cas the document then
 * has: cas itself when it was not locked so.
 */
static int64
KvCitusUnlock(KvRel *entry, Datum key, int64 cas)
{
	Datum values[3];

	values[0] = key;
	values[1] = Int64GetDatum(cas);
	values[2] = TimestampTzGetDatum(GetCurrentTimestamp());
	DocmodelSpiConnect();
	KvExec(entry, KV_UNLOCK, values, NULL, false, 0);
	if (SPI_processed == 1)
		cas = KvResultCas();
	SPI_finish();
	return cas;
}

/* remove(coll, key, cas) -> the removed document's cas. */
Datum
kv_remove(PG_FUNCTION_ARGS)
{
	KvRel *entry;
	char *key;
	Datum values[2];
	char nulls[2] = {' ', ' '};

	DocmodelRequireArg(fcinfo, 0, "collection");
	DocmodelRequireArg(fcinfo, 1, "key");
	key = text_to_cstring(PG_GETARG_TEXT_PP(1));
	entry = KvLookup(PG_GETARG_OID(0), RowExclusiveLock);
	values[0] = PG_GETARG_DATUM(1);
	values[1] = PG_ARGISNULL(2) ? (Datum) 0 : PG_GETARG_DATUM(2);
	if (PG_ARGISNULL(2))
		nulls[1] = 'n';
	else if (entry->locks && entry->citus)
		values[1] =
			Int64GetDatum(KvCitusUnlock(entry, values[0], PG_GETARG_INT64(2)));
	PG_RETURN_INT64(
		KvWriteLive(fcinfo, entry, KV_REMOVE, values, nulls, key, 2));
}

/*
 * Return the (doc, cas) result of get_and_touch and get_and_lock from the
 * row (cas, doc) the statement returned, the document migrated as get()'s
 * is; finishes SPI.
 */
static Datum
KvDocAndCas(FunctionCallInfo fcinfo, const char *key)
{
	TupleDesc desc;
	Datum values[2];
	bool nulls[2] = {false, false};
	bool isnull;
	Jsonb *doc;
	Jsonb *cur;
	const DocFieldSet *fs;
	KvRel *entry;

	values[1] = Int64GetDatum(KvResultCas());
	values[0] = SPI_datumTransfer(
		SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull),
		false, -1);
	SPI_finish();
	/* schema version: see migrate.c (the document at its current version) */
	doc = DatumGetJsonbP(values[0]);
	entry = KvLookup(PG_GETARG_OID(0), AccessShareLock);
	cur = KvReadMigrates(entry, &fs)
			  ? DocmodelMigrateIn(doc, NULL, key, fs, entry->config_id)
			  : doc;
	if (cur != doc)
		values[0] = JsonbPGetDatum(cur);
	/* after SPI_finish: the descriptor lives in the caller's context */
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	return HeapTupleGetDatum(
		heap_form_tuple(BlessTupleDesc(desc), values, nulls));
}

/* Run touch or get_and_touch: (coll, key, expiry); SPI left connected. */
static void
KvTouch(FunctionCallInfo fcinfo, const char *key)
{
	KvRel *entry;
	Datum values[2];
	char nulls[2] = {' ', ' '};
	TimestampTz at;

	if (!DocmodelKvExpiryAt(fcinfo, 2, key, &at))
		nulls[1] = 'n';
	entry = KvLookup(PG_GETARG_OID(0), RowExclusiveLock);
	values[0] = PG_GETARG_DATUM(1);
	values[1] = TimestampTzGetDatum(at);
	(void) KvWriteLiveKeep(fcinfo, entry, KV_TOUCH, values, nulls, key, -1);
}

/* touch(coll, key, expiry) -> new cas: set or clear (NULL) the expiry. */
Datum
kv_touch(PG_FUNCTION_ARGS)
{
	int64 cas;

	DocmodelRequireArg(fcinfo, 0, "collection");
	DocmodelRequireArg(fcinfo, 1, "key");
	KvTouch(fcinfo, text_to_cstring(PG_GETARG_TEXT_PP(1)));
	cas = KvResultCas();
	SPI_finish();
	PG_RETURN_INT64(cas);
}

/* get_and_touch(coll, key, expiry) -> (doc, cas): touch, and read. */
Datum
kv_get_and_touch(PG_FUNCTION_ARGS)
{
	char *key;

	DocmodelRequireArg(fcinfo, 0, "collection");
	DocmodelRequireArg(fcinfo, 1, "key");
	key = text_to_cstring(PG_GETARG_TEXT_PP(1));
	KvTouch(fcinfo, key);
	PG_RETURN_DATUM(KvDocAndCas(fcinfo, key));
}

/* Raise 55000 when the collection has no lock column (0.1.0, not updated). */
static void
KvRequireLocks(KvRel *entry)
{
	if (!entry->locks)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("collection \"%s\" has no column \"locked_until\"",
						get_rel_name(entry->relid)),
				 errdetail("Collections made by docmodel 0.1.0 get it from "
						   "the update to 0.2.0."),
				 errhint("Run ALTER EXTENSION docmodel UPDATE.")));
}

/*
 * get_and_lock(coll, key, lock_time) -> (doc, cas): lock the document for
 * lock_time (15 s when NULL, 30 s at most) and read it; cas is the lock's.
 * A locked document refuses a second lock (55P03, from the trigger).
 */
Datum
kv_get_and_lock(PG_FUNCTION_ARGS)
{
	KvRel *entry;
	char *key;
	Datum values[2];
	DocmodelKvTimeArg t;
	int64 us;

	DocmodelRequireArg(fcinfo, 0, "collection");
	DocmodelRequireArg(fcinfo, 1, "key");
	key = text_to_cstring(PG_GETARG_TEXT_PP(1));
	DocmodelKvTimeArgOf(fcinfo, 2, "lock time", &t);
	if (t.isnull)
		us = KV_LOCK_DEFAULT_SECS * USECS_PER_SEC;
	else if (t.is_number)
		us = (t.number > 0 && t.number <= KV_LOCK_MAX_SECS)
				 ? t.number * USECS_PER_SEC
				 : 0;
	else
		us = DocmodelKvPlus(0, t.interval);
	if (us <= 0 || us > KV_LOCK_MAX_SECS * USECS_PER_SEC)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid lock time %s", t.text),
				 errdetail("Document \"%s\": a lock lasts more than 0 and at "
						   "most %d seconds.",
						   key, KV_LOCK_MAX_SECS),
				 errhint("Leave lock_time out for the default of %d "
						 "seconds.",
						 KV_LOCK_DEFAULT_SECS)));
	entry = KvLookup(PG_GETARG_OID(0), RowExclusiveLock);
	KvRequireLocks(entry);
	values[0] = PG_GETARG_DATUM(1);
	values[1] = TimestampTzGetDatum(GetCurrentTimestamp() + us);
	(void) KvWriteLiveKeep(fcinfo, entry, KV_LOCK, values, NULL, key, -1);
	PG_RETURN_DATUM(KvDocAndCas(fcinfo, key));
}

/*
 * unlock(coll, key, cas) -> new cas: end the lock get_and_lock took, given
 * its cas. 22023 for cas 0; P0002 absent; 55000 DocumentNotLocked when no
 * lock is held (or it has ended); 40001 when cas is not the lock's.
 */
Datum
kv_unlock(PG_FUNCTION_ARGS)
{
	KvRel *entry;
	char *key;
	Datum values[3];
	int64 cas;
	TimestampTz until;

	DocmodelRequireArg(fcinfo, 0, "collection");
	DocmodelRequireArg(fcinfo, 1, "key");
	DocmodelRequireArg(fcinfo, 2, "cas");
	key = text_to_cstring(PG_GETARG_TEXT_PP(1));
	if (PG_GETARG_INT64(2) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid cas 0 for unlock of document \"%s\"", key),
				 errdetail("InvalidArgument: unlock takes the cas "
						   "get_and_lock returned.")));
	entry = KvLookup(PG_GETARG_OID(0), RowExclusiveLock);
	KvRequireLocks(entry);
	values[0] = PG_GETARG_DATUM(1);
	values[1] = PG_GETARG_DATUM(2);
	values[2] = TimestampTzGetDatum(GetCurrentTimestamp());
	DocmodelSpiConnect();
	KvExecPresenting(fcinfo, entry, KV_UNLOCK, values, NULL, key, 2);
	if (SPI_processed == 0)
	{
		KvExec(entry, KV_STORED_CAS, values, NULL, false, 1);
		if (SPI_processed == 0)
			DocmodelKvNotFound(entry->relid, key);
		if (!KvResultLockedUntil(&until))
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("document \"%s\" is not locked", key),
					 errdetail("Collection \"%s\": the document has no lock, "
							   "or its lock has ended.",
							   get_rel_name(entry->relid)),
					 errhint("Lock it with docmodel.get_and_lock().")));
		DocmodelKvCasMismatch(entry->relid, key, PG_GETARG_INT64(2),
							  KvResultCas());
	}
	cas = KvResultCas();
	SPI_finish();
	PG_RETURN_INT64(cas);
}

/* exists(coll, key) -> boolean: whether a live document has this key. */
Datum
kv_exists(PG_FUNCTION_ARGS)
{
	KvRel *entry = KvLookup(PG_GETARG_OID(0), AccessShareLock);
	Datum values[1] = {PG_GETARG_DATUM(1)};
	bool found;

	if (!KvReadDirect(entry, values[0], NULL, &found))
	{
		DocmodelSpiConnect();
		KvExec(entry, KV_EXISTS, values, NULL, true, 1);
		found = SPI_processed > 0;
		SPI_finish();
	}
	PG_RETURN_BOOL(found);
}

/* purge_expired(coll) -> how many expired documents were deleted. */
Datum
kv_purge_expired(PG_FUNCTION_ARGS)
{
	KvRel *entry = KvLookup(PG_GETARG_OID(0), RowExclusiveLock);
	uint64 n;

	DocmodelSpiConnect();
	KvExec(entry, KV_PURGE, NULL, NULL, false, 0);
	n = SPI_processed;
	SPI_finish();
	PG_RETURN_INT64((int64) n);
}

/* Write a document with another module's statements; see kv.h. */
int64
DocmodelKvWriteWith(FunctionCallInfo fcinfo, const DocmodelKvSql *update,
					const DocmodelKvSql *insert, Datum *values,
					const char *nulls, const char *key, int cas_arg)
{
	KvRel *entry = KvLookup(PG_GETARG_OID(0), RowExclusiveLock);
	int64 cas;

	if (update != NULL)
		KvExt[update->slot] = update;
	if (insert != NULL)
		KvExt[insert->slot] = insert;
	if (insert == NULL)
		return KvWriteLive(fcinfo, entry, KV_NSTMTS + update->slot, values,
						   nulls, key, cas_arg);
	DocmodelSpiConnect();
	if (update != NULL)
		KvExec(entry, KV_NSTMTS + update->slot, values, nulls, false, 0);
	if (update == NULL || SPI_processed == 0)
		KvExec(entry, KV_NSTMTS + insert->slot, values, nulls, false, 0);
	if (SPI_processed == 0)
		DocmodelKvExists(entry->relid, key);
	cas = KvResultCas();
	SPI_finish();
	return cas;
}

/*
 * Whether an UPDATE of relid (open) by the current user may be done as
 * DocmodelKvUpdateDirect does it: nothing of the statement it replaces is
 * left out (see kv.h). A table with rules (CREATE RULE ... ON UPDATE DO
 * INSTEAD / ALSO) has its UPDATE rewritten, which only a statement does:
 * rd_rules, the relcache's copy of them, says so without a catalog read.
 */
static bool
KvDirectUpdateOk(KvRel *entry, Relation rel)
{
	TriggerDesc *td = rel->trigdesc;

	/* meta_style 'columns': the statement merges the stamps (%3$s) */
	return !entry->columns && OidIsValid(entry->pkey) &&
		   !IsolationUsesXactSnapshot() && !XactReadOnly &&
		   !rel->rd_rel->relispartition && rel->rd_rules == NULL &&
		   pg_class_aclcheck(entry->relid, GetUserId(), ACL_UPDATE) ==
			   ACLCHECK_OK &&
		   pg_class_aclcheck(entry->relid, GetUserId(), ACL_SELECT) ==
			   ACLCHECK_OK &&
		   check_enable_rls(entry->relid, InvalidOid, true) == RLS_NONE &&
		   (td == NULL ||
			!(td->trig_update_before_statement ||
			  td->trig_update_after_statement || td->trig_update_old_table ||
			  td->trig_update_new_table || td->trig_update_instead_row));
}

/*
 * Find the live document keyd through the primary key with a new snapshot
 * (as a statement would take one) and lock its newest version into slot,
 * following concurrent updates as READ COMMITTED's UPDATE does. Returns
 * 1 found, 0 no live document, -1 anything else (the caller's statement
 * decides: a row this command already changed, say).
 */
static int
KvFindAndLock(KvRel *entry, Relation rel, Datum keyd, EState *estate,
			  TupleTableSlot *slot)
{
	Relation idx = index_open(entry->pkey, RowExclusiveLock);
	IndexScanDesc scan;
	ScanKeyData skey;
	TM_FailureData tmfd;
	bool found;
	bool isnull;
	Datum exp;

	ScanKeyEntryInitialize(&skey, 0, 1, BTEqualStrategyNumber, InvalidOid,
						   idx->rd_indcollation[0], F_TEXTEQ, keyd);
	scan = index_beginscan(rel, idx, estate->es_snapshot, 1, 0);
	index_rescan(scan, &skey, 1, NULL, 0);
	found = index_getnext_slot(scan, ForwardScanDirection, slot);
	index_endscan(scan);
	index_close(idx, NoLock);
	if (!found)
		return 0;
	switch (table_tuple_lock(rel, &slot->tts_tid, estate->es_snapshot, slot,
							 estate->es_output_cid, LockTupleNoKeyExclusive,
							 LockWaitBlock, TUPLE_LOCK_FLAG_FIND_LAST_VERSION,
							 &tmfd))
	{
		case TM_Ok:
			break;
		case TM_Deleted:
			return 0; /* deleted meanwhile: the UPDATE finds nothing */
		default:
			return -1;
	}
	/* LIVE: expires_at IS NULL OR expires_at > now() */
	exp = slot_getattr(slot, DOCMODEL_COLL_ATT_EXPIRES, &isnull);
	return isnull ||
		   DatumGetTimestampTz(exp) > GetCurrentTransactionStartTimestamp();
}

/* Update a live document without a statement; see kv.h. */
bool
DocmodelKvUpdateDirect(Oid relid, Datum keyd, DocmodelKvApply apply, void *arg,
					   const TimestampTz *expiry, bool *found, bool *skipped,
					   int64 *cas)
{
	KvRel *entry = KvLookup(relid, RowExclusiveLock);
	Relation rel = table_open(relid, NoLock);
	RangeTblEntry *rte;
	ResultRelInfo *rri;
	EState *estate;
	EPQState epq;
	TupleTableSlot *oldslot;
	TupleTableSlot *newslot;
	int natts = RelationGetDescr(rel)->natts;
	int r;

	if (!KvDirectUpdateOk(entry, rel))
	{
		table_close(rel, NoLock);
		return false;
	}
	/* a statement of a VOLATILE function: it sees what came before */
	CommandCounterIncrement();
	PushActiveSnapshot(GetTransactionSnapshot());
	estate = CreateExecutorState();
	rte = makeNode(RangeTblEntry);
	rte->rtekind = RTE_RELATION;
	rte->relid = relid;
	rte->relkind = rel->rd_rel->relkind;
	rte->rellockmode = RowExclusiveLock;
	DocmodelInitRangeTable(
		estate, rte, ACL_UPDATE | ACL_SELECT,
		bms_add_member(bms_make_singleton(DOCMODEL_COLL_ATT_DOC -
										  FirstLowInvalidHeapAttributeNumber),
					   DOCMODEL_COLL_ATT_EXPIRES -
						   FirstLowInvalidHeapAttributeNumber));
	rri = makeNode(ResultRelInfo);
	InitResultRelInfo(rri, rel, 1, NULL, 0);
	estate->es_snapshot = GetActiveSnapshot();
	estate->es_output_cid = GetCurrentCommandId(true);
	oldslot = table_slot_create(rel, &estate->es_tupleTable);
	newslot = table_slot_create(rel, &estate->es_tupleTable);
	r = KvFindAndLock(entry, rel, keyd, estate, oldslot);
	*found = r == 1;
	*skipped = false;
	if (r == 1)
	{
		bool isnull;
		Jsonb *doc = DatumGetJsonbP(
			slot_getattr(oldslot, DOCMODEL_COLL_ATT_DOC, &isnull));

		slot_getallattrs(oldslot);
		ExecClearTuple(newslot);
		memcpy(newslot->tts_values, oldslot->tts_values, natts * sizeof(Datum));
		memcpy(newslot->tts_isnull, oldslot->tts_isnull, natts * sizeof(bool));
		newslot->tts_values[DOCMODEL_COLL_ATT_DOC - 1] =
			JsonbPGetDatum(apply(arg, isnull ? NULL : doc));
		newslot->tts_isnull[DOCMODEL_COLL_ATT_DOC - 1] = false;
		newslot->tts_values[DOCMODEL_COLL_ATT_EXPIRES - 1] =
			expiry ? TimestampTzGetDatum(*expiry) : (Datum) 0;
		newslot->tts_isnull[DOCMODEL_COLL_ATT_EXPIRES - 1] = expiry == NULL;
		ExecStoreVirtualTuple(newslot);
		ExecOpenIndices(rri, false);
		EvalPlanQualInit(&epq, estate, NULL, NIL, -1);
		AfterTriggerBeginQuery();
		ExecSimpleRelationUpdate(rri, estate, &epq, oldslot, newslot);
		AfterTriggerEndQuery(estate);
		EvalPlanQualEnd(&epq);
		ExecCloseIndices(rri);
		/* a BEFORE trigger that returned NULL: the UPDATE did nothing */
		*found = ItemPointerIsValid(&newslot->tts_tid);
		*skipped = !*found;
		if (*found)
			*cas = DatumGetInt64(
				slot_getattr(newslot, DOCMODEL_COLL_ATT_CAS, &isnull));
	}
	ExecCloseResultRelations(estate);
	ExecResetTupleTable(estate->es_tupleTable, false);
	FreeExecutorState(estate);
	PopActiveSnapshot();
	table_close(rel, NoLock);
	CommandCounterIncrement();
	return r >= 0;
}

/*
 * Run another module's statement on collection relid through the plan
 * cache (SPI connected by the caller); see kv.h.
 */
uint64
DocmodelKvExec(Oid relid, const DocmodelKvSql *stmt, Datum *values,
			   const char *nulls, int64 *cas)
{
	KvRel *entry = KvLookup(relid, RowExclusiveLock);

	KvExt[stmt->slot] = stmt;
	KvExec(entry, KV_NSTMTS + stmt->slot, values, nulls, false, 0);
	if (cas != NULL && SPI_processed > 0)
		*cas = KvResultCas();
	return SPI_processed;
}

/* Whether collection relid is a Citus table, from the plan cache; see kv.h. */
bool
DocmodelKvCitus(Oid relid)
{
	return KvLookup(relid, RowExclusiveLock)->citus;
}

/*
 * meta(coll, key) -> jsonb: Couchbase's meta() of the live document key,
 * whatever the collection's meta style and field names: id, cas,
 * expiration (Unix seconds, 0 for none) and the management fields it has
 * by their own names (type, schema, created, createdBy, modified,
 * modifiedBy, ver); NULL when the document is absent or expired. Runs as
 * the caller (SELECT on the collection).
 */
Datum
kv_meta(PG_FUNCTION_ARGS)
{
	KvRel *entry = KvLookup(PG_GETARG_OID(0), AccessShareLock);
	const DocmodelCollection *cfg = DocmodelCollectionById(entry->config_id);
	bool xattrs = cfg->xattrs;
	const DocFieldSet *fs = cfg->fs; /* never freed (fields.c) */
	Datum values[1] = {PG_GETARG_DATUM(1)};
	JsonbValue res = {.type = jbvObject};
	HeapTuple tup;
	TupleDesc desc;
	Jsonb *managed = NULL;
	int64 cas;
	int64 expiration;
	bool isnull;
	Datum d;
	int i;

	DocmodelSpiConnect();
	KvExec(entry, KV_META, values, NULL, true, 1);
	if (SPI_processed != 1)
	{
		SPI_finish();
		PG_RETURN_NULL();
	}
	tup = SPI_tuptable->vals[0];
	desc = SPI_tuptable->tupdesc;
	/* the fields: in column meta (xattrs), else in the document */
	d = SPI_getbinval(tup, desc, xattrs ? 4 : 1, &isnull);
	if (!isnull)
		managed = DatumGetJsonbP(SPI_datumTransfer(d, false, -1));
	cas = DatumGetInt64(SPI_getbinval(tup, desc, 2, &isnull));
	d = SPI_getbinval(tup, desc, 3, &isnull);
	expiration =
		isnull ? 0 : (int64) timestamptz_to_time_t(DatumGetTimestampTz(d));
	SPI_finish();
	DocmodelJsonTreePut(
		&res, "id",
		DocmodelJsonTreeString(VARDATA_ANY(PG_GETARG_TEXT_PP(1)),
							   VARSIZE_ANY_EXHDR(PG_GETARG_TEXT_PP(1))));
	DocmodelJsonTreePut(&res, "cas", DocmodelJsonTreeInt(cas));
	DocmodelJsonTreePut(&res, "expiration", DocmodelJsonTreeInt(expiration));
	if (managed != NULL && JB_ROOT_IS_OBJECT(managed))
	{
		JsonbContainer *c = DocmodelFieldContainer(fs, &managed->root);

		for (i = 0; c != NULL && i < DOC_NFIELDS; i++)
		{
			JsonbValue *fv = DocmodelFieldValue(fs, c, (DocFieldKind) i);

			if (fv != NULL)
				DocmodelJsonTreePut(
					&res, DocmodelFieldKindName((DocFieldKind) i), *fv);
		}
	}
	PG_RETURN_JSONB_P(DocmodelJsonTreeToJsonb(&res));
}
