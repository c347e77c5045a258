/*-------------------------------------------------------------------------
 *
 * init.c
 *	  Module entry point, the top floor: PG_MODULE_MAGIC, _PG_init (the
 *	  docmodel.* settings), and the one dispatcher per kind of cache
 *	  invalidation, which is the only code that calls every concern.
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

#include "fmgr.h"
#include "utils/guc.h"
#include "utils/inval.h"
#include "utils/syscache.h"

#include "docmodel.h"
#include "init.h"
#include "collection/columns.h"
#include "collection/docview.h"
#include "collection/config.h"
#include "collection/fields.h"
#include "collection/kv.h"
#include "collection/layout.h"
#include "collection/stamp.h"
#include "copy/rules.h"
#include "copy/worker.h"
#include "history/query.h"
#include "counter/counter.h"
#include "jsonschema/registry.h"
#include "mapping/relational.h"
#include "migrate/migrate.h"
#include "migrate/versions.h"
#include "init.h"

PG_MODULE_MAGIC;

/* Every cache that drops entries on a relcache invalidation. */
static void (*const RelcacheSubscribers[])(Oid relid) = {
	DocmodelLayoutRelcache,     /* collection/layout.c (before config.c's) */
	DocmodelCollectionRelcache, /* collection/config.c */
	DocmodelColumnsRelcache,    /* collection/columns.c */
	DocmodelDocviewRelcache,    /* collection/docview.c */
	DocmodelKvRelcache,         /* kv.c */
	DocmodelMigrateRelcache,    /* migrate.c */
	DocmodelCounterRelcache,    /* counter.c */
	DocmodelSchemaRelcache,     /* schema.c */
	DocmodelProjectionRelcache, /* mapping/relational.c */
	DocmodelCopyRelcache,       /* copy.c */
	DocmodelHistoryRelcache,    /* history/query.c */
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
	DocmodelProjectionRelcache, /* mapping/relational.c */
	DocmodelCopyRelcache,       /* copy.c */
	DocmodelHistoryRelcache,    /* history/query.c */
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
	{PROCOID, DocmodelMigrateSyscache}, /* fn steps: functions */
	{NAMESPACEOID, NamesChanged},       /* plans name the schema */
	{AUTHOID, DocmodelCounterSyscache}, /* privileges: role attributes */
	{AUTHOID, DocmodelWhoSyscache},     /* stamps: the session user's name */
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

/* docmodel.default_meta_style: a meta_style name create_collection takes. */
static bool
CheckDefaultMetaStyle(char **newval, void **extra, GucSource source)
{
	DocMetaStyle ms;
	bool xattrs;

	if (*newval != NULL && DocmodelConfigMetaStyle(*newval, &ms, &xattrs))
		return true;
	GUC_check_errdetail("Use one of underscore, meta, plain, xattrs, columns.");
	return false;
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

	DefineCustomStringVariable(
		"docmodel.default_meta_style",
		"The meta_style of a collection create_collection makes without one.",
		"One of underscore, meta, plain, xattrs, columns.",
		&docmodel_default_meta_style, "underscore", PGC_USERSET, 0,
		CheckDefaultMetaStyle, NULL, NULL);
	DocmodelCopyWorkerInit();
	DocmodelVersionsInit();
	MarkGUCPrefixReserved("docmodel");
}
