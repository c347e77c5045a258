/*-------------------------------------------------------------------------
 *
 * collection/stamp.c
 *	  The management fields a write stamps: the document assembled from a
 *	  body and a stamp (DocmodelAssembleDocument) in the collection's meta
 *	  style and time unit, the CAS clock, the writer's name, and the key
 *	  move rename_key is making (DocmodelRename), which the collection
 *	  trigger and the history writer both read.
 *
 * Backend-local state: the last CAS issued (LastCas), the session user's
 * name (WhoName, looked up again when the session user changes), the last
 * two time values made (TimeCache), DocmodelRename. No catalog access per row.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

#include "collection/stamp.h"
#include "json/tree.h"
#include "json/util.h"

DocmodelRenameState DocmodelRename;

static int64 LastCas = 0;
static Oid WhoRoleId = InvalidOid;
static char WhoName[NAMEDATALEN];

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
 * The pairs of the document being written are JsonbPairs whose values are
 * the body's stored values (strings, numerics and containers point into
 * the body, never decoded) or the stamp's; JsonTreeToJsonb writes them.
 */

/* Set p to key and the JSON value v. */
static void
SetPair(JsonbPair *p, const DocFieldName *key, JsonbValue v)
{
	p->key = DocmodelJsonTreeString(key->name, key->len);
	p->value = v;
}

/*
 * Write to out the pairs of object container c (in their stored order,
 * which is the key order) without decoding values, leaving out management
 * fields of fs (when given; the schema field only when the stamp sets
 * one) and the key skip (when given), merged with the nadd sorted pairs
 * of add. Returns the number of pairs written.
 */
static int
ReadPairs(JsonbContainer *c, const DocFieldSet *fs, DocmodelStamp *st,
		  const DocFieldName *skip, const JsonbPair *add, int nadd,
		  JsonbPair *out)
{
	int n = c != NULL ? JsonContainerSize(c) : 0;
	char *base = c != NULL ? (char *) &c->children[2 * n] : NULL;
	uint32 koff = 0;
	uint32 voff = 0;
	int i;
	int j = 0;
	int k = 0;

	/* the values' data follows all keys' data */
	for (i = 0; i < n; i++)
		JBE_ADVANCE_OFFSET(voff, c->children[i]);
	for (i = 0; i < n; i++)
	{
		uint32 kstart = koff;
		uint32 vstart = voff;
		int klen;
		JsonbPair *p;

		JBE_ADVANCE_OFFSET(koff, c->children[i]);
		JBE_ADVANCE_OFFSET(voff, c->children[n + i]);
		klen = koff - kstart;
		if (skip != NULL && klen == skip->len &&
			memcmp(base + kstart, skip->name, klen) == 0)
			continue;
		if (fs != NULL)
		{
			DocFieldKind kind = DocmodelFieldKind(fs, base + kstart, klen);

			if (kind != DOC_NFIELDS &&
				(kind != DOC_FIELD_SCHEMA || st->schema != NULL))
				continue;
		}
		while (j < nadd && DocmodelJsonTreeKeyCmp(add[j].key.val.string.val,
												  add[j].key.val.string.len,
												  base + kstart, klen) < 0)
			out[k++] = add[j++];
		p = &out[k++];
		p->key = DocmodelJsonTreeString(base + kstart, klen);
		DocmodelJsonTreeEntryValue(c->children[n + i], base, vstart,
								   voff - vstart, &p->value);
	}
	while (j < nadd)
		out[k++] = add[j++];
	return k;
}

/*
 * Fill keep with the indexes of the members of object container c that a
 * stored document keeps (ReadPairs without skip: all but the management
 * fields of fs, the schema field only when the stamp sets none) and
 * return how many. With st->type_from_body, a type field that is a string
 * becomes st->type.
 */
static int
KeepMembers(JsonbContainer *c, const DocFieldSet *fs, DocmodelStamp *st,
			int *keep)
{
	int n = JsonContainerSize(c);
	char *base = (char *) &c->children[2 * n];
	uint32 koff = 0;
	int i;
	int k = 0;

	for (i = 0; i < n; i++)
	{
		uint32 kstart = koff;
		DocFieldKind kind;

		JBE_ADVANCE_OFFSET(koff, c->children[i]);
		kind = DocmodelFieldKind(fs, base + kstart, koff - kstart);
		if (kind == DOC_NFIELDS ||
			(kind == DOC_FIELD_SCHEMA && st->schema == NULL))
			keep[k++] = i;
		else if (kind == DOC_FIELD_TYPE && st->type_from_body &&
				 JBE_ISSTRING(c->children[n + i]))
		{
			st->type = base + getJsonbOffset(c, n + i);
			st->type_len = getJsonbLength(c, n + i);
		}
	}
	return k;
}

/*
 * Fill m with the management pairs of the stamp named as in fs, in key
 * order; timeval is the JSON value of st->now. Returns how many.
 */
static int
ManagedPairs(const DocFieldSet *fs, DocmodelStamp *st, JsonbValue *timeval,
			 JsonbValue *ver, int wholen, JsonbPair *m)
{
	int k = 0;
	int i;

	for (i = 0; i < DOC_NFIELDS; i++)
	{
		DocFieldKind kind = fs->order[i];
		const DocFieldName *name = &fs->field[kind];

		if (st->mode != DOCMODEL_STAMP_DOCUMENT && kind != DOC_NFIELDS &&
			kind != DOC_FIELD_SCHEMA &&
			(kind != DOC_FIELD_TYPE || st->mode == DOCMODEL_STAMP_BODY))
		{
			/* meta_style 'columns': a body keeps only its type (when it
			 * must) and, on a Citus shard, its writers' names; a read shows
			 * the columns' stamps (kept[]) */
			bool type = st->mode == DOCMODEL_STAMP_BODY &&
						kind == DOC_FIELD_TYPE && st->type_in_body;

			if (type ||
				(st->kept[kind] != NULL &&
				 (st->mode == DOCMODEL_STAMP_READ ||
				  (st->writers_in_body && (kind == DOC_FIELD_CREATED_BY ||
										   kind == DOC_FIELD_MODIFIED_BY)))))
				SetPair(&m[k++], name,
						type ? DocmodelJsonTreeString(st->type, st->type_len)
							 : *st->kept[kind]);
			continue;
		}
		if (kind != DOC_NFIELDS && kind != DOC_FIELD_VER &&
			st->kept[kind] != NULL)
		{
			SetPair(&m[k++], name, *st->kept[kind]);
			continue;
		}
		switch (kind)
		{
			case DOC_FIELD_VER:
				SetPair(&m[k++], name, *ver);
				break;
			case DOC_FIELD_TYPE:
				SetPair(&m[k++], name,
						DocmodelJsonTreeString(st->type, st->type_len));
				break;
			case DOC_FIELD_SCHEMA:
				if (st->schema != NULL)
					SetPair(&m[k++], name, *st->schema);
				break;
			case DOC_FIELD_CREATED:
				if (st->is_insert)
					SetPair(&m[k++], name, *timeval);
				else if (st->created != NULL)
					SetPair(&m[k++], name, *st->created);
				break;
			case DOC_FIELD_MODIFIED:
				SetPair(&m[k++], name, *timeval);
				break;
			case DOC_FIELD_CREATED_BY:
				if (st->is_insert)
					SetPair(&m[k++], name,
							DocmodelJsonTreeString(st->who, wholen));
				else if (st->created_by != NULL)
					SetPair(&m[k++], name, *st->created_by);
				break;
			case DOC_FIELD_MODIFIED_BY:
				SetPair(&m[k++], name, DocmodelJsonTreeString(st->who, wholen));
				break;
			case DOC_NFIELDS:
				break;
		}
	}
	return k;
}

#define MAX_MANAGED 8

/*
 * The last two time values made, by unit and time: a transaction stamps one
 * now() throughout, a read shows a created and a modified time (a bulk
 * load's documents share them). TimeCacheLast is the one made or found
 * last; a miss replaces the other, so the last two values returned stay
 * valid until the next call.
 */
typedef struct TimeCacheEntry
{
	TimestampTz ts;
	int unit; /* -1: empty */
	JsonbValue val;
} TimeCacheEntry;

static TimeCacheEntry TimeCache[2] = {{0, -1}, {0, -1}};
static int TimeCacheLast = 0;
static Numeric VerOne = NULL;

/*
 * Return DocmodelTimeValue(ts, unit), made once while it is one of the
 * last two asked for. The value stays valid until the second call after.
 */
JsonbValue *
DocmodelCachedTimeValue(TimestampTz ts, DocmodelTimeUnit unit)
{
	TimeCacheEntry *e;
	MemoryContext old;
	JsonbValue *v;
	int i;

	for (i = 0; i < 2; i++)
	{
		e = &TimeCache[TimeCacheLast ^ i];
		if (e->unit == (int) unit && e->ts == ts)
		{
			TimeCacheLast ^= i;
			return &e->val;
		}
	}
	TimeCacheLast ^= 1;
	e = &TimeCache[TimeCacheLast];
	if (e->unit >= 0)
	{
		e->unit = -1;
		if (e->val.type == jbvString)
			pfree(e->val.val.string.val);
		else
			pfree(e->val.val.numeric);
	}
	old = MemoryContextSwitchTo(TopMemoryContext);
	v = DocmodelTimeValue(ts, unit);
	MemoryContextSwitchTo(old);
	e->val = *v;
	pfree(v);
	e->ts = ts;
	e->unit = (int) unit;
	return &e->val;
}

/*
 * The document of DocmodelAssembleDocument when the management fields go
 * into the container object fs->container: body's members and that
 * object, which holds its own members and the nmanaged pairs of managed.
 */
static Jsonb *
AssembleInContainer(Jsonb *body, const DocFieldSet *fs, DocmodelStamp *st,
					const JsonbPair *managed, int nmanaged)
{
	JsonbValue *m = getKeyJsonValueFromContainer(
		&body->root, fs->container.name, fs->container.len, NULL);
	JsonbContainer *meta = NULL;
	JsonbPair metapair;
	JsonbValue doc;

	if (m != NULL && m->type == jbvBinary &&
		JsonContainerIsObject(m->val.binary.data))
		meta = m->val.binary.data;
	metapair.key =
		DocmodelJsonTreeString(fs->container.name, fs->container.len);
	metapair.value.type = jbvObject;
	metapair.value.val.object.pairs =
		palloc(((meta ? JsonContainerSize(meta) : 0) + 1 + MAX_MANAGED) *
			   sizeof(JsonbPair));
	metapair.value.val.object.nPairs = ReadPairs(
		meta, fs, st, NULL, managed, nmanaged, metapair.value.val.object.pairs);
	doc.type = jbvObject;
	doc.val.object.pairs = palloc(
		(JsonContainerSize(&body->root) + 1 + MAX_MANAGED) * sizeof(JsonbPair));
	doc.val.object.nPairs = ReadPairs(&body->root, NULL, st, &fs->container,
									  &metapair, 1, doc.val.object.pairs);
	return DocmodelJsonTreeToJsonb(&doc);
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
	JsonbPair managed[MAX_MANAGED];
	/* only a write stamps a time and a version of its own */
	JsonbValue *timeval =
		st->mode == DOCMODEL_STAMP_DOCUMENT
			? DocmodelCachedTimeValue(st->now, st->cfg->time_unit)
			: NULL;
	const DocFieldSet *fs = st->cfg->fs;
	JsonbValue ver;
	JsonbValue doc;
	int nmanaged;
	int keepbuf[32];
	int *keep = NULL;
	int nkeep = 0;
	int i;

	if (VerOne == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		VerOne = int64_to_numeric(1);
		MemoryContextSwitchTo(old);
	}
	ver.type = jbvNumeric;
	ver.val.numeric = st->mode != DOCMODEL_STAMP_DOCUMENT ? NULL
					  : st->ver == 1                      ? VerOne
									 : int64_to_numeric(st->ver);
	if (fs->container.len == 0 && JsonContainerIsObject(&body->root))
	{
		/* the body's members kept (and its type, for a read) first */
		keep = n <= lengthof(keepbuf) ? keepbuf : palloc(n * sizeof(int));
		nkeep = KeepMembers(&body->root, fs, st, keep);
	}
	nmanaged = ManagedPairs(fs, st, timeval, &ver,
							st->who != NULL ? strlen(st->who) : 0, managed);
	if (fs->container.len > 0)
		return AssembleInContainer(body, fs, st, managed, nmanaged);
	for (i = 0; i < nmanaged; i++)
		if (managed[i].value.type == jbvObject ||
			managed[i].value.type == jbvArray)
			break;
	if (i == nmanaged && keep != NULL)
	{
		/* the body's members and the stamp's, written from the bytes */
		return DocmodelJsonTreeMergeObject(&body->root, keep, nkeep, managed,
										   nmanaged);
	}
	doc.type = jbvObject;
	doc.val.object.pairs = palloc((n + 1 + MAX_MANAGED) * sizeof(JsonbPair));
	doc.val.object.nPairs = ReadPairs(&body->root, fs, st, NULL, managed,
									  nmanaged, doc.val.object.pairs);
	return DocmodelJsonTreeToJsonb(&doc);
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
 * Return a new CAS: the wall clock in microseconds since 1970, but always
 * above old_cas (the stored row's CAS, 0 for a new key) and above the last
 * CAS this backend issued. So a key never sees a CAS twice, without a
 * shared sequence (which would not scale out on Citus).
 */
int64
DocmodelNextCas(int64 old_cas)
{
	int64 cas;

	cas = (int64) GetCurrentTimestamp() +
		  ((int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY);
	if (cas <= old_cas)
		cas = old_cas + 1;
	if (cas <= LastCas)
		cas = LastCas + 1;
	LastCas = cas;
	return cas;
}

/* Syscache subscriber (init.c): a role changed, perhaps its name. */
void
DocmodelWhoSyscache(int cacheid, uint32 hashvalue)
{
	WhoRoleId = InvalidOid;
}

/* Return who writes: docmodel.actor when set, else session_user. */
const char *
DocmodelWho(void)
{
	Oid role;

	if (docmodel_actor != NULL && docmodel_actor[0] != '\0')
		return docmodel_actor;
	role = GetSessionUserId();
	if (role != WhoRoleId)
	{
		char *name = GetUserNameFromId(role, false);

		strlcpy(WhoName, name, NAMEDATALEN);
		WhoRoleId = role;
	}
	return WhoName;
}
