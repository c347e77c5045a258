/*-------------------------------------------------------------------------
 *
 * docmodel.c
 *	  Module entry point: PG_MODULE_MAGIC, _PG_init, the docmodel.*
 *	  settings, and the one dispatcher per kind of cache invalidation.
 *
 * PostgreSQL 15 gives all libraries of a backend ten relcache callbacks
 * together (Citus takes five) and a few dozen syscache callbacks. docmodel
 * registers one relcache callback and one syscache callback per catalog
 * cache it listens to, here in _PG_init; every cache of every concern is a
 * subscriber in the static tables below and is called from them.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "commands/trigger.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "nodes/nodeFuncs.h"
#include "rewrite/prs2lock.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/plancache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "docmodel.h"
#include "fields.h"

PG_MODULE_MAGIC;

/* docmodel.actor: who writes, stamped as _createdBy/_modifiedBy. */
char *docmodel_actor = NULL;

/* docmodel.keep_stamps: writes keep the management fields they carry. */
bool docmodel_keep_stamps = false;

void _PG_init(void);

/* Every cache that drops entries on a relcache invalidation. */
static void (*const RelcacheSubscribers[])(Oid relid) = {
	DocmodelCollectionRelcache, /* collection.c */
	DocmodelKvRelcache,         /* kv.c */
	DocmodelMigrateRelcache,    /* migrate.c */
	DocmodelCounterRelcache,    /* counter.c */
	DocmodelSchemaRelcache,     /* schema.c */
	DocmodelProjectionRelcache, /* relational.c */
	DocmodelCopyRelcache,       /* copy.c */
};

/* Every cache that drops entries when a catalog cache row changes. */
typedef struct SyscacheSubscriber
{
	int cacheid;
	void (*fn)(int cacheid, uint32 hashvalue);
} SyscacheSubscriber;

/*
 * Every cache of statements prepared from a relation's qualified name (the
 * key-value functions' plans, the projection and lookup triggers'): besides
 * the relcache events of the relations they name, a change of any schema
 * makes them all stale (a renamed schema changes the qualified name, and a
 * cached plan re-analyzes its text, which could now name a table that took
 * the old name). Each also checks every plan it prepares with
 * DocmodelCheckPlanTargets.
 */
static void (*const NamedPlanSubscribers[])(Oid relid) = {
	DocmodelKvRelcache,         /* kv.c */
	DocmodelProjectionRelcache, /* relational.c */
	DocmodelCopyRelcache,       /* copy.c */
};

/* A schema changed: every named plan is stale (syscache subscriber). */
static void
NamesChanged(int cacheid, uint32 hashvalue)
{
	int i;

	for (i = 0; i < lengthof(NamedPlanSubscribers); i++)
		NamedPlanSubscribers[i](InvalidOid);
}

static const SyscacheSubscriber SyscacheSubscribers[] = {
	{PROCOID, DocmodelMigrateSyscache},       /* fn steps: functions */
	{NAMESPACEOID, NamesChanged},             /* plans name the schema */
	{AUTHOID, DocmodelCounterSyscache},       /* privileges: role attributes */
	{AUTHMEMROLEMEM, DocmodelCounterSyscache} /* privileges: memberships */
};

/* Call every relcache subscriber (relid InvalidOid: every relation). */
static void
RelcacheDispatch(Datum arg, Oid relid)
{
	int i;

	for (i = 0; i < lengthof(RelcacheSubscribers); i++)
		RelcacheSubscribers[i](relid);
}

/* Call every subscriber of the catalog cache cacheid. */
static void
SyscacheDispatch(Datum arg, int cacheid, uint32 hashvalue)
{
	int i;

	for (i = 0; i < lengthof(SyscacheSubscribers); i++)
		if (SyscacheSubscribers[i].cacheid == cacheid)
			SyscacheSubscribers[i].fn(cacheid, hashvalue);
}

/* Register the dispatchers: one relcache callback, one per catalog cache. */
static void
RegisterDispatchers(void)
{
	int i;
	int j;

	CacheRegisterRelcacheCallback(RelcacheDispatch, (Datum) 0);
	for (i = 0; i < lengthof(SyscacheSubscribers); i++)
	{
		int id = SyscacheSubscribers[i].cacheid;
		bool seen = false;

		for (j = 0; j < i; j++)
			seen |= SyscacheSubscribers[j].cacheid == id;
		if (!seen)
			CacheRegisterSyscacheCallback(id, SyscacheDispatch, (Datum) 0);
	}
}

/* Define the docmodel.* settings, register the cache dispatchers and build
 * the meta styles' field descriptions. */
void
_PG_init(void)
{
	RegisterDispatchers();
	DocmodelFieldsInit();

	DefineCustomStringVariable(
		"docmodel.actor",
		"Who is writing, stamped into _createdBy and _modifiedBy.",
		"When empty, session_user is stamped.", &docmodel_actor, "",
		PGC_USERSET, 0, NULL, NULL, NULL);

	DefineCustomBoolVariable(
		"docmodel.keep_stamps",
		"Keep the management fields a written document carries.",
		"For loading exported documents: _ver, _created, _modified and their "
		"writers are kept as written, only missing ones are stamped. Only the "
		"collection's owner and superusers may write with it on.",
		&docmodel_keep_stamps, false, PGC_USERSET, 0, NULL, NULL, NULL);
	DocmodelCopyWorkerInit();
	MarkGUCPrefixReserved("docmodel");
}

/* Raise 22023 naming an argument that must not be NULL; see docmodel.h. */
void
DocmodelRequireArg(FunctionCallInfo fcinfo, int argno, const char *name)
{
	if (PG_ARGISNULL(argno))
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
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

/* A statement trigger on one of docmodel's catalogs; see docmodel.h. */
Datum
DocmodelCatalogChanged(FunctionCallInfo fcinfo, const char *name)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;

	if (!CALLED_AS_TRIGGER(fcinfo))
		DocmodelTriggerMisuse(name, "a statement trigger");
	CacheInvalidateRelcacheByRelid(RelationGetRelid(trigdata->tg_relation));
	DocmodelCitusPush();
	return PointerGetDatum(NULL);
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
