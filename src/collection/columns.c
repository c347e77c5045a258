/*-------------------------------------------------------------------------
 *
 * collection/columns.c
 *	  meta_style 'columns': a collection keeps the management fields of its
 *	  documents in typed columns (created_at, modified_at timestamptz; ver,
 *	  created_by, modified_by integer) and the body as the application
 *	  wrote it. This file holds the three things that style adds:
 *	  - the writers' names, interned in docmodel.writers (created_by and
 *	    modified_by hold their ids);
 *	  - the stamp columns of a write (DocmodelColumnsStamp), which the
 *	    collection trigger stores instead of fields of the document;
 *	  - the document every other style would have stored
 *	    (DocmodelColumnsDocument: the body and the columns' stamps, placed
 *	    by the same assembly as a write's, stamp.c), which get(), the
 *	    documents view (_document) and the history read.
 *
 * Backend-local state: the interned names both ways (WriterIds,
 * WriterNames), flushed when docmodel.writers changes and on any abort (a
 * name this transaction interned may be rolled back). Per row: no catalog
 * access;
 * a name met for the first time is interned with one statement.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "common/int.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/hsearch.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/rel.h"
#include "utils/timestamp.h"

#include "executor/tuptable.h"

#include "collection/columns.h"
#include "collection/key.h"
#include "collection/layout.h"
#include "collection/stamp.h"
#include "docmodel.h"
#include "json/pointer.h"
#include "json/tree.h"
#include "json/util.h"

PG_FUNCTION_INFO_V1(columns_document);
PG_FUNCTION_INFO_V1(columns_writers_in_body);

/* The interned writer names: name -> id and id -> name. */
typedef struct WriterByName
{
	char name[NAMEDATALEN * 2]; /* hash key (docmodel.actor may be long) */
	int32 id;
} WriterByName;

typedef struct WriterById
{
	int32 id; /* hash key */
	char *name;
} WriterById;

static HTAB *WriterIds = NULL;
static HTAB *WriterNames = NULL;
static MemoryContext WriterCxt = NULL;
static Oid WritersRelid = InvalidOid;
static bool WriterCallbacks = false;
static const char *LastName = NULL; /* the last name found, of id LastNameId */
static int32 LastNameId;

/* Forget every interned name (both ways). */
static void
ColumnsFlushWriters(void)
{
	if (WriterCxt != NULL)
		MemoryContextDelete(WriterCxt);
	WriterCxt = NULL;
	WriterIds = NULL;
	WriterNames = NULL;
	WritersRelid = InvalidOid;
	LastName = NULL;
}

/* An abort may roll back a name this backend interned: forget them all. */
static void
ColumnsXactCallback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT)
		ColumnsFlushWriters();
}

static void
ColumnsSubXactCallback(SubXactEvent event, SubTransactionId mySubid,
					   SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB)
		ColumnsFlushWriters();
}

/* Relcache subscriber (init.c): docmodel.writers changed or went. */
void
DocmodelColumnsRelcache(Oid relid)
{
	if (relid == InvalidOid || relid == WritersRelid)
		ColumnsFlushWriters();
}

/* Create the name caches, once after each flush. */
static void
WritersInit(void)
{
	if (!WriterCallbacks)
	{
		RegisterXactCallback(ColumnsXactCallback, NULL);
		RegisterSubXactCallback(ColumnsSubXactCallback, NULL);
		WriterCallbacks = true;
	}
	if (WriterCxt != NULL)
		return;
	WriterCxt = AllocSetContextCreate(TopMemoryContext, "docmodel writers",
									  ALLOCSET_SMALL_SIZES);
	WriterIds = DocmodelHash("docmodel writer ids", 16, NAMEDATALEN * 2,
							 sizeof(WriterByName), true, WriterCxt);
	WriterNames = DocmodelHash("docmodel writer names", 16, sizeof(int32),
							   sizeof(WriterById), false, WriterCxt);
	WritersRelid =
		get_relname_relid("writers", get_namespace_oid("docmodel", false));
}

/* Remember that name has id, both ways. */
static void
RememberWriter(const char *name, int32 id)
{
	WriterByName *n;
	WriterById *i;
	bool found;

	n = hash_search(WriterIds, name, HASH_ENTER, &found);
	n->id = id;
	i = hash_search(WriterNames, &id, HASH_ENTER, &found);
	if (!found)
		i->name = MemoryContextStrdup(WriterCxt, name);
}

/* Raise 22023 when writer name is longer than the columns record. */
static void
WriterNameCheck(const char *name)
{
	if (strlen(name) >= NAMEDATALEN * 2)
		ereport(
			ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("writer name \"%.*s...\" is too long", NAMEDATALEN, name),
			 errdetail("A collection with meta_style 'columns' records "
					   "writer names of at most %d bytes.",
					   NAMEDATALEN * 2 - 1)));
}

/*
 * The id of writer name in docmodel.writers, interned when new: one
 * statement, as the table's owner, the first time this backend meets the
 * name. A name longer than docmodel.actor allows is refused (22023).
 *
 * A new id is past every id the table holds, whatever the sequence says:
 * rows restored or replicated without their sequence (a dump of 0.2.0
 * before it kept it, a logical replica taking over from its publisher)
 * would otherwise make the next name take a used id and fail (23505). Two
 * names recorded at once may pick the same id: one takes it, the other
 * finds no row and asks again.
 */
int32
DocmodelWriterId(const char *name)
{
	static const char *const sql =
		"WITH i AS (INSERT INTO docmodel.writers AS w (id, name) VALUES "
		"(pg_catalog.int4larger(pg_catalog.nextval("
		"'docmodel.writers_id_seq'::pg_catalog.regclass)::pg_catalog.int4, "
		"(SELECT COALESCE(pg_catalog.max(x.id), 0) "
		"OPERATOR(pg_catalog.+) 1 FROM docmodel.writers AS x)), $1) "
		"ON CONFLICT DO NOTHING RETURNING w.id) "
		"SELECT i.id FROM i UNION ALL SELECT w.id FROM docmodel.writers AS w "
		"WHERE w.name OPERATOR(pg_catalog.=) $1 LIMIT 1";
	Oid types[1] = {TEXTOID};
	Datum values[1];
	WriterByName *n;
	Datum id = (Datum) 0;
	bool isnull = true;
	int attempt;

	WriterNameCheck(name);
	WritersInit();
	n = hash_search(WriterIds, name, HASH_FIND, NULL);
	if (n != NULL)
		return n->id;
	values[0] = CStringGetTextDatum(name);
	/* a name another transaction commits after our snapshot: ask again */
	for (attempt = 0; attempt < 3 && isnull; attempt++)
		(void) DocmodelExecAsOwner("writers", sql, 1, types, values, NULL, &id,
								   &isnull);
	if (isnull)
		ereport(ERROR, (errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
						errmsg("could not record writer \"%s\"", name),
						errhint("Try the write again.")));
	WritersInit(); /* SPI may have processed an invalidation */
	RememberWriter(name, DatumGetInt32(id));
	return DatumGetInt32(id);
}

/* The name of writer id, or NULL when docmodel.writers has none. */
const char *
DocmodelWriterName(int32 id)
{
	static const char *const sql = "SELECT w.name FROM docmodel.writers AS w "
								   "WHERE w.id OPERATOR(pg_catalog.=) $1";
	Oid types[1] = {INT4OID};
	Datum values[1];
	WriterById *i;
	char *name = NULL;
	int ret;

	WritersInit();
	if (LastName != NULL && LastNameId == id)
		return LastName;
	i = hash_search(WriterNames, &id, HASH_FIND, NULL);
	if (i != NULL)
	{
		LastNameId = id;
		return LastName = i->name;
	}
	values[0] = Int32GetDatum(id);
	DocmodelSpiConnect();
	ret = SPI_execute_with_args(sql, 1, types, values, NULL, true, 1);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "reading docmodel.writers failed: %d", ret);
	if (SPI_processed == 1)
	{
		char *s = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);

		if (s != NULL && strlen(s) < NAMEDATALEN * 2)
			name = MemoryContextStrdup(TopMemoryContext, s);
	}
	SPI_finish();
	if (name == NULL)
		return NULL;
	WritersInit();
	RememberWriter(name, id);
	pfree(name);
	i = hash_search(WriterNames, &id, HASH_FIND, NULL);
	return i->name;
}

/* The microseconds of one unit of time_unit (0 for iso). */
static int64
UnitMicros(DocmodelTimeUnit unit)
{
	switch (unit)
	{
		case DOCMODEL_TIME_MS:
			return INT64CONST(1000);
		case DOCMODEL_TIME_S:
			return INT64CONST(1000000);
		case DOCMODEL_TIME_MIN:
			return INT64CONST(60000000);
		case DOCMODEL_TIME_H:
			return INT64CONST(3600000000);
		case DOCMODEL_TIME_DAY:
			return USECS_PER_DAY;
		case DOCMODEL_TIME_ISO:
			break;
	}
	return 0;
}

/*
 * Raise 22023: the kept field of document key cannot go into its column
 * (what: the kind of value the column takes).
 */
static void
CannotKeep(const DocmodelStamp *st, DocFieldKind kind, const char *column,
		   const char *what, JsonbValue *v)
{
	ereport(
		ERROR,
		(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		 errmsg("cannot keep %s of document \"%.*s\" in column %s",
				st->cfg->fs->field[kind].name, st->key_len, st->key, column),
		 errdetail("A collection with meta_style 'columns' keeps %s; "
				   "this one is %s.",
				   what, DocmodelJsonTreeTypeName(v))));
}

/*
 * A time field's JSON value as the column holds it: a whole number of the
 * collection's time unit, or the ISO-8601 text docmodel writes (iso), so
 * that DocmodelTimeValue() gives the value back unchanged.
 */
static TimestampTz
KeptTime(const DocmodelStamp *st, DocFieldKind kind, JsonbValue *v)
{
	const char *column =
		kind == DOC_FIELD_CREATED ? "created_at" : "modified_at";
	int64 div = UnitMicros(st->cfg->time_unit);
	TimestampTz ts;

	if (div == 0)
	{
		char buf[DOCMODEL_ISO8601_LEN + 1];

		if (v->type != jbvString ||
			!DocmodelParseIso8601(v->val.string.val, v->val.string.len, &ts) ||
			!DocmodelFormatIso8601(ts, buf) ||
			v->val.string.len != DOCMODEL_ISO8601_LEN ||
			memcmp(buf, v->val.string.val, DOCMODEL_ISO8601_LEN) != 0)
			CannotKeep(st, kind, column,
					   "a time as the text docmodel writes "
					   "(\"2024-01-31T12:00:00.000Z\")",
					   v);
		return ts;
	}
	if (v->type == jbvNumeric)
	{
		/* a whole number's text is its digits (numeric_out) */
		char *txt = DatumGetCString(
			DirectFunctionCall1(numeric_out, NumericGetDatum(v->val.numeric)));
		char *end;
		int64 n;
		int64 us;

		errno = 0;
		n = strtoi64(txt, &end, 10);
		if (errno == 0 && *end == '\0' && end != txt &&
			!pg_mul_s64_overflow(n, div, &us) &&
			!pg_sub_s64_overflow(
				us,
				(int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) *
					USECS_PER_DAY,
				&ts) &&
			IS_VALID_TIMESTAMP(ts))
			return ts;
	}
	CannotKeep(st, kind, column,
			   "a time as a whole number of the collection's time unit", v);
	return 0; /* not reached */
}

/* Raise 22023 unless writer field v is a name the column can hold. */
static void
KeptWriterCheck(const DocmodelStamp *st, DocFieldKind kind, JsonbValue *v)
{
	if (v->type != jbvString || v->val.string.len >= NAMEDATALEN * 2 ||
		memchr(v->val.string.val, '\0', v->val.string.len) != NULL)
		CannotKeep(st, kind,
				   kind == DOC_FIELD_CREATED_BY ? "created_by" : "modified_by",
				   "a writer as a name (a string)", v);
}

/* A writer field's JSON value as the column holds it: an interned name. */
static int32
KeptWriter(const DocmodelStamp *st, DocFieldKind kind, JsonbValue *v)
{
	KeptWriterCheck(st, kind, v);
	return DocmodelWriterId(pnstrdup(v->val.string.val, v->val.string.len));
}

/*
 * A write on a Citus shard of a distributed collection keeps its writers
 * as names in the body (writer ids are per node, and a shard moves):
 * st->kept[] of _createdBy and _modifiedBy set to what the write stores, a
 * kept one (checked as the column would check it), else the document's
 * creator (old_created_by on an update, NULL when it has none) or the
 * writer for _createdBy, the writer for _modifiedBy. The write's columns
 * of them stay null (DocmodelColumnsStamp).
 */
void
DocmodelColumnsBodyWriters(DocmodelStamp *st, JsonbValue *old_created_by)
{
	JsonbValue *who = palloc(sizeof(JsonbValue));

	WriterNameCheck(st->who);
	*who = DocmodelJsonTreeString(st->who, strlen(st->who));
	st->writers_in_body = true;
	if (st->kept[DOC_FIELD_CREATED_BY] != NULL)
		KeptWriterCheck(st, DOC_FIELD_CREATED_BY,
						st->kept[DOC_FIELD_CREATED_BY]);
	else
		st->kept[DOC_FIELD_CREATED_BY] = st->is_insert ? who : old_created_by;
	if (st->kept[DOC_FIELD_MODIFIED_BY] != NULL)
		KeptWriterCheck(st, DOC_FIELD_MODIFIED_BY,
						st->kept[DOC_FIELD_MODIFIED_BY]);
	else
		st->kept[DOC_FIELD_MODIFIED_BY] = who;
}

/*
 * The stamp columns of a write (v, n: indexed by DocmodelStampColumn) from
 * its stamp st and, on an update or a carried document, the stamp columns
 * it continues (oldv, oldn; NULL for a new document): the same values
 * DocmodelAssembleDocument() would have written as fields.
 */
void
DocmodelColumnsStamp(const DocmodelStamp *st, const Datum *oldv,
					 const bool *oldn, Datum *v, bool *n)
{
	int32 who = st->writers_in_body ? 0 : DocmodelWriterId(st->who);

	memset(n, 0, DOCMODEL_STAMP_NCOLUMNS * sizeof(bool));
	if (st->writers_in_body)
	{
		/* on a Citus shard the names are in the body */
		v[DOCMODEL_STAMP_CREATED_BY] = v[DOCMODEL_STAMP_MODIFIED_BY] =
			(Datum) 0;
		n[DOCMODEL_STAMP_CREATED_BY] = n[DOCMODEL_STAMP_MODIFIED_BY] = true;
	}
	/* created: kept, or now for a new document, or the stored one */
	if (st->kept[DOC_FIELD_CREATED] != NULL)
		v[DOCMODEL_STAMP_CREATED_AT] = TimestampTzGetDatum(
			KeptTime(st, DOC_FIELD_CREATED, st->kept[DOC_FIELD_CREATED]));
	else if (oldv == NULL)
		v[DOCMODEL_STAMP_CREATED_AT] = TimestampTzGetDatum(st->now);
	else
	{
		v[DOCMODEL_STAMP_CREATED_AT] = oldv[DOCMODEL_STAMP_CREATED_AT];
		n[DOCMODEL_STAMP_CREATED_AT] = oldn[DOCMODEL_STAMP_CREATED_AT];
	}
	if (st->writers_in_body)
		;
	else if (st->kept[DOC_FIELD_CREATED_BY] != NULL)
		v[DOCMODEL_STAMP_CREATED_BY] = Int32GetDatum(KeptWriter(
			st, DOC_FIELD_CREATED_BY, st->kept[DOC_FIELD_CREATED_BY]));
	else if (oldv == NULL)
		v[DOCMODEL_STAMP_CREATED_BY] = Int32GetDatum(who);
	else
	{
		v[DOCMODEL_STAMP_CREATED_BY] = oldv[DOCMODEL_STAMP_CREATED_BY];
		n[DOCMODEL_STAMP_CREATED_BY] = oldn[DOCMODEL_STAMP_CREATED_BY];
	}
	v[DOCMODEL_STAMP_MODIFIED_AT] =
		st->kept[DOC_FIELD_MODIFIED] != NULL
			? TimestampTzGetDatum(KeptTime(st, DOC_FIELD_MODIFIED,
										   st->kept[DOC_FIELD_MODIFIED]))
			: TimestampTzGetDatum(st->now);
	if (!st->writers_in_body)
		v[DOCMODEL_STAMP_MODIFIED_BY] =
			st->kept[DOC_FIELD_MODIFIED_BY] != NULL
				? Int32GetDatum(KeptWriter(st, DOC_FIELD_MODIFIED_BY,
										   st->kept[DOC_FIELD_MODIFIED_BY]))
				: Int32GetDatum(who);
	v[DOCMODEL_STAMP_VER] = Int32GetDatum(st->ver);
}

/*
 * Whether body (an object) holds no management field of fs but, when
 * keep_type, its type field: then it is stored as it is.
 */
bool
DocmodelColumnsBodyClean(const DocFieldSet *fs, Jsonb *body, bool keep_type)
{
	JsonbContainer *c = &body->root;
	int n = JsonContainerSize(c);
	char *base = (char *) &c->children[2 * n];
	uint32 koff = 0;
	int i;

	if (fs->container.len > 0)
		return getKeyJsonValueFromContainer(c, fs->container.name,
											fs->container.len, NULL) == NULL;
	for (i = 0; i < n; i++)
	{
		uint32 kstart = koff;
		DocFieldKind kind;

		JBE_ADVANCE_OFFSET(koff, c->children[i]);
		kind = DocmodelFieldKind(fs, base + kstart, koff - kstart);
		if (kind != DOC_NFIELDS && !(kind == DOC_FIELD_TYPE && keep_type))
			return false;
	}
	return true;
}

/*
 * The type a document of collection cfg with key key has when its body
 * names none: the collection's doc_type, else the key's.
 */
static void
DerivedType(const DocmodelCollection *cfg, const char *key, int key_len,
			const char **type, int *type_len)
{
	if (cfg->has_doc_type)
	{
		*type = cfg->doc_type;
		*type_len = cfg->doc_type_len;
	}
	else
		DocmodelKeyType(cfg, key, key_len, type, type_len);
}

/* An empty stamp of document key of collection cfg, in mode. */
static void
StampFor(DocmodelStamp *st, const DocmodelCollection *cfg,
		 DocmodelStampMode mode, const char *key, int key_len)
{
	memset(st, 0, sizeof(*st));
	st->cfg = cfg;
	st->mode = mode;
	st->key = key;
	st->key_len = key_len;
}

/*
 * Whether a write's body must keep its type field st->type: the type is
 * read from bodies (types), or the body spells it otherwise than the
 * collection or the key would give it.
 */
static bool
ColumnsTypeInBody(const DocmodelStamp *st)
{
	const char *t;
	int tlen;

	if (DOCMODEL_BODY_TYPED(st->cfg))
		return true;
	DerivedType(st->cfg, st->key, st->key_len, &t, &tlen);
	return tlen != st->type_len || memcmp(t, st->type, tlen) != 0;
}

/* The numeric of version ver; the first ones made once. */
static Numeric
VerNumeric(int32 ver)
{
	static Numeric small[16];

	if (ver < 0 || ver >= lengthof(small))
		return int64_to_numeric(ver);
	if (small[ver] == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		small[ver] = int64_to_numeric(ver);
		MemoryContextSwitchTo(old);
	}
	return small[ver];
}

/*
 * Show writer column c (when not null and known) as field kind of st; a
 * null one leaves the name the body carries (mc: its management fields),
 * as a distributed collection's rows keep them on Citus.
 */
static void
KeptName(DocmodelStamp *st, JsonbValue *kept, DocFieldKind kind, const Datum *v,
		 const bool *n, DocmodelStampColumn c, JsonbContainer *mc)
{
	const char *s;

	if (n[c])
	{
		if (mc != NULL &&
			DocmodelFieldValueIn(st->cfg->fs, mc, kind, &kept[kind]) != NULL)
			st->kept[kind] = &kept[kind];
		return;
	}
	if ((s = DocmodelWriterName(DatumGetInt32(v[c]))) == NULL)
		return;
	/* a copy: reading the other name may run a statement that flushes the
	 * cache s points into */
	kept[kind] = DocmodelJsonTreeString(pstrdup(s), strlen(s));
	st->kept[kind] = &kept[kind];
}

/*
 * The document of key in collection cfg (meta_style 'columns') as the
 * other styles store it: body with the stamps of the columns v, n (indexed
 * by DocmodelStampColumn; a null column leaves its field out, but a null
 * writer column the name the body carries), named and placed as the
 * collection's fields say.
 */
Jsonb *
DocmodelColumnsDocument(const DocmodelCollection *cfg, const char *key,
						int key_len, Jsonb *body, const Datum *v, const bool *n)
{
	DocmodelStamp st;
	JsonbValue kept[DOC_NFIELDS];
	JsonbValue *typev;
	JsonbValue typebuf;
	JsonbContainer *mc;
	JsonbContainer *wc;

	if (!JB_ROOT_IS_OBJECT(body))
		return body;
	StampFor(&st, cfg, DOCMODEL_STAMP_READ, key, key_len);
	/* the type field at the root: the assembly reads it on its way */
	st.type_from_body = cfg->fs->container.len == 0;
	mc =
		st.type_from_body ? NULL : DocmodelFieldContainer(cfg->fs, &body->root);
	typev =
		mc ? DocmodelFieldValueIn(cfg->fs, mc, DOC_FIELD_TYPE, &typebuf) : NULL;
	if (typev != NULL && typev->type == jbvString)
	{
		st.type = typev->val.string.val;
		st.type_len = typev->val.string.len;
	}
	else
		DerivedType(cfg, key, key_len, &st.type, &st.type_len);
	/* a row whose ver is null holds its document as the other styles store
	 * it (not converted yet by set_meta_style, or converted back); so does a
	 * revision filed before its collection took the columns (its ver is the
	 * history's, its four stamps null) */
	if (n[DOCMODEL_STAMP_VER] ||
		(n[DOCMODEL_STAMP_CREATED_AT] && n[DOCMODEL_STAMP_MODIFIED_AT] &&
		 n[DOCMODEL_STAMP_CREATED_BY] && n[DOCMODEL_STAMP_MODIFIED_BY]))
		return body;
	kept[DOC_FIELD_VER].type = jbvNumeric;
	kept[DOC_FIELD_VER].val.numeric =
		VerNumeric(DatumGetInt32(v[DOCMODEL_STAMP_VER]));
	st.kept[DOC_FIELD_VER] = &kept[DOC_FIELD_VER];
	/* the names first: a name not met yet is read with a statement, and the
	 * cached time values stay valid only until the second call after; a
	 * null writer column: the name the body carries (fields at the root:
	 * the root) */
	wc = st.type_from_body ? &body->root : mc;
	KeptName(&st, kept, DOC_FIELD_CREATED_BY, v, n, DOCMODEL_STAMP_CREATED_BY,
			 wc);
	KeptName(&st, kept, DOC_FIELD_MODIFIED_BY, v, n, DOCMODEL_STAMP_MODIFIED_BY,
			 wc);
	if (!n[DOCMODEL_STAMP_CREATED_AT])
		st.kept[DOC_FIELD_CREATED] = DocmodelCachedTimeValue(
			DatumGetTimestampTz(v[DOCMODEL_STAMP_CREATED_AT]), cfg->time_unit);
	if (!n[DOCMODEL_STAMP_MODIFIED_AT])
		st.kept[DOC_FIELD_MODIFIED] = DocmodelCachedTimeValue(
			DatumGetTimestampTz(v[DOCMODEL_STAMP_MODIFIED_AT]), cfg->time_unit);
	return DocmodelAssembleDocument(body, &st);
}

/* The whole number v holds in int32 range from lo, or false. */
static bool
WholeInt32(JsonbValue *v, int32 lo, int32 *out)
{
	char *txt;
	char *end;
	long n;

	if (v == NULL || v->type != jbvNumeric)
		return false;
	txt = DatumGetCString(
		DirectFunctionCall1(numeric_out, NumericGetDatum(v->val.numeric)));
	errno = 0;
	n = strtol(txt, &end, 10);
	if (errno != 0 || *end != '\0' || end == txt || n < lo || n > PG_INT32_MAX)
		return false;
	*out = (int32) n;
	return true;
}

/*
 * Split doc, the document of key as the stamped styles store it, for
 * collection cfg (meta_style 'columns'): *body without its management
 * fields (its type field when the body must keep it), v, n (indexed by
 * DocmodelStampColumn) the stamp columns of its fields, as they are:
 * nothing restamped, a missing field a null column. False (the document is
 * kept as it is, which reads right: its ver stays null) when doc carries no
 * whole _ver or when the columns would not give doc back exactly. A stamp
 * a column cannot hold raises 22023 naming the key (CannotKeep).
 * writers_in_body (a Citus shard): the writers' names stay in *body, their
 * columns null.
 */
bool
DocmodelColumnsSplit(const DocmodelCollection *cfg, const char *key,
					 int key_len, Jsonb *doc, Jsonb **body, Datum *v, bool *n,
					 bool writers_in_body)
{
	static const DocFieldKind kinds[4] = {DOC_FIELD_CREATED, DOC_FIELD_MODIFIED,
										  DOC_FIELD_CREATED_BY,
										  DOC_FIELD_MODIFIED_BY};
	static const DocmodelStampColumn cols[4] = {
		DOCMODEL_STAMP_CREATED_AT, DOCMODEL_STAMP_MODIFIED_AT,
		DOCMODEL_STAMP_CREATED_BY, DOCMODEL_STAMP_MODIFIED_BY};
	DocmodelStamp st;
	JsonbValue buf[DOC_NFIELDS];
	JsonbValue typebuf;
	JsonbValue *typev;
	JsonbContainer *mc;
	Jsonb *back;
	int32 ver;
	int i;

	if (!JB_ROOT_IS_OBJECT(doc))
		return false;
	mc = DocmodelFieldContainer(cfg->fs, &doc->root);
	if (mc == NULL ||
		!WholeInt32(DocmodelFieldValueIn(cfg->fs, mc, DOC_FIELD_VER,
										 &buf[DOC_FIELD_VER]),
					1, &ver))
		return false;
	StampFor(&st, cfg, DOCMODEL_STAMP_BODY, key, key_len);
	st.ver = ver;
	typev = DocmodelFieldValueIn(cfg->fs, mc, DOC_FIELD_TYPE, &typebuf);
	if (typev != NULL && typev->type == jbvString)
	{
		st.type = typev->val.string.val;
		st.type_len = typev->val.string.len;
	}
	else
		DerivedType(cfg, key, key_len, &st.type, &st.type_len);
	memset(n, true, DOCMODEL_STAMP_NCOLUMNS * sizeof(bool));
	v[DOCMODEL_STAMP_VER] = Int32GetDatum(ver);
	n[DOCMODEL_STAMP_VER] = false;
	for (i = 0; i < 4; i++)
	{
		JsonbValue *f =
			DocmodelFieldValueIn(cfg->fs, mc, kinds[i], &buf[kinds[i]]);

		if (f == NULL)
			continue;
		st.kept[kinds[i]] = f;
		if (i >= 2 && writers_in_body)
		{
			KeptWriterCheck(&st, kinds[i], f);
			continue;
		}
		v[cols[i]] = i < 2 ? TimestampTzGetDatum(KeptTime(&st, kinds[i], f))
						   : Int32GetDatum(KeptWriter(&st, kinds[i], f));
		n[cols[i]] = false;
	}
	st.type_in_body = ColumnsTypeInBody(&st);
	st.writers_in_body = writers_in_body;
	*body = DocmodelAssembleDocument(doc, &st);
	back = DocmodelColumnsDocument(cfg, key, key_len, *body, v, n);
	return compareJsonbContainers(&back->root, &doc->root) == 0;
}

/*
 * The document of key keyd in a meta_style 'columns' collection (config id
 * id) from a slot of its table rel: body d with the slot's stamp columns
 * merged (get's read through the primary key, kv.c).
 */
Jsonb *
DocmodelColumnsSlotDocument(int32 id, Relation rel, TupleTableSlot *slot,
							Datum keyd, Datum d)
{
	const AttrNumber *att = DocmodelStampColumns(rel);
	DocmodelCollection cfg = *DocmodelCollectionById(id);
	Datum v[DOCMODEL_STAMP_NCOLUMNS];
	bool n[DOCMODEL_STAMP_NCOLUMNS];
	text *key = DatumGetTextPP(keyd);
	AttrNumber last = 0;
	int i;

	/* the columns deformed at once, up to the last stamp column */
	for (i = 0; i < DOCMODEL_STAMP_NCOLUMNS; i++)
		last = Max(last, att[i]);
	slot_getsomeattrs(slot, last);
	for (i = 0; i < DOCMODEL_STAMP_NCOLUMNS; i++)
	{
		v[i] = slot->tts_values[att[i] - 1];
		n[i] = slot->tts_isnull[att[i] - 1];
	}
	return DocmodelColumnsDocument(&cfg, VARDATA_ANY(key),
								   VARSIZE_ANY_EXHDR(key), DatumGetJsonbP(d), v,
								   n);
}

/*
 * Whether a path into a document of collection cfg whose first tokens are
 * t0 (l0 bytes) and t1 (NULL when the path has one token) reaches a stamp
 * that meta_style 'columns' keeps out of the body: a management field but
 * the schema's (which stays in the body), or their container as a whole.
 * What a reader of the body alone would not find; false for another style.
 */
bool
DocmodelColumnsStampAt(const DocmodelCollection *cfg, const char *t0, int l0,
					   const char *t1, int l1)
{
	const DocFieldSet *fs = cfg->fs;
	DocFieldKind kind;

	if (!cfg->columns)
		return false;
	if (fs->container.len > 0)
	{
		if (l0 != fs->container.len || memcmp(t0, fs->container.name, l0) != 0)
			return false;
		if (t1 == NULL)
			return true;
		t0 = t1;
		l0 = l1;
	}
	kind = DocmodelFieldKind(fs, t0, l0);
	return kind != DOC_NFIELDS && kind != DOC_FIELD_SCHEMA;
}

/* The same for JSON Pointer text ptr (false when it is not one). */
bool
DocmodelColumnsStampPointer(const DocmodelCollection *cfg, const char *ptr)
{
	JsonPointer p;

	if (!cfg->columns ||
		DocmodelJsonPointerParse(ptr, strlen(ptr), true, &p) !=
			JSONPOINTER_OK ||
		p.ntok == 0)
		return false;
	return DocmodelColumnsStampAt(cfg, p.tok[0], p.toklen[0],
								  p.ntok > 1 ? p.tok[1] : NULL,
								  p.ntok > 1 ? p.toklen[1] : 0);
}

/*
 * The document of tuple t of collection rel as a row trigger reads a
 * written row: its doc as stored, or (stamps) as every style shows it, with
 * the stamp columns merged for meta_style 'columns'. NULL for no tuple or a
 * NULL doc. From the backend's caches: no catalog access.
 */
Jsonb *
DocmodelColumnsTupleDocument(Relation rel, HeapTuple t, bool stamps)
{
	TupleDesc desc = RelationGetDescr(rel);
	DocmodelCollection cfg;
	const AttrNumber *att;
	Datum v[DOCMODEL_STAMP_NCOLUMNS];
	bool n[DOCMODEL_STAMP_NCOLUMNS];
	text *key;
	bool isnull;
	Datum d;
	int i;

	if (t == NULL)
		return NULL;
	d = heap_getattr(t, DOCMODEL_COLL_ATT_DOC, desc, &isnull);
	if (isnull)
		return NULL;
	if (!stamps)
		return DatumGetJsonbP(d);
	/* a copy: a writer's name read below may flush the cache */
	cfg = *DocmodelCollectionOf(RelationGetRelid(rel));
	if (!cfg.columns)
		return DatumGetJsonbP(d);
	att = DocmodelStampColumns(rel);
	for (i = 0; i < DOCMODEL_STAMP_NCOLUMNS; i++)
		v[i] = heap_getattr(t, att[i], desc, &n[i]);
	key = DatumGetTextPP(heap_getattr(t, DOCMODEL_COLL_ATT_ID, desc, &isnull));
	return DocmodelColumnsDocument(&cfg, VARDATA_ANY(key),
								   VARSIZE_ANY_EXHDR(key), DatumGetJsonbP(d), v,
								   n);
}

/*
 * The SQL of relid's document with its stamps, for a statement docmodel
 * prepares (SPI connected): docmodel._document_sql(relid, alias), the one
 * place that writes it ("alias.doc" but for meta_style 'columns').
 */
char *
DocmodelDocumentSql(Oid relid, const char *alias)
{
	Oid types[2] = {REGCLASSOID, TEXTOID};
	Datum values[2] = {ObjectIdGetDatum(relid), CStringGetTextDatum(alias)};

	if (SPI_execute_with_args("SELECT docmodel._document_sql($1, $2)", 2, types,
							  values, NULL, true, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "docmodel._document_sql failed");
	return SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
}

/*
 * _document(collection, id, doc, created_at, modified_at, ver, created_by,
 * modified_by) -> jsonb: DocmodelColumnsDocument() for SQL (the documents
 * view, the statements of get() and friends). NULL for a NULL doc; a
 * collection id that names no collection raises 42704; one of another
 * style returns doc as it is.
 */
Datum
columns_document(PG_FUNCTION_ARGS)
{
	DocmodelCollection cfg;
	Datum v[DOCMODEL_STAMP_NCOLUMNS];
	bool n[DOCMODEL_STAMP_NCOLUMNS];
	text *key;
	int i;

	if (PG_ARGISNULL(2))
		PG_RETURN_NULL();
	DocmodelRequireArg(fcinfo, 0, "collection");
	DocmodelRequireArg(fcinfo, 1, "id");
	cfg = *DocmodelCollectionById(PG_GETARG_INT32(0));
	if (!cfg.columns)
		PG_RETURN_DATUM(PG_GETARG_DATUM(2));
	for (i = 0; i < DOCMODEL_STAMP_NCOLUMNS; i++)
	{
		n[i] = PG_ARGISNULL(3 + i);
		v[i] = n[i] ? (Datum) 0 : PG_GETARG_DATUM(3 + i);
	}
	key = PG_GETARG_TEXT_PP(1);
	PG_RETURN_JSONB_P(DocmodelColumnsDocument(&cfg, VARDATA_ANY(key),
											  VARSIZE_ANY_EXHDR(key),
											  PG_GETARG_JSONB_P(2), v, n));
}

/*
 * _writers_in_body(collection, id, doc, created_by, modified_by) -> jsonb:
 * the body doc of a row of a meta_style 'columns' collection (config id
 * collection) with the names of its writer columns in it, as its shards
 * keep them on Citus (distribute_collection converts the rows so, its
 * triggers off). A null or unknown writer column leaves the body's own
 * field. NULL for a NULL doc; doc as it is for a collection of another
 * style or a doc that is not an object; 42704 for an id no collection has.
 */
Datum
columns_writers_in_body(PG_FUNCTION_ARGS)
{
	static const DocFieldKind kinds[2] = {DOC_FIELD_CREATED_BY,
										  DOC_FIELD_MODIFIED_BY};
	DocmodelCollection cfg;
	DocmodelStamp st;
	JsonbValue kept[DOC_NFIELDS];
	JsonbValue typebuf;
	JsonbValue *typev;
	JsonbContainer *mc;
	Jsonb *doc;
	text *key;
	int i;

	if (PG_ARGISNULL(2))
		PG_RETURN_NULL();
	DocmodelRequireArg(fcinfo, 0, "collection");
	DocmodelRequireArg(fcinfo, 1, "id");
	cfg = *DocmodelCollectionById(PG_GETARG_INT32(0));
	doc = PG_GETARG_JSONB_P(2);
	if (!cfg.columns || !JB_ROOT_IS_OBJECT(doc))
		PG_RETURN_JSONB_P(doc);
	key = PG_GETARG_TEXT_PP(1);
	StampFor(&st, &cfg, DOCMODEL_STAMP_BODY, VARDATA_ANY(key),
			 VARSIZE_ANY_EXHDR(key));
	st.writers_in_body = true;
	mc = DocmodelFieldContainer(cfg.fs, &doc->root);
	/* the body's type field (a string where kept) stays as it is */
	typev =
		mc ? DocmodelFieldValueIn(cfg.fs, mc, DOC_FIELD_TYPE, &typebuf) : NULL;
	if (typev != NULL && typev->type == jbvString)
	{
		st.type = typev->val.string.val;
		st.type_len = typev->val.string.len;
		st.type_in_body = true;
	}
	for (i = 0; i < lengthof(kinds); i++)
	{
		const char *name = PG_ARGISNULL(3 + i)
							   ? NULL
							   : DocmodelWriterName(PG_GETARG_INT32(3 + i));

		if (name != NULL)
		{
			kept[kinds[i]] =
				DocmodelJsonTreeString(pstrdup(name), strlen(name));
			st.kept[kinds[i]] = &kept[kinds[i]];
		}
		else if (mc != NULL &&
				 DocmodelFieldValueIn(cfg.fs, mc, kinds[i], &kept[kinds[i]]))
			st.kept[kinds[i]] = &kept[kinds[i]];
	}
	PG_RETURN_JSONB_P(DocmodelAssembleDocument(doc, &st));
}
