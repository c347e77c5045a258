/*-------------------------------------------------------------------------
 *
 * json/util.c
 *	  ISO 8601 dates and date-times as documents carry them, read and
 *	  written the same in every session (migration steps, collection/trigger.c),
 *	  and RFC 3339's stricter forms (JSON Schema's formats).
 *	  No shared state. JSON Pointers are in json/pointer.c, the document
 *	  tree and its equality in json/tree.c.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/int.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "json/util.h"

/* Read n digits at s[*pos] into *out, advancing *pos; false if not there. */
static bool
IsoDigits(const char *s, int len, int *pos, int n, int *out)
{
	int v = 0;
	int i;

	if (*pos + n > len)
		return false;
	for (i = 0; i < n; i++)
	{
		char c = s[*pos + i];

		if (c < '0' || c > '9')
			return false;
		v = v * 10 + (c - '0');
	}
	*pos += n;
	*out = v;
	return true;
}

/* The fields of a date, time or date-time text, as IsoScan reads them. */
typedef struct IsoParts
{
	int year;
	int mon;
	int mday;
	int hour;
	int min;
	int sec;
	int64 frac; /* microseconds */
	int offset; /* seconds east of UTC */
} IsoParts;

/*
 * Read s as the parts ISO_DATE and/or ISO_TIME into *p (zeroed first). A
 * time follows a date after its separator, or stands alone. strict is RFC
 * 3339: exactly the parts asked for, "T" or "t" between them, seconds,
 * a "." fraction, an offset "Z" or (+|-)hh:mm, and a leap second 23:59:60
 * UTC. Otherwise the time of a date-time is optional and read as
 * json/util.h describes.
 */
static bool
IsoScan(const char *s, int len, int parts, bool strict, IsoParts *p)
{
	int pos = 0;

	memset(p, 0, sizeof(*p));
	if (parts & ISO_DATE)
	{
		if (!IsoDigits(s, len, &pos, 4, &p->year) || pos >= len ||
			s[pos++] != '-' || !IsoDigits(s, len, &pos, 2, &p->mon) ||
			pos >= len || s[pos++] != '-' ||
			!IsoDigits(s, len, &pos, 2, &p->mday))
			return false;
		if (p->mon < 1 || p->mon > 12 || p->mday < 1 ||
			p->mday > day_tab[isleap(p->year) ? 1 : 0][p->mon - 1])
			return false;
		if (pos == len)
			return parts == ISO_DATE || !strict;
		if (parts == ISO_DATE ||
			(s[pos] != 'T' && s[pos] != 't' && (strict || s[pos] != ' ')))
			return false;
		pos++;
	}
	if (!IsoDigits(s, len, &pos, 2, &p->hour) || pos >= len ||
		s[pos++] != ':' || !IsoDigits(s, len, &pos, 2, &p->min))
		return false;
	if (pos < len && s[pos] == ':')
	{
		pos++;
		if (!IsoDigits(s, len, &pos, 2, &p->sec))
			return false;
		if (pos < len && (s[pos] == '.' || (!strict && s[pos] == ',')))
		{
			int ndigits = 0;

			pos++;
			while (pos < len && s[pos] >= '0' && s[pos] <= '9')
			{
				if (ndigits++ < 6)
					p->frac = p->frac * 10 + (s[pos] - '0');
				pos++;
			}
			if (ndigits == 0)
				return false;
			for (; ndigits < 6; ndigits++)
				p->frac *= 10;
		}
	}
	else if (strict)
		return false;
	if (p->hour > 23 || p->min > 59 || p->sec > (strict ? 60 : 59))
		return false;
	if (pos < len && (s[pos] == 'Z' || s[pos] == 'z'))
		pos++;
	else if (pos < len && (s[pos] == '+' || s[pos] == '-'))
	{
		int sign = s[pos++] == '-' ? -1 : 1;
		int oh;
		int om = 0;

		if (!IsoDigits(s, len, &pos, 2, &oh))
			return false;
		if (pos < len && s[pos] == ':')
		{
			pos++;
			if (!IsoDigits(s, len, &pos, 2, &om))
				return false;
		}
		else if (strict || (pos < len && !IsoDigits(s, len, &pos, 2, &om)))
			return false;
		if (oh > 23 || om > 59)
			return false;
		p->offset = sign * (oh * 3600 + om * 60);
	}
	else if (strict)
		return false;
	if (pos != len)
		return false;
	/* a leap second is 23:59:60 in UTC */
	return p->sec < 60 ||
		   ((p->hour * 60 + p->min - p->offset / 60) % 1440 + 1440) % 1440 ==
			   23 * 60 + 59;
}

bool
DocmodelParseIso8601(const char *s, int len, TimestampTz *result)
{
	IsoParts p;
	int64 days;

	if (!IsoScan(s, len, ISO_DATE | ISO_TIME, false, &p))
		return false;
	days = (int64) date2j(p.year, p.mon, p.mday) - POSTGRES_EPOCH_JDATE;
	*result = days * USECS_PER_DAY +
			  ((int64) ((p.hour * 60 + p.min) * 60 + p.sec) - p.offset) *
				  USECS_PER_SEC +
			  p.frac;
	return true;
}

bool
DocmodelIsRfc3339(const char *s, int len, int parts)
{
	IsoParts p;

	return IsoScan(s, len, parts, true, &p);
}

/* Write ts as ISO 8601 UTC text; see json/util.h. */
bool
DocmodelFormatIso8601(TimestampTz ts, char *buf)
{
	struct pg_tm tm;
	fsec_t fsec;

	/* no time zone given: the fields are UTC's, whatever the session says */
	if (timestamp2tm(ts, NULL, &tm, &fsec, NULL, NULL) != 0 || tm.tm_year < 0 ||
		tm.tm_year > 9999)
		return false;
	snprintf(buf, DOCMODEL_ISO8601_LEN + 1,
			 "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year, tm.tm_mon,
			 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int) (fsec / 1000));
	return true;
}

/* The units of epoch numbers, in nanoseconds. */
static const struct
{
	const char *name;
	int64 ns;
} EpochUnits[] = {{"ns", INT64CONST(1)},
				  {"us", INT64CONST(1000)},
				  {"ms", INT64CONST(1000000)},
				  {"s", INT64CONST(1000000000)},
				  {"min", INT64CONST(60000000000)},
				  {"h", INT64CONST(3600000000000)},
				  {"day", INT64CONST(86400000000000)}};

#define UNIX_EPOCH_US \
	((int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY)

bool
DocmodelEpochUnit(const char *name, int64 *ns)
{
	int i;

	for (i = 0; i < lengthof(EpochUnits); i++)
		if (strcmp(name, EpochUnits[i].name) == 0)
		{
			*ns = EpochUnits[i].ns;
			return true;
		}
	return false;
}

bool
DocmodelToEpoch(TimestampTz ts, int64 unit_ns, int64 *result)
{
	int64 us;
	int64 per;

	if (TIMESTAMP_NOT_FINITE(ts) || pg_add_s64_overflow(ts, UNIX_EPOCH_US, &us))
		return false;
	if (unit_ns < 1000)
		return !pg_mul_s64_overflow(us, 1000 / unit_ns, result);
	per = unit_ns / 1000;
	*result = us / per - (us % per != 0 && us < 0 ? 1 : 0); /* floor */
	return true;
}

bool
DocmodelFromEpoch(int64 n, int64 unit_ns, TimestampTz *result)
{
	int64 us;

	if (unit_ns < 1000)
		us =
			n / (1000 / unit_ns) - (n % (1000 / unit_ns) != 0 && n < 0 ? 1 : 0);
	else if (pg_mul_s64_overflow(n, unit_ns / 1000, &us))
		return false;
	if (pg_sub_s64_overflow(us, UNIX_EPOCH_US, result))
		return false;
	return IS_VALID_TIMESTAMP(*result);
}

/* Whether s (len bytes) is ASCII; see util.h. */
bool
DocmodelIsAscii(const char *s, int len)
{
	int i = 0;
	uint64 high = 0;

	for (; i + 8 <= len; i += 8)
	{
		uint64 w;

		memcpy(&w, s + i, 8);
		high |= w;
	}
	for (; i < len; i++)
		high |= (unsigned char) s[i];
	return (high & UINT64CONST(0x8080808080808080)) == 0;
}

/* The value of hexadecimal digit c; see util.h. */
int
DocmodelHexDigit(uint32 c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}
