/*-------------------------------------------------------------------------
 *
 * migrate/steps_time.c
 *	  The migration steps on times: to_epoch, from_epoch and format_date,
 *	  reading ISO 8601 or a to_timestamp template ("input") and writing
 *	  epoch numbers or ISO 8601 UTC, the same in every session. No state.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_collation.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "regex/regex.h"
#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/datetime.h"
#include "utils/formatting.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

#include "compat.h"
#include "json/patch.h"
#include "json/pointer.h"
#include "json/tree.h"
#include "json/util.h"
#include "mapping/convert.h"
#include "migrate/step_util.h"
#include "migrate/steps_time.h"

/*
 * PostgreSQL's parse_datetime() (formatting.c, what jsonpath's .datetime()
 * uses), strict: text read by a to_timestamp template, its type (date,
 * timestamp, timestamptz, time, timetz) in *typid, soft errors reported in
 * *failed instead of raised (compat.h: the parameter that says so differs
 * between majors).
 */
static Datum
ParseDatetimeSoft(text *value, text *template, Oid *typid, bool *failed)
{
	int32 typmod;
	int tz = 0;

	return DocmodelParseDatetime(value, template, C_COLLATION_OID, true, typid,
								 &typmod, &tz, failed);
}

/*
 * The time string v says, read by the step's "input" template (a
 * to_timestamp template, CheckInputTemplate's): the same in every session,
 * a template without a zone read as UTC (a date: its midnight, UTC); in a
 * write rule a string that does not match it but is ISO 8601 (the step's
 * own output) is read as ISO 8601; 22007 when v is neither or the template
 * gives no date, 22008 outside years 0000-9999.
 */
static TimestampTz
ParseTimeAs(ApplyCx *cx, const Step *st, const JsonbValue *v)
{
	Oid typid = InvalidOid;
	bool failed = false;
	Datum d;
	TimestampTz ts = 0;
	char *tmpl = text_to_cstring(st->input);
	char isobuf[DOCMODEL_ISO8601_LEN + 1];

	d = ParseDatetimeSoft(
		cstring_to_text_with_len(v->val.string.val, v->val.string.len),
		st->input, &typid, &failed);
	if (!failed && typid == DATEOID)
	{
		DateADT date = DatumGetDateADT(d);

		if (DATE_NOT_FINITE(date))
			failed = true;
		else if (date < -1000000 || date > 3000000)
			ts = DT_NOEND; /* far outside 0000-9999: refused below */
		else
			ts = (TimestampTz) date * USECS_PER_DAY; /* midnight, UTC */
	}
	else if (!failed && typid == TIMESTAMPOID)
		ts = DatumGetTimestamp(d); /* no zone: UTC */
	else if (!failed && typid == TIMESTAMPTZOID)
		ts = DatumGetTimestampTz(d);
	else if (!failed)
		StepFailCode(cx, st, st->path.text, ERRCODE_INVALID_DATETIME_FORMAT,
					 "Give a template with a date (YYYY, MM, DD, Mon, ...).",
					 "template \"%s\" reads no date from \"%.*s\"", tmpl,
					 v->val.string.len, v->val.string.val);
	/* a write rule runs on every write, also of a document it has set: its
	 * step reads what it writes (ISO 8601) back as it is (a migration's
	 * template stays strict) */
	if (failed && cx->write_rule &&
		DocmodelParseIso8601(v->val.string.val, v->val.string.len, &ts))
		return ts;
	if (failed)
		StepFailCode(cx, st, st->path.text, ERRCODE_INVALID_DATETIME_FORMAT,
					 "The input template is read as to_timestamp() reads it "
					 "(month names in English), strictly: the whole string.",
					 "\"%.*s\" does not match the template \"%s\"",
					 v->val.string.len, v->val.string.val, tmpl);
	/* the years the ISO 8601 forms have: 0000 to 9999 */
	if (!DocmodelFormatIso8601(ts, isobuf))
		StepFailCode(cx, st, st->path.text, ERRCODE_DATETIME_VALUE_OUT_OF_RANGE,
					 "Dates run from year 0000 to 9999.",
					 "\"%.*s\" is outside years 0000 to 9999",
					 v->val.string.len, v->val.string.val);
	return ts;
}

/*
 * Return the time the ISO 8601 string v says. Only the forms
 * DocmodelParseIso8601 reads, the same in every session; anything else is
 * 22007.
 */
static TimestampTz
ParseTime(ApplyCx *cx, const Step *st, const JsonbValue *v)
{
	TimestampTz ts;

	if (st->input != NULL)
		return ParseTimeAs(cx, st, v);
	if (!DocmodelParseIso8601(v->val.string.val, v->val.string.len, &ts))
		StepFailCode(cx, st, st->path.text, ERRCODE_INVALID_DATETIME_FORMAT,
					 "Write a date as 2024-01-02 or a date-time as "
					 "2024-01-02T03:04:05.678+01:00; without an offset it is "
					 "UTC.",
					 "\"%.*s\" is not an ISO 8601 date or date-time",
					 v->val.string.len, v->val.string.val);
	return ts;
}

/* to_epoch: replace an ISO 8601 string at path by its epoch in the step's
 * unit (floored). */
void
DocmodelStepToEpoch(ApplyCx *cx, const Step *st, JsonbValue *root)
{
	JsonbValue *v = DocmodelStepResolveAs(cx, st, root, jbvString,
										  "an ISO-8601 string", true);
	TimestampTz ts;
	int64 q;

	if (v == NULL)
		return;
	ts = ParseTime(cx, st, v);
	(void) DocmodelToEpoch(ts, st->unit_us * 1000, &q); /* 0000-9999 fits */
	v->type = jbvNumeric;
	v->val.numeric = int64_to_numeric(q);
}

/*
 * Return the epoch number v (in the step's unit) as ISO 8601 UTC text with
 * milliseconds (DOCMODEL_ISO8601_LEN bytes), computed in numeric (a double
 * loses microseconds past the year 2255); 22008 outside years 0000-9999.
 */
static char *
FormatEpoch(ApplyCx *cx, const Step *st, const JsonbValue *v)
{
	const char *path = st->path.text;
	Datum us;
	double approx;
	char *buf;

	us = DirectFunctionCall2(numeric_mul, NumericGetDatum(v->val.numeric),
							 NumericGetDatum(int64_to_numeric(st->unit_us)));
	us = DirectFunctionCall2(numeric_round, us, Int32GetDatum(0));
	approx = DatumGetFloat8(DirectFunctionCall1(numeric_float8, us));
	buf = palloc(DOCMODEL_ISO8601_LEN + 1);
	/* years 0000 to 9999 lie well inside int64 microseconds */
	if (!(fabs(approx) < 1e18) ||
		!DocmodelFormatIso8601(
			DatumGetInt64(DirectFunctionCall1(numeric_int8, us)) -
				(int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) *
					USECS_PER_DAY,
			buf))
		StepFailCode(cx, st, path, ERRCODE_DATETIME_VALUE_OUT_OF_RANGE, NULL,
					 "epoch %s is out of range (years 0000 to 9999)",
					 DatumGetCString(DirectFunctionCall1(
						 numeric_out, NumericGetDatum(v->val.numeric))));
	return buf;
}

/* from_epoch: replace an epoch number at path by ISO 8601 UTC text. */
void
DocmodelStepFromEpoch(ApplyCx *cx, const Step *st, JsonbValue *root)
{
	JsonbValue *v = DocmodelStepResolveAs(cx, st, root, jbvNumeric,
										  "an epoch number", true);

	if (v == NULL)
		return;
	*v = DocmodelJsonTreeString(FormatEpoch(cx, st, v), DOCMODEL_ISO8601_LEN);
}

/*
 * format_date: write the date (YYYY-MM-DD) or date-time (ISO 8601 UTC, with
 * milliseconds) that an ISO 8601 string or an epoch number (in the step's
 * unit) at path says; UTC, whatever the session's TimeZone.
 */
void
DocmodelStepFormatDate(ApplyCx *cx, const Step *st, JsonbValue *root)
{
	JsonbValue *v = DocmodelStepResolve(root, &st->path);
	char *buf;

	if (v == NULL || v->type == jbvNull)
		return;
	if (v->type == jbvNumeric)
		buf = FormatEpoch(cx, st, v);
	else if (v->type == jbvString)
	{
		buf = palloc(DOCMODEL_ISO8601_LEN + 1);
		/* years 0000 to 9999, as the parser reads them */
		(void) DocmodelFormatIso8601(ParseTime(cx, st, v), buf);
	}
	else
		StepFail(cx, st, st->path.text,
				 "expected an ISO 8601 string or an epoch number, found %s",
				 DocmodelJsonTreeTypeName(v));
	*v = DocmodelJsonTreeString(buf, st->date_only ? 10 : DOCMODEL_ISO8601_LEN);
}
