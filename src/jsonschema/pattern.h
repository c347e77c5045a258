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

/* A pattern of the simple kind, compiled (opaque). */
typedef struct SimplePattern SimplePattern;

/* Compile src into a SimplePattern, or return NULL when it is not one. */
extern SimplePattern *DocmodelSchemaSimpleCompile(const char *src);

/* Tell whether sp matches anywhere in s[0..len) (ASCII), in linear time. */
extern bool DocmodelSchemaSimpleMatches(const SimplePattern *sp, const char *s,
										int len);

#endif /* DOCMODEL_JSONSCHEMA_PATTERN_H */
