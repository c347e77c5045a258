/*-------------------------------------------------------------------------
 *
 * collection/kv.h
 *	  What the collection trigger takes from the key-value API (kv.c):
 *	  the per-row rules of Couchbase's locks and of a collection's max_ttl.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_KV_H
#define DOCMODEL_KV_H

#include "compat.h"
#include "commands/trigger.h"
#include "fmgr.h"
#include "utils/jsonb.h"
#include "utils/timestamp.h"

#include "collection/cberror.h"
#include "collection/config.h"
#include "collection/expiry.h"

/*
 * A statement of another module on a collection (%s in sql: its qualified
 * name), prepared once per collection in kv.c's plan cache, in slot
 * (DocmodelKvExtSlot: one per statement).
 */
typedef struct DocmodelKvSql
{
	int slot;
	const char *sql;
	int nargs;
	Oid argtypes[6];
} DocmodelKvSql;

/* The slots of other modules' statements, one list so that none collide. */
typedef enum DocmodelKvExtSlot
{
	KV_EXT_SUBDOC_UPDATE,
	KV_EXT_SUBDOC_INSERT,
	KV_EXT_SUBDOC_UPDATE_LEAN,
	KV_EXT_SUBDOC_READ,
	KV_EXT_SUBDOC_SET,
	KV_EXT_SUBDOC_SET_CAS,
	KV_EXT_SUBDOC_PUT,
	KV_EXT_RENAME,
	KV_EXT_BUCKET_APPEND,
	KV_EXT_BUCKET_OPEN,
	KV_EXT_BUCKET_LAST,
	DOCMODEL_KV_EXT_STMTS
} DocmodelKvExtSlot;

/* get(): the live document key of collection relid, migrated; or NULL. */
extern Jsonb *DocmodelKvGet(Oid relid, Datum key);

/*
 * Write document key of collection fcinfo's argument 0 with another
 * module's statements (values[0] the key), through the plan cache and the
 * lock rules of the KV calls: update, an UPDATE of the live document
 * RETURNING cas, presenting the cas of argument cas_arg to its lock as
 * replace does; when it matched nothing, insert, an INSERT ... ON CONFLICT
 * (id) DO UPDATE ... WHERE expired RETURNING cas. Either may be NULL.
 * Return the new cas. Raise as replace (P0002, 55P03, 40001) when update
 * matched nothing and there is no insert; as insert (23505) when insert
 * matched nothing.
 */
extern int64 DocmodelKvWriteWith(FunctionCallInfo fcinfo,
								 const DocmodelKvSql *update,
								 const DocmodelKvSql *insert, Datum *values,
								 const char *nulls, const char *key,
								 int cas_arg);

/*
 * Update the live document keyd of collection relid without a statement,
 * as "UPDATE coll SET doc = apply(arg, doc), expires_at = *expiry (NULL:
 * none) WHERE id = keyd AND live" run by a VOLATILE function would: the row
 * found through the primary key with a new snapshot, its newest version
 * locked (READ COMMITTED's following of concurrent updates), every row
 * trigger, constraint and index of an UPDATE, AFTER triggers fired before
 * it returns. apply gets the stored document (NULL for a SQL NULL).
 * Returns false, having changed nothing, where the statement would do what
 * this does not: row-level security, statement triggers or transition
 * tables, a partition, no table-wide UPDATE and SELECT privilege, a
 * snapshot isolation level, a table KvReadDirect does not read (inheritance,
 * not heap, Citus), rules (the statement's rewrite). Else *found says
 * whether a live document was updated, *cas is its new cas, and *skipped
 * whether a live document was there but a BEFORE trigger returned NULL
 * (its triggers have run: the caller must not run the UPDATE again).
 */
typedef Jsonb *(*DocmodelKvApply)(void *arg, Jsonb *doc);
extern bool DocmodelKvUpdateDirect(Oid relid, Datum keyd, DocmodelKvApply apply,
								   void *arg, const TimestampTz *expiry,
								   bool *found, bool *skipped, int64 *cas);

/*
 * Run stmt on collection relid (locked first, as every KV call does) with
 * SPI connected by the caller; return the rows it processed, and in *cas
 * (when given and a row came back) the first column of the first row.
 */
extern uint64 DocmodelKvExec(Oid relid, const DocmodelKvSql *stmt,
							 Datum *values, const char *nulls, int64 *cas);

/*
 * Whether collection relid (locked as KV writes lock it) is a Citus table,
 * whose writes take statements only; cached with its plans.
 */
extern bool DocmodelKvCitus(Oid relid);

/* Cache invalidation subscriber (init.c's dispatcher; no catalog access, no error). */
extern void DocmodelKvRelcache(Oid relid);

/* SQL: the expired documents deleted (purge_expired, history/query.c). */
extern Datum kv_purge_expired(PG_FUNCTION_ARGS);

#endif /* DOCMODEL_KV_H */
