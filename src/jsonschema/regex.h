/*-------------------------------------------------------------------------
 *
 * jsonschema/regex.h
 *	  JSON Schema's patterns: ECMA-262 regular expressions (the "u" flag's
 *	  grammar) read exactly and matched in time linear in the text (a
 *	  Thompson automaton over code points, lookarounds answered per position
 *	  by passes of their own automata beforehand; cancellable).
 *	  Backreferences, which cannot be matched this way, are refused.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_ECMA_REGEX_H
#define DOCMODEL_ECMA_REGEX_H

#include "jsonschema/regex_run.h"

typedef enum EcmaStatus
{
	ECMA_OK,
	ECMA_SYNTAX,      /* not an ECMA-262 pattern */
	ECMA_UNSUPPORTED, /* a construct not matched here (backreferences) */
	ECMA_TOO_LARGE    /* the automaton would pass ECMA_MAX_STATES */
} EcmaStatus;

/* The bound of the automaton's size ({n,m} counts are unrolled). */
#define ECMA_MAX_STATES 20000

/* The bound of a pattern's length in characters (its parse is in memory). */
#define ECMA_MAX_LENGTH 65536

/*
 * Compile src (len bytes, the server encoding) in the current memory
 * context. On failure return NULL, set *status and *err (a palloc'd
 * message naming the construct).
 */
extern EcmaRegex *DocmodelRegexCompile(const char *src, int len,
									   EcmaStatus *status, char **err);

#endif /* DOCMODEL_ECMA_REGEX_H */
