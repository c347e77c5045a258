/*-------------------------------------------------------------------------
 *
 * mapping/convert.h
 *	  Values between tables and documents (convert.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_MAPPING_CONVERT_H
#define DOCMODEL_MAPPING_CONVERT_H

#include "utils/array.h"
#include "utils/jsonb.h"

typedef struct DocmodelCompactOpts
{
	bool nulls;    /* drop members that are null */
	bool empties;  /* drop members that are "", [] or {} */
	bool guids;    /* strip the dashes of GUID strings */
	int64 date_ns; /* ISO 8601 strings to epoch numbers of this unit; 0: no */
} DocmodelCompactOpts;

/* Tell whether s is a dashed GUID (8-4-4-4-12 hexadecimal digits). */
extern bool DocmodelIsDashedGuid(const char *s, int len);

/* Tell whether v is null, "", [] or {} (an expanded container). */
extern bool DocmodelIsEmptyValue(const JsonbValue *v);

/*
 * Compact the tree at v in place as o says, bottom-up (a member emptied by
 * the dropping of its own members is dropped too); array elements are
 * converted but never dropped.
 */
extern void DocmodelCompact(JsonbValue *v, const DocmodelCompactOpts *o);

/* The value at path (a text[] of member names and array indexes, as #>
 * takes) in doc, or NULL when it is missing. */
extern JsonbValue *DocmodelValueAtPath(Jsonb *doc, ArrayType *path);

#endif /* DOCMODEL_MAPPING_CONVERT_H */
