/*-------------------------------------------------------------------------
 *
 * collection/columns.h
 *	  meta_style 'columns': the management fields in typed columns
 *	  (columns.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_COLLECTION_COLUMNS_H
#define DOCMODEL_COLLECTION_COLUMNS_H

#include "utils/jsonb.h"
#include "access/htup.h"
#include "utils/rel.h"

#include "collection/config.h"
#include "collection/stamp.h"

extern int32 DocmodelWriterId(const char *name);
extern const char *DocmodelWriterName(int32 id);
extern void DocmodelColumnsStamp(const DocmodelStamp *st, const Datum *oldv,
								 const bool *oldn, Datum *v, bool *n);
extern bool DocmodelColumnsBodyClean(const DocFieldSet *fs, Jsonb *body,
									 bool keep_type);
extern Jsonb *DocmodelColumnsDocument(const DocmodelCollection *cfg,
									  const char *key, int key_len, Jsonb *body,
									  const Datum *v, const bool *n);
extern Jsonb *DocmodelColumnsSlotDocument(int32 id, Relation rel,
										  struct TupleTableSlot *slot,
										  Datum keyd, Datum d);
extern bool DocmodelColumnsStampAt(const DocmodelCollection *cfg,
								   const char *t0, int l0, const char *t1,
								   int l1);
extern bool DocmodelColumnsStampPointer(const DocmodelCollection *cfg,
										const char *ptr);
extern Jsonb *DocmodelColumnsTupleDocument(Relation rel, HeapTuple t,
										   bool stamps);
extern char *DocmodelDocumentSql(Oid relid, const char *alias);
extern bool DocmodelColumnsSplit(const DocmodelCollection *cfg, const char *key,
								 int key_len, Jsonb *doc, Jsonb **body,
								 Datum *v, bool *n, bool writers_in_body);
extern void DocmodelColumnsBodyWriters(DocmodelStamp *st,
									   JsonbValue *old_created_by);
extern void DocmodelColumnsRelcache(Oid relid);

extern Datum columns_document(PG_FUNCTION_ARGS);
extern Datum columns_writers_in_body(PG_FUNCTION_ARGS);

#endif /* DOCMODEL_COLLECTION_COLUMNS_H */
