/*-------------------------------------------------------------------------
 *
 * revision.h
 *	  Revisions: RFC 6902 patch for other concerns (migrations may apply
 *	  the standard ops with it), and the history hooks the collection
 *	  trigger calls.
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
 * Apply an RFC 6902 patch (a jsonb array of operations) to doc and return
 * the result. Raises 22023 for a malformed patch, 22000 for an operation
 * that cannot apply (missing path, failing test), naming the operation's
 * index (from 0), op and path.
 */
extern Jsonb *DocmodelPatch(Jsonb *doc, Jsonb *patch);

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
