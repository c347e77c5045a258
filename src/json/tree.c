/*-------------------------------------------------------------------------
 *
 * json/tree.c
 *	  The mutable JSON document shared by migrations and patch (see
 *	  json/tree.h): lazy expansion, member and element edits, pointer
 *	  resolution with a failure code, deep copy, equality as jsonb = says,
 *	  and the way back to jsonb. Callers turn failure codes into their own
 *	  messages. No shared state; everything is palloc'd in the caller's
 *	  memory context.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/numeric.h"

#include "json/tree.h"

void
DocmodelJsonTreeFromJsonb(Jsonb *doc, JsonbValue *root)
{
	if (JB_ROOT_IS_SCALAR(doc))
		JsonbExtractScalar(&doc->root, root);
	else
		JsonbToJsonbValue(doc, root);
}

JsonbValue *
DocmodelJsonTreeBuild(const JsonbValue *v)
{
	JsonbIterator *it;
	JsonbParseState *state = NULL;
	JsonbValue x;
	JsonbValue *res = NULL;
	JsonbIteratorToken tok;

	if (v->type != jbvBinary)
	{
		res = palloc(sizeof(JsonbValue));
		*res = *v;
		return res;
	}
	it = JsonbIteratorInit(v->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &x, false)) != WJB_DONE)
		res = pushJsonbValue(&state, tok, tok < WJB_BEGIN_ARRAY ? &x : NULL);
	return res;
}

void
DocmodelJsonTreeExpand(JsonbValue *v)
{
	JsonbContainer *c;
	JsonbIterator *it;
	JsonbIteratorToken tok;
	JsonbValue x;
	int n;
	int i = 0;

	if (v->type != jbvBinary)
		return;
	c = v->val.binary.data;
	n = JsonContainerSize(c);
	it = JsonbIteratorInit(c);
	if (JsonContainerIsObject(c))
	{
		/* the iterator hands out keys in jsonb order, which we keep */
		JsonbPair *pairs = palloc(sizeof(JsonbPair) * Max(n, 1));

		while ((tok = JsonbIteratorNext(&it, &x, true)) != WJB_DONE)
		{
			if (tok == WJB_KEY)
			{
				pairs[i].key = x;
				pairs[i].order = i;
			}
			else if (tok == WJB_VALUE)
				pairs[i++].value = x;
		}
		v->type = jbvObject;
		v->val.object.nPairs = i;
		v->val.object.pairs = pairs;
	}
	else
	{
		JsonbValue *elems = palloc(sizeof(JsonbValue) * Max(n, 1));

		while ((tok = JsonbIteratorNext(&it, &x, true)) != WJB_DONE)
			if (tok == WJB_ELEM)
				elems[i++] = x;
		v->type = jbvArray;
		v->val.array.nElems = i;
		v->val.array.elems = elems;
		v->val.array.rawScalar = false;
	}
}

int
DocmodelJsonTreeFindMember(const JsonbValue *obj, const char *k, int klen)
{
	int lo = 0;
	int hi = obj->val.object.nPairs - 1;

	while (lo <= hi)
	{
		int mid = (lo + hi) / 2;
		const JsonbValue *mk = &obj->val.object.pairs[mid].key;
		int c = DocmodelJsonTreeKeyCmp(mk->val.string.val, mk->val.string.len,
									   k, klen);

		if (c == 0)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -lo - 1;
}

void
DocmodelJsonTreeSetMember(JsonbValue *obj, const char *k, int klen,
						  const JsonbValue *val)
{
	int i = DocmodelJsonTreeFindMember(obj, k, klen);
	int n = obj->val.object.nPairs;
	JsonbPair *p;

	if (i >= 0)
	{
		obj->val.object.pairs[i].value = *val;
		return;
	}
	i = -i - 1;
	obj->val.object.pairs =
		obj->val.object.pairs
			? repalloc(obj->val.object.pairs, sizeof(JsonbPair) * (n + 1))
			: palloc(sizeof(JsonbPair) * (n + 1));
	p = obj->val.object.pairs;
	memmove(&p[i + 1], &p[i], sizeof(JsonbPair) * (n - i));
	p[i].key.type = jbvString;
	p[i].key.val.string.val = (char *) k;
	p[i].key.val.string.len = klen;
	p[i].value = *val;
	p[i].order = n;
	obj->val.object.nPairs = n + 1;
}

void
DocmodelJsonTreeInsertElem(JsonbValue *arr, int i, const JsonbValue *val)
{
	int n = arr->val.array.nElems;
	JsonbValue *e;

	arr->val.array.elems =
		arr->val.array.elems
			? repalloc(arr->val.array.elems, sizeof(JsonbValue) * (n + 1))
			: palloc(sizeof(JsonbValue) * (n + 1));
	e = arr->val.array.elems;
	memmove(&e[i + 1], &e[i], sizeof(JsonbValue) * (n - i));
	e[i] = *val;
	arr->val.array.nElems = n + 1;
}

JsonbValue
DocmodelJsonTreeRemoveAt(JsonbValue *parent, int i)
{
	JsonbValue res;

	if (parent->type == jbvObject)
	{
		JsonbPair *p = parent->val.object.pairs;
		int n = parent->val.object.nPairs;

		res = p[i].value;
		memmove(&p[i], &p[i + 1], sizeof(JsonbPair) * (n - i - 1));
		parent->val.object.nPairs = n - 1;
	}
	else
	{
		JsonbValue *e = parent->val.array.elems;
		int n = parent->val.array.nElems;

		res = e[i];
		memmove(&e[i], &e[i + 1], sizeof(JsonbValue) * (n - i - 1));
		parent->val.array.nElems = n - 1;
	}
	return res;
}

/* Fill *miss and return false. */
static bool
Miss(JsonTreeMiss *miss, JsonTreeStatus status, int tok, JsonbValue *at)
{
	miss->status = status;
	miss->tok = tok;
	miss->at = at;
	miss->in_from = false;
	return false;
}

/*
 * Find child t of expanded container cur: its position in *pos (for an
 * array, "-" gives the length when end_ok); false with *miss filled when
 * it is not there.
 */
static bool
FindChild(JsonbValue *cur, const JsonPointer *p, int t, bool end_ok, int *pos,
		  JsonTreeMiss *miss)
{
	const char *tok = p->tok[t];
	int len = p->toklen[t];
	int n;

	if (cur->type == jbvObject)
	{
		*pos = DocmodelJsonTreeFindMember(cur, tok, len);
		return *pos >= 0 || Miss(miss, JSONTREE_NO_MEMBER, t, cur);
	}
	if (cur->type != jbvArray)
		return Miss(miss, JSONTREE_NOT_CONTAINER, t, cur);
	n = cur->val.array.nElems;
	switch (DocmodelJsonPointerArrayIndex(tok, len, pos))
	{
		case JSONPOINTER_INDEX_BAD:
			return Miss(miss, JSONTREE_BAD_INDEX, t, cur);
		case JSONPOINTER_INDEX_RANGE:
			return Miss(miss, JSONTREE_INDEX_OVERFLOW, t, cur);
		case JSONPOINTER_INDEX_END:
			if (!end_ok)
				return Miss(miss, JSONTREE_PAST_END, t, cur);
			*pos = n;
			return true;
		case JSONPOINTER_INDEX:
			break;
	}
	if (*pos > n || (*pos == n && !end_ok))
		return Miss(miss, JSONTREE_INDEX_RANGE, t, cur);
	return true;
}

/* Return the child at position pos of an expanded container. */
static inline JsonbValue *
Child(JsonbValue *cur, int pos)
{
	return cur->type == jbvObject ? &cur->val.object.pairs[pos].value
								  : &cur->val.array.elems[pos];
}

/* Tell whether token t of p is Couchbase's "-1", an array's last element. */
static inline bool
IsLast(const JsonPointer *p, int t, int flags)
{
	return (flags & JSONTREE_LAST) && p->toklen[t] == 2 &&
		   p->tok[t][0] == '-' && p->tok[t][1] == '1' &&
		   (p->index == NULL || p->index[t]);
}

/*
 * Tell whether token t of a Couchbase path cannot apply to cur (a jbvBinary
 * or expanded container): [n] on an object, a name on an array.
 */
static inline bool
WrongKind(const JsonbValue *cur, const JsonPointer *p, int t, int flags)
{
	bool obj;

	if (!(flags & JSONTREE_LAST) || p->index == NULL)
		return false;
	if (cur->type == jbvBinary)
		obj = JsonContainerIsObject(cur->val.binary.data);
	else if (cur->type == jbvObject || cur->type == jbvArray)
		obj = cur->type == jbvObject;
	else
		return false;
	return obj == p->index[t];
}

/* Tell whether a Couchbase path has an [n] from token t on. */
static inline bool
IndexFrom(const JsonPointer *p, int t, int flags)
{
	if (!(flags & JSONTREE_LAST) || p->index == NULL)
		return false;
	for (; t < p->ntok; t++)
		if (p->index[t])
			return true;
	return false;
}

JsonbValue *
DocmodelJsonTreeChild(JsonbValue *cur, const JsonPointer *p, int t, int flags,
					  int *pos, JsonTreeMiss *miss)
{
	static const JsonbValue empty = {.type = jbvObject};
	int i;

	DocmodelJsonTreeExpand(cur);
	if (WrongKind(cur, p, t, flags))
	{
		Miss(miss, JSONTREE_WRONG_KIND, t, cur);
		return NULL;
	}
	if (cur->type == jbvArray && IsLast(p, t, flags))
	{
		if ((i = cur->val.array.nElems - 1) < 0)
		{
			Miss(miss, JSONTREE_INDEX_RANGE, t, cur);
			return NULL;
		}
	}
	else if (!FindChild(cur, p, t, false, &i, miss))
	{
		if (!(flags & JSONTREE_CREATE) || miss->status != JSONTREE_NO_MEMBER ||
			IndexFrom(p, t, flags))
			return NULL;
		DocmodelJsonTreeSetMember(cur, p->tok[t], p->toklen[t], &empty);
		i = DocmodelJsonTreeFindMember(cur, p->tok[t], p->toklen[t]);
	}
	if (pos != NULL)
		*pos = i;
	return Child(cur, i);
}

JsonbValue *
DocmodelJsonTreeWalk(JsonbValue *root, const JsonPointer *p, int ntok,
					 int flags, JsonTreeMiss *miss)
{
	int t;

	for (t = 0; t < ntok && root != NULL; t++)
		root = DocmodelJsonTreeChild(root, p, t, flags, NULL, miss);
	return root;
}

JsonbValue *
DocmodelJsonTreeRead(JsonbValue *root, const JsonPointer *p, int flags,
					 JsonTreeMiss *miss)
{
	int t;

	for (t = 0; t < p->ntok && root != NULL; t++)
	{
		JsonbValue *next = NULL;
		int i;

		if (root->type == jbvBinary && !WrongKind(root, p, t, flags))
		{
			JsonbContainer *c = root->val.binary.data;

			if (JsonContainerIsObject(c))
				next = getKeyJsonValueFromContainer(c, p->tok[t], p->toklen[t],
													NULL);
			else if (IsLast(p, t, flags))
				next = getIthJsonbValueFromContainer(
					c, (int) JsonContainerSize(c) - 1);
			else if (DocmodelJsonPointerArrayIndex(p->tok[t], p->toklen[t],
												   &i) == JSONPOINTER_INDEX)
				next = getIthJsonbValueFromContainer(c, i);
		}
		/* not found that way: expand, to say why */
		root = next != NULL
				   ? next
				   : DocmodelJsonTreeChild(root, p, t, flags & ~JSONTREE_CREATE,
										   NULL, miss);
	}
	return root;
}

/* Return the expanded parent of p's target, or NULL with *miss. */
static JsonbValue *
ResolveParent(JsonbValue *root, const JsonPointer *p, JsonTreeMiss *miss)
{
	JsonbValue *parent = DocmodelJsonTreeWalk(root, p, p->ntok - 1, 0, miss);

	if (parent == NULL)
		return NULL;
	DocmodelJsonTreeExpand(parent);
	if (parent->type != jbvObject && parent->type != jbvArray)
	{
		Miss(miss, JSONTREE_NOT_CONTAINER, p->ntok - 1, parent);
		return NULL;
	}
	return parent;
}

bool
DocmodelJsonTreeAdd(JsonbValue *root, const JsonPointer *p,
					const JsonbValue *val, JsonTreeMiss *miss)
{
	JsonbValue *parent;
	int t = p->ntok - 1;
	int pos;

	if (p->ntok == 0)
	{
		*root = *val;
		return true;
	}
	parent = ResolveParent(root, p, miss);
	if (parent == NULL)
		return false;
	if (parent->type == jbvObject)
	{
		DocmodelJsonTreeSetMember(parent, p->tok[t], p->toklen[t], val);
		return true;
	}
	if (!FindChild(parent, p, t, true, &pos, miss))
		return false;
	DocmodelJsonTreeInsertElem(parent, pos, val);
	return true;
}

bool
DocmodelJsonTreeRemove(JsonbValue *root, const JsonPointer *p,
					   JsonbValue *removed, JsonTreeMiss *miss)
{
	JsonbValue *parent;
	int pos;

	if (p->ntok == 0)
		return Miss(miss, JSONTREE_ROOT, 0, root);
	parent = ResolveParent(root, p, miss);
	if (parent == NULL || !FindChild(parent, p, p->ntok - 1, false, &pos, miss))
		return false;
	*removed = DocmodelJsonTreeRemoveAt(parent, pos);
	return true;
}

JsonbValue
DocmodelJsonTreeCopy(const JsonbValue *v)
{
	JsonbValue r = *v;
	int i;

	check_stack_depth();
	CHECK_FOR_INTERRUPTS();
	if (v->type == jbvObject)
	{
		int n = v->val.object.nPairs;

		r.val.object.pairs = palloc(sizeof(JsonbPair) * Max(n, 1));
		for (i = 0; i < n; i++)
		{
			r.val.object.pairs[i] = v->val.object.pairs[i];
			r.val.object.pairs[i].value =
				DocmodelJsonTreeCopy(&v->val.object.pairs[i].value);
		}
	}
	else if (v->type == jbvArray)
	{
		int n = v->val.array.nElems;

		r.val.array.elems = palloc(sizeof(JsonbValue) * Max(n, 1));
		for (i = 0; i < n; i++)
			r.val.array.elems[i] = DocmodelJsonTreeCopy(&v->val.array.elems[i]);
	}
	return r;
}

/* JsonTreeRoom's walk: acc plus the room of v, stopping past limit. */
static Size
TreeRoom(const JsonbValue *v, Size limit, Size acc)
{
	int i;

	check_stack_depth();
	CHECK_FOR_INTERRUPTS();
	acc += sizeof(JsonbPair); /* the node, its JEntry and a key's */
	switch (v->type)
	{
		case jbvString:
			acc += v->val.string.len;
			break;
		case jbvNumeric:
			acc += VARSIZE_ANY(v->val.numeric) + 3;
			break;
		case jbvBinary:
			acc += v->val.binary.len + 3;
			break;
		case jbvObject:
			for (i = 0; i < v->val.object.nPairs && acc <= limit; i++)
				acc = TreeRoom(&v->val.object.pairs[i].value, limit,
							   acc + v->val.object.pairs[i].key.val.string.len);
			break;
		case jbvArray:
			for (i = 0; i < v->val.array.nElems && acc <= limit; i++)
				acc = TreeRoom(&v->val.array.elems[i], limit, acc);
			break;
		default:
			break;
	}
	return acc;
}

Size
DocmodelJsonTreeRoom(const JsonbValue *v, Size limit)
{
	return TreeRoom(v, limit, 0);
}

/* A number node of n; 22003 unless n is finite (jsonb has no NaN nor
 * Infinity: its text form would not parse back, nor restore). */
JsonbValue
DocmodelJsonTreeNumber(Numeric n, const char *what)
{
	JsonbValue v;

	if (numeric_is_nan(n) || numeric_is_inf(n))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("%s is %s, which is not a JSON number", what,
						DatumGetCString(DirectFunctionCall1(
							numeric_out, NumericGetDatum(n)))),
				 errdetail("A document holds finite numbers only: NaN and "
						   "Infinity have no JSON form.")));
	v.type = jbvNumeric;
	v.val.numeric = n;
	return v;
}

/* Compare two scalars of the same type as jsonb = does. */
static bool
ScalarsEqual(const JsonbValue *a, const JsonbValue *b)
{
	switch (a->type)
	{
		case jbvNull:
			return true;
		case jbvBool:
			return a->val.boolean == b->val.boolean;
		case jbvString:
			return a->val.string.len == b->val.string.len &&
				   memcmp(a->val.string.val, b->val.string.val,
						  a->val.string.len) == 0;
		case jbvNumeric:
			return DatumGetBool(
				DirectFunctionCall2(numeric_eq, NumericGetDatum(a->val.numeric),
									NumericGetDatum(b->val.numeric)));
		default:
			return false;
	}
}

bool
DocmodelJsonTreeEqual(JsonbValue *a, JsonbValue *b)
{
	int i;

	check_stack_depth();
	CHECK_FOR_INTERRUPTS();
	if (a->type == jbvBinary && b->type == jbvBinary)
		return (a->val.binary.len == b->val.binary.len &&
				memcmp(a->val.binary.data, b->val.binary.data,
					   a->val.binary.len) == 0) ||
			   compareJsonbContainers(a->val.binary.data, b->val.binary.data) ==
				   0;
	if (a->type == jbvBinary || b->type == jbvBinary)
	{
		/* one side expanded: compare level by level */
		if (!IsAJsonbScalar(a) && !IsAJsonbScalar(b))
		{
			DocmodelJsonTreeExpand(a);
			DocmodelJsonTreeExpand(b);
		}
		else
			return false;
	}
	if (a->type != b->type)
		return false;
	if (a->type == jbvArray)
	{
		if (a->val.array.nElems != b->val.array.nElems)
			return false;
		for (i = 0; i < a->val.array.nElems; i++)
			if (!DocmodelJsonTreeEqual(&a->val.array.elems[i],
									   &b->val.array.elems[i]))
				return false;
		return true;
	}
	if (a->type == jbvObject)
	{
		if (a->val.object.nPairs != b->val.object.nPairs)
			return false;
		for (i = 0; i < a->val.object.nPairs; i++)
		{
			JsonbPair *pa = &a->val.object.pairs[i];
			JsonbPair *pb = &b->val.object.pairs[i];

			if (!ScalarsEqual(&pa->key, &pb->key) ||
				!DocmodelJsonTreeEqual(&pa->value, &pb->value))
				return false;
		}
		return true;
	}
	return ScalarsEqual(a, b);
}

const char *
DocmodelJsonTreeTypeName(const JsonbValue *v)
{
	switch (v->type)
	{
		case jbvNull:
			return "null";
		case jbvBool:
			return "a boolean";
		case jbvString:
			return "a string";
		case jbvNumeric:
			return "a number";
		case jbvArray:
			return "an array";
		case jbvObject:
			return "an object";
		case jbvBinary:
			return JsonContainerIsObject(v->val.binary.data) ? "an object"
															 : "an array";
		default:
			return "a value";
	}
}

/*
 * The room v takes in jsonb's on-disk form, alignment padding included;
 * 0 for an expanded container (AppendValue makes its own room).
 */
static inline Size
ScalarRoom(const JsonbValue *v)
{
	switch (v->type)
	{
		case jbvString:
			return v->val.string.len;
		case jbvNumeric:
			return VARSIZE_ANY(v->val.numeric) + 3;
		case jbvBinary:
			return v->val.binary.len + 3;
		default:
			return 0;
	}
}

/*
 * Write v (anything but an expanded container) to buf, which has the room
 * ScalarRoom(v) says, and return its JEntry type. Numerics and containers
 * are aligned to 4 bytes relative to the start of the Jsonb; a container
 * still held as jbvBinary is copied as stored (its offsets are relative
 * to its own start).
 */
static pg_attribute_always_inline uint32
PutScalar(StringInfo buf, const JsonbValue *v)
{
	const char *data;
	int len;
	uint32 type;

	switch (v->type)
	{
		case jbvNull:
			return JENTRY_ISNULL;
		case jbvBool:
			return v->val.boolean ? JENTRY_ISBOOL_TRUE : JENTRY_ISBOOL_FALSE;
		case jbvString:
			data = v->val.string.val;
			len = v->val.string.len;
			type = JENTRY_ISSTRING;
			break;
		case jbvNumeric:
			data = (const char *) v->val.numeric;
			len = VARSIZE_ANY(v->val.numeric);
			type = JENTRY_ISNUMERIC;
			break;
		case jbvBinary:
			data = (const char *) v->val.binary.data;
			len = v->val.binary.len;
			type = JENTRY_ISCONTAINER;
			break;
		default:
			elog(ERROR, "unexpected jsonb value type %d", (int) v->type);
	}
	if (type != JENTRY_ISSTRING)
		while (buf->len % 4 != 0)
			buf->data[buf->len++] = '\0';
	memcpy(buf->data + buf->len, data, len);
	buf->len += len;
	return type;
}

/* Entry i of a container: its end offset every JB_OFFSET_STRIDE entries,
 * else its length. */
#define SET_JENTRY(buf, jpos, i, type, len, total) \
	(((JEntry *) ((buf)->data + (jpos)))[i] =      \
		 (uint32) (i) % JB_OFFSET_STRIDE == 0      \
			 ? (type) | (total) | JENTRY_HAS_OFF   \
			 : (type) | (len))

/*
 * Append v to buf in jsonb's on-disk form (as convertJsonbValue does) and
 * return its JEntry type. Only the expanded parts of a tree are written
 * anew; objects' pairs are sorted and unique, as the tree keeps them. The
 * room of a container's keys and stored values is made once; an expanded
 * child makes its own, and the rest is made again after it.
 */
static uint32
AppendValue(StringInfo buf, const JsonbValue *v)
{
	bool obj = v->type == jbvObject;
	const JsonbValue *vals;
	int stride;
	int n;
	int jpos;
	uint32 header;
	uint32 total = 0;
	Size left = 0;
	int i;

	if (v->type != jbvObject && v->type != jbvArray)
	{
		enlargeStringInfo(buf, ScalarRoom(v));
		return PutScalar(buf, v);
	}
	check_stack_depth();
	n = obj ? v->val.object.nPairs : v->val.array.nElems;
	vals = obj ? &v->val.object.pairs[0].value : v->val.array.elems;
	stride = obj ? sizeof(JsonbPair) : sizeof(JsonbValue);
#define VAL(i) ((const JsonbValue *) ((const char *) vals + (i) *stride))
	for (i = 0; i < n; i++)
		left += ScalarRoom(VAL(i)) +
				(obj ? v->val.object.pairs[i].key.val.string.len : 0);
	enlargeStringInfo(buf, 3 + sizeof(uint32) +
							   (obj ? 2 * n : n) * sizeof(JEntry) + left);
	while (buf->len % 4 != 0)
		buf->data[buf->len++] = '\0';
	header = (uint32) n | (obj ? JB_FOBJECT : JB_FARRAY);
	if (!obj && v->val.array.rawScalar)
		header |= JB_FSCALAR;
	memcpy(buf->data + buf->len, &header, sizeof(uint32));
	jpos = buf->len + sizeof(uint32);
	buf->len = jpos + (obj ? 2 * n : n) * sizeof(JEntry);
	for (i = 0; obj && i < n; i++)
	{
		const JsonbValue *k = &v->val.object.pairs[i].key;
		uint32 len = k->val.string.len;

		memcpy(buf->data + buf->len, k->val.string.val, len);
		buf->len += len;
		total += len;
		left -= len;
		SET_JENTRY(buf, jpos, i, JENTRY_ISSTRING, len, total);
	}
	for (i = 0; i < n; i++)
	{
		const JsonbValue *e = VAL(i);
		int from = buf->len;
		uint32 type;
		uint32 len;

		if (e->type == jbvObject || e->type == jbvArray)
		{
			type = AppendValue(buf, e);
			enlargeStringInfo(buf, left);
		}
		else
		{
			type = PutScalar(buf, e);
			left -= buf->len - from;
		}
		len = buf->len - from;
		total += len;
		SET_JENTRY(buf, jpos, obj ? n + i : i, type, len, total);
	}
#undef VAL
	if (total > JENTRY_OFFLENMASK)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("total size of jsonb elements exceeds the maximum of "
						"%u bytes",
						JENTRY_OFFLENMASK)));
	return JENTRY_ISCONTAINER;
}

Jsonb *
DocmodelJsonTreeToJsonb(JsonbValue *v)
{
	StringInfoData buf;
	JsonbValue scalar;

	if (v->type != jbvObject && v->type != jbvArray && v->type != jbvBinary)
	{
		/* a scalar document: a one-element array marked as one */
		scalar.type = jbvArray;
		scalar.val.array.nElems = 1;
		scalar.val.array.elems = v;
		scalar.val.array.rawScalar = true;
		v = &scalar;
	}
	initStringInfo(&buf);
	buf.len = VARHDRSZ; /* filled by SET_VARSIZE */
	(void) AppendValue(&buf, v);
	SET_VARSIZE(buf.data, buf.len);
	return (Jsonb *) buf.data;
}

/* Members a merge keeps its offsets and order of on the stack. */
#define MERGE_STACK 32

/*
 * Fill order with the members of the merge in key order (a kept member's
 * index in c, or -(j + 1) for add[j]), start holding c's entries' offsets;
 * *keys is set to the bytes of all their keys. Returns the bytes their
 * values may take, padding included.
 */
static Size
MergeOrder(JsonbContainer *c, const uint32 *start, const int *keep, int nkeep,
		   const JsonbPair *add, int nadd, int *order, uint32 *keys)
{
	int n = JsonContainerSize(c);
	char *base = (char *) &c->children[2 * n];
	Size room = 0;
	int i = 0;
	int j = 0;
	int k = 0;

	*keys = 0;
	while (i < nkeep || j < nadd)
	{
		int b = i < nkeep ? keep[i] : -1;

		if (j < nadd &&
			(b < 0 || DocmodelJsonTreeKeyCmp(
						  add[j].key.val.string.val, add[j].key.val.string.len,
						  base + start[b], start[b + 1] - start[b]) < 0))
		{
			*keys += add[j].key.val.string.len;
			room += ScalarRoom(&add[j].value);
			order[k++] = -(j++) - 1;
		}
		else
		{
			*keys += start[b + 1] - start[b];
			room += start[n + b + 1] - start[n + b] + 3;
			order[k++] = b;
			i++;
		}
	}
	return room;
}

/*
 * Append kept value b of c (whose data starts at base, offsets in start) to
 * buf as stored, aligned again where it must be; return its JEntry type.
 */
static pg_attribute_always_inline uint32
PutStored(StringInfo buf, JsonbContainer *c, char *base, const uint32 *start,
		  int b)
{
	int n = JsonContainerSize(c);
	uint32 s = start[n + b];
	uint32 end = start[n + b + 1];
	uint32 type = c->children[n + b] & JENTRY_TYPEMASK;

	if (type == JENTRY_ISNUMERIC || type == JENTRY_ISCONTAINER)
	{
		s = INTALIGN(s);
		while (buf->len % 4 != 0)
			buf->data[buf->len++] = '\0';
	}
	if (s > end)
		s = end; /* only a corrupt container: copy nothing, not 4 GB */
	memcpy(buf->data + buf->len, base + s, end - s);
	buf->len += end - s;
	return type;
}

Jsonb *
DocmodelJsonTreeMergeObject(JsonbContainer *c, const int *keep, int nkeep,
							const JsonbPair *add, int nadd)
{
	int n = JsonContainerSize(c);
	int total_n = nkeep + nadd;
	char *base = (char *) &c->children[2 * n];
	uint32 startbuf[2 * MERGE_STACK + 1];
	int orderbuf[2 * MERGE_STACK];
	uint32 *start =
		n <= MERGE_STACK ? startbuf : palloc((2 * n + 1) * sizeof(uint32));
	int *order =
		total_n <= 2 * MERGE_STACK ? orderbuf : palloc(total_n * sizeof(int));
	StringInfoData buf;
	uint32 header = (uint32) total_n | JB_FOBJECT;
	uint32 keys;
	uint32 ktotal = 0;
	uint32 vtotal;
	int kpos;
	int jpos = VARHDRSZ + sizeof(uint32);
	int k;

	start[0] = 0;
	for (k = 0; k < 2 * n; k++)
	{
		start[k + 1] = start[k];
		JBE_ADVANCE_OFFSET(start[k + 1], c->children[k]);
	}
	buf.maxlen = jpos + 2 * total_n * sizeof(JEntry);
	buf.maxlen += MergeOrder(c, start, keep, nkeep, add, nadd, order, &keys);
	buf.maxlen += keys;
	buf.data = palloc(buf.maxlen);
	buf.cursor = 0;
	memcpy(buf.data + VARHDRSZ, &header, sizeof(uint32));
	/* the keys from kpos, the values after all of them (buf.len) */
	kpos = jpos + 2 * total_n * sizeof(JEntry);
	buf.len = kpos + keys;
	vtotal = keys;
	for (k = 0; k < total_n; k++)
	{
		int b = order[k];
		int from = buf.len;
		const char *key;
		uint32 len;
		uint32 type;

		if (b >= 0)
		{
			key = base + start[b];
			len = start[b + 1] - start[b];
			type = PutStored(&buf, c, base, start, b);
		}
		else
		{
			key = add[-b - 1].key.val.string.val;
			len = add[-b - 1].key.val.string.len;
			type = PutScalar(&buf, &add[-b - 1].value);
		}
		memcpy(buf.data + kpos, key, len);
		kpos += len;
		ktotal += len;
		vtotal += buf.len - from;
		SET_JENTRY(&buf, jpos, k, JENTRY_ISSTRING, len, ktotal);
		SET_JENTRY(&buf, jpos, total_n + k, type, buf.len - from, vtotal);
	}
	if (vtotal > JENTRY_OFFLENMASK)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("total size of jsonb elements exceeds the maximum of "
						"%u bytes",
						JENTRY_OFFLENMASK)));
	SET_VARSIZE(buf.data, buf.len);
	return (Jsonb *) buf.data;
}

/*
 * Return the depth of the stored container c as Couchbase counts it ([] 1,
 * [1] 2, [[1]] 3: a scalar is a level), or limit + 1 when it is deeper than
 * limit. Only the entries' headers are read; the recursion stops at limit.
 */
int
DocmodelJsonTreeContainerDepth(JsonbContainer *c, int limit)
{
	uint32 n = JsonContainerSize(c);
	uint32 first = JsonContainerIsObject(c) ? n : 0;
	char *base = (char *) &c->children[first + n];
	uint32 off = 0;
	uint32 j;
	int depth = 1;

	if (limit < 1)
		return limit + 1;
	for (j = 0; j < first + n; j++)
	{
		JEntry e = c->children[j];
		uint32 end = JBE_HAS_OFF(e) ? JBE_OFFLENFLD(e) : off + JBE_OFFLENFLD(e);

		if (j >= first)
		{
			int d = JBE_ISCONTAINER(e)
						? 1 + DocmodelJsonTreeContainerDepth(
								  (JsonbContainer *) (base + INTALIGN(off)),
								  limit - 1)
						: 2;

			if ((depth = Max(depth, d)) > limit)
				return limit + 1;
		}
		off = end;
	}
	return depth;
}

/* The depth of a value (a scalar, or a container as jbvBinary). */
int
DocmodelJsonTreeDepth(const JsonbValue *v, int limit)
{
	if (v->type != jbvBinary)
		return 1;
	return DocmodelJsonTreeContainerDepth(v->val.binary.data, limit);
}
