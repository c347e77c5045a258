/*-------------------------------------------------------------------------
 *
 * collection/expiry.h
 *	  Couchbase's expiry numbers and time arguments (expiry.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_COLLECTION_EXPIRY_H
#define DOCMODEL_COLLECTION_EXPIRY_H

#include "fmgr.h"
#include "utils/timestamp.h"

/*
 * A time argument: NULL, a number of seconds, an interval, or (an expiry
 * only) a point in time.
 */
typedef struct DocmodelKvTimeArg
{
	bool isnull;
	bool is_number;
	int64 number;
	bool is_time;
	TimestampTz time;
	Datum interval;
	char *text; /* as given, for messages */
} DocmodelKvTimeArg;

/*
 * Read argument argno ("any" or text: an interval, an integer or numeric,
 * or an untyped or text value holding either) into *out; 22023 naming what
 * otherwise.
 */
extern void DocmodelKvTimeArgOf(FunctionCallInfo fcinfo, int argno,
								const char *what, DocmodelKvTimeArg *out);
/* base plus interval. */
extern TimestampTz DocmodelKvPlus(TimestampTz base, Datum interval);
/*
 * The time an expiry argument (when given) ends, through *at; false for
 * none (NULL, or the number 0 as in Couchbase); 22023 unless in the future.
 */
extern bool DocmodelKvExpiryAt(FunctionCallInfo fcinfo, int argno,
							   const char *key, TimestampTz *at);
/* Whether preserve_expiry (argument pres) is on; 22023 when expiry is also
 * given. */
extern bool DocmodelKvPreserveExpiry(FunctionCallInfo fcinfo, int pres,
									 int expiry);

#endif /* DOCMODEL_COLLECTION_EXPIRY_H */
