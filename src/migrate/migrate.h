/*-------------------------------------------------------------------------
 *
 * migrate/migrate.h
 *	  Schema-version migrations (migrate.c), offered to the collection
 *	  trigger (migrate on write) and to get() (migrate on read).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_MIGRATE_H
#define DOCMODEL_MIGRATE_H

#include "access/htup.h"
#include "access/tupdesc.h"
#include "utils/jsonb.h"

#include "collection/fields.h"
#include "collection/version.h"

/*
 * Migrate a document whose management fields are fs (NULL: any meta style,
 * fields.h's DOC_META_AUTO) to version target of its type (NULL: the
 * type's current version), applying every registered step in order and
 * setting the schema field. Returns doc itself (the same pointer) when
 * nothing changes: no type field, a type without migrations, or a version
 * at or above the target. A document without a schema field is taken to be
 * at the type's oldest registered version (the collection trigger calls
 * DocmodelMigrateOnWrite instead). key (may be NULL) is named in errors.
 *
 * Errors: 22000 when a step cannot apply, 22P02 for a bad version text in
 * the document, 22023 for a target no chain reaches.
 *
 * scope: the collection_config id of the document's collection (0: none);
 * a collection with rules of its own for the type uses them, others the
 * type's global rules. Only active rules apply (migration_rules.active).
 */
extern Jsonb *DocmodelMigrateIn(Jsonb *doc, const DocVersion *target,
								const char *key, const DocFieldSet *fs,
								int32 scope);

/*
 * Migrate on write (the collection trigger, at its "schema version" marker):
 * body is a document of type (the key prefix; the body need not carry its
 * type field) with the management fields fs (the collection's; NULL: the
 * body carries none, as in an xattrs collection, and is taken to be
 * current). When the type has migrations:
 * a body at an older version is migrated to the current one, and a body
 * without a version is taken to be current; *schema is then set to the
 * current version (a string value to write as the schema field). Otherwise
 * *schema is NULL and body comes back as it is. scope and errors as
 * DocmodelMigrateIn.
 */
extern Jsonb *DocmodelMigrateOnWrite(Jsonb *body, Jsonb *old, const char *type,
									 int type_len, const DocFieldSet *fs,
									 int32 scope, const char *key, int key_len,
									 JsonbValue **schema);

/*
 * The write rule of a type (the collection trigger, after migrate on
 * write): the collection's own rule for type (scope: its config id), else
 * the global one, applied to body; body itself when there is none (or it
 * is not an object). Errors name the key; require's is 23514.
 */
extern Jsonb *DocmodelApplyWriteRules(Jsonb *body, const char *type,
									  int type_len, int32 scope,
									  const char *key, int key_len);

/*
 * Return tup with its jsonb column doccol migrated like DocmodelMigrateIn
 * (fields fs, NULL for AUTO; to the current version; errors name the text
 * key in keycol),
 * or tup itself when nothing changes. For readers such as get_multi().
 */
extern HeapTuple DocmodelMigrateTuple(HeapTuple tup, TupleDesc desc, int keycol,
									  int doccol, const DocFieldSet *fs,
									  int32 scope);

/* Cache invalidation subscribers (init.c's dispatcher; no catalog access, no error). */
extern void DocmodelMigrateRelcache(Oid relid);
extern void DocmodelMigrateSyscache(int cacheid, uint32 hashvalue);

#endif /* DOCMODEL_MIGRATE_H */
