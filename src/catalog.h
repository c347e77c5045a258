/*-------------------------------------------------------------------------
 *
 * catalog.h
 *	  docmodel's catalogs: the statement trigger every catalog of docmodel
 *	  has, and the owner-only writes of the rows (catalog.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_CATALOG_H
#define DOCMODEL_CATALOG_H

#include "fmgr.h"

/*
 * The statement triggers on docmodel's catalogs (collection_config,
 * migration_rules, schemas; name is the trigger function's): every
 * backend's cache of the catalog is invalidated (at commit; in this backend
 * at once), and on Citus the workers' copies follow (citus/citus.c).
 */
extern Datum DocmodelCatalogChanged(FunctionCallInfo fcinfo, const char *name);

/* SQL-callable: the statement trigger of docmodel.collection_config. */
extern Datum collection_config_changed(PG_FUNCTION_ARGS);

#endif /* DOCMODEL_CATALOG_H */
