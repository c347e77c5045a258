/*-------------------------------------------------------------------------
 *
 * jsonschema/run.h
 *	  A compiled JSON Schema run over jsonb: every violation listed with its
 *	  instance path and schema path (run.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_JSONSCHEMA_RUN_H
#define DOCMODEL_JSONSCHEMA_RUN_H

#include "nodes/pg_list.h"
#include "utils/jsonb.h"

#include "jsonschema/compile.h"

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
 * Validate instance against s. With errors NULL, stop at the first
 * violation; else append every violation (DocmodelViolation *, palloc'd in
 * the current context) to *errors, at most max_errors of them (0: all).
 */
extern bool DocmodelSchemaValidate(DocmodelSchema *s, Jsonb *instance,
								   List **errors, int max_errors);

/*
 * Validate instance against s, listing every violation with the "basic"
 * output format's locations too (keyword_location, absolute_location).
 */
extern bool DocmodelSchemaValidateForOutput(DocmodelSchema *s, Jsonb *instance,
											List **errors);

#endif /* DOCMODEL_JSONSCHEMA_RUN_H */
