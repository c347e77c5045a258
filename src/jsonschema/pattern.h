/*-------------------------------------------------------------------------
 *
 * jsonschema/pattern.h
 *	  The fast path of JSON Schema's patterns: a run of single characters or
 *	  classes with quantifiers, matched on ASCII text in linear time (pattern.c);
 *	  anything else goes to regex.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_JSONSCHEMA_PATTERN_H
#define DOCMODEL_JSONSCHEMA_PATTERN_H

#include "jsonschema/regex.h"

/* A pattern of the simple kind, compiled (opaque). */
typedef struct SimplePattern SimplePattern;

/* Compile src into a SimplePattern, or return NULL when it is not one. */
extern SimplePattern *DocmodelSchemaSimpleCompile(const char *src);

/*
 * Tell whether a pattern matches anywhere in s (len bytes): by simple, its
 * SimplePattern (NULL: none), when s is ASCII; else by re, the same pattern
 * compiled by regex.c.
 */
extern bool DocmodelSchemaPatternMatches(const SimplePattern *simple,
										 const EcmaRegex *re, const char *s,
										 int len);

#endif /* DOCMODEL_JSONSCHEMA_PATTERN_H */
