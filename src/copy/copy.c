/*-------------------------------------------------------------------------
 *
 * copy.c
 *	  Denormalized copies and pre-computed aggregates kept in step (README,
 *	  "Copies and aggregates"): the row triggers of the rules recorded in
 *	  docmodel.copy_rules, and the small functions they and their SQL use
 *	  (ref_keys, copy_values, _copy_put, _copy_put_at).
 *
 *	  A copy rule has two triggers: an AFTER row trigger on the source
 *	  collection that rewrites, through one prepared UPDATE of the referring
 *	  collection (its collection trigger stamps, versions and keeps history),
 *	  the documents whose reference names the written key; and a BEFORE row
 *	  trigger on the referring collection that fills the copies of a written
 *	  document from its sources. An aggregate rule has one AFTER row trigger
 *	  on the collection of the referring documents (the books) that locks
 *	  each document they refer to (the authors), in key order, and computes
 *	  its aggregate again from the referring documents, found through the
 *	  expression index on docmodel.ref_keys.
 *
 *	  Statements run as the owner of the collection they write (fan-out and
 *	  aggregates) or read (filling), as a foreign key's actions do, in a
 *	  security-restricted operation. Backend-local: RulePlanCache, each
 *	  trigger's rule and statements, prepared from the rule and the current
 *	  names and dropped when docmodel.copy_rules, a relation they reach or a
 *	  schema changes (docmodel.c's NamedPlanSubscribers).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "common/hashfn.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/lock.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "docmodel.h"
#include "catalog.h"
#include "collection/columns.h"
#include "collection/config.h"
#include "collection/layout.h"
#include "copy/copy.h"
#include "collection/key.h"
#include "copy/rules.h"
#include "json/pointer.h"
#include "json/tree.h"

PG_FUNCTION_INFO_V1(copy_ref_keys);
PG_FUNCTION_INFO_V1(copy_values);
PG_FUNCTION_INFO_V1(copy_put);
PG_FUNCTION_INFO_V1(copy_put_at);
PG_FUNCTION_INFO_V1(copy_add_at);
PG_FUNCTION_INFO_V1(copy_source_trigger);
PG_FUNCTION_INFO_V1(copy_fill_trigger);
PG_FUNCTION_INFO_V1(copy_aggregate_trigger);
PG_FUNCTION_INFO_V1(copy_apply_copies_batch);
PG_FUNCTION_INFO_V1(copy_apply_copies);

/* The most references one document may hold at one rule's path. */
#define MAX_REFS 10000

/* Parse pointer text s of argument name, raising 22023 when it is not one. */
static void
ParsePath(const char *s, const char *name, JsonPointer *p)
{
	if (DocmodelJsonPointerParse(s, strlen(s), false, p) != JSONPOINTER_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid %s \"%s\"", name, s),
				 errdetail("It is a JSON Pointer to a member (\"/a/b\"), with "
						   "\"*\" for every element of an array.")));
}

static bool
IsStar(const JsonPointer *p, int t)
{
	return p->toklen[t] == 1 && p->tok[t][0] == '*';
}

/*
 * Call fn(node, arg) for every node of v reached by tokens t.. of p ("*":
 * every element of an array), expanding the containers on the way (in
 * place: the tree can then be changed and written back).
 */
static void
Visit(JsonbValue *v, const JsonPointer *p, int t,
	  void (*fn)(JsonbValue *, void *), void *arg)
{
	int i;

	CHECK_FOR_INTERRUPTS();
	check_stack_depth();
	if (t == p->ntok)
	{
		fn(v, arg);
		return;
	}
	DocmodelJsonTreeExpand(v);
	if (IsStar(p, t))
	{
		if (v->type == jbvArray)
			for (i = 0; i < v->val.array.nElems; i++)
				Visit(&v->val.array.elems[i], p, t + 1, fn, arg);
	}
	else if (v->type == jbvObject)
	{
		i = DocmodelJsonTreeFindMember(v, p->tok[t], p->toklen[t]);
		if (i >= 0)
			Visit(&v->val.object.pairs[i].value, p, t + 1, fn, arg);
	}
	else if (v->type == jbvArray)
	{
		int idx;

		if (DocmodelJsonPointerArrayIndex(p->tok[t], p->toklen[t], &idx) ==
				JSONPOINTER_INDEX &&
			idx < v->val.array.nElems)
			Visit(&v->val.array.elems[idx], p, t + 1, fn, arg);
	}
}

/* The text of a reference value (a string or a number), or NULL. */
static char *
RefText(JsonbValue *v)
{
	if (v->type == jbvString)
		return pnstrdup(v->val.string.val, v->val.string.len);
	if (v->type == jbvNumeric)
		return DatumGetCString(
			DirectFunctionCall1(numeric_out, NumericGetDatum(v->val.numeric)));
	return NULL;
}

typedef struct RefList
{
	int n;
	char **keys;
} RefList;

static void
AddRef(JsonbValue *v, void *arg)
{
	RefList *l = arg;
	char *k = RefText(v);

	if (k == NULL)
		return;
	if (l->n >= MAX_REFS)
		ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						errmsg("a document holds more than %d references at "
							   "one path",
							   MAX_REFS)));
	if (l->keys == NULL)
		l->keys = palloc(sizeof(char *) * MAX_REFS);
	l->keys[l->n++] = k;
}

static int
CompareKeys(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/* The distinct references in doc at p, sorted (byte order, as COLLATE "C"). */
static RefList
RefsOf(Jsonb *doc, const JsonPointer *p)
{
	RefList l = {0, NULL};
	JsonbValue root;
	int i;
	int k = 0;

	DocmodelJsonTreeFromJsonb(doc, &root);
	Visit(&root, p, 0, AddRef, &l);
	if (l.n > 1)
	{
		qsort(l.keys, l.n, sizeof(char *), CompareKeys);
		for (i = 0; i < l.n; i++)
			if (k == 0 || strcmp(l.keys[k - 1], l.keys[i]) != 0)
				l.keys[k++] = l.keys[i];
		l.n = k;
	}
	return l;
}

static bool
SameRefs(const RefList *a, const RefList *b)
{
	int i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (strcmp(a->keys[i], b->keys[i]) != 0)
			return false;
	return true;
}

/*
 * ref_keys(doc, path) -> text[]: the distinct keys doc refers to at path (a
 * JSON Pointer, "*" for every element of an array), sorted: the strings and
 * numbers there. The expression the rules' indexes are made of.
 */
Datum
copy_ref_keys(PG_FUNCTION_ARGS)
{
	JsonPointer p;
	RefList l;
	Datum *elems;
	int i;

	ParsePath(text_to_cstring(PG_GETARG_TEXT_PP(1)), "path", &p);
	l = RefsOf(PG_GETARG_JSONB_P(0), &p);
	elems = palloc(sizeof(Datum) * Max(l.n, 1));
	for (i = 0; i < l.n; i++)
		elems[i] = CStringGetTextDatum(l.keys[i]);
	PG_RETURN_ARRAYTYPE_P(
		construct_array(elems, l.n, TEXTOID, -1, false, TYPALIGN_INT));
}

/* The node of src at pointer text s, or NULL. */
static JsonbValue *
ReadAt(JsonbValue *src, const char *s, int len)
{
	JsonPointer p;
	JsonTreeMiss miss;

	if (len == 0)
		return src;
	if (DocmodelJsonPointerParse(s, len, false, &p) != JSONPOINTER_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid pointer \"%.*s\" in copy fields", len, s)));
	return DocmodelJsonTreeRead(src, &p, 0, &miss);
}

/*
 * Whether document doc keeps the copies it holds under rule e's
 * frozen_when: its value at one of the pointers equals one of the values
 * listed for it (as _frozen_sql says in SQL).
 */
static bool
Frozen(RulePlans *e, Jsonb *doc)
{
	JsonbValue root;
	JsonbValue rule;
	int i;

	if (e->frozen == NULL)
		return false;
	DocmodelJsonTreeFromJsonb(doc, &root);
	DocmodelJsonTreeFromJsonb(e->frozen, &rule);
	DocmodelJsonTreeExpand(&rule);
	if (rule.type != jbvObject)
		return false;
	for (i = 0; i < rule.val.object.nPairs; i++)
	{
		JsonbValue *k = &rule.val.object.pairs[i].key;
		JsonbValue *vals = &rule.val.object.pairs[i].value;
		JsonbValue *v = ReadAt(&root, k->val.string.val, k->val.string.len);
		int j;

		if (v == NULL)
			continue;
		DocmodelJsonTreeExpand(vals);
		if (vals->type != jbvArray)
			continue;
		for (j = 0; j < vals->val.array.nElems; j++)
			if (DocmodelJsonTreeEqual(v, &vals->val.array.elems[j]))
				return true;
	}
	return false;
}

static void
BadFields(const char *detail)
{
	ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					errmsg("invalid copy fields"), errdetail("%s", detail),
					errhint("fields is an object from member name to a JSON "
							"Pointer into the source (\"/images/0/thumbnail\") "
							"or an array of pointers and literal strings, "
							"joined as text ([\"/firstName\", \" \", "
							"\"/lastName\"]).")));
}

/*
 * Put into *out (an empty expanded object) the copies fields (expanded)
 * makes of source src. A pointer reaching nothing copies null; in a
 * joined array it adds nothing.
 */
static void
MakeCopies(JsonbValue *fields, JsonbValue *src, JsonbValue *out)
{
	JsonbValue null_v = {.type = jbvNull};
	int i;
	int j;

	DocmodelJsonTreeExpand(fields);
	if (fields->type != jbvObject || fields->val.object.nPairs == 0)
		BadFields("fields is not an object of at least one member.");
	for (i = 0; i < fields->val.object.nPairs; i++)
	{
		JsonbPair *f = &fields->val.object.pairs[i];
		JsonbValue *spec = &f->value;

		CHECK_FOR_INTERRUPTS();
		DocmodelJsonTreeExpand(spec);
		if (spec->type == jbvString)
		{
			JsonbValue *v;

			if (spec->val.string.len == 0 || spec->val.string.val[0] != '/')
				BadFields(psprintf("Member \"%.*s\" is not a JSON Pointer.",
								   f->key.val.string.len,
								   f->key.val.string.val));
			v = ReadAt(src, spec->val.string.val, spec->val.string.len);
			if (v == NULL)
				v = &null_v;
			DocmodelJsonTreeSetMember(out, f->key.val.string.val,
									  f->key.val.string.len, v);
		}
		else if (spec->type == jbvArray && spec->val.array.nElems > 0)
		{
			StringInfoData s;

			initStringInfo(&s);
			for (j = 0; j < spec->val.array.nElems; j++)
			{
				JsonbValue *e = &spec->val.array.elems[j];
				JsonbValue *v;

				if (e->type != jbvString)
					BadFields(psprintf("Member \"%.*s\" joins something else "
									   "than strings.",
									   f->key.val.string.len,
									   f->key.val.string.val));
				if (e->val.string.len == 0 || e->val.string.val[0] != '/')
				{
					appendBinaryStringInfo(&s, e->val.string.val,
										   e->val.string.len);
					continue;
				}
				v = ReadAt(src, e->val.string.val, e->val.string.len);
				if (v == NULL || v->type == jbvNull)
					continue;
				if (v->type == jbvString)
					appendBinaryStringInfo(&s, v->val.string.val,
										   v->val.string.len);
				else
				{
					JsonbValue *c = DocmodelJsonTreeBuild(v);

					appendStringInfoString(
						&s, JsonbToCString(
								NULL, &DocmodelJsonTreeToJsonb(c)->root, 0));
				}
			}
			DocmodelJsonTreePut(
				out, pnstrdup(f->key.val.string.val, f->key.val.string.len),
				DocmodelJsonTreeString(s.data, s.len));
		}
		else
			BadFields(psprintf("Member \"%.*s\" is neither a pointer nor a "
							   "non-empty array.",
							   f->key.val.string.len, f->key.val.string.val));
	}
}

static JsonbValue
CopyEmptyObject(void)
{
	JsonbValue o;

	o.type = jbvObject;
	o.val.object.nPairs = 0;
	o.val.object.pairs = NULL;
	return o;
}

/* The copies (an expanded object) fields makes of source document src. */
static JsonbValue
CopiesOf(Jsonb *fields, Jsonb *src)
{
	JsonbValue f;
	JsonbValue s;
	JsonbValue out = CopyEmptyObject();

	DocmodelJsonTreeFromJsonb(fields, &f);
	DocmodelJsonTreeFromJsonb(src, &s);
	MakeCopies(&f, &s, &out);
	return out;
}

/*
 * copy_values(source_doc, fields) -> jsonb: the members a copy rule with
 * these fields copies from source_doc.
 */
Datum
copy_values(PG_FUNCTION_ARGS)
{
	JsonbValue out = CopiesOf(PG_GETARG_JSONB_P(1), PG_GETARG_JSONB_P(0));

	PG_RETURN_JSONB_P(DocmodelJsonTreeToJsonb(&out));
}

/* What PutCopies does at every object a reference path reaches. */
typedef struct PutArgs
{
	const char *ref; /* the member holding the key */
	const char *key;
	JsonbValue *vals; /* expanded object */
	int how;          /* 0 set, 1 remove the members of vals, 2 null them */
	bool changed;
} PutArgs;

static void
PutOne(JsonbValue *v, void *arg)
{
	PutArgs *a = arg;
	int i;
	char *k;

	DocmodelJsonTreeExpand(v);
	if (v->type != jbvObject)
		return;
	i = DocmodelJsonTreeFindMember(v, a->ref, strlen(a->ref));
	if (i < 0)
		return;
	k = RefText(&v->val.object.pairs[i].value);
	if (k == NULL || strcmp(k, a->key) != 0)
		return;
	for (i = 0; i < a->vals->val.object.nPairs; i++)
	{
		JsonbPair *m = &a->vals->val.object.pairs[i];
		int at = DocmodelJsonTreeFindMember(v, m->key.val.string.val,
											m->key.val.string.len);

		if (a->how == 1)
		{
			if (at >= 0)
			{
				(void) DocmodelJsonTreeRemoveAt(v, at);
				a->changed = true;
			}
			continue;
		}
		if (at >= 0 &&
			(a->how == 2 ? v->val.object.pairs[at].value.type == jbvNull
						 : DocmodelJsonTreeEqual(&v->val.object.pairs[at].value,
												 &m->value)))
			continue;
		if (a->how == 2)
		{
			JsonbValue n = {.type = jbvNull};

			DocmodelJsonTreeSetMember(v, m->key.val.string.val,
									  m->key.val.string.len, &n);
		}
		else
			DocmodelJsonTreeSetMember(v, m->key.val.string.val,
									  m->key.val.string.len, &m->value);
		a->changed = true;
	}
}

/*
 * Put vals (how: set, remove, null) into every object of root at path p
 * whose member ref is key; return whether anything changed.
 */
static bool
PutCopies(JsonbValue *root, const JsonPointer *p, const char *ref,
		  const char *key, JsonbValue *vals, int how)
{
	PutArgs a = {ref, key, vals, how, false};

	DocmodelJsonTreeExpand(vals);
	if (vals->type != jbvObject)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("the copied values are not an object")));
	Visit(root, p, 0, PutOne, &a);
	return a.changed;
}

/*
 * _copy_put(doc, path, ref, key, vals, how) -> jsonb: doc with the members
 * of vals set (how 'set'), removed ('remove') or nulled ('null') in every
 * object at path whose member ref holds key.
 */
Datum
copy_put(PG_FUNCTION_ARGS)
{
	JsonPointer p;
	JsonbValue root;
	JsonbValue vals;
	char *how = text_to_cstring(PG_GETARG_TEXT_PP(5));
	int h = strcmp(how, "set") == 0      ? 0
			: strcmp(how, "remove") == 0 ? 1
			: strcmp(how, "null") == 0   ? 2
										 : -1;

	if (h < 0)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("invalid copy action \"%s\"", how),
						errdetail("It is set, remove or null.")));
	ParsePath(text_to_cstring(PG_GETARG_TEXT_PP(1)), "path", &p);
	DocmodelJsonTreeFromJsonb(PG_GETARG_JSONB_P(0), &root);
	DocmodelJsonTreeFromJsonb(PG_GETARG_JSONB_P(4), &vals);
	if (!PutCopies(&root, &p, text_to_cstring(PG_GETARG_TEXT_PP(2)),
				   text_to_cstring(PG_GETARG_TEXT_PP(3)), &vals, h))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	PG_RETURN_JSONB_P(DocmodelJsonTreeToJsonb(&root));
}

/*
 * Put val at path p (no "*") of root, the objects on the way made when
 * missing; false when it is there already or a step is not an object.
 */
static bool
PutAt(JsonbValue *root, const JsonPointer *p, JsonbValue *val)
{
	JsonbValue *cur = root;
	int t;
	int i;

	for (t = 0; t < p->ntok; t++)
	{
		DocmodelJsonTreeExpand(cur);
		if (cur->type != jbvObject)
			return false;
		i = DocmodelJsonTreeFindMember(cur, p->tok[t], p->toklen[t]);
		if (t == p->ntok - 1)
		{
			if (i >= 0 &&
				DocmodelJsonTreeEqual(&cur->val.object.pairs[i].value, val))
				return false;
			DocmodelJsonTreeSetMember(cur, p->tok[t], p->toklen[t], val);
			return true;
		}
		if (i < 0)
		{
			JsonbValue o = CopyEmptyObject();

			DocmodelJsonTreeSetMember(cur, p->tok[t], p->toklen[t], &o);
			i = DocmodelJsonTreeFindMember(cur, p->tok[t], p->toklen[t]);
		}
		cur = &cur->val.object.pairs[i].value;
	}
	return false;
}

/*
 * _copy_put_at(doc, path, value) -> jsonb: doc with value at path (no "*"),
 * the objects on the way made when missing; doc itself when a step is not
 * an object.
 */
Datum
copy_put_at(PG_FUNCTION_ARGS)
{
	JsonPointer p;
	JsonbValue root;
	JsonbValue val;

	ParsePath(text_to_cstring(PG_GETARG_TEXT_PP(1)), "path", &p);
	DocmodelJsonTreeFromJsonb(PG_GETARG_JSONB_P(0), &root);
	DocmodelJsonTreeFromJsonb(PG_GETARG_JSONB_P(2), &val);
	if (!PutAt(&root, &p, &val))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	PG_RETURN_JSONB_P(DocmodelJsonTreeToJsonb(&root));
}

/*
 * _copy_add_at(doc, path, delta) -> jsonb: doc with the number at path
 * (no "*"; anything else there counts as 0) increased by delta.
 */
Datum
copy_add_at(PG_FUNCTION_ARGS)
{
	JsonPointer p;
	JsonbValue root;
	JsonbValue *v;
	JsonbValue val;
	Numeric delta = PG_GETARG_NUMERIC(2);

	ParsePath(text_to_cstring(PG_GETARG_TEXT_PP(1)), "path", &p);
	DocmodelJsonTreeFromJsonb(PG_GETARG_JSONB_P(0), &root);
	v = ReadAt(&root, p.text, strlen(p.text));
	val = DocmodelJsonTreeNumber(
		v != NULL && v->type == jbvNumeric
			? DatumGetNumeric(DirectFunctionCall2(
				  numeric_add, NumericGetDatum(v->val.numeric),
				  NumericGetDatum(delta)))
			: delta,
		psprintf("the number at \"%s\"", p.text));
	if (!PutAt(&root, &p, &val))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	PG_RETURN_JSONB_P(DocmodelJsonTreeToJsonb(&root));
}

/* The copy rule whose fan-out is running (its fill trigger stands aside). */
static int32 FanoutRule = 0;

/* The document (jsonb) of tuple t of td's relation, or NULL. */
static Jsonb *
DocOf(TriggerData *td, HeapTuple t)
{
	return DocmodelColumnsTupleDocument(td->tg_relation, t, false);
}

/*
 * The source document of tuple t as rule e reads it: its doc, or the
 * document with its stamps when the rule reads stamps of a meta_style
 * 'columns' source (e->stamps).
 */
static Jsonb *
SourceDocOf(RulePlans *e, TriggerData *td, HeapTuple t)
{
	return DocmodelColumnsTupleDocument(td->tg_relation, t, e->stamps);
}

static char *
KeyOf(TriggerData *td, HeapTuple t)
{
	bool isnull;
	Datum d = heap_getattr(t, DOCMODEL_COLL_ATT_ID,
						   RelationGetDescr(td->tg_relation), &isnull);

	return isnull ? NULL : TextDatumGetCString(d);
}

static bool
JsonbSame(Jsonb *a, Jsonb *b)
{
	return DatumGetBool(
		DirectFunctionCall2(jsonb_eq, JsonbPGetDatum(a), JsonbPGetDatum(b)));
}

/*
 * Return tuple t of td's relation with document root, made in context cxt
 * (the trigger's caller's: SPI's is freed by SPI_finish).
 */
static HeapTuple
WithDoc(TriggerData *td, HeapTuple t, JsonbValue *root, MemoryContext cxt)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	Datum values[1];
	bool nulls[1] = {false};
	int att[1] = {DOCMODEL_COLL_ATT_DOC};

	values[0] = JsonbPGetDatum(DocmodelJsonTreeToJsonb(root));
	t = heap_modify_tuple_by_cols(t, RelationGetDescr(td->tg_relation), 1, att,
								  values, nulls);
	MemoryContextSwitchTo(old);
	return t;
}

/* The copies of a missing source: every field of the rule, null. */
static JsonbValue
NullCopiesValue(RulePlans *e)
{
	JsonbValue f;
	JsonbValue ov = CopyEmptyObject();
	int i;

	DocmodelJsonTreeFromJsonb(e->fields, &f);
	DocmodelJsonTreeExpand(&f);
	for (i = 0; i < f.val.object.nPairs; i++)
	{
		JsonbValue n = {.type = jbvNull};

		DocmodelJsonTreeSetMember(&ov, f.val.object.pairs[i].key.val.string.val,
								  f.val.object.pairs[i].key.val.string.len, &n);
	}
	return ov;
}

/* The same, as jsonb. */
static Jsonb *
NullCopies(RulePlans *e)
{
	JsonbValue ov = NullCopiesValue(e);

	return DocmodelJsonTreeToJsonb(&ov);
}

/*
 * Rewrite the copies of key in the documents referring to it (how: set,
 * null, remove; vals the copies), as the owner of the referring
 * collection, the rule's fill trigger standing aside.
 */
static void
Fanout(RulePlans *e, const char *key, Jsonb *vals, const char *how)
{
	Datum args[3];
	int32 save = FanoutRule;

	args[0] = CStringGetTextDatum(key);
	args[1] = JsonbPGetDatum(vals);
	args[2] = CStringGetTextDatum(how);
	FanoutRule = e->id;
	PG_TRY();
	{
		DocmodelCopyRunAsOwner(e->plans[0], args, NULL, false, 0, e->coll);
	}
	PG_FINALLY();
	{
		FanoutRule = save;
	}
	PG_END_TRY();
}

/* Queue key for deferred rule e (as docmodel.copy_queue's owner). */
static void
Enqueue(RulePlans *e, const char *key)
{
	Datum args[2];

	args[0] = Int32GetDatum(e->id);
	args[1] = CStringGetTextDatum(key);
	DocmodelCopyRunAsOwner(e->plans[2], args, NULL, false, 0,
						   DocmodelCopyQueueTable());
}

/*
 * Source key of td's relation is gone (deleted, or its key changed): refuse
 * (on_missing refuse, in either mode: 23503 while a document refers to
 * it), or null or remove the copies (deferred: queue the key).
 */
static void
SourceGone(RulePlans *e, TriggerData *td, const char *key)
{
	Datum args[1];

	if (e->on_missing == 0)
		return;
	if (e->on_missing == 3)
	{
		args[0] = CStringGetTextDatum(key);
		DocmodelCopyRunAsOwner(e->plans[1], args, NULL, false, 1, e->coll);
		if (SPI_processed > 0)
			ereport(ERROR, (errcode(ERRCODE_FOREIGN_KEY_VIOLATION),
							errmsg("document \"%s\" of %s is still copied", key,
								   RelationGetRelationName(td->tg_relation)),
							errdetail("Document \"%s\" of %s refers to it, and "
									  "its copy rule refuses a missing source.",
									  SPI_getvalue(SPI_tuptable->vals[0],
												   SPI_tuptable->tupdesc, 1),
									  get_rel_name(e->coll))));
		return;
	}
	if (e->deferred)
		Enqueue(e, key);
	else
		Fanout(e, key, NullCopies(e), e->on_missing == 1 ? "null" : "remove");
}

/*
 * _copy_source_trigger(rule): the AFTER row trigger of a copy rule on its
 * source collection: when the copies a written document gives change (or
 * it appears), the documents referring to its key are rewritten (a deferred
 * rule queues the key instead); when a key goes (a delete, or a change of
 * the key), the documents referring to it follow the rule's on_missing.
 */
Datum
copy_source_trigger(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	RulePlans *e;
	HeapTuple oldt = NULL;
	HeapTuple newt = NULL;
	char *key = NULL;
	char *oldkey = NULL;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_FOR_ROW(td->tg_event) ||
		!TRIGGER_FIRED_AFTER(td->tg_event))
		DocmodelTriggerMisuse("_copy_source_trigger",
							  "a copy rule's AFTER row trigger");
	DocmodelCheckLayout(td->tg_relation, DOCMODEL_LAYOUT_COLLECTION);
	DocmodelTriggerRows(td, &oldt, &newt);
	e = DocmodelCopyRuleFor(td, 'c');
	if (newt != NULL)
		key = KeyOf(td, newt);
	if (oldt != NULL)
		oldkey = KeyOf(td, oldt);
	if (key != NULL)
	{
		JsonbValue nv = CopiesOf(e->fields, SourceDocOf(e, td, newt));
		Jsonb *vals = DocmodelJsonTreeToJsonb(&nv);
		bool same = false;

		if (oldkey != NULL && strcmp(oldkey, key) == 0)
		{
			JsonbValue ov = CopiesOf(e->fields, SourceDocOf(e, td, oldt));

			same = JsonbSame(DocmodelJsonTreeToJsonb(&ov), vals);
		}
		if (same)
			; /* the copies are the same */
		else if (e->deferred)
		{
			/* queued only when a document holds copies of it (a new key
			 * nobody refers to yet changes no copy: a document referring
			 * to it later is filled when written) */
			Datum args[1];

			args[0] = CStringGetTextDatum(key);
			DocmodelCopyRunAsOwner(e->plans[1], args, NULL, false, 1, e->coll);
			if (SPI_processed > 0)
				Enqueue(e, key);
		}
		else
			Fanout(e, key, vals, "set");
	}
	if (oldkey != NULL && (key == NULL || strcmp(oldkey, key) != 0))
		SourceGone(e, td, oldkey);
	SPI_finish();
	return PointerGetDatum(NULL);
}

/*
 * Apply the queued keys of deferred rule e: take up to batch of them (FOR
 * UPDATE SKIP LOCKED: concurrent batches take different keys, and a key
 * whose source a transaction in progress is writing is left for a later
 * batch), then rewrite each key's referring documents from the source as
 * committed now, and forget the key. Return how many keys were applied.
 */
static int64
ApplyBatch(RulePlans *e, int32 batch)
{
	Datum args[2];
	SPITupleTable *claimed;
	uint64 n;
	uint64 i;
	MemoryContext per_key;
	MemoryContext old;

	args[0] = Int32GetDatum(e->id);
	args[1] = Int32GetDatum(batch);
	DocmodelCopyRunAsOwner(e->plans[3], args, NULL, false, 0,
						   DocmodelCopyQueueTable());
	claimed = SPI_tuptable;
	n = SPI_processed;
	per_key = AllocSetContextCreate(CurrentMemoryContext, "docmodel apply",
									ALLOCSET_DEFAULT_SIZES);
	for (i = 0; i < n; i++)
	{
		char *key;
		Datum kargs[2];

		CHECK_FOR_INTERRUPTS();
		old = MemoryContextSwitchTo(per_key);
		key = SPI_getvalue(claimed->vals[i], claimed->tupdesc, 1);
		kargs[0] = CStringGetTextDatum(key);
		DocmodelCopyRunAsOwner(e->plans[1], kargs, NULL, false, 1, e->source);
		if (SPI_processed == 1)
		{
			bool isnull;
			Datum d = SPI_getbinval(SPI_tuptable->vals[0],
									SPI_tuptable->tupdesc, 1, &isnull);
			JsonbValue v = CopiesOf(e->fields, DatumGetJsonbP(d));

			SPI_freetuptable(SPI_tuptable);
			Fanout(e, key, DocmodelJsonTreeToJsonb(&v), "set");
		}
		else
		{
			SPI_freetuptable(SPI_tuptable);
			/* keep, or refuse (a source gone whose referrers are gone too) */
			if (e->on_missing == 1 || e->on_missing == 2)
				Fanout(e, key, NullCopies(e),
					   e->on_missing == 1 ? "null" : "remove");
		}
		kargs[0] = Int32GetDatum(e->id);
		kargs[1] = CStringGetTextDatum(key);
		DocmodelCopyRunAsOwner(e->plans[2], kargs, NULL, false, 0,
							   DocmodelCopyQueueTable());
		MemoryContextSwitchTo(old);
		MemoryContextReset(per_key);
	}
	MemoryContextDelete(per_key);
	return (int64) n;
}

/* The most keys one batch of apply_copies takes. */
#define MAX_APPLY_BATCH 100000

static void
CheckBatchSize(int32 batch)
{
	if (batch < 1)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("batch_size must be positive, not %d", batch)));
	if (batch > MAX_APPLY_BATCH)
		ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						errmsg("batch_size %d is over the limit of %d", batch,
							   MAX_APPLY_BATCH)));
}

/* Raise 42501 unless the current user may UPDATE relation relid. */
static void
RequireApply(Oid relid)
{
	if (pg_class_aclcheck(relid, GetUserId(), ACL_UPDATE) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for table %s", get_rel_name(relid)),
				 errdetail("Applying its deferred copies needs UPDATE on the "
						   "collection.")));
}

/*
 * _apply_copies_batch(rule, batch_size) -> bigint: apply up to batch_size
 * queued keys of deferred copy rule rule (none for a sync rule); the caller
 * needs UPDATE on the rule's collection (42501), whose documents are
 * rewritten as its owner, as a source write rewrites them in mode sync.
 */
Datum
copy_apply_copies_batch(PG_FUNCTION_ARGS)
{
	RulePlans *e;
	int64 n = 0;

	DocmodelRequireArg(fcinfo, 0, "rule");
	DocmodelRequireArg(fcinfo, 1, "batch_size");
	CheckBatchSize(PG_GETARG_INT32(1));
	e = DocmodelCopyApplyRule(PG_GETARG_INT32(0));
	if (get_rel_relkind(e->coll) == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", e->coll)));
	RequireApply(e->coll);
	if (e->deferred)
		n = ApplyBatch(e, PG_GETARG_INT32(1));
	SPI_finish();
	PG_RETURN_INT64(n);
}

/*
 * CALL apply_copies(coll, batch_size): apply the queued keys of every
 * deferred copy rule of coll, batch after batch, committing after each; a
 * rule is done when a batch takes fewer keys than batch_size (keys queued
 * meanwhile wait for the next call). Must be called by CALL outside a
 * transaction block.
 */
Datum
copy_apply_copies(PG_FUNCTION_ARGS)
{
	Oid types[2] = {OIDOID, INT4OID};
	Datum values[2];
	int32 batch;
	int32 *rules;
	int nrules;
	int i;

	DocmodelRequireCall(fcinfo, "apply_copies");
	DocmodelRequireArg(fcinfo, 0, "coll");
	DocmodelRequireArg(fcinfo, 1, "batch_size");
	batch = PG_GETARG_INT32(1);
	CheckBatchSize(batch);
	if (get_rel_relkind(PG_GETARG_OID(0)) == '\0')
		ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE),
						errmsg("relation with OID %u does not exist",
							   PG_GETARG_OID(0))));
	RequireApply(PG_GETARG_OID(0));
	if (SPI_connect_ext(SPI_OPT_NONATOMIC) != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	values[0] = PG_GETARG_DATUM(0);
	if (SPI_execute_with_args(
			"SELECT r.id FROM docmodel.copy_rules AS r WHERE "
			"r.coll::pg_catalog.oid OPERATOR(pg_catalog.=) $1 AND r.mode "
			"OPERATOR(pg_catalog.=) 'deferred' ORDER BY r.id",
			1, types, values, NULL, true, 0) != SPI_OK_SELECT)
		ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
						errmsg("reading copy rules failed")));
	nrules = (int) SPI_processed;
	rules = palloc(sizeof(int32) * Max(nrules, 1));
	for (i = 0; i < nrules; i++)
	{
		bool isnull;

		rules[i] = DatumGetInt32(SPI_getbinval(
			SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));
	}
	for (i = 0; i < nrules; i++)
	{
		Oid btypes[2] = {INT4OID, INT4OID};
		Datum bvalues[2];

		bvalues[0] = Int32GetDatum(rules[i]);
		bvalues[1] = Int32GetDatum(batch);
		for (;;)
		{
			int64 n;
			bool isnull;

			CHECK_FOR_INTERRUPTS();
			SPI_commit();
			SPI_start_transaction();
			if (SPI_execute_with_args(
					"SELECT docmodel._apply_copies_batch($1, $2)", 2, btypes,
					bvalues, NULL, false, 0) != SPI_OK_SELECT)
				ereport(ERROR,
						(errcode(ERRCODE_INTERNAL_ERROR),
						 errmsg("applying copy rule %d failed", rules[i])));
			n = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
											SPI_tuptable->tupdesc, 1, &isnull));
			if (n < batch)
				break;
		}
	}
	SPI_commit();
	SPI_start_transaction();
	SPI_finish();
	PG_RETURN_VOID();
}

/*
 * _copy_fill_trigger(rule): the BEFORE row trigger of a copy rule on the
 * referring collection: the copies of the written document are filled
 * from their sources (a new reference locks its source first, in key
 * order); a missing source follows the rule's on_missing.
 */
Datum
copy_fill_trigger(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	RulePlans *e;
	HeapTuple newt;
	Jsonb *doc;
	Jsonb *olddoc = NULL;
	JsonPointer p;
	RefList refs;
	RefList oldrefs = {0, NULL};
	JsonbValue root;
	bool changed = false;
	int i;
	MemoryContext caller = CurrentMemoryContext;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_FOR_ROW(td->tg_event) ||
		!TRIGGER_FIRED_BEFORE(td->tg_event) ||
		TRIGGER_FIRED_BY_DELETE(td->tg_event))
		DocmodelTriggerMisuse("_copy_fill_trigger",
							  "a copy rule's BEFORE INSERT OR UPDATE row "
							  "trigger");
	DocmodelCheckLayout(td->tg_relation, DOCMODEL_LAYOUT_COLLECTION);
	newt = TRIGGER_FIRED_BY_UPDATE(td->tg_event) ? td->tg_newtuple
												 : td->tg_trigtuple;
	e = DocmodelCopyRuleFor(td, 'f');
	doc = DocOf(td, newt);
	if (e->id == FanoutRule || doc == NULL || Frozen(e, doc))
	{
		SPI_finish();
		return PointerGetDatum(newt);
	}
	ParsePath(e->refpath, "path", &p);
	refs = RefsOf(doc, &p);
	if (refs.n == 0)
	{
		SPI_finish();
		return PointerGetDatum(newt);
	}
	if (TRIGGER_FIRED_BY_UPDATE(td->tg_event) &&
		(olddoc = DocOf(td, td->tg_trigtuple)) != NULL)
		oldrefs = RefsOf(olddoc, &p);
	DocmodelJsonTreeFromJsonb(doc, &root);
	{
		JsonPointer cp;

		ParsePath(e->path, "path", &cp);
		for (i = 0; i < refs.n; i++)
		{
			Datum args[1];
			bool known = false;
			bool isnull;
			int j;

			CHECK_FOR_INTERRUPTS();
			for (j = 0; j < oldrefs.n && !known; j++)
				known = strcmp(oldrefs.keys[j], refs.keys[i]) == 0;
			args[0] = CStringGetTextDatum(refs.keys[i]);
			/* not read-only: a snapshot taken now (READ COMMITTED) sees a
			 * rename committed while this row waited for its lock */
			DocmodelCopyRunAsOwner(e->plans[known ? 1 : 0], args, NULL, false,
								   1, e->source);
			if (SPI_processed == 1)
			{
				Datum s = SPI_getbinval(SPI_tuptable->vals[0],
										SPI_tuptable->tupdesc, 1, &isnull);
				JsonbValue v = CopiesOf(e->fields, DatumGetJsonbP(s));

				changed |= PutCopies(&root, &cp, e->ref, refs.keys[i], &v, 0);
			}
			else if (e->on_missing == 3)
				ereport(ERROR,
						(errcode(ERRCODE_FOREIGN_KEY_VIOLATION),
						 errmsg("document \"%s\" of %s is missing",
								refs.keys[i], get_rel_name(e->source)),
						 errdetail("Document \"%s\" of %s refers to it at "
								   "%s, and its copy rule refuses a missing "
								   "source.",
								   KeyOf(td, newt),
								   RelationGetRelationName(td->tg_relation),
								   e->path)));
			else if (e->on_missing != 0)
			{
				JsonbValue nulls = NullCopiesValue(e);

				changed |= PutCopies(&root, &cp, e->ref, refs.keys[i], &nulls,
									 e->on_missing == 1 ? 2 : 1);
			}
		}
	}
	if (changed)
		newt = WithDoc(td, newt, &root, caller);
	SPI_finish();
	return PointerGetDatum(newt);
}

/* The number at pointer s of doc (jsonb), as jsonb, or NULL. */
static Jsonb *
NumberAt(Jsonb *doc, const char *s)
{
	JsonbValue root;
	JsonbValue *v;

	if (doc == NULL)
		return NULL;
	DocmodelJsonTreeFromJsonb(doc, &root);
	v = ReadAt(&root, s, strlen(s));
	if (v == NULL || v->type != jbvNumeric)
		return NULL;
	return DocmodelJsonTreeToJsonb(v);
}

/* What document doc adds to a count (1) or a sum (its number, or 0). */
static Numeric
WeightOf(RulePlans *e, Jsonb *doc)
{
	JsonbValue root;
	JsonbValue *v;

	if (e->agg_ptr == NULL)
		return int64_to_numeric(1);
	DocmodelJsonTreeFromJsonb(doc, &root);
	v = ReadAt(&root, e->agg_ptr, strlen(e->agg_ptr));
	if (v == NULL || v->type != jbvNumeric)
		return int64_to_numeric(0);
	return v->val.numeric;
}

/*
 * Take the transaction lock of key of aggregate rule e. A new document of
 * the rule's collection takes it before it computes its aggregate, and a
 * write referring to a key no document has takes it and looks again: of a
 * document and the first one referring to it, written at once, whichever
 * commits first is seen by the other (under READ COMMITTED, where each
 * statement takes a new snapshot). An advisory lock whose tag the SQL
 * advisory lock functions never use (field4 3).
 */
static void
LockNewKey(RulePlans *e, const char *key)
{
	LOCKTAG tag;
	uint32 h =
		DatumGetUInt32(hash_any((const unsigned char *) key, strlen(key)));

	SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, (uint32) e->id, h, 3);
	(void) LockAcquire(&tag, ExclusiveLock, false, false);
}

/*
 * The BEFORE INSERT trigger of an aggregate rule on the collection holding
 * the aggregates: a new document gets the aggregate of the documents
 * already referring to its key.
 */
static Datum
AggregateOfNew(TriggerData *td)
{
	MemoryContext caller = CurrentMemoryContext;
	RulePlans *e = DocmodelCopyRuleFor(td, 'A');
	HeapTuple newt = td->tg_trigtuple;
	Jsonb *doc = DocOf(td, newt);
	char *key = KeyOf(td, newt);
	JsonPointer p;
	JsonbValue root;
	JsonbValue val;
	Datum args[1];
	bool isnull;
	Datum v;

	/* a document of another type than the rule's holds no aggregate */
	if (doc == NULL || key == NULL ||
		(e->doc_type != NULL &&
		 !DocmodelDocumentOfType(DocmodelCollectionOf(e->coll), key,
								 strlen(key), doc, e->doc_type)))
	{
		SPI_finish();
		return PointerGetDatum(newt);
	}
	args[0] = CStringGetTextDatum(key);
	LockNewKey(e, key);
	DocmodelCopyRunAsOwner(e->plans[2], args, NULL, false, 1, e->coll);
	if (SPI_processed != 1)
		ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
						errmsg("computing an aggregate failed")));
	v = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (isnull)
		val.type = jbvNull;
	else
		DocmodelJsonTreeFromJsonb(DatumGetJsonbP(v), &val);
	ParsePath(e->path, "path", &p);
	DocmodelJsonTreeFromJsonb(doc, &root);
	if (PutAt(&root, &p, &val))
		newt = WithDoc(td, newt, &root, caller);
	SPI_finish();
	return PointerGetDatum(newt);
}

/*
 * Whether an update of a referring document (olddoc to newdoc, its
 * references the same) leaves aggregate rule e's value as it was.
 */
static bool
SameWeight(RulePlans *e, TriggerData *td, Jsonb *olddoc, Jsonb *newdoc)
{
	bool same = strcmp(e->agg, "count") == 0;

	if (strcmp(e->agg, "keys") == 0)
		same = strcmp(KeyOf(td, td->tg_trigtuple),
					  KeyOf(td, td->tg_newtuple)) == 0;
	else if (e->agg_ptr != NULL)
	{
		Jsonb *a = NumberAt(olddoc, e->agg_ptr);
		Jsonb *b = NumberAt(newdoc, e->agg_ptr);

		same = (a == NULL && b == NULL) ||
			   (a != NULL && b != NULL && JsonbSame(a, b));
	}
	return same;
}

/*
 * A count or a sum changes by the difference (the weight of newdoc less
 * olddoc's, either NULL when the document does not refer to key): one
 * UPDATE of key (args[0]), whose row lock and re-check (READ COMMITTED) add
 * it to the latest version.
 */
static void
AddWeight(RulePlans *e, const char *key, Datum *args, Jsonb *olddoc,
		  Jsonb *newdoc)
{
	Numeric d = int64_to_numeric(0);

	if (newdoc != NULL)
		d = WeightOf(e, newdoc);
	if (olddoc != NULL)
		d = DatumGetNumeric(
			DirectFunctionCall2(numeric_sub, NumericGetDatum(d),
								NumericGetDatum(WeightOf(e, olddoc))));
	if (DatumGetBool(DirectFunctionCall2(numeric_eq, NumericGetDatum(d),
										 NumericGetDatum(int64_to_numeric(0)))))
		return;
	args[1] = NumericGetDatum(d);
	DocmodelCopyRunAsOwner(e->plans[3], args, NULL, false, 0, e->coll);
	if (SPI_processed == 0)
	{
		/* no such document: wait for one being inserted, look again */
		LockNewKey(e, key);
		DocmodelCopyRunAsOwner(e->plans[3], args, NULL, false, 0, e->coll);
	}
}

/*
 * _aggregate_trigger(rule): the AFTER row trigger of an aggregate rule on
 * the collection of the referring documents: every document a written
 * document refers to (before or after) whose aggregate may have changed is
 * updated, in key order: a count or a sum by the difference the write
 * makes; keys, min and max are computed again after the document is
 * locked, seeing every write committed before the lock was granted.
 */
Datum
copy_aggregate_trigger(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	RulePlans *e;
	HeapTuple oldt = NULL;
	HeapTuple newt = NULL;
	Jsonb *olddoc;
	Jsonb *newdoc;
	JsonPointer p;
	RefList oldrefs = {0, NULL};
	RefList newrefs = {0, NULL};
	char **keys;
	bool *in_old;
	bool *in_new;
	bool additive;
	int n = 0;
	int i;
	int j;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_FOR_ROW(td->tg_event) ||
		(TRIGGER_FIRED_BEFORE(td->tg_event) &&
		 !TRIGGER_FIRED_BY_INSERT(td->tg_event)))
		DocmodelTriggerMisuse("_aggregate_trigger",
							  "an aggregate rule's AFTER row trigger, or "
							  "its BEFORE INSERT row trigger");
	DocmodelCheckLayout(td->tg_relation, DOCMODEL_LAYOUT_COLLECTION);
	if (TRIGGER_FIRED_BEFORE(td->tg_event))
		return AggregateOfNew(td);
	DocmodelTriggerRows(td, &oldt, &newt);
	e = DocmodelCopyRuleFor(td, 'a');
	ParsePath(e->refpath, "path", &p);
	/* the references are the bodies' (as the index reads them); the
	 * weights the documents' (with their stamps when the pointer reads
	 * one) */
	if ((olddoc = SourceDocOf(e, td, oldt)) != NULL)
		oldrefs = RefsOf(DocOf(td, oldt), &p);
	if ((newdoc = SourceDocOf(e, td, newt)) != NULL)
		newrefs = RefsOf(DocOf(td, newt), &p);
	if (olddoc && newdoc && SameRefs(&oldrefs, &newrefs) &&
		SameWeight(e, td, olddoc, newdoc))
	{
		SPI_finish();
		return PointerGetDatum(NULL);
	}
	/* the union of both, sorted: documents are locked in key order */
	keys = palloc(sizeof(char *) * Max(oldrefs.n + newrefs.n, 1));
	in_old = palloc(sizeof(bool) * Max(oldrefs.n + newrefs.n, 1));
	in_new = palloc(sizeof(bool) * Max(oldrefs.n + newrefs.n, 1));
	additive = strcmp(e->agg, "count") == 0 || strncmp(e->agg, "sum:", 4) == 0;
	for (i = 0, j = 0; i < oldrefs.n || j < newrefs.n;)
	{
		int c = i == oldrefs.n   ? 1
				: j == newrefs.n ? -1
								 : strcmp(oldrefs.keys[i], newrefs.keys[j]);

		in_old[n] = c <= 0;
		in_new[n] = c >= 0;
		keys[n++] = c <= 0 ? oldrefs.keys[i] : newrefs.keys[j];
		if (c <= 0)
			i++;
		if (c >= 0)
			j++;
	}
	for (i = 0; i < n; i++)
	{
		Datum args[2];

		CHECK_FOR_INTERRUPTS();
		args[0] = CStringGetTextDatum(keys[i]);
		if (additive)
		{
			AddWeight(e, keys[i], args, in_old[i] ? olddoc : NULL,
					  in_new[i] ? newdoc : NULL);
			continue;
		}
		DocmodelCopyRunAsOwner(e->plans[0], args, NULL, false, 1, e->coll);
		if (SPI_processed == 0)
		{
			LockNewKey(e, keys[i]);
			DocmodelCopyRunAsOwner(e->plans[0], args, NULL, false, 1, e->coll);
		}
		if (SPI_processed == 0)
			continue; /* no such document */
		DocmodelCopyRunAsOwner(e->plans[1], args, NULL, false, 0, e->coll);
	}
	SPI_finish();
	return PointerGetDatum(NULL);
}
