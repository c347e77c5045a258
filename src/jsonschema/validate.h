/*-------------------------------------------------------------------------
 *
 * jsonschema/validate.h
 *	  JSON Schema (2020-12, 2019-09 and draft-07) compiled once into a C
 *	  structure and run over jsonb, every violation listed with its instance
 *	  path (a JSON Pointer) and schema path: the interface for the rest of
 *	  docmodel. Compiled and cached by schema.c (schema.h), run by run.c
 *	  (run.h); the SQL functions in validate.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_VALIDATE_H
#define DOCMODEL_VALIDATE_H

#include "fmgr.h"
#include "nodes/pg_list.h"

#include "jsonschema/run.h"
#include "jsonschema/schema.h"

/* Return errors (DocmodelViolation *) as the rows of a set-returning
 * function with columns (path text, schema_path text, message text). */
extern void DocmodelReturnViolations(FunctionCallInfo fcinfo, List *errors);

#endif /* DOCMODEL_VALIDATE_H */
