/*-------------------------------------------------------------------------
 *
 * copy/copy.h
 *	  Copies and aggregates kept in step (copy.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_COPY_COPY_H
#define DOCMODEL_COPY_COPY_H

#include "fmgr.h"

/* SQL-callable. */
extern Datum copy_ref_keys(PG_FUNCTION_ARGS);
extern Datum copy_values(PG_FUNCTION_ARGS);
extern Datum copy_put(PG_FUNCTION_ARGS);
extern Datum copy_put_at(PG_FUNCTION_ARGS);
extern Datum copy_add_at(PG_FUNCTION_ARGS);
extern Datum copy_source_trigger(PG_FUNCTION_ARGS);
extern Datum copy_fill_trigger(PG_FUNCTION_ARGS);
extern Datum copy_aggregate_trigger(PG_FUNCTION_ARGS);
extern Datum copy_apply_copies_batch(PG_FUNCTION_ARGS);
extern Datum copy_apply_copies(PG_FUNCTION_ARGS);

#endif /* DOCMODEL_COPY_COPY_H */
