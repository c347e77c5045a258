/*-------------------------------------------------------------------------
 *
 * mapping/relational.c
 *	  The triggers of the relational path, in C since they run per
 *	  statement or row: live projections (projection_trigger) and lookups
 *	  (lookup_trigger, get_by, lookup_coll). The mappings themselves are set-up functions in SQL
 *	  (sql/parts/80_mapping.sql) that generate one
 *	  query per mapping. Backend-local: TriggerPlanCache, the statements of
 *	  projection and lookup triggers prepared once, from the mapping (a
 *	  projection's is made by docmodel._projection_sql, never read from a
 *	  table) and the current names, and dropped when a relation they reach,
 *	  a schema or a mapping table changes. No shared state.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "catalog/pg_namespace.h"
#include "nodes/makefuncs.h"
#include "parser/parse_func.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/jsonb.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/rel.h"
#include "utils/timestamp.h"

#include "docmodel.h"
#include "collection/columns.h"
#include "collection/config.h"
#include "collection/kv.h"
#include "json/pointer.h"
#include "collection/key.h"
#include "json/tree.h"
#include "json/util.h"
#include "mapping/convert.h"
#include "mapping/relational.h"
#include "catalog.h"
#include "collection/layout.h"

PG_FUNCTION_INFO_V1(mapping_projection_trigger);
PG_FUNCTION_INFO_V1(mapping_lookup_trigger);
PG_FUNCTION_INFO_V1(mapping_lookup_coll);
PG_FUNCTION_INFO_V1(mapping_get_by);
PG_FUNCTION_INFO_V1(mapping_mappings_changed);

/*
 * Statement plans of docmodel's generated triggers (live projections,
 * lookups), prepared once per backend and trigger from the qualified names
 * of the relations they reach, and checked to reach those relations' OIDs
 * (DocmodelCheckPlanTargets). An entry is stale when the relcache entry of
 * its table or of any relation its statements reach is invalidated (a
 * trigger created or dropped, a table altered or renamed), when a schema
 * changes (docmodel.c's NamedPlanSubscribers), and, for projections, when
 * a mapping table changes (their statement trigger, _mappings_changed):
 * it is prepared again from the current names and mapping.
 */
#define MAX_TRIGGER_PLANS 3

typedef struct TriggerPlans
{
	Oid tgoid; /* hash key: the trigger */
	Oid relid; /* the table it fires on */
	bool valid;
	bool projection; /* made from a mapping */
	int nrels;       /* the relations its statements may reach */
	Oid *rels;       /* (in TopMemoryContext) */
	SPIPlanPtr plans[MAX_TRIGGER_PLANS];
} TriggerPlans;

static HTAB *TriggerPlanCache = NULL;

/* docmodel.mappings, mapping_parts, mapping_columns, projections */
static const char *const MappingCatalogNames[] = {
	"mappings", "mapping_parts", "mapping_columns", "projections"};
static Oid MappingCatalogs[lengthof(MappingCatalogNames)];

void
DocmodelProjectionRelcache(Oid relid)
{
	HASH_SEQ_STATUS s;
	TriggerPlans *e;
	bool catalog = false;
	int i;

	if (TriggerPlanCache == NULL)
		return;
	for (i = 0; i < lengthof(MappingCatalogs); i++)
		catalog |= OidIsValid(relid) && MappingCatalogs[i] == relid;
	hash_seq_init(&s, TriggerPlanCache);
	while ((e = hash_seq_search(&s)) != NULL)
	{
		bool stale = relid == InvalidOid || e->relid == relid ||
					 (catalog && e->projection);

		for (i = 0; !stale && i < e->nrels; i++)
			stale = e->rels[i] == relid;
		if (stale)
			e->valid = false; /* freed by its next use, not while it runs */
	}
}

/*
 * _mappings_changed(): the statement trigger of the mapping tables: every
 * backend's projection statements are made again.
 */
Datum
mapping_mappings_changed(PG_FUNCTION_ARGS)
{
	return DocmodelCatalogChanged(fcinfo, "_mappings_changed");
}

/*
 * Return trigger td's plans, connected to SPI with its transition tables
 * registered; e->valid false: the caller prepares them (KeepPlan).
 */
static TriggerPlans *
TriggerPlansFor(TriggerData *td)
{
	TriggerPlans *e;
	Oid tgoid = td->tg_trigger->tgoid;
	bool found;
	int i;

	if (TriggerPlanCache == NULL)
		TriggerPlanCache =
			DocmodelHash("docmodel trigger plans", 16, sizeof(Oid),
						 sizeof(TriggerPlans), false, NULL);
	e = hash_search(TriggerPlanCache, &tgoid, HASH_ENTER, &found);
	if (!found)
	{
		e->relid = RelationGetRelid(td->tg_relation);
		e->valid = false;
		e->projection = false;
		e->nrels = 0;
		e->rels = NULL;
		memset(e->plans, 0, sizeof(e->plans));
	}
	DocmodelSpiConnect();
	if (SPI_register_trigger_data(td) != SPI_OK_TD_REGISTER)
		ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
						errmsg("registering the transition tables failed")));
	if (!e->valid)
	{
		for (i = 0; i < MAX_TRIGGER_PLANS; i++)
			if (e->plans[i] != NULL)
			{
				SPI_freeplan(e->plans[i]);
				e->plans[i] = NULL;
			}
		if (e->rels != NULL)
			pfree(e->rels);
		e->rels = NULL;
		e->nrels = 0;
	}
	return e;
}

/* Set the relations e's statements may reach (copied). */
static void
SetTargets(TriggerPlans *e, const Oid *rels, int nrels)
{
	Oid *copy =
		MemoryContextAlloc(TopMemoryContext, sizeof(Oid) * Max(nrels, 1));

	memcpy(copy, rels, sizeof(Oid) * nrels);
	e->rels = copy;
	e->nrels = nrels;
}

/*
 * Prepare sql (nargs arguments of types), check it reaches only e's
 * relations and keep it as plan i of e.
 */
static void
TriggerKeepPlan(TriggerPlans *e, int i, const char *sql, int nargs, Oid *types)
{
	SPIPlanPtr plan = SPI_prepare(sql, nargs, types);

	if (plan == NULL)
		ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
						errmsg("preparing \"%s\" failed: %s", sql,
							   SPI_result_code_string(SPI_result))));
	DocmodelCheckPlanTargets(plan, e->rels, e->nrels);
	SPI_keepplan(plan);
	e->plans[i] = plan;
}

/*
 * Prepare the statement of projection trigger td's event as plan 0: made
 * by docmodel._projection_sql from the mapping its arguments name (owner
 * OID, mapping name), which must project this table through this very
 * trigger (created by project_tables); never read from a table.
 */
static void
PrepareProjection(TriggerData *td, TriggerPlans *e)
{
	Oid types[5] = {OIDOID, TEXTOID, OIDOID, TEXTOID, OIDOID};
	Datum values[5];
	const char *event = TRIGGER_FIRED_BY_INSERT(td->tg_event)   ? "insert"
						: TRIGGER_FIRED_BY_UPDATE(td->tg_event) ? "update"
																: "delete";
	Oid nsp = get_namespace_oid("docmodel", false);
	char *sql;
	Datum rels;
	bool isnull;
	Datum *elems;
	int nelems;
	Oid *oids;
	int i;

	for (i = 0; i < lengthof(MappingCatalogs); i++)
		MappingCatalogs[i] = get_relname_relid(MappingCatalogNames[i], nsp);
	e->projection = true;
	values[0] =
		DirectFunctionCall1(oidin, CStringGetDatum(td->tg_trigger->tgargs[0]));
	values[1] = CStringGetTextDatum(td->tg_trigger->tgargs[1]);
	values[2] = ObjectIdGetDatum(e->relid);
	values[3] = CStringGetTextDatum(event);
	values[4] = ObjectIdGetDatum(td->tg_trigger->tgoid);
	if (SPI_execute_with_args(
			"SELECT s.sql, s.rels FROM docmodel._projection_sql("
			"$1::pg_catalog.regrole, $2, $3, $4, $5) AS s",
			5, types, values, NULL, true, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
						errmsg("making a projection's statement failed")));
	sql = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	rels =
		SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull);
	if (sql == NULL || isnull)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("trigger %s on %s is not a projection of mapping "
						"\"%s\"",
						td->tg_trigger->tgname,
						RelationGetRelationName(td->tg_relation),
						td->tg_trigger->tgargs[1]),
				 errdetail("The mapping its arguments name does not project "
						   "this table through this trigger.")));
	deconstruct_array(DatumGetArrayTypeP(rels), OIDOID, sizeof(Oid), true,
					  TYPALIGN_INT, &elems, NULL, &nelems);
	oids = palloc(sizeof(Oid) * Max(nelems, 1));
	for (i = 0; i < nelems; i++)
		oids[i] = DatumGetObjectId(elems[i]);
	SetTargets(e, oids, nelems);
	TriggerKeepPlan(e, 0, sql, 0, NULL);
	e->valid = true;
}

/*
 * _projection_trigger(owner, mapping): the AFTER ... FOR EACH STATEMENT
 * trigger of a projected table: runs the statement that rewrites the
 * documents its transition table's rows feed.
 */
Datum
mapping_projection_trigger(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	TriggerPlans *e;

	if (!CALLED_AS_TRIGGER(fcinfo) ||
		!TRIGGER_FIRED_FOR_STATEMENT(td->tg_event) ||
		!TRIGGER_FIRED_AFTER(td->tg_event))
		DocmodelTriggerMisuse("_projection_trigger",
							  "a projection's AFTER statement trigger");
	if (td->tg_trigger->tgnargs != 2)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("trigger %s on %s is not a projection",
						td->tg_trigger->tgname,
						RelationGetRelationName(td->tg_relation)),
				 errdetail("A projection's trigger names its mapping's owner "
						   "and name.")));
	e = TriggerPlansFor(td);
	if (!e->valid)
		PrepareProjection(td, e);
	if (SPI_execute_plan(e->plans[0], NULL, NULL, false, 0) < 0)
		ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
						errmsg("a projection's statement failed")));
	SPI_finish();
	return PointerGetDatum(NULL);
}

/*
 * The lookup value of doc at path (a text[] literal): a string, or the
 * text of a number or boolean; NULL when the path holds none of these.
 */
static char *
LookupValue(Jsonb *doc, ArrayType *path)
{
	JsonbValue *v = doc ? DocmodelValueAtPath(doc, path) : NULL;

	if (v == NULL)
		return NULL;
	switch (v->type)
	{
		case jbvString:
			return pnstrdup(v->val.string.val, v->val.string.len);
		case jbvNumeric:
			return DatumGetCString(DirectFunctionCall1(
				numeric_out, NumericGetDatum(v->val.numeric)));
		case jbvBool:
			return pstrdup(v->val.boolean ? "true" : "false");
		default:
			return NULL;
	}
}

/*
 * A lookup trigger's path, parsed once per backend: the text[] and its
 * first two elements (what a stamp is recognised by), keyed by the
 * trigger's OID and checked against its argument's text (an OID used
 * again by another trigger is parsed again).
 */
typedef struct LookupPath
{
	Oid tgoid;  /* hash key */
	char *text; /* the trigger's path argument */
	ArrayType *path;
	const char *t0; /* NULL when one of the first two elements is null */
	int l0;
	const char *t1; /* NULL when it has no second (non-null) element */
	int l1;
} LookupPath;

static HTAB *LookupPaths = NULL;

static LookupPath *
LookupPathOf(Trigger *tg, const char *text)
{
	LookupPath *p;
	MemoryContext old;
	Datum *e;
	bool *nulls;
	bool found;
	int n;

	if (LookupPaths == NULL)
		LookupPaths = DocmodelHash("docmodel lookup paths", 16, sizeof(Oid),
								   sizeof(LookupPath), false, NULL);
	p = hash_search(LookupPaths, &tg->tgoid, HASH_ENTER, &found);
	if (found && p->text != NULL && strcmp(p->text, text) == 0)
		return p;
	if (found && p->text != NULL)
	{
		pfree(p->text);
		pfree(p->path);
	}
	p->text = NULL; /* (an error below leaves the entry parsed again) */
	old = MemoryContextSwitchTo(TopMemoryContext);
	p->path = DatumGetArrayTypePCopy(
		OidInputFunctionCall(F_ARRAY_IN, (char *) text, TEXTOID, -1));
	deconstruct_array(p->path, TEXTOID, -1, false, TYPALIGN_INT, &e, &nulls,
					  &n);
	MemoryContextSwitchTo(old);
	/* (a null first or second element: no stamp) */
	p->t0 =
		n > 0 && !nulls[0] && !(n > 1 && nulls[1]) ? VARDATA_ANY(e[0]) : NULL;
	p->l0 = p->t0 ? VARSIZE_ANY_EXHDR(e[0]) : 0;
	p->t1 = p->t0 && n > 1 && !nulls[1] ? VARDATA_ANY(e[1]) : NULL;
	p->l1 = p->t1 ? VARSIZE_ANY_EXHDR(e[1]) : 0;
	pfree(e);
	pfree(nulls);
	p->text = MemoryContextStrdup(TopMemoryContext, text);
	return p;
}

/*
 * Whether lookup path p of the documents of collection relid starts at a
 * stamp a meta_style 'columns' collection keeps in a column: then the
 * trigger reads the documents with their stamps merged.
 */
static bool
LookupReadsStamps(Oid relid, const LookupPath *p)
{
	const DocmodelCollection *cfg = DocmodelCollectionOf(relid);

	return cfg->columns && p->t0 != NULL &&
		   DocmodelColumnsStampAt(cfg, p->t0, p->l0, p->t1, p->l1);
}

/*
 * A lookup as create_lookup records it, in its trigger's arguments
 * (lookup_type, path, delimiter, lookup collection OID, document type or
 * ''): the lookup documents <lookup_type><delimiter><value> live in the
 * lookup collection (its delimiter), for the documents of that type only
 * when one is given.
 */
typedef struct LookupArgs
{
	const char *type;
	const char *path;
	const char *delim;
	Oid lcoll;
	const char *doc_type; /* NULL: every document */
} LookupArgs;

/* Read trigger tg's arguments; false when they are not a lookup's. */
static bool
LookupArgsOf(Trigger *tg, LookupArgs *a)
{
	const char *o;

	if (tg->tgnargs != 5)
		return false;
	o = tg->tgargs[3];
	if (*o == '\0' || strspn(o, "0123456789") != strlen(o) || strlen(o) > 10)
		return false;
	a->type = tg->tgargs[0];
	a->path = tg->tgargs[1];
	a->delim = tg->tgargs[2];
	a->lcoll = (Oid) strtoul(o, NULL, 10);
	a->doc_type = tg->tgargs[4][0] != '\0' ? tg->tgargs[4] : NULL;
	return OidIsValid(a->lcoll) && *a->type != '\0' && *a->delim != '\0';
}

/*
 * The OID of docmodel._lookup_trigger() (InvalidOid when it is gone),
 * looked up once per backend and OID of the calling function, a function
 * of the extension (created again with it, it has another OID and the
 * lookup is made again).
 */
static Oid
LookupTriggerFunction(FunctionCallInfo fcinfo)
{
	static Oid cached_caller = InvalidOid;
	static Oid cached = InvalidOid;
	Oid caller = fcinfo->flinfo->fn_oid;

	if (!OidIsValid(caller) || caller != cached_caller)
	{
		cached = LookupFuncName(
			list_make2(makeString("docmodel"), makeString("_lookup_trigger")),
			0, NULL, true);
		cached_caller = caller;
	}
	return cached;
}

/*
 * The lookup lookup_type of collection relid (its trigger
 * docmodel_lookup_<lookup_type>, a lookup's), into *a with its strings
 * copied; false when the collection has none. fcinfo: the calling
 * function's (LookupTriggerFunction).
 */
static bool
FindLookup(FunctionCallInfo fcinfo, Oid relid, const char *lookup_type,
		   LookupArgs *a)
{
	Relation rel = try_relation_open(relid, AccessShareLock);
	char *name = psprintf("docmodel_lookup_%s", lookup_type);
	Oid fn = LookupTriggerFunction(fcinfo);
	bool found = false;
	int i;

	if (rel == NULL)
		ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE),
						errmsg("relation with OID %u does not exist", relid)));
	for (i = 0; rel->trigdesc != NULL && i < rel->trigdesc->numtriggers; i++)
	{
		Trigger *tg = &rel->trigdesc->triggers[i];

		if (tg->tgfoid != fn || strcmp(tg->tgname, name) != 0 ||
			!LookupArgsOf(tg, a) || strcmp(a->type, lookup_type) != 0)
			continue;
		a->type = pstrdup(a->type);
		a->path = pstrdup(a->path);
		a->delim = pstrdup(a->delim);
		a->doc_type = a->doc_type ? pstrdup(a->doc_type) : NULL;
		found = true;
		break;
	}
	/* the lock is kept: the reads that follow take it again */
	relation_close(rel, NoLock);
	return found;
}

/*
 * _lookup_coll(coll, lookup_type) -> regclass: the collection the lookup
 * documents of lookup lookup_type of coll live in; NULL without such a
 * lookup.
 */
Datum
mapping_lookup_coll(PG_FUNCTION_ARGS)
{
	LookupArgs a;
	char *type = text_to_cstring(PG_GETARG_TEXT_PP(1));

	(void) DocmodelRequireCollection(PG_GETARG_OID(0));
	if (!FindLookup(fcinfo, PG_GETARG_OID(0), type, &a))
		PG_RETURN_NULL();
	PG_RETURN_OID(a.lcoll);
}

/*
 * get_by(coll, lookup_type, value) -> jsonb: the document of coll the
 * lookup document <lookup_type><delimiter><value> names, both read as
 * get() reads them: from the lookup's collection with its delimiter, or,
 * without a lookup of that name, from coll itself (lookup documents
 * written by hand, as Couchbase applications keep them).
 */
Datum
mapping_get_by(PG_FUNCTION_ARGS)
{
	Oid relid = PG_GETARG_OID(0);
	char *type = text_to_cstring(PG_GETARG_TEXT_PP(1));
	text *value = PG_GETARG_TEXT_PP(2);
	LookupArgs a;
	Oid lcoll = relid;
	const char *delim;
	StringInfoData lkey;
	Jsonb *ldoc;
	JsonbValue buf;
	JsonbValue *ref;
	Jsonb *doc;

	if (FindLookup(fcinfo, relid, type, &a))
	{
		lcoll = a.lcoll;
		delim = a.delim;
	}
	else
		delim = DocmodelCollectionOf(relid)->delim;
	initStringInfo(&lkey);
	appendStringInfoString(&lkey, type);
	appendStringInfoString(&lkey, delim);
	appendBinaryStringInfo(&lkey, VARDATA_ANY(value), VARSIZE_ANY_EXHDR(value));
	ldoc = DocmodelKvGet(
		lcoll, PointerGetDatum(cstring_to_text_with_len(lkey.data, lkey.len)));
	if (ldoc == NULL || !JB_ROOT_IS_OBJECT(ldoc))
		PG_RETURN_NULL();
	ref = getKeyJsonValueFromContainer(&ldoc->root, "ref", 3, &buf);
	if (ref == NULL || ref->type != jbvString)
		PG_RETURN_NULL();
	doc = DocmodelKvGet(relid, PointerGetDatum(cstring_to_text_with_len(
								   ref->val.string.val, ref->val.string.len)));
	if (doc == NULL)
		PG_RETURN_NULL();
	PG_RETURN_JSONB_P(doc);
}

/* Prepare the statements of lookup trigger e (arguments *a): delete, take
 * and read a lookup document of the lookup collection. */
static void
LookupPrepare(TriggerData *td, TriggerPlans *e, LookupArgs *a)
{
	Oid types[2] = {TEXTOID, TEXTOID};
	char *relname = get_rel_name(a->lcoll);
	char *rel;

	if (relname == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("the lookup collection of lookup \"%s\" on %s "
						"does not exist",
						a->type, RelationGetRelationName(td->tg_relation)),
				 errhint("Drop the lookup (docmodel.drop_lookup) and "
						 "create it again.")));
	DocmodelCheckLayoutOf(a->lcoll, DOCMODEL_LAYOUT_COLLECTION);
	SetTargets(e, &a->lcoll, 1);
	rel = quote_qualified_identifier(
		get_namespace_name(get_rel_namespace(a->lcoll)), relname);
	TriggerKeepPlan(e, 0,
					psprintf("DELETE FROM %s AS c WHERE c.id "
							 "OPERATOR(pg_catalog.=) $1 AND c.doc "
							 "OPERATOR(pg_catalog.->>) 'ref' "
							 "OPERATOR(pg_catalog.=) $2",
							 rel),
					2, types);
	TriggerKeepPlan(e, 1,
					psprintf("INSERT INTO %s AS c (id, doc) VALUES ($1, "
							 "pg_catalog.jsonb_build_object('ref', $2)) "
							 "ON CONFLICT (id) DO NOTHING",
							 rel),
					2, types);
	TriggerKeepPlan(
		e, 2,
		psprintf("SELECT c.doc OPERATOR(pg_catalog.->>) 'ref' "
				 "FROM %s AS c WHERE c.id OPERATOR(pg_catalog.=) $1",
				 rel),
		1, types);
	e->valid = true;
}

/*
 * Write lookup document type<delim>newv for document key (args[1]): 23505
 * when another document holds the value.
 */
static void
LookupTake(TriggerPlans *e, Datum *args, const char *type, const char *delim,
		   const char *newv, const char *key, Oid relid)
{
	char *lkey = psprintf("%s%s%s", type, delim, newv);
	char *holder;

	DocmodelCheckKey(lkey, strlen(lkey), delim, strlen(delim), true);
	args[0] = CStringGetTextDatum(lkey);
	if (SPI_execute_plan(e->plans[1], args, NULL, false, 0) < 0)
		ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
						errmsg("writing a lookup document failed")));
	if (SPI_processed == 0)
	{
		if (SPI_execute_plan(e->plans[2], args, NULL, true, 1) < 0)
			ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
							errmsg("reading a lookup document failed")));
		holder = SPI_processed == 1 ? SPI_getvalue(SPI_tuptable->vals[0],
												   SPI_tuptable->tupdesc, 1)
									: NULL;
		if (holder == NULL || strcmp(holder, key) != 0)
			ereport(
				ERROR,
				(errcode(ERRCODE_UNIQUE_VIOLATION),
				 errmsg("value \"%s\" of lookup \"%s\" is taken", newv, type),
				 errdetail("Document \"%s\" holds it (lookup "
						   "document \"%s\"); document \"%s\" "
						   "cannot have it too.",
						   holder ? holder : "?", lkey, key),
				 DocmodelErrCollection(relid, "doc"),
				 err_generic_string(PG_DIAG_CONSTRAINT_NAME,
									psprintf("docmodel_lookup_%s", type)),
				 errcouchbase("DocumentExists")));
	}
}

/*
 * The value at path of row t of collection rel when it is a document lookup
 * a indexes (of its doc_type, any when it has none, under the collection's
 * layout), else NULL. A key-typed collection's key decides before the
 * document is read; a body-typed one's body.
 */
static char *
LookupRowValue(Relation rel, const LookupArgs *a, HeapTuple t, bool stamps,
			   ArrayType *path)
{
	Oid relid = RelationGetRelid(rel);
	bool isnull;
	char *key = NULL;
	Jsonb *doc;

	if (a->doc_type != NULL)
	{
		DocmodelCollection *cfg = DocmodelCollectionOf(relid);

		key = TextDatumGetCString(heap_getattr(t, DOCMODEL_COLL_ATT_ID,
											   RelationGetDescr(rel), &isnull));
		if (!DOCMODEL_BODY_TYPED(cfg) &&
			!DocmodelDocumentOfType(cfg, key, strlen(key), NULL, a->doc_type))
			return NULL;
	}
	doc = DocmodelColumnsTupleDocument(rel, t, stamps);
	/* (the configuration looked up again: reading the row may have taken
	 * invalidations) */
	if (a->doc_type != NULL &&
		DOCMODEL_BODY_TYPED(DocmodelCollectionOf(relid)) &&
		!DocmodelDocumentOfType(DocmodelCollectionOf(relid), key, strlen(key),
								doc, a->doc_type))
		return NULL;
	return LookupValue(doc, path);
}

Datum
mapping_lookup_trigger(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	TupleDesc desc;
	LookupArgs a;
	const char *type;
	const char *delim;
	ArrayType *path;
	HeapTuple oldt = NULL;
	HeapTuple newt = NULL;
	char *key;
	char *oldv = NULL;
	char *newv = NULL;
	TriggerPlans *e;
	Oid relid;
	Datum args[2];
	bool isnull;
	bool stamps;
	LookupPath *lp;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_FOR_ROW(td->tg_event) ||
		!TRIGGER_FIRED_AFTER(td->tg_event))
		DocmodelTriggerMisuse("_lookup_trigger",
							  "a lookup's AFTER row trigger");
	if (!LookupArgsOf(td->tg_trigger, &a))
		ereport(
			ERROR,
			(errcode(ERRCODE_WRONG_OBJECT_TYPE),
			 errmsg("trigger %s on %s is not a lookup", td->tg_trigger->tgname,
					RelationGetRelationName(td->tg_relation)),
			 errdetail("A lookup's trigger names its lookup type, path, "
					   "delimiter, lookup collection and document "
					   "type; docmodel.create_lookup() creates it.")));
	DocmodelCheckLayout(td->tg_relation, DOCMODEL_LAYOUT_COLLECTION);
	relid = RelationGetRelid(td->tg_relation);
	desc = RelationGetDescr(td->tg_relation);
	type = a.type;
	delim = a.delim;
	lp = LookupPathOf(td->tg_trigger, a.path);
	path = lp->path;
	DocmodelTriggerRows(td, &oldt, &newt);
	key = TextDatumGetCString(
		heap_getattr(newt ? newt : oldt, DOCMODEL_COLL_ATT_ID, desc, &isnull));
	if (a.lcoll == relid && strncmp(key, type, strlen(type)) == 0 &&
		strncmp(key + strlen(type), delim, strlen(delim)) == 0)
		return PointerGetDatum(NULL); /* a lookup document */
	stamps = LookupReadsStamps(relid, lp);
	/* each row version's value, when it is a document of the lookup's type */
	if (oldt && !isnull)
		oldv = LookupRowValue(td->tg_relation, &a, oldt, stamps, path);
	if (newt)
		newv = LookupRowValue(td->tg_relation, &a, newt, stamps, path);
	if (oldv && newv && strcmp(oldv, newv) == 0)
		return PointerGetDatum(NULL);
	e = TriggerPlansFor(td);
	if (!e->valid)
		LookupPrepare(td, e, &a);
	args[1] = CStringGetTextDatum(key);
	if (oldv)
	{
		args[0] = CStringGetTextDatum(psprintf("%s%s%s", type, delim, oldv));
		if (SPI_execute_plan(e->plans[0], args, NULL, false, 0) < 0)
			ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
							errmsg("deleting a lookup document failed")));
	}
	if (newv)
		LookupTake(e, args, type, delim, newv, key, relid);
	SPI_finish();
	return PointerGetDatum(NULL);
}
