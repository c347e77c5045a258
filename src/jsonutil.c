/*-------------------------------------------------------------------------
 *
 * jsonutil.c
 *	  ISO 8601 dates and date-times as documents carry them, read and
 *	  written the same in every session (migration steps, document.c).
 *	  No shared state. JSON Pointers are in jsonpointer.c, the document
 *	  tree and its equality in jsontree.c.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "jsonutil.h"

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

bool
DocmodelParseIso8601(const char *s, int len, TimestampTz *result)
{
	int pos = 0;
	int year;
	int mon;
	int mday;
	int hour = 0;
	int min = 0;
	int sec = 0;
	int64 frac = 0;
	int offset = 0; /* seconds east of UTC */
	int64 days;

	if (!IsoDigits(s, len, &pos, 4, &year) || pos >= len || s[pos++] != '-' ||
		!IsoDigits(s, len, &pos, 2, &mon) || pos >= len || s[pos++] != '-' ||
		!IsoDigits(s, len, &pos, 2, &mday))
		return false;
	if (mon < 1 || mon > 12 || mday < 1 ||
		mday > day_tab[isleap(year) ? 1 : 0][mon - 1])
		return false;
	if (pos < len)
	{
		if (s[pos] != 'T' && s[pos] != 't' && s[pos] != ' ')
			return false;
		pos++;
		if (!IsoDigits(s, len, &pos, 2, &hour) || pos >= len ||
			s[pos++] != ':' || !IsoDigits(s, len, &pos, 2, &min))
			return false;
		if (pos < len && s[pos] == ':')
		{
			pos++;
			if (!IsoDigits(s, len, &pos, 2, &sec))
				return false;
			if (pos < len && (s[pos] == '.' || s[pos] == ','))
			{
				int ndigits = 0;

				pos++;
				while (pos < len && s[pos] >= '0' && s[pos] <= '9')
				{
					if (ndigits++ < 6)
						frac = frac * 10 + (s[pos] - '0');
					pos++;
				}
				if (ndigits == 0)
					return false;
				for (; ndigits < 6; ndigits++)
					frac *= 10;
			}
		}
		if (hour > 23 || min > 59 || sec > 59)
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
			else if (pos < len && !IsoDigits(s, len, &pos, 2, &om))
				return false;
			if (oh > 23 || om > 59)
				return false;
			offset = sign * (oh * 3600 + om * 60);
		}
		if (pos != len)
			return false;
	}
	days = (int64) date2j(year, mon, mday) - POSTGRES_EPOCH_JDATE;
	*result =
		days * USECS_PER_DAY +
		((int64) ((hour * 60 + min) * 60 + sec) - offset) * USECS_PER_SEC +
		frac;
	return true;
}

/* Write ts as ISO 8601 UTC text; see jsonutil.h. */
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
