/*-------------------------------------------------------------------------
 *
 * collection/metastyle.h
 *	  set_meta_style: a populated collection converted between the
 *	  underscore and columns meta styles, batch by batch (metastyle.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_COLLECTION_METASTYLE_H
#define DOCMODEL_COLLECTION_METASTYLE_H

#include "fmgr.h"
#include "commands/trigger.h"

extern bool DocmodelMetaStyleConverting(TriggerData *td);

extern Datum metastyle_batch(PG_FUNCTION_ARGS);
extern Datum metastyle_set_meta_style(PG_FUNCTION_ARGS);

#endif /* DOCMODEL_COLLECTION_METASTYLE_H */
