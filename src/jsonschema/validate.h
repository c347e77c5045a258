/*-------------------------------------------------------------------------
 *
 * jsonschema/validate.h
 *	  JSON Schema (2020-12 and draft-07) compiled once into a C structure
 *	  and run over jsonb, every violation listed with its instance path (a
 *	  JSON Pointer) and schema path. Compiled schemas are cached per backend
 *	  by the schema's bytes (validate.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_VALIDATE_H
#define DOCMODEL_VALIDATE_H

#include "fmgr.h"
#include "nodes/pg_list.h"
#include "utils/jsonb.h"

/* A compiled schema (opaque). */
typedef struct DocmodelSchema DocmodelSchema;

/* One violation: where in the instance, which keyword, and why. */
typedef struct DocmodelViolation
{
	char *path;        /* JSON Pointer into the instance ("" the root) */
	char *schema_path; /* JSON Pointer to the failing keyword */
	char *message;
	/* schema_output only (else NULL): the path taken through references to
	 * the keyword, and its absolute URI when its resource has one */
	char *keyword_location;
	char *absolute_location;
} DocmodelViolation;

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

/*
 * Validate instance against s. With errors NULL, stop at the first
 * violation; else append every violation (DocmodelViolation *, palloc'd in
 * the current context) to *errors, at most max_errors of them (0: all).
 */
extern bool DocmodelSchemaValidate(DocmodelSchema *s, Jsonb *instance,
								   List **errors, int max_errors);

/* Return errors (DocmodelViolation *) as the rows of a set-returning
 * function with columns (path text, schema_path text, message text). */
extern void DocmodelReturnViolations(FunctionCallInfo fcinfo, List *errors);

#endif /* DOCMODEL_VALIDATE_H */
