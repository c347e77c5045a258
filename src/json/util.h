/*-------------------------------------------------------------------------
 *
 * json/util.h
 *	  ISO 8601 dates and date-times as documents carry them.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_JSONUTIL_H
#define DOCMODEL_JSONUTIL_H

#include "datatype/timestamp.h"
#include "utils/jsonb.h"

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
 * Whether s is RFC 3339's full-date (ISO_DATE), full-time (ISO_TIME) or
 * date-time (both), as JSON Schema's formats "date", "time" and
 * "date-time" read them: "T" or "t" between date and time, seconds and an
 * offset ("Z" or (+|-)hh:mm) required, a leap second only at 23:59:60 UTC.
 */
#define ISO_DATE 1
#define ISO_TIME 2
extern bool DocmodelIsRfc3339(const char *s, int len, int parts);

/*
 * Write ts as "YYYY-MM-DDThh:mm:ss.mmmZ" (UTC, milliseconds, 24 bytes) into
 * buf, which holds at least DOCMODEL_ISO8601_LEN + 1 bytes; return false
 * (buf unset) when ts lies outside years 0000 to 9999.
 */
#define DOCMODEL_ISO8601_LEN 24
extern bool DocmodelFormatIso8601(TimestampTz ts, char *buf);

/*
 * Epoch numbers (whole units since 1970-01-01 UTC): DocmodelEpochUnit
 * finds a unit (ns, us, ms, s, min, h, day) by name, in nanoseconds;
 * DocmodelToEpoch rounds down; both conversions return false on overflow
 * or out of PostgreSQL's timestamp range.
 */
extern bool DocmodelEpochUnit(const char *name, int64 *ns);
extern bool DocmodelToEpoch(TimestampTz ts, int64 unit_ns, int64 *result);
extern bool DocmodelFromEpoch(int64 n, int64 unit_ns, TimestampTz *result);

/* Whether s (len bytes) is ASCII: then its bytes are its code points. */
extern bool DocmodelIsAscii(const char *s, int len);

/* The value of hexadecimal digit c (either case), or -1. */
extern int DocmodelHexDigit(uint32 c);

#endif /* DOCMODEL_JSONUTIL_H */
