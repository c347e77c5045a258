/*-------------------------------------------------------------------------
 *
 * collection/config.h
 *	  Collections: the per-collection configuration cache (config.c), and
 *	  how the other concerns (the trigger, revisions, migrations) use it.
 *
 * Integration points for other concerns:
 *	- A collection's configuration lives in docmodel.collection_config; its
 *	  stable integer id is the argument of every trigger docmodel puts on
 *	  the collection (on Citus the trigger fires on shard relations, so
 *	  neither the relation name nor its OID identifies the collection).
 *	- DocmodelCollectionById(id) returns the cached configuration for a
 *	  trigger argument; DocmodelRequireCollection(relid) finds the id for
 *	  a SQL-callable function that takes the collection as a regclass
 *	  (42809 when it is not a collection).
 *	- Any change of docmodel.collection_config (INSERT, UPDATE, DELETE)
 *	  invalidates every backend's cache at commit (a statement trigger on
 *	  the table does it), so set_revisions() only has to UPDATE the row.
 *	- collection/trigger.c assembles the stored document in exactly one place,
 *	  DocmodelAssembleDocument(body, &stamp). collection_trigger() runs a
 *	  write as steps, in this order: key checks (CheckRowKey); the
 *	  untouched-body shortcut (UntouchedBody: an UPDATE that leaves doc as
 *	  stored, e.g. touch, only gets a new cas and returns); size and object
 *	  checks (CheckBody); the type checks (CheckType); the stamp (StampWrite:
 *	  ver, created, who, cas, and the revisions floor of a new document);
 *	  the stamps the body carries and the write keeps (CarryStamps:
 *	  docmodel.keep_stamps, the owner's; or the new key of rename_key);
 *	  then the marker "schema version: see migrate.c", where migrations may
 *	  replace `body` (a migrated Jsonb) and set stamp.schema; then the
 *	  type's write rule (DocmodelApplyWriteRules, migrate.c); then the
 *	  assembly; then schema validation (DocmodelValidateWrite, schema.c:
 *	  the assembled document against the schema of the stamp's type and
 *	  the document's version); then the no-op update (BodyChanged: only
 *	  restamped fields differ, the stored document stays); a kept _ver going
 *	  back is refused (CheckKeptVer); then the marker "revisions: see
 *	  history/revision.c", where the new document (result), stamp.old_doc and
 *	  stamp.ver are known.
 *	- The names and place of the management fields are cfg->fs (fields.h:
 *	  a preset of the meta style, or the collection's own fields spec);
 *	  the trigger, the assembly and migrations read them there.
 *	- A key's document type under the collection's layout (type_part,
 *	  doc_type, delimiter) comes from DocmodelKeyType() (key.c) alone.
 *	- kv.c's get() and get_multi() have the same schema marker where a
 *	  document read may be migrated before it is returned.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_COLLECTION_CONFIG_H
#define DOCMODEL_COLLECTION_CONFIG_H

#include "datatype/timestamp.h"
#include "utils/jsonb.h"
#include "utils/rel.h"

#include "compat.h"
#include "docmodel.h"
#include "collection/fields.h"

/* How _created / _modified are written. */
typedef enum DocmodelTimeUnit
{
	DOCMODEL_TIME_MS,
	DOCMODEL_TIME_S,
	DOCMODEL_TIME_MIN,
	DOCMODEL_TIME_H,
	DOCMODEL_TIME_DAY,
	DOCMODEL_TIME_ISO /* ISO-8601 text, UTC, milliseconds */
} DocmodelTimeUnit;

/* How a document's type field is compared with the key's (type_check). */
typedef enum DocmodelTypeCheck
{
	DOCMODEL_TYPE_EXACT,
	DOCMODEL_TYPE_CASE_INSENSITIVE, /* ASCII letters */
	DOCMODEL_TYPE_OFF
} DocmodelTypeCheck;

/*
 * One collection's configuration, as cached per backend (a copy of its
 * docmodel.collection_config row). The pointer returned by the lookup
 * functions stays valid until the next cache invalidation is processed,
 * i.e. do not keep it across anything that may accept invalidation
 * messages (opening or locking a relation, SPI, CommandCounterIncrement);
 * copy what you need instead.
 */
typedef struct DocmodelCollection
{
	int32 id;  /* hash key: collection_config.id */
	Oid relid; /* the collection table (parent, not shard) */
	bool has_doc_type;
	int doc_type_len;
	char doc_type[DOCMODEL_MAX_KEY_BYTES + 1]; /* when has_doc_type */
	DocMetaStyle meta_style;                   /* never DOC_META_AUTO */
	bool xattrs;           /* meta_style 'xattrs': the fields in column meta */
	bool columns;          /* meta_style 'columns': the fields in typed columns
				   * (collection/columns.c); meta_style is underscore */
	const DocFieldSet *fs; /* the management fields: a preset, or the
							* collection's own (fields.c, never freed) */
	int type_part;         /* the key part holding the type; 0: none */
	DocmodelTypeCheck type_check;
	/*
	 * types: with type_part 0 and no doc_type, the types a document may
	 * have, read from its body's type field (a Couchbase bucket's
	 * "type": "beer"): ntypes NUL-terminated names one after the other,
	 * interned in TopMemoryContext (one copy per distinct list, never freed,
	 * as fields specs are: a copy of cfg keeps it); NULL otherwise.
	 */
	int ntypes;
	char *types;
	DocmodelTimeUnit time_unit;
	int delim_len;
	char delim[DOCMODEL_MAX_DELIM_BYTES + 1];
	int32 revisions;     /* keep this many revisions; 0 = off */
	Oid revisions_relid; /* history table, or InvalidOid */
	bool has_keep_for;   /* keep revisions younger than keep_for too */
	Interval keep_for;
	int32 max_ttl; /* seconds: default expiry and its bound; 0 = none */
} DocmodelCollection;

extern DocmodelCollection *DocmodelCollectionById(int32 id);
extern int32 DocmodelRequireCollection(Oid relid);
extern DocmodelCollection *DocmodelCollectionOf(Oid relid);
extern Oid DocmodelConfigRelid(void);
extern Oid DocmodelConfigRelidCached(void);
extern void DocmodelCollectionRelcache(Oid relid);

/* The names of a configuration's values (create.c checks options with them). */
extern bool DocmodelConfigMetaStyle(const char *s, DocMetaStyle *out,
									bool *xattrs);
extern bool DocmodelConfigTimeUnit(const char *s, int *out);
extern bool DocmodelConfigTypeCheck(const char *s, int *out);

/*
 * Whether a collection takes each document's type from its body (type_part
 * 0 with types) rather than from its key or doc_type.
 */
#define DOCMODEL_BODY_TYPED(cfg) ((cfg)->types != NULL)
/* Whether type names a and b are the same as type_check tc says. */
extern bool DocmodelSameType(DocmodelTypeCheck tc, const char *a, int alen,
							 const char *b, int blen);
extern bool DocmodelTypeAllowed(const DocmodelCollection *cfg, const char *type,
								int type_len);
extern char *DocmodelTypesList(const DocmodelCollection *cfg);

extern char *DocmodelFirstViolation(Jsonb *doc, const char *key,
									const DocFieldSet *fs);

#endif /* DOCMODEL_COLLECTION_CONFIG_H */
