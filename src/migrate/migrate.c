/*-------------------------------------------------------------------------
 *
 * migrate/migrate.c
 *	  Schema-version migrations (README, "Schema versions and
 *	  migrations"): the registry of each document type's rules and its
 *	  cache, the document fields that say a document's type and version,
 *	  the chain runner (a tree built lazily and serialized once per
 *	  document; steps are applied by migrate/steps.c), migrate() and its
 *	  hooks for the collection trigger and get(), and the small SQL
 *	  functions. The bulk run (migrate_collection) is in migrate/run.c.
 *
 *	  Shared state: a backend-local cache of docmodel.migration_rules (one
 *	  entry per document type, scope -- a collection's config id, or 0 for
 *	  the global rules -- and kind: the active rules, or all of them for
 *	  migration_plan; each its chain of rules with parsed steps) and of
 *	  docmodel.write_rules (a type's setter steps per scope), kept in
 *	  MigrateCacheContext under CacheMemoryContext. A statement trigger on
 *	  either table sends a relcache invalidation for it; our relcache and
 *	  pg_proc syscache subscribers (called by docmodel.c's dispatchers)
 *	  only mark the cache stale, and the next call
 *	  reloads it with one query. The cache is never freed while a migration
 *	  is running a fn step (which may re-enter migrate()): see migrate_depth.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "collection/config.h"
#include "docmodel.h"
#include "collection/fields.h"
#include "json/tree.h"
#include "migrate/migrate.h"
#include "migrate/steps.h"
#include "collection/version.h"
#include "catalog.h"
#include "jsonschema/registry.h"

/* One registered rule: from -> to by steps, or by a jsonb -> jsonb function. */
typedef struct Rule
{
	DocVersion *from;
	DocVersion *to;
	char *from_text;
	char *to_text;
	Step *steps;
	int nsteps;
	bool is_fn;
	char *fn_text;
	Oid fn_oid; /* the pinned function; InvalidOid: its pin was dropped */
	FmgrInfo flinfo;
} Rule;

#define TYPE_NAME_MAX 256

/*
 * Which rules a chain holds: those of a type in one collection (scope, its
 * collection_config id) or everywhere (scope 0), active ones only (what
 * reads, writes and bulk runs apply) or all (planned: what migration_plan
 * shows, inactive rules included). The hash key; name zero-padded.
 */
typedef struct RulesKey
{
	int32 scope;
	bool planned;
	char name[TYPE_NAME_MAX];
} RulesKey;

/* A document type's rules (of one scope, active or planned), by from version. */
typedef struct TypeRules
{
	RulesKey key; /* hash key */
	int nrules;
	Rule *rules;
	DocVersion *oldest;
	DocVersion *current;
	char *current_text;
	int current_len;
} TypeRules;

/* A type's write rule (of one scope): setters run by every write. */
typedef struct WriteRule
{
	RulesKey key; /* hash key (planned: false) */
	Step *steps;
	int nsteps;
} WriteRule;

/* The cache; see the file banner. */
static MemoryContext MigrateCacheContext = NULL;
static HTAB *migrate_types = NULL;
static long migrate_ntypes = 0;
static bool migrate_cache_valid = false;
static uint64 migrate_inval_count = 0; /* invalidations seen */
static Oid migrate_registry_relid = InvalidOid;
static bool migrate_sql_has_pins = true; /* false: the SQL is still 0.1.0 */
static int migrate_depth = 0;
static HTAB *write_rules = NULL; /* WriteRule, in MigrateCacheContext */
static long write_nrules = 0;
static Oid write_rules_relid = InvalidOid;
static TypeRules *migrate_last_type = NULL; /* the last type found */
static RulesKey migrate_last_key;           /* what found it */

PG_FUNCTION_INFO_V1(migration_migrate);
PG_FUNCTION_INFO_V1(migration_migrate_doc);
PG_FUNCTION_INFO_V1(migration_plan_error);
PG_FUNCTION_INFO_V1(migration_current_version);
PG_FUNCTION_INFO_V1(migration_pending);
PG_FUNCTION_INFO_V1(migration_steps);
PG_FUNCTION_INFO_V1(migration_doc_type);
PG_FUNCTION_INFO_V1(migration_doc_version);
PG_FUNCTION_INFO_V1(migration_check_steps);
PG_FUNCTION_INFO_V1(migration_check_write_rule_steps);
PG_FUNCTION_INFO_V1(migration_rules_changed);

/* ---------------------------------------------------------------------
 * The registry cache
 * ---------------------------------------------------------------------
 */

/* Mark the cache stale when the registry (or every relation) changes. */
void
DocmodelMigrateRelcache(Oid relid)
{
	if (relid == InvalidOid || relid == migrate_registry_relid ||
		(OidIsValid(write_rules_relid) && relid == write_rules_relid))
	{
		migrate_cache_valid = false;
		migrate_inval_count++;
	}
}

/* Mark the cache stale when a function changes (fn steps hold FmgrInfo). */
void
DocmodelMigrateSyscache(int cacheid, uint32 hashvalue)
{
	migrate_cache_valid = false;
	migrate_inval_count++;
}

/* Compare two rules by from version (for qsort). */
static int
RuleCmp(const void *a, const void *b)
{
	return DocmodelVersionCmp(((const Rule *) a)->from,
							  ((const Rule *) b)->from);
}

/* Return the rule of tr whose from version equals v, or NULL. */
static Rule *
FindRuleFrom(TypeRules *tr, const DocVersion *v)
{
	int lo = 0;
	int hi = tr->nrules - 1;

	while (lo <= hi)
	{
		int mid = (lo + hi) / 2;
		int c = DocmodelVersionCmp(tr->rules[mid].from, v);

		if (c == 0)
			return &tr->rules[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return NULL;
}

/*
 * Run the registry query under SPI (connected by the caller): whether the
 * SQL has pins (0.1.0's has none: its function rules are refused until
 * ALTER EXTENSION UPDATE), then every rule in SPI_tuptable.
 */
static void
ReadRegistry(void)
{
	bool isnull;
	int ret;

	ret = SPI_execute("SELECT pg_catalog.to_regprocedure("
					  "'docmodel._migration_fn(pg_catalog.text, "
					  "docmodel.version, pg_catalog.int4)') IS NOT NULL",
					  true, 1);
	if (ret != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "looking up docmodel._migration_fn failed: %d", ret);
	migrate_sql_has_pins = DatumGetBool(SPI_getbinval(
		SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	/* collection_id and active: absent under the 0.1.0 schema */
#define RULES_SQL(pin)                                                    \
	"SELECT doc_type, from_version::pg_catalog.text, "                    \
	"to_version::pg_catalog.text, steps, fn, " pin ", "                   \
	"(pg_catalog.to_jsonb(r) OPERATOR(pg_catalog.->>) 'collection_id')"   \
	"::pg_catalog.int4, "                                                 \
	"COALESCE((pg_catalog.to_jsonb(r) OPERATOR(pg_catalog.->>) 'active')" \
	"::pg_catalog.bool, true) "                                           \
	"FROM docmodel.migration_rules AS r ORDER BY doc_type, from_version"
	ret = SPI_execute(
		migrate_sql_has_pins
			? RULES_SQL("docmodel._migration_fn(doc_type, from_version, "
						"collection_id)")
			: RULES_SQL("NULL::pg_catalog.oid"),
		true, 0);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "reading docmodel.migration_rules failed: %d", ret);
}

/*
 * Add the rule in registry row tup to its type's chain in types, the
 * planned one or the active one; everything is allocated in the current
 * context (the new cache's), cxt.
 */
static void
AddRule(HTAB *types, HeapTuple tup, TupleDesc td, MemoryContext cxt,
		bool planned)
{
	char *type = SPI_getvalue(tup, td, 1);
	bool found;
	bool isnull;
	TypeRules *tr;
	Rule *r;
	Datum d;
	RulesKey k;

	if (strlen(type) >= TYPE_NAME_MAX)
		return;
	memset(&k, 0, sizeof(k));
	d = SPI_getbinval(tup, td, 7, &isnull);
	k.scope = isnull ? 0 : DatumGetInt32(d);
	k.planned = planned;
	strlcpy(k.name, type, TYPE_NAME_MAX);
	tr = hash_search(types, &k, HASH_ENTER, &found);
	if (!found)
	{
		tr->nrules = 0;
		tr->rules = NULL;
	}
	tr->rules = tr->rules ? repalloc(tr->rules, sizeof(Rule) * (tr->nrules + 1))
						  : palloc(sizeof(Rule));
	r = &tr->rules[tr->nrules++];
	memset(r, 0, sizeof(Rule));
	r->from_text = SPI_getvalue(tup, td, 2);
	r->to_text = SPI_getvalue(tup, td, 3);
	r->from = DocmodelVersionFromCString(r->from_text, true);
	r->to = DocmodelVersionFromCString(r->to_text, true);
	d = SPI_getbinval(tup, td, 4, &isnull);
	if (!isnull)
	{
		r->steps = DocmodelStepsCheck(DatumGetJsonbPCopy(d), &r->nsteps);
		return;
	}
	r->is_fn = true;
	r->fn_text = SPI_getvalue(tup, td, 5);
	d = SPI_getbinval(tup, td, 6, &isnull);
	r->fn_oid = isnull ? InvalidOid : DatumGetObjectId(d);
	if (OidIsValid(r->fn_oid))
		fmgr_info_cxt(r->fn_oid, &r->flinfo, cxt);
}

/* Sort each chain; set its oldest version, and the newest reachable. */
static long
SortChains(HTAB *types)
{
	HASH_SEQ_STATUS seq;
	TypeRules *tr;
	long n = 0;

	hash_seq_init(&seq, types);
	while ((tr = hash_seq_search(&seq)) != NULL)
	{
		Rule *r;

		qsort(tr->rules, tr->nrules, sizeof(Rule), RuleCmp);
		tr->oldest = tr->rules[0].from;
		tr->current = tr->oldest;
		while ((r = FindRuleFrom(tr, tr->current)) != NULL)
			tr->current = r->to;
		tr->current_text = DocmodelVersionToCString(tr->current);
		tr->current_len = strlen(tr->current_text);
		/* keep the text as registered (e.g. "3.0") when there is one */
		for (int k = 0; k < tr->nrules; k++)
			if (DocmodelVersionCmp(tr->rules[k].to, tr->current) == 0)
			{
				tr->current_text = tr->rules[k].to_text;
				tr->current_len = strlen(tr->current_text);
			}
		n++;
	}
	return n;
}

/*
 * Read docmodel.write_rules (under SPI, connected by the caller) into
 * writes, parsed in cxt; return how many.
 */
static long
ReadWriteRules(HTAB *writes, MemoryContext cxt)
{
	MemoryContext caller = CurrentMemoryContext;
	int ret;
	uint64 i;

	ret = SPI_execute("SELECT doc_type, collection_id, steps "
					  "FROM docmodel.write_rules",
					  true, 0);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "reading docmodel.write_rules failed: %d", ret);
	MemoryContextSwitchTo(cxt);
	for (i = 0; i < SPI_processed; i++)
	{
		HeapTuple tup = SPI_tuptable->vals[i];
		TupleDesc td = SPI_tuptable->tupdesc;
		char *type = SPI_getvalue(tup, td, 1);
		bool isnull;
		RulesKey k;
		WriteRule *wr;
		Datum d;

		CHECK_FOR_INTERRUPTS();
		if (type == NULL || strlen(type) >= TYPE_NAME_MAX)
			continue;
		memset(&k, 0, sizeof(k));
		strlcpy(k.name, type, TYPE_NAME_MAX);
		d = SPI_getbinval(tup, td, 2, &isnull);
		k.scope = isnull ? 0 : DatumGetInt32(d);
		d = SPI_getbinval(tup, td, 3, &isnull);
		if (isnull)
			continue;
		wr = hash_search(writes, &k, HASH_ENTER, NULL);
		wr->steps = DocmodelStepsCheck(DatumGetJsonbPCopy(d), &wr->nsteps);
	}
	MemoryContextSwitchTo(caller);
	return (long) SPI_processed;
}

/* Read the registry into a new cache context; see the file banner. */
static void
LoadCache(void)
{
	MemoryContext old_cxt = MigrateCacheContext;
	MemoryContext cxt;
	MemoryContext caller = CurrentMemoryContext;
	HTAB *types;
	HTAB *writes;
	long nwrites = 0;
	Oid nsp;
	uint64 i;
	uint64 gen;

	nsp = get_namespace_oid("docmodel", false);
	migrate_registry_relid = get_relname_relid("migration_rules", nsp);
	if (!OidIsValid(migrate_registry_relid))
		elog(ERROR, "docmodel.migration_rules does not exist");

	/* Count invalidations from here on: one while loading wins. */
	gen = migrate_inval_count;

	cxt = AllocSetContextCreate(CacheMemoryContext, "docmodel migrations",
								ALLOCSET_DEFAULT_SIZES);
	types = DocmodelHash("docmodel migration types", 16, sizeof(RulesKey),
						 sizeof(TypeRules), false, cxt);
	writes = DocmodelHash("docmodel write rules", 16, sizeof(RulesKey),
						  sizeof(WriteRule), false, cxt);
	/* absent under the 0.1.0 schema, before its update */
	write_rules_relid = get_relname_relid("write_rules", nsp);

	/* A registry that cannot be read (or parsed) leaves no half cache. */
	PG_TRY();
	{
		DocmodelSpiConnect();
		ReadRegistry();
		MemoryContextSwitchTo(cxt);
		for (i = 0; i < SPI_processed; i++)
		{
			HeapTuple tup = SPI_tuptable->vals[i];
			TupleDesc td = SPI_tuptable->tupdesc;
			bool isnull;
			bool active = DatumGetBool(SPI_getbinval(tup, td, 8, &isnull));

			CHECK_FOR_INTERRUPTS();
			AddRule(types, tup, td, cxt, true);
			if (isnull || active)
				AddRule(types, tup, td, cxt, false);
		}
		MemoryContextSwitchTo(caller);
		if (OidIsValid(write_rules_relid))
			nwrites = ReadWriteRules(writes, cxt);
		SPI_finish();
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(caller);
		MemoryContextDelete(cxt);
		PG_RE_THROW();
	}
	PG_END_TRY();

	migrate_ntypes = SortChains(types);
	migrate_types = types;
	write_rules = writes;
	write_nrules = nwrites;
	migrate_last_type = NULL;
	migrate_cache_valid = (gen == migrate_inval_count);
	MigrateCacheContext = cxt;

	/*
	 * Free the previous cache, unless a migration further up the stack (a fn
	 * step that called migrate()) may still be using it: then let it live as
	 * long as the new one.
	 */
	if (old_cxt)
	{
		if (migrate_depth > 0)
			MemoryContextSetParent(old_cxt, cxt);
		else
			MemoryContextDelete(old_cxt);
	}
}

/*
 * Return the chain of a type for a document of collection scope (0: none
 * known): the collection's own rules when it has any, else the type's
 * global ones; active rules only, or all of them (planned). NULL when
 * there are none. Loads the cache if stale.
 */
static TypeRules *
LookupRules(const char *type, int len, int32 scope, bool planned)
{
	RulesKey k;
	TypeRules *tr;

	if (!migrate_cache_valid)
		LoadCache();
	if (migrate_ntypes == 0 || len >= TYPE_NAME_MAX)
		return NULL;
	/* most calls of a statement ask for the same type in the same place */
	if (migrate_last_type != NULL && migrate_last_key.scope == scope &&
		migrate_last_key.planned == planned &&
		memcmp(migrate_last_key.name, type, len) == 0 &&
		migrate_last_key.name[len] == '\0')
		return migrate_last_type;
	memset(&k, 0, sizeof(k));
	memcpy(k.name, type, len);
	k.planned = planned;
	k.scope = scope;
	tr = scope != 0 ? hash_search(migrate_types, &k, HASH_FIND, NULL) : NULL;
	if (tr == NULL)
	{
		k.scope = 0;
		tr = hash_search(migrate_types, &k, HASH_FIND, NULL);
	}
	if (tr)
	{
		k.scope = scope;
		migrate_last_key = k;
		migrate_last_type = tr;
	}
	return tr;
}

/* The active chain of a type, outside any collection. */
static inline TypeRules *
LookupType(const char *type, int len)
{
	return LookupRules(type, len, 0, false);
}

/* Set the schema version field (named as in fs) of a document tree. */
static void
SetVersion(JsonbValue *root, const DocFieldSet *fs, const char *text)
{
	const DocFieldName *name = &fs->field[DOC_FIELD_SCHEMA];
	JsonbValue *where = root;
	JsonbValue sv = DocmodelJsonTreeString(text, strlen(text));

	DocmodelJsonTreeExpand(root);
	if (fs->container.len > 0)
	{
		int k = DocmodelJsonTreeFindMember(root, fs->container.name,
										   fs->container.len);

		where = k >= 0 ? &root->val.object.pairs[k].value : NULL;
		if (where != NULL)
			DocmodelJsonTreeExpand(where);
		if (where == NULL || where->type != jbvObject)
		{
			JsonbValue empty;

			empty.type = jbvObject;
			empty.val.object.nPairs = 0;
			empty.val.object.pairs = NULL;
			DocmodelJsonTreeSetMember(root, fs->container.name,
									  fs->container.len, &empty);
			k = DocmodelJsonTreeFindMember(root, fs->container.name,
										   fs->container.len);
			where = &root->val.object.pairs[k].value;
		}
	}
	DocmodelJsonTreeSetMember(where, name->name, name->len, &sv);
}

/* errdetail naming the key (when known), type and rule of cx. */
static int
RuleDetail(const ApplyCx *cx)
{
	if (cx->key)
		return errdetail("Key \"%s\", type \"%s\", migration %s to %s.",
						 cx->key, cx->type, cx->from, cx->to);
	return errdetail("Type \"%s\", migration %s to %s.", cx->type, cx->from,
					 cx->to);
}

/* Call a rule's jsonb -> jsonb function on a document. */
static Jsonb *
CallRuleFn(ApplyCx *cx, Rule *r, Jsonb *doc)
{
	Datum d;
	Jsonb *res;
	LOCAL_FCINFO(fcinfo, 1);

	if (!OidIsValid(r->fn_oid) && !migrate_sql_has_pins)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("migration function %s is not pinned", r->fn_text),
				 errdetail("Type \"%s\", migration %s to %s. The extension's "
						   "SQL objects are those of docmodel 0.1.0.",
						   cx->type, cx->from, cx->to),
				 errhint("Run ALTER EXTENSION docmodel UPDATE.")));
	if (!OidIsValid(r->fn_oid))
		ereport(
			ERROR,
			(errcode(ERRCODE_UNDEFINED_FUNCTION),
			 errmsg("migration function %s does not exist", r->fn_text),
			 errdetail("Type \"%s\", migration %s to %s.", cx->type, cx->from,
					   cx->to),
			 errhint(
				 "Register the migration again with an existing function.")));
	InitFunctionCallInfoData(*fcinfo, &r->flinfo, 1, InvalidOid, NULL, NULL);
	fcinfo->args[0].value = JsonbPGetDatum(doc);
	fcinfo->args[0].isnull = false;
	migrate_depth++;
	PG_TRY();
	{
		d = FunctionCallInvoke(fcinfo);
	}
	PG_FINALLY();
	{
		migrate_depth--;
	}
	PG_END_TRY();
	if (fcinfo->isnull)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("migration function %s returned null", r->fn_text),
				 RuleDetail(cx)));
	res = DatumGetJsonbP(d);
	if (!JB_ROOT_IS_OBJECT(res))
		ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
						errmsg("migration function %s did not return an object",
							   r->fn_text),
						RuleDetail(cx)));
	return res;
}

/* Raise 42704 unless target is a version of tr's chain (a from or a to). */
static void
CheckTarget(TypeRules *tr, const DocVersion *target)
{
	int i;

	for (i = 0; i < tr->nrules; i++)
		if (DocmodelVersionCmp(tr->rules[i].from, target) == 0 ||
			DocmodelVersionCmp(tr->rules[i].to, target) == 0)
			return;
	ereport(
		ERROR,
		(errcode(ERRCODE_UNDEFINED_OBJECT),
		 errmsg("no migration of type \"%s\" reaches version %s", tr->key.name,
				DocmodelVersionToCString(target)),
		 errdetail("Type \"%s\" goes from version %s to %s.", tr->key.name,
				   DocmodelVersionToCString(tr->oldest), tr->current_text)));
}

/*
 * Apply the rules of tr to doc, from version v up to tgt, and return the
 * new document (built once, unless a fn rule sits in the chain). fs (a
 * resolved description, not AUTO's) says where the schema field goes.
 */
static Jsonb *
ApplyChain(Jsonb *doc, TypeRules *tr, const DocFieldSet *fs,
		   const DocVersion *v, const DocVersion *tgt, const char *key)
{
	JsonbValue treebuf;
	JsonbValue *tree = NULL;
	Jsonb *cur = doc;
	ApplyCx cx;
	ErrorContextCallback errcb;
	Jsonb *res;

	cx.key = key;
	cx.type = tr->key.name;
	cx.write_rule = false;
	cx.from = NULL;
	cx.to = NULL;
	cx.fn = NULL;
	cx.step = NULL;
	cx.prefix = "";
	cx.room = JSONTREE_MAX_BYTES - Min(VARSIZE(doc), JSONTREE_MAX_BYTES);
	errcb.callback = DocmodelStepsErrorContext;
	errcb.arg = &cx;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;
	while (DocmodelVersionCmp(v, tgt) < 0)
	{
		Rule *r = FindRuleFrom(tr, v);

		cx.from = cx.to = cx.fn = NULL;
		if (r == NULL)
			ereport(
				ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("no migration of type \"%s\" starts at version %s",
						tr->key.name, DocmodelVersionToCString(v)),
				 key ? errdetail("Key \"%s\": type \"%s\" goes from version %s "
								 "to %s.",
								 key, tr->key.name,
								 DocmodelVersionToCString(tr->oldest),
								 tr->current_text)
					 : errdetail("Type \"%s\" goes from version %s to %s.",
								 tr->key.name,
								 DocmodelVersionToCString(tr->oldest),
								 tr->current_text),
				 errhint("Register a migration from version %s.",
						 DocmodelVersionToCString(v))));
		cx.from = r->from_text;
		cx.to = r->to_text;
		cx.fn = r->is_fn ? r->fn_text : NULL;
		if (r->is_fn)
		{
			if (tree)
				cur = DocmodelJsonTreeToJsonb(tree);
			cur = CallRuleFn(&cx, r, cur);
			tree = NULL;
		}
		if (tree == NULL)
		{
			tree = &treebuf;
			DocmodelJsonTreeFromJsonb(cur, tree);
		}
		if (!r->is_fn)
			DocmodelStepsApply(&cx, r->steps, r->nsteps, tree);
		DocmodelJsonTreeExpand(tree);
		if (tree->type != jbvObject)
			ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
							errmsg("migration of type \"%s\" from %s to %s did "
								   "not leave an object",
								   tr->key.name, r->from_text, r->to_text)));
		SetVersion(tree, fs, r->to_text);
		v = r->to;
	}
	res = DocmodelJsonTreeToJsonb(tree);
	error_context_stack = errcb.previous;
	return res;
}

/* DocmodelMigrateIn, with the active or (planned) every rule. */
static Jsonb *
MigrateIn(Jsonb *doc, const DocVersion *target, const char *key,
		  const DocFieldSet *fs, int32 scope, bool planned)
{
	DocFields f;
	TypeRules *tr;
	const DocVersion *v;
	const DocVersion *tgt;

	/* no type has rules: no need to read the document's fields */
	if (!migrate_cache_valid)
		LoadCache();
	if (migrate_ntypes == 0)
		return doc;
	if (!(fs ? DocmodelFieldsFindIn(doc, fs, &f)
			 : DocmodelFieldsFind(doc, DOC_META_AUTO, &f)))
		return doc;
	tr = LookupRules(f.type, f.typelen, scope, planned);
	if (tr == NULL)
		return doc;

	/* The fast path: a current document comes back as it is. */
	if (f.has_version && target == NULL && f.versionlen == tr->current_len &&
		memcmp(f.version, tr->current_text, f.versionlen) == 0)
		return doc;

	tgt = target ? target : tr->current;
	if (target)
		CheckTarget(tr, target);
	v = f.has_version ? DocmodelFieldsParseVersion(&f, key) : tr->oldest;
	if (DocmodelVersionCmp(v, tgt) >= 0)
		return doc;
	return ApplyChain(doc, tr, f.set, v, tgt, key);
}

Jsonb *
DocmodelMigrateIn(Jsonb *doc, const DocVersion *target, const char *key,
				  const DocFieldSet *fs, int32 scope)
{
	return MigrateIn(doc, target, key, fs, scope, false);
}

Jsonb *
DocmodelMigrateOnWrite(Jsonb *body, const char *type, int type_len,
					   const DocFieldSet *fs, int32 scope, const char *key,
					   int key_len, JsonbValue **schema)
{
	DocFields f;
	TypeRules *tr;
	const DocVersion *v;
	char *keyz;
	JsonbValue *sv;

	*schema = NULL;
	if (fs != NULL && !JB_ROOT_IS_OBJECT(body))
		return body;
	tr = LookupRules(type, type_len, scope, false);
	if (tr == NULL)
		return body;
	if (fs == NULL)
	{
		/* the body carries no version (xattrs): it is the current shape */
		sv = palloc(sizeof(JsonbValue));
		*sv = DocmodelJsonTreeString(pstrdup(tr->current_text),
									 strlen(tr->current_text));
		*schema = sv;
		return body;
	}
	DocmodelFieldsFindIn(body, fs, &f);
	f.type = (char *) type;
	f.typelen = type_len;
	if (f.has_version && f.versionlen == tr->current_len &&
		memcmp(f.version, tr->current_text, f.versionlen) == 0)
		return body;
	sv = palloc(sizeof(JsonbValue));
	*sv = DocmodelJsonTreeString(pstrdup(tr->current_text),
								 strlen(tr->current_text));
	if (!f.has_version)
	{
		/* a new shape written without a version is the current one */
		*schema = sv;
		return body;
	}
	keyz = pnstrdup(key, key_len);
	v = DocmodelFieldsParseVersion(&f, keyz);
	if (DocmodelVersionCmp(v, tr->current) >= 0)
		return body; /* newer than we know: keep it */
	*schema = sv;
	return ApplyChain(body, tr, f.set, v, tr->current, keyz);
}

/* See migrate.h. */
Jsonb *
DocmodelApplyWriteRules(Jsonb *body, const char *type, int type_len,
						int32 scope, const char *key, int key_len)
{
	RulesKey k;
	WriteRule *wr;
	ApplyCx cx;
	ErrorContextCallback errcb;
	JsonbValue tree;
	Jsonb *res;

	if (!migrate_cache_valid)
		LoadCache();
	if (write_nrules == 0 || type == NULL || type_len >= TYPE_NAME_MAX ||
		!JB_ROOT_IS_OBJECT(body))
		return body;
	memset(&k, 0, sizeof(k));
	memcpy(k.name, type, type_len);
	k.scope = scope;
	wr = scope != 0 ? hash_search(write_rules, &k, HASH_FIND, NULL) : NULL;
	if (wr == NULL)
	{
		k.scope = 0;
		wr = hash_search(write_rules, &k, HASH_FIND, NULL);
	}
	if (wr == NULL)
		return body;
	memset(&cx, 0, sizeof(cx));
	cx.key = pnstrdup(key, key_len);
	cx.type = wr->key.name;
	cx.prefix = "";
	cx.write_rule = true;
	errcb.callback = DocmodelStepsErrorContext;
	errcb.arg = &cx;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;
	DocmodelJsonTreeFromJsonb(body, &tree);
	DocmodelStepsApply(&cx, wr->steps, wr->nsteps, &tree);
	res = DocmodelJsonTreeToJsonb(&tree);
	error_context_stack = errcb.previous;
	return res;
}

HeapTuple
DocmodelMigrateTuple(HeapTuple tup, TupleDesc desc, int keycol, int doccol,
					 const DocFieldSet *fs, int32 scope)
{
	bool isnull;
	Datum d = heap_getattr(tup, doccol, desc, &isnull);
	Jsonb *doc;
	Jsonb *cur;
	Datum values[1];
	bool nulls[1] = {false};
	int cols[1];
	char *key = NULL;

	if (isnull)
		return tup;
	doc = DatumGetJsonbP(d);
	if (keycol > 0)
	{
		Datum k = heap_getattr(tup, keycol, desc, &isnull);

		if (!isnull)
			key = TextDatumGetCString(k);
	}
	cur = DocmodelMigrateIn(doc, NULL, key, fs, scope);
	if (cur == doc)
		return tup;
	values[0] = JsonbPGetDatum(cur);
	cols[0] = doccol;
	return heap_modify_tuple_by_cols(tup, desc, 1, cols, values, nulls);
}

/* ---------------------------------------------------------------------
 * SQL-callable functions
 * ---------------------------------------------------------------------
 */

/*
 * The fields of the collection named by argument argno, in the overloads
 * that take one (coll regclass: migration_plan and migrate_collection
 * pass it), else NULL: any meta style. *none: an xattrs collection, whose
 * bodies carry no fields (they are always current).
 */
static const DocFieldSet *
ArgFields(FunctionCallInfo fcinfo, int argno, bool *none)
{
	const DocmodelCollection *cfg;

	*none = false;
	if (PG_NARGS() <= argno || PG_ARGISNULL(argno))
		return NULL;
	cfg = DocmodelCollectionOf(PG_GETARG_OID(argno));
	*none = cfg->xattrs;
	return cfg->fs; /* never freed (fields.c) */
}

/*
 * The scope of the rules for the collection named by argument argno (its
 * collection_config id), or 0 (no collection: the global rules).
 */
static int32
ArgScope(FunctionCallInfo fcinfo, int argno)
{
	if (PG_NARGS() <= argno || PG_ARGISNULL(argno))
		return 0;
	return DocmodelCollectionOf(PG_GETARG_OID(argno))->id;
}

/* DocmodelFieldsFind() of doc in fs, or in any meta style (fs NULL). */
static inline bool
FindFieldsOf(Jsonb *doc, const DocFieldSet *fs, DocFields *f)
{
	return fs ? DocmodelFieldsFindIn(doc, fs, f)
			  : DocmodelFieldsFind(doc, DOC_META_AUTO, f);
}

/*
 * migrate(doc jsonb, target version DEFAULT NULL) -> jsonb,
 * migrate(doc, target, coll regclass) reading the fields where coll keeps
 * them, and _migrate_doc(doc, target, key text [, coll]) whose errors name
 * key. collarg: the argument number of coll in these overloads.
 */
static inline Datum
MigrateArg(FunctionCallInfo fcinfo, const char *key, int collarg)
{
	Datum d;
	Jsonb *doc;
	Jsonb *res;
	bool none;
	const DocFieldSet *fs = ArgFields(fcinfo, collarg, &none);

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (none)
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	d = PG_GETARG_DATUM(0);
	/* a plain in-line datum needs no detoasting call */
	doc = VARATT_IS_EXTENDED(DatumGetPointer(d)) ? DatumGetJsonbP(d)
												 : (Jsonb *) DatumGetPointer(d);
	res = DocmodelMigrateIn(doc,
							PG_ARGISNULL(1) ? NULL : PG_GETARG_DOCVERSION_P(1),
							key, fs, ArgScope(fcinfo, collarg));
	if (res == doc)
		PG_RETURN_DATUM(d); /* the same datum, not a copy */
	PG_RETURN_JSONB_P(res);
}

Datum
migration_migrate(PG_FUNCTION_ARGS)
{
	return MigrateArg(fcinfo, NULL, 2);
}

Datum
migration_migrate_doc(PG_FUNCTION_ARGS)
{
	const char *key = PG_ARGISNULL(0) || PG_ARGISNULL(2)
						  ? NULL
						  : text_to_cstring(PG_GETARG_TEXT_PP(2));
	Datum d = MigrateArg(fcinfo, key, 3);
	bool none;

	/* a bulk run's output is held to its version's schema: see schema.c */
	if (!fcinfo->isnull)
		DocmodelValidateMigrated(DatumGetJsonbP(d), key,
								 ArgFields(fcinfo, 3, &none));
	return d;
}

/*
 * _plan_error(doc, key, coll) -> text: the first violation of doc migrated
 * in memory to its type's current version ("path: message"), read by coll's
 * field names, or the error of the step that cannot apply to it; NULL when
 * it is valid or has no schema (migration_plan). A step's error is a data
 * error (class 22 or 23) caught in a subtransaction, so that the plan counts
 * every document a migration would stop at instead of stopping at the
 * first; any other error (a cancel, out of memory) is raised.
 */
Datum
migration_plan_error(PG_FUNCTION_ARGS)
{
	bool none;
	const DocFieldSet *fs = ArgFields(fcinfo, 2, &none);
	const char *key;
	Jsonb *doc;
	char *volatile err = NULL;
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;

	/* an xattrs body carries no type to check */
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || none)
		PG_RETURN_NULL();
	key = text_to_cstring(PG_GETARG_TEXT_PP(1));
	doc = PG_GETARG_JSONB_P(0);
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		/* every rule, inactive ones too: what switching them on would do */
		err = DocmodelFirstViolation(
			MigrateIn(doc, NULL, key, fs, ArgScope(fcinfo, 2), true), key, fs);
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		ErrorData *edata;
		int category;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		category = ERRCODE_TO_CATEGORY(edata->sqlerrcode);
		if (category != ERRCODE_DATA_EXCEPTION &&
			category != ERRCODE_INTEGRITY_CONSTRAINT_VIOLATION)
			ReThrowError(edata);
		err = psprintf("%s (SQLSTATE %s)", edata->message,
					   unpack_sql_state(edata->sqlerrcode));
		FreeErrorData(edata);
	}
	PG_END_TRY();
	if (err == NULL)
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(err));
}

/*
 * current_version(doc_type text [, coll regclass]) -> version, and
 * _migration_target(doc_type, coll, planned boolean): the newest version
 * the type's chain reaches (in coll: its own rules, else the global ones;
 * planned: inactive rules too); NULL without migrations.
 */
Datum
migration_current_version(PG_FUNCTION_ARGS)
{
	text *t;
	TypeRules *tr;
	DocVersion *v;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	t = PG_GETARG_TEXT_PP(0);
	tr = LookupRules(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), ArgScope(fcinfo, 1),
					 PG_NARGS() > 2 && !PG_ARGISNULL(2) && PG_GETARG_BOOL(2));

	if (tr == NULL)
		PG_RETURN_NULL();
	v = DocmodelVersionFromCString(tr->current_text, true);
	PG_RETURN_DOCVERSION_P(v);
}

/*
 * _migration_pending(doc, doc_type, target[, coll]) -> boolean: would
 * migrate() change this document (of type doc_type when given; in coll's
 * fields when given)? A document whose version cannot be read counts as
 * pending, so migrating it raises the error with its key.
 */
Datum
migration_pending(PG_FUNCTION_ARGS)
{
	Jsonb *doc;
	DocFields f;
	TypeRules *tr;
	const DocVersion *v;
	const DocVersion *tgt;
	bool none;
	const DocFieldSet *fs = ArgFields(fcinfo, 3, &none);

	if (PG_ARGISNULL(0) || none)
		PG_RETURN_BOOL(false);
	doc = PG_GETARG_JSONB_P(0);
	if (!FindFieldsOf(doc, fs, &f))
		PG_RETURN_BOOL(false);
	if (!PG_ARGISNULL(1))
	{
		text *t = PG_GETARG_TEXT_PP(1);

		if (VARSIZE_ANY_EXHDR(t) != f.typelen ||
			memcmp(VARDATA_ANY(t), f.type, f.typelen) != 0)
			PG_RETURN_BOOL(false);
	}
	tr = LookupRules(f.type, f.typelen, ArgScope(fcinfo, 3), false);
	if (tr == NULL)
		PG_RETURN_BOOL(false);
	tgt = PG_ARGISNULL(2) ? tr->current : PG_GETARG_DOCVERSION_P(2);
	if (!f.has_version)
		v = tr->oldest;
	else if (PG_ARGISNULL(2) && f.versionlen == tr->current_len &&
			 memcmp(f.version, tr->current_text, f.versionlen) == 0)
		PG_RETURN_BOOL(false);
	else if (!f.version_ok ||
			 (v = DocmodelVersionFromCString(pnstrdup(f.version, f.versionlen),
											 false)) == NULL)
		PG_RETURN_BOOL(true);
	PG_RETURN_BOOL(DocmodelVersionCmp(v, tgt) < 0);
}

/*
 * _migration_steps(doc_type, version, target [, coll, planned]) -> integer:
 * how many steps take a document of that version (NULL: the oldest) to
 * target (NULL: the current version); a fn rule counts as one. In coll:
 * its own rules, else the global ones; planned: inactive rules too. NULL
 * when the type has no migrations or no chain starts at version; 22023 for
 * an unreachable target.
 */
Datum
migration_steps(PG_FUNCTION_ARGS)
{
	text *t;
	TypeRules *tr;
	const DocVersion *v;
	const DocVersion *tgt;
	int n = 0;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	t = PG_GETARG_TEXT_PP(0);
	tr = LookupRules(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), ArgScope(fcinfo, 3),
					 PG_NARGS() > 4 && !PG_ARGISNULL(4) && PG_GETARG_BOOL(4));
	if (tr == NULL)
		PG_RETURN_NULL();
	v = PG_ARGISNULL(1) ? tr->oldest : PG_GETARG_DOCVERSION_P(1);
	tgt = PG_ARGISNULL(2) ? tr->current : PG_GETARG_DOCVERSION_P(2);
	if (!PG_ARGISNULL(2))
		CheckTarget(tr, tgt);
	while (DocmodelVersionCmp(v, tgt) < 0)
	{
		Rule *r = FindRuleFrom(tr, v);

		CHECK_FOR_INTERRUPTS();
		if (r == NULL)
			PG_RETURN_NULL();
		n += r->is_fn ? 1 : r->nsteps;
		v = r->to;
	}
	PG_RETURN_INT32(n);
}

/*
 * Find the fields of _doc_type's and _doc_version's document (argument 0;
 * in the fields of collection argument 1 when given); false when there is
 * no document or no type field.
 */
static bool
ArgDocFields(FunctionCallInfo fcinfo, DocFields *f)
{
	bool none;
	const DocFieldSet *fs = ArgFields(fcinfo, 1, &none);

	return !PG_ARGISNULL(0) && !none &&
		   FindFieldsOf(PG_GETARG_JSONB_P(0), fs, f);
}

/* _doc_type(doc[, coll]) -> text: the type field, whichever meta style
 * (in coll's fields when given) */
Datum
migration_doc_type(PG_FUNCTION_ARGS)
{
	DocFields f;

	if (!ArgDocFields(fcinfo, &f))
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text_with_len(f.type, f.typelen));
}

/* _doc_version(doc[, coll]) -> version: the schema field (22P02 when bad) */
Datum
migration_doc_version(PG_FUNCTION_ARGS)
{
	DocFields f;

	if (!ArgDocFields(fcinfo, &f) || !f.has_version)
		PG_RETURN_NULL();
	PG_RETURN_DOCVERSION_P(DocmodelFieldsParseVersion(&f, NULL));
}

/*
 * _check_write_rule_steps(steps jsonb): raise 22023 when a step is bad or
 * not one a write rule may hold.
 */
Datum
migration_check_write_rule_steps(PG_FUNCTION_ARGS)
{
	int n;
	Step *steps = DocmodelStepsCheck(PG_GETARG_JSONB_P(0), &n);

	DocmodelStepsCheckWriteRule(steps, n);
	PG_RETURN_VOID();
}

/* _check_migration_steps(steps jsonb): raise 22023 when a step is bad */
Datum
migration_check_steps(PG_FUNCTION_ARGS)
{
	int n;

	DocmodelStepsCheck(PG_GETARG_JSONB_P(0), &n);
	PG_RETURN_VOID();
}

/* Statement trigger on the registry: tell every backend's cache. */
Datum
migration_rules_changed(PG_FUNCTION_ARGS)
{
	return DocmodelCatalogChanged(fcinfo, "migration_rules_changed");
}
