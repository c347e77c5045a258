/*-------------------------------------------------------------------------
 *
 * collection/stamp.h
 *	  The management fields a write stamps (stamp.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_COLLECTION_STAMP_H
#define DOCMODEL_COLLECTION_STAMP_H

#include "compat.h"
#include "utils/jsonb.h"
#include "utils/timestamp.h"

#include "collection/config.h"

/*
 * The management fields of one write, gathered by collection_trigger() and
 * written by DocmodelAssembleDocument(). Names are the style-independent
 * ones; the meta style decides where they go.
 *
 * is_insert: a new document (also when it replaces an expired one), as
 * opposed to an update of a live one. key/type point into the row (not
 * NUL-terminated); type is the document's type (DocmodelKeyType, or the
 * body's own spelling under type_check). schema: NULL leaves the
 * body's schema field as written; non-NULL (a jbvString, jbvNumeric or
 * jbvBinary value) is written as the schema field instead: migrations set
 * it. ver: the _ver to write. created/created_by: on update the stored
 * values (NULL when the stored document lacks them). now/who: the time and
 * writer stamped. old_doc: the stored document on update, else NULL. cas:
 * the new cas (already chosen when the hooks run). kept: per field kind,
 * the value the body carries that the write keeps instead of stamping
 * (docmodel.keep_stamps, rename_key; NULL: stamp as usual). mode: see
 * DocmodelStampMode (0, the document's, unless set).
 */
typedef enum DocmodelStampMode
{
	DOCMODEL_STAMP_DOCUMENT, /* a write: the stamps into the document */
	DOCMODEL_STAMP_BODY,     /* a write of meta_style 'columns': the body
							  * only, its stamps gone (they go to columns);
							  * the type field when type_in_body */
	DOCMODEL_STAMP_READ      /* a read of meta_style 'columns': the stamps
							  * of the columns, in kept[] (ver too) */
} DocmodelStampMode;

typedef struct DocmodelStamp
{
	const DocmodelCollection *cfg;
	DocmodelStampMode mode;
	bool type_in_body;    /* DOCMODEL_STAMP_BODY: keep the type field (set by
						   * the trigger's type check) */
	bool writers_in_body; /* DOCMODEL_STAMP_BODY: the writer fields kept[]
						   * holds stay in the body (a distributed
						   * collection's shard, on Citus) */
	bool type_from_body;  /* DOCMODEL_STAMP_READ: the body's type field, when
						   * a string, is the type (over type) */
	bool is_insert;
	const char *key;
	int key_len;
	const char *type;
	int type_len;
	JsonbValue *schema;
	int32 ver;
	JsonbValue *created;
	JsonbValue *created_by;
	TimestampTz now;
	const char *who;
	Jsonb *old_doc;
	int64 cas;
	JsonbValue *kept[DOC_NFIELDS];
} DocmodelStamp;

/*
 * The key move rename_key (ops.c) is making, while its one statement runs
 * (set and cleared around it, also on error): the collection trigger
 * stamps the new key's document as the old one continued (_ver + 1,
 * _created and _createdBy kept), and the history event of the old key's
 * delete files op 'rename' and carries the key's revisions to the new key
 * (history/revision.c). set is false otherwise.
 */
typedef struct DocmodelRenameState
{
	bool set;
	Oid relid; /* the collection */
	const char *from;
	int from_len;
	const char *to;
	int to_len;
} DocmodelRenameState;

extern DocmodelRenameState DocmodelRename;

extern Jsonb *DocmodelAssembleDocument(Jsonb *body, DocmodelStamp *stamp);
extern JsonbValue *DocmodelTimeValue(TimestampTz ts, DocmodelTimeUnit unit);
extern JsonbValue *DocmodelCachedTimeValue(TimestampTz ts,
										   DocmodelTimeUnit unit);
extern void DocmodelVersionOverflow(const char *key, int key_len,
									const char *stored) pg_attribute_noreturn();
extern int64 DocmodelNextCas(int64 old_cas);
extern const char *DocmodelWho(void);
extern void DocmodelWhoSyscache(int cacheid, uint32 hashvalue);

#endif /* DOCMODEL_COLLECTION_STAMP_H */
