/*-------------------------------------------------------------------------
 *
 * collection.c
 *	  Collection configuration: a backend-local cache of the rows of
 *	  docmodel.collection_config keyed by their id (the argument of the
 *	  collection trigger), the CAS clock, the writer's name, the small
 *	  C helpers of create_collection(), and the one way docmodel names the
 *	  tables it derives from a collection (DocmodelDerivedName).
 *
 * Shared state: CollCache (a hash in TopMemoryContext, this backend only).
 * An entry is filled on first use by one SPI query and dropped by the
 * relcache callback when its collection table is invalidated (renamed,
 * altered, dropped) or when docmodel.collection_config itself is
 * invalidated, which its statement trigger does on every change. Nothing
 * per row reads the catalog. Callers must not keep an entry pointer across
 * anything that may process invalidation messages.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "nodes/makefuncs.h"
#include "utils/varlena.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "mb/pg_wchar.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/timestamp.h"

#include "collection.h"
#include "key.h"

PG_FUNCTION_INFO_V1(_collection_config_changed);
PG_FUNCTION_INFO_V1(_check_collection_options);
PG_FUNCTION_INFO_V1(create_collection);
PG_FUNCTION_INFO_V1(_derived_name);

static HTAB *CollCache = NULL;
static DocmodelCollection *LastEntry = NULL; /* the last lookup, or NULL */
static Oid ConfigRelid = InvalidOid;
static int64 LastCas = 0;
static Oid WhoRoleId = InvalidOid;
static char WhoName[NAMEDATALEN];

/* Drop cached configurations when their table or the config table changes. */
static void
CollectionRelcacheCallback(Datum arg, Oid relid)
{
	HASH_SEQ_STATUS status;
	DocmodelCollection *entry;
	bool all;

	if (CollCache == NULL)
		return;
	LastEntry = NULL;
	all = (relid == InvalidOid || relid == ConfigRelid);
	if (all)
		ConfigRelid = InvalidOid; /* looked up again: the extension may
									 * have been dropped and recreated */
	hash_seq_init(&status, CollCache);
	while ((entry = hash_seq_search(&status)) != NULL)
	{
		if (all || entry->relid == relid)
			hash_search(CollCache, &entry->id, HASH_REMOVE, NULL);
	}
}

/* Create the cache and register its callback, once per backend. */
static void
CollectionCacheInit(void)
{
	HASHCTL ctl;

	if (CollCache != NULL)
		return;
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(int32);
	ctl.entrysize = sizeof(DocmodelCollection);
	CollCache =
		hash_create("docmodel collections", 64, &ctl, HASH_ELEM | HASH_BLOBS);
	CacheRegisterRelcacheCallback(CollectionRelcacheCallback, (Datum) 0);
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

/* Parse a meta_style name; return false when unknown. */
static bool
ParseMetaStyle(const char *s, DocmodelMetaStyle *out)
{
	if (strcmp(s, "underscore") == 0)
		*out = DOCMODEL_META_UNDERSCORE;
	else if (strcmp(s, "meta") == 0)
		*out = DOCMODEL_META_META;
	else if (strcmp(s, "plain") == 0)
		*out = DOCMODEL_META_PLAIN;
	else
		return false;
	return true;
}

/* Parse a time_unit name; return false when unknown. */
static bool
ParseTimeUnit(const char *s, DocmodelTimeUnit *out)
{
	if (strcmp(s, "ms") == 0)
		*out = DOCMODEL_TIME_MS;
	else if (strcmp(s, "s") == 0)
		*out = DOCMODEL_TIME_S;
	else if (strcmp(s, "min") == 0)
		*out = DOCMODEL_TIME_MIN;
	else if (strcmp(s, "h") == 0)
		*out = DOCMODEL_TIME_H;
	else if (strcmp(s, "day") == 0)
		*out = DOCMODEL_TIME_DAY;
	else if (strcmp(s, "iso") == 0)
		*out = DOCMODEL_TIME_ISO;
	else
		return false;
	return true;
}

/* Read one configuration row into *cfg; return false when there is none. */
static bool
LoadCollection(int32 id, DocmodelCollection *cfg)
{
	Oid argtypes[1] = {INT4OID};
	Datum args[1];
	int ret;
	bool found = false;

	args[0] = Int32GetDatum(id);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	ret = SPI_execute_with_args(
		"SELECT coll::pg_catalog.oid, doc_type, meta_style, time_unit, "
		"delimiter, revisions, revisions_table::pg_catalog.oid "
		"FROM docmodel.collection_config WHERE id OPERATOR(pg_catalog.=) $1",
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
		if (s == NULL || !ParseMetaStyle(s, &cfg->meta_style))
			elog(ERROR, "bad meta_style in docmodel.collection_config");
		s = SPI_getvalue(tup, desc, 4);
		if (s == NULL || !ParseTimeUnit(s, &cfg->time_unit))
			elog(ERROR, "bad time_unit in docmodel.collection_config");
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
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
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
_collection_config_changed(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;

	if (!CALLED_AS_TRIGGER(fcinfo))
		elog(ERROR, "_collection_config_changed: not called as trigger");
	CacheInvalidateRelcacheByRelid(RelationGetRelid(trigdata->tg_relation));
	return PointerGetDatum(NULL);
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
_check_collection_options(PG_FUNCTION_ARGS)
{
	char *name = PG_ARGISNULL(0) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(0));
	char *doc_type =
		PG_ARGISNULL(1) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(1));
	char *meta = PG_ARGISNULL(3) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(3));
	char *unit = PG_ARGISNULL(4) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(4));
	char *delim =
		PG_ARGISNULL(5) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(5));
	DocmodelMetaStyle ms;
	DocmodelTimeUnit tu;

	if (name == NULL || name[0] == '\0')
		BadOption("collection name", name, NULL);
	if (PG_ARGISNULL(2) || PG_GETARG_INT32(2) < 0)
		BadOption("revisions",
				  PG_ARGISNULL(2) ? NULL : psprintf("%d", PG_GETARG_INT32(2)),
				  "Give the number of revisions to keep, 0 for none.");
	if (meta == NULL || !ParseMetaStyle(meta, &ms))
		BadOption("meta_style", meta, "Use one of underscore, meta, plain.");
	if (unit == NULL || !ParseTimeUnit(unit, &tu))
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
 * create_collection(name, doc_type, revisions, meta_style, time_unit,
 * delimiter) -> regclass: check the options, resolve the name against the
 * caller's search_path, and let _create_collection() do the rest.
 */
Datum
create_collection(PG_FUNCTION_ARGS)
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

	(void) _check_collection_options(fcinfo);
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
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	ret = SPI_execute_with_args("SELECT docmodel._create_collection($1, $2, "
								"$3, $4, $5, $6, $7)",
								7, argtypes, args, nulls, false, 1);
	if (ret != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "docmodel._create_collection failed: %d", ret);
	result =
		SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
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
		elog(ERROR, "derived name label \"%s\" is too long", label);
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
_derived_name(PG_FUNCTION_ARGS)
{
	char *name = DocmodelDerivedName(PG_GETARG_OID(0),
									 text_to_cstring(PG_GETARG_TEXT_PP(1)),
									 text_to_cstring(PG_GETARG_TEXT_PP(2)));
	Name result = (Name) palloc0(NAMEDATALEN);

	strlcpy(NameStr(*result), name, NAMEDATALEN);
	PG_RETURN_NAME(result);
}
