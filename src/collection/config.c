/*-------------------------------------------------------------------------
 *
 * collection/config.c
 *	  Collection configuration: a backend-local cache of the rows of
 *	  docmodel.collection_config keyed by their id (the argument of the
 *	  collection trigger), and the names of its settings' values.
 *
 * Shared state: CollCache (a hash in TopMemoryContext, this backend only).
 * An entry is filled on first use by one SPI query and dropped by the
 * relcache subscriber (DocmodelCollectionRelcache, called by init.c's
 * dispatcher) when its collection or history table is invalidated
 * (renamed, altered, dropped) or when docmodel.collection_config itself is
 * invalidated, which its statement trigger does on every change. Nothing
 * per row reads the catalog.
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

#include "collection/config.h"

PG_FUNCTION_INFO_V1(collection_require_collection);

static HTAB *CollCache = NULL;
static DocmodelCollection *LastEntry = NULL; /* the last lookup, or NULL */
static Oid ConfigRelid = InvalidOid;

/*
 * Drop cached configurations when their table, their history table or the
 * config table changes (relcache subscriber, see init.c).
 */
void
DocmodelCollectionRelcache(Oid relid)
{
	HASH_SEQ_STATUS status;
	DocmodelCollection *entry;
	bool all;

	all = (relid == InvalidOid || relid == ConfigRelid);
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

/* The OID of docmodel.collection_config when known, else InvalidOid: for
 * invalidation callbacks, which must not look it up. */
Oid
DocmodelConfigRelidCached(void)
{
	return ConfigRelid;
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
 * fields, named as in the plain style, in the column meta (*xattrs);
 * 'columns' keeps them, named as in the underscore style, in typed columns.
 */
static bool
ParseMetaStyle(const char *s, DocMetaStyle *out, bool *xattrs)
{
	int v;

	*xattrs = strcmp(s, "xattrs") == 0;
	if (strcmp(s, "columns") == 0)
		s = "underscore"; /* named as underscore's, kept in columns */
	if (!ParseConfigName(*xattrs ? "plain" : s, MetaStyleNames, &v))
		return false;
	*out = (DocMetaStyle) v;
	return true;
}

/* Read a meta_style name; see config.h. */
bool
DocmodelConfigMetaStyle(const char *s, DocMetaStyle *out, bool *xattrs)
{
	return ParseMetaStyle(s, out, xattrs);
}

/* Read a time_unit name; see config.h. */
bool
DocmodelConfigTimeUnit(const char *s, int *out)
{
	return ParseConfigName(s, TimeUnitNames, out);
}

/* Read a type_check name; see config.h. */
bool
DocmodelConfigTypeCheck(const char *s, int *out)
{
	return ParseConfigName(s, TypeCheckNames, out);
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

/* Compare two type names as type_check says; see collection/config.h. */
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

/* set_revisions' keep_for (collection_config.revisions_keep_for) into cfg. */
static void
LoadKeepFor(HeapTuple tup, TupleDesc desc, DocmodelCollection *cfg)
{
	bool isnull;
	Datum d = SPI_getbinval(tup, desc, 13, &isnull);

	cfg->has_keep_for = !isnull;
	if (!isnull)
		cfg->keep_for = *DatumGetIntervalP(d);
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
		"pg_catalog.to_jsonb(c) OPERATOR(pg_catalog.->) 'types', "
		/* absent before the update to 0.2.0 too */
		"(pg_catalog.to_jsonb(c) OPERATOR(pg_catalog.->>) "
		"'revisions_keep_for')::pg_catalog.interval "
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
		cfg->columns = strcmp(s, "columns") == 0;
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
		LoadKeepFor(tup, desc, cfg);
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
 * reading it once when absent. Raises 42704 when no collection has this id
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
				(errcode(ERRCODE_UNDEFINED_OBJECT),
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
 * 42809 when it is not one): a per-row lookup, which reads the config table
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
	return DocmodelCollectionById(DocmodelRequireCollection(relid));
}

/*
 * Return the configuration id of the collection table relid, or -1 when it
 * is not a collection. Reads the config table: for set-up functions and
 * first calls, not per row.
 */
static int32
CollectionIdByRelid(Oid relid)
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
	return id;
}

/*
 * Return the configuration id of the collection table relid; raise 42809
 * when it is a relation but not a docmodel collection (as PostgreSQL says
 * "is not a table"), 42P01 when there is no relation relid. The one place
 * that says "is not a docmodel collection"; docmodel._require_collection
 * is its SQL twin for the install script's functions.
 */
int32
DocmodelRequireCollection(Oid relid)
{
	int32 id = CollectionIdByRelid(relid);
	char *name;

	if (id >= 0)
		return id;
	name = get_rel_name(relid);
	if (name == NULL)
		ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE),
						errmsg("relation with OID %u does not exist", relid)));
	ereport(ERROR,
			(errcode(ERRCODE_WRONG_OBJECT_TYPE),
			 errmsg("\"%s\" is not a docmodel collection", name),
			 errdetail("The table has no row in docmodel.collection_config."),
			 errhint("Create collections with docmodel.create_collection().")));
	return -1;
}

/*
 * _require_collection(coll regclass) -> integer: DocmodelRequireCollection
 * for SQL: the configuration id of coll, or 42809 (42P01, 22004 for NULL).
 */
Datum
collection_require_collection(PG_FUNCTION_ARGS)
{
	DocmodelRequireArg(fcinfo, 0, "coll");
	PG_RETURN_INT32(DocmodelRequireCollection(PG_GETARG_OID(0)));
}
