/*-------------------------------------------------------------------------
 *
 * docmodel.c
 *	  The ground floor every other file stands on: the docmodel.* settings'
 *	  variables, NULL arguments refused, backend-local hash tables, SPI
 *	  connection, trigger misuse, and the check of the relations a prepared
 *	  statement reaches. It calls nothing of docmodel's (init.c registers
 *	  the settings and the cache dispatchers). No state but the settings.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "nodes/nodeFuncs.h"
#include "nodes/parsenodes.h"
#include "rewrite/prs2lock.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/plancache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "docmodel.h"

/* docmodel.actor: who writes, stamped as _createdBy/_modifiedBy. */
char *docmodel_actor = NULL;

/* docmodel.keep_stamps: writes keep the management fields they carry. */
bool docmodel_keep_stamps = false;

/* docmodel.default_meta_style: create_collection's meta_style when NULL. */
char *docmodel_default_meta_style = NULL;

/* Raise 22004 naming an argument that must not be NULL; see docmodel.h. */
void
DocmodelRequireArg(FunctionCallInfo fcinfo, int argno, const char *name)
{
	if (PG_ARGISNULL(argno))
		ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						errmsg("%s must not be null", name)));
}

/* A backend-local hash table; see docmodel.h. */
HTAB *
DocmodelHash(const char *name, long nelem, Size keysize, Size entrysize,
			 bool strings, MemoryContext cxt)
{
	HASHCTL ctl;

	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = keysize;
	ctl.entrysize = entrysize;
	ctl.hcxt = cxt != NULL ? cxt : TopMemoryContext;
	return hash_create(name, nelem, &ctl,
					   HASH_ELEM | HASH_CONTEXT |
						   (strings ? HASH_STRINGS : HASH_BLOBS));
}

/* SPI_connect; see docmodel.h. */
void
DocmodelSpiConnect(void)
{
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
}

/* See docmodel.h. */
void
DocmodelTriggerMisuse(const char *function, const char *how)
{
	ereport(ERROR, (errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
					errmsg("docmodel.%s must be fired as %s", function, how)));
}

/* Whether node (a rule's action or qualification) names relation *relid. */
static bool
RuleNames(Node *node, void *relid)
{
	if (node == NULL)
		return false;
	if (IsA(node, RangeTblEntry))
	{
		RangeTblEntry *rte = (RangeTblEntry *) node;

		return rte->rtekind == RTE_RELATION && rte->relid == *(Oid *) relid;
	}
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, RuleNames, relid,
								 QTW_EXAMINE_RTES_BEFORE);
	return expression_tree_walker(node, RuleNames, relid);
}

/*
 * Whether relation relid is reached through a rewrite rule of one of rels:
 * a rule (CREATE RULE, which takes the table's ownership) adds actions the
 * plain statement runs too, and the statement path must do what it does.
 */
static bool
ReachedByRules(const Oid *rels, int nrels, Oid relid)
{
	for (int i = 0; i < nrels; i++)
	{
		Relation rel = RelationIdGetRelation(rels[i]);
		bool found = false;

		if (rel == NULL)
			continue;
		if (rel->rd_rules != NULL)
			for (int r = 0; r < rel->rd_rules->numLocks && !found; r++)
			{
				RewriteRule *rule = rel->rd_rules->rules[r];

				found = RuleNames(rule->qual, &relid) ||
						RuleNames((Node *) rule->actions, &relid);
			}
		RelationClose(rel);
		if (found)
			return true;
	}
	return false;
}

/* Check the relations a prepared statement reaches; see docmodel.h. */
void
DocmodelCheckPlanTargets(SPIPlanPtr plan, const Oid *rels, int nrels)
{
	ListCell *lc;

	foreach (lc, SPI_plan_get_plan_sources(plan))
	{
		CachedPlanSource *ps = (CachedPlanSource *) lfirst(lc);
		ListCell *lr;

		foreach (lr, ps->relationOids)
		{
			Oid relid = lfirst_oid(lr);
			int i;

			for (i = 0; i < nrels; i++)
				if (rels[i] == relid)
					break;
			if (i == nrels && !ReachedByRules(rels, nrels, relid))
				ereport(ERROR,
						(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						 errmsg("docmodel: a statement prepared for relation "
								"%u reached relation %u",
								nrels > 0 ? rels[0] : InvalidOid, relid),
						 errdetail("A relation it names was renamed or "
								   "replaced; the statement is refused.")));
		}
	}
}

/* Raise 2D000 unless called by CALL outside a transaction block; see
 * docmodel.h. */
void
DocmodelRequireCall(FunctionCallInfo fcinfo, const char *name)
{
	CallContext *cc = (CallContext *) fcinfo->context;

	if (cc == NULL || !IsA(cc, CallContext) || cc->atomic)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TRANSACTION_TERMINATION),
				 errmsg("%s must be called by CALL outside a transaction "
						"block",
						name),
				 errdetail("It commits after every batch."),
				 errhint("Run it on its own, not inside BEGIN ... COMMIT or "
						 "a function.")));
}

/* The rows of a row trigger's event; see docmodel.h. */
void
DocmodelTriggerRows(TriggerData *td, HeapTuple *oldt, HeapTuple *newt)
{
	*oldt = NULL;
	*newt = NULL;
	if (!TRIGGER_FIRED_BY_INSERT(td->tg_event))
		*oldt = td->tg_trigtuple;
	if (TRIGGER_FIRED_BY_UPDATE(td->tg_event))
		*newt = td->tg_newtuple;
	else if (TRIGGER_FIRED_BY_INSERT(td->tg_event))
		*newt = td->tg_trigtuple;
}

/* Return the OID of docmodel table name. */
static Oid
DocmodelTable(const char *name)
{
	Oid relid = get_relname_relid(name, get_namespace_oid("docmodel", false));

	if (!OidIsValid(relid))
		ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE),
						errmsg("docmodel.%s does not exist", name)));
	return relid;
}

/*
 * Run one statement as the owner of docmodel table table (which it writes)
 * and return the number of rows it processed; *result gets the first
 * column of the first row (by-value types only) when wanted and present.
 * The caller has checked the current user's rights. The switch to the
 * owner is a security-restricted operation around one SPI statement whose
 * every name and operator is schema-qualified.
 */
uint64
DocmodelExecAsOwner(const char *table, const char *sql, int nargs, Oid *types,
					Datum *values, const char *nulls, Datum *result,
					bool *result_null)
{
	DocmodelOwnerSwitch sw;
	int ret;
	uint64 n = 0;

	if (result_null)
		*result_null = true;
	DocmodelBecomeRole(&sw, DocmodelRelationOwner(DocmodelTable(table)),
					   DOCMODEL_FIXED_PATH);
	PG_TRY();
	{
		DocmodelSpiConnect();
		ret = SPI_execute_with_args(sql, nargs, types, values, nulls, false, 0);
		if (ret < 0)
			ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
							errmsg("%s failed: %s", sql,
								   SPI_result_code_string(ret))));
		n = SPI_processed;
		if (result && SPI_tuptable != NULL && n > 0)
			*result = SPI_getbinval(SPI_tuptable->vals[0],
									SPI_tuptable->tupdesc, 1, result_null);
		SPI_finish();
	}
	PG_CATCH();
	{
		SetUserIdAndSecContext(sw.save_userid, sw.save_sec);
		PG_RE_THROW();
	}
	PG_END_TRY();
	DocmodelRestoreUser(&sw);
	return n;
}

/* The owner of relation relid; 42P01 when there is none. */
Oid
DocmodelRelationOwner(Oid relid)
{
	HeapTuple tup;
	Oid owner;

	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tup))
		ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE),
						errmsg("relation with OID %u does not exist", relid)));
	owner = ((Form_pg_class) GETSTRUCT(tup))->relowner;
	ReleaseSysCache(tup);
	return owner;
}

/*
 * Become role (see docmodel.h): a security-restricted operation in a new
 * settings nest level, with search_path fixed when flags ask.
 */
void
DocmodelBecomeRole(DocmodelOwnerSwitch *s, Oid role, int flags)
{
	GetUserIdAndSecContext(&s->save_userid, &s->save_sec);
	s->guc_level = NewGUCNestLevel();
	if (flags & DOCMODEL_FIXED_PATH)
		(void) set_config_option("search_path", "pg_catalog, pg_temp",
								 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE,
								 true, 0, false);
	SetUserIdAndSecContext(role, s->save_sec | SECURITY_LOCAL_USERID_CHANGE |
									 SECURITY_RESTRICTED_OPERATION);
}

/* Back to the user DocmodelBecomeRole saved, every setting changed since
 * rolled back. */
void
DocmodelRestoreUser(DocmodelOwnerSwitch *s)
{
	AtEOXact_GUC(false, s->guc_level);
	SetUserIdAndSecContext(s->save_userid, s->save_sec);
}

/* Raise 42P01 unless relid is an existing relation; return its kind. */
char
DocmodelRequireRelation(Oid relid)
{
	char kind = get_rel_relkind(relid);

	if (kind == '\0')
		ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE),
						errmsg("relation with OID %u does not exist", relid)));
	return kind;
}

/* Raise 42501 unless the current user owns relid (as ALTER TABLE does). */
void
DocmodelRequireOwner(Oid relid)
{
	char kind = DocmodelRequireRelation(relid);

	if (!pg_class_ownercheck(relid, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, get_relkind_objtype(kind),
					   get_rel_name(relid));
}
