/*-------------------------------------------------------------------------
 *
 * revision.h
 *	  Revisions: the history hooks the collection trigger calls (RFC 6902
 *	  patch is in jsonpatch.h).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_REVISION_H
#define DOCMODEL_REVISION_H

#include "fmgr.h"
#include "utils/jsonb.h"
#include "utils/relcache.h"

#include "collection.h"

/*
 * The history half of the collection trigger: call it from the trigger
 * function for an AFTER UPDATE OR DELETE row event or a BEFORE TRUNCATE
 * statement event (the trigger's one argument is the configuration id).
 * Writes the prior body as revision _ver (op 'update', 'delete', 'expire'
 * when written over after its expiry, 'truncate'), skips no-op updates
 * (those that leave _ver as it was),
 * prunes to the configured number of revisions, returns NULL.
 */
extern Datum DocmodelRevisionTrigger(FunctionCallInfo fcinfo);

/*
 * The _ver a new document with key id (a text datum) starts at: above the
 * newest revision of that key, at least floor (1, or the _ver after an
 * expired document's). Call it from the BEFORE INSERT path; coll is the
 * collection relation when the caller holds no row lock on the key (a new
 * row), NULL when it does (an update over an expired document).
 */
extern int32 DocmodelRevisionFirstVer(const DocmodelCollection *cfg,
									  Relation coll, Datum id, int32 floor);

#endif /* DOCMODEL_REVISION_H */
