/*-------------------------------------------------------------------------
 *
 * counter/counter.h
 *	  Counters (counter.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_COUNTER_COUNTER_H
#define DOCMODEL_COUNTER_COUNTER_H

#include "fmgr.h"

/* SQL-callable. */
extern Datum counter_create(PG_FUNCTION_ARGS);
extern Datum counter_incr(PG_FUNCTION_ARGS);
extern Datum counter_decrement(PG_FUNCTION_ARGS);
extern Datum counter_value(PG_FUNCTION_ARGS);
extern Datum counter_advance(PG_FUNCTION_ARGS);
extern Datum counter_drop(PG_FUNCTION_ARGS);
extern Datum counter_next_id(PG_FUNCTION_ARGS);
extern Datum counter_next_key(PG_FUNCTION_ARGS);
extern Datum counter_keys(PG_FUNCTION_ARGS);
extern Datum counter_next_key_in(PG_FUNCTION_ARGS);
extern Datum counter_state_value(PG_FUNCTION_ARGS);
extern Datum counter_state_guard(PG_FUNCTION_ARGS);
/* Cache invalidation subscribers (init.c's dispatcher; no catalog access, no error). */
extern void DocmodelCounterRelcache(Oid relid);
extern void DocmodelCounterSyscache(int cacheid, uint32 hashvalue);

#endif /* DOCMODEL_COUNTER_COUNTER_H */
