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
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "collection/config.h"
#include "docmodel.h"
#include "collection/fields.h"
#include "json/patch.h"
#include "json/tree.h"
#include "migrate/kept.h"
#include "migrate/migrate.h"
#include "migrate/versions.h"
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
	/* the way down (to -> from): derived steps, a function, or none */
	bool has_down;
	Step *down;
	int ndown;
	bool down_is_fn;
	char *down_fn_text;
	Oid down_fn_oid;
	FmgrInfo down_flinfo;
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
PG_FUNCTION_INFO_V1(migration_rules_changed);
PG_FUNCTION_INFO_V1(migration_kept);

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

/* Return the rule of tr whose to version equals v, or NULL. */
static Rule *
FindRuleTo(TypeRules *tr, const DocVersion *v)
{
	int i;

	for (i = tr->nrules - 1; i >= 0; i--)
		if (DocmodelVersionCmp(tr->rules[i].to, v) == 0)
			return &tr->rules[i];
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

	ret = SPI_execute(
		"SELECT pg_catalog.to_regprocedure("
		"'docmodel._migration_fn(pg_catalog.text, "
		"docmodel.version, pg_catalog.int4, pg_catalog.bool)') IS NOT NULL",
		true, 1);
	if (ret != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "looking up docmodel._migration_fn failed: %d", ret);
	migrate_sql_has_pins = DatumGetBool(SPI_getbinval(
		SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	/* collection_id and active: absent under the 0.1.0 schema */
#define RULES_SQL(pin, down)                                              \
	"SELECT doc_type, from_version::pg_catalog.text, "                    \
	"to_version::pg_catalog.text, steps, fn, " pin ", "                   \
	"(pg_catalog.to_jsonb(r) OPERATOR(pg_catalog.->>) 'collection_id')"   \
	"::pg_catalog.int4, "                                                 \
	"COALESCE((pg_catalog.to_jsonb(r) OPERATOR(pg_catalog.->>) 'active')" \
	"::pg_catalog.bool, true), " down " "                                 \
	"FROM docmodel.migration_rules AS r ORDER BY doc_type, from_version"
	ret = SPI_execute(
		migrate_sql_has_pins
			? RULES_SQL("docmodel._migration_fn(doc_type, from_version, "
						"collection_id)",
						"r.down_steps, r.down_fn, "
						"docmodel._migration_fn(doc_type, from_version, "
						"collection_id, true)")
			: RULES_SQL("NULL::pg_catalog.oid",
						"NULL::pg_catalog.jsonb, NULL::pg_catalog.text, "
						"NULL::pg_catalog.oid"),
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
	d = SPI_getbinval(tup, td, 9, &isnull);
	if (!isnull)
	{
		r->has_down = true;
		r->down = DocmodelStepsCheck(DatumGetJsonbPCopy(d), &r->ndown);
	}
	else if ((r->down_fn_text = SPI_getvalue(tup, td, 10)) != NULL)
	{
		r->has_down = true;
		r->down_is_fn = true;
		d = SPI_getbinval(tup, td, 11, &isnull);
		r->down_fn_oid = isnull ? InvalidOid : DatumGetObjectId(d);
		if (OidIsValid(r->down_fn_oid))
			fmgr_info_cxt(r->down_fn_oid, &r->down_flinfo, cxt);
	}
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

/* Call a rule's jsonb -> jsonb function (its way up, or down) on a document. */
static Jsonb *
CallRuleFn(ApplyCx *cx, Rule *r, bool down, Jsonb *doc)
{
	Oid oid = down ? r->down_fn_oid : r->fn_oid;
	const char *text = down ? r->down_fn_text : r->fn_text;
	Datum d;
	Jsonb *res;
	LOCAL_FCINFO(fcinfo, 1);

	if (!OidIsValid(oid) && !migrate_sql_has_pins)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("migration function %s is not pinned", text),
				 errdetail("Type \"%s\", migration %s to %s. The extension's "
						   "SQL objects are those of docmodel 0.1.0.",
						   cx->type, cx->from, cx->to),
				 errhint("Run ALTER EXTENSION docmodel UPDATE.")));
	if (!OidIsValid(oid))
		ereport(
			ERROR,
			(errcode(ERRCODE_UNDEFINED_FUNCTION),
			 errmsg("migration function %s does not exist", text),
			 errdetail("Type \"%s\", migration %s to %s.", cx->type, cx->from,
					   cx->to),
			 errhint(
				 "Register the migration again with an existing function.")));
	InitFunctionCallInfoData(*fcinfo, down ? &r->down_flinfo : &r->flinfo, 1,
							 InvalidOid, NULL, NULL);
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
		ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
						errmsg("migration function %s returned null", text),
						RuleDetail(cx)));
	res = DatumGetJsonbP(d);
	if (!JB_ROOT_IS_OBJECT(res))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("migration function %s did not return an object", text),
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

/* Set up cx and its error context for a chain of tr over doc. */
static void
ChainBegin(ApplyCx *cx, ErrorContextCallback *errcb, TypeRules *tr, Jsonb *doc,
		   const char *key)
{
	memset(cx, 0, sizeof(ApplyCx));
	cx->key = key;
	cx->type = tr->key.name;
	cx->prefix = "";
	cx->room = JSONTREE_MAX_BYTES - Min(VARSIZE(doc), JSONTREE_MAX_BYTES);
	errcb->callback = DocmodelStepsErrorContext;
	errcb->arg = cx;
	errcb->previous = error_context_stack;
	error_context_stack = errcb;
}

/* Apply rule r's way up to the tree at *tree (a fn rule rebuilds it). */
static void
RuleUp(ApplyCx *cx, TypeRules *tr, Rule *r, JsonbValue *tree,
	   const DocFieldSet *fs)
{
	cx->from = r->from_text;
	cx->to = r->to_text;
	cx->fn = r->is_fn ? r->fn_text : NULL;
	if (r->is_fn)
		DocmodelJsonTreeFromJsonb(
			CallRuleFn(cx, r, false, DocmodelJsonTreeToJsonb(tree)), tree);
	else
		DocmodelStepsApply(cx, r->steps, r->nsteps, tree);
	DocmodelJsonTreeExpand(tree);
	if (tree->type != jbvObject)
		ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
						errmsg("migration of type \"%s\" from %s to %s did "
							   "not leave an object",
							   tr->key.name, r->from_text, r->to_text)));
	DocmodelSetVersion(tree, fs, r->to_text);
}

/* Apply rule r's way down (it has one) to the tree at *tree. */
static void
RuleDown(ApplyCx *cx, TypeRules *tr, Rule *r, JsonbValue *tree,
		 const DocFieldSet *fs)
{
	cx->from = r->to_text;
	cx->to = r->from_text;
	cx->fn = r->down_is_fn ? r->down_fn_text : NULL;
	if (r->down_is_fn)
		DocmodelJsonTreeFromJsonb(
			CallRuleFn(cx, r, true, DocmodelJsonTreeToJsonb(tree)), tree);
	else
		DocmodelStepsApply(cx, r->down, r->ndown, tree);
	DocmodelJsonTreeExpand(tree);
	if (tree->type != jbvObject)
		ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
						errmsg("migration of type \"%s\" from %s down to "
							   "%s did not leave an object",
							   tr->key.name, r->to_text, r->from_text)));
	DocmodelSetVersion(tree, fs, r->from_text);
}

/*
 * Rule r's way up of the tree at *tree, and what its way down kept (ops)
 * put back: only when every operation still fits, and when the older
 * version then reads what it wrote (the way down of the result gives the
 * document before, or what the way up alone would have given it): so a
 * value an older writer changed or removed is never brought back over it.
 */
static void
PutBack(ApplyCx *cx, TypeRules *tr, Rule *r, JsonbValue *tree,
		const DocFieldSet *fs, JsonbValue *ops)
{
	JsonbValue before = DocmodelJsonTreeCopy(tree);
	JsonbValue plain;
	JsonbValue seen;
	JsonbValue plain_seen;

	RuleUp(cx, tr, r, tree, fs);
	plain = DocmodelJsonTreeCopy(tree);
	if (!DocmodelJsonPatchApplyGuarded(tree, ops) || !r->has_down)
		return;
	seen = DocmodelJsonTreeCopy(tree);
	RuleDown(cx, tr, r, &seen, fs);
	if (DocmodelJsonTreeEqual(&seen, &before))
		return;
	plain_seen = DocmodelJsonTreeCopy(&plain);
	RuleDown(cx, tr, r, &plain_seen, fs);
	if (!DocmodelJsonTreeEqual(&seen, &plain_seen))
		*tree = plain;
}

/*
 * Apply the rules of tr to doc, from version v up to tgt, and return the
 * new document. fs (a resolved description, not AUTO's) says where the
 * schema field goes. What a way down kept (the document's "_kept", and
 * extra: the complement of the stored document a write replaces) is put
 * back after each rule it belongs to, where the document still holds what
 * the way down left.
 */
static Jsonb *
ApplyChain(Jsonb *doc, TypeRules *tr, const DocFieldSet *fs,
		   const DocVersion *v, const DocVersion *tgt, const char *key,
		   JsonbValue *extra)
{
	JsonbValue tree;
	JsonbValue *kept;
	ApplyCx cx;
	ErrorContextCallback errcb;
	Jsonb *res;
	int k;

	ChainBegin(&cx, &errcb, tr, doc, key);
	DocmodelJsonTreeFromJsonb(doc, &tree);
	kept = DocmodelMergeKept(DocmodelTakeKept(&tree, fs), extra);
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
		k = kept ? DocmodelJsonTreeFindMember(kept, r->to_text,
											  strlen(r->to_text))
				 : -1;
		if (k >= 0)
		{
			PutBack(&cx, tr, r, &tree, fs, &kept->val.object.pairs[k].value);
			DocmodelJsonTreeRemoveAt(kept, k);
		}
		else
			RuleUp(&cx, tr, r, &tree, fs);
		v = r->to;
	}
	DocmodelPutKept(&tree, fs, kept);
	res = DocmodelJsonTreeToJsonb(&tree);
	error_context_stack = errcb.previous;
	return res;
}

/*
 * Take doc down the chain tr (every rule, inactive ones too) from version
 * v to tgt, by each rule's way down. With keep, what a way down drops is
 * kept: for each rule, the guarded diff from the document its way up
 * would give back to the one it had, under "_kept" (by the rule's to
 * version), so that going up again restores it; *kept_out (when not NULL)
 * gets that object, and the document keeps it only with keep_in_doc.
 * A rule without a way down is 0A000.
 */
static Jsonb *
ApplyDown(Jsonb *doc, TypeRules *tr, const DocFieldSet *fs, const DocVersion *v,
		  const DocVersion *tgt, const char *key, bool keep, bool keep_in_doc,
		  JsonbValue **kept_out)
{
	JsonbValue tree;
	JsonbValue kept;
	ApplyCx cx;
	ErrorContextCallback errcb;
	Jsonb *res;

	ChainBegin(&cx, &errcb, tr, doc, key);
	DocmodelJsonTreeFromJsonb(doc, &tree);
	kept.type = jbvObject;
	kept.val.object.nPairs = 0;
	kept.val.object.pairs = NULL;
	while (DocmodelVersionCmp(v, tgt) > 0)
	{
		Rule *r = FindRuleTo(tr, v);
		JsonbValue before;

		CHECK_FOR_INTERRUPTS();
		cx.from = cx.to = cx.fn = NULL;
		if (r == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("no migration of type \"%s\" goes to version %s",
							tr->key.name, DocmodelVersionToCString(v)),
					 key ? errdetail("Key \"%s\".", key) : 0));
		if (!r->has_down)
			ereport(
				ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the migration of type \"%s\" from %s to %s is "
						"one-way",
						tr->key.name, r->from_text, r->to_text),
				 key ? errdetail("Key \"%s\" is at version %s; going to "
								 "version %s needs its way down.",
								 key, r->to_text, DocmodelVersionToCString(tgt))
					 : errdetail("Going to version %s needs its way down.",
								 DocmodelVersionToCString(tgt)),
				 errhint("Register the rule again with steps that have "
						 "inverses (see docmodel.step_inverses) or with "
						 "down_fn.")));
		if (keep)
			before = DocmodelJsonTreeCopy(&tree);
		RuleDown(&cx, tr, r, &tree, fs);
		if (keep)
		{
			JsonbValue base = DocmodelJsonTreeCopy(&tree);
			JsonbValue ops;

			RuleUp(&cx, tr, r, &base, fs);
			ops = DocmodelJsonDiffTrees(&base, &before, true);
			if (ops.val.array.nElems > 0)
				DocmodelJsonTreeSetMember(&kept, r->to_text, strlen(r->to_text),
										  &ops);
		}
		v = r->from;
	}
	if (kept_out)
		*kept_out =
			kept.val.object.nPairs > 0 ? DocmodelJsonTreeBuild(&kept) : NULL;
	if (keep_in_doc && kept.val.object.nPairs > 0)
		DocmodelPutKept(&tree, fs,
						DocmodelMergeKept(DocmodelTakeKept(&tree, fs), &kept));
	res = DocmodelJsonTreeToJsonb(&tree);
	error_context_stack = errcb.previous;
	return res;
}

/*
 * DocmodelMigrateIn, with the active or (planned) every rule; session:
 * a NULL target is the version the session reads the type at; keep: a
 * way down keeps what it drops in the document.
 */
static Jsonb *
MigrateIn(Jsonb *doc, const DocVersion *target, const char *key,
		  const DocFieldSet *fs, int32 scope, bool planned, bool session,
		  bool keep)
{
	DocFields f;
	TypeRules *tr;
	TypeRules *all;
	const DocVersion *v;
	const DocVersion *tgt;
	const char *sv = NULL;

	/* no type has rules: no need to read the document's fields */
	if (!migrate_cache_valid)
		LoadCache();
	if (migrate_ntypes == 0)
		return doc;
	if (!(fs ? DocmodelFieldsFindIn(doc, fs, &f)
			 : DocmodelFieldsFind(doc, DOC_META_AUTO, &f)))
		return doc;
	tr = LookupRules(f.type, f.typelen, scope, planned);
	if (tr == NULL && target != NULL)
	{
		/* every rule switched off: only a way down to target is left */
		all = LookupRules(f.type, f.typelen, scope, true);
		if (all == NULL || !f.has_version)
			return doc;
		v = DocmodelFieldsParseVersion(&f, key);
		if (DocmodelVersionCmp(v, target) <= 0 || FindRuleTo(all, v) == NULL)
			return doc;
		CheckTarget(all, target);
		return ApplyDown(doc, all, f.set, v, target, key, keep, keep, NULL);
	}
	if (tr == NULL)
		return doc;
	if (session && target == NULL)
		sv = DocmodelSessionVersion(f.type, f.typelen);

	/* The fast path: a current document comes back as it is. */
	if (f.has_version && target == NULL && sv == NULL &&
		f.versionlen == tr->current_len &&
		memcmp(f.version, tr->current_text, f.versionlen) == 0)
		return doc;

	if (sv != NULL)
		target = DocmodelVersionFromCString(sv, true);
	tgt = target ? target : tr->current;
	v = f.has_version ? DocmodelFieldsParseVersion(&f, key) : tr->oldest;
	if (DocmodelVersionCmp(v, tgt) == 0)
		return doc;
	if (DocmodelVersionCmp(v, tgt) < 0)
	{
		if (target)
			CheckTarget(tr, target);
		return ApplyChain(doc, tr, f.set, v, tgt, key, NULL);
	}
	/* newer than the target: down, when the registry knows the version */
	all = planned ? tr : LookupRules(f.type, f.typelen, scope, true);
	if (FindRuleTo(all, v) == NULL)
		return doc; /* newer than we know: keep it */
	CheckTarget(all, tgt);
	return ApplyDown(doc, all, f.set, v, tgt, key, keep, keep, NULL);
}

Jsonb *
DocmodelMigrateIn(Jsonb *doc, const DocVersion *target, const char *key,
				  const DocFieldSet *fs, int32 scope)
{
	return MigrateIn(doc, target, key, fs, scope, false, target == NULL, false);
}

/*
 * Whether every rule of chain tr from version lo up to hi has a way down
 * (and hi is a version of it).
 */
static bool
ReversibleBetween(TypeRules *tr, const DocVersion *lo, const DocVersion *hi)
{
	while (DocmodelVersionCmp(hi, lo) > 0)
	{
		Rule *r = FindRuleTo(tr, hi);

		if (r == NULL || !r->has_down)
			return false;
		hi = r->from;
	}
	return true;
}

/*
 * The complement of the stored document old (of type, at a version newer
 * than v) for a write at version v: what the ways down from old's version
 * to v drop, with what old kept itself; NULL when there is nothing. A
 * one-way rule on the way keeps nothing: the write goes up as it is.
 */
static JsonbValue *
StoredComplement(Jsonb *old, TypeRules *all, const DocFieldSet *fs,
				 const char *type, int type_len, const DocVersion *v,
				 const char *key)
{
	DocFields f;
	JsonbValue tree;
	JsonbValue *own;
	JsonbValue *kept = NULL;
	const DocVersion *ov;

	if (old == NULL || !JB_ROOT_IS_OBJECT(old) ||
		!DocmodelFieldsFindIn(old, fs, &f) || !f.has_version ||
		f.typelen != type_len || memcmp(f.type, type, type_len) != 0 ||
		!f.version_ok)
		return NULL;
	ov = DocmodelVersionFromCString(pnstrdup(f.version, f.versionlen), false);
	if (ov != NULL && DocmodelVersionCmp(ov, v) > 0 &&
		ReversibleBetween(all, v, ov))
		(void) ApplyDown(old, all, fs, ov, v, key, true, false, &kept);
	DocmodelJsonTreeFromJsonb(old, &tree);
	own = DocmodelTakeKept(&tree, fs);
	return DocmodelMergeKept(own, kept);
}

Jsonb *
DocmodelMigrateOnWrite(Jsonb *body, Jsonb *old, const char *type, int type_len,
					   const DocFieldSet *fs, int32 scope, const char *key,
					   int key_len, JsonbValue **schema)
{
	DocFields f;
	TypeRules *tr;
	TypeRules *all;
	const DocVersion *v;
	char *keyz;
	JsonbValue *sv;
	const char *session;
	int cmp;

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
	session = f.has_version ? NULL : DocmodelSessionVersion(type, type_len);
	/* current, and nothing kept by the stored document to carry: as it is */
	if (f.has_version && f.versionlen == tr->current_len &&
		memcmp(f.version, tr->current_text, f.versionlen) == 0 &&
		!DocmodelHasKept(old, fs))
		return body;
	sv = palloc(sizeof(JsonbValue));
	*sv = DocmodelJsonTreeString(pstrdup(tr->current_text),
								 strlen(tr->current_text));
	keyz = pnstrdup(key, key_len);
	if (f.has_version)
		v = DocmodelFieldsParseVersion(&f, keyz);
	else if (session != NULL)
		v = DocmodelVersionFromCString(session, true);
	else
	{
		/* a new shape written without a version is the current one */
		v = tr->current;
	}
	cmp = DocmodelVersionCmp(v, tr->current);
	all = LookupRules(type, type_len, scope, true);
	if (cmp == 0)
	{
		JsonbValue tree;
		JsonbValue *kept;

		if (!f.has_version)
			*schema = sv;
		/*
		 * A write at the version of the stored document keeps what the
		 * stored one kept (a release writing a whole document it read).
		 */
		if (old == NULL || !JB_ROOT_IS_OBJECT(old) ||
			!DocmodelFieldsFindIn(old, fs, &f) || !f.has_version ||
			f.versionlen != tr->current_len ||
			memcmp(f.version, tr->current_text, f.versionlen) != 0)
			return body;
		DocmodelJsonTreeFromJsonb(old, &tree);
		kept = DocmodelTakeKept(&tree, fs);
		if (kept == NULL)
			return body;
		DocmodelJsonTreeFromJsonb(body, &tree);
		kept = DocmodelMergeKept(kept, DocmodelTakeKept(&tree, fs));
		DocmodelPutKept(&tree, fs, kept);
		return DocmodelJsonTreeToJsonb(&tree);
	}
	if (cmp > 0)
	{
		/* newer than the current version: down, keeping what it drops */
		if (FindRuleTo(all, v) == NULL)
			return body; /* newer than we know: keep it */
		*schema = sv;
		return ApplyDown(body, all, fs, v, tr->current, keyz, true, true, NULL);
	}
	*schema = sv;
	if (!f.has_version)
	{
		/* the session's version: stamp it, then go up from it */
		JsonbValue tree;

		DocmodelJsonTreeFromJsonb(body, &tree);
		DocmodelSetVersion(&tree, fs, session);
		body = DocmodelJsonTreeToJsonb(&tree);
	}
	return ApplyChain(body, tr, fs, v, tr->current, keyz,
					  StoredComplement(old, all, fs, type, type_len, v, keyz));
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
	/* the target asked (never the session's); a bulk run (_migrate_doc,
	 * collarg 3) going down keeps what it drops */
	res =
		MigrateIn(doc, PG_ARGISNULL(1) ? NULL : PG_GETARG_DOCVERSION_P(1), key,
				  fs, ArgScope(fcinfo, collarg), false, false, collarg == 3);
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
		err = DocmodelFirstViolation(MigrateIn(doc, NULL, key, fs,
											   ArgScope(fcinfo, 2), true, false,
											   false),
									 key, fs);
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
	if (tr == NULL && !PG_ARGISNULL(2))
		tr = LookupRules(f.type, f.typelen, ArgScope(fcinfo, 3), true);
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
	if (DocmodelVersionCmp(v, tgt) < 0)
		PG_RETURN_BOOL(true);
	/* newer than the target: pending when the registry can take it down */
	if (DocmodelVersionCmp(v, tgt) > 0)
	{
		TypeRules *all =
			LookupRules(f.type, f.typelen, ArgScope(fcinfo, 3), true);

		PG_RETURN_BOOL(all != NULL && FindRuleTo(all, v) != NULL);
	}
	PG_RETURN_BOOL(false);
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
	if (DocmodelVersionCmp(v, tgt) > 0)
	{
		/* down: every rule, inactive ones too; NULL when one is one-way */
		tr = LookupRules(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t),
						 ArgScope(fcinfo, 3), true);
		if (!PG_ARGISNULL(2))
			CheckTarget(tr, tgt);
		while (DocmodelVersionCmp(v, tgt) > 0)
		{
			Rule *r = FindRuleTo(tr, v);

			CHECK_FOR_INTERRUPTS();
			if (r == NULL || !r->has_down)
				PG_RETURN_NULL();
			n += r->down_is_fn ? 1 : r->ndown;
			v = r->from;
		}
		PG_RETURN_INT32(n);
	}
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

/* Statement trigger on the registry: tell every backend's cache. */
Datum
migration_rules_changed(PG_FUNCTION_ARGS)
{
	return DocmodelCatalogChanged(fcinfo, "migration_rules_changed");
}

/*
 * _migration_kept(doc, target, coll) -> jsonb: what taking doc down to
 * target would keep (the "_kept" complement it would get), NULL when
 * nothing (not above target, a version the registry does not know, or a
 * one-way rule on the way). For migration_plan.
 */
Datum
migration_kept(PG_FUNCTION_ARGS)
{
	bool none;
	const DocFieldSet *fs = ArgFields(fcinfo, 2, &none);
	Jsonb *doc;
	DocFields f;
	TypeRules *tr;
	const DocVersion *v;
	const DocVersion *tgt;
	JsonbValue *kept = NULL;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || none)
		PG_RETURN_NULL();
	doc = PG_GETARG_JSONB_P(0);
	tgt = PG_GETARG_DOCVERSION_P(1);
	if (!FindFieldsOf(doc, fs, &f) || !f.has_version || !f.version_ok)
		PG_RETURN_NULL();
	tr = LookupRules(f.type, f.typelen, ArgScope(fcinfo, 2), true);
	v = DocmodelVersionFromCString(pnstrdup(f.version, f.versionlen), false);
	if (tr == NULL || v == NULL || DocmodelVersionCmp(v, tgt) <= 0)
		PG_RETURN_NULL();
	if (!ReversibleBetween(tr, tgt, v))
		PG_RETURN_NULL();
	(void) ApplyDown(doc, tr, f.set, v, tgt, NULL, true, false, &kept);
	if (kept == NULL)
		PG_RETURN_NULL();
	PG_RETURN_JSONB_P(DocmodelJsonTreeToJsonb(kept));
}
