/*-------------------------------------------------------------------------
 *
 * version.c
 *	  The docmodel.version base type for schema versions (1, 1.0, 1.10,
 *	  2.5.1): input/output, binary send/receive, comparison, hashing and
 *	  casts. Versions compare part by part numerically, missing parts counting
 *	  as zero, so 1.10 > 1.9 and 2 = 2.0. No shared state.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "libpq/pqformat.h"
#include "utils/builtins.h"

#include "compat.h"
#include "version.h"

PG_FUNCTION_INFO_V1(version_in);
PG_FUNCTION_INFO_V1(version_out);
PG_FUNCTION_INFO_V1(version_recv);
PG_FUNCTION_INFO_V1(version_send);
PG_FUNCTION_INFO_V1(version_from_text);
PG_FUNCTION_INFO_V1(version_to_text);
PG_FUNCTION_INFO_V1(version_cmp);
PG_FUNCTION_INFO_V1(version_larger);
PG_FUNCTION_INFO_V1(version_smaller);
PG_FUNCTION_INFO_V1(version_hash);
PG_FUNCTION_INFO_V1(version_hash_extended);

/* Allocate a version of n parts. */
static DocVersion *
AllocVersion(int nparts)
{
	Size size = offsetof(DocVersion, parts) + sizeof(int32) * nparts;
	DocVersion *v = (DocVersion *) palloc0(size);

	SET_VARSIZE(v, size);
	v->nparts = nparts;
	return v;
}

/* Parse a version from len bytes of str; see version.h. */
static DocVersion *
ParseVersion(const char *str, int len, bool raise)
{
	int32 parts[DOCVERSION_MAX_PARTS];
	int nparts = 0;
	int i = 0;
	const char *why = NULL;
	DocVersion *v;

	if (len == 0)
		why = "A version is one or more numbers separated by dots.";
	while (why == NULL && i < len)
	{
		int64 n = 0;
		int start = i;

		while (i < len && str[i] >= '0' && str[i] <= '9')
		{
			n = n * 10 + (str[i] - '0');
			if (n > PG_INT32_MAX)
			{
				why = "A version part may not exceed 2147483647.";
				break;
			}
			i++;
		}
		if (why)
			break;
		if (i == start)
		{
			why = "A version is one or more numbers separated by dots.";
			break;
		}
		if (nparts == DOCVERSION_MAX_PARTS)
		{
			why = psprintf("A version has at most %d parts.",
						   DOCVERSION_MAX_PARTS);
			break;
		}
		parts[nparts++] = (int32) n;
		if (i < len)
		{
			if (str[i] != '.' || i + 1 == len)
			{
				why = "A version is one or more numbers separated by dots.";
				break;
			}
			i++;
		}
	}
	if (why)
	{
		if (!raise)
			return NULL;
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type version: \"%.*s\"", len,
						str),
				 errdetail("%s", why),
				 errhint("Write versions like 1, 1.0, 1.10 or 2.5.1.")));
	}
	v = AllocVersion(nparts);
	memcpy(v->parts, parts, sizeof(int32) * nparts);
	return v;
}

DocVersion *
DocmodelVersionFromCString(const char *str, bool raise)
{
	return ParseVersion(str, strlen(str), raise);
}

char *
DocmodelVersionToCString(const DocVersion *v)
{
	StringInfoData buf;
	int i;

	initStringInfo(&buf);
	for (i = 0; i < v->nparts; i++)
	{
		if (i > 0)
			appendStringInfoChar(&buf, '.');
		appendStringInfo(&buf, "%d", v->parts[i]);
	}
	return buf.data;
}

int
DocmodelVersionCmp(const DocVersion *a, const DocVersion *b)
{
	int n = Max(a->nparts, b->nparts);
	int i;

	for (i = 0; i < n; i++)
	{
		int32 x = i < a->nparts ? a->parts[i] : 0;
		int32 y = i < b->nparts ? b->parts[i] : 0;

		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

/* Return how many parts count for equality (trailing zeros dropped). */
static int
SignificantParts(const DocVersion *v)
{
	int n = v->nparts;

	while (n > 1 && v->parts[n - 1] == 0)
		n--;
	return n;
}

/* Input function: text form to version. */
Datum
version_in(PG_FUNCTION_ARGS)
{
	char *str = PG_GETARG_CSTRING(0);

	PG_RETURN_DOCVERSION_P(DocmodelVersionFromCString(str, true));
}

/* Output function: version to text form. */
Datum
version_out(PG_FUNCTION_ARGS)
{
	DocVersion *v = PG_GETARG_DOCVERSION_P(0);

	PG_RETURN_CSTRING(DocmodelVersionToCString(v));
}

/* Binary input: a part count, then the parts. */
Datum
version_recv(PG_FUNCTION_ARGS)
{
	StringInfo buf = (StringInfo) PG_GETARG_POINTER(0);
	int32 nparts = pq_getmsgint(buf, 4);
	DocVersion *v;
	int i;

	if (nparts < 1 || nparts > DOCVERSION_MAX_PARTS)
		ereport(ERROR, (errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
						errmsg("invalid number of version parts: %d", nparts)));
	v = AllocVersion(nparts);
	for (i = 0; i < nparts; i++)
	{
		v->parts[i] = pq_getmsgint(buf, 4);
		if (v->parts[i] < 0)
			ereport(ERROR, (errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
							errmsg("invalid version part: %d", v->parts[i])));
	}
	PG_RETURN_DOCVERSION_P(v);
}

/* Binary output: a part count, then the parts. */
Datum
version_send(PG_FUNCTION_ARGS)
{
	DocVersion *v = PG_GETARG_DOCVERSION_P(0);
	StringInfoData buf;
	int i;

	pq_begintypsend(&buf);
	pq_sendint32(&buf, v->nparts);
	for (i = 0; i < v->nparts; i++)
		pq_sendint32(&buf, v->parts[i]);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/* Cast text to version. */
Datum
version_from_text(PG_FUNCTION_ARGS)
{
	text *t = PG_GETARG_TEXT_PP(0);

	PG_RETURN_DOCVERSION_P(
		ParseVersion(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), true));
}

/* Cast version to text. */
Datum
version_to_text(PG_FUNCTION_ARGS)
{
	DocVersion *v = PG_GETARG_DOCVERSION_P(0);

	PG_RETURN_TEXT_P(cstring_to_text(DocmodelVersionToCString(v)));
}

/* Compare the two arguments as versions. */
static inline int
CmpArgs(FunctionCallInfo fcinfo)
{
	return DocmodelVersionCmp(PG_GETARG_DOCVERSION_P(0),
							  PG_GETARG_DOCVERSION_P(1));
}

/* btree support: -1, 0 or 1. */
Datum
version_cmp(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(CmpArgs(fcinfo));
}

/* The operators =, <>, <, <=, >, >=: name, and the test of CmpArgs. */
#define VERSION_OPERATOR(name, test)          \
	PG_FUNCTION_INFO_V1(name);                \
	Datum name(PG_FUNCTION_ARGS)              \
	{                                         \
		PG_RETURN_BOOL(CmpArgs(fcinfo) test); \
	}

VERSION_OPERATOR(version_eq, == 0)
VERSION_OPERATOR(version_ne, != 0)
VERSION_OPERATOR(version_lt, < 0)
VERSION_OPERATOR(version_le, <= 0)
VERSION_OPERATOR(version_gt, > 0)
VERSION_OPERATOR(version_ge, >= 0)

/* Return the larger version (for max()). */
Datum
version_larger(PG_FUNCTION_ARGS)
{
	PG_RETURN_DATUM(CmpArgs(fcinfo) >= 0 ? PG_GETARG_DATUM(0)
										 : PG_GETARG_DATUM(1));
}

/* Return the smaller version (for min()). */
Datum
version_smaller(PG_FUNCTION_ARGS)
{
	PG_RETURN_DATUM(CmpArgs(fcinfo) <= 0 ? PG_GETARG_DATUM(0)
										 : PG_GETARG_DATUM(1));
}

/* Hash the significant parts, so equal versions (2, 2.0) hash alike. */
Datum
version_hash(PG_FUNCTION_ARGS)
{
	DocVersion *v = PG_GETARG_DOCVERSION_P(0);

	return hash_any((const unsigned char *) v->parts,
					sizeof(int32) * SignificantParts(v));
}

/* Seeded hash of the significant parts. */
Datum
version_hash_extended(PG_FUNCTION_ARGS)
{
	DocVersion *v = PG_GETARG_DOCVERSION_P(0);

	return hash_any_extended((const unsigned char *) v->parts,
							 sizeof(int32) * SignificantParts(v),
							 PG_GETARG_INT64(1));
}
