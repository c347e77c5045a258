/*-------------------------------------------------------------------------
 *
 * document.c
 *	  The collection trigger: one C BEFORE INSERT OR UPDATE row trigger per
 *	  collection that checks the key, checks or sets the document type,
 *	  stamps the management fields in the collection's meta style and time
 *	  unit, and sets a new cas. The new document is built once, in
 *	  DocmodelAssembleDocument().
 *
 * No shared state of its own: the configuration comes from collection.c's
 * cache (copied to the stack, since detoasting may process invalidations).
 * Per row there is no catalog access, no SPI and no parsing of SQL.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/htup_details.h"
#include "catalog/pg_type.h"
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

#include "collection.h"
#include "jsonutil.h"
#include "key.h"
#include "kv.h"
#include "migrate.h"
#include "revision.h"

PG_FUNCTION_INFO_V1(collection_trigger);

/* Column numbers of a collection table. */
#define COLL_ATT_ID 1
#define COLL_ATT_DOC 2
#define COLL_ATT_CAS 3
#define COLL_ATT_EXPIRES 4

/* The names of the management fields in one style. */
typedef struct FieldNames
{
	const char *type;
	const char *schema;
	const char *created;
	const char *created_by;
	const char *modified;
	const char *modified_by;
	const char *ver;
} FieldNames;

static const FieldNames UnderscoreNames = {
	"_type",     "_schema",     "_created", "_createdBy",
	"_modified", "_modifiedBy", "_ver"};
static const FieldNames PlainNames = {
	"type", "schema", "created", "createdBy", "modified", "modifiedBy", "ver"};

/* Which management field a key names. */
typedef enum ManagedField
{
	MF_NONE,
	MF_TYPE,
	MF_SCHEMA,
	MF_OTHER /* created, createdBy, modified, ... */
} ManagedField;

/* Return which management field (of names) the string s names. */
static ManagedField
Managed(const FieldNames *names, const char *s, int len)
{
#define IS(f) (strlen(names->f) == len && memcmp(names->f, s, len) == 0)
	/* every management name is 3 to 11 bytes; cheap gates first */
	if (len < 3 || len > 11)
		return MF_NONE;
	if (names == &UnderscoreNames ? s[0] != '_'
								  : (s[0] != 't' && s[0] != 's' &&
									 s[0] != 'c' && s[0] != 'm' && s[0] != 'v'))
		return MF_NONE;
	if (IS(type))
		return MF_TYPE;
	if (IS(schema))
		return MF_SCHEMA;
	if (IS(created) || IS(created_by) || IS(modified) || IS(modified_by) ||
		IS(ver))
		return MF_OTHER;
	return MF_NONE;
#undef IS
}

/* Is key k one of the fields every write restamps (names' ver, modified,
 * modifiedBy)? */
static bool
Restamped(const FieldNames *names, JsonbValue *k)
{
#define IS(f)                                 \
	(strlen(names->f) == k->val.string.len && \
	 memcmp(names->f, k->val.string.val, k->val.string.len) == 0)
	return IS(ver) || IS(modified) || IS(modified_by);
#undef IS
}

/*
 * Advance it to the next pair whose key is not skipkey or, without
 * skipkey, not restamped (in names).
 */
static bool
NextPair(JsonbIterator **it, JsonbValue *k, JsonbValue *v,
		 const FieldNames *names, const char *skipkey)
{
	JsonbIteratorToken tok;

	while ((tok = JsonbIteratorNext(it, k, true)) != WJB_DONE)
	{
		if (tok != WJB_KEY)
			continue;
		tok = JsonbIteratorNext(it, v, true);
		if (skipkey != NULL
				? (k->val.string.len == strlen(skipkey) &&
				   memcmp(k->val.string.val, skipkey, k->val.string.len) == 0)
				: Restamped(names, k))
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
SameIgnoring(JsonbContainer *a, JsonbContainer *b, const FieldNames *names,
			 const char *skipkey)
{
	JsonbIterator *ia = JsonbIteratorInit(a);
	JsonbIterator *ib = JsonbIteratorInit(b);
	JsonbValue ka, va, kb, vb;

	for (;;)
	{
		bool ha = NextPair(&ia, &ka, &va, names, skipkey);
		bool hb = NextPair(&ib, &kb, &vb, names, skipkey);

		if (!ha || !hb)
			return ha == hb;
		if (ka.val.string.len != kb.val.string.len ||
			memcmp(ka.val.string.val, kb.val.string.val, ka.val.string.len) !=
				0 ||
			!DocmodelFlatValuesEqual(&va, &vb))
			return false;
	}
}

/*
 * Return true when storing n over o (both objects, in cfg's meta style)
 * would change more than the fields every write restamps.
 */
static bool
BodyChanged(const DocmodelCollection *cfg, Jsonb *o, Jsonb *n)
{
	JsonbValue bo, bn;
	JsonbValue *mo;
	JsonbValue *mn;

	if (cfg->meta_style != DOCMODEL_META_META)
		return !SameIgnoring(&o->root, &n->root,
							 cfg->meta_style == DOCMODEL_META_UNDERSCORE
								 ? &UnderscoreNames
								 : &PlainNames,
							 NULL);
	if (!SameIgnoring(&o->root, &n->root, NULL, "meta"))
		return true;
	mo = getKeyJsonValueFromContainer(&o->root, "meta", 4, &bo);
	mn = getKeyJsonValueFromContainer(&n->root, "meta", 4, &bn);
	if (mo == NULL || mn == NULL || mo->type != jbvBinary ||
		mn->type != jbvBinary || !JsonContainerIsObject(mo->val.binary.data) ||
		!JsonContainerIsObject(mn->val.binary.data))
		return !(mo == NULL && mn == NULL);
	return !SameIgnoring(mo->val.binary.data, mn->val.binary.data, &PlainNames,
						 NULL);
}

/* Return the value of field name in object container c, or NULL. */
static JsonbValue *
FindField(JsonbContainer *c, const char *name)
{
	JsonbValue k;

	k.type = jbvString;
	k.val.string.val = (char *) name;
	k.val.string.len = strlen(name);
	return findJsonbValueFromContainer(c, JB_FOBJECT, &k);
}

/* Return the object container holding the management fields, or NULL. */
static JsonbContainer *
MetaContainer(const DocmodelCollection *cfg, Jsonb *doc)
{
	JsonbValue *meta;

	if (cfg->meta_style != DOCMODEL_META_META)
		return &doc->root;
	meta = FindField(&doc->root, "meta");
	if (meta == NULL || meta->type != jbvBinary ||
		!JsonContainerIsObject(meta->val.binary.data))
		return NULL;
	return meta->val.binary.data;
}

/* Return a time stamp as a JSON value in the given unit. */
JsonbValue *
DocmodelTimeValue(TimestampTz ts, DocmodelTimeUnit unit)
{
	JsonbValue *v = palloc(sizeof(JsonbValue));
	int64 us;
	int64 div = 1000;

	if (unit == DOCMODEL_TIME_ISO)
	{
		char *buf = palloc(DOCMODEL_ISO8601_LEN + 1);

		if (!DocmodelFormatIso8601(ts, buf))
			ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
							errmsg("timestamp out of range")));
		v->type = jbvString;
		v->val.string.val = buf;
		v->val.string.len = DOCMODEL_ISO8601_LEN;
		return v;
	}
	us = (int64) ts +
		 ((int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY);
	switch (unit)
	{
		case DOCMODEL_TIME_MS:
			div = INT64CONST(1000);
			break;
		case DOCMODEL_TIME_S:
			div = INT64CONST(1000000);
			break;
		case DOCMODEL_TIME_MIN:
			div = INT64CONST(60000000);
			break;
		case DOCMODEL_TIME_H:
			div = INT64CONST(3600000000);
			break;
		case DOCMODEL_TIME_DAY:
			div = USECS_PER_DAY;
			break;
		case DOCMODEL_TIME_ISO:
			break;
	}
	/* floor division, for times before 1970 */
	us = (us >= 0) ? us / div : -((-us + div - 1) / div);
	v->type = jbvNumeric;
	v->val.numeric = int64_to_numeric(us);
	return v;
}

/*
 * One pair of an object being written: the key, and the value as its
 * on-disk bytes (string bytes, a numeric varlena, a container) with its
 * JEntry type. Values of the body are never decoded, only copied.
 */
typedef struct OutPair
{
	const char *key;
	int keylen;
	uint32 type; /* JENTRY_ISSTRING, ISNUMERIC, ... */
	const char *data;
	int len;
} OutPair;

/* Order of keys in a jsonb object: shorter first, then bytewise. */
static int
PairCmp(const OutPair *a, const OutPair *b)
{
	if (a->keylen != b->keylen)
		return a->keylen < b->keylen ? -1 : 1;
	return memcmp(a->key, b->key, a->keylen);
}

/* Set p to key and the JSON value v (scalar or binary container). */
static void
PairFromValue(OutPair *p, const char *key, JsonbValue *v)
{
	p->key = key;
	p->keylen = strlen(key);
	p->data = NULL;
	p->len = 0;
	switch (v->type)
	{
		case jbvString:
			p->type = JENTRY_ISSTRING;
			p->data = v->val.string.val;
			p->len = v->val.string.len;
			break;
		case jbvNumeric:
			p->type = JENTRY_ISNUMERIC;
			p->data = (const char *) v->val.numeric;
			p->len = VARSIZE_ANY(v->val.numeric);
			break;
		case jbvBool:
			p->type = v->val.boolean ? JENTRY_ISBOOL_TRUE : JENTRY_ISBOOL_FALSE;
			break;
		case jbvNull:
			p->type = JENTRY_ISNULL;
			break;
		case jbvBinary:
			p->type = JENTRY_ISCONTAINER;
			p->data = (const char *) v->val.binary.data;
			p->len = v->val.binary.len;
			break;
		default:
			elog(ERROR, "unexpected jsonb value type %d", (int) v->type);
	}
}

/* Set p to a string pair. */
static void
PairString(OutPair *p, const char *key, const char *val, int len)
{
	p->key = key;
	p->keylen = strlen(key);
	p->type = JENTRY_ISSTRING;
	p->data = val;
	p->len = len;
}

/*
 * Read the pairs of object container c into out (in their stored order,
 * which is the key order) without decoding values, leaving out management
 * fields of names (when given; the schema field only when the stamp sets
 * one) and, with skip_meta, the key "meta" (its object is returned in
 * *meta). Returns the number of pairs kept.
 */
static int
ReadPairs(JsonbContainer *c, const FieldNames *names, DocmodelStamp *st,
		  bool skip_meta, JsonbContainer **meta, OutPair *out)
{
	int n = JsonContainerSize(c);
	char *base = (char *) &c->children[2 * n];
	uint32 koff = 0;
	uint32 voff;
	int i;
	int k = 0;

	/* the values' data follows all keys' data */
	voff = 0;
	for (i = 0; i < n; i++)
		JBE_ADVANCE_OFFSET(voff, c->children[i]);
	for (i = 0; i < n; i++)
	{
		JEntry ke = c->children[i];
		JEntry ve = c->children[n + i];
		uint32 kstart = koff;
		uint32 vstart = voff;
		uint32 klen;
		uint32 vlen;
		OutPair *p = &out[k];

		JBE_ADVANCE_OFFSET(koff, ke);
		JBE_ADVANCE_OFFSET(voff, ve);
		klen = koff - kstart;
		vlen = voff - vstart;
		p->key = base + kstart;
		p->keylen = klen;
		p->type = ve & JENTRY_TYPEMASK;
		if (JBE_ISNUMERIC(ve) || JBE_ISCONTAINER(ve))
		{
			uint32 a = INTALIGN(vstart);

			p->data = base + a;
			p->len = vlen - (a - vstart);
		}
		else
		{
			p->data = base + vstart;
			p->len = vlen;
		}
		if (skip_meta && klen == 4 && memcmp(p->key, "meta", 4) == 0)
		{
			if (JBE_ISCONTAINER(ve) &&
				JsonContainerIsObject((JsonbContainer *) p->data))
				*meta = (JsonbContainer *) p->data;
			continue;
		}
		if (names != NULL)
		{
			ManagedField mf = Managed(names, p->key, klen);

			if (mf == MF_TYPE || mf == MF_OTHER ||
				(mf == MF_SCHEMA && st->schema != NULL))
				continue;
		}
		k++;
	}
	return k;
}

/*
 * Write an object of n pairs (sorted by key, no duplicates) to buf in the
 * jsonb on-disk format, as convertJsonbObject() does; buf's length must be
 * a multiple of 4 (alignment is relative to the buffer's start).
 */
static void
WriteObject(StringInfo buf, OutPair *pairs, int n)
{
	uint32 header = (uint32) n | JB_FOBJECT;
	Size need = sizeof(uint32) + 2 * n * sizeof(JEntry);
	JEntry *jentries;
	char *start;
	char *p;
	uint32 totallen = 0;
	int i;

	Assert(buf->len % 4 == 0);
	for (i = 0; i < n; i++)
		need += pairs[i].keylen + pairs[i].len + 3;
	if (need > JENTRY_OFFLENMASK)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("total size of jsonb object elements exceeds the "
						"maximum of %u bytes",
						JENTRY_OFFLENMASK)));
	enlargeStringInfo(buf, need);
	start = buf->data + buf->len;
	memcpy(start, &header, sizeof(uint32));
	jentries = (JEntry *) (start + sizeof(uint32));
	p = (char *) &jentries[2 * n];
	for (i = 0; i < 2 * n; i++)
	{
		OutPair *pr = &pairs[i % n];
		char *from = p;
		uint32 type;
		uint32 len;

		if (i < n)
		{
			type = JENTRY_ISSTRING;
			memcpy(p, pr->key, pr->keylen);
			p += pr->keylen;
		}
		else
		{
			type = pr->type;
			if (type == JENTRY_ISNUMERIC || type == JENTRY_ISCONTAINER)
			{
				/* pad to int alignment, counted from the buffer start */
				while ((buf->len + (p - start)) % 4 != 0)
					*p++ = '\0';
			}
			if (pr->len > 0)
			{
				memcpy(p, pr->data, pr->len);
				p += pr->len;
			}
		}
		len = p - from;
		totallen += len;
		jentries[i] = (i % JB_OFFSET_STRIDE == 0)
						  ? (type | totallen | JENTRY_HAS_OFF)
						  : (type | len);
	}
	buf->len += p - start;
	buf->data[buf->len] = '\0';
}

/*
 * Merge the sorted pairs a (na) and the sorted pairs b (nb) into out.
 * Returns na + nb.
 */
static int
MergePairs(OutPair *a, int na, OutPair *b, int nb, OutPair *out)
{
	int i, j, k = 0;

	i = j = 0;
	while (i < na || j < nb)
	{
		if (j >= nb || (i < na && PairCmp(&a[i], &b[j]) < 0))
			out[k++] = a[i++];
		else
			out[k++] = b[j++];
	}
	return k;
}

/*
 * Fill m with the management pairs of the stamp in the given names;
 * timeval is the JSON value of st->now. Returns how many.
 */
static int
ManagedPairs(const FieldNames *names, DocmodelStamp *st, JsonbValue *timeval,
			 JsonbValue *ver, int wholen, OutPair *m)
{
	int k = 0;

	/* in key order (shorter first): ver, type, schema, created, modified,
	 * createdBy, modifiedBy, in both namings */
	PairFromValue(&m[k++], names->ver, ver);
	PairString(&m[k++], names->type, st->type, st->type_len);
	if (st->schema != NULL)
		PairFromValue(&m[k++], names->schema, st->schema);
	if (st->is_insert)
		PairFromValue(&m[k++], names->created, timeval);
	else if (st->created != NULL)
		PairFromValue(&m[k++], names->created, st->created);
	PairFromValue(&m[k++], names->modified, timeval);
	if (st->is_insert)
		PairString(&m[k++], names->created_by, st->who, wholen);
	else if (st->created_by != NULL)
		PairFromValue(&m[k++], names->created_by, st->created_by);
	PairString(&m[k++], names->modified_by, st->who, wholen);
	return k;
}

#define MAX_MANAGED 8

/* The last time value made (a transaction stamps one now() throughout). */
static TimestampTz TimeCacheTs;
static int TimeCacheUnit = -1;
static JsonbValue TimeCacheVal;
static Numeric VerOne = NULL;

/* Return DocmodelTimeValue(ts, unit), made once per transaction. */
static JsonbValue *
CachedTimeValue(TimestampTz ts, DocmodelTimeUnit unit)
{
	if (TimeCacheUnit != (int) unit || TimeCacheTs != ts)
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);
		JsonbValue *v;

		if (TimeCacheUnit >= 0)
		{
			TimeCacheUnit = -1;
			if (TimeCacheVal.type == jbvString)
				pfree(TimeCacheVal.val.string.val);
			else
				pfree(TimeCacheVal.val.numeric);
		}
		v = DocmodelTimeValue(ts, unit);
		TimeCacheVal = *v;
		pfree(v);
		MemoryContextSwitchTo(old);
		TimeCacheTs = ts;
		TimeCacheUnit = (int) unit;
	}
	return &TimeCacheVal;
}

/*
 * Build the document to store: the body's own fields plus the management
 * fields of the stamp, in the collection's meta style. The one place where
 * a stored document is assembled: every write of a collection passes here
 * exactly once. The body's values are copied as bytes, not decoded.
 */
Jsonb *
DocmodelAssembleDocument(Jsonb *body, DocmodelStamp *st)
{
	int n = JsonContainerSize(&body->root);
	OutPair *user = palloc((n + 1) * sizeof(OutPair));
	OutPair *out = palloc((n + 1 + MAX_MANAGED) * sizeof(OutPair));
	OutPair managed[MAX_MANAGED];
	JsonbValue *timeval = CachedTimeValue(st->now, st->cfg->time_unit);
	JsonbValue ver;
	StringInfoData buf;
	int wholen = strlen(st->who);
	int nuser;
	int nmanaged;
	int nout;

	if (VerOne == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		VerOne = int64_to_numeric(1);
		MemoryContextSwitchTo(old);
	}
	ver.type = jbvNumeric;
	ver.val.numeric = st->ver == 1 ? VerOne : int64_to_numeric(st->ver);
	initStringInfo(&buf);
	buf.len = VARHDRSZ; /* filled by SET_VARSIZE */
	if (st->cfg->meta_style == DOCMODEL_META_META)
	{
		JsonbContainer *meta = NULL;
		OutPair *muser;
		OutPair *mout;
		OutPair metapair;
		StringInfoData mbuf;
		int nm = 0;
		int nmuser = 0;

		nuser = ReadPairs(&body->root, NULL, st, true, &meta, user);
		if (meta != NULL)
			nm = JsonContainerSize(meta);
		muser = palloc((nm + 1) * sizeof(OutPair));
		mout = palloc((nm + 1 + MAX_MANAGED) * sizeof(OutPair));
		if (meta != NULL)
			nmuser = ReadPairs(meta, &PlainNames, st, false, NULL, muser);
		nmanaged =
			ManagedPairs(&PlainNames, st, timeval, &ver, wholen, managed);
		nout = MergePairs(muser, nmuser, managed, nmanaged, mout);
		initStringInfo(&mbuf);
		WriteObject(&mbuf, mout, nout);
		metapair.key = "meta";
		metapair.keylen = 4;
		metapair.type = JENTRY_ISCONTAINER;
		metapair.data = mbuf.data;
		metapair.len = mbuf.len;
		nout = MergePairs(user, nuser, &metapair, 1, out);
	}
	else
	{
		const FieldNames *names = st->cfg->meta_style == DOCMODEL_META_PLAIN
									  ? &PlainNames
									  : &UnderscoreNames;

		nuser = ReadPairs(&body->root, names, st, false, NULL, user);
		nmanaged = ManagedPairs(names, st, timeval, &ver, wholen, managed);
		nout = MergePairs(user, nuser, managed, nmanaged, out);
	}
	WriteObject(&buf, out, nout);
	SET_VARSIZE(buf.data, buf.len);
	return (Jsonb *) buf.data;
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
 * Raise 22003: document key has no version after stored (the text of its
 * stored version). Versions are integers; 2147483647 is the last one.
 */
void
DocmodelVersionOverflow(const char *key, int key_len, const char *stored)
{
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("document \"%.*s\" has no version after %s", key_len, key,
					stored),
			 errdetail("A document's version is at most %d.", PG_INT32_MAX),
			 errhint("Store the document under a new key.")));
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

/* Form the row to store, keeping the trigger tuple's identity fields. */
static HeapTuple
FormResult(TupleDesc desc, HeapTuple from, Datum *values, bool *nulls)
{
	HeapTuple tup = heap_form_tuple(desc, values, nulls);

	tup->t_data->t_ctid = from->t_data->t_ctid;
	tup->t_self = from->t_self;
	tup->t_tableOid = from->t_tableOid;
	return tup;
}

/*
 * The collection trigger: BEFORE INSERT OR UPDATE, FOR EACH ROW, with the
 * collection's configuration id as its one argument. Works the same for
 * INSERT, UPDATE, INSERT ... ON CONFLICT and COPY.
 */
Datum
collection_trigger(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	Relation rel;
	TupleDesc desc;
	DocmodelCollection cfg;
	DocmodelStamp st;
	HeapTuple newtup;
	HeapTuple oldtup = NULL;
	Datum d;
	Datum docd;
	Datum olddocd = (Datum) 0;
	text *keyt;
	const char *key;
	int key_len;
	int prefix_len;
	Jsonb *body;
	Jsonb *result;
	JsonbContainer *mc;
	JsonbValue *typev;
	int64 old_cas = 0;
	const FieldNames *names;
	Datum *nv;
	bool *nn;
	Datum *ov = NULL;
	bool *on = NULL;

	if (!CALLED_AS_TRIGGER(fcinfo))
		elog(ERROR, "collection_trigger: not called as a trigger");
	if (td->tg_trigger->tgnargs != 1)
		elog(ERROR, "collection_trigger: needs the collection id argument");

	/*
	 * Before anything is read or written, for every event: the trigger
	 * fires on its own collection (or a shard of it), which has the layout
	 * the code below and revision.c read by column number.
	 */
	rel = td->tg_relation;
	desc = RelationGetDescr(rel);
	cfg = *DocmodelCollectionById(pg_strtoint32(td->tg_trigger->tgargs[0]));
	DocmodelCheckTriggerRelation(rel, td->tg_trigger->tgname, &cfg);
	DocmodelCheckLayout(rel, DOCMODEL_LAYOUT_COLLECTION);

	/* revisions: the AFTER INSERT OR UPDATE OR DELETE row event and the BEFORE
	 * TRUNCATE statement event write history (revision.c) */
	if (TRIGGER_FIRED_AFTER(td->tg_event) ||
		TRIGGER_FIRED_BY_TRUNCATE(td->tg_event))
		return DocmodelRevisionTrigger(fcinfo);

	if (!TRIGGER_FIRED_BEFORE(td->tg_event) ||
		!TRIGGER_FIRED_FOR_ROW(td->tg_event))
		elog(ERROR, "collection_trigger: must be a BEFORE ... FOR EACH ROW "
					"trigger");
	if (TRIGGER_FIRED_BY_DELETE(td->tg_event))
	{
		/* locks: see kv.c (fired only for a row with locked_until set) */
		DocmodelKvRowRules(td, &cfg, NULL, NULL, NULL, NULL);
		return PointerGetDatum(td->tg_trigtuple);
	}

	memset(&st, 0, sizeof(st));
	st.cfg = &cfg;
	if (TRIGGER_FIRED_BY_UPDATE(td->tg_event))
	{
		oldtup = td->tg_trigtuple;
		newtup = td->tg_newtuple;
	}
	else
		newtup = td->tg_trigtuple;
	/* One pass over each tuple's columns, one heap_form_tuple at the end. */
	nv = palloc(desc->natts * sizeof(Datum));
	nn = palloc(desc->natts * sizeof(bool));
	heap_deform_tuple(newtup, desc, nv, nn);
	if (oldtup != NULL)
	{
		ov = palloc(desc->natts * sizeof(Datum));
		on = palloc(desc->natts * sizeof(bool));
		heap_deform_tuple(oldtup, desc, ov, on);
	}

	/* The key: present, valid, unchanged by an update. */
	d = nv[COLL_ATT_ID - 1];
	if (nn[COLL_ATT_ID - 1])
		ereport(ERROR, (errcode(ERRCODE_NOT_NULL_VIOLATION),
						errmsg("document key must not be null"),
						errdetail("A row of collection \"%s\" has a null id.",
								  RelationGetRelationName(rel))));
	keyt = DatumGetTextPP(d);
	key = VARDATA_ANY(keyt);
	key_len = VARSIZE_ANY_EXHDR(keyt);
	DocmodelCheckKey(key, key_len, cfg.delim, cfg.delim_len, true);
	if (oldtup != NULL)
	{
		text *oldkey = DatumGetTextPP(ov[COLL_ATT_ID - 1]);

		if (VARSIZE_ANY_EXHDR(oldkey) != key_len ||
			memcmp(VARDATA_ANY(oldkey), key, key_len) != 0)
			ereport(
				ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the key of document \"%.*s\" cannot change",
						(int) VARSIZE_ANY_EXHDR(oldkey), VARDATA_ANY(oldkey)),
				 errdetail("An update set it to \"%.*s\".", key_len, key),
				 errhint("Insert the document under the new key and "
						 "delete the old one.")));
	}

	/* locks and max_ttl: see kv.c (before any shortcut below) */
	DocmodelKvRowRules(td, &cfg, nv, nn, ov, on);

	/* The body: let NOT NULL refuse a missing one. */
	docd = nv[COLL_ATT_DOC - 1];
	if (nn[COLL_ATT_DOC - 1])
		return PointerGetDatum(newtup);

	st.key = key;
	st.key_len = key_len;
	st.is_insert = true;
	st.now = GetCurrentTransactionStartTimestamp();
	if (oldtup != NULL)
	{
		old_cas =
			on[COLL_ATT_CAS - 1] ? 0 : DatumGetInt64(ov[COLL_ATT_CAS - 1]);
		/* An expired document is absent: writing over it is an insert. */
		st.is_insert = !on[COLL_ATT_EXPIRES - 1] &&
					   DatumGetTimestampTz(ov[COLL_ATT_EXPIRES - 1]) <= st.now;
		if (!st.is_insert)
		{
			olddocd = ov[COLL_ATT_DOC - 1];
			if (on[COLL_ATT_DOC - 1])
				st.is_insert = true;
			else if (datumIsEqual(olddocd, docd, false, -1))
			{
				/* The body is untouched (touch, expiry change): only a new
				 * cas, the document and its _ver stay. */
				nv[COLL_ATT_CAS - 1] = Int64GetDatum(DocmodelNextCas(old_cas));
				nn[COLL_ATT_CAS - 1] = false;
				return PointerGetDatum(FormResult(desc, newtup, nv, nn));
			}
		}
	}

	CheckSize(toast_raw_datum_size(docd), key, key_len);
	body = DatumGetJsonbP(docd);
	if (!JB_ROOT_IS_OBJECT(body))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("document \"%.*s\" is not a JSON object", key_len, key),
				 errdetail("A document must be a JSON object; this one is "
						   "a%s %s.",
						   JsonKind(body)[0] == 'a' || JsonKind(body)[0] == 'o'
							   ? "n"
							   : "",
						   JsonKind(body))));

	/* The type: the key's first part, and the collection's doc_type. */
	for (prefix_len = 0; prefix_len < key_len; prefix_len++)
		if (prefix_len + cfg.delim_len <= key_len &&
			memcmp(key + prefix_len, cfg.delim, cfg.delim_len) == 0)
			break;
	names = cfg.meta_style == DOCMODEL_META_UNDERSCORE ? &UnderscoreNames
													   : &PlainNames;
	mc = MetaContainer(&cfg, body);
	if (mc == NULL && FindField(&body->root, "meta") != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("field \"meta\" of document \"%.*s\" is not an object",
						key_len, key),
				 errdetail("Collection \"%s\" keeps the management fields in "
						   "the object \"meta\".",
						   RelationGetRelationName(rel))));
	typev = mc ? FindField(mc, names->type) : NULL;
	if (typev != NULL &&
		(typev->type != jbvString || typev->val.string.len != prefix_len ||
		 memcmp(typev->val.string.val, key, prefix_len) != 0))
		ereport(
			ERROR,
			(errcode(ERRCODE_CHECK_VIOLATION),
			 errmsg("document type does not match key \"%.*s\"", key_len, key),
			 errdetail("The key's prefix is \"%.*s\"; the document's %s "
					   "is %s.",
					   prefix_len, key, names->type,
					   typev->type == jbvString
						   ? psprintf("\"%.*s\"", typev->val.string.len,
									  typev->val.string.val)
						   : "not a string"),
			 errhint("Leave %s out to have it set from the key.",
					 names->type)));
	if (cfg.has_doc_type && (cfg.doc_type_len != prefix_len ||
							 memcmp(cfg.doc_type, key, prefix_len) != 0))
		ereport(ERROR,
				(errcode(ERRCODE_CHECK_VIOLATION),
				 errmsg("document type \"%.*s\" does not match collection "
						"type \"%s\"",
						prefix_len, key, cfg.doc_type),
				 errdetail("Collection \"%s\" holds documents of type \"%s\"; "
						   "key \"%.*s\" has type \"%.*s\".",
						   RelationGetRelationName(rel), cfg.doc_type, key_len,
						   key, prefix_len, key)));
	st.type = key;
	st.type_len = prefix_len;

	/* What the update keeps: _created, _createdBy; _ver counts on. */
	st.who = DocmodelWho();
	st.ver = 1;
	if (!st.is_insert)
	{
		Jsonb *old = DatumGetJsonbP(olddocd);
		JsonbContainer *omc = MetaContainer(&cfg, old);

		st.old_doc = old;
		if (omc != NULL)
		{
			st.ver = NextVer(FindField(omc, names->ver), 1, key, key_len);
			st.created = FindField(omc, names->created);
			st.created_by = FindField(omc, names->created_by);
		}
		else
			st.ver = 2;
	}
	st.cas = DocmodelNextCas(old_cas);

	/* revisions: a new document continues after its key's history (and
	 * after the expired document it replaces), so numbers never repeat */
	if (st.is_insert && OidIsValid(cfg.revisions_relid))
	{
		int32 floor = 1;

		if (oldtup != NULL && !on[COLL_ATT_DOC - 1])
		{
			JsonbContainer *omc =
				MetaContainer(&cfg, DatumGetJsonbP(ov[COLL_ATT_DOC - 1]));

			if (omc != NULL)
				floor = NextVer(FindField(omc, names->ver), 0, key, key_len);
		}
		st.ver = DocmodelRevisionFirstVer(&cfg, oldtup == NULL ? rel : NULL,
										  nv[COLL_ATT_ID - 1], floor);
	}

	/* schema version: see migrate.c (migrate on write, stamp _schema) */
	body = DocmodelMigrateOnWrite(
		body, st.type, st.type_len,
		cfg.meta_style == DOCMODEL_META_META    ? DOC_META_META
		: cfg.meta_style == DOCMODEL_META_PLAIN ? DOC_META_PLAIN
												: DOC_META_UNDERSCORE,
		key, key_len, &st.schema);

	result = DocmodelAssembleDocument(body, &st);
	CheckSize(VARSIZE(result), key, key_len);

	/*
	 * An update that would change nothing but the restamped fields (the
	 * same body again, a body without _modified, a client's own _ver) is a
	 * no-op like a byte-identical one: the document and its _ver stay, so
	 * _ver counts the writes that changed something, and a collection with
	 * history has a revision for every _ver but the current one.
	 */
	if (!st.is_insert && JB_ROOT_IS_OBJECT(st.old_doc) &&
		!BodyChanged(&cfg, st.old_doc, result))
	{
		nv[COLL_ATT_DOC - 1] = olddocd;
		nv[COLL_ATT_CAS - 1] = Int64GetDatum(st.cas);
		nn[COLL_ATT_CAS - 1] = false;
		return PointerGetDatum(FormResult(desc, newtup, nv, nn));
	}

	/* revisions: see revision.c */

	nv[COLL_ATT_DOC - 1] = JsonbPGetDatum(result);
	nv[COLL_ATT_CAS - 1] = Int64GetDatum(st.cas);
	nn[COLL_ATT_CAS - 1] = false;
	return PointerGetDatum(FormResult(desc, newtup, nv, nn));
}
