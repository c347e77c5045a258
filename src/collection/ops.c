/*-------------------------------------------------------------------------
 *
 * collection/ops.c
 *	  The modeling guides' operations on documents (README, "The guides'
 *	  operations"): rename_key, one atomic move of a document to a new key
 *	  with its version, creation stamps and history carried; and
 *	  bucket_append, Cosmos DB's "batches of 100" of an unbounded list.
 *	  Both write through kv.c's plan cache (one prepared statement per
 *	  collection, run as the caller) and the collection trigger.
 *
 * Shared state (this backend only): DocmodelRename (collection/config.h), set
 * while rename_key's statement runs; BucketHints, a hash in
 * TopMemoryContext from (collection, prefix) to the bucket number this
 * backend last wrote, a hint only (a stale one costs a step, never an
 * item), dropped whole when it reaches BUCKET_HINTS_MAX entries.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "collection/config.h"
#include "docmodel.h"
#include "collection/key.h"
#include "collection/kv.h"
#include "history/revision.h"
#include "collection/ops.h"
#include "collection/stamp.h"

PG_FUNCTION_INFO_V1(collection_rename_key);
PG_FUNCTION_INFO_V1(key_exists_error);
PG_FUNCTION_INFO_V1(collection_bucket_append);

#define LIVE_C                               \
	"(c.expires_at IS NULL OR c.expires_at " \
	"OPERATOR(pg_catalog.>) pg_catalog.now())"

/*
 * rename_key's one statement: delete the live document $1 (at cas $2 when
 * given) and insert its body under $3 (over an expired document there),
 * keeping its expiry; a live $3 raises DocumentExists ($4: the collection).
 */
static const DocmodelKvSql RenameSql = {
	KV_EXT_RENAME,
	"%2$.0s"
	"WITH old AS (DELETE FROM %1$s AS c WHERE c.id OPERATOR(pg_catalog.=) $1 "
	"AND " LIVE_C " AND ($2 IS NULL OR c.cas OPERATOR(pg_catalog.=) $2) "
	"RETURNING %3$s AS doc, c.expires_at), "
	"new AS (INSERT INTO %1$s AS c (id, doc, expires_at) "
	"SELECT $3, old.doc, old.expires_at FROM old "
	"ON CONFLICT (id) DO UPDATE SET doc = (SELECT old.doc FROM old), "
	"expires_at = EXCLUDED.expires_at, locked_until = NULL "
	"WHERE c.expires_at OPERATOR(pg_catalog.<=) pg_catalog.now() "
	"RETURNING c.cas) "
	"SELECT COALESCE((SELECT new.cas FROM new), "
	"docmodel._key_exists_error($4, $3)) FROM old",
	4,
	{TEXTOID, INT8OID, TEXTOID, REGCLASSOID}};

/* Raise 42501 unless the caller has every privilege of privs on relid. */
static void
RequirePrivilege(Oid relid, AclMode privs, const char *name, const char *fn,
				 const char *what)
{
	if (pg_class_aclmask(relid, GetUserId(), privs, ACLMASK_ALL) != privs)
		ereport(
			ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("permission denied for table %s", get_rel_name(relid)),
			 errdetail("%s needs %s on the collection (%s).", fn, what, name)));
}

/* Return a copy of the cached configuration of collection relid. */
static DocmodelCollection
CollectionOf(Oid relid)
{
	return *DocmodelCollectionById(DocmodelRequireCollection(relid));
}

/*
 * _key_exists_error(coll, key): raise DocumentExists (rename_key's). Runs
 * as the caller inside rename_key's statement, so any role may call it:
 * STRICT in SQL, and NULLs and a table that is not a collection are
 * refused here too (22004, 42809) whoever calls it with whatever arguments.
 */
Datum
key_exists_error(PG_FUNCTION_ARGS)
{
	Oid relid;

	DocmodelRequireArg(fcinfo, 0, "collection");
	DocmodelRequireArg(fcinfo, 1, "key");
	relid = PG_GETARG_OID(0);
	(void) DocmodelRequireCollection(relid);
	DocmodelKvExists(relid, text_to_cstring(PG_GETARG_TEXT_PP(1)));
	PG_RETURN_NULL();
}

/*
 * rename_key(coll, old_key, new_key, cas) -> the new cas: move the live
 * document old_key to new_key in one statement. The new document is the
 * old one continued (the trigger: _ver + 1, _created and _createdBy
 * kept); with history, the old key's revisions move to the new key and
 * the last body is filed as revision _ver, op 'rename', under both keys.
 * 23505 when new_key is live or has history, P0002 when old_key is not
 * live, 40001 on a stale cas, 55P03 when locked without the lock's cas.
 */
Datum
collection_rename_key(PG_FUNCTION_ARGS)
{
	Oid relid;
	text *from;
	text *to;
	char *from_s;
	char *to_s;
	DocmodelCollection cfg;
	DocmodelRenameState save = DocmodelRename;
	Datum values[4];
	char nulls[4] = {' ', ' ', ' ', ' '};
	int64 cas;

	DocmodelRequireArg(fcinfo, 0, "collection");
	DocmodelRequireArg(fcinfo, 1, "old_key");
	DocmodelRequireArg(fcinfo, 2, "new_key");
	relid = PG_GETARG_OID(0);
	from = PG_GETARG_TEXT_PP(1);
	to = PG_GETARG_TEXT_PP(2);
	from_s = text_to_cstring(from);
	to_s = text_to_cstring(to);
	cfg = CollectionOf(relid);
	RequirePrivilege(relid, ACL_INSERT | ACL_DELETE, from_s, "rename_key",
					 "INSERT and DELETE");
	if (DocmodelKvCitus(relid))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot rename document \"%s\" of distributed "
						"collection \"%s\"",
						from_s, get_rel_name(relid)),
				 errdetail("The old and the new key live on different shards, "
						   "whose triggers cannot carry the document's "
						   "history from one to the other."),
				 errhint("Insert the document under the new key and remove the "
						 "old one, in one transaction.")));
	if (strcmp(from_s, to_s) == 0)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("cannot rename document \"%s\" to its own key",
							   from_s)));
	DocmodelCheckKey(to_s, strlen(to_s), cfg.delim, cfg.delim_len, true);
	if (DocmodelRevisionFirstVer(&cfg, NULL, PointerGetDatum(to), 0) > 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNIQUE_VIOLATION),
				 errmsg("document \"%s\" already exists", to_s),
				 errdetail("Key \"%s\" has revisions in the history of "
						   "collection \"%s\" (a deleted document's).",
						   to_s, get_rel_name(relid)),
				 errhint("Rename to a key without history, or delete its "
						 "revisions first."),
				 DocmodelErrCollection(relid, "id"),
				 errcouchbase("DocumentExists")));
	values[0] = PointerGetDatum(from);
	values[1] = PG_ARGISNULL(3) ? (Datum) 0 : PG_GETARG_DATUM(3);
	if (PG_ARGISNULL(3))
		nulls[1] = 'n';
	values[2] = PointerGetDatum(to);
	values[3] = ObjectIdGetDatum(relid);
	DocmodelRename.relid = relid;
	DocmodelRename.from = from_s;
	DocmodelRename.from_len = strlen(from_s);
	DocmodelRename.to = to_s;
	DocmodelRename.to_len = strlen(to_s);
	DocmodelRename.set = true;
	PG_TRY();
	{
		cas = DocmodelKvWriteWith(fcinfo, &RenameSql, NULL, values, nulls,
								  from_s, 3);
	}
	PG_FINALLY();
	{
		DocmodelRename = save;
	}
	PG_END_TRY();
	PG_RETURN_INT64(cas);
}

/* ------------------------------------------------------------------------
 * Buckets
 *
 * bucket_append(coll, prefix, value, size) appends value to the "items"
 * array of bucket <prefix><delimiter><n>, the first n whose bucket is not
 * full, opening (inserting) it when absent. Each step is one statement
 * that cannot overfill: the append's UPDATE matches only a bucket holding
 * fewer than size items (re-checked on the newest row version when it
 * waited for another writer), and the opening INSERT takes the key or
 * finds it taken. A bucket another session opened meanwhile is tried once
 * more before the next number. The number to start at is this backend's
 * hint; without one, the highest number among the prefix's keys (one
 * index range scan, once per backend and prefix).
 * ------------------------------------------------------------------------
 */

static const DocmodelKvSql BucketAppendSql = {
	KV_EXT_BUCKET_APPEND,
	"UPDATE %s AS c SET doc = pg_catalog.jsonb_set(c.doc, '{items}', "
	"COALESCE(c.doc OPERATOR(pg_catalog.->) 'items', '[]') "
	"OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_array($2)) "
	"WHERE c.id OPERATOR(pg_catalog.=) $1 AND CASE WHEN c.expires_at IS NULL "
	"OR c.expires_at OPERATOR(pg_catalog.>) $4 THEN "
	"pg_catalog.jsonb_array_length(COALESCE(c.doc OPERATOR(pg_catalog.->) "
	"'items', 'null')) OPERATOR(pg_catalog.<) $3 END RETURNING c.cas",
	4, /* $4: now(), passed (Citus allows no STABLE function in a CASE) */
	{TEXTOID, JSONBOID, INT4OID, TIMESTAMPTZOID}};

static const DocmodelKvSql BucketOpenSql = {
	KV_EXT_BUCKET_OPEN,
	"INSERT INTO %s AS c (id, doc) VALUES ($1, pg_catalog.jsonb_build_object("
	"'items', pg_catalog.jsonb_build_array($2))) "
	"ON CONFLICT (id) DO UPDATE SET doc = EXCLUDED.doc, expires_at = NULL, "
	"locked_until = NULL "
	"WHERE c.expires_at OPERATOR(pg_catalog.<=) $4 RETURNING c.cas",
	4, /* $4: now(), passed (Citus runs no STABLE function there) */
	{TEXTOID, JSONBOID, INT4OID, TIMESTAMPTZOID}};

/* $1 <= id < $2 (the prefix and delimiter, and the next prefix), suffix at $3 */
static const DocmodelKvSql BucketLastSql = {
	KV_EXT_BUCKET_LAST,
	"SELECT pg_catalog.max(pg_catalog.substr(c.id, $3)::pg_catalog.int8) "
	"FROM %s AS c WHERE c.id OPERATOR(pg_catalog.>=) $1 AND "
	"c.id OPERATOR(pg_catalog.<) $2 AND pg_catalog.substr(c.id, $3) "
	"OPERATOR(pg_catalog.~) '^[1-9][0-9]{0,17}$'",
	3,
	{TEXTOID, TEXTOID, INT4OID}};

typedef struct BucketHintKey
{
	Oid relid;
	char prefix[DOCMODEL_MAX_KEY_BYTES + 1];
} BucketHintKey;

typedef struct BucketHint
{
	BucketHintKey key;
	int64 n;
} BucketHint;

static HTAB *BucketHints = NULL;

/* At most this many hints per backend (about 1 MB). */
#define BUCKET_HINTS_MAX 4096

/* Return the hint entry of (relid, prefix), creating it with n = 0. */
static BucketHint *
BucketHintOf(Oid relid, const char *prefix)
{
	BucketHintKey key;
	BucketHint *hint;
	bool found;

	/* a hint per prefix a session ever wrote: start afresh past a bound */
	if (BucketHints != NULL &&
		hash_get_num_entries(BucketHints) >= BUCKET_HINTS_MAX)
	{
		hash_destroy(BucketHints);
		BucketHints = NULL;
	}
	if (BucketHints == NULL)
		BucketHints =
			DocmodelHash("docmodel bucket hints", 64, sizeof(BucketHintKey),
						 sizeof(BucketHint), false, NULL);
	memset(&key, 0, sizeof(key));
	key.relid = relid;
	strlcpy(key.prefix, prefix, sizeof(key.prefix));
	hint = hash_search(BucketHints, &key, HASH_ENTER, &found);
	if (!found)
		hint->n = 0;
	return hint;
}

/* Return the highest bucket number of prefix in collection relid, or 0. */
static int64
BucketLast(Oid relid, const char *prefix, const DocmodelCollection *cfg)
{
	char *lo = psprintf("%s%s", prefix, cfg->delim);
	int lolen = strlen(lo);
	char *hi = pstrdup(lo);
	Datum values[3];
	bool isnull;
	Datum d;

	/* the delimiter's last byte is ASCII punctuation or a UTF-8 byte < 0xff */
	hi[lolen - 1]++;
	values[0] = CStringGetTextDatum(lo);
	values[1] = CStringGetTextDatum(hi);
	values[2] = Int32GetDatum(lolen + 1);
	if (DocmodelKvExec(relid, &BucketLastSql, values, NULL, NULL) != 1)
		return 0;
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	return isnull ? 0 : DatumGetInt64(d);
}

/*
 * Append to bucket key (values: the append statement's); false when it is
 * absent, expired or full. A live document without an "items" array (not
 * a bucket: another document under the bucket's key) raises 22023 naming
 * it; the statement's jsonb_array_length raises on it, checked only on a
 * live document (CASE: an expired one is taken over by the opening
 * INSERT).
 */
static bool
BucketTryAppend(Oid relid, const char *key, Datum *values)
{
	MemoryContext cxt = CurrentMemoryContext;
	uint64 n = 0;

	PG_TRY();
	{
		n = DocmodelKvExec(relid, &BucketAppendSql, values, NULL, NULL);
	}
	PG_CATCH();
	{
		ErrorData *e;

		MemoryContextSwitchTo(cxt);
		e = CopyErrorData();
		if (e->sqlerrcode != ERRCODE_INVALID_PARAMETER_VALUE)
			PG_RE_THROW();
		FlushErrorState();
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("document \"%s\" is not a bucket", key),
						errdetail("Its member \"items\" is missing or not an "
								  "array (%s).",
								  e->message),
						errhint("A bucket is {\"items\": [...]}; give "
								"bucket_append another prefix.")));
	}
	PG_END_TRY();
	return n > 0;
}

/*
 * bucket_append(coll, prefix, value, size) -> the key of the bucket
 * written.
 */
Datum
collection_bucket_append(PG_FUNCTION_ARGS)
{
	Oid relid;
	char *prefix;
	int32 size;
	DocmodelCollection cfg;
	BucketHint *hint;
	int64 n;
	char *key = NULL;
	bool retried = false;

	DocmodelRequireArg(fcinfo, 0, "collection");
	DocmodelRequireArg(fcinfo, 1, "prefix");
	DocmodelRequireArg(fcinfo, 2, "value");
	DocmodelRequireArg(fcinfo, 3, "size");
	relid = PG_GETARG_OID(0);
	prefix = text_to_cstring(PG_GETARG_TEXT_PP(1));
	size = PG_GETARG_INT32(3);
	if (size <= 0)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("invalid bucket size %d", size),
						errdetail("A bucket holds at least 1 item.")));
	cfg = CollectionOf(relid);
	DocmodelCheckKey(prefix, strlen(prefix), cfg.delim, cfg.delim_len, true);
	RequirePrivilege(relid, ACL_INSERT | ACL_UPDATE, prefix, "bucket_append",
					 "INSERT and UPDATE");

	DocmodelSpiConnect();
	hint = BucketHintOf(relid, prefix);
	n = hint->n;
	if (n == 0)
		n = Max(BucketLast(relid, prefix, &cfg), 1);
	for (;;)
	{
		Datum values[4];

		key = psprintf("%s%s" INT64_FORMAT, prefix, cfg.delim, n);
		values[0] = CStringGetTextDatum(key);
		values[1] = PG_GETARG_DATUM(2);
		values[2] = Int32GetDatum(size);
		values[3] = TimestampTzGetDatum(GetCurrentTransactionStartTimestamp());
		if (BucketTryAppend(relid, key, values) ||
			(!retried &&
			 DocmodelKvExec(relid, &BucketOpenSql, values, NULL, NULL) > 0))
			break;
		/* full, or opened by another session just now: try it once more */
		if (retried)
			n++;
		retried = !retried;
	}
	/* the key outlives SPI's context, where it was made */
	key = strcpy(SPI_palloc(strlen(key) + 1), key);
	SPI_finish();
	hint->n = n;
	PG_RETURN_TEXT_P(cstring_to_text(key));
}
