/*-------------------------------------------------------------------------
 *
 * jsonschema/registry.h
 *	  The schemas registered for a type and version, and the checks of a
 *	  written or migrated document against them (registry.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_JSONSCHEMA_REGISTRY_H
#define DOCMODEL_JSONSCHEMA_REGISTRY_H

#include "utils/jsonb.h"

#include "collection/fields.h"
#include "collection/stamp.h"

extern bool DocmodelValidateWanted(void);
extern void DocmodelValidateWrite(Jsonb *doc, const DocmodelStamp *st);
/*
 * A document a bulk migration produced, held to the schema of its type and
 * version found by the field names fs (NULL: any meta style): 23514 when
 * invalid (any mode but off). DocmodelFirstViolation says instead what the
 * first violation is ("path: message"), or NULL (migration_plan).
 */
extern void DocmodelValidateMigrated(Jsonb *doc, const char *key,
									 const DocFieldSet *fs);
extern void DocmodelSchemaRelcache(Oid relid);

#endif /* DOCMODEL_JSONSCHEMA_REGISTRY_H */
