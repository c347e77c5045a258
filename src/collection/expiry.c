/*-------------------------------------------------------------------------
 *
 * collection/expiry.c
 *	  Couchbase's expiry numbers and time arguments of the key-value API:
 *	  an expiry is NULL or 0 (none), seconds from now up to 30 days, a Unix
 *	  time above that, or an interval; preserve_expiry keeps the stored
 *	  one. No state.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"

#include "compat.h"
#include "collection/expiry.h"

/* Couchbase reads an expiry number above 30 days as a Unix time. */
#define KV_EXPIRY_RELATIVE_MAX 2592000

/* Raise 22023: a time argument (what) of type type. */
static pg_attribute_noreturn() void ExpiryBadType(const char *what, Oid type,
												  bool allow_time)
{
	ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					errmsg("%s must be an interval or a number of seconds%s",
						   what, allow_time ? ", or a time" : ""),
					errdetail("The %s given is of type %s.", what,
							  format_type_be(type))));
}

/*
 * Whether str reads as a date or a time stamp (YYYY-MM-DD...), as drivers
 * send a date: no interval is written so.
 */
static bool
ExpiryLooksLikeTime(const char *str)
{
	int i;

	for (i = 0; i < 4; i++)
		if (str[i] < '0' || str[i] > '9')
			return false;
	return str[4] == '-' && str[5] >= '0' && str[5] <= '9' && str[6] >= '0' &&
		   str[6] <= '9' && str[7] == '-';
}

/* Read the text of a time argument (str) into *out. */
static void
ExpiryTextArg(char *str, bool allow_time, DocmodelKvTimeArg *out)
{
	const char *p = str;

	while (*p == ' ')
		p++;
	if (allow_time && ExpiryLooksLikeTime(p))
	{
		out->is_time = true;
		out->time = DatumGetTimestampTz(DirectFunctionCall3(
			timestamptz_in, CStringGetDatum(str), ObjectIdGetDatum(InvalidOid),
			Int32GetDatum(-1)));
		return;
	}
	if (*p == '+' || *p == '-')
		p++;
	if (*p >= '0' && *p <= '9' && strspn(p, "0123456789 ") == strlen(p))
	{
		out->is_number = true;
		out->number = pg_strtoint64(str);
	}
	else if (*p >= '0' && *p <= '9' && strspn(p, "0123456789. ") == strlen(p))
	{
		out->is_number = true;
		out->number = DatumGetInt64(DirectFunctionCall1(
			numeric_int8, DirectFunctionCall3(numeric_in, CStringGetDatum(str),
											  ObjectIdGetDatum(InvalidOid),
											  Int32GetDatum(-1))));
	}
	else
		out->interval = DirectFunctionCall3(interval_in, CStringGetDatum(str),
											ObjectIdGetDatum(InvalidOid),
											Int32GetDatum(-1));
}

/*
 * Read argument argno ("any", or text for parameters a driver sends
 * untyped: an interval, an integer or numeric, or an untyped or text value
 * holding either; with allow_time, also a timestamptz, timestamp or date,
 * or text holding one) into *out; raise 22023 naming what for any other
 * type. The argument is declared "any" (every existing call keeps working:
 * interval values, untyped literals, NULL, Couchbase's numbers) with a text
 * overload, which an untyped parameter resolves to (PostgreSQL cannot give
 * a parameter the type "any").
 */
static void
ExpiryArgOf(FunctionCallInfo fcinfo, int argno, const char *what,
			bool allow_time, DocmodelKvTimeArg *out)
{
	Oid type = get_fn_expr_argtype(fcinfo->flinfo, argno);
	Datum d;
	char *str = NULL;

	memset(out, 0, sizeof(*out));
	out->isnull = PG_ARGISNULL(argno);
	if (out->isnull)
		return;
	d = PG_GETARG_DATUM(argno);
	switch (type)
	{
		case INT2OID:
			out->is_number = true;
			out->number = DatumGetInt16(d);
			break;
		case INT4OID:
			out->is_number = true;
			out->number = DatumGetInt32(d);
			break;
		case INT8OID:
			out->is_number = true;
			out->number = DatumGetInt64(d);
			break;
		case NUMERICOID:
			out->is_number = true;
			out->number = DatumGetInt64(DirectFunctionCall1(numeric_int8, d));
			break;
		case INTERVALOID:
			out->interval = d;
			break;
		case TIMESTAMPTZOID:
		case TIMESTAMPOID:
		case DATEOID:
			if (!allow_time)
				ExpiryBadType(what, type, allow_time);
			out->is_time = true;
			out->time = type == TIMESTAMPTZOID ? DatumGetTimestampTz(d)
						: type == TIMESTAMPOID
							? DatumGetTimestampTz(
								  DirectFunctionCall1(timestamp_timestamptz, d))
							: DatumGetTimestampTz(
								  DirectFunctionCall1(date_timestamptz, d));
			break;
		case UNKNOWNOID:
		case CSTRINGOID:
			str = DatumGetCString(d);
			break;
		case TEXTOID:
		case VARCHAROID:
			str = TextDatumGetCString(d);
			break;
		default:
			ExpiryBadType(what, type, allow_time);
	}
	if (str != NULL)
		ExpiryTextArg(str, allow_time, out);
	out->text =
		out->is_number ? psprintf(INT64_FORMAT, out->number)
		: out->is_time
			? pstrdup(timestamptz_to_str(out->time))
			: DatumGetCString(DirectFunctionCall1(interval_out, out->interval));
}

void
DocmodelKvTimeArgOf(FunctionCallInfo fcinfo, int argno, const char *what,
					DocmodelKvTimeArg *out)
{
	ExpiryArgOf(fcinfo, argno, what, false, out);
}

/* Return base plus interval. */
TimestampTz
DocmodelKvPlus(TimestampTz base, Datum interval)
{
	return DatumGetTimestampTz(DirectFunctionCall2(
		timestamptz_pl_interval, TimestampTzGetDatum(base), interval));
}

/*
 * Return the time an expiry argument (when given) ends, through *at; false
 * for none (NULL, or the number 0 as in Couchbase). A number is seconds
 * from now up to 30 days (2592000), and a Unix time above that; an
 * interval is from now. Raise 22023 unless the time lies in the future.
 */
bool
DocmodelKvExpiryAt(FunctionCallInfo fcinfo, int argno, const char *key,
				   TimestampTz *at)
{
	TimestampTz now = GetCurrentTransactionStartTimestamp();
	DocmodelKvTimeArg t;

	ExpiryArgOf(fcinfo, argno, "expiry", true, &t);
	if (t.isnull || (t.is_number && t.number == 0))
		return false;
	if (t.is_time)
		*at = t.time;
	else if (!t.is_number)
		*at = DocmodelKvPlus(now, t.interval);
	else if (t.number < 0)
		*at = now;
	else if (t.number <= KV_EXPIRY_RELATIVE_MAX)
		*at = now + t.number * USECS_PER_SEC;
	else if (t.number > (PG_INT64_MAX / USECS_PER_SEC) / 2)
		*at = DT_NOEND;
	else
		*at =
			t.number * USECS_PER_SEC -
			((int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY);
	if (*at <= now)
		ereport(
			ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("expiry must be positive"),
			 errdetail("Expiry %s given for document \"%s\"%s.", t.text, key,
					   t.is_number && t.number > KV_EXPIRY_RELATIVE_MAX
						   ? " (a number above 2592000, 30 days, is a "
							 "Unix time; this one has passed)"
						   : ""),
			 errhint("Give NULL or 0 for a document that does not "
					 "expire.")));
	return true;
}

/* Raise 22023 when preserve_expiry (argument pres) and expiry are both given. */
bool
DocmodelKvPreserveExpiry(FunctionCallInfo fcinfo, int pres, int expiry)
{
	/* absent from the 0.1.0 signatures, before the update */
	if (PG_NARGS() <= pres || PG_ARGISNULL(pres) || !PG_GETARG_BOOL(pres))
		return false;
	if (!PG_ARGISNULL(expiry))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("preserve_expiry and expiry cannot both be given"),
				 errhint("preserve_expiry keeps the stored expiry; leave out "
						 "expiry, or preserve_expiry to set a new one.")));
	return true;
}
