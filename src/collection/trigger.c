/*-------------------------------------------------------------------------
 *
 * collection/trigger.c
 *	  The collection trigger: one C BEFORE INSERT OR UPDATE row trigger per
 *	  collection that checks the key, checks or sets the document type,
 *	  stamps the management fields in the collection's meta style and time
 *	  unit, and sets a new cas. The new document is built once, in
 *	  DocmodelAssembleDocument().
 *
 * No shared state between backends: the configuration comes from
 * collection/config.c's cache (copied to the stack, since detoasting may process
 * invalidations). Backend-local: KeepStampsCheck, the last owner decision
 * of docmodel.keep_stamps (per collection, role and command), and
 * DocmodelRename, the key move rename_key (ops.c) is making. Per row there
 * is no catalog access, no SPI and no parsing of SQL.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/htup_details.h"
#include "commands/trigger.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/datum.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/rel.h"
#include "utils/timestamp.h"
#include "access/xact.h"
#include "miscadmin.h"
#include "storage/proc.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"

#include "collection/columns.h"
#include "collection/config.h"
#include "collection/metastyle.h"
#include "compat.h"
#include "collection/fields.h"
#include "json/tree.h"
#include "json/util.h"
#include "collection/key.h"
#include "collection/kv.h"
#include "collection/locks.h"
#include "migrate/migrate.h"
#include "history/revision.h"
#include "collection/trigger.h"
#include "collection/layout.h"
#include "collection/stamp.h"
#include "jsonschema/registry.h"

PG_FUNCTION_INFO_V1(collection_trigger);

/*
 * Advance it to the next pair whose key is not skipkey or, without
 * skipkey, not a field of fs every write restamps.
 */
static bool
NextPair(JsonbIterator **it, JsonbValue *k, JsonbValue *v,
		 const DocFieldSet *fs, const DocFieldName *skipkey)
{
	JsonbIteratorToken tok;

	while ((tok = JsonbIteratorNext(it, k, true)) != WJB_DONE)
	{
		if (tok != WJB_KEY)
			continue;
		tok = JsonbIteratorNext(it, v, true);
		if (skipkey != NULL
				? (k->val.string.len == skipkey->len &&
				   memcmp(k->val.string.val, skipkey->name, skipkey->len) == 0)
				: DOC_FIELD_RESTAMPED(DocmodelFieldKind(fs, k->val.string.val,
														k->val.string.len)))
			continue;
		return true;
	}
	return false;
}

/*
 * Return true when objects a and b are equal but for the restamped fields
 * (or, with skipkey, but for that member).
 */
static bool
SameIgnoring(JsonbContainer *a, JsonbContainer *b, const DocFieldSet *fs,
			 const DocFieldName *skipkey)
{
	JsonbIterator *ia = JsonbIteratorInit(a);
	JsonbIterator *ib = JsonbIteratorInit(b);
	JsonbValue ka, va, kb, vb;

	for (;;)
	{
		bool ha = NextPair(&ia, &ka, &va, fs, skipkey);
		bool hb = NextPair(&ib, &kb, &vb, fs, skipkey);

		if (!ha || !hb)
			return ha == hb;
		if (ka.val.string.len != kb.val.string.len ||
			memcmp(ka.val.string.val, kb.val.string.val, ka.val.string.len) !=
				0 ||
			!DocmodelJsonTreeEqual(&va, &vb))
			return false;
	}
}

/*
 * Return true when storing n over o (both objects, in cfg's meta style)
 * would change more than the fields every write restamps.
 */
static bool
BodyChanged(const DocFieldSet *fs, Jsonb *o, Jsonb *n)
{
	const DocFieldName *c = &fs->container;
	JsonbValue bo, bn;
	JsonbValue *mo;
	JsonbValue *mn;

	if (c->len == 0)
		return !SameIgnoring(&o->root, &n->root, fs, NULL);
	if (!SameIgnoring(&o->root, &n->root, NULL, c))
		return true;
	mo = getKeyJsonValueFromContainer(&o->root, c->name, c->len, &bo);
	mn = getKeyJsonValueFromContainer(&n->root, c->name, c->len, &bn);
	if (mo == NULL || mn == NULL || mo->type != jbvBinary ||
		mn->type != jbvBinary || !JsonContainerIsObject(mo->val.binary.data) ||
		!JsonContainerIsObject(mn->val.binary.data))
		return !(mo == NULL && mn == NULL);
	return !SameIgnoring(mo->val.binary.data, mn->val.binary.data, fs, NULL);
}

/* Return the empty object {} (made once). */
static Jsonb *
TriggerEmptyObject(void)
{
	static Jsonb *empty = NULL;

	if (empty == NULL)
	{
		JsonbValue v;
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		v.type = jbvObject;
		v.val.object.nPairs = 0;
		v.val.object.pairs = NULL;
		empty = JsonbValueToJsonb(&v);
		MemoryContextSwitchTo(old);
	}
	return empty;
}

/* Name a JSON container's kind for messages. */
static const char *
JsonKind(Jsonb *jb)
{
	JsonbValue v;

	if (JB_ROOT_IS_OBJECT(jb))
		return "object";
	if (!JB_ROOT_IS_SCALAR(jb))
		return "array";
	if (!JsonbExtractScalar(&jb->root, &v))
		return "value";
	switch (v.type)
	{
		case jbvNull:
			return "null";
		case jbvString:
			return "string";
		case jbvNumeric:
			return "number";
		case jbvBool:
			return "boolean";
		default:
			return "value";
	}
}

/* Raise 54000 when a document of this many bytes is over the limit. */
static void
CheckSize(Size bytes, const char *key, int key_len)
{
	if (bytes > DOCMODEL_MAX_DOC_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("document \"%.*s\" is too large", key_len, key),
				 errdetail("The document is %zu bytes; the limit is 20 MiB "
						   "(%d bytes).",
						   bytes, DOCMODEL_MAX_DOC_BYTES)));
}

/*
 * Return the version that follows the stored version field v (dflt + 1 when
 * v is absent or not a number). Raise 22003 naming the key when there is
 * none: v is 2147483647 or beyond.
 */
static int32
NextVer(JsonbValue *v, int32 dflt, const char *key, int key_len)
{
	int32 ver = dflt;
	bool error = false;

	if (v != NULL && v->type == jbvNumeric)
		ver = numeric_int4_opt_error(v->val.numeric, &error);
	if (error || ver == PG_INT32_MAX)
		DocmodelVersionOverflow(
			key, key_len,
			DatumGetCString(DirectFunctionCall1(
				numeric_out, NumericGetDatum(v->val.numeric))));
	return ver + 1;
}

/*
 * One row write through the collection trigger: the trigger's relation,
 * the collection's configuration (a copy: detoasting may process
 * invalidations), both rows' columns (old ones on UPDATE only), and the
 * stamp the steps below fill in.
 */
typedef struct TriggerWrite
{
	Relation rel;
	TupleDesc desc;
	DocmodelCollection cfg;
	const DocFieldSet *fs; /* the management fields of cfg's meta style */
	HeapTuple newtup;
	HeapTuple oldtup; /* NULL on INSERT */
	Datum *nv;        /* the new row's columns */
	bool *nn;
	Datum *ov; /* the old row's, on UPDATE */
	bool *on;
	const char *key;
	int key_len;
	int64 old_cas; /* the stored cas, 0 when none */
	Datum olddocd; /* the stored document, on an update of a live one */
	int32 min_ver; /* with a kept _ver: the version the write would get */
	const AttrNumber *stamps; /* meta_style 'columns': the stamp columns */
	bool shard; /* meta_style 'columns' on a Citus shard: the writers' names
				 * stay in the body (DocmodelColumnsBodyWriters) */
	DocmodelStamp st;
} TriggerWrite;

/* Return the trigger's row with doc (when not 0) and cas set to st.cas,
 * keeping the trigger tuple's identity fields. */
static Datum
StoreRow(TriggerWrite *w, Datum doc)
{
	HeapTuple tup;

	if (doc != (Datum) 0)
		w->nv[DOCMODEL_COLL_ATT_DOC - 1] = doc;
	w->nv[DOCMODEL_COLL_ATT_CAS - 1] = Int64GetDatum(w->st.cas);
	w->nn[DOCMODEL_COLL_ATT_CAS - 1] = false;
	tup = heap_form_tuple(w->desc, w->nv, w->nn);
	tup->t_data->t_ctid = w->newtup->t_data->t_ctid;
	tup->t_self = w->newtup->t_self;
	tup->t_tableOid = w->newtup->t_tableOid;
	return PointerGetDatum(tup);
}

/* Read the rows of a BEFORE INSERT or UPDATE event into w: one pass over
 * each tuple's columns, one heap_form_tuple at the end (StoreRow). */
static void
ReadRows(TriggerWrite *w, TriggerData *td)
{
	int natts = w->desc->natts;

	memset(&w->st, 0, sizeof(w->st));
	w->st.cfg = &w->cfg;
	w->fs = w->cfg.fs;
	w->oldtup = NULL;
	w->ov = NULL;
	w->on = NULL;
	w->old_cas = 0;
	w->olddocd = (Datum) 0;
	if (TRIGGER_FIRED_BY_UPDATE(td->tg_event))
	{
		w->oldtup = td->tg_trigtuple;
		w->newtup = td->tg_newtuple;
	}
	else
		w->newtup = td->tg_trigtuple;
	w->nv = palloc(natts * sizeof(Datum));
	w->nn = palloc(natts * sizeof(bool));
	heap_deform_tuple(w->newtup, w->desc, w->nv, w->nn);
	if (w->oldtup != NULL)
	{
		w->ov = palloc(natts * sizeof(Datum));
		w->on = palloc(natts * sizeof(bool));
		heap_deform_tuple(w->oldtup, w->desc, w->ov, w->on);
	}
}

/* The key: present, valid, unchanged by an update. */
static void
CheckRowKey(TriggerWrite *w)
{
	text *keyt;

	if (w->nn[DOCMODEL_COLL_ATT_ID - 1])
		ereport(ERROR, (errcode(ERRCODE_NOT_NULL_VIOLATION),
						errmsg("document key must not be null"),
						errdetail("A row of collection \"%s\" has a null id.",
								  RelationGetRelationName(w->rel))));
	keyt = DatumGetTextPP(w->nv[DOCMODEL_COLL_ATT_ID - 1]);
	w->key = VARDATA_ANY(keyt);
	w->key_len = VARSIZE_ANY_EXHDR(keyt);
	DocmodelCheckKey(w->key, w->key_len, w->cfg.delim, w->cfg.delim_len, true);
	if (w->oldtup != NULL)
	{
		text *oldkey = DatumGetTextPP(w->ov[DOCMODEL_COLL_ATT_ID - 1]);

		if (VARSIZE_ANY_EXHDR(oldkey) != w->key_len ||
			memcmp(VARDATA_ANY(oldkey), w->key, w->key_len) != 0)
			ereport(
				ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the key of document \"%.*s\" cannot change",
						(int) VARSIZE_ANY_EXHDR(oldkey), VARDATA_ANY(oldkey)),
				 errdetail("An update set it to \"%.*s\".", w->key_len, w->key),
				 errhint("Insert the document under the new key and "
						 "delete the old one.")));
	}
}

/*
 * Decide whether the write is an insert (also over an expired document)
 * or an update of a live one, and return true when it is an update that
 * leaves the body untouched (touch, expiry change): then only the cas
 * changes, the document and its _ver stay.
 */
static bool
UntouchedBody(TriggerWrite *w, Datum docd)
{
	w->st.key = w->key;
	w->st.key_len = w->key_len;
	w->st.is_insert = true;
	w->st.now = GetCurrentTransactionStartTimestamp();
	if (w->oldtup == NULL)
		return false;
	w->old_cas = w->on[DOCMODEL_COLL_ATT_CAS - 1]
					 ? 0
					 : DatumGetInt64(w->ov[DOCMODEL_COLL_ATT_CAS - 1]);
	/* An expired document is absent: writing over it is an insert. */
	w->st.is_insert =
		!w->on[DOCMODEL_COLL_ATT_EXPIRES - 1] &&
		DatumGetTimestampTz(w->ov[DOCMODEL_COLL_ATT_EXPIRES - 1]) <= w->st.now;
	if (w->st.is_insert)
		return false;
	w->olddocd = w->ov[DOCMODEL_COLL_ATT_DOC - 1];
	if (w->on[DOCMODEL_COLL_ATT_DOC - 1])
		w->st.is_insert = true;
	else if (datumIsEqual(w->olddocd, docd, false, -1))
		return true;
	return false;
}

/* Return the body of docd; raise 54000 when too large, 22023 when not an
 * object (any JSON value is a body of an xattrs collection). */
static Jsonb *
CheckBody(TriggerWrite *w, Datum docd)
{
	Jsonb *body;

	CheckSize(toast_raw_datum_size(docd), w->key, w->key_len);
	body = DatumGetJsonbP(docd);
	if (!JB_ROOT_IS_OBJECT(body) && !w->cfg.xattrs)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("document \"%.*s\" is not a JSON object", w->key_len,
						w->key),
				 errdetail("A document must be a JSON object; this one is "
						   "a%s %s.",
						   JsonKind(body)[0] == 'a' || JsonKind(body)[0] == 'o'
							   ? "n"
							   : "",
						   JsonKind(body))));
	return body;
}

/*
 * A body-typed collection's key that starts with one of its types and the
 * delimiter (beer_Hoptimus_Prime) names that type: the body's type must be
 * one of the types the key starts so with (as type_check says; 23514
 * otherwise, naming both). A key starting with no type is free (the
 * beer-sample's 21st_amendment_brewery_cafe). Not with type_check off.
 */
static void
BodyTypeKeyPrefix(TriggerWrite *w, JsonbValue *typev)
{
	const DocmodelCollection *cfg = &w->cfg;
	const char *t = cfg->types;
	const char *claimed = NULL;
	int claimed_len = 0;
	int i;

	if (cfg->type_check == DOCMODEL_TYPE_OFF)
		return;
	for (i = 0; i < cfg->ntypes; i++)
	{
		int len = strlen(t);

		if (w->key_len > len + cfg->delim_len &&
			DocmodelSameType(cfg->type_check, t, len, w->key, len) &&
			memcmp(w->key + len, cfg->delim, cfg->delim_len) == 0)
		{
			if (DocmodelSameType(cfg->type_check, t, len, typev->val.string.val,
								 typev->val.string.len))
				return;
			if (len > claimed_len)
				claimed = t, claimed_len = len;
		}
		t += len + 1;
	}
	if (claimed != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_CHECK_VIOLATION),
				 errmsg("document type \"%.*s\" does not match key \"%.*s\"",
						typev->val.string.len, typev->val.string.val,
						w->key_len, w->key),
				 errdetail("The key starts with type \"%.*s\" of collection "
						   "\"%s\" and its delimiter \"%s\".",
						   claimed_len, claimed,
						   RelationGetRelationName(w->rel), cfg->delim),
				 errhint("Key the document with its own type first, or with "
						 "no type of the collection first.")));
}

/*
 * The type of a write to a body-typed collection (types): the body's type
 * field typev, which must be a string and one of the collection's types
 * (as type_check says); 23514 otherwise, naming the key.
 */
static void
BodyType(TriggerWrite *w, JsonbValue *typev)
{
	const char *typename = w->fs->field[DOC_FIELD_TYPE].name;
	const char *coll = RelationGetRelationName(w->rel);

	if (typev == NULL || typev->type != jbvString || typev->val.string.len == 0)
		ereport(
			ERROR,
			(errcode(ERRCODE_CHECK_VIOLATION),
			 errmsg("document \"%.*s\" has no type", w->key_len, w->key),
			 errdetail("Collection \"%s\" reads each document's type "
					   "from its field \"%s\", which this document %s.",
					   coll, typename,
					   typev == NULL              ? "lacks"
					   : typev->type != jbvString ? "has, but not as a string"
												  : "has empty"),
			 errhint("Give the document a \"%s\" among %s.", typename,
					 DocmodelTypesList(&w->cfg))));
	if (!DocmodelTypeAllowed(&w->cfg, typev->val.string.val,
							 typev->val.string.len))
		ereport(
			ERROR,
			(errcode(ERRCODE_CHECK_VIOLATION),
			 errmsg("document type \"%.*s\" is not a type of collection "
					"\"%s\"",
					typev->val.string.len, typev->val.string.val, coll),
			 errdetail("Document \"%.*s\": collection \"%s\" holds "
					   "documents of the types %s.",
					   w->key_len, w->key, coll, DocmodelTypesList(&w->cfg))));
	BodyTypeKeyPrefix(w, typev);
	w->st.type = typev->val.string.val;
	w->st.type_len = typev->val.string.len;
	w->st.type_in_body = true; /* the type is the body's to keep */
}

/*
 * The type of a write is the body's own spelling typev; meta_style
 * 'columns' keeps it in the body only where derived (doc_type or the key's
 * type) would not give it back.
 */
static void
BodySpelling(TriggerWrite *w, JsonbValue *typev, const char *derived,
			 int derived_len)
{
	w->st.type = typev->val.string.val;
	w->st.type_len = typev->val.string.len;
	w->st.type_in_body = w->st.type_len != derived_len ||
						 memcmp(w->st.type, derived, derived_len) != 0;
}

/*
 * The type: the key's (DocmodelKeyType: the key part of the collection's
 * layout, or its doc_type), which the body's type field (when present)
 * and the collection's doc_type (when set) must match as type_check says.
 * Sets st.type: the body's own spelling when it has a type field, else
 * the doc_type, else the key's.
 */
static void
CheckType(TriggerWrite *w, Jsonb *body)
{
	const DocFieldSet *fs = w->fs;
	const DocmodelCollection *cfg = &w->cfg;
	const char *key = w->key;
	int key_len = w->key_len;
	const char *typename = fs->field[DOC_FIELD_TYPE].name;
	JsonbContainer *mc = NULL;
	JsonbValue *typev = NULL;
	JsonbValue typebuf;
	JsonbValue buf;
	const char *ktype;
	int ktype_len;

	DocmodelKeyType(cfg, key, key_len, &ktype, &ktype_len);
	if (!cfg->xattrs)
	{
		mc = DocmodelFieldContainer(fs, &body->root);
		if (mc == NULL &&
			getKeyJsonValueFromContainer(&body->root, fs->container.name,
										 fs->container.len, &buf) != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("field \"%s\" of document \"%.*s\" is not an "
							"object",
							fs->container.name, key_len, key),
					 errdetail("Collection \"%s\" keeps the management "
							   "fields in the object \"%s\".",
							   RelationGetRelationName(w->rel),
							   fs->container.name)));
		typev =
			mc ? DocmodelFieldValueIn(fs, mc, DOC_FIELD_TYPE, &typebuf) : NULL;
	}
	if (DOCMODEL_BODY_TYPED(cfg))
	{
		BodyType(w, typev);
		return;
	}
	if (typev != NULL && cfg->type_check != DOCMODEL_TYPE_OFF &&
		(typev->type != jbvString ||
		 !DocmodelSameType(cfg->type_check, typev->val.string.val,
						   typev->val.string.len, ktype, ktype_len)))
		ereport(
			ERROR,
			(errcode(ERRCODE_CHECK_VIOLATION),
			 errmsg("document type does not match key \"%.*s\"", key_len, key),
			 cfg->type_part == 0
				 ? errdetail("Collection \"%s\" holds documents of type "
							 "\"%s\"; the document's %s is %s.",
							 RelationGetRelationName(w->rel), cfg->doc_type,
							 typename,
							 typev->type == jbvString
								 ? psprintf("\"%.*s\"", typev->val.string.len,
											typev->val.string.val)
								 : "not a string")
				 : errdetail("The key's %s is \"%.*s\"; the document's %s "
							 "is %s.",
							 cfg->type_part == 1
								 ? "prefix"
								 : psprintf("part %d", cfg->type_part),
							 ktype_len, ktype, typename,
							 typev->type == jbvString
								 ? psprintf("\"%.*s\"", typev->val.string.len,
											typev->val.string.val)
								 : "not a string"),
			 errhint("Leave %s out to have it set from the key.", typename)));
	if (cfg->has_doc_type && cfg->type_part != 0 &&
		!DocmodelSameType(cfg->type_check, cfg->doc_type, cfg->doc_type_len,
						  ktype, ktype_len))
		ereport(ERROR,
				(errcode(ERRCODE_CHECK_VIOLATION),
				 errmsg("document type \"%.*s\" does not match collection "
						"type \"%s\"",
						ktype_len, ktype, cfg->doc_type),
				 errdetail("Collection \"%s\" holds documents of type \"%s\"; "
						   "key \"%.*s\" has type \"%.*s\".",
						   RelationGetRelationName(w->rel), cfg->doc_type,
						   key_len, key, ktype_len, ktype)));
	if (typev != NULL && typev->type == jbvString)
		BodySpelling(w, typev, cfg->has_doc_type ? cfg->doc_type : ktype,
					 cfg->has_doc_type ? cfg->doc_type_len : ktype_len);
	else if (cfg->has_doc_type)
	{
		w->st.type = cfg->doc_type;
		w->st.type_len = cfg->doc_type_len;
	}
	else
	{
		w->st.type = ktype;
		w->st.type_len = ktype_len;
	}
}

/*
 * The old row's management fields: its document, or its meta column in an
 * xattrs collection; NULL when there is no old row or it is null.
 */
static Jsonb *
OldManaged(TriggerWrite *w)
{
	int col = w->cfg.xattrs ? DOCMODEL_COLL_ATT_META : DOCMODEL_COLL_ATT_DOC;

	if (w->oldtup == NULL || w->on[col - 1])
		return NULL;
	return DatumGetJsonbP(w->ov[col - 1]);
}

/* The old row's stamp column c (meta_style 'columns'); NULL when null. */
static Datum *
OldStamp(TriggerWrite *w, DocmodelStampColumn c)
{
	int att = w->stamps[c] - 1;

	if (w->oldtup == NULL || w->on[att])
		return NULL;
	return &w->ov[att];
}

/*
 * An old row whose ver column is null holds its document as the underscore
 * style stores it (set_meta_style has not converted it yet, or has
 * converted it back): take it split, its stamps as the old columns.
 */
static void
ColumnsSplitOld(TriggerWrite *w)
{
	Datum v[DOCMODEL_STAMP_NCOLUMNS];
	bool n[DOCMODEL_STAMP_NCOLUMNS];
	Jsonb *body;
	int i;

	if (w->oldtup == NULL || w->olddocd == (Datum) 0 ||
		!w->on[w->stamps[DOCMODEL_STAMP_VER] - 1] ||
		!DocmodelColumnsSplit(&w->cfg, w->key, w->key_len,
							  DatumGetJsonbP(w->olddocd), &body, v, n,
							  w->shard))
		return;
	w->olddocd = JsonbPGetDatum(body);
	for (i = 0; i < DOCMODEL_STAMP_NCOLUMNS; i++)
	{
		w->ov[w->stamps[i] - 1] = v[i];
		w->on[w->stamps[i] - 1] = n[i];
	}
}

/*
 * Off a shard, an old row whose writer columns are null but whose body
 * carries the writers' names (written on a Citus shard, brought back by
 * undistribute_collection): take it split as this node keeps it, its
 * names as ids of docmodel.writers, its time and version columns as they
 * are.
 */
static void
ColumnsWritersOld(TriggerWrite *w)
{
	static const DocmodelStampColumn writers[2] = {DOCMODEL_STAMP_CREATED_BY,
												   DOCMODEL_STAMP_MODIFIED_BY};
	Datum v[DOCMODEL_STAMP_NCOLUMNS];
	bool n[DOCMODEL_STAMP_NCOLUMNS];
	JsonbValue buf;
	JsonbContainer *mc;
	Jsonb *old;
	Jsonb *body;
	int i;

	if (w->shard || w->oldtup == NULL || w->olddocd == (Datum) 0 ||
		w->on[w->stamps[DOCMODEL_STAMP_VER] - 1] ||
		!(w->on[w->stamps[DOCMODEL_STAMP_CREATED_BY] - 1] ||
		  w->on[w->stamps[DOCMODEL_STAMP_MODIFIED_BY] - 1]))
		return;
	old = DatumGetJsonbP(w->olddocd);
	mc = JB_ROOT_IS_OBJECT(old) ? DocmodelFieldContainer(w->fs, &old->root)
								: NULL;
	if (mc == NULL ||
		(DocmodelFieldValueIn(w->fs, mc, DOC_FIELD_CREATED_BY, &buf) == NULL &&
		 DocmodelFieldValueIn(w->fs, mc, DOC_FIELD_MODIFIED_BY, &buf) == NULL))
		return;
	for (i = 0; i < DOCMODEL_STAMP_NCOLUMNS; i++)
	{
		v[i] = w->ov[w->stamps[i] - 1];
		n[i] = w->on[w->stamps[i] - 1];
	}
	if (!DocmodelColumnsSplit(
			&w->cfg, w->key, w->key_len,
			DocmodelColumnsDocument(&w->cfg, w->key, w->key_len, old, v, n),
			&body, v, n, false))
		return;
	w->olddocd = JsonbPGetDatum(body);
	for (i = 0; i < lengthof(writers); i++)
	{
		w->ov[w->stamps[writers[i]] - 1] = v[writers[i]];
		w->on[w->stamps[writers[i]] - 1] = n[writers[i]];
	}
}

/*
 * An old row whose stamps the columns could not take (set_meta_style left
 * it as stored, e.g. a _ver past 2147483647): its version, _created and
 * _createdBy read from its document, as the document styles read them
 * (22003 when it has no next version).
 */
static void
ColumnsUnsplitOld(TriggerWrite *w)
{
	DocmodelStamp *st = &w->st;
	JsonbContainer *omc =
		JB_ROOT_IS_OBJECT(st->old_doc)
			? DocmodelFieldContainer(w->fs, &st->old_doc->root)
			: NULL;

	if (omc == NULL)
		return;
	st->ver = NextVer(DocmodelFieldValue(w->fs, omc, DOC_FIELD_VER), 1, w->key,
					  w->key_len);
	st->kept[DOC_FIELD_CREATED] =
		DocmodelFieldValue(w->fs, omc, DOC_FIELD_CREATED);
	st->kept[DOC_FIELD_CREATED_BY] =
		DocmodelFieldValue(w->fs, omc, DOC_FIELD_CREATED_BY);
}

/*
 * StampWrite for meta_style 'columns': the new ver from the old row's
 * column, the revisions floor of a new document, the new cas.
 */
static void
ColumnsStampWrite(TriggerWrite *w)
{
	DocmodelStamp *st = &w->st;
	Datum *oldver;

	if (!st->is_insert)
	{
		ColumnsSplitOld(w);
		ColumnsWritersOld(w);
	}
	oldver = OldStamp(w, DOCMODEL_STAMP_VER);
	if (!st->is_insert)
	{
		st->old_doc = DatumGetJsonbP(w->olddocd);
		st->ver = oldver ? DatumGetInt32(*oldver) + 1 : 2;
		if (oldver && DatumGetInt32(*oldver) == PG_INT32_MAX)
			DocmodelVersionOverflow(w->key, w->key_len,
									psprintf("%d", PG_INT32_MAX));
		if (oldver == NULL)
			ColumnsUnsplitOld(w);
	}
	st->cas = DocmodelNextCas(w->old_cas);
	if (st->is_insert && OidIsValid(w->cfg.revisions_relid))
		st->ver = DocmodelRevisionFirstVer(
			&w->cfg, w->oldtup == NULL ? w->rel : NULL,
			w->nv[DOCMODEL_COLL_ATT_ID - 1],
			oldver && DatumGetInt32(*oldver) < PG_INT32_MAX
				? DatumGetInt32(*oldver) + 1
				: 1);
}

/*
 * The stamp: who, the new _ver, what an update keeps (_created,
 * _createdBy), the new cas.
 */
static void
StampWrite(TriggerWrite *w)
{
	const DocFieldSet *fs = w->fs;
	DocmodelStamp *st = &w->st;

	st->who = DocmodelWho();
	st->ver = 1;
	if (w->cfg.columns)
	{
		ColumnsStampWrite(w);
		return;
	}
	if (!st->is_insert)
	{
		Jsonb *old = OldManaged(w);
		JsonbContainer *omc = old && JB_ROOT_IS_OBJECT(old)
								  ? DocmodelFieldContainer(fs, &old->root)
								  : NULL;

		st->old_doc = DatumGetJsonbP(w->olddocd);
		if (omc != NULL)
		{
			st->ver = NextVer(DocmodelFieldValue(fs, omc, DOC_FIELD_VER), 1,
							  w->key, w->key_len);
			st->created = DocmodelFieldValue(fs, omc, DOC_FIELD_CREATED);
			st->created_by = DocmodelFieldValue(fs, omc, DOC_FIELD_CREATED_BY);
		}
		else
			st->ver = 2;
	}
	st->cas = DocmodelNextCas(w->old_cas);

	/* revisions: a new document continues after its key's history (and
	 * after the expired document it replaces), so numbers never repeat */
	if (st->is_insert && OidIsValid(w->cfg.revisions_relid))
	{
		int32 floor = 1;

		Jsonb *old = OldManaged(w);

		if (old != NULL && JB_ROOT_IS_OBJECT(old))
		{
			JsonbContainer *omc = DocmodelFieldContainer(fs, &old->root);

			if (omc != NULL)
				floor = NextVer(DocmodelFieldValue(fs, omc, DOC_FIELD_VER), 0,
								w->key, w->key_len);
		}
		st->ver =
			DocmodelRevisionFirstVer(&w->cfg, w->oldtup == NULL ? w->rel : NULL,
									 w->nv[DOCMODEL_COLL_ATT_ID - 1], floor);
	}
}

/*
 * The decision of docmodel.keep_stamps for one collection, one role and one
 * statement: made once (the owner check reads the catalog), kept while the
 * same command of the same transaction writes the same collection as the
 * same role (an ALTER TABLE ... OWNER TO in between is another command).
 */
static struct
{
	Oid relid;
	Oid user;
	LocalTransactionId lxid;
	CommandId cid;
	bool allowed;
} KeepStampsCheck;

/* Raise 42501 unless the current user owns collection w (or is superuser). */
static void
RequireKeepStamps(TriggerWrite *w)
{
	Oid user = GetUserId();
	CommandId cid = GetCurrentCommandId(false);

	if (KeepStampsCheck.relid != w->cfg.relid || KeepStampsCheck.user != user ||
		KeepStampsCheck.lxid != DocmodelMyLxid || KeepStampsCheck.cid != cid)
	{
		KeepStampsCheck.relid = InvalidOid;
		KeepStampsCheck.allowed = pg_class_ownercheck(w->cfg.relid, user);
		KeepStampsCheck.user = user;
		KeepStampsCheck.lxid = DocmodelMyLxid;
		KeepStampsCheck.cid = cid;
		KeepStampsCheck.relid = w->cfg.relid;
	}
	if (!KeepStampsCheck.allowed)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to keep the stamps of document "
						"\"%.*s\"",
						w->key_len, w->key),
				 errdetail("docmodel.keep_stamps is on; only the owner of "
						   "collection \"%s\" and superusers may write "
						   "documents that keep their own management fields.",
						   RelationGetRelationName(w->rel)),
				 errhint("SET docmodel.keep_stamps = off to have the fields "
						 "stamped.")));
}

/*
 * The stamps a write keeps from its body instead of stamping them: with
 * docmodel.keep_stamps, every management field the body carries (_ver,
 * _created, _createdBy, _modified, _modifiedBy; _type and _schema are
 * kept as written anyway); for the new key of rename_key, the old
 * document's _created and _createdBy, and its _ver + 1. Sets st.kept and
 * st.ver (w->min_ver: the version the write would have had, which a kept
 * _ver may not go below).
 */
static void
CarryStamps(TriggerWrite *w, Jsonb *body)
{
	static const DocFieldKind kinds[] = {
		DOC_FIELD_CREATED, DOC_FIELD_CREATED_BY, DOC_FIELD_MODIFIED,
		DOC_FIELD_MODIFIED_BY};
	DocmodelStamp *st = &w->st;
	bool rename = DocmodelRename.set && st->is_insert &&
				  DocmodelRename.relid == w->cfg.relid &&
				  DocmodelRename.to_len == w->key_len &&
				  memcmp(DocmodelRename.to, w->key, w->key_len) == 0;
	JsonbContainer *mc;
	JsonbValue *v;
	int i;

	w->min_ver = 0;
	if (!rename && !docmodel_keep_stamps)
		return;
	if (!rename)
		RequireKeepStamps(w);
	mc = DocmodelFieldContainer(w->fs, &body->root);
	if (mc == NULL)
		return;
	for (i = 0; i < lengthof(kinds); i++)
		if (!rename || kinds[i] == DOC_FIELD_CREATED ||
			kinds[i] == DOC_FIELD_CREATED_BY)
			st->kept[kinds[i]] = DocmodelFieldValue(w->fs, mc, kinds[i]);
	v = DocmodelFieldValue(w->fs, mc, DOC_FIELD_VER);
	if (v == NULL)
		return;
	if (rename)
	{
		st->ver = NextVer(v, 0, w->key, w->key_len);
		return;
	}
	w->min_ver = st->ver;
	if (v->type == jbvNumeric)
	{
		bool error = false;

		st->ver = numeric_int4_opt_error(v->val.numeric, &error);
		if (!error && st->ver >= 1 &&
			DatumGetBool(DirectFunctionCall2(
				numeric_eq, NumericGetDatum(v->val.numeric),
				NumericGetDatum(int64_to_numeric(st->ver)))))
			return;
	}
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("cannot keep %s of document \"%.*s\"",
					w->fs->field[DOC_FIELD_VER].name, w->key_len, w->key),
			 errdetail("docmodel.keep_stamps keeps a version that is a whole "
					   "number from 1 to %d; this one is %s.",
					   PG_INT32_MAX, DocmodelJsonTreeTypeName(v)),
			 errhint("Remove the field, or give the collection other field "
					 "names, to have it stamped.")));
}

/*
 * Raise 22023 when the _ver a write keeps is below the one it would have
 * had (the stored _ver + 1, or the version after the key's history): it
 * would go back in the document's history.
 */
static void
CheckKeptVer(TriggerWrite *w)
{
	if (w->min_ver > 0 && w->st.ver < w->min_ver)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot keep version %d of document \"%.*s\"",
						w->st.ver, w->key_len, w->key),
				 errdetail("The key is at version %d: a kept %s must be at "
						   "least %d.",
						   w->min_ver - 1, w->fs->field[DOC_FIELD_VER].name,
						   w->min_ver),
				 errhint("docmodel.keep_stamps is for loading documents; "
						 "turn it off for ordinary writes.")));
}

/* Keep the old row's stamp columns, whatever the UPDATE set. */
static void
KeepStampColumns(TriggerWrite *w)
{
	int i;

	for (i = 0; i < DOCMODEL_STAMP_NCOLUMNS; i++)
	{
		int att = w->stamps[i] - 1;

		w->nv[att] = w->ov[att];
		w->nn[att] = w->on[att];
	}
}

/*
 * On a shard, the creator an update of a live document keeps: the old
 * row's created_by (read as this node names it), else the name its body
 * carries; NULL when it has none.
 */
static JsonbValue *
OldCreatedBy(TriggerWrite *w)
{
	Datum *id;
	const char *name;
	JsonbValue *v;
	JsonbContainer *mc;

	if (w->st.is_insert)
		return NULL;
	id = OldStamp(w, DOCMODEL_STAMP_CREATED_BY);
	if (id != NULL)
	{
		if ((name = DocmodelWriterName(DatumGetInt32(*id))) == NULL)
			return NULL;
		v = palloc(sizeof(JsonbValue));
		*v = DocmodelJsonTreeString(pstrdup(name), strlen(name));
		return v;
	}
	mc = JB_ROOT_IS_OBJECT(w->st.old_doc)
			 ? DocmodelFieldContainer(w->fs, &w->st.old_doc->root)
			 : NULL;
	return mc ? DocmodelFieldValue(w->fs, mc, DOC_FIELD_CREATED_BY) : NULL;
}

/*
 * The end of a write of meta_style 'columns' (after migrations and write
 * rules): the body stored as written when it holds no management field
 * (else without them), the stamps into their columns; validation sees the
 * document every other style would have stored. An update that changes
 * nothing is a no-op, as in the other styles. docd: the row's own datum
 * of body, when body is it (0 when migrations or write rules made another).
 */
static Datum
ColumnsStore(TriggerWrite *w, Jsonb *body, Datum docd)
{
	Datum sv[DOCMODEL_STAMP_NCOLUMNS];
	bool sn[DOCMODEL_STAMP_NCOLUMNS];
	Datum oldv[DOCMODEL_STAMP_NCOLUMNS];
	bool oldn[DOCMODEL_STAMP_NCOLUMNS];
	Jsonb *result = body;
	int i;

	w->st.mode = DOCMODEL_STAMP_BODY;
	if (w->shard)
		DocmodelColumnsBodyWriters(&w->st, OldCreatedBy(w));
	if (w->shard || w->st.schema != NULL ||
		!DocmodelColumnsBodyClean(w->fs, body, w->st.type_in_body))
		result = DocmodelAssembleDocument(body, &w->st);
	CheckSize(VARSIZE(result), w->key, w->key_len);
	if (!w->st.is_insert && JB_ROOT_IS_OBJECT(w->st.old_doc) &&
		!BodyChanged(w->fs, w->st.old_doc, result))
	{
		KeepStampColumns(w);
		return StoreRow(w, w->olddocd);
	}
	CheckKeptVer(w);
	for (i = 0; i < DOCMODEL_STAMP_NCOLUMNS; i++)
	{
		int att = w->stamps[i] - 1;

		oldv[i] = w->ov ? w->ov[att] : (Datum) 0;
		oldn[i] = w->ov ? w->on[att] : true;
	}
	DocmodelColumnsStamp(&w->st, w->st.is_insert ? NULL : oldv, oldn, sv, sn);
	/* schema validation: see schema.c (the document as stored elsewhere) */
	if (DocmodelValidateWanted())
		DocmodelValidateWrite(DocmodelColumnsDocument(
								  &w->cfg, w->key, w->key_len, result, sv, sn),
							  &w->st);
	for (i = 0; i < DOCMODEL_STAMP_NCOLUMNS; i++)
	{
		int att = w->stamps[i] - 1;

		w->nv[att] = sv[i];
		w->nn[att] = sn[i];
	}
	/* revisions: see history/revision.c */
	return StoreRow(
		w, result == body && docd != (Datum) 0 ? docd : JsonbPGetDatum(result));
}

/*
 * The events collection_trigger answers without writing a document: the
 * row set_meta_style rewrites (no stamp, no history), the history events,
 * a DELETE; *result is the answer. Refuses other than row events.
 */
static bool
TriggerShortcut(FunctionCallInfo fcinfo, TriggerWrite *w, Datum *result)
{
	TriggerData *td = (TriggerData *) fcinfo->context;

	if (DocmodelMetaStyleConverting(td))
	{
		*result = PointerGetDatum(td->tg_newtuple);
		return true;
	}
	/* revisions: the AFTER INSERT OR UPDATE OR DELETE row event and the BEFORE
	 * TRUNCATE statement event write history (history/revision.c) */
	if (TRIGGER_FIRED_AFTER(td->tg_event) ||
		TRIGGER_FIRED_BY_TRUNCATE(td->tg_event))
	{
		*result = DocmodelRevisionTrigger(fcinfo);
		return true;
	}
	if (!TRIGGER_FIRED_BEFORE(td->tg_event) ||
		!TRIGGER_FIRED_FOR_ROW(td->tg_event))
		DocmodelTriggerMisuse("collection_trigger",
							  "a BEFORE ... FOR EACH ROW trigger");
	if (TRIGGER_FIRED_BY_DELETE(td->tg_event))
	{
		/* locks: see kv.c (fired only for a row with locked_until set) */
		DocmodelKvRowRules(td, &w->cfg, NULL, NULL, NULL, NULL);
		*result = PointerGetDatum(td->tg_trigtuple);
		return true;
	}
	return false;
}

/*
 * Check how the trigger was called and that it fires on its own collection
 * (or a shard of it), which has the layout the code below and history/revision.c
 * read by column number: before anything is read or written, for every
 * event. Copies the configuration into w.
 */
static Oid TriggerArgOid = InvalidOid;
static int32 TriggerArgId;

static void
CheckTriggerCall(FunctionCallInfo fcinfo, TriggerWrite *w)
{
	TriggerData *td = (TriggerData *) fcinfo->context;

	if (!CALLED_AS_TRIGGER(fcinfo))
		DocmodelTriggerMisuse("collection_trigger", "a trigger");
	if (td->tg_trigger->tgnargs != 1)
		DocmodelTriggerMisuse("collection_trigger",
							  "a trigger with the collection id argument");
	w->rel = td->tg_relation;
	w->desc = RelationGetDescr(w->rel);
	/* a trigger's arguments never change: parse them once per trigger */
	if (td->tg_trigger->tgoid != TriggerArgOid)
	{
		TriggerArgId = pg_strtoint32(td->tg_trigger->tgargs[0]);
		TriggerArgOid = td->tg_trigger->tgoid;
	}
	w->cfg = *DocmodelCollectionById(TriggerArgId);
	DocmodelCheckTriggerRelation(w->rel, td->tg_trigger->tgname, &w->cfg);
	DocmodelCheckLayout(w->rel, DOCMODEL_LAYOUT_COLLECTION);
	w->stamps = w->cfg.columns ? DocmodelStampColumns(w->rel) : NULL;
	/* (DocmodelCheckTriggerRelation: another relation is a shard of it) */
	w->shard = w->cfg.columns && RelationGetRelid(w->rel) != w->cfg.relid;
	if (w->cfg.xattrs &&
		!DocmodelHasOptionalColumn(w->rel, DOCMODEL_COLL_ATT_META))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("column \"meta\" of collection \"%s\" is missing",
						RelationGetRelationName(w->rel)),
				 errdetail("Collection \"%s\" keeps the management fields "
						   "in a column meta jsonb (meta_style xattrs).",
						   RelationGetRelationName(w->rel)),
				 errhint("Columns of a docmodel collection must not be "
						 "dropped, renamed or moved.")));
}

/*
 * The collection trigger: BEFORE INSERT OR UPDATE, FOR EACH ROW, with the
 * collection's configuration id as its one argument. Works the same for
 * INSERT, UPDATE, INSERT ... ON CONFLICT and COPY. The steps of a write,
 * in order, are the functions above (collection/config.h lists them).
 */
Datum
collection_trigger(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	TriggerWrite w;
	Datum docd;
	Jsonb *body;
	Jsonb *orig;
	Jsonb *result;

	CheckTriggerCall(fcinfo, &w);
	if (TriggerShortcut(fcinfo, &w, &docd))
		return docd;

	ReadRows(&w, td);
	CheckRowKey(&w);

	/* locks and max_ttl: see kv.c (before any shortcut below) */
	DocmodelKvRowRules(td, &w.cfg, w.nv, w.nn, w.ov, w.on);

	/* The body: let NOT NULL refuse a missing one. */
	docd = w.nv[DOCMODEL_COLL_ATT_DOC - 1];
	if (w.nn[DOCMODEL_COLL_ATT_DOC - 1])
		return PointerGetDatum(w.newtup);
	if (UntouchedBody(&w, docd))
	{
		w.st.cas = DocmodelNextCas(w.old_cas);
		if (w.cfg.xattrs)
		{
			/* the stored management fields, whatever the UPDATE set */
			w.nv[DOCMODEL_COLL_ATT_META - 1] = w.ov[DOCMODEL_COLL_ATT_META - 1];
			w.nn[DOCMODEL_COLL_ATT_META - 1] = w.on[DOCMODEL_COLL_ATT_META - 1];
		}
		if (w.cfg.columns)
			KeepStampColumns(&w);
		return StoreRow(&w, (Datum) 0);
	}
	body = orig = CheckBody(&w, docd);
	CheckType(&w, body);
	StampWrite(&w);
	CarryStamps(&w, body);

	/* schema version: see migrate.c (migrate on write, stamp _schema) */
	body = DocmodelMigrateOnWrite(
		body, w.st.is_insert ? NULL : w.st.old_doc, w.st.type, w.st.type_len,
		w.cfg.xattrs ? NULL : w.fs, w.cfg.id, w.key, w.key_len, &w.st.schema);
	/* write rules: see migrate.c (setters on every write, after migration) */
	body = DocmodelApplyWriteRules(body, w.st.type, w.st.type_len, w.cfg.id,
								   w.key, w.key_len);

	if (w.cfg.columns)
		return ColumnsStore(&w, body, body == orig ? docd : (Datum) 0);
	if (w.cfg.xattrs)
	{
		/* the body as written; the fields in meta, over the stored ones */
		Jsonb *old = w.st.is_insert ? NULL : OldManaged(&w);

		w.nv[DOCMODEL_COLL_ATT_META - 1] =
			JsonbPGetDatum(DocmodelAssembleDocument(
				old && JB_ROOT_IS_OBJECT(old) ? old : TriggerEmptyObject(),
				&w.st));
		w.nn[DOCMODEL_COLL_ATT_META - 1] = false;
		return StoreRow(&w, JsonbPGetDatum(body));
	}
	result = DocmodelAssembleDocument(body, &w.st);
	CheckSize(VARSIZE(result), w.key, w.key_len);

	/* schema validation: see schema.c (the stored document, migrated) */
	DocmodelValidateWrite(result, &w.st);

	/*
	 * An update that would change nothing but the restamped fields (the
	 * same body again, a body without _modified, a client's own _ver) is a
	 * no-op like a byte-identical one: the document and its _ver stay, so
	 * _ver counts the writes that changed something, and a collection with
	 * history has a revision for every _ver but the current one.
	 */
	if (!w.st.is_insert && JB_ROOT_IS_OBJECT(w.st.old_doc) &&
		!BodyChanged(w.fs, w.st.old_doc, result))
		return StoreRow(&w, w.olddocd);
	CheckKeptVer(&w);

	/* revisions: see history/revision.c */

	return StoreRow(&w, JsonbPGetDatum(result));
}
