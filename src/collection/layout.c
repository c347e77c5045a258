/*-------------------------------------------------------------------------
 *
 * collection/layout.c
 *	  The layouts of the tables docmodel reads by column number, and the
 *	  check that the collection trigger fires on its own collection or a
 *	  Citus shard of it.
 *
 * C code reads and writes collections and history tables by column number
 * (the trigger, the history writer) and SQL by column name (the KV
 * statements), so a table whose columns were dropped, renamed or changed
 * in type (ALTER TABLE) must be refused before any of them touches it.
 *
 * Shared state: RelChecks (a hash in TopMemoryContext, this backend only:
 * relation OID -> layouts found, collection a trigger was verified for),
 * kept per relation until its relcache entry is invalidated, which every
 * ALTER TABLE does (DocmodelLayoutRelcache, called by init.c's dispatcher).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_namespace.h"
#include "mb/pg_wchar.h"
#include "nodes/makefuncs.h"
#include "utils/varlena.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "collection/config.h"
#include "collection/key.h"
#include "collection/layout.h"

PG_FUNCTION_INFO_V1(collection_check_layout);

/*
 * What docmodel verified about one relation: the layouts it has (a bit per
 * DocmodelLayout) and the collection whose trigger may fire on it.
 */
typedef struct RelCheck
{
	Oid relid;             /* hash key */
	uint32 layouts;        /* 1 << DocmodelLayout, for each layout found */
	int32 config_id;       /* trigger verified for this collection, or -1 */
	Oid history;           /* when config_id is set and rel is a shard: the
					  * colocated shard of the collection's history */
	uint32 optional_known; /* 1 << attnum, for each optional column looked at */
	uint32 optional;       /* 1 << attnum, for each one found in place */
	bool stamps_known;     /* stamps[] looked up (meta_style columns) */
	AttrNumber stamps[DOCMODEL_STAMP_NCOLUMNS];
} RelCheck;

static HTAB *RelChecks = NULL;
static RelCheck *LastCheck = NULL; /* the last lookup, or NULL */

/*
 * Drop what was verified about a relation when it changes, everything when
 * relid is InvalidOid or the config table (relcache subscriber, see init.c).
 */
void
DocmodelLayoutRelcache(Oid relid)
{
	LastCheck = NULL;
	if (RelChecks == NULL)
		return;
	if (relid == InvalidOid || relid == DocmodelConfigRelidCached())
	{
		HASH_SEQ_STATUS status;
		RelCheck *rc;

		hash_seq_init(&status, RelChecks);
		while ((rc = hash_seq_search(&status)) != NULL)
			hash_search(RelChecks, &rc->relid, HASH_REMOVE, NULL);
	}
	else
		hash_search(RelChecks, &relid, HASH_REMOVE, NULL);
}
/* One column a layout needs. */
typedef struct LayoutColumn
{
	const char *name;
	Oid type;
} LayoutColumn;

/* One layout: what it is called in messages and its columns. */
typedef struct LayoutSpec
{
	const char *what;      /* "collection", ... */
	bool positional;       /* columns 1..n in this order (read by number) */
	const char *signature; /* for errdetail */
	const char *hint;      /* for a missing column */
	int ncolumns;
	LayoutColumn columns[6];
	int nrequired; /* columns after these may be absent; 0: none may */
} LayoutSpec;

static const LayoutSpec LayoutSpecs[] = {
	[DOCMODEL_LAYOUT_COLLECTION] =
		{"collection",
		 true,
		 "(id text, doc jsonb, cas bigint, expires_at timestamptz, "
		 "locked_until timestamptz)",
		 "Columns of a docmodel collection must not be dropped, renamed or "
		 "moved.",
		 5,
		 {{"id", TEXTOID},
		  {"doc", JSONBOID},
		  {"cas", INT8OID},
		  {"expires_at", TIMESTAMPTZOID},
		  {"locked_until", TIMESTAMPTZOID}},
		 /* a 0.1.0 collection lacks locked_until until the update adds it */
		 4},
	[DOCMODEL_LAYOUT_HISTORY] = {"revisions table",
								 true,
								 "(id text, ver integer, op text, changed_at "
								 "timestamptz, changed_by text, doc jsonb)",
								 "Columns of a docmodel revisions table must "
								 "not be dropped, renamed or moved.",
								 6,
								 {{"id", TEXTOID},
								  {"ver", INT4OID},
								  {"op", TEXTOID},
								  {"changed_at", TIMESTAMPTZOID},
								  {"changed_by", TEXTOID},
								  {"doc", JSONBOID}}},
	[DOCMODEL_LAYOUT_DOCUMENTS] = {"table",
								   false,
								   "id text and doc jsonb",
								   "migrate_collection works on collections, "
								   "and on any table with those two columns.",
								   2,
								   {{"id", TEXTOID}, {"doc", JSONBOID}}},
};

/* Return the verdicts kept for relid, creating an empty entry. */
static RelCheck *
RelCheckFor(Oid relid)
{
	RelCheck *rc;
	bool found;

	if (LastCheck != NULL && LastCheck->relid == relid)
		return LastCheck;
	if (RelChecks == NULL)
		RelChecks = DocmodelHash("docmodel relation checks", 64, sizeof(Oid),
								 sizeof(RelCheck), false, NULL);
	rc = hash_search(RelChecks, &relid, HASH_ENTER, &found);
	if (!found)
	{
		rc->layouts = 0;
		rc->config_id = -1;
		rc->history = InvalidOid;
		rc->optional_known = rc->optional = 0;
		rc->stamps_known = false;
	}
	return LastCheck = rc;
}

/* Return the number of the live column name of desc, or 0. */
static AttrNumber
ColumnNumber(TupleDesc desc, const char *name)
{
	int i;

	for (i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute a = TupleDescAttr(desc, i);

		if (!a->attisdropped && strcmp(NameStr(a->attname), name) == 0)
			return a->attnum;
	}
	return 0;
}

/*
 * Raise 55000 when a column of the layout is missing (dropped, renamed or,
 * for a layout read by number, not in its place) and 42804 when it has
 * another type; both name the table and the column.
 */
static void
CheckColumns(Relation rel, const LayoutSpec *spec)
{
	TupleDesc desc = RelationGetDescr(rel);
	int i;

	for (i = 0; i < spec->ncolumns; i++)
	{
		const LayoutColumn *col = &spec->columns[i];
		AttrNumber at = ColumnNumber(desc, col->name);
		Oid type;

		if (at == 0 && spec->nrequired > 0 && i >= spec->nrequired)
			continue;
		if (at == 0 || (spec->positional && at != i + 1))
			ereport(
				ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("column \"%s\" of %s \"%s\" is missing", col->name,
						spec->what, RelationGetRelationName(rel)),
				 at == 0
					 ? errdetail("A docmodel %s has the columns %s; this "
								 "one has no column \"%s\".",
								 spec->what, spec->signature, col->name)
					 : errdetail("A docmodel %s has the columns %s, in this "
								 "order; \"%s\" is column %d here, not %d.",
								 spec->what, spec->signature, col->name, at,
								 i + 1),
				 errhint("%s", spec->hint)));
		type = TupleDescAttr(desc, at - 1)->atttypid;
		if (type != col->type)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("column \"%s\" of %s \"%s\" has type %s, not %s",
							col->name, spec->what, RelationGetRelationName(rel),
							format_type_be(type), format_type_be(col->type)),
					 errdetail("A docmodel %s has the columns %s.", spec->what,
							   spec->signature),
					 errhint("Change the column back with ALTER TABLE ... "
							 "ALTER COLUMN \"%s\" TYPE %s.",
							 col->name, format_type_be(col->type))));
	}
}

/*
 * Check that rel has the given layout (see LayoutSpecs); raise 55000 or
 * 42804 naming the table and the column. The verdict is cached until rel's
 * relcache entry is invalidated, so a caller may call this per row.
 */
void
DocmodelCheckLayout(Relation rel, DocmodelLayout layout)
{
	RelCheck *rc = RelCheckFor(RelationGetRelid(rel));

	if ((rc->layouts & (1U << layout)) != 0)
		return;
	CheckColumns(rel, &LayoutSpecs[layout]);
	/* no invalidation can have been processed: rc is still the entry */
	rc->layouts |= (1U << layout);
}

/* A collection's optional columns: where, named what, of which type. */
static const struct
{
	int attnum;
	const char *name;
	Oid type;
} OptionalColumns[] = {
	{DOCMODEL_COLL_ATT_LOCKED, "locked_until", TIMESTAMPTZOID},
	{DOCMODEL_COLL_ATT_META, "meta", JSONBOID},
};

bool
DocmodelHasOptionalColumn(Relation rel, int attnum)
{
	RelCheck *rc = RelCheckFor(RelationGetRelid(rel));
	uint32 bit = 1U << attnum;

	if ((rc->optional_known & bit) == 0)
	{
		TupleDesc desc = RelationGetDescr(rel);
		int i;

		for (i = 0; i < lengthof(OptionalColumns); i++)
		{
			Form_pg_attribute a;

			if (OptionalColumns[i].attnum != attnum || desc->natts < attnum)
				continue;
			a = TupleDescAttr(desc, attnum - 1);
			if (!a->attisdropped && a->atttypid == OptionalColumns[i].type &&
				strcmp(NameStr(a->attname), OptionalColumns[i].name) == 0)
				rc->optional |= bit;
		}
		rc->optional_known |= bit;
	}
	return (rc->optional & bit) != 0;
}

/* The stamp columns of meta_style 'columns', by DocmodelStampColumn. */
static const LayoutColumn StampColumns[DOCMODEL_STAMP_NCOLUMNS] = {
	[DOCMODEL_STAMP_CREATED_AT] = {"created_at", TIMESTAMPTZOID},
	[DOCMODEL_STAMP_MODIFIED_AT] = {"modified_at", TIMESTAMPTZOID},
	[DOCMODEL_STAMP_VER] = {"ver", INT4OID},
	[DOCMODEL_STAMP_CREATED_BY] = {"created_by", INT4OID},
	[DOCMODEL_STAMP_MODIFIED_BY] = {"modified_by", INT4OID},
};

/*
 * Return the column numbers of collection rel's stamp columns (meta_style
 * 'columns'), found by name, wherever they are (set_meta_style adds them
 * to a table that may have dropped columns); raise 55000 when one is
 * missing and 42804 when it has another type. Decided once per relcache
 * entry, so it may be asked per row.
 */
const AttrNumber *
DocmodelStampColumns(Relation rel)
{
	RelCheck *rc = RelCheckFor(RelationGetRelid(rel));
	TupleDesc desc = RelationGetDescr(rel);
	AttrNumber found[DOCMODEL_STAMP_NCOLUMNS];
	int i;

	if (rc->stamps_known)
		return rc->stamps;
	for (i = 0; i < DOCMODEL_STAMP_NCOLUMNS; i++)
	{
		const LayoutColumn *col = &StampColumns[i];
		Oid type;

		found[i] = ColumnNumber(desc, col->name);
		if (found[i] == 0)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("column \"%s\" of collection \"%s\" is missing",
							col->name, RelationGetRelationName(rel)),
					 errdetail("A collection with meta_style 'columns' keeps "
							   "its management fields in the columns "
							   "created_at, modified_at, ver, created_by and "
							   "modified_by."),
					 errhint("Columns of a docmodel collection must not be "
							 "dropped or renamed.")));
		type = TupleDescAttr(desc, found[i] - 1)->atttypid;
		if (type != col->type)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("column \"%s\" of collection \"%s\" has type %s, "
							"not %s",
							col->name, RelationGetRelationName(rel),
							format_type_be(type), format_type_be(col->type)),
					 errhint("Change the column back with ALTER TABLE ... "
							 "ALTER COLUMN \"%s\" TYPE %s.",
							 col->name, format_type_be(col->type))));
	}
	/* no invalidation can have been processed: rc is still the entry */
	memcpy(rc->stamps, found, sizeof(found));
	rc->stamps_known = true;
	return rc->stamps;
}

/*
 * The same for the relation relid, which the caller has locked; opens it
 * only when the verdict is not cached.
 */
void
DocmodelCheckLayoutOf(Oid relid, DocmodelLayout layout)
{
	RelCheck *rc = RelCheckFor(relid);
	Relation rel;

	if ((rc->layouts & (1U << layout)) != 0)
		return;
	rel = relation_open(relid, NoLock);
	DocmodelCheckLayout(rel, layout);
	relation_close(rel, NoLock);
}

/*
 * _check_layout(rel regclass, layout text): DocmodelCheckLayout() for the
 * functions written in SQL (layout 'collection', 'history' or 'documents').
 * A table the caller may not read is left alone: the caller's own query
 * then reports 42501, and nothing is locked for it here.
 */
Datum
collection_check_layout(PG_FUNCTION_ARGS)
{
	Oid relid = PG_GETARG_OID(0);
	char *name = text_to_cstring(PG_GETARG_TEXT_PP(1));
	DocmodelLayout layout;
	Relation rel;

	if (strcmp(name, "collection") == 0)
		layout = DOCMODEL_LAYOUT_COLLECTION;
	else if (strcmp(name, "history") == 0)
		layout = DOCMODEL_LAYOUT_HISTORY;
	else if (strcmp(name, "documents") == 0)
		layout = DOCMODEL_LAYOUT_DOCUMENTS;
	else
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("unknown docmodel layout \"%s\"", name),
						errdetail("The layouts are collection, history and "
								  "documents.")));
	if (pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
		PG_RETURN_VOID();
	rel = try_relation_open(relid, AccessShareLock);
	if (rel != NULL)
	{
		DocmodelCheckLayout(rel, layout);
		relation_close(rel, NoLock);
	}
	PG_RETURN_VOID();
}

/*
 * Return true when rel is a Citus shard of the collection parent: listed in
 * pg_dist_shard under parent, named <parent>_<shardid> in parent's schema
 * and owned by parent's owner. Without Citus (no pg_dist_shard), false.
 */
static bool
IsShardOf(Relation rel, Oid parent)
{
	Oid distshard = get_relname_relid("pg_dist_shard", PG_CATALOG_NAMESPACE);
	char *pname = get_rel_name(parent);
	const char *name = RelationGetRelationName(rel);
	size_t plen;
	Oid argtypes[2] = {OIDOID, TEXTOID};
	Datum args[2];
	int ret;
	bool found;

	HeapTuple ptup;
	Oid powner;

	if (!OidIsValid(distshard) || pname == NULL ||
		RelationGetNamespace(rel) != get_rel_namespace(parent))
		return false;
	/* Citus creates shards as the parent's owner; anyone else's is not one */
	ptup = SearchSysCache1(RELOID, ObjectIdGetDatum(parent));
	if (!HeapTupleIsValid(ptup))
		return false;
	powner = ((Form_pg_class) GETSTRUCT(ptup))->relowner;
	ReleaseSysCache(ptup);
	if (rel->rd_rel->relowner != powner)
		return false;
	plen = strlen(pname);
	if (strncmp(name, pname, plen) != 0 || name[plen] != '_' ||
		name[plen + 1] == '\0' ||
		strspn(name + plen + 1, "0123456789") != strlen(name + plen + 1))
		return false;
	args[0] = ObjectIdGetDatum(parent);
	args[1] = CStringGetTextDatum(name + plen + 1);
	DocmodelSpiConnect();
	ret = SPI_execute_with_args(
		"SELECT FROM pg_catalog.pg_dist_shard "
		"WHERE logicalrelid::pg_catalog.oid OPERATOR(pg_catalog.=) $1 "
		"AND shardid::pg_catalog.text OPERATOR(pg_catalog.=) $2",
		2, argtypes, args, NULL, true, 1);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "reading pg_dist_shard failed: %d", ret);
	found = SPI_processed == 1;
	SPI_finish();
	return found;
}

/*
 * Return the shard of the history table hist that is colocated with shard
 * (same hash range, so on the same node), or InvalidOid when hist is not
 * distributed with it. Reads pg_dist_shard: once per shard relation.
 */
static Oid
ColocatedShard(Relation shard, Oid parent, Oid hist)
{
	const char *name = RelationGetRelationName(shard);
	char *pname = get_rel_name(parent);
	char *hname = get_rel_name(hist);
	Oid argtypes[3] = {OIDOID, TEXTOID, OIDOID};
	Datum args[3];
	Oid result = InvalidOid;
	int ret;

	if (pname == NULL || hname == NULL)
		return InvalidOid;
	args[0] = ObjectIdGetDatum(parent);
	args[1] = CStringGetTextDatum(name + strlen(pname) + 1);
	args[2] = ObjectIdGetDatum(hist);
	DocmodelSpiConnect();
	ret = SPI_execute_with_args(
		"SELECT h.shardid::pg_catalog.text "
		"FROM pg_catalog.pg_dist_shard AS s JOIN pg_catalog.pg_dist_shard AS h "
		"ON h.shardminvalue OPERATOR(pg_catalog.=) s.shardminvalue "
		"WHERE s.logicalrelid::pg_catalog.oid OPERATOR(pg_catalog.=) $1 "
		"AND s.shardid::pg_catalog.text OPERATOR(pg_catalog.=) $2 "
		"AND h.logicalrelid::pg_catalog.oid OPERATOR(pg_catalog.=) $3",
		3, argtypes, args, NULL, true, 1);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "reading pg_dist_shard failed: %d", ret);
	if (SPI_processed == 1)
	{
		char *shardid =
			SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);

		/* named as IsShardOf expects shards to be: <table>_<shardid> */
		if (shardid != NULL)
			result = get_relname_relid(psprintf("%s_%s", hname, shardid),
									   get_rel_namespace(hist));
	}
	SPI_finish();
	return result;
}

/*
 * Check that the collection trigger of configuration cfg fires on cfg's
 * own collection or a Citus shard of it, before it reads or writes
 * anything: a trigger naming another role's collection on a table of one's
 * own would otherwise write that collection's history. Raises 42809 naming
 * both tables. On a shard, cfg->revisions_relid becomes the history's
 * colocated shard (history is written next to its document), and 55000 is
 * raised when the history is not distributed with the collection. Cached
 * per trigger relation.
 */
void
DocmodelCheckTriggerRelation(Relation rel, const char *tgname,
							 DocmodelCollection *cfg)
{
	Oid relid = RelationGetRelid(rel);
	RelCheck *rc;
	Oid history = InvalidOid;

	if (relid == cfg->relid)
		return;
	rc = RelCheckFor(relid);
	if (rc->config_id == cfg->id)
	{
		cfg->revisions_relid = rc->history;
		return;
	}
	if (!IsShardOf(rel, cfg->relid))
	{
		char *coll = get_rel_name(cfg->relid);

		ereport(
			ERROR,
			(errcode(ERRCODE_WRONG_OBJECT_TYPE),
			 errmsg("the trigger of collection \"%s\" cannot fire on "
					"table \"%s\"",
					coll ? coll : "(dropped)", RelationGetRelationName(rel)),
			 errdetail("Trigger \"%s\" names docmodel collection %d, "
					   "which is table \"%s\"; \"%s\" is not that table "
					   "or a shard of it.",
					   tgname, cfg->id, coll ? coll : "(dropped)",
					   RelationGetRelationName(rel)),
			 errhint("Create collections with "
					 "docmodel.create_collection().")));
	}
	if (OidIsValid(cfg->revisions_relid))
	{
		history = ColocatedShard(rel, cfg->relid, cfg->revisions_relid);
		if (!OidIsValid(history))
		{
			char *coll = get_rel_name(cfg->relid);
			char *hist = get_rel_name(cfg->revisions_relid);

			ereport(
				ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the revisions table \"%s\" of collection \"%s\" "
						"is not distributed with it",
						hist ? hist : "(dropped)", coll ? coll : "(dropped)"),
				 errdetail("Shard \"%s\" has no colocated shard of the "
						   "revisions table to write history to.",
						   RelationGetRelationName(rel)),
				 errhint("Distribute collections with "
						 "docmodel.distribute_collection().")));
		}
	}
	/* SPI may have processed invalidations: look the entry up again */
	rc = RelCheckFor(relid);
	rc->config_id = cfg->id;
	rc->history = history;
	cfg->revisions_relid = history;
}
