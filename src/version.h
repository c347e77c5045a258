/*-------------------------------------------------------------------------
 *
 * version.h
 *	  The docmodel.version type: schema versions such as 1, 1.0, 1.10, 2.5.1,
 *	  compared part by part numerically (1.10 > 1.9, 2 = 2.0).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_VERSION_H
#define DOCMODEL_VERSION_H

#include "fmgr.h"

/*
 * A version is a varlena holding its numeric parts as written (so "2.0"
 * prints as "2.0"); comparison and hashing ignore trailing zero parts.
 */
typedef struct DocVersion
{
	int32 vl_len_; /* varlena header (do not touch directly) */
	int32 nparts;  /* number of parts, at least 1 */
	int32 parts[FLEXIBLE_ARRAY_MEMBER];
} DocVersion;

#define DOCVERSION_MAX_PARTS 16

#define DatumGetDocVersionP(X) ((DocVersion *) PG_DETOAST_DATUM(X))
#define PG_GETARG_DOCVERSION_P(n) DatumGetDocVersionP(PG_GETARG_DATUM(n))
#define PG_RETURN_DOCVERSION_P(x) PG_RETURN_POINTER(x)

/*
 * Parse a version; on bad input raise 22P02 naming the text, or return NULL
 * when raise is false.
 */
extern DocVersion *DocmodelVersionFromCString(const char *str, bool raise);

/* Return the text form of a version, palloc'd. */
extern char *DocmodelVersionToCString(const DocVersion *v);

/* Compare two versions part by part; missing parts count as 0. */
extern int DocmodelVersionCmp(const DocVersion *a, const DocVersion *b);

#endif /* DOCMODEL_VERSION_H */
