/*-------------------------------------------------------------------------
 *
 * jsonschema/schema.h
 *	  A whole JSON Schema document compiled (its "$ref"s resolved, the loops
 *	  of applicators found) and the per-backend cache of compiled schemas by
 *	  the schema's bytes (schema.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_JSONSCHEMA_SCHEMA_H
#define DOCMODEL_JSONSCHEMA_SCHEMA_H

#include "utils/jsonb.h"

#include "jsonschema/compile.h"

/*
 * Return the compiled form of schema, from the backend's cache or compiled
 * now (22023 for a malformed schema naming its schema path, 0A000 for a
 * keyword out of scope). The result stays valid until the next call of
 * DocmodelSchemaGet (the cache is bounded): use it right away.
 */
extern DocmodelSchema *DocmodelSchemaGet(Jsonb *schema);

/*
 * Compile schema into the current memory context, outside the cache: the
 * result lives as long as the context (errors as DocmodelSchemaGet).
 */
extern DocmodelSchema *DocmodelSchemaCompile(Jsonb *schema);

#endif /* DOCMODEL_JSONSCHEMA_SCHEMA_H */
