/*-------------------------------------------------------------------------
 *
 * mapping/advise.h
 *	  advise(): what a collection could save (advise.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_MAPPING_ADVISE_H
#define DOCMODEL_MAPPING_ADVISE_H

#include "fmgr.h"

/* SQL-callable. */
extern Datum mapping_advise(PG_FUNCTION_ARGS);

#endif /* DOCMODEL_MAPPING_ADVISE_H */
