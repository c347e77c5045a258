/*-------------------------------------------------------------------------
 *
 * collection.c
 *	  Collection configuration: a backend-local cache of the rows of
 *	  docmodel.collection_config keyed by their id (the argument of the
 *	  collection trigger), the CAS clock, the writer's name, the small
 *	  C helpers of create_collection(), and the one way docmodel names the
 *	  tables it derives from a collection (DocmodelDerivedName).
 *
 * It also checks the layout of the tables docmodel reads by column number
 * (collections, history tables) and that the collection trigger fires on
 * its own collection or a Citus shard of it.
 *
 * Shared state: CollCache (a hash in TopMemoryContext, this backend only).
 * An entry is filled on first use by one SPI query and dropped by the
 * relcache subscriber (DocmodelCollectionRelcache, called by docmodel.c's
 * dispatcher) when its collection or history table is invalidated
 * (renamed, altered, dropped) or when docmodel.collection_config itself is
 * invalidated, which its statement trigger does on every change. RelChecks
 * (relation OID -> layouts found, collection a trigger was verified for)
 * is dropped per relation the same way. Nothing per row reads the catalog.
 * Callers must not keep an entry pointer across anything that may process
 * invalidation messages.
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

#include "collection.h"
#include "key.h"

PG_FUNCTION_INFO_V1(collection_config_changed);
PG_FUNCTION_INFO_V1(collection_check_collection_options);
PG_FUNCTION_INFO_V1(collection_check_layout);
PG_FUNCTION_INFO_V1(collection_create_collection);
PG_FUNCTION_INFO_V1(collection_derived_name);

static HTAB *CollCache = NULL;
static DocmodelCollection *LastEntry = NULL; /* the last lookup, or NULL */
static Oid ConfigRelid = InvalidOid;
static int64 LastCas = 0;
static Oid WhoRoleId = InvalidOid;
static char WhoName[NAMEDATALEN];

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
} RelCheck;

static HTAB *RelChecks = NULL;
static RelCheck *LastCheck = NULL; /* the last lookup, or NULL */

/*
 * Drop cached configurations when their table, their history table or the
 * config table changes, and what was verified about a relation when it
 * changes (relcache subscriber, see docmodel.c).
 */
void
DocmodelCollectionRelcache(Oid relid)
{
	HASH_SEQ_STATUS status;
	DocmodelCollection *entry;
	bool all;

	all = (relid == InvalidOid || relid == ConfigRelid);
	LastCheck = NULL;
	if (RelChecks != NULL)
	{
		if (all)
		{
			RelCheck *rc;

			hash_seq_init(&status, RelChecks);
			while ((rc = hash_seq_search(&status)) != NULL)
				hash_search(RelChecks, &rc->relid, HASH_REMOVE, NULL);
		}
		else
			hash_search(RelChecks, &relid, HASH_REMOVE, NULL);
	}
	if (CollCache == NULL)
		return;
	LastEntry = NULL;
	if (all)
		ConfigRelid = InvalidOid; /* looked up again: the extension may
									 * have been dropped and recreated */
	hash_seq_init(&status, CollCache);
	while ((entry = hash_seq_search(&status)) != NULL)
	{
		if (all || entry->relid == relid || entry->revisions_relid == relid)
			hash_search(CollCache, &entry->id, HASH_REMOVE, NULL);
	}
}

/* Create the cache, once per backend. */
static void
CollectionCacheInit(void)
{
	if (CollCache == NULL)
		CollCache = DocmodelHash("docmodel collections", 64, sizeof(int32),
								 sizeof(DocmodelCollection), false, NULL);
}

/* Return the OID of docmodel.collection_config (looked up once). */
Oid
DocmodelConfigRelid(void)
{
	if (!OidIsValid(ConfigRelid))
	{
		Oid nsp = get_namespace_oid("docmodel", false);

		ConfigRelid = get_relname_relid("collection_config", nsp);
		if (!OidIsValid(ConfigRelid))
			elog(ERROR, "docmodel.collection_config is missing");
	}
	return ConfigRelid;
}

/* ------------------------------------------------------------------------
 * Layouts and trigger relations
 *
 * C code reads and writes collections and history tables by column number
 * (the trigger, the history writer) and SQL by column name (the KV
 * statements), so a table whose columns were dropped, renamed or changed
 * in type (ALTER TABLE) must be refused before any of them touches it. The
 * verdict is kept per relation in RelChecks until the relation's relcache
 * entry is invalidated, which every ALTER TABLE does.
 * ------------------------------------------------------------------------
 */

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

/* A configuration value's name and the enum value it stands for. */
typedef struct ConfigName
{
	const char *name;
	int value;
} ConfigName;

static const ConfigName MetaStyleNames[] = {{"underscore", DOC_META_UNDERSCORE},
											{"meta", DOC_META_META},
											{"plain", DOC_META_PLAIN},
											{NULL, 0}};
static const ConfigName TypeCheckNames[] = {
	{"exact", DOCMODEL_TYPE_EXACT},
	{"case_insensitive", DOCMODEL_TYPE_CASE_INSENSITIVE},
	{"off", DOCMODEL_TYPE_OFF},
	{NULL, 0}};
static const ConfigName TimeUnitNames[] = {{"ms", DOCMODEL_TIME_MS},
										   {"s", DOCMODEL_TIME_S},
										   {"min", DOCMODEL_TIME_MIN},
										   {"h", DOCMODEL_TIME_H},
										   {"day", DOCMODEL_TIME_DAY},
										   {"iso", DOCMODEL_TIME_ISO},
										   {NULL, 0}};

/* Set *out to the value of name s in table t; return false when unknown. */
static bool
ParseConfigName(const char *s, const ConfigName *t, int *out)
{
	for (; t->name != NULL; t++)
		if (strcmp(s, t->name) == 0)
		{
			*out = t->value;
			return true;
		}
	return false;
}

/*
 * Parse a meta_style name; return false when unknown. 'xattrs' keeps the
 * fields, named as in the plain style, in the column meta (*xattrs).
 */
static bool
ParseMetaStyle(const char *s, DocMetaStyle *out, bool *xattrs)
{
	int v;

	*xattrs = strcmp(s, "xattrs") == 0;
	if (!ParseConfigName(*xattrs ? "plain" : s, MetaStyleNames, &v))
		return false;
	*out = (DocMetaStyle) v;
	return true;
}

/*
 * The type lists of body-typed collections (cfg->types), one copy per
 * distinct list, kept for the backend's life: a copy of a configuration
 * (the trigger's) may outlive its cache entry, so they are never freed.
 * Bounded by the distinct lists a database's collections have.
 */
static List *TypeLists = NIL;

/* Set cfg->types and ntypes from a jsonb array of strings (types). */
static void
InternTypes(Jsonb *arr, DocmodelCollection *cfg)
{
	StringInfoData buf;
	JsonbIterator *it;
	JsonbValue v;
	JsonbIteratorToken tok;
	int n = 0;
	ListCell *lc;
	MemoryContext old;

	initStringInfo(&buf);
	/* the length first, then the names, so lists compare as bytes */
	appendBinaryStringInfo(&buf, (char *) &n, sizeof(int));
	it = JsonbIteratorInit(&arr->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		CHECK_FOR_INTERRUPTS();
		if (tok != WJB_ELEM || v.type != jbvString)
			continue;
		appendBinaryStringInfo(&buf, v.val.string.val, v.val.string.len);
		appendStringInfoChar(&buf, '\0');
		n++;
	}
	memcpy(buf.data, &n, sizeof(int));
	foreach (lc, TypeLists)
	{
		char *t = lfirst(lc);
		int len;

		memcpy(&len, t, sizeof(int));
		if (len == buf.len - (int) sizeof(int) &&
			memcmp(t + sizeof(int), buf.data + sizeof(int), len) == 0)
			break;
	}
	if (lc == NULL)
	{
		char *t;
		int len = buf.len - sizeof(int);

		old = MemoryContextSwitchTo(TopMemoryContext);
		t = palloc(buf.len);
		memcpy(t, &len, sizeof(int));
		memcpy(t + sizeof(int), buf.data + sizeof(int), len);
		TypeLists = lappend(TypeLists, t);
		MemoryContextSwitchTo(old);
		lc = list_tail(TypeLists);
	}
	cfg->ntypes = n;
	cfg->types = (char *) lfirst(lc) + sizeof(int);
	pfree(buf.data);
}

/* Compare two type names as type_check says; see collection.h. */
bool
DocmodelSameType(DocmodelTypeCheck tc, const char *a, int alen, const char *b,
				 int blen)
{
	int i;

	if (tc == DOCMODEL_TYPE_OFF)
		return true;
	if (alen != blen)
		return false;
	if (tc == DOCMODEL_TYPE_EXACT)
		return memcmp(a, b, alen) == 0;
	for (i = 0; i < alen; i++)
		if (pg_ascii_tolower((unsigned char) a[i]) !=
			pg_ascii_tolower((unsigned char) b[i]))
			return false;
	return true;
}

/*
 * Whether a body-typed collection cfg allows type (not NUL-terminated):
 * one of its types, compared as type_check says (any type when 'off').
 */
bool
DocmodelTypeAllowed(const DocmodelCollection *cfg, const char *type,
					int type_len)
{
	const char *t = cfg->types;
	int i;

	if (cfg->type_check == DOCMODEL_TYPE_OFF)
		return true;
	for (i = 0; i < cfg->ntypes; i++)
	{
		int len = strlen(t);

		if (DocmodelSameType(cfg->type_check, t, len, type, type_len))
			return true;
		t += len + 1;
	}
	return false;
}

/* The types of a body-typed collection, as a message lists them. */
char *
DocmodelTypesList(const DocmodelCollection *cfg)
{
	StringInfoData buf;
	const char *t = cfg->types;
	int i;

	initStringInfo(&buf);
	for (i = 0; i < cfg->ntypes; i++)
	{
		appendStringInfo(&buf, "%s\"%s\"", i ? ", " : "", t);
		t += strlen(t) + 1;
	}
	return buf.data;
}

/* Read one configuration row into *cfg; return false when there is none. */
static bool
LoadCollection(int32 id, DocmodelCollection *cfg)
{
	Oid argtypes[1] = {INT4OID};
	Datum args[1];
	int ret;
	bool found = false;
	Datum fields;
	Datum types;
	int v;

	args[0] = Int32GetDatum(id);
	DocmodelSpiConnect();
	ret = SPI_execute_with_args(
		"SELECT coll::pg_catalog.oid, doc_type, meta_style, time_unit, "
		"delimiter, revisions, revisions_table::pg_catalog.oid, "
		/* max_ttl and the layout are absent under the 0.1.0 schema, before
		 * its update */
		"(pg_catalog.to_jsonb(c) OPERATOR(pg_catalog.->>) 'max_ttl')"
		"::pg_catalog.int4, "
		"(pg_catalog.to_jsonb(c) OPERATOR(pg_catalog.->>) 'type_part')"
		"::pg_catalog.int4, "
		"pg_catalog.to_jsonb(c) OPERATOR(pg_catalog.->>) 'type_check', "
		"(pg_catalog.to_jsonb(c) OPERATOR(pg_catalog.->>) 'fields')"
		"::pg_catalog.jsonb, "
		"pg_catalog.to_jsonb(c) OPERATOR(pg_catalog.->) 'types' "
		"FROM docmodel.collection_config AS c "
		"WHERE id OPERATOR(pg_catalog.=) $1",
		1, argtypes, args, NULL, true, 1);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "reading docmodel.collection_config failed: %d", ret);
	if (SPI_processed == 1)
	{
		HeapTuple tup = SPI_tuptable->vals[0];
		TupleDesc desc = SPI_tuptable->tupdesc;
		bool isnull;
		char *s;

		memset(cfg, 0, sizeof(*cfg));
		cfg->id = id;
		cfg->relid = DatumGetObjectId(SPI_getbinval(tup, desc, 1, &isnull));
		s = SPI_getvalue(tup, desc, 2);
		if (s != NULL)
		{
			cfg->has_doc_type = true;
			cfg->doc_type_len = Min(strlen(s), DOCMODEL_MAX_KEY_BYTES);
			memcpy(cfg->doc_type, s, cfg->doc_type_len);
		}
		s = SPI_getvalue(tup, desc, 3);
		if (s == NULL || !ParseMetaStyle(s, &cfg->meta_style, &cfg->xattrs))
			elog(ERROR, "bad meta_style in docmodel.collection_config");
		s = SPI_getvalue(tup, desc, 4);
		if (s == NULL || !ParseConfigName(s, TimeUnitNames, &v))
			elog(ERROR, "bad time_unit in docmodel.collection_config");
		cfg->time_unit = (DocmodelTimeUnit) v;
		s = SPI_getvalue(tup, desc, 5);
		if (s == NULL || strlen(s) < 1 || strlen(s) > DOCMODEL_MAX_DELIM_BYTES)
			elog(ERROR, "bad delimiter in docmodel.collection_config");
		cfg->delim_len = strlen(s);
		memcpy(cfg->delim, s, cfg->delim_len);
		cfg->revisions = DatumGetInt32(SPI_getbinval(tup, desc, 6, &isnull));
		if (isnull)
			cfg->revisions = 0;
		cfg->revisions_relid =
			DatumGetObjectId(SPI_getbinval(tup, desc, 7, &isnull));
		if (isnull)
			cfg->revisions_relid = InvalidOid;
		cfg->max_ttl = DatumGetInt32(SPI_getbinval(tup, desc, 8, &isnull));
		if (isnull)
			cfg->max_ttl = 0;
		cfg->type_part = DatumGetInt32(SPI_getbinval(tup, desc, 9, &isnull));
		if (isnull)
			cfg->type_part = 1;
		s = SPI_getvalue(tup, desc, 10);
		v = DOCMODEL_TYPE_EXACT;
		if (s != NULL && !ParseConfigName(s, TypeCheckNames, &v))
			elog(ERROR, "bad type_check in docmodel.collection_config");
		cfg->type_check = (DocmodelTypeCheck) v;
		types = SPI_getbinval(tup, desc, 12, &isnull);
		if (!isnull && JB_ROOT_IS_ARRAY(DatumGetJsonbP(types)) &&
			!JB_ROOT_IS_SCALAR(DatumGetJsonbP(types)))
			InternTypes(DatumGetJsonbP(types), cfg);
		if (cfg->type_part == 0 && !cfg->has_doc_type && cfg->types == NULL)
			elog(ERROR, "type_part 0 without doc_type or types in "
						"docmodel.collection_config");
		fields = SPI_getbinval(tup, desc, 11, &isnull);
		cfg->fs = isnull ? DocmodelFieldSetFor(cfg->meta_style)
						 : DocmodelFieldSetFromSpec(DatumGetJsonbP(fields),
													cfg->meta_style);
		found = true;
	}
	SPI_finish();
	return found;
}

/*
 * Return the cached configuration of collection id (a trigger argument),
 * reading it once when absent. Raises 22023 when no collection has this id
 * (its configuration was dropped while the table was kept).
 */
DocmodelCollection *
DocmodelCollectionById(int32 id)
{
	DocmodelCollection *entry;
	DocmodelCollection cfg;
	bool found;

	if (LastEntry != NULL && LastEntry->id == id)
		return LastEntry;
	CollectionCacheInit();
	entry = hash_search(CollCache, &id, HASH_FIND, NULL);
	if (entry != NULL)
		return LastEntry = entry;
	if (!OidIsValid(ConfigRelid))
		(void) DocmodelConfigRelid();
	if (!LoadCollection(id, &cfg))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("docmodel collection %d does not exist", id),
				 errdetail("The table's docmodel trigger names collection "
						   "configuration %d, which is not in "
						   "docmodel.collection_config.",
						   id),
				 errhint("Drop the trigger, or recreate the collection with "
						 "docmodel.create_collection().")));
	entry = hash_search(CollCache, &id, HASH_ENTER, &found);
	memcpy(entry, &cfg, sizeof(cfg));
	return LastEntry = entry;
}

/*
 * Return the cached configuration of the collection table relid (raising
 * 22023 when it is not one): a per-row lookup, which reads the config table
 * only when the collection is not cached yet. Same lifetime rules as
 * DocmodelCollectionById's result.
 */
DocmodelCollection *
DocmodelCollectionOf(Oid relid)
{
	HASH_SEQ_STATUS status;
	DocmodelCollection *entry;

	if (LastEntry != NULL && LastEntry->relid == relid)
		return LastEntry;
	if (CollCache != NULL)
	{
		hash_seq_init(&status, CollCache);
		while ((entry = hash_seq_search(&status)) != NULL)
			if (entry->relid == relid)
			{
				hash_seq_term(&status);
				return LastEntry = entry;
			}
	}
	return DocmodelCollectionById(DocmodelCollectionIdByRelid(relid, false));
}

/*
 * Return the configuration id of the collection table relid. When it is
 * not a collection: return -1 if missing_ok, else raise 22023. Reads the
 * config table: for set-up functions and first calls, not per row.
 */
int32
DocmodelCollectionIdByRelid(Oid relid, bool missing_ok)
{
	Oid argtypes[1] = {OIDOID};
	Datum args[1];
	int ret;
	int32 id = -1;

	args[0] = ObjectIdGetDatum(relid);
	DocmodelSpiConnect();
	ret = SPI_execute_with_args(
		"SELECT id FROM docmodel.collection_config "
		"WHERE coll::pg_catalog.oid OPERATOR(pg_catalog.=) $1",
		1, argtypes, args, NULL, true, 1);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "reading docmodel.collection_config failed: %d", ret);
	if (SPI_processed == 1)
	{
		bool isnull;

		id = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0],
										 SPI_tuptable->tupdesc, 1, &isnull));
	}
	SPI_finish();
	if (id < 0 && !missing_ok)
	{
		char *name = get_rel_name(relid);

		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("\"%s\" is not a docmodel collection",
							   name ? name : "(dropped)"),
						errdetail("The table has no row in "
								  "docmodel.collection_config."),
						errhint("Create collections with "
								"docmodel.create_collection().")));
	}
	return id;
}

/*
 * Return a new CAS: the wall clock in microseconds since 1970, but always
 * above old_cas (the stored row's CAS, 0 for a new key) and above the last
 * CAS this backend issued. So a key never sees a CAS twice, without a
 * shared sequence (which would not scale out on Citus).
 */
int64
DocmodelNextCas(int64 old_cas)
{
	int64 cas;

	cas = (int64) GetCurrentTimestamp() +
		  ((int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY);
	if (cas <= old_cas)
		cas = old_cas + 1;
	if (cas <= LastCas)
		cas = LastCas + 1;
	LastCas = cas;
	return cas;
}

/* Return who writes: docmodel.actor when set, else session_user. */
const char *
DocmodelWho(void)
{
	Oid role;

	if (docmodel_actor != NULL && docmodel_actor[0] != '\0')
		return docmodel_actor;
	role = GetSessionUserId();
	if (role != WhoRoleId)
	{
		char *name = GetUserNameFromId(role, false);

		strlcpy(WhoName, name, NAMEDATALEN);
		WhoRoleId = role;
	}
	return WhoName;
}

/*
 * Statement trigger on docmodel.collection_config: invalidate every
 * backend's configuration cache (at commit; in this backend at once).
 */
Datum
collection_config_changed(PG_FUNCTION_ARGS)
{
	return DocmodelCatalogChanged(fcinfo, "_collection_config_changed");
}

/* Raise 22023 naming the bad option of create_collection(). */
static void
BadOption(const char *what, const char *value, const char *hint)
{
	ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					errmsg("invalid %s \"%s\"", what, value ? value : "NULL"),
					hint ? errhint("%s", hint) : 0));
}

/*
 * Check create_collection()'s options: (name, doc_type, revisions,
 * meta_style, time_unit, delimiter). Raises 22023 on the first bad one.
 */
Datum
collection_check_collection_options(PG_FUNCTION_ARGS)
{
	char *name = PG_ARGISNULL(0) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(0));
	char *doc_type =
		PG_ARGISNULL(1) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(1));
	char *meta = PG_ARGISNULL(3) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(3));
	char *unit = PG_ARGISNULL(4) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(4));
	char *delim =
		PG_ARGISNULL(5) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(5));
	DocMetaStyle ms;
	bool xattrs;
	int tu;

	if (name == NULL || name[0] == '\0')
		BadOption("collection name", name, NULL);
	if (PG_ARGISNULL(2) || PG_GETARG_INT32(2) < 0)
		BadOption("revisions",
				  PG_ARGISNULL(2) ? NULL : psprintf("%d", PG_GETARG_INT32(2)),
				  "Give the number of revisions to keep, 0 for none.");
	if (meta == NULL || !ParseMetaStyle(meta, &ms, &xattrs))
		BadOption("meta_style", meta,
				  "Use one of underscore, meta, plain, xattrs.");
	if (unit == NULL || !ParseConfigName(unit, TimeUnitNames, &tu))
		BadOption("time_unit", unit, "Use one of ms, s, min, h, day, iso.");
	if (delim == NULL)
		BadOption("key delimiter", delim, NULL);
	DocmodelCheckDelimiter(delim, strlen(delim));
	if (doc_type != NULL)
	{
		if (strstr(doc_type, delim) != NULL || doc_type[0] == '\0')
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid doc_type \"%s\"", doc_type),
					 errdetail("A document type is one non-empty key part, "
							   "without the delimiter \"%s\".",
							   delim)));
		DocmodelCheckKey(doc_type, strlen(doc_type), delim, strlen(delim),
						 true);
	}
	PG_RETURN_VOID();
}

/*
 * Check create_collection()'s types (argument 10, not NULL): a body-typed
 * collection has type_part 0, no doc_type, keeps its fields in the body
 * (not xattrs), and lists one or more types, each a non-empty name of at
 * most DOCMODEL_MAX_KEY_BYTES bytes. Raises 22023.
 */
static void
CheckTypes(FunctionCallInfo fcinfo, int32 part)
{
	ArrayType *arr = PG_GETARG_ARRAYTYPE_P(10);
	Datum *elems;
	bool *nulls;
	int n;
	int i;

	if (part != 0 || !PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("types needs type_part 0 and no doc_type"),
				 errdetail("types lists the types a document of a collection "
						   "whose keys carry no type may have, read from its "
						   "body's type field."),
				 errhint("Give type_part => 0 and leave doc_type out.")));
	if (strcmp(text_to_cstring(PG_GETARG_TEXT_PP(3)), "xattrs") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("types needs the type field in the body"),
				 errdetail("meta_style 'xattrs' keeps the type field outside "
						   "the body.")));
	if (ARR_NDIM(arr) > 1)
		BadOption("types", "(a multidimensional array)",
				  "Give a one-dimensional array of type names.");
	deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls,
					  &n);
	if (n == 0)
		BadOption("types", "{}", "Give one type name or more.");
	for (i = 0; i < n; i++)
	{
		int len;

		CHECK_FOR_INTERRUPTS();
		if (nulls[i])
			BadOption("types", "(an array with a NULL)",
					  "Give type names, none NULL.");
		len = VARSIZE_ANY_EXHDR(DatumGetPointer(elems[i]));
		if (len == 0 || len > DOCMODEL_MAX_KEY_BYTES)
			ereport(
				ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid type \"%s\" in types",
						len == 0 ? "" : pnstrdup(VARDATA_ANY(elems[i]), 64)),
				 errdetail("A document type is a non-empty name of at "
						   "most %d bytes.",
						   DOCMODEL_MAX_KEY_BYTES)));
	}
}

/*
 * Check create_collection()'s key layout and field names (type_part,
 * type_check, fields: arguments 7 to 9, absent under the 0.1.0 schema);
 * raise 22023 on the first bad one. Return whether they differ from the
 * defaults (type_part 1, 'exact', no fields), i.e. must be recorded.
 */
static bool
CheckLayoutOptions(FunctionCallInfo fcinfo)
{
	DocMetaStyle ms;
	bool xattrs;
	int tc = DOCMODEL_TYPE_EXACT;
	int32 part;

	if (PG_NARGS() < 10)
		return false;
	part = PG_ARGISNULL(7) ? -1 : PG_GETARG_INT32(7);
	if (part < 0 || part > DOCMODEL_MAX_KEY_BYTES / 2)
		BadOption("type_part", PG_ARGISNULL(7) ? NULL : psprintf("%d", part),
				  "Give the key part that holds the document type (1 the "
				  "first), or 0 when keys carry no type.");
	if (part == 0 && PG_ARGISNULL(1) && (PG_NARGS() < 11 || PG_ARGISNULL(10)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("type_part 0 needs a doc_type or types"),
				 errdetail("With type_part 0 keys carry no type: the "
						   "collection's doc_type is every document's type, "
						   "or each document's type is read from its body "
						   "and is one of the collection's types."),
				 errhint("Give doc_type or types as well.")));
	if (PG_ARGISNULL(8) ||
		!ParseConfigName(text_to_cstring(PG_GETARG_TEXT_PP(8)), TypeCheckNames,
						 &tc))
		BadOption("type_check",
				  PG_ARGISNULL(8) ? NULL
								  : text_to_cstring(PG_GETARG_TEXT_PP(8)),
				  "Use one of exact, case_insensitive, off.");
	if (!PG_ARGISNULL(9))
	{
		(void) ParseMetaStyle(text_to_cstring(PG_GETARG_TEXT_PP(3)), &ms,
							  &xattrs);
		(void) DocmodelFieldSetFromSpec(PG_GETARG_JSONB_P(9), ms);
	}
	if (PG_NARGS() > 10 && !PG_ARGISNULL(10))
		CheckTypes(fcinfo, part);
	return part != 1 || tc != DOCMODEL_TYPE_EXACT || !PG_ARGISNULL(9) ||
		   (PG_NARGS() > 10 && !PG_ARGISNULL(10));
}

/*
 * create_collection(name, doc_type, revisions, meta_style, time_unit,
 * delimiter, max_ttl, type_part, type_check, fields) -> regclass: check
 * the options, resolve the name against the caller's search_path, and let
 * _create_collection() do the rest; a max_ttl, the meta column of an
 * xattrs collection and a key layout other than the default are recorded
 * after.
 */
Datum
collection_create_collection(PG_FUNCTION_ARGS)
{
	Oid argtypes[7] = {TEXTOID, TEXTOID, TEXTOID, INT4OID,
					   TEXTOID, TEXTOID, TEXTOID};
	Datum args[7];
	char nulls[7] = {' ', ' ', ' ', ' ', ' ', ' ', ' '};
	List *names;
	RangeVar *rv;
	Oid nsp;
	int ret;
	int i;
	bool isnull;
	Datum result;
	bool layout;

	(void) collection_check_collection_options(fcinfo);
	layout = CheckLayoutOptions(fcinfo);
	/* max_ttl: absent under the 0.1.0 schema, before its update */
	if (PG_NARGS() > 6 && !PG_ARGISNULL(6) && PG_GETARG_INT32(6) < 0)
		BadOption("max_ttl", psprintf("%d", PG_GETARG_INT32(6)),
				  "Give the longest expiry of the collection's documents in "
				  "seconds, 0 or NULL for none.");
	names = textToQualifiedNameList(PG_GETARG_TEXT_PP(0));
	if (list_length(names) > 2)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("invalid collection name \"%s\"",
							   text_to_cstring(PG_GETARG_TEXT_PP(0))),
						errdetail("A collection name is a table name, "
								  "optionally schema-qualified.")));
	rv = makeRangeVarFromNameList(names);
	nsp = RangeVarGetCreationNamespace(rv);
	args[0] = CStringGetTextDatum(get_namespace_name(nsp));
	args[1] = CStringGetTextDatum(rv->relname);
	for (i = 1; i < 6; i++)
	{
		args[i + 1] = PG_GETARG_DATUM(i);
		if (PG_ARGISNULL(i))
			nulls[i + 1] = 'n';
	}
	DocmodelSpiConnect();
	ret = SPI_execute_with_args("SELECT docmodel._create_collection($1, $2, "
								"$3, $4, $5, $6, $7)",
								7, argtypes, args, nulls, false, 1);
	if (ret != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "docmodel._create_collection failed: %d", ret);
	result =
		SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (PG_NARGS() > 6 && !PG_ARGISNULL(6) && PG_GETARG_INT32(6) > 0)
	{
		Oid ttypes[2] = {OIDOID, INT4OID};
		Datum targs[2] = {result, PG_GETARG_DATUM(6)};

		ret = SPI_execute_with_args(
			"SELECT docmodel._config_set_max_ttl($1::pg_catalog.regclass, $2)",
			2, ttypes, targs, NULL, false, 1);
		if (ret != SPI_OK_SELECT)
			elog(ERROR, "docmodel._config_set_max_ttl failed: %d", ret);
	}
	if (strcmp(text_to_cstring(PG_GETARG_TEXT_PP(3)), "xattrs") == 0)
	{
		/* the management fields, outside the body (column 6) */
		Oid relid = DatumGetObjectId(result);

		ret = SPI_execute(
			psprintf("ALTER TABLE %s ADD COLUMN meta pg_catalog.jsonb",
					 quote_qualified_identifier(
						 get_namespace_name(get_rel_namespace(relid)),
						 get_rel_name(relid))),
			false, 0);
		if (ret != SPI_OK_UTILITY)
			elog(ERROR, "adding column meta failed: %d", ret);
	}
	if (layout)
	{
		bool notypes = PG_NARGS() < 11 || PG_ARGISNULL(10);
		Oid ltypes[5] = {OIDOID, INT4OID, TEXTOID, JSONBOID, TEXTARRAYOID};
		Datum largs[5] = {result, PG_GETARG_DATUM(7), PG_GETARG_DATUM(8),
						  PG_ARGISNULL(9) ? (Datum) 0 : PG_GETARG_DATUM(9),
						  notypes ? (Datum) 0 : PG_GETARG_DATUM(10)};
		char lnulls[5] = {' ', ' ', ' ', PG_ARGISNULL(9) ? 'n' : ' ',
						  notypes ? 'n' : ' '};

		ret = SPI_execute_with_args(
			"SELECT docmodel._config_set_layout($1::pg_catalog.regclass, $2, "
			"$3, $4, $5)",
			5, ltypes, largs, lnulls, false, 1);
		if (ret != SPI_OK_SELECT)
			elog(ERROR, "docmodel._config_set_layout failed: %d", ret);
	}
	SPI_finish();
	PG_RETURN_DATUM(result);
}

/*
 * Return a free name, in namespace nsp, for a table derived from the table
 * named base (its history: label "revisions"), chosen the way PostgreSQL
 * chooses index and constraint names (ChooseRelationName() and
 * makeObjectName() in indexcmds.c): base, "_", label, with base cut at a
 * character boundary so that the whole fits in NAMEDATALEN - 1 bytes; when
 * that name is taken by any relation, the label gets a number (revisions1,
 * revisions2, ...). The label is never cut, so the name says what it is.
 */
char *
DocmodelDerivedName(Oid nsp, const char *base, const char *label)
{
	char modlabel[NAMEDATALEN];
	int pass = 0;

	if (strlen(label) > NAMEDATALEN - 2 - 10)
		ereport(ERROR,
				(errcode(ERRCODE_NAME_TOO_LONG),
				 errmsg("derived name label \"%s\" is too long", label)));
	strlcpy(modlabel, label, sizeof(modlabel));
	for (;;)
	{
		int llen = strlen(modlabel);
		int blen = strlen(base);
		char *name;

		if (blen + 1 + llen > NAMEDATALEN - 1)
			blen = pg_mbcliplen(base, blen, NAMEDATALEN - 2 - llen);
		name = psprintf("%.*s_%s", blen, base, modlabel);
		if (!OidIsValid(get_relname_relid(name, nsp)))
			return name;
		pfree(name);
		snprintf(modlabel, sizeof(modlabel), "%s%d", label, ++pass);
	}
}

/* SQL: _derived_name(nsp regnamespace, base text, label text) -> name. */
Datum
collection_derived_name(PG_FUNCTION_ARGS)
{
	char *name = DocmodelDerivedName(PG_GETARG_OID(0),
									 text_to_cstring(PG_GETARG_TEXT_PP(1)),
									 text_to_cstring(PG_GETARG_TEXT_PP(2)));
	Name result = (Name) palloc0(NAMEDATALEN);

	strlcpy(NameStr(*result), name, NAMEDATALEN);
	PG_RETURN_NAME(result);
}
