/*-------------------------------------------------------------------------
 *
 * collection/layout.h
 *	  The layouts of the tables docmodel reads by column number (layout.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_COLLECTION_LAYOUT_H
#define DOCMODEL_COLLECTION_LAYOUT_H

#include "utils/rel.h"

#include "collection/config.h"

/* A collection's columns (the layout collection/config.c checks), by number. */
#define DOCMODEL_COLL_ATT_ID 1
#define DOCMODEL_COLL_ATT_DOC 2
#define DOCMODEL_COLL_ATT_CAS 3
#define DOCMODEL_COLL_ATT_EXPIRES 4
/* The column of a collection holding its lock (see README, "Locks"). */
#define DOCMODEL_COLL_ATT_LOCKED 5
/* The management fields of an xattrs collection (meta_style 'xattrs'). */
#define DOCMODEL_COLL_ATT_META 6

/* The stamp columns of meta_style 'columns' (found by name, not number). */
typedef enum DocmodelStampColumn
{
	DOCMODEL_STAMP_CREATED_AT,
	DOCMODEL_STAMP_MODIFIED_AT,
	DOCMODEL_STAMP_VER,
	DOCMODEL_STAMP_CREATED_BY,
	DOCMODEL_STAMP_MODIFIED_BY,
	DOCMODEL_STAMP_NCOLUMNS
} DocmodelStampColumn;

/*
 * The layouts docmodel reads and writes (collection/config.c's LayoutSpecs):
 * a collection (id, doc, cas, expires_at, locked_until, read by number), a history table
 * (id, ver, op, changed_at, changed_by, doc, read by number), and a table
 * of documents migrate_collection works on (id text and doc jsonb, by name).
 */
typedef enum DocmodelLayout
{
	DOCMODEL_LAYOUT_COLLECTION,
	DOCMODEL_LAYOUT_HISTORY,
	DOCMODEL_LAYOUT_DOCUMENTS
} DocmodelLayout;

extern void DocmodelCheckLayout(Relation rel, DocmodelLayout layout);
extern void DocmodelCheckLayoutOf(Oid relid, DocmodelLayout layout);
/*
 * Whether collection rel has its optional column attnum in place
 * (DOCMODEL_COLL_ATT_LOCKED: not a 0.1.0 table before its update;
 * DOCMODEL_COLL_ATT_META: an xattrs collection's meta). Decided once per
 * relcache entry, so it may be asked per row.
 */
extern bool DocmodelHasOptionalColumn(Relation rel, int attnum);
extern void DocmodelCheckTriggerRelation(Relation rel, const char *tgname,
										 DocmodelCollection *cfg);
extern void DocmodelLayoutRelcache(Oid relid);
extern const AttrNumber *DocmodelStampColumns(Relation rel);

#endif /* DOCMODEL_COLLECTION_LAYOUT_H */
