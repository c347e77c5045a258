/*-------------------------------------------------------------------------
 *
 * collection/fields.h
 *	  The management fields of a document (type, schema, created, createdBy,
 *	  modified, modifiedBy, ver): one description per meta style, read by
 *	  the collection trigger (collection/trigger.c), migrations (migrate.c) and
 *	  revisions, and the one scan that finds a document's type and schema
 *	  version (fields.c).
 *
 * A description (DocFieldSet) says where the fields live (the root, or one
 * object member such as "meta") and the name of each; nothing else in the
 * code knows a field's name. The three meta styles are presets built once
 * by DocmodelFieldsInit() (from _PG_init); a collection with its own names
 * (create_collection's fields) gets one built from its spec by
 * DocmodelFieldSetFromSpec(), once per backend and spec.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_FIELDS_H
#define DOCMODEL_FIELDS_H

#include "utils/jsonb.h"

#include "collection/version.h"

/*
 * Where a document keeps its management fields (README, meta_style): root
 * "_type", "_schema", ...; "meta": {"type", "schema", ...}; or root "type",
 * "schema", .... DOC_META_AUTO (never a collection's style) looks for
 * "_type", then "meta"."type", then "type" (what migrate() does on a
 * document of unknown origin).
 */
typedef enum DocMetaStyle
{
	DOC_META_AUTO = 0,
	DOC_META_UNDERSCORE,
	DOC_META_META,
	DOC_META_PLAIN
} DocMetaStyle;

#define DOC_META_NSTYLES 4

/* The kinds of management field. */
typedef enum DocFieldKind
{
	DOC_FIELD_TYPE,
	DOC_FIELD_SCHEMA,
	DOC_FIELD_CREATED,
	DOC_FIELD_CREATED_BY,
	DOC_FIELD_MODIFIED,
	DOC_FIELD_MODIFIED_BY,
	DOC_FIELD_VER,
	DOC_NFIELDS /* also "no field" */
} DocFieldKind;

/* The fields every write restamps (an update changing only them is a no-op). */
#define DOC_FIELD_RESTAMPED(k)                            \
	((k) == DOC_FIELD_VER || (k) == DOC_FIELD_MODIFIED || \
	 (k) == DOC_FIELD_MODIFIED_BY)

struct ScanPlan;

/* An object member name (not NUL-terminated in documents; here it is). */
typedef struct DocFieldName
{
	const char *name;
	int len;
} DocFieldName;

/*
 * One description of the management fields. container.len == 0: they are
 * members of the document's root; else of the object member container.
 * The derived members are filled by DocmodelFieldSetInit().
 */
typedef struct DocFieldSet
{
	DocMetaStyle style;
	DocFieldName container;
	DocFieldName field[DOC_NFIELDS];
	/* derived */
	int minlen;                      /* shortest name of field[] */
	int maxlen;                      /* longest */
	uint8 first[32];                 /* bitmap of their first bytes */
	DocFieldKind order[DOC_NFIELDS]; /* kinds in jsonb key order */
	const struct ScanPlan *plan;     /* how DocmodelFieldsFindIn() reads it */
} DocFieldSet;

extern void DocmodelFieldsInit(void);
extern void DocmodelFieldSetInit(DocFieldSet *fs);
extern const DocFieldSet *DocmodelFieldSetFor(DocMetaStyle style);
extern const DocFieldSet *DocmodelFieldSetFromSpec(Jsonb *spec,
												   DocMetaStyle base);
extern const char *DocmodelFieldKindName(DocFieldKind kind);
extern JsonbContainer *DocmodelFieldContainer(const DocFieldSet *fs,
											  JsonbContainer *root);
extern JsonbValue *DocmodelFieldValue(const DocFieldSet *fs, JsonbContainer *c,
									  DocFieldKind kind);

/* The same, written into *res (palloc'd when res is NULL). */
extern JsonbValue *DocmodelFieldValueIn(const DocFieldSet *fs,
										JsonbContainer *c, DocFieldKind kind,
										JsonbValue *res);

/* Return the kind of management field (of fs) the key s names, or
 * DOC_NFIELDS. Called for every key of every document written. */
static inline DocFieldKind
DocmodelFieldKind(const DocFieldSet *fs, const char *s, int len)
{
	int k;

	if (len < fs->minlen || len > fs->maxlen ||
		!(fs->first[(uint8) s[0] >> 3] & (1 << ((uint8) s[0] & 7))))
		return DOC_NFIELDS;
	for (k = 0; k < DOC_NFIELDS; k++)
		if (fs->field[k].len == len && memcmp(fs->field[k].name, s, len) == 0)
			return (DocFieldKind) k;
	return DOC_NFIELDS;
}

/*
 * Where a document's type and version fields are, as DocmodelFieldsFind() read
 * them: style is the one found (never AUTO); type/version point into the
 * document (not NUL-terminated).
 */
typedef struct DocFields
{
	DocMetaStyle style;
	const DocFieldSet *set; /* the description found (of that style) */
	char *type;
	int typelen;
	bool has_version;
	const char *version; /* the version field's text (not terminated) */
	int versionlen;
	bool version_ok; /* a string or a number */
} DocFields;

extern bool DocmodelFieldsFind(Jsonb *doc, DocMetaStyle style, DocFields *f);
extern bool DocmodelFieldsFindIn(Jsonb *doc, const DocFieldSet *fs,
								 DocFields *f);
extern DocVersion *DocmodelFieldsParseVersion(DocFields *f, const char *key);

#endif /* DOCMODEL_FIELDS_H */
