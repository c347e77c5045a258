/*-------------------------------------------------------------------------
 *
 * migrate/kept.h
 *	  A document tree's version field and kept complement (kept.c), for
 *	  the chain runner (migrate.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_MIGRATE_KEPT_H
#define DOCMODEL_MIGRATE_KEPT_H

#include "utils/jsonb.h"

#include "collection/fields.h"

/* The member, beside the schema field, keeping what a way down dropped. */
#define KEPT_NAME "_kept"
#define KEPT_LEN 5

/*
 * The object holding the management fields of a document tree (the root,
 * or its container member); with create, a missing container is made.
 * NULL when there is none.
 */
extern JsonbValue *DocmodelFieldsHolder(JsonbValue *root, const DocFieldSet *fs,
										bool create);

/* Set the schema version field (named as in fs) of a document tree. */
extern void DocmodelSetVersion(JsonbValue *root, const DocFieldSet *fs,
							   const char *text);

/* Take the "_kept" object out of a tree (expanded), or NULL. */
extern JsonbValue *DocmodelTakeKept(JsonbValue *root, const DocFieldSet *fs);

/* Put kept (nothing when empty or NULL) back into a tree. */
extern void DocmodelPutKept(JsonbValue *root, const DocFieldSet *fs,
							JsonbValue *kept);

/* Merge the members of add into into (add's win); either may be NULL. */
extern JsonbValue *DocmodelMergeKept(JsonbValue *into, JsonbValue *add);

/*
 * Whether a stored document (NULL: none) holds "_kept" beside its fields:
 * one binary search, no tree.
 */
extern bool DocmodelHasKept(Jsonb *old, const DocFieldSet *fs);

#endif /* DOCMODEL_MIGRATE_KEPT_H */
