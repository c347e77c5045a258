/*-------------------------------------------------------------------------
 *
 * collection.h
 *	  Collections: the per-collection configuration cache (collection.c),
 *	  the document stamping done by the collection trigger (document.c),
 *	  and what other concerns (revisions, migrations) hook into.
 *
 * Integration points for other concerns:
 *	- A collection's configuration lives in docmodel.collection_config; its
 *	  stable integer id is the argument of every trigger docmodel puts on
 *	  the collection (on Citus the trigger fires on shard relations, so
 *	  neither the relation name nor its OID identifies the collection).
 *	- DocmodelCollectionById(id) returns the cached configuration for a
 *	  trigger argument; DocmodelCollectionIdByRelid(relid) finds the id for
 *	  a SQL-callable function that takes the collection as a regclass.
 *	- Any change of docmodel.collection_config (INSERT, UPDATE, DELETE)
 *	  invalidates every backend's cache at commit (a statement trigger on
 *	  the table does it), so set_revisions() only has to UPDATE the row.
 *	- document.c assembles the stored document in exactly one place,
 *	  DocmodelAssembleDocument(); migrations fill DocmodelStamp.schema
 *	  before it runs, revisions read DocmodelStamp after it ran (see the
 *	  markers in collection_trigger()).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_COLLECTION_H
#define DOCMODEL_COLLECTION_H

#include "utils/jsonb.h"
#include "utils/timestamp.h"

#include "docmodel.h"

/* How management fields are laid out in a document (DESIGN.md). */
typedef enum DocmodelMetaStyle
{
	DOCMODEL_META_UNDERSCORE, /* root _type, _schema, _created, ... */
	DOCMODEL_META_META,       /* "meta": {"type", "schema", "created", ...} */
	DOCMODEL_META_PLAIN       /* root type, schema, created, ... */
} DocmodelMetaStyle;

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
	DocmodelMetaStyle meta_style;
	DocmodelTimeUnit time_unit;
	int delim_len;
	char delim[DOCMODEL_MAX_DELIM_BYTES + 1];
	int32 revisions;     /* keep this many revisions; 0 = off */
	Oid revisions_relid; /* history table, or InvalidOid */
} DocmodelCollection;

/*
 * The management fields of one write, gathered by collection_trigger() and
 * written by DocmodelAssembleDocument(). Names are the style-independent
 * ones; the meta style decides where they go.
 */
typedef struct DocmodelStamp
{
	const DocmodelCollection *cfg;
	bool is_insert;  /* new document (also: replacing an expired
								 * one) rather than an update */
	const char *key; /* not NUL-terminated */
	int key_len;
	const char *type; /* the document type (= key prefix) */
	int type_len;
	JsonbValue *schema;     /* when non-NULL, written as the schema field
								 * (replacing the body's); migrations set it */
	int32 ver;              /* _ver to write */
	JsonbValue *created;    /* _created to write (kept on update), or NULL */
	JsonbValue *created_by; /* _createdBy to write, or NULL */
	TimestampTz now;        /* _modified (and _created on insert) */
	const char *who;        /* _modifiedBy (and _createdBy on insert) */
	Jsonb *old_doc;         /* the stored document on update, else NULL */
	int64 cas;              /* the new cas */
} DocmodelStamp;

/* collection.c */
extern DocmodelCollection *DocmodelCollectionById(int32 id);
extern int32 DocmodelCollectionIdByRelid(Oid relid, bool missing_ok);
extern Oid DocmodelConfigRelid(void);
extern int64 DocmodelNextCas(int64 old_cas);
extern const char *DocmodelWho(void);

/* document.c */
extern Jsonb *DocmodelAssembleDocument(Jsonb *body, DocmodelStamp *stamp);
extern JsonbValue *DocmodelTimeValue(TimestampTz ts, DocmodelTimeUnit unit);

#endif /* DOCMODEL_COLLECTION_H */
