/*-------------------------------------------------------------------------
 *
 * jsonpointer.h
 *	  The one JSON Pointer (RFC 6901) of docmodel: parsed once into
 *	  unescaped reference tokens, formatted back, compared, and its array
 *	  index tokens read. Callers turn the reason codes into their own
 *	  SQLSTATE and message.
 *
 *	  The representation is syntax-free on purpose: a token is the member
 *	  name or the index digits, already unescaped, so another parser (e.g.
 *	  Couchbase's sub-document paths, a.b[2].`c`) can fill the same struct;
 *	  that one also says which tokens were written [n] (index), since
 *	  Couchbase reads [n] only in arrays and a name only in objects.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_JSONPOINTER_H
#define DOCMODEL_JSONPOINTER_H

#include "lib/stringinfo.h"

/* A parsed pointer: its text (for messages) and unescaped tokens. */
typedef struct JsonPointer
{
	char *text;  /* NUL-terminated copy of the source text */
	int ntok;    /* 0: the document root */
	char **tok;  /* tokens, unescaped, each NUL-terminated */
	int *toklen; /* their lengths */
	bool *index; /* Couchbase paths: token i was written [n]; else NULL */
} JsonPointer;

/* Why a pointer text was refused. */
typedef enum JsonPointerError
{
	JSONPOINTER_OK,
	JSONPOINTER_ROOT,     /* "" where the caller does not allow the root */
	JSONPOINTER_NO_SLASH, /* does not start with "/" */
	JSONPOINTER_BAD_TILDE /* "~" not followed by 0 or 1 */
} JsonPointerError;

/* What an array index token says. */
typedef enum JsonPointerIndex
{
	JSONPOINTER_INDEX,      /* digits: *index set */
	JSONPOINTER_INDEX_END,  /* "-": past the last element */
	JSONPOINTER_INDEX_BAD,  /* not digits, or a leading zero */
	JSONPOINTER_INDEX_RANGE /* digits above INT32_MAX */
} JsonPointerIndex;

/*
 * Parse s (len bytes) into *p (palloc'd in the current context); the root
 * "" only where allow_root. p->text is set even on failure.
 */
extern JsonPointerError DocmodelJsonPointerParse(const char *s, int len,
												 bool allow_root,
												 JsonPointer *p);

/* Append "/" and one token to buf, escaping "~" and "/". */
extern void DocmodelJsonPointerAppendToken(StringInfo buf, const char *tok,
										   int len);

/*
 * Tell whether a is b or an ancestor of b, token by token: "/a" is a prefix
 * of "/a" and "/a/b", not of "/ab" nor of "/a~1b". A proper prefix is one
 * with a->ntok < b->ntok.
 */
extern bool DocmodelJsonPointerIsPrefix(const JsonPointer *a,
										const JsonPointer *b);

/* Why a Couchbase sub-document path was refused. */
typedef enum JsonPointerSubdocError
{
	JSONPOINTER_SUBDOC_OK,
	JSONPOINTER_SUBDOC_INVALID, /* its syntax (PathInvalid) */
	JSONPOINTER_SUBDOC_DEEP     /* more than maxtok components (PathTooBig) */
} JsonPointerSubdocError;

/*
 * Parse s (len bytes), a Couchbase sub-document path, into *p (palloc'd),
 * as Couchbase's own parser reads it: members separated by "." (a "."
 * before "[" or at the end is allowed), [n] an element (digits, or -1 the
 * last one), backticks around any part of a name holding "." "[" or "]"
 * (two backticks a literal one), JSON escapes (\" \\ \/ \b \f \n \r
 * \t) read as the character; a bare '"' or control character, "\u", an
 * empty name, or an unclosed backtick or "[" is invalid. "" is the root. A
 * member is a token, an index its digits ("-1" for [-1]), p->index[t]
 * true. On failure *why says why (a sentence naming the byte offset).
 * p->text is always set.
 */
extern JsonPointerSubdocError
DocmodelJsonPointerParseSubdoc(const char *s, int len, int maxtok,
							   JsonPointer *p, const char **why);

/* Read an array index token ("0", "12", or "-"; no leading zeros). */
extern JsonPointerIndex DocmodelJsonPointerArrayIndex(const char *tok, int len,
													  int *index);

#endif /* DOCMODEL_JSONPOINTER_H */
