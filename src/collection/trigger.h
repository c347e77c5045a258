/*-------------------------------------------------------------------------
 *
 * collection/trigger.h
 *	  The collection trigger (trigger.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_COLLECTION_TRIGGER_H
#define DOCMODEL_COLLECTION_TRIGGER_H

#include "fmgr.h"

/* SQL-callable. */
extern Datum collection_trigger(PG_FUNCTION_ARGS);

#endif /* DOCMODEL_COLLECTION_TRIGGER_H */
