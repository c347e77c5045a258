/*-------------------------------------------------------------------------
 *
 * collection/key.h
 *	  Key rules, offered to every concern that takes a key (collections,
 *	  counters, revisions).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_KEY_H
#define DOCMODEL_KEY_H

#include "collection/config.h"

/*
 * Check a delimiter: 1 to 4 bytes, none a letter, digit, whitespace or
 * control character. Raises 22023 when it is not.
 */
extern void DocmodelCheckDelimiter(const char *delim, int dlen);

/*
 * Check a whole key (the key rules of the README) for the given delimiter, which the
 * caller has checked: at most 250 bytes (22001), no empty part, no control
 * character, no two occurrences of the delimiter overlapping ("a:::b" with
 * "::") (22023). When raise is false, return false instead of raising.
 */
extern bool DocmodelCheckKey(const char *key, int len, const char *delim,
							 int dlen, bool raise);

/*
 * A key's document type under a collection's layout (type_part, doc_type):
 * DocmodelKeyType() in collection/config.h, the one function that derives it.
 */

/* The one way a key gives its document type under a collection's layout. */
extern void DocmodelKeyType(const DocmodelCollection *cfg, const char *key,
							int key_len, const char **type, int *type_len);

/*
 * Whether the document doc of key (key_len bytes) of collection cfg is of
 * type (NUL-terminated) under its layout: the key's type (DocmodelKeyType),
 * or in a body-typed collection the body's type field, compared as
 * type_check says (exactly when off). _type_filter_sql gives the same rule
 * as SQL.
 */
extern bool DocmodelDocumentOfType(const DocmodelCollection *cfg,
								   const char *key, int key_len, Jsonb *doc,
								   const char *type);

#endif /* DOCMODEL_KEY_H */
