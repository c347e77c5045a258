/*-------------------------------------------------------------------------
 *
 * mapping/relational.h
 *	  Values between tables and documents: compaction of a document tree
 *	  (the one walker that drops null and empty members, used by compact()
 *	  and the drop_empty migration step).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_RELATIONAL_H
#define DOCMODEL_RELATIONAL_H

#include "utils/jsonb.h"

/* Cache invalidation subscriber (init.c's dispatcher; no catalog access, no error). */
extern void DocmodelProjectionRelcache(Oid relid);

#endif /* DOCMODEL_RELATIONAL_H */
