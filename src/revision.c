/*-------------------------------------------------------------------------
 *
 * revision.c
 *	  Document revisions (README, "Revisions"):
 *	  RFC 6902 JSON Patch (diff and patch), and the per-row history writer
 *	  that the collection trigger calls after an UPDATE or DELETE really
 *	  happened.
 *
 *	  Shared state: none between backends. diff and patch are pure; the
 *	  history writer takes its configuration from collection.c's cache
 *	  (copied to the stack per call, as that cache asks) and opens the
 *	  history table by OID on every call. The only backend-local static is
 *	  PkeyInfo, the IndexInfo of an (id, ver) btree, built once in
 *	  TopMemoryContext and never changed. Writers of one key are serialized
 *	  by the row lock on its collection row; an insert of a key, which has
 *	  no row to lock yet, first waits for the key's deleters
 *	  (WaitForKeyWriters).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/executor.h"
#include "executor/nodeModifyTable.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "rewrite/rewriteHandler.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/fmgroids.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "collection.h"
#include "docmodel.h"
#include "jsonutil.h"
#include "revision.h"

PG_FUNCTION_INFO_V1(diff);
PG_FUNCTION_INFO_V1(patch);

/* ------------------------------------------------------------------------
 * Shared helpers
 * ------------------------------------------------------------------------
 */

/* Append a JSON JsonPointer reference token to buf, escaping ~ and /. */
static void
AppendPointerToken(StringInfo buf, const char *tok, int len)
{
	int i;

	appendStringInfoChar(buf, '/');
	for (i = 0; i < len; i++)
	{
		if (tok[i] == '~')
			appendBinaryStringInfo(buf, "~0", 2);
		else if (tok[i] == '/')
			appendBinaryStringInfo(buf, "~1", 2);
		else
			appendStringInfoChar(buf, tok[i]);
	}
}

/* Make a jbvString JsonbValue over a NUL-terminated C string. */
static void
MakeString(JsonbValue *v, const char *s)
{
	v->type = jbvString;
	v->val.string.val = (char *) s;
	v->val.string.len = strlen(s);
}

/* ------------------------------------------------------------------------
 * diff
 *
 * Objects are compared member by member, recursively: a member only in a is
 * removed, only in b is added, in both is diffed. Arrays are compared
 * position by position: the common positions are diffed recursively, extra
 * elements of b are added at the tail in ascending order, extra elements of
 * a are removed from the tail in descending order. Any other difference
 * (types differ, scalars differ) is a "replace" of the whole value. Equal
 * values (as jsonb = says, so 1.0 equals 1) give no operation.
 * ------------------------------------------------------------------------
 */

typedef struct DiffState
{
	JsonbParseState *ps; /* the result array being built */
	StringInfoData path; /* JSON JsonPointer of the current location */
} DiffState;

static void DiffValues(DiffState *st, JsonbValue *a, JsonbValue *b);

/* Emit one operation {op, path[, value]} at the current path. */
static void
EmitOp(DiffState *st, const char *op, JsonbValue *value)
{
	JsonbValue k;
	JsonbValue v;

	pushJsonbValue(&st->ps, WJB_BEGIN_OBJECT, NULL);
	MakeString(&k, "op");
	pushJsonbValue(&st->ps, WJB_KEY, &k);
	MakeString(&v, op);
	pushJsonbValue(&st->ps, WJB_VALUE, &v);
	MakeString(&k, "path");
	pushJsonbValue(&st->ps, WJB_KEY, &k);
	MakeString(&v, pstrdup(st->path.data));
	pushJsonbValue(&st->ps, WJB_VALUE, &v);
	if (value != NULL)
	{
		MakeString(&k, "value");
		pushJsonbValue(&st->ps, WJB_KEY, &k);
		pushJsonbValue(&st->ps, WJB_VALUE, value);
	}
	pushJsonbValue(&st->ps, WJB_END_OBJECT, NULL);
}

/* Diff two objects member by member. */
static void
DiffObjects(DiffState *st, JsonbContainer *ca, JsonbContainer *cb)
{
	int base = st->path.len;
	JsonbIterator *it;
	JsonbIteratorToken tok;
	JsonbValue k;
	JsonbValue v;
	JsonbValue found;

	/* Members of a: removed, or diffed against b's. */
	it = JsonbIteratorInit(ca);
	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
	{
		JsonbValue *vb;

		if (tok != WJB_KEY)
			continue;
		tok = JsonbIteratorNext(&it, &v, true);
		Assert(tok == WJB_VALUE);
		AppendPointerToken(&st->path, k.val.string.val, k.val.string.len);
		vb = getKeyJsonValueFromContainer(cb, k.val.string.val,
										  k.val.string.len, &found);
		if (vb == NULL)
			EmitOp(st, "remove", NULL);
		else
			DiffValues(st, &v, vb);
		st->path.len = base;
		st->path.data[base] = '\0';
	}

	/* Members only in b: added. */
	it = JsonbIteratorInit(cb);
	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
	{
		if (tok != WJB_KEY)
			continue;
		tok = JsonbIteratorNext(&it, &v, true);
		Assert(tok == WJB_VALUE);
		if (getKeyJsonValueFromContainer(ca, k.val.string.val, k.val.string.len,
										 &found) != NULL)
			continue;
		AppendPointerToken(&st->path, k.val.string.val, k.val.string.len);
		EmitOp(st, "add", &v);
		st->path.len = base;
		st->path.data[base] = '\0';
	}
}

/* Diff two arrays position by position; see the section comment. */
static void
DiffArrays(DiffState *st, JsonbContainer *ca, JsonbContainer *cb)
{
	int base = st->path.len;
	int na = JsonContainerSize(ca);
	int nb = JsonContainerSize(cb);
	int i;

	for (i = 0; i < Min(na, nb); i++)
	{
		JsonbValue *ea = getIthJsonbValueFromContainer(ca, i);
		JsonbValue *eb = getIthJsonbValueFromContainer(cb, i);

		appendStringInfo(&st->path, "/%d", i);
		DiffValues(st, ea, eb);
		st->path.len = base;
		st->path.data[base] = '\0';
	}
	for (i = na; i < nb; i++)
	{
		appendStringInfo(&st->path, "/%d", i);
		EmitOp(st, "add", getIthJsonbValueFromContainer(cb, i));
		st->path.len = base;
		st->path.data[base] = '\0';
	}
	for (i = na - 1; i >= nb; i--)
	{
		appendStringInfo(&st->path, "/%d", i);
		EmitOp(st, "remove", NULL);
		st->path.len = base;
		st->path.data[base] = '\0';
	}
}

/* Diff two values (scalars or jbvBinary containers) at the current path. */
static void
DiffValues(DiffState *st, JsonbValue *a, JsonbValue *b)
{
	check_stack_depth();
	if (a->type == jbvBinary && b->type == jbvBinary)
	{
		JsonbContainer *ca = a->val.binary.data;
		JsonbContainer *cb = b->val.binary.data;

		if (JsonContainerIsObject(ca) && JsonContainerIsObject(cb))
		{
			DiffObjects(st, ca, cb);
			return;
		}
		if (JsonContainerIsArray(ca) && JsonContainerIsArray(cb) &&
			!JsonContainerIsScalar(ca) && !JsonContainerIsScalar(cb))
		{
			DiffArrays(st, ca, cb);
			return;
		}
	}
	if (!DocmodelFlatValuesEqual(a, b))
		EmitOp(st, "replace", b);
}

/* SQL: diff(a jsonb, b jsonb) -> jsonb, the RFC 6902 patch turning a into b. */
Datum
diff(PG_FUNCTION_ARGS)
{
	Jsonb *a = PG_GETARG_JSONB_P(0);
	Jsonb *b = PG_GETARG_JSONB_P(1);
	DiffState st;
	JsonbValue va;
	JsonbValue vb;
	JsonbValue *res;

	st.ps = NULL;
	initStringInfo(&st.path);
	JsonbToJsonbValue(a, &va);
	JsonbToJsonbValue(b, &vb);
	pushJsonbValue(&st.ps, WJB_BEGIN_ARRAY, NULL);
	DiffValues(&st, &va, &vb);
	res = pushJsonbValue(&st.ps, WJB_END_ARRAY, NULL);
	PG_RETURN_JSONB_P(JsonbValueToJsonb(res));
}

/* ------------------------------------------------------------------------
 * patch
 *
 * The document is held as a JsonbValue tree that is expanded lazily: a
 * container stays a jbvBinary until an operation descends into it, then it
 * becomes a jbvObject / jbvArray whose children are again scalars or
 * jbvBinary. Untouched subtrees are never copied. The tree is turned back
 * into jsonb once, at the end.
 * ------------------------------------------------------------------------
 */

typedef struct PatchCtx
{
	int index;        /* operation's index in the patch, from 0 */
	const char *op;   /* its "op" */
	const char *path; /* the pointer being resolved, for errors */
} PatchCtx;

typedef struct JsonPointer
{
	int ntokens;
	char **tokens; /* unescaped reference tokens */
	int *lens;
} JsonPointer;

/* Detail for "-" where an existing element is needed. */
static const char *const PastEnd =
	"\"-\" names the position after the last element, which holds no value.";

/* Raise 22023: the patch itself is malformed at operation cx->index. */
static void
pg_attribute_noreturn() Malformed(int index, const char *detail)
{
	ereport(
		ERROR,
		(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		 errmsg("invalid patch operation %d", index), errdetail("%s", detail),
		 errhint("A patch is a JSON array of RFC 6902 operations, "
				 "e.g. [{\"op\": \"add\", \"path\": \"/a\", \"value\": 1}].")));
}

/* Raise 22000: operation cx cannot apply to the document, for reason. */
static void
pg_attribute_noreturn() CannotApply(PatchCtx *cx, const char *reason)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_EXCEPTION),
			 errmsg("cannot apply patch operation %d (\"%s\") at path \"%s\"",
					cx->index, cx->op, cx->path),
			 errdetail("%s", reason)));
}

/* Parse a JSON JsonPointer (RFC 6901); raise 22023 when it is malformed. */
static JsonPointer
ParsePointer(int index, const char *member, const char *s, int len)
{
	JsonPointer p;
	int i;
	int cap = 4;

	p.ntokens = 0;
	p.tokens = palloc(sizeof(char *) * cap);
	p.lens = palloc(sizeof(int) * cap);
	if (len == 0)
		return p;
	if (s[0] != '/')
		Malformed(
			index,
			psprintf("The \"%s\" pointer \"%.*s\" does not start with \"/\".",
					 member, len, s));
	i = 1;
	for (;;)
	{
		StringInfoData tok;

		initStringInfo(&tok);
		while (i < len && s[i] != '/')
		{
			if (s[i] == '~')
			{
				if (i + 1 < len && s[i + 1] == '0')
					appendStringInfoChar(&tok, '~');
				else if (i + 1 < len && s[i + 1] == '1')
					appendStringInfoChar(&tok, '/');
				else
					Malformed(
						index,
						psprintf("The \"%s\" pointer \"%.*s\" has a \"~\" "
								 "not followed by 0 or 1.",
								 member, len, s));
				i += 2;
			}
			else
				appendStringInfoChar(&tok, s[i++]);
		}
		if (p.ntokens == cap)
		{
			cap *= 2;
			p.tokens = repalloc(p.tokens, sizeof(char *) * cap);
			p.lens = repalloc(p.lens, sizeof(int) * cap);
		}
		p.tokens[p.ntokens] = tok.data;
		p.lens[p.ntokens] = tok.len;
		p.ntokens++;
		if (i >= len)
			break;
		i++; /* skip the '/' */
	}
	return p;
}

/* Expand a jbvBinary container one level in place; others are left alone. */
static void
ExpandNode(JsonbValue *v)
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
		{
			if (tok == WJB_ELEM)
				elems[i++] = x;
		}
		v->type = jbvArray;
		v->val.array.nElems = i;
		v->val.array.elems = elems;
		v->val.array.rawScalar = false;
	}
}

/* Return a copy of v that shares nothing mutable with it. */
static JsonbValue
DeepCopy(JsonbValue *v)
{
	JsonbValue r = *v;
	int i;

	if (v->type == jbvObject)
	{
		r.val.object.pairs =
			palloc(sizeof(JsonbPair) * Max(v->val.object.nPairs, 1));
		for (i = 0; i < v->val.object.nPairs; i++)
		{
			r.val.object.pairs[i] = v->val.object.pairs[i];
			r.val.object.pairs[i].value =
				DeepCopy(&v->val.object.pairs[i].value);
		}
	}
	else if (v->type == jbvArray)
	{
		r.val.array.elems =
			palloc(sizeof(JsonbValue) * Max(v->val.array.nElems, 1));
		for (i = 0; i < v->val.array.nElems; i++)
			r.val.array.elems[i] = DeepCopy(&v->val.array.elems[i]);
	}
	return r;
}

/* Push a tree node as the next value (tok WJB_VALUE or WJB_ELEM). */
static JsonbValue *
PushNode(JsonbParseState **ps, JsonbIteratorToken tok, JsonbValue *v)
{
	JsonbValue *res;
	int i;

	check_stack_depth();
	if (v->type == jbvObject)
	{
		pushJsonbValue(ps, WJB_BEGIN_OBJECT, NULL);
		for (i = 0; i < v->val.object.nPairs; i++)
		{
			pushJsonbValue(ps, WJB_KEY, &v->val.object.pairs[i].key);
			PushNode(ps, WJB_VALUE, &v->val.object.pairs[i].value);
		}
		res = pushJsonbValue(ps, WJB_END_OBJECT, NULL);
	}
	else if (v->type == jbvArray)
	{
		pushJsonbValue(ps, WJB_BEGIN_ARRAY, NULL);
		for (i = 0; i < v->val.array.nElems; i++)
			PushNode(ps, WJB_ELEM, &v->val.array.elems[i]);
		res = pushJsonbValue(ps, WJB_END_ARRAY, NULL);
	}
	else
		res = pushJsonbValue(ps, tok, v);
	return res;
}

/* Turn a tree node into jsonb. */
static Jsonb *
NodeToJsonb(JsonbValue *v)
{
	JsonbParseState *ps = NULL;

	if (v->type == jbvObject || v->type == jbvArray)
		return JsonbValueToJsonb(PushNode(&ps, WJB_VALUE, v));
	return JsonbValueToJsonb(v);
}

/* Return true when two tree nodes are equal as jsonb = says. */
static bool
NodesEqual(JsonbValue *a, JsonbValue *b)
{
	Jsonb *ja;
	Jsonb *jb;

	if (a->type != jbvObject && a->type != jbvArray && b->type != jbvObject &&
		b->type != jbvArray)
		return DocmodelFlatValuesEqual(a, b);
	ja = NodeToJsonb(a);
	jb = NodeToJsonb(b);
	return compareJsonbContainers(&ja->root, &jb->root) == 0;
}

/* Describe a node's JSON type for error details. */
static const char *
NodeTypeName(JsonbValue *v)
{
	switch (v->type)
	{
		case jbvObject:
			return "an object";
		case jbvArray:
			return "an array";
		case jbvBinary:
			return JsonContainerIsObject(v->val.binary.data) ? "an object"
															 : "an array";
		case jbvString:
			return "a string";
		case jbvNumeric:
			return "a number";
		case jbvBool:
			return "a boolean";
		case jbvNull:
			return "null";
		default:
			return "unknown";
	}
}

/*
 * Parse an array index token. Return -1 for "-" (past the end); raise 22000
 * for anything but "-", "0" or digits without a leading zero.
 */
static int
ArrayIndex(PatchCtx *cx, const char *tok, int len)
{
	long n = 0;
	int i;

	if (len == 1 && tok[0] == '-')
		return -1;
	if (len == 0 || (len > 1 && tok[0] == '0'))
		CannotApply(cx, psprintf("\"%s\" is not an array index.", tok));
	for (i = 0; i < len; i++)
	{
		if (tok[i] < '0' || tok[i] > '9')
			CannotApply(cx, psprintf("\"%s\" is not an array index.", tok));
		n = n * 10 + (tok[i] - '0');
		if (n > PG_INT32_MAX)
			CannotApply(cx, psprintf("Array index %s is out of range.", tok));
	}
	return (int) n;
}

/* Return the index of member tok in expanded object v, or -1. */
static int
FindMember(JsonbValue *v, const char *tok, int len)
{
	int i;

	for (i = 0; i < v->val.object.nPairs; i++)
	{
		JsonbValue *k = &v->val.object.pairs[i].key;

		if (k->val.string.len == len &&
			memcmp(k->val.string.val, tok, len) == 0)
			return i;
	}
	return -1;
}

/*
 * Return the node at the first n tokens of p, expanding containers on the
 * way. Raise 22000 when a member or element is missing.
 */
static JsonbValue *
Resolve(PatchCtx *cx, JsonbValue *root, JsonPointer *p, int n)
{
	JsonbValue *cur = root;
	int t;

	for (t = 0; t < n; t++)
	{
		const char *tok = p->tokens[t];
		int len = p->lens[t];

		ExpandNode(cur);
		if (cur->type == jbvObject)
		{
			int m = FindMember(cur, tok, len);

			if (m < 0)
				CannotApply(cx, psprintf("Member \"%s\" does not exist.", tok));
			cur = &cur->val.object.pairs[m].value;
		}
		else if (cur->type == jbvArray)
		{
			int i = ArrayIndex(cx, tok, len);

			if (i < 0)
				CannotApply(cx, PastEnd);
			if (i >= cur->val.array.nElems)
				CannotApply(
					cx, psprintf(
							"Array index %s is out of range (array length %d).",
							tok, cur->val.array.nElems));
			cur = &cur->val.array.elems[i];
		}
		else
			CannotApply(cx, psprintf("Cannot look up \"%s\" in %s.", tok,
									 NodeTypeName(cur)));
	}
	return cur;
}

/* Return the parent of p's target, expanded; raise 22000 unless a container. */
static JsonbValue *
ResolveParent(PatchCtx *cx, JsonbValue *root, JsonPointer *p)
{
	JsonbValue *parent = Resolve(cx, root, p, p->ntokens - 1);

	ExpandNode(parent);
	if (parent->type != jbvObject && parent->type != jbvArray)
		CannotApply(cx,
					psprintf("Cannot look up \"%s\" in %s.",
							 p->tokens[p->ntokens - 1], NodeTypeName(parent)));
	return parent;
}

/* RFC 6902 "add": put value at p (replacing a member, inserting an element). */
static void
OpAdd(PatchCtx *cx, JsonbValue *root, JsonPointer *p, JsonbValue *value)
{
	JsonbValue *parent;
	const char *tok;
	int len;

	if (p->ntokens == 0)
	{
		*root = *value;
		return;
	}
	parent = ResolveParent(cx, root, p);
	tok = p->tokens[p->ntokens - 1];
	len = p->lens[p->ntokens - 1];
	if (parent->type == jbvObject)
	{
		int m = FindMember(parent, tok, len);

		if (m >= 0)
			parent->val.object.pairs[m].value = *value;
		else
		{
			int n = parent->val.object.nPairs;
			JsonbPair *pair;

			parent->val.object.pairs =
				repalloc(parent->val.object.pairs, sizeof(JsonbPair) * (n + 1));
			pair = &parent->val.object.pairs[n];
			pair->key.type = jbvString;
			pair->key.val.string.val = (char *) tok;
			pair->key.val.string.len = len;
			pair->value = *value;
			pair->order = n;
			parent->val.object.nPairs = n + 1;
		}
	}
	else
	{
		int n = parent->val.array.nElems;
		int i = ArrayIndex(cx, tok, len);

		if (i < 0)
			i = n;
		if (i > n)
			CannotApply(
				cx,
				psprintf("Array index %s is out of range (array length %d).",
						 tok, n));
		parent->val.array.elems =
			repalloc(parent->val.array.elems, sizeof(JsonbValue) * (n + 1));
		memmove(&parent->val.array.elems[i + 1], &parent->val.array.elems[i],
				sizeof(JsonbValue) * (n - i));
		parent->val.array.elems[i] = *value;
		parent->val.array.nElems = n + 1;
	}
}

/* RFC 6902 "remove": take the value at p out and return it. */
static JsonbValue
OpRemove(PatchCtx *cx, JsonbValue *root, JsonPointer *p)
{
	JsonbValue *parent;
	JsonbValue removed;
	const char *tok;
	int len;

	if (p->ntokens == 0)
		CannotApply(cx, "The whole document cannot be removed.");
	parent = ResolveParent(cx, root, p);
	tok = p->tokens[p->ntokens - 1];
	len = p->lens[p->ntokens - 1];
	if (parent->type == jbvObject)
	{
		int m = FindMember(parent, tok, len);
		int n = parent->val.object.nPairs;

		if (m < 0)
			CannotApply(cx, psprintf("Member \"%s\" does not exist.", tok));
		removed = parent->val.object.pairs[m].value;
		memmove(&parent->val.object.pairs[m], &parent->val.object.pairs[m + 1],
				sizeof(JsonbPair) * (n - m - 1));
		parent->val.object.nPairs = n - 1;
	}
	else
	{
		int n = parent->val.array.nElems;
		int i = ArrayIndex(cx, tok, len);

		if (i < 0)
			CannotApply(cx, PastEnd);
		if (i >= n)
			CannotApply(
				cx,
				psprintf("Array index %s is out of range (array length %d).",
						 tok, n));
		removed = parent->val.array.elems[i];
		memmove(&parent->val.array.elems[i], &parent->val.array.elems[i + 1],
				sizeof(JsonbValue) * (n - i - 1));
		parent->val.array.nElems = n - 1;
	}
	return removed;
}

/* Return the text of member name of operation object c, or raise 22023. */
static char *
OpMember(JsonbContainer *c, int index, const char *name, bool required,
		 int *len)
{
	JsonbValue buf;
	JsonbValue *v = getKeyJsonValueFromContainer(c, name, strlen(name), &buf);

	if (v == NULL)
	{
		if (!required)
			return NULL;
		Malformed(index, psprintf("Member \"%s\" is missing.", name));
	}
	if (v->type != jbvString)
		Malformed(index, psprintf("Member \"%s\" is %s, not a string.", name,
								  NodeTypeName(v)));
	*len = v->val.string.len;
	return pnstrdup(v->val.string.val, v->val.string.len);
}

/* Return operation object c's "value" member (a tree node), or raise 22023. */
static JsonbValue *
OpValue(JsonbContainer *c, int index)
{
	JsonbValue *v =
		getKeyJsonValueFromContainer(c, "value", 5, palloc(sizeof(JsonbValue)));

	if (v == NULL)
		Malformed(index, "Member \"value\" is missing.");
	return v;
}

/* Return true when pointer a is a proper prefix of pointer b. */
static bool
PointerIsProperPrefix(JsonPointer *a, JsonPointer *b)
{
	return a->ntokens < b->ntokens &&
		   DocmodelPointerIsPrefix(a->tokens, a->lens, a->ntokens, b->tokens,
								   b->lens, b->ntokens);
}

/* Apply one operation object (checked here) to the tree at root. */
static void
ApplyOp(JsonbValue *root, JsonbValue *opval, int index)
{
	JsonbContainer *c;
	PatchCtx cx;
	char *op;
	char *path;
	char *from = NULL;
	int oplen;
	int pathlen;
	int fromlen = 0;
	JsonPointer p;
	JsonPointer fp;

	if (opval->type != jbvBinary ||
		!JsonContainerIsObject(opval->val.binary.data))
		Malformed(index, psprintf("The operation is %s, not an object.",
								  NodeTypeName(opval)));
	c = opval->val.binary.data;
	op = OpMember(c, index, "op", true, &oplen);
	if (strcmp(op, "add") != 0 && strcmp(op, "remove") != 0 &&
		strcmp(op, "replace") != 0 && strcmp(op, "move") != 0 &&
		strcmp(op, "copy") != 0 && strcmp(op, "test") != 0)
		Malformed(index, psprintf("Unknown op \"%s\".", op));
	path = OpMember(c, index, "path", true, &pathlen);
	p = ParsePointer(index, "path", path, pathlen);
	if (strcmp(op, "move") == 0 || strcmp(op, "copy") == 0)
	{
		from = OpMember(c, index, "from", true, &fromlen);
		fp = ParsePointer(index, "from", from, fromlen);
	}
	cx.index = index;
	cx.op = op;
	cx.path = path;

	if (strcmp(op, "add") == 0)
		OpAdd(&cx, root, &p, OpValue(c, index));
	else if (strcmp(op, "remove") == 0)
		(void) OpRemove(&cx, root, &p);
	else if (strcmp(op, "replace") == 0)
	{
		JsonbValue *value = OpValue(c, index);

		*Resolve(&cx, root, &p, p.ntokens) = *value;
	}
	else if (strcmp(op, "test") == 0)
	{
		JsonbValue *value = OpValue(c, index);
		JsonbValue *cur = Resolve(&cx, root, &p, p.ntokens);

		if (!NodesEqual(cur, value))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("patch test failed: operation %d (\"test\") at "
							"path \"%s\"",
							index, path),
					 errdetail(
						 "The value there is %s, not %s.",
						 JsonbToCString(NULL, &NodeToJsonb(cur)->root, 0),
						 JsonbToCString(NULL, &NodeToJsonb(value)->root, 0))));
	}
	else
	{
		JsonbValue v;

		/* move and copy: find the source while reporting "from" */
		cx.path = from;
		if (strcmp(op, "move") == 0)
		{
			if (PointerIsProperPrefix(&fp, &p))
				CannotApply(
					&cx,
					psprintf("A value cannot be moved into itself (to \"%s\").",
							 path));
			if (fromlen == pathlen && memcmp(from, path, pathlen) == 0)
			{
				(void) Resolve(&cx, root, &fp, fp.ntokens);
				return;
			}
			v = OpRemove(&cx, root, &fp);
		}
		else
			v = DeepCopy(Resolve(&cx, root, &fp, fp.ntokens));
		cx.path = path;
		OpAdd(&cx, root, &p, &v);
	}
}

/* Apply patch to the document in doc (both jsonb) and return the result. */
Jsonb *
DocmodelPatch(Jsonb *doc, Jsonb *patchdoc)
{
	JsonbValue root;
	int n;
	int i;

	if (!JB_ROOT_IS_ARRAY(patchdoc) || JB_ROOT_IS_SCALAR(patchdoc))
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("a patch must be a JSON array of operations"),
						errhint("E.g. [{\"op\": \"replace\", \"path\": \"/a\", "
								"\"value\": 1}].")));
	if (JB_ROOT_IS_SCALAR(doc))
		JsonbExtractScalar(&doc->root, &root);
	else
		JsonbToJsonbValue(doc, &root);
	n = JsonContainerSize(&patchdoc->root);
	for (i = 0; i < n; i++)
		ApplyOp(&root, getIthJsonbValueFromContainer(&patchdoc->root, i), i);
	return NodeToJsonb(&root);
}

/* SQL: patch(doc jsonb, patch jsonb) -> jsonb, RFC 6902 applied to doc. */
Datum
patch(PG_FUNCTION_ARGS)
{
	PG_RETURN_JSONB_P(
		DocmodelPatch(PG_GETARG_JSONB_P(0), PG_GETARG_JSONB_P(1)));
}

/* ------------------------------------------------------------------------
 * History
 *
 * A collection with revisions has a history table <name>_revisions(id,
 * ver, op, changed_at, changed_by, doc) with PRIMARY KEY (id, ver), found
 * by the OID in the collection's configuration (never by name). Revision v
 * of a key holds the body that had _ver v, and op says what ended it:
 * 'update', 'delete', 'expire' (written over after its expiry) or
 * 'truncate'. After revision N is written, revisions <= N - keep of that
 * key are deleted.
 *
 * The collection trigger calls in here: DocmodelRevisionTrigger() for the
 * AFTER INSERT OR UPDATE OR DELETE row event and the BEFORE TRUNCATE statement event,
 * and DocmodelRevisionFirstVer() for the _ver of a new document. History is
 * written straight into the heap and its indexes (no SPI, no planning); the
 * history table's own triggers and rules do not fire, and a writer of the
 * collection needs no privilege on it. Columns a user added to the history
 * table get their defaults (or NULL), and its NOT NULL and CHECK constraints
 * hold, as for an INSERT (HistoryOpen chooses the executor path then).
 * Writers of one key are serialized by the row lock on the collection row
 * (an insert, by WaitForKeyWriters), so history of one key is written by
 * one transaction at a time.
 * ------------------------------------------------------------------------
 */

/* Column numbers of a history table. */
#define REV_ATT_ID 1
#define REV_ATT_VER 2
#define REV_ATT_OP 3
#define REV_ATT_AT 4
#define REV_ATT_BY 5
#define REV_ATT_DOC 6

/* Column numbers of a collection table. */
#define COLL_ATT_ID 1
#define COLL_ATT_DOC 2
#define COLL_ATT_EXPIRES 4

/* An open history table, ready to take revisions. */
typedef struct HistoryWriter
{
	Relation rel;
	Relation pkey;            /* its (id, ver) primary key index */
	bool fast;                /* a heap whose one index is pkey, without
							   * added columns or CHECKs: no executor */
	ExprState **defaults;     /* when !fast: per column, its default or NULL */
	bool constrained;         /* when !fast: CHECK or generated columns */
	EState *estate;           /* when !fast */
	ResultRelInfo *rri;       /* when !fast */
	TupleTableSlot *slot;     /* for inserts, when !fast */
	TupleTableSlot *scanslot; /* for the pruning scan, made on first use */
	MemoryContext cxt;        /* where HistoryOpen ran: the slots live here */
	int32 keep;
	Datum who;
	Datum at;
} HistoryWriter;

/* IndexInfo of every (id, ver) primary key, built once (fast path). */
static IndexInfo *PkeyInfo = NULL;

/*
 * Open the history table relid and its primary key; raise 42P01 when it
 * is gone, 55000 or 42804 when a column was dropped or changed, and 22023
 * when it lost its primary key.
 */
static Relation
HistoryOpenRel(const DocmodelCollection *cfg, LOCKMODE mode, Relation *pkey)
{
	Relation rel = try_table_open(cfg->revisions_relid, mode);
	Oid pk;

	if (rel == NULL)
		ereport(
			ERROR,
			(errcode(ERRCODE_UNDEFINED_TABLE),
			 errmsg("the revisions table of collection \"%s\" does not exist",
					get_rel_name(cfg->relid) ? get_rel_name(cfg->relid) : "?"),
			 errdetail("The collection's configuration names a table that "
					   "was dropped."),
			 errhint("Call docmodel.set_revisions() to create a new one, "
					 "or with 0 to turn history off.")));
	/* columns: 55000 or 42804 naming the column (cached per relcache entry) */
	DocmodelCheckLayout(rel, DOCMODEL_LAYOUT_HISTORY);
	pk = RelationGetPrimaryKeyIndex(rel);
	if (rel->rd_rel->relkind != RELKIND_RELATION || !OidIsValid(pk))
		ereport(
			ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("table \"%s\" does not have the layout of a docmodel "
					"revisions table",
					RelationGetRelationName(rel)),
			 errdetail("A revisions table is (id text, ver integer, op text, "
					   "changed_at timestamptz, changed_by text, doc jsonb, "
					   "PRIMARY KEY (id, ver)).")));
	*pkey = index_open(pk, mode);
	if ((*pkey)->rd_index->indnkeyatts != 2 ||
		(*pkey)->rd_index->indkey.values[0] != REV_ATT_ID ||
		(*pkey)->rd_index->indkey.values[1] != REV_ATT_VER)
		ereport(
			ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg(
				 "the primary key of revisions table \"%s\" is not (id, ver)",
				 RelationGetRelationName(rel))));
	return rel;
}

/*
 * Open the history table of cfg for writing revisions. A plain heap whose
 * only index is the primary key takes the fast path: heap_insert and
 * index_insert directly, no executor state. Any other index (a user may
 * add some) goes through ExecInsertIndexTuples.
 */
static void
HistoryOpen(HistoryWriter *w, const DocmodelCollection *cfg)
{
	List *indexes;
	TupleDesc desc;
	TupleConstr *constr;
	bool added = false;
	int i;

	w->rel = HistoryOpenRel(cfg, RowExclusiveLock, &w->pkey);
	w->keep = cfg->revisions;
	desc = RelationGetDescr(w->rel);
	/* Foreign keys are checked by triggers, which history writes skip. */
	if (w->rel->rd_rel->relhastriggers && RelationGetFKeyList(w->rel) != NIL)
	{
		ForeignKeyCacheInfo *fk = linitial(RelationGetFKeyList(w->rel));

		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("revisions table \"%s\" has a foreign key",
						RelationGetRelationName(w->rel)),
				 errdetail("Constraint \"%s\" would be checked by a trigger; "
						   "docmodel writes history without firing triggers.",
						   get_constraint_name(fk->conoid)),
				 errhint("Drop the foreign key, or check the values with a "
						 "CHECK constraint.")));
	}
	constr = desc->constr;
	for (i = REV_ATT_DOC; i < desc->natts; i++)
		if (!TupleDescAttr(desc, i)->attisdropped)
			added = true;
	w->constrained = constr != NULL &&
					 (constr->num_check > 0 || constr->has_generated_stored);
	indexes = RelationGetIndexList(w->rel);
	w->fast = list_length(indexes) == 1 && !added && !w->constrained &&
			  w->rel->rd_rel->relam == HEAP_TABLE_AM_OID &&
			  w->pkey->rd_rel->relam == BTREE_AM_OID;
	list_free(indexes);
	w->scanslot = NULL;
	w->cxt = CurrentMemoryContext;
	if (w->fast)
	{
		if (PkeyInfo == NULL)
		{
			MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

			PkeyInfo = makeIndexInfo(2, 2, BTREE_AM_OID, NIL, NIL, true, false,
									 true, false);
			PkeyInfo->ii_IndexAttrNumbers[0] = REV_ATT_ID;
			PkeyInfo->ii_IndexAttrNumbers[1] = REV_ATT_VER;
			MemoryContextSwitchTo(old);
		}
		w->estate = NULL;
		w->rri = NULL;
		w->slot = NULL;
	}
	else
	{
		RangeTblEntry *rte = makeNode(RangeTblEntry);

		/* A range table of the one relation, for ExecConstraints' errors. */
		rte->rtekind = RTE_RELATION;
		rte->relid = RelationGetRelid(w->rel);
		rte->relkind = w->rel->rd_rel->relkind;
		rte->rellockmode = RowExclusiveLock;
		w->estate = CreateExecutorState();
		ExecInitRangeTable(w->estate, list_make1(rte));
		w->rri = makeNode(ResultRelInfo);
		InitResultRelInfo(w->rri, w->rel, 1, NULL, 0);
		ExecOpenIndices(w->rri, false);
		w->slot = table_slot_create(w->rel, NULL);
		/* Added columns: their defaults, as an INSERT omitting them gets. */
		w->defaults = palloc0(sizeof(ExprState *) * desc->natts);
		for (i = REV_ATT_DOC; i < desc->natts; i++)
		{
			Form_pg_attribute att = TupleDescAttr(desc, i);
			Node *expr;

			if (att->attisdropped || att->attgenerated)
				continue;
			expr = build_column_default(w->rel, i + 1);
			if (expr != NULL)
				w->defaults[i] = ExecPrepareExpr((Expr *) expr, w->estate);
		}
	}
	w->who = CStringGetTextDatum(DocmodelWho());
	w->at = TimestampTzGetDatum(GetCurrentTransactionStartTimestamp());
}

/* Close what HistoryOpen opened (locks are kept to the end of transaction). */
static void
HistoryClose(HistoryWriter *w)
{
	if (w->scanslot != NULL)
		ExecDropSingleTupleTableSlot(w->scanslot);
	if (!w->fast)
	{
		ExecDropSingleTupleTableSlot(w->slot);
		ExecCloseIndices(w->rri);
		FreeExecutorState(w->estate);
	}
	index_close(w->pkey, NoLock);
	table_close(w->rel, NoLock);
}

/* Initialize the scan keys id = key [AND ver <= upto] on the primary key. */
static int
HistoryKeys(Relation pkey, ScanKeyData *sk, Datum id, int32 upto)
{
	ScanKeyEntryInitialize(&sk[0], 0, 1, BTEqualStrategyNumber, InvalidOid,
						   pkey->rd_indcollation[0], F_TEXTEQ, id);
	if (upto == PG_INT32_MAX)
		return 1;
	ScanKeyEntryInitialize(&sk[1], 0, 2, BTLessEqualStrategyNumber, InvalidOid,
						   InvalidOid, F_INT4LE, Int32GetDatum(upto));
	return 2;
}

/*
 * Delete the revisions of key id numbered upto or less. With newtup (fast
 * path only), turn the first of them into newtup instead (heap_update: the
 * row's space is reused, no new page) and return true; return false when
 * there was none to recycle.
 */
static bool
HistoryPrune(HistoryWriter *w, Datum id, int32 upto, HeapTuple newtup)
{
	ScanKeyData sk[2];
	int nkeys = HistoryKeys(w->pkey, sk, id, upto);
	IndexScanDesc scan;
	Snapshot snap;
	bool recycled = false;

	if (w->scanslot == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(w->cxt);

		w->scanslot = table_slot_create(w->rel, NULL);
		MemoryContextSwitchTo(old);
	}
	/*
	 * A fresh MVCC snapshot: what others committed by now (whatever the
	 * statement's snapshot is) and what this transaction wrote in earlier
	 * commands; not rows of the current command, which heap_update and
	 * heap_delete could not take.
	 */
	snap = RegisterSnapshot(GetLatestSnapshot());
	scan = index_beginscan(w->rel, w->pkey, snap, nkeys, 0);
	index_rescan(scan, sk, nkeys, NULL, 0);
	while (index_getnext_slot(scan, ForwardScanDirection, w->scanslot))
	{
		TM_FailureData tmfd;
		TM_Result res;

		if (newtup != NULL && !recycled)
		{
			LockTupleMode mode;

			res = heap_update(w->rel, &w->scanslot->tts_tid, newtup,
							  GetCurrentCommandId(true), InvalidSnapshot, true,
							  &tmfd, &mode);
			recycled = (res == TM_Ok);
		}
		else
			res = table_tuple_delete(w->rel, &w->scanslot->tts_tid,
									 GetCurrentCommandId(true), InvalidSnapshot,
									 InvalidSnapshot, true, &tmfd, false);
		/* Changed meanwhile by someone else: it is gone, as wanted. */
		if (res != TM_Ok && res != TM_Updated && res != TM_Deleted &&
			res != TM_SelfModified)
			elog(ERROR, "could not delete an old revision: %d", (int) res);
	}
	index_endscan(scan);
	UnregisterSnapshot(snap);
	return recycled;
}

/*
 * Write revision ver of key id (op, body doc), then prune to keep. On the
 * fast path the revision that falls out of the window is overwritten in
 * place by the new one.
 */
static void
HistoryWrite(HistoryWriter *w, Datum id, int32 ver, const char *op, Datum doc)
{
	TupleDesc desc = RelationGetDescr(w->rel);
	Datum *values = palloc(sizeof(Datum) * desc->natts);
	bool *nulls = palloc(sizeof(bool) * desc->natts);
	int i;

	for (i = 0; i < desc->natts; i++)
		nulls[i] = true;
	values[REV_ATT_ID - 1] = id;
	values[REV_ATT_VER - 1] = Int32GetDatum(ver);
	values[REV_ATT_OP - 1] = CStringGetTextDatum(op);
	values[REV_ATT_AT - 1] = w->at;
	values[REV_ATT_BY - 1] = w->who;
	values[REV_ATT_DOC - 1] = doc;
	for (i = 0; i < REV_ATT_DOC; i++)
		nulls[i] = false;
	if (w->fast)
	{
		HeapTuple tup = heap_form_tuple(desc, values, nulls);
		bool recycled = false;

		if (ver > w->keep)
			recycled = HistoryPrune(w, id, ver - w->keep, tup);
		if (!recycled)
			simple_heap_insert(w->rel, tup);
		if (!HeapTupleIsHeapOnly(tup))
			index_insert(w->pkey, values, nulls, &tup->t_self, w->rel,
						 UNIQUE_CHECK_YES, false, PkeyInfo);
		heap_freetuple(tup);
	}
	else
	{
		TupleTableSlot *slot = w->slot;
		List *recheck;
		ExprContext *econtext = GetPerTupleExprContext(w->estate);

		for (i = REV_ATT_DOC; i < desc->natts; i++)
			if (w->defaults[i] != NULL)
				values[i] = ExecEvalExprSwitchContext(w->defaults[i], econtext,
													  &nulls[i]);
		ExecClearTuple(slot);
		memcpy(slot->tts_values, values, sizeof(Datum) * desc->natts);
		memcpy(slot->tts_isnull, nulls, sizeof(bool) * desc->natts);
		ExecStoreVirtualTuple(slot);
		if (w->constrained && desc->constr->has_generated_stored)
			ExecComputeStoredGenerated(w->rri, w->estate, slot, CMD_INSERT);
		/* NOT NULL and CHECK, with their own errors (23502, 23514). */
		if (desc->constr != NULL)
			ExecConstraints(w->rri, slot, w->estate);
		table_tuple_insert(w->rel, slot, GetCurrentCommandId(true), 0, NULL);
		recheck = ExecInsertIndexTuples(w->rri, slot, w->estate, false, false,
										NULL, NIL);
		/* A deferrable unique index is checked now: no trigger rechecks it. */
		if (recheck != NIL)
			ereport(ERROR,
					(errcode(ERRCODE_UNIQUE_VIOLATION),
					 errmsg("duplicate key value violates unique constraint "
							"\"%s\"",
							get_rel_name(linitial_oid(recheck))),
					 errdetail("Revision %d of document \"%s\" conflicts with "
							   "a row of \"%s\".",
							   ver, TextDatumGetCString(id),
							   RelationGetRelationName(w->rel))));
		ResetPerTupleExprContext(w->estate);
		if (ver > w->keep)
			(void) HistoryPrune(w, id, ver - w->keep, NULL);
	}
	pfree(values);
	pfree(nulls);
}

/*
 * Return the _ver of the stored document doc of key id (in cfg's meta
 * style), or -1 when it has none; raise 22003 naming the key when it is
 * beyond the integers.
 */
static int32
DocVer(const DocmodelCollection *cfg, Jsonb *doc, Datum id)
{
	int32 ver;
	bool error = false;
	JsonbContainer *c = &doc->root;
	JsonbValue buf;
	JsonbValue *v;

	if (!JB_ROOT_IS_OBJECT(doc))
		return -1;
	if (cfg->meta_style == DOC_META_META)
	{
		v = getKeyJsonValueFromContainer(c, "meta", 4, &buf);
		if (v == NULL || v->type != jbvBinary ||
			!JsonContainerIsObject(v->val.binary.data))
			return -1;
		c = v->val.binary.data;
	}
	if (cfg->meta_style == DOC_META_UNDERSCORE)
		v = getKeyJsonValueFromContainer(c, "_ver", 4, &buf);
	else
		v = getKeyJsonValueFromContainer(c, "ver", 3, &buf);
	if (v == NULL || v->type != jbvNumeric)
		return -1;
	ver = numeric_int4_opt_error(v->val.numeric, &error);
	if (error)
	{
		text *key = DatumGetTextPP(id);

		/* a version the history's integer column cannot number */
		DocmodelVersionOverflow(
			VARDATA_ANY(key), VARSIZE_ANY_EXHDR(key),
			DatumGetCString(DirectFunctionCall1(
				numeric_out, NumericGetDatum(v->val.numeric))));
	}
	return ver;
}

/* Is the row's expires_at at or before the transaction's start? */
static bool
RowExpired(HeapTuple tup, TupleDesc desc)
{
	bool isnull;
	Datum d;

	if (desc->natts < COLL_ATT_EXPIRES)
		return false;
	d = heap_getattr(tup, COLL_ATT_EXPIRES, desc, &isnull);
	return !isnull &&
		   DatumGetTimestampTz(d) <= GetCurrentTransactionStartTimestamp();
}

/* Write every document of the collection as a 'truncate' revision. */
static void
HistoryOfTruncate(const DocmodelCollection *cfg, Relation coll)
{
	HistoryWriter w;
	Snapshot snap = RegisterSnapshot(GetLatestSnapshot());
	TableScanDesc scan = table_beginscan(coll, snap, 0, NULL);
	TupleTableSlot *slot = table_slot_create(coll, NULL);
	MemoryContext rowcxt =
		AllocSetContextCreate(CurrentMemoryContext, "docmodel truncate history",
							  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old;

	HistoryOpen(&w, cfg);
	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		bool isnull;
		bool docnull;
		Datum id = slot_getattr(slot, COLL_ATT_ID, &isnull);
		Datum doc = slot_getattr(slot, COLL_ATT_DOC, &docnull);
		int32 ver;

		if (isnull || docnull)
			continue;
		old = MemoryContextSwitchTo(rowcxt);
		ver = DocVer(cfg, DatumGetJsonbP(doc), id);
		if (ver > 0)
			HistoryWrite(&w, id, ver, "truncate", doc);
		MemoryContextSwitchTo(old);
		MemoryContextReset(rowcxt);
	}
	ExecDropSingleTupleTableSlot(slot);
	table_endscan(scan);
	UnregisterSnapshot(snap);
	HistoryClose(&w);
	MemoryContextDelete(rowcxt);
}

/*
 * The history half of the collection trigger, for the AFTER INSERT OR
 * UPDATE OR DELETE row event and the BEFORE TRUNCATE statement event (argument: the
 * collection's configuration id). Being an AFTER trigger, it sees only
 * writes that really happened: an update a later BEFORE trigger cancelled
 * never reaches it, and a later error rolls its writes back.
 */
Datum
DocmodelRevisionTrigger(FunctionCallInfo fcinfo)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	DocmodelCollection cfg;
	TupleDesc desc = RelationGetDescr(td->tg_relation);
	HeapTuple oldtup = td->tg_trigtuple;
	HistoryWriter w;
	Datum id;
	Datum olddoc;
	bool isnull;
	const char *op;
	int32 ver;

	if (td->tg_trigger->tgnargs != 1)
		elog(ERROR, "collection_trigger: needs the collection id argument");
	cfg = *DocmodelCollectionById(pg_strtoint32(td->tg_trigger->tgargs[0]));
	if (cfg.revisions <= 0 || !OidIsValid(cfg.revisions_relid))
		return PointerGetDatum(NULL);

	if (TRIGGER_FIRED_BY_TRUNCATE(td->tg_event))
	{
		if (TRIGGER_FIRED_BEFORE(td->tg_event))
			HistoryOfTruncate(&cfg, td->tg_relation);
		return PointerGetDatum(NULL);
	}
	if (!TRIGGER_FIRED_AFTER(td->tg_event) ||
		!TRIGGER_FIRED_FOR_ROW(td->tg_event))
		elog(ERROR, "collection_trigger: history needs AFTER INSERT OR UPDATE "
					"OR DELETE FOR EACH ROW");

	id = heap_getattr(oldtup, COLL_ATT_ID, desc, &isnull);
	if (isnull)
		return PointerGetDatum(NULL);
	olddoc = heap_getattr(oldtup, COLL_ATT_DOC, desc, &isnull);
	if (isnull)
		return PointerGetDatum(NULL);
	ver = DocVer(&cfg, DatumGetJsonbP(olddoc), id);
	if (ver <= 0)
		return PointerGetDatum(NULL); /* never stamped: no number to file */
	if (TRIGGER_FIRED_BY_UPDATE(td->tg_event))
	{
		Datum newdoc =
			heap_getattr(td->tg_newtuple, COLL_ATT_DOC, desc, &isnull);

		/*
		 * The BEFORE event keeps _ver on a no-op update (see document.c),
		 * so a revision is due exactly when _ver moved on.
		 */
		if (RowExpired(oldtup, desc))
			op = "expire";
		else if (isnull || DocVer(&cfg, DatumGetJsonbP(newdoc), id) == ver)
			return PointerGetDatum(NULL); /* a no-op update */
		else
			op = "update";
	}
	else if (TRIGGER_FIRED_BY_DELETE(td->tg_event))
		op = "delete";
	else
	{
		/*
		 * A new document took its _ver in the BEFORE event, before its
		 * unique check could wait for a delete of the key: when two inserts
		 * of a deleted key choose at once, the first commits, a delete of it
		 * commits while the second waits, and the second would store the
		 * version that delete's tombstone holds. Every such tombstone is
		 * committed by now (the unique check waited for its delete), so one
		 * look at the history finds it; the insert is refused (retryable)
		 * instead of storing a document whose next update could never file
		 * its revision.
		 */
		if (DocmodelRevisionFirstVer(&cfg, NULL, id, 0) > ver)
		{
			text *key = DatumGetTextPP(id);

			ereport(ERROR,
					(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
					 errmsg("document \"%.*s\" was deleted while it was "
							"inserted again",
							(int) VARSIZE_ANY_EXHDR(key), VARDATA_ANY(key)),
					 errdetail("Version %d, chosen for the new document, is "
							   "taken by a revision of the key.",
							   ver),
					 errhint("Retry the insert.")));
		}
		return PointerGetDatum(NULL);
	}
	HistoryOpen(&w, &cfg);
	HistoryWrite(&w, id, ver, op, olddoc);
	HistoryClose(&w);
	return PointerGetDatum(NULL);
}

/*
 * Wait until no other transaction is inserting or deleting key id in the
 * collection coll, and lock a live row of the key (FOR KEY SHARE) so that
 * no delete of it can commit before this insert's unique check. Then every
 * tombstone of the key is committed or never will be, and the history read
 * that follows sees it. The waiting is what _bt_check_unique() does later
 * anyway; doing it first keeps a delete that commits while an insert waits
 * from handing the insert a version its tombstone already has.
 */
static void
WaitForKeyWriters(Relation coll, Datum id)
{
	Oid pkoid = RelationGetPrimaryKeyIndex(coll);
	Relation pkey;
	TupleTableSlot *slot;
	SnapshotData dirty;
	ScanKeyData sk;
	bool again;

	if (!OidIsValid(pkoid))
		return; /* no key to wait on: nothing keeps keys unique */
	pkey = index_open(pkoid, AccessShareLock);
	slot = table_slot_create(coll, NULL);
	InitDirtySnapshot(dirty);
	ScanKeyEntryInitialize(&sk, 0, 1, BTEqualStrategyNumber, InvalidOid,
						   pkey->rd_indcollation[0], F_TEXTEQ, id);
	do
	{
		IndexScanDesc scan = index_beginscan(coll, pkey, &dirty, 1, 0);
		TransactionId xwait = InvalidTransactionId;
		bool live;
		ItemPointerData tid;

		again = false;
		index_rescan(scan, &sk, 1, NULL, 0);
		live = index_getnext_slot(scan, ForwardScanDirection, slot);
		if (live)
		{
			xwait = TransactionIdIsValid(dirty.xmin) ? dirty.xmin : dirty.xmax;
			tid = slot->tts_tid;
		}
		index_endscan(scan);
		if (TransactionIdIsValid(xwait))
		{
			XactLockTableWait(xwait, coll, &tid, XLTW_InsertIndex);
			again = true;
		}
		else if (live)
		{
			TM_FailureData tmfd;
			TM_Result res;

			res = table_tuple_lock(coll, &tid, GetActiveSnapshot(), slot,
								   GetCurrentCommandId(false),
								   LockTupleKeyShare, LockWaitBlock, 0, &tmfd);
			/* changed meanwhile: look again; ours (TM_Invisible, ...): fine */
			again = (res == TM_Updated || res == TM_Deleted);
		}
	} while (again);
	ExecDropSingleTupleTableSlot(slot);
	index_close(pkey, NoLock);
}

/*
 * Return the _ver a new document with key id starts at: one above the
 * newest revision of the key (so numbering never restarts after a delete),
 * and at least floor. Without a history table, floor. With coll, first
 * wait for the key's other writers (WaitForKeyWriters). Raise 22003 when
 * the newest revision is the last version there is.
 */
int32
DocmodelRevisionFirstVer(const DocmodelCollection *cfg, Relation coll, Datum id,
						 int32 floor)
{
	Relation rel;
	Relation pkey;
	ScanKeyData sk[1];
	IndexScanDesc scan;
	TupleTableSlot *slot;
	int32 ver = floor;

	if (!OidIsValid(cfg->revisions_relid))
		return floor;
	rel = try_table_open(cfg->revisions_relid, AccessShareLock);
	if (rel == NULL)
		return floor; /* dropped: nothing to continue after */
	table_close(rel, NoLock);
	if (coll != NULL)
		WaitForKeyWriters(coll, id);
	rel = HistoryOpenRel(cfg, AccessShareLock, &pkey);
	slot = table_slot_create(rel, NULL);
	(void) HistoryKeys(pkey, sk, id, PG_INT32_MAX);
	scan = index_beginscan(rel, pkey, SnapshotSelf, 1, 0);
	index_rescan(scan, sk, 1, NULL, 0);
	if (index_getnext_slot(scan, BackwardScanDirection, slot))
	{
		bool isnull;
		Datum d = slot_getattr(slot, REV_ATT_VER, &isnull);

		if (!isnull && DatumGetInt32(d) == PG_INT32_MAX)
		{
			text *key = DatumGetTextPP(id);

			DocmodelVersionOverflow(VARDATA_ANY(key), VARSIZE_ANY_EXHDR(key),
									psprintf("%d", PG_INT32_MAX));
		}
		if (!isnull && DatumGetInt32(d) >= floor)
			ver = DatumGetInt32(d) + 1;
	}
	index_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	index_close(pkey, NoLock);
	table_close(rel, NoLock);
	return ver;
}
