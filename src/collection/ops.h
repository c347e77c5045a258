/*-------------------------------------------------------------------------
 *
 * collection/ops.h
 *	  Imports, key renames and buckets (ops.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_COLLECTION_OPS_H
#define DOCMODEL_COLLECTION_OPS_H

#include "fmgr.h"

/* SQL-callable. */
extern Datum collection_rename_key(PG_FUNCTION_ARGS);
extern Datum key_exists_error(PG_FUNCTION_ARGS);
extern Datum collection_bucket_append(PG_FUNCTION_ARGS);

#endif /* DOCMODEL_COLLECTION_OPS_H */
