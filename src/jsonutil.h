/*-------------------------------------------------------------------------
 *
 * jsonutil.h
 *	  Small jsonb helpers shared by the concerns that work on JsonbValue
 *	  trees (migrate.c, revision.c, document.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_JSONUTIL_H
#define DOCMODEL_JSONUTIL_H

#include "datatype/timestamp.h"
#include "utils/jsonb.h"

/*
 * Tell whether two JsonbValues are equal as jsonb's = says: scalars by
 * value (numerics numerically), arrays element by element, objects pair by
 * pair (their pairs sorted as jsonb keeps them). jbvBinary is not compared.
 */
extern bool DocmodelJsonbValueEqual(const JsonbValue *a, const JsonbValue *b);

/*
 * The same for two values as an iterator (unexpanded) hands them out: each
 * a scalar or a jbvBinary container.
 */
extern bool DocmodelFlatValuesEqual(JsonbValue *a, JsonbValue *b);

/*
 * Tell whether JSON Pointer a (an tokens, unescaped, with their lengths) is
 * a prefix of pointer b, token by token (RFC 6901): "/a" is a prefix of
 * "/a" and "/a/b", not of "/ab" nor of "/a~1b". The one comparison of
 * pointers wherever an ancestor matters (migration steps, patch); a proper
 * prefix is one with an < bn.
 */
extern bool DocmodelPointerIsPrefix(char *const *atok, const int *alen, int an,
									char *const *btok, const int *blen, int bn);

/*
 * ISO 8601 text as documents carry it, read and written the same in every
 * session (no TimeZone, DateStyle or locale involved):
 *	 date       YYYY-MM-DD (years 0000 to 9999)
 *	 date-time  date ("T" | "t" | " ") hh:mm[:ss[(.|,)fraction]][offset]
 *	 offset     "Z" | "z" | (+|-)hh[[:]mm]
 * A date is midnight UTC; a date-time without an offset is UTC. Digits of
 * the fraction past microseconds are dropped. Parse returns false for
 * anything else (including "now", "today", "01/02/2024" and values out of
 * range such as 2024-02-30 or 24:00).
 */
extern bool DocmodelParseIso8601(const char *s, int len, TimestampTz *result);

/*
 * Write ts as "YYYY-MM-DDThh:mm:ss.mmmZ" (UTC, milliseconds, 24 bytes) into
 * buf, which holds at least DOCMODEL_ISO8601_LEN + 1 bytes; return false
 * (buf unset) when ts lies outside years 0000 to 9999.
 */
#define DOCMODEL_ISO8601_LEN 24
extern bool DocmodelFormatIso8601(TimestampTz ts, char *buf);

#endif /* DOCMODEL_JSONUTIL_H */
