/*-------------------------------------------------------------------------
 *
 * history/revision.h
 *	  Revisions: the history hooks the collection trigger calls (RFC 6902
 *	  patch is in json/patch.h).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_REVISION_H
#define DOCMODEL_REVISION_H

#include "fmgr.h"
#include "utils/jsonb.h"
#include "utils/relcache.h"

#include "collection/config.h"

/*
 * The history half of the collection trigger: call it from the trigger
 * function for an AFTER INSERT OR UPDATE OR DELETE row event or a BEFORE
 * TRUNCATE statement event (the trigger's one argument is the
 * configuration id). Writes the prior body as revision _ver (op 'update',
 * 'delete', 'expire' when written over after its expiry, 'truncate'),
 * skips no-op updates (those that leave _ver as it was), prunes to the
 * configured number of revisions, returns NULL. As an AFTER trigger it
 * sees only writes that happened (not one a later BEFORE trigger
 * cancelled), and a later error rolls its writes back.
 */
extern Datum DocmodelRevisionTrigger(FunctionCallInfo fcinfo);

/*
 * The _ver a new document with key id (a text datum) starts at: above the
 * newest revision of that key (numbering never restarts after a delete),
 * at least floor (1, or the _ver after an expired document's); floor
 * without a history table. Call it from the BEFORE INSERT path; coll is
 * the collection relation when the caller holds no row lock on the key (a
 * new row: the key's other writers are waited for first), NULL when it
 * does (an update over an expired document). 22003 when the newest
 * revision is the last version there is.
 */
extern int32 DocmodelRevisionFirstVer(const DocmodelCollection *cfg,
									  Relation coll, Datum id, int32 floor);

/*
 * Prune the history of a collection to its keep and keep_for (the write
 * path prunes one key at a time); return how many revisions went.
 */
extern int64 DocmodelRevisionPurge(const DocmodelCollection *cfg);

/* SQL: the version, modified time and modifier a document's stamps give. */
extern Datum history_stamps(PG_FUNCTION_ARGS);

#endif /* DOCMODEL_REVISION_H */
