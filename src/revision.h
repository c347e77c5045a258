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

#include "utils/jsonb.h"

/*
 * Apply an RFC 6902 patch (a jsonb array of operations) to doc and return
 * the result. Raises 22023 for a malformed patch, 22000 for an operation
 * that cannot apply (missing path, failing test), naming the operation's
 * index (from 0), op and path.
 */
extern Jsonb *DocmodelPatch(Jsonb *doc, Jsonb *patch);

#endif /* DOCMODEL_REVISION_H */
