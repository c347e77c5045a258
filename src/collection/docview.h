/*-------------------------------------------------------------------------
 *
 * collection/docview.h
 *	  The documents view's INSTEAD OF trigger (docview.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_COLLECTION_DOCVIEW_H
#define DOCMODEL_COLLECTION_DOCVIEW_H

#include "fmgr.h"

extern void DocmodelDocviewRelcache(Oid relid);
extern Datum docview_documents_trigger(PG_FUNCTION_ARGS);

#endif /* DOCMODEL_COLLECTION_DOCVIEW_H */
