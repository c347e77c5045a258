/*-------------------------------------------------------------------------
 *
 * migrate.h
 *	  Schema-version migrations (migrate.c), offered to the collection
 *	  trigger (migrate on write) and to get() (migrate on read).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_MIGRATE_H
#define DOCMODEL_MIGRATE_H

#include "utils/jsonb.h"

#include "version.h"

/*
 * Where a document keeps its type and schema version (DESIGN.md meta_style):
 * root "_type"/"_schema", "meta": {"type", "schema"}, or root
 * "type"/"schema". DOC_META_AUTO looks for "_type", then "meta"."type", then
 * "type" (what migrate() does on a document of unknown origin).
 */
typedef enum DocMetaStyle
{
	DOC_META_AUTO = 0,
	DOC_META_UNDERSCORE,
	DOC_META_META,
	DOC_META_PLAIN
} DocMetaStyle;

/*
 * Migrate a document to version target of its type (NULL: the type's
 * current version), applying every registered step in order and setting the
 * schema field. Returns doc itself (the same pointer) when nothing changes:
 * no type field, a type without migrations, or a version at or above the
 * target. key (may be NULL) is named in errors.
 *
 * A document without a schema field: when stamp_absent is true (the
 * collection trigger) it is taken to be at the current version and gets
 * the schema field set to it; when false (migrate(), bulk runs) it is
 * taken to be at the type's oldest registered version.
 *
 * Errors: 22000 when a step cannot apply, 22P02 for a bad version text in
 * the document, 22023 for a target no chain reaches.
 */
extern Jsonb *DocmodelMigrate(Jsonb *doc, DocMetaStyle style,
							  const DocVersion *target, const char *key,
							  bool stamp_absent);

#endif /* DOCMODEL_MIGRATE_H */
