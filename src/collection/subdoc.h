/*-------------------------------------------------------------------------
 *
 * collection/subdoc.h
 *	  The sub-document API (subdoc.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_COLLECTION_SUBDOC_H
#define DOCMODEL_COLLECTION_SUBDOC_H

#include "fmgr.h"

/* SQL-callable. */
extern Datum subdoc_lookup_in(PG_FUNCTION_ARGS);
extern Datum subdoc_mutate_in(PG_FUNCTION_ARGS);
extern Datum subdoc_mutate_in_apply(PG_FUNCTION_ARGS);

#endif /* DOCMODEL_COLLECTION_SUBDOC_H */
