/*-------------------------------------------------------------------------
 *
 * copy/rules.c
 *	  The rules of docmodel.copy_rules as their triggers and apply_copies
 *	  use them: each read once per backend with its statements prepared
 *	  from the rule and the current names (RulePlanCache per trigger,
 *	  ApplyPlanCache per rule), run as the owner of the collection they
 *	  write or read, in a security-restricted operation.
 *
 * Backend-local state: the two caches, dropped when docmodel.copy_rules,
 * docmodel.copy_queue, a relation they reach or a schema changes
 * (DocmodelCopyRelcache, one of init.c's named-plan subscribers).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "common/hashfn.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/lock.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "docmodel.h"
#include "catalog.h"
#include "collection/columns.h"
#include "collection/config.h"
#include "collection/layout.h"
#include "copy/rules.h"
#include "json/pointer.h"
#include "json/tree.h"

PG_FUNCTION_INFO_V1(copy_rules_changed);

static HTAB *RulePlanCache = NULL;
/* apply_copies' rules and statements, keyed by the rule's id */
static HTAB *ApplyPlanCache = NULL;
static Oid CopyRulesTable = InvalidOid;
static Oid CopyQueueTable = InvalidOid;

void
DocmodelCopyRelcache(Oid relid)
{
	HASH_SEQ_STATUS s;
	RulePlans *e;
	HTAB *caches[2] = {RulePlanCache, ApplyPlanCache};
	int i;

	for (i = 0; i < 2; i++)
	{
		if (caches[i] == NULL)
			continue;
		hash_seq_init(&s, caches[i]);
		while ((e = hash_seq_search(&s)) != NULL)
			if (!OidIsValid(relid) || relid == CopyRulesTable ||
				relid == CopyQueueTable || relid == e->coll ||
				relid == e->source)
				e->valid = false;
	}
}

/* _copy_rules_changed(): the statement trigger of docmodel.copy_rules. */
Datum
copy_rules_changed(PG_FUNCTION_ARGS)
{
	return DocmodelCatalogChanged(fcinfo, "_copy_rules_changed");
}

static char *
TopString(const char *s)
{
	return s ? MemoryContextStrdup(TopMemoryContext, s) : NULL;
}

static char *
QualifiedName(Oid relid)
{
	char *nsp = get_namespace_name(get_rel_namespace(relid));
	char *rel = get_rel_name(relid);

	if (nsp == NULL || rel == NULL)
		ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE),
						errmsg("relation with OID %u does not exist", relid)));
	return quote_qualified_identifier(nsp, rel);
}

/*
 * Prepare sql as plan i of e, reaching only the rule's collections (and
 * docmodel.copy_queue when queue).
 */
static void
RuleKeepPlanOn(RulePlans *e, int i, const char *sql, int nargs, Oid *types,
			   bool queue)
{
	Oid rels[3] = {e->coll, e->source, CopyQueueTable};
	SPIPlanPtr plan = SPI_prepare(sql, nargs, types);

	if (plan == NULL)
		ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
						errmsg("preparing \"%s\" failed: %s", sql,
							   SPI_result_code_string(SPI_result))));
	DocmodelCheckPlanTargets(plan, rels, queue ? 3 : 2);
	SPI_keepplan(plan);
	e->plans[i] = plan;
}

static void
RuleKeepPlan(RulePlans *e, int i, const char *sql, int nargs, Oid *types)
{
	RuleKeepPlanOn(e, i, sql, nargs, types, false);
}

/*
 * Raise code: td does not fire for its rule as the rule says (39P01: not as
 * made; 42704: no such rule; 42809: a rule of another kind or table).
 */
static void
NotRuleTrigger(TriggerData *td, int code, const char *why)
{
	ereport(ERROR, (errcode(code),
					errmsg("trigger %s on %s is not a trigger of its copy rule",
						   td->tg_trigger->tgname,
						   RelationGetRelationName(td->tg_relation)),
					errdetail("%s", why)));
}

static RulePlans *LoadRule(RulePlans *e, int32 id, char kind, TriggerData *td);

/* The entry of key in *cache (made when missing), connected to SPI. */
static RulePlans *
CacheEntry(HTAB **cache, const char *name, Oid key)
{
	RulePlans *e;
	bool found;

	if (*cache == NULL)
		*cache =
			DocmodelHash(name, 16, sizeof(Oid), sizeof(RulePlans), false, NULL);
	e = hash_search(*cache, &key, HASH_ENTER, &found);
	if (!found)
	{
		memset(((char *) e) + sizeof(Oid), 0, sizeof(RulePlans) - sizeof(Oid));
		e->valid = false;
	}
	DocmodelSpiConnect();
	return e;
}

/*
 * Return trigger td's rule and statements, connected to SPI; read from
 * docmodel.copy_rules and prepared when not valid. kind: 'c' for the
 * source trigger of a copy, 'f' for its fill trigger, 'a' for an
 * aggregate's.
 */
RulePlans *
DocmodelCopyRuleFor(TriggerData *td, char kind)
{
	RulePlans *e;
	int32 id;

	if (td->tg_trigger->tgnargs != 1)
		NotRuleTrigger(td, ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED,
					   "Its one argument is the rule's id.");
	id = pg_strtoint32(td->tg_trigger->tgargs[0]);
	e = CacheEntry(&RulePlanCache, "docmodel copy rule plans",
				   td->tg_trigger->tgoid);
	if (e->valid)
		return e;
	return LoadRule(e, id, kind, td);
}

/*
 * Return copy rule id's apply statements (kind 'p'), connected to SPI; 42704
 * when there is no such rule, 22023 when it is an aggregate.
 */
RulePlans *
DocmodelCopyApplyRule(int32 id)
{
	RulePlans *e =
		CacheEntry(&ApplyPlanCache, "docmodel copy apply plans", (Oid) id);

	if (e->valid)
		return e;
	return LoadRule(e, id, 'p', NULL);
}

/*
 * The SQL of the source document (alias s) a rule's statements read: with
 * its stamps merged when the rule reads them (DocmodelDocumentSql).
 */
static char *
SourceDocSql(RulePlans *e)
{
	return e->stamps ? DocmodelDocumentSql(e->source, "s") : "s.doc";
}

/* Whether the text v of copy fields is a pointer to a stamp of cfg's. */
static bool
StampString(const DocmodelCollection *cfg, JsonbValue *v)
{
	return v->type == jbvString && v->val.string.len > 0 &&
		   v->val.string.val[0] == '/' &&
		   DocmodelColumnsStampPointer(
			   cfg, pnstrdup(v->val.string.val, v->val.string.len));
}

/*
 * Whether rule e reads a stamp its source keeps in columns: a pointer of
 * its fields, or of its aggregate, starting at one (collection/columns.c).
 */
static bool
RuleReadsStamps(RulePlans *e)
{
	const DocmodelCollection *cfg = DocmodelCollectionOf(e->source);
	JsonbValue f;
	int i;
	int j;

	if (!cfg->columns)
		return false;
	if (e->kind == 'a')
		return e->agg_ptr != NULL &&
			   DocmodelColumnsStampPointer(cfg, e->agg_ptr);
	DocmodelJsonTreeFromJsonb(e->fields, &f);
	DocmodelJsonTreeExpand(&f);
	for (i = 0; f.type == jbvObject && i < f.val.object.nPairs; i++)
	{
		JsonbValue *spec = &f.val.object.pairs[i].value;

		DocmodelJsonTreeExpand(spec);
		if (StampString(cfg, spec))
			return true;
		for (j = 0; spec->type == jbvArray && j < spec->val.array.nElems; j++)
			if (StampString(cfg, &spec->val.array.elems[j]))
				return true;
	}
	return false;
}

/* Prepare the statements of copy rule e: its source trigger's (kind 'c') or
 * apply_copies' ('p'); coll and src are the collections' qualified names. */
static void
PrepareCopy(RulePlans *e, char kind, const char *coll, const char *src)
{
	Oid t[3] = {TEXTOID, JSONBOID, TEXTOID};
	Oid t1[1] = {TEXTOID};
	Oid t2[2] = {INT4OID, TEXTOID};
	Oid t3[2] = {INT4OID, INT4OID};
	char *put =
		psprintf("docmodel._copy_put(c.doc, %s, %s, $1, $2, $3)",
				 quote_literal_cstr(e->path), quote_literal_cstr(e->ref));
	const char *frozen = "false";

	if (e->frozen != NULL)
	{
		Oid ft[1] = {JSONBOID};
		Datum fv[1] = {JsonbPGetDatum(e->frozen)};

		/* the documents frozen_when freezes keep their copies */
		if (SPI_execute_with_args("SELECT docmodel._frozen_sql($1, 'c')", 1, ft,
								  fv, NULL, true, 1) != SPI_OK_SELECT ||
			SPI_processed != 1)
			ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
							errmsg("making a copy rule's condition failed")));
		frozen = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	}
	/* 0: rewrite the referring documents of key $1 (not frozen ones) */
	RuleKeepPlan(
		e, 0,
		psprintf("UPDATE %s AS c SET doc = %s WHERE "
				 "docmodel.ref_keys(c.doc, %s) "
				 "OPERATOR(pg_catalog.@>) ARRAY[$1]::pg_catalog.text[] "
				 "AND c.doc OPERATOR(pg_catalog.<>) %s AND NOT %s",
				 coll, put, quote_literal_cstr(e->refpath), put, frozen),
		3, t);
	if (kind == 'c')
	{
		/* 1: a document referring to key $1 */
		RuleKeepPlan(e, 1,
					 psprintf("SELECT c.id FROM %s AS c WHERE "
							  "docmodel.ref_keys(c.doc, %s) "
							  "OPERATOR(pg_catalog.@>) "
							  "ARRAY[$1]::pg_catalog.text[] LIMIT 1",
							  coll, quote_literal_cstr(e->refpath)),
					 1, t1);
		/*
		 * 2: queue key $2 of rule $1. On a queued key, the row is only
		 * locked (DO UPDATE ... WHERE false): no new row version, and a
		 * batch applying that key meanwhile (which holds the row) is
		 * waited for, so this write is queued again after it rather
		 * than lost.
		 */
		if (e->deferred)
			RuleKeepPlanOn(e, 2,
						   "INSERT INTO docmodel.copy_queue AS q (rule, key) "
						   "VALUES ($1, $2) ON CONFLICT (rule, key) DO UPDATE "
						   "SET key = EXCLUDED.key WHERE false",
						   2, t2, true);
	}
	else
	{
		/* 1: the source of key $1, as committed now */
		RuleKeepPlan(e, 1,
					 psprintf("SELECT %s FROM %s AS s WHERE s.id "
							  "OPERATOR(pg_catalog.=) $1",
							  SourceDocSql(e), src),
					 1, t1);
		/* 2: forget key $2 of rule $1 */
		RuleKeepPlanOn(e, 2,
					   "DELETE FROM docmodel.copy_queue AS q WHERE q.rule "
					   "OPERATOR(pg_catalog.=) $1 AND q.key "
					   "OPERATOR(pg_catalog.=) $2",
					   2, t2, true);
		/*
		 * 3: take up to $2 queued keys of rule $1, oldest first, those
		 * another batch (or a write queueing them) holds skipped
		 */
		RuleKeepPlanOn(e, 3,
					   "SELECT q.key FROM docmodel.copy_queue AS q WHERE "
					   "q.rule OPERATOR(pg_catalog.=) $1 ORDER BY "
					   "q.enqueued_at LIMIT $2 FOR UPDATE SKIP LOCKED",
					   2, t3, true);
	}
}

/* Prepare the statements of copy rule e's fill trigger (src: the source). */
static void
PrepareFill(RulePlans *e, const char *src)
{
	Oid t[1] = {TEXTOID};
	bool exclusive;

	/*
	 * A new reference locks its source: against a concurrent change of
	 * it (whose fan-out cannot see this document yet) and a concurrent
	 * delete. FOR NO KEY UPDATE where an aggregate of the referring
	 * documents will update the source (a share lock could not be
	 * upgraded without deadlocks), FOR SHARE otherwise.
	 */
	{
		Oid at[2] = {OIDOID, OIDOID};
		Datum av[2] = {ObjectIdGetDatum(e->source), ObjectIdGetDatum(e->coll)};

		if (SPI_execute_with_args(
				"SELECT FROM docmodel.copy_rules AS r WHERE r.kind "
				"OPERATOR(pg_catalog.=) 'aggregate' AND "
				"r.coll::pg_catalog.oid OPERATOR(pg_catalog.=) $1 AND "
				"r.source::pg_catalog.oid OPERATOR(pg_catalog.=) $2",
				2, at, av, NULL, true, 1) != SPI_OK_SELECT)
			ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
							errmsg("reading copy rules failed")));
		exclusive = SPI_processed > 0;
	}
	RuleKeepPlan(e, 0,
				 psprintf("SELECT %s FROM %s AS s WHERE s.id "
						  "OPERATOR(pg_catalog.=) $1 FOR %s",
						  SourceDocSql(e), src,
						  exclusive ? "NO KEY UPDATE" : "SHARE"),
				 1, t);
	RuleKeepPlan(e, 1,
				 psprintf("SELECT %s FROM %s AS s WHERE s.id "
						  "OPERATOR(pg_catalog.=) $1",
						  SourceDocSql(e), src),
				 1, t);
}

/* Prepare the statements of aggregate rule e's trigger td. */
static void
PrepareAggregate(RulePlans *e, TriggerData *td, const char *coll,
				 const char *src)
{
	Oid t[1] = {TEXTOID};
	const char *value;
	const char *of_type = "";

	if (e->doc_type != NULL)
	{
		Oid ft[2] = {REGCLASSOID, TEXTOID};
		Datum fv[2] = {ObjectIdGetDatum(e->coll),
					   CStringGetTextDatum(e->doc_type)};

		/* the documents of its type alone hold the aggregate */
		if (SPI_execute_with_args("SELECT ' AND ' OPERATOR(pg_catalog.||) "
								  "docmodel._type_filter_sql($1, 'a', $2)",
								  2, ft, fv, NULL, true, 1) != SPI_OK_SELECT ||
			SPI_processed != 1)
			ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
							errmsg("making an aggregate's type test failed")));
		of_type = MemoryContextStrdup(
			CurrentMemoryContext,
			SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1));
	}
	{
		Oid at[2] = {TEXTOID, REGCLASSOID};
		Datum av[2] = {CStringGetTextDatum(e->agg),
					   ObjectIdGetDatum(e->source)};

		/* the referring documents with their stamps when the pointer
		 * reads one (a NULL source: their bodies) */
		if (SPI_execute_with_args("SELECT docmodel._aggregate_expr($1, $2)", 2,
								  at, av, e->stamps ? NULL : " n", true,
								  1) != SPI_OK_SELECT ||
			SPI_processed != 1)
			ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
							errmsg("making an aggregate's expression failed")));
		value = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
		if (value == NULL)
			NotRuleTrigger(td, ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED,
						   "Its aggregate is unknown.");
	}
	/*
	 * 0: lock the document of key $1; 1: compute its aggregate again;
	 * 2: the aggregate of a new document of key $1
	 */
	/* 3: add $2 to the count or sum of the document of key $1 */
	{
		Oid t2[2] = {TEXTOID, NUMERICOID};

		RuleKeepPlan(
			e, 3,
			psprintf("UPDATE %s AS a SET doc = docmodel._copy_add_at("
					 "a.doc, %s, $2) WHERE a.id OPERATOR(pg_catalog.=) "
					 "$1%s",
					 coll, quote_literal_cstr(e->path), of_type),
			2, t2);
	}
	RuleKeepPlan(
		e, 2,
		psprintf("SELECT %s FROM %s AS b WHERE "
				 "docmodel.ref_keys(b.doc, %s) "
				 "OPERATOR(pg_catalog.@>) ARRAY[$1]::pg_catalog.text[]",
				 value, src, quote_literal_cstr(e->refpath)),
		1, t);
	RuleKeepPlan(e, 0,
				 psprintf("SELECT FROM %s AS a WHERE a.id "
						  "OPERATOR(pg_catalog.=) $1%s FOR NO KEY UPDATE",
						  coll, of_type),
				 1, t);
	RuleKeepPlan(e, 1,
				 psprintf("UPDATE %s AS a SET doc = docmodel._copy_put_at("
						  "a.doc, %s, v.v) FROM (SELECT %s AS v FROM %s AS b "
						  "WHERE docmodel.ref_keys(b.doc, %s) "
						  "OPERATOR(pg_catalog.@>) "
						  "ARRAY[$1]::pg_catalog.text[]) AS v "
						  "WHERE a.id OPERATOR(pg_catalog.=) $1%s AND "
						  "a.doc OPERATOR(pg_catalog.<>) "
						  "docmodel._copy_put_at(a.doc, %s, v.v)",
						  coll, quote_literal_cstr(e->path), value, src,
						  quote_literal_cstr(e->refpath), of_type,
						  quote_literal_cstr(e->path)),
				 1, t);
}

/* Read the members of rule row tup (a copy_rules row, see LoadRule) into e,
 * kept in TopMemoryContext. */
static void
ReadRuleMembers(RulePlans *e, HeapTuple tup, TupleDesc desc)
{
	MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);
	bool isnull;

	e->path = TopString(SPI_getvalue(tup, desc, 4));
	e->ref = TopString(SPI_getvalue(tup, desc, 5));
	{
		Datum f = SPI_getbinval(tup, desc, 6, &isnull);

		e->fields = isnull ? NULL : DatumGetJsonbPCopy(f);
	}
	e->agg = TopString(SPI_getvalue(tup, desc, 7));
	e->doc_type = TopString(SPI_getvalue(tup, desc, 10));
	{
		Datum f = SPI_getbinval(tup, desc, 11, &isnull);

		e->frozen = isnull ? NULL : DatumGetJsonbPCopy(f);
	}
	{
		char *m = SPI_getvalue(tup, desc, 8);

		e->on_missing = m == NULL                  ? 0
						: strcmp(m, "null") == 0   ? 1
						: strcmp(m, "remove") == 0 ? 2
						: strcmp(m, "refuse") == 0 ? 3
												   : 0;
	}
	MemoryContextSwitchTo(old);
	if (e->kind == 'a')
	{
		e->refpath = e->ref;
		e->agg_ptr = strchr(e->agg, ':') ? strchr(e->agg, ':') + 1 : NULL;
	}
	else
	{
		StringInfoData b;

		initStringInfo(&b);
		appendStringInfoString(&b, e->path);
		DocmodelJsonPointerAppendToken(&b, e->ref, strlen(e->ref));
		e->refpath = TopString(b.data);
	}
}

/* Load rule id into e and prepare its statements for kind (RuleFor). */
static RulePlans *
LoadRule(RulePlans *e, int32 id, char kind, TriggerData *td)
{
	Oid relid = td ? RelationGetRelid(td->tg_relation) : InvalidOid;
	int i;
	Oid types[1] = {INT4OID};
	Datum args[1];
	HeapTuple tup;
	TupleDesc desc;
	bool isnull;
	char *coll;
	char *src;

	for (i = 0; i < MAX_RULE_PLANS; i++)
		if (e->plans[i] != NULL)
		{
			SPI_freeplan(e->plans[i]);
			e->plans[i] = NULL;
		}
	CopyRulesTable =
		get_relname_relid("copy_rules", get_namespace_oid("docmodel", false));
	CopyQueueTable =
		get_relname_relid("copy_queue", get_namespace_oid("docmodel", false));
	args[0] = Int32GetDatum(id);
	if (SPI_execute_with_args(
			"SELECT r.kind, r.coll::pg_catalog.oid, r.source::pg_catalog.oid, "
			"r.path, r.ref, r.fields, r.agg, r.on_missing, r.mode, r.doc_type, "
			"r.frozen_when "
			"FROM docmodel.copy_rules AS r "
			"WHERE r.id OPERATOR(pg_catalog.=) $1",
			1, types, args, NULL, true, 1) != SPI_OK_SELECT)
		ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
						errmsg("reading copy rule %d failed", id)));
	if (SPI_processed != 1)
	{
		if (td == NULL)
			ereport(ERROR, (errcode(ERRCODE_UNDEFINED_OBJECT),
							errmsg("copy rule %d does not exist", id)));
		NotRuleTrigger(td, ERRCODE_UNDEFINED_OBJECT,
					   psprintf("Copy rule %d does not exist.", id));
	}
	tup = SPI_tuptable->vals[0];
	desc = SPI_tuptable->tupdesc;
	e->id = id;
	e->kind = SPI_getvalue(tup, desc, 1)[0];
	e->coll = DatumGetObjectId(SPI_getbinval(tup, desc, 2, &isnull));
	e->source = DatumGetObjectId(SPI_getbinval(tup, desc, 3, &isnull));
	{
		char *m = SPI_getvalue(tup, desc, 9);

		e->deferred = m != NULL && strcmp(m, "deferred") == 0;
	}
	if (td == NULL)
	{
		if (e->kind != 'c')
			ereport(ERROR,
					(errcode(ERRCODE_WRONG_OBJECT_TYPE),
					 errmsg("rule %d is an aggregate, not a copy rule", id)));
		if (!OidIsValid(CopyQueueTable))
			ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE),
							errmsg("docmodel.copy_queue does not exist")));
	}
	else if ((kind == 'a' || kind == 'A') != (e->kind == 'a') ||
			 relid != (kind == 'f' || kind == 'A' ? e->coll : e->source))
		NotRuleTrigger(td, ERRCODE_WRONG_OBJECT_TYPE,
					   psprintf("Copy rule %d is not fired from this "
								"table this way.",
								id));
	ReadRuleMembers(e, tup, desc);
	e->stamps = RuleReadsStamps(e);
	coll = QualifiedName(e->coll);
	src = QualifiedName(e->source);

	if (kind == 'c' || kind == 'p')
		PrepareCopy(e, kind, coll, src);
	else if (kind == 'f')
		PrepareFill(e, src);
	else
		PrepareAggregate(e, td, coll, src);
	e->valid = true;
	return e;
}

/*
 * Run plan of e with args as the owner of relation owner_of, in a
 * security-restricted operation; return SPI's result.
 */
int
DocmodelCopyRunAsOwner(SPIPlanPtr plan, Datum *args, const char *nulls,
					   bool read_only, long count, Oid owner_of)
{
	DocmodelOwnerSwitch sw;
	int ret;

	/* the writer's search_path stays, as for a foreign key's action; what
	 * the owner's code sets does not outlive its statement */
	DocmodelBecomeRole(&sw, DocmodelRelationOwner(owner_of), 0);
	PG_TRY();
	{
		ret = SPI_execute_plan(plan, args, nulls, read_only, count);
	}
	PG_CATCH();
	{
		SetUserIdAndSecContext(sw.save_userid, sw.save_sec);
		PG_RE_THROW();
	}
	PG_END_TRY();
	DocmodelRestoreUser(&sw);
	if (ret < 0)
		ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
						errmsg("a copy rule's statement failed: %s",
							   SPI_result_code_string(ret))));
	return ret;
}

/* The OID of docmodel.copy_queue, as the last rule loaded found it. */
Oid
DocmodelCopyQueueTable(void)
{
	return CopyQueueTable;
}
