/*-------------------------------------------------------------------------
 *
 * json/patch.c
 *	  RFC 6902 JSON Patch (README, "Revisions"): the SQL functions diff and
 *	  patch, and the six operations on the shared tree (json/tree.h) that
 *	  patch() and the migration steps both run (see json/patch.h).
 *
 *	  Shared state: none; both SQL functions are pure.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "compat.h"
#include "json/patch.h"
#include "json/pointer.h"
#include "json/tree.h"

PG_FUNCTION_INFO_V1(json_diff);
PG_FUNCTION_INFO_V1(json_patch);
PG_FUNCTION_INFO_V1(json_diff_keys);

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
	JsonbValue ops;      /* the result array being built */
	int room;            /* its elements' allocated length */
	StringInfoData path; /* JSON Pointer of the current location */
	bool with_was;       /* remove and replace also say the value before */
	List *keys;          /* DocmodelJsonDiffKeys: the keys, not the ops */
} DiffState;

static void DiffValues(DiffState *st, JsonbValue *a, JsonbValue *b);

/* Emit one operation {op, path[, value]} at the current path. */
static void
EmitOp(DiffState *st, const char *op, JsonbValue *value, JsonbValue *was)
{
	JsonbValue o = {.type = jbvObject};

	if (st->keys != NIL)
	{
		int i;

		/* "=" and the pointer; "<" and each of its ancestors */
		st->keys = lappend(st->keys, psprintf("=%s", st->path.data));
		for (i = 0; i < st->path.len; i++)
			if (st->path.data[i] == '/')
				st->keys =
					lappend(st->keys, psprintf("<%.*s", i, st->path.data));
		return;
	}
	DocmodelJsonTreePut(&o, "op", DocmodelJsonTreeCString(op));
	DocmodelJsonTreePut(
		&o, "path",
		DocmodelJsonTreeString(pstrdup(st->path.data), st->path.len));
	if (value != NULL)
		DocmodelJsonTreePut(&o, "value", *value);
	if (was != NULL && st->with_was)
		DocmodelJsonTreePut(&o, "was", *was);
	if (st->ops.val.array.nElems == st->room)
	{
		st->room = Max(16, 2 * st->room);
		st->ops.val.array.elems =
			st->ops.val.array.elems
				? repalloc(st->ops.val.array.elems, sizeof(o) * st->room)
				: palloc(sizeof(o) * st->room);
	}
	st->ops.val.array.elems[st->ops.val.array.nElems++] = o;
}

/*
 * Diff a and b (NULL: absent) at the current path plus one token: member
 * key (len bytes), or array index len when key is NULL.
 */
static void
DiffAt(DiffState *st, const char *key, int len, JsonbValue *a, JsonbValue *b)
{
	int base = st->path.len;

	if (key != NULL)
		DocmodelJsonPointerAppendToken(&st->path, key, len);
	else
		appendStringInfo(&st->path, "/%d", len);
	if (a == NULL)
		EmitOp(st, "add", b, NULL);
	else if (b == NULL)
		EmitOp(st, "remove", NULL, a);
	else
		DiffValues(st, a, b);
	st->path.len = base;
	st->path.data[base] = '\0';
}

/* Diff two expanded objects member by member (a's, then b's own). */
static void
DiffObjects(DiffState *st, JsonbValue *a, JsonbValue *b)
{
	JsonbPair *pa = a->val.object.pairs;
	JsonbPair *pb = b->val.object.pairs;
	int i;
	int j;

	for (i = 0; i < a->val.object.nPairs; i++)
	{
		j = DocmodelJsonTreeFindMember(b, pa[i].key.val.string.val,
									   pa[i].key.val.string.len);
		DiffAt(st, pa[i].key.val.string.val, pa[i].key.val.string.len,
			   &pa[i].value, j >= 0 ? &pb[j].value : NULL);
	}
	for (j = 0; j < b->val.object.nPairs; j++)
		if (DocmodelJsonTreeFindMember(a, pb[j].key.val.string.val,
									   pb[j].key.val.string.len) < 0)
			DiffAt(st, pb[j].key.val.string.val, pb[j].key.val.string.len, NULL,
				   &pb[j].value);
}

/* Diff two expanded arrays position by position; see the section comment. */
static void
DiffArrays(DiffState *st, JsonbValue *a, JsonbValue *b)
{
	int na = a->val.array.nElems;
	int nb = b->val.array.nElems;
	int i;

	for (i = 0; i < Min(na, nb); i++)
		DiffAt(st, NULL, i, &a->val.array.elems[i], &b->val.array.elems[i]);
	for (i = na; i < nb; i++)
		DiffAt(st, NULL, i, NULL, &b->val.array.elems[i]);
	for (i = na - 1; i >= nb; i--)
		DiffAt(st, NULL, i, &a->val.array.elems[i], NULL);
}

/* Diff two values (scalars or containers) at the current path. */
static void
DiffValues(DiffState *st, JsonbValue *a, JsonbValue *b)
{
	check_stack_depth();
	CHECK_FOR_INTERRUPTS();
	/* the same stored container (a tree and its copy, untouched there) */
	if (a->type == jbvBinary && b->type == jbvBinary &&
		a->val.binary.data == b->val.binary.data)
		return;
	DocmodelJsonTreeExpand(a);
	DocmodelJsonTreeExpand(b);
	if (a->type == jbvObject && b->type == jbvObject)
		DiffObjects(st, a, b);
	else if (a->type == jbvArray && b->type == jbvArray &&
			 !a->val.array.rawScalar && !b->val.array.rawScalar)
		DiffArrays(st, a, b);
	else if (!DocmodelJsonTreeEqual(a, b))
		EmitOp(st, "replace", b, a);
}

/* See patch.h. */
JsonbValue
DocmodelJsonDiffTrees(JsonbValue *a, JsonbValue *b, bool with_was)
{
	DiffState st = {.ops = {.type = jbvArray}, .with_was = with_was};

	initStringInfo(&st.path);
	DiffValues(&st, a, b);
	return st.ops;
}

/*
 * Apply one operation of a diff made with with_was to root if it still
 * fits (see DocmodelJsonPatchApplyGuarded); false when it does not.
 */
static bool
ApplyGuardedOp(JsonbValue *root, JsonbValue *o)
{
	JsonbValue *opv;
	JsonbValue *pathv;
	JsonbValue *value = NULL;
	JsonbValue *was = NULL;
	JsonbValue *cur;
	JsonPointer p;
	JsonTreeMiss miss;
	JsonbValue removed;
	int k;

	DocmodelJsonTreeExpand(o);
	if (o->type != jbvObject)
		return false;
	k = DocmodelJsonTreeFindMember(o, "op", 2);
	opv = k >= 0 ? &o->val.object.pairs[k].value : NULL;
	k = DocmodelJsonTreeFindMember(o, "path", 4);
	pathv = k >= 0 ? &o->val.object.pairs[k].value : NULL;
	if (opv == NULL || pathv == NULL || opv->type != jbvString ||
		pathv->type != jbvString ||
		DocmodelJsonPointerParse(pathv->val.string.val, pathv->val.string.len,
								 true, &p) != JSONPOINTER_OK ||
		p.ntok == 0)
		return false;
	k = DocmodelJsonTreeFindMember(o, "value", 5);
	if (k >= 0)
		value = &o->val.object.pairs[k].value;
	k = DocmodelJsonTreeFindMember(o, "was", 3);
	if (k >= 0)
		was = &o->val.object.pairs[k].value;
	cur = DocmodelJsonTreeWalk(root, &p, p.ntok, 0, &miss);
	if (opv->val.string.len == 3 && memcmp(opv->val.string.val, "add", 3) == 0)
	{
		JsonbValue v;

		if (cur != NULL || value == NULL)
			return false;
		v = DocmodelJsonTreeCopy(value);
		return DocmodelJsonTreeAdd(root, &p, &v, &miss);
	}
	if (cur == NULL || was == NULL || !DocmodelJsonTreeEqual(cur, was))
		return false;
	if (opv->val.string.len == 6 &&
		memcmp(opv->val.string.val, "remove", 6) == 0)
		return DocmodelJsonTreeRemove(root, &p, &removed, &miss);
	if (opv->val.string.len == 7 &&
		memcmp(opv->val.string.val, "replace", 7) == 0 && value != NULL)
	{
		*cur = DocmodelJsonTreeCopy(value);
		return true;
	}
	return false;
}

/* See patch.h. */
bool
DocmodelJsonPatchApplyGuarded(JsonbValue *root, JsonbValue *ops)
{
	JsonbValue work;
	int i;

	DocmodelJsonTreeExpand(ops);
	if (ops->type != jbvArray || ops->val.array.nElems == 0)
		return ops->type == jbvArray;
	/* all or nothing: on a copy, kept only when every operation fits */
	work = DocmodelJsonTreeCopy(root);
	for (i = 0; i < ops->val.array.nElems; i++)
	{
		CHECK_FOR_INTERRUPTS();
		if (!ApplyGuardedOp(&work, &ops->val.array.elems[i]))
			return false;
	}
	*root = work;
	return true;
}

/* SQL: diff(a jsonb, b jsonb) -> jsonb, the RFC 6902 patch turning a into b. */
Datum
json_diff(PG_FUNCTION_ARGS)
{
	DiffState st = {.ops = {.type = jbvArray}};
	JsonbValue a;
	JsonbValue b;

	initStringInfo(&st.path);
	DocmodelJsonTreeFromJsonb(PG_GETARG_JSONB_P(0), &a);
	DocmodelJsonTreeFromJsonb(PG_GETARG_JSONB_P(1), &b);
	DiffValues(&st, &a, &b);
	PG_RETURN_JSONB_P(DocmodelJsonTreeToJsonb(&st.ops));
}

static int
DiffKeyCmp(const ListCell *a, const ListCell *b)
{
	return strcmp(lfirst(a), lfirst(b));
}

/* The index keys of the pointers diff(a, b) touches; see patch.h. */
Datum
DocmodelJsonDiffKeys(Jsonb *a, Jsonb *b)
{
	DiffState st = {.ops = {.type = jbvArray}};
	JsonbValue va;
	JsonbValue vb;
	Datum *elems;
	int n = 0;
	ListCell *lc;

	initStringInfo(&st.path);
	/* a placeholder first element makes keys non-NIL (dropped below) */
	st.keys = list_make1(pstrdup(""));
	if (a == NULL || b == NULL)
		st.keys = lappend(st.keys, pstrdup("="));
	else
	{
		DocmodelJsonTreeFromJsonb(a, &va);
		DocmodelJsonTreeFromJsonb(b, &vb);
		DiffValues(&st, &va, &vb);
	}
	st.keys = list_delete_first(st.keys);
	list_sort(st.keys, DiffKeyCmp);
	elems = palloc(sizeof(Datum) * Max(1, list_length(st.keys)));
	foreach (lc, st.keys)
	{
		CHECK_FOR_INTERRUPTS();
		if (n > 0 && strcmp(TextDatumGetCString(elems[n - 1]), lfirst(lc)) == 0)
			continue;
		elems[n++] = CStringGetTextDatum(lfirst(lc));
	}
	return PointerGetDatum(
		construct_array(elems, n, TEXTOID, -1, false, TYPALIGN_INT));
}

/* SQL: _diff_keys(a jsonb, b jsonb) -> text[]; NULL a or b: the root's key. */
Datum
json_diff_keys(PG_FUNCTION_ARGS)
{
	return DocmodelJsonDiffKeys(PG_ARGISNULL(0) ? NULL : PG_GETARG_JSONB_P(0),
								PG_ARGISNULL(1) ? NULL : PG_GETARG_JSONB_P(1));
}

/* ------------------------------------------------------------------------
 * The six operations
 * ------------------------------------------------------------------------
 */

bool
DocmodelJsonPatchApplyOp(JsonPatchOp op, JsonbValue *root,
						 const JsonPointer *path, const JsonPointer *from,
						 JsonbValue *value, Size *room, JsonTreeMiss *miss)
{
	JsonbValue *cur;
	JsonbValue v;

	switch (op)
	{
		case JSONPATCH_ADD:
			return DocmodelJsonTreeAdd(root, path, value, miss);
		case JSONPATCH_REMOVE:
			return DocmodelJsonTreeRemove(root, path, &v, miss);
		case JSONPATCH_REPLACE:
			cur = DocmodelJsonTreeWalk(root, path, path->ntok, 0, miss);
			if (cur != NULL)
				*cur = *value;
			return cur != NULL;
		case JSONPATCH_TEST:
			cur = DocmodelJsonTreeWalk(root, path, path->ntok, 0, miss);
			if (cur == NULL || DocmodelJsonTreeEqual(cur, value))
				return cur != NULL;
			miss->status = JSONTREE_TEST_FAILED;
			miss->at = cur;
			miss->in_from = false;
			return false;
		case JSONPATCH_MOVE:
		case JSONPATCH_COPY:
			break;
	}
	/* move and copy: take the source, then add it at path */
	if (op == JSONPATCH_MOVE && from->ntok < path->ntok &&
		DocmodelJsonPointerIsPrefix(from, path))
	{
		miss->status = JSONTREE_INTO_ITSELF;
		miss->in_from = true;
		return false;
	}
	if (op == JSONPATCH_MOVE && strcmp(from->text, path->text) == 0)
		cur = DocmodelJsonTreeWalk(root, from, from->ntok, 0, miss);
	else if (op == JSONPATCH_MOVE)
		cur = DocmodelJsonTreeRemove(root, from, &v, miss) ? &v : NULL;
	else
	{
		cur = DocmodelJsonTreeWalk(root, from, from->ntok, 0, miss);
		if (cur != NULL)
		{
			Size need = DocmodelJsonTreeRoom(cur, *room);

			if (need > *room)
			{
				miss->status = JSONTREE_TOO_BIG;
				miss->tok = from->ntok;
				miss->at = cur;
				miss->in_from = true;
				return false;
			}
			*room -= need;
			v = DocmodelJsonTreeCopy(cur);
			cur = &v;
		}
	}
	if (cur == NULL)
	{
		miss->in_from = true;
		return false;
	}
	if (op == JSONPATCH_MOVE && strcmp(from->text, path->text) == 0)
		return true;
	return DocmodelJsonTreeAdd(root, path, &v, miss);
}

/* ------------------------------------------------------------------------
 * patch
 *
 * The document is held as a tree (json/tree.h) expanded lazily: untouched
 * subtrees are never copied. It is turned back into jsonb once, at the end.
 * ------------------------------------------------------------------------
 */

static const char *const patch_ops[] = {"add",  "remove", "replace",
										"move", "copy",   "test"};

/* Detail for "-" where an existing element is needed. */
static const char *const PastEnd =
	"\"-\" names the position after the last element, which holds no value.";

/* Raise 22023: the patch itself is malformed at operation index. */
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

/* Return the detail saying why a pointer could not be followed. */
static char *
MissReason(const JsonTreeMiss *miss, const JsonPointer *p, const char *path)
{
	const char *tok = miss->tok < p->ntok ? p->tok[miss->tok] : "";

	switch (miss->status)
	{
		case JSONTREE_NO_MEMBER:
			return psprintf("Member \"%s\" does not exist.", tok);
		case JSONTREE_NOT_CONTAINER:
			return psprintf("Cannot look up \"%s\" in %s.", tok,
							DocmodelJsonTreeTypeName(miss->at));
		case JSONTREE_BAD_INDEX:
			return psprintf("\"%s\" is not an array index.", tok);
		case JSONTREE_INDEX_OVERFLOW:
			return psprintf("Array index %s is out of range.", tok);
		case JSONTREE_PAST_END:
			return pstrdup(PastEnd);
		case JSONTREE_INDEX_RANGE:
			return psprintf("Array index %s is out of range (array length %d).",
							tok, miss->at->val.array.nElems);
		case JSONTREE_ROOT:
			return pstrdup("The whole document cannot be removed.");
		case JSONTREE_INTO_ITSELF:
			return psprintf("A value cannot be moved into itself (to \"%s\").",
							path);
		default:
			elog(ERROR, "unexpected patch failure %d", (int) miss->status);
	}
}

/* Raise the error of operation index (op) that could not apply. */
static void
pg_attribute_noreturn()
	CannotApply(int index, JsonPatchOp op, const JsonTreeMiss *miss,
				const JsonPointer *path, const JsonPointer *from,
				JsonbValue *value)
{
	const JsonPointer *p = miss->in_from ? from : path;

	if (miss->status == JSONTREE_TOO_BIG)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("cannot apply patch operation %d (\"%s\") at path "
						"\"%s\": the document would be too large",
						index, patch_ops[op], path->text),
				 errdetail("Copying \"%s\" would take the document past %zu "
						   "bytes, the most a patch may build (copies counted "
						   "as they take memory).",
						   from->text, JSONTREE_MAX_BYTES)));
	if (miss->status == JSONTREE_TEST_FAILED)
		ereport(
			ERROR,
			(errcode(ERRCODE_DATA_EXCEPTION),
			 errmsg("patch test failed: operation %d (\"test\") at "
					"path \"%s\"",
					index, path->text),
			 errdetail("The value there is %s, not %s.",
					   JsonbToCString(
						   NULL, &DocmodelJsonTreeToJsonb(miss->at)->root, 0),
					   JsonbToCString(
						   NULL, &DocmodelJsonTreeToJsonb(value)->root, 0))));
	ereport(ERROR,
			(errcode(ERRCODE_DATA_EXCEPTION),
			 errmsg("cannot apply patch operation %d (\"%s\") at path \"%s\"",
					index, patch_ops[op], p->text),
			 errdetail("%s", MissReason(miss, p, path->text))));
}

/* Return the text of member name of operation object c, or raise 22023. */
static char *
OpMember(JsonbContainer *c, int index, const char *name, int *len)
{
	JsonbValue buf;
	JsonbValue *v = getKeyJsonValueFromContainer(c, name, strlen(name), &buf);

	if (v == NULL)
		Malformed(index, psprintf("Member \"%s\" is missing.", name));
	if (v->type != jbvString)
		Malformed(index, psprintf("Member \"%s\" is %s, not a string.", name,
								  DocmodelJsonTreeTypeName(v)));
	*len = v->val.string.len;
	return v->val.string.val;
}

/* Parse member name of c as a pointer into *p, or raise 22023. */
static void
OpPointer(JsonbContainer *c, int index, const char *name, JsonPointer *p)
{
	int len;
	char *s = OpMember(c, index, name, &len);

	switch (DocmodelJsonPointerParse(s, len, true, p))
	{
		case JSONPOINTER_OK:
		case JSONPOINTER_ROOT:
			return;
		case JSONPOINTER_NO_SLASH:
			Malformed(index,
					  psprintf("The \"%s\" pointer \"%s\" does not start "
							   "with \"/\".",
							   name, p->text));
		case JSONPOINTER_BAD_TILDE:
			Malformed(index, psprintf("The \"%s\" pointer \"%s\" has a \"~\" "
									  "not followed by 0 or 1.",
									  name, p->text));
	}
}

/* Apply one operation object (checked here) to the tree at root. */
static void
ApplyOp(JsonbValue *root, JsonbValue *opval, int index, Size *room)
{
	JsonbContainer *c;
	JsonTreeMiss miss;
	char *opname;
	int oplen;
	int op;
	JsonPointer path;
	JsonPointer from;
	JsonbValue *value = NULL;

	if (opval->type != jbvBinary ||
		!JsonContainerIsObject(opval->val.binary.data))
		Malformed(index, psprintf("The operation is %s, not an object.",
								  DocmodelJsonTreeTypeName(opval)));
	c = opval->val.binary.data;
	opname = OpMember(c, index, "op", &oplen);
	for (op = 0; op < lengthof(patch_ops); op++)
		if (strlen(patch_ops[op]) == oplen &&
			memcmp(patch_ops[op], opname, oplen) == 0)
			break;
	if (op == lengthof(patch_ops))
		Malformed(index,
				  psprintf("Unknown op \"%s\".", pnstrdup(opname, oplen)));
	OpPointer(c, index, "path", &path);
	if (op == JSONPATCH_MOVE || op == JSONPATCH_COPY)
		OpPointer(c, index, "from", &from);
	if (op == JSONPATCH_ADD || op == JSONPATCH_REPLACE || op == JSONPATCH_TEST)
	{
		value = getKeyJsonValueFromContainer(c, "value", 5,
											 palloc(sizeof(JsonbValue)));
		if (value == NULL)
			Malformed(index, "Member \"value\" is missing.");
	}
	if (!DocmodelJsonPatchApplyOp(op, root, &path, &from, value, room, &miss))
		CannotApply(index, op, &miss, &path, &from, value);
}

Jsonb *
DocmodelPatch(Jsonb *doc, Jsonb *patchdoc)
{
	JsonbValue root;
	int n;
	int i;
	/* the copies may take what the document and the patch leave */
	Size used = (Size) VARSIZE(doc) + VARSIZE(patchdoc);
	Size room = used < JSONTREE_MAX_BYTES ? JSONTREE_MAX_BYTES - used : 0;

	if (!JB_ROOT_IS_ARRAY(patchdoc) || JB_ROOT_IS_SCALAR(patchdoc))
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("a patch must be a JSON array of operations"),
						errhint("E.g. [{\"op\": \"replace\", \"path\": \"/a\", "
								"\"value\": 1}].")));
	DocmodelJsonTreeFromJsonb(doc, &root);
	n = JsonContainerSize(&patchdoc->root);
	for (i = 0; i < n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		ApplyOp(&root, getIthJsonbValueFromContainer(&patchdoc->root, i), i,
				&room);
	}
	return DocmodelJsonTreeToJsonb(&root);
}

/* SQL: patch(doc jsonb, patch jsonb) -> jsonb, RFC 6902 applied to doc. */
Datum
json_patch(PG_FUNCTION_ARGS)
{
	PG_RETURN_JSONB_P(
		DocmodelPatch(PG_GETARG_JSONB_P(0), PG_GETARG_JSONB_P(1)));
}
