/*-------------------------------------------------------------------------
 *
 * jsonschema/compile.c
 *	  One JSON Schema subschema compiled into a VNode: its keywords read by the
 *	  table of keywords (per dialect), numbers as numerics, patterns compiled
 *	  (pattern.c, regex.c), "$ref"s listed for schema.c to resolve, "$id"s
 *	  resolved to base URIs (RFC 3986) and indexed with the anchors. No state.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "common/hashfn.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "docmodel.h"
#include "json/pointer.h"
#include "json/tree.h"
#include "jsonschema/compile.h"

const char *const DocmodelSchemaTypeNames[7] = {
	"null", "boolean", "object", "array", "number", "string", "integer"};

/* A new NameIndex in the current memory context. */
HTAB *
DocmodelSchemaIndexCreate(const char *name)
{
	return DocmodelHash(name, 64, sizeof(uint32), sizeof(NameIndexEntry), false,
						CurrentMemoryContext);
}

/* Add item under name (not copied) to index. */
void
DocmodelSchemaIndexPut(HTAB *index, const char *name, void *item)
{
	uint32 h = hash_bytes((const unsigned char *) name, strlen(name));
	bool found;
	NameIndexEntry *e = hash_search(index, &h, HASH_ENTER, &found);
	NamedItem *ni = palloc(sizeof(NamedItem));

	if (!found)
		e->items = NIL;
	ni->name = name;
	ni->item = item;
	e->items = lappend(e->items, ni);
}

/* The first (or last) item added under name to index, or NULL. */
void *
DocmodelSchemaIndexGet(HTAB *index, const char *name, bool last)
{
	uint32 h = hash_bytes((const unsigned char *) name, strlen(name));
	NameIndexEntry *e = hash_search(index, &h, HASH_FIND, NULL);
	void *res = NULL;
	ListCell *lc;

	if (e == NULL)
		return NULL;
	foreach (lc, e->items)
	{
		NamedItem *ni = lfirst(lc);

		if (strcmp(ni->name, name) == 0)
		{
			res = ni->item;
			if (!last)
				break;
		}
	}
	return res;
}

/*
 * Return the first i (in order) whose item equals an earlier one, and that
 * one in *dup; -1 when the n items all differ. Items are hashed and only
 * those of equal hash compared: O(n) expected, where comparing every pair
 * would let a long array or list of names take minutes.
 */
int
DocmodelSchemaFirstDuplicate(void *items, int n,
							 uint32 (*hash)(void *items, int i),
							 bool (*equal)(void *items, int i, int j), int *dup)
{
	Size size = 16;
	int *slots;
	uint32 *hashes;
	int res = -1;
	int i;

	while (size < (Size) n * 2)
		size *= 2;
	slots = MemoryContextAllocHuge(CurrentMemoryContext, size * sizeof(int));
	memset(slots, -1, size * sizeof(int));
	hashes = MemoryContextAllocHuge(CurrentMemoryContext,
									Max(n, 1) * sizeof(uint32));
	for (i = 0; i < n && res < 0; i++)
	{
		Size k;

		CHECK_FOR_INTERRUPTS();
		hashes[i] = hash(items, i);
		for (k = hashes[i] & (size - 1); slots[k] >= 0;
			 k = (k + 1) & (size - 1))
			if (hashes[slots[k]] == hashes[i] && equal(items, slots[k], i))
			{
				*dup = slots[k];
				res = i;
				break;
			}
		if (res < 0)
			slots[k] = i;
	}
	pfree(slots);
	pfree(hashes);
	return res;
}

/* ---------------------------------------------------------------------
 * Compilation
 * ---------------------------------------------------------------------
 */

/* Return loc + "/" + token (escaped). */
static char *
LocAppend(const char *loc, const char *tok, int len)
{
	StringInfoData b;

	initStringInfo(&b);
	appendStringInfoString(&b, loc);
	DocmodelJsonPointerAppendToken(&b, tok, len);
	return b.data;
}

/* Return loc + "/" + an index. */
static char *
LocIndex(const char *loc, int i)
{
	return psprintf("%s/%d", loc, i);
}

void
pg_attribute_noreturn()
	DocmodelSchemaBadKeyword(const char *loc, const char *what)
{
	ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					errmsg("invalid JSON Schema at \"%s\": %s", loc, what)));
}

/* Return v as a number (22023 otherwise). */
static Numeric
KwNumber(JsonbValue *v, const char *loc)
{
	if (v->type != jbvNumeric)
		DocmodelSchemaBadKeyword(loc, "must be a number");
	return v->val.numeric;
}

/* Return v as a non-negative integer (2.0 counts), clamped to INT64. */
static int64
KwCount(JsonbValue *v, const char *loc)
{
	Numeric n;
	double d;

	if (v->type != jbvNumeric)
		DocmodelSchemaBadKeyword(loc, "must be a non-negative integer");
	n = v->val.numeric;
	d = DatumGetFloat8(
		DirectFunctionCall1(numeric_float8_no_overflow, NumericGetDatum(n)));
	if (d < 0 || d != floor(d))
		DocmodelSchemaBadKeyword(loc, "must be a non-negative integer");
	if (d >= (double) PG_INT64_MAX)
		return PG_INT64_MAX;
	return (int64) d;
}

static bool
KwBool(JsonbValue *v, const char *loc)
{
	if (v->type != jbvBool)
		DocmodelSchemaBadKeyword(loc, "must be a boolean");
	return v->val.boolean;
}

char *
DocmodelSchemaKwString(JsonbValue *v, const char *loc)
{
	if (v->type != jbvString)
		DocmodelSchemaBadKeyword(loc, "must be a string");
	return pnstrdup(v->val.string.val, v->val.string.len);
}

/*
 * Compile a pattern: ECMA-262's grammar (jsonschema/regex.c); what it cannot match
 * exactly is refused (0A000), never run with other semantics.
 */
static void
KwPatternCompile(CompileCtx *cc, VPattern *p, const char *src, int len,
				 const char *loc)
{
	EcmaStatus st;
	char *err;
	EcmaRegex *re = DocmodelRegexCompile(src, len, &st, &err);

	if (st == ECMA_UNSUPPORTED)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("JSON Schema at \"%s\": the pattern's %s is not "
						"supported",
						loc, err),
				 errdetail("Patterns are matched in linear time; "
						   "backreferences are refused rather than matched "
						   "otherwise.")));
	if (st == ECMA_TOO_LARGE)
		ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						errmsg("JSON Schema at \"%s\": %s", loc, err)));
	if (re == NULL)
		DocmodelSchemaBadKeyword(
			loc, psprintf("invalid regular expression: %s", err));
	p->re = re;
	p->src = pnstrdup(src, len);
	p->simple = DocmodelSchemaSimpleCompile(p->src);
}

/* Compile v (an array of schemas, at least one). */
static void
KwSchemaList(CompileCtx *cc, VList *l, JsonbValue *v, const char *loc)
{
	int i;

	if (v->type != jbvArray || v->val.array.nElems == 0)
		DocmodelSchemaBadKeyword(loc, "must be a non-empty array of schemas");
	l->n = v->val.array.nElems;
	l->s = palloc(sizeof(VNode *) * l->n);
	for (i = 0; i < l->n; i++)
		l->s[i] = DocmodelSchemaCompileNode(cc, &v->val.array.elems[i],
											LocIndex(loc, i));
}

int
DocmodelSchemaPropCmp(const void *a, const void *b)
{
	const VProp *pa = a;
	const VProp *pb = b;

	if (pa->len != pb->len)
		return pa->len < pb->len ? -1 : 1;
	return memcmp(pa->name, pb->name, pa->len);
}

/* Find name k (len bytes) in a sorted VProp array; see compile.h. */
VProp *
DocmodelSchemaFindProp(VProp *props, int n, const char *k, int len)
{
	VProp key;

	if (n == 0)
		return NULL;
	key.name = (char *) k;
	key.len = len;
	return bsearch(&key, props, n, sizeof(VProp), DocmodelSchemaPropCmp);
}

/* Compile v (an object of schemas) into *props, sorted by name. */
static int
KwSchemaMap(CompileCtx *cc, VProp **props, JsonbValue *v, const char *loc)
{
	int i;
	int n;

	if (v->type != jbvObject)
		DocmodelSchemaBadKeyword(loc, "must be an object of schemas");
	n = v->val.object.nPairs;
	*props = palloc0(sizeof(VProp) * Max(n, 1));
	for (i = 0; i < n; i++)
	{
		JsonbPair *p = &v->val.object.pairs[i];

		(*props)[i].name = p->key.val.string.val;
		(*props)[i].len = p->key.val.string.len;
		(*props)[i].schema = DocmodelSchemaCompileNode(
			cc, &p->value,
			LocAppend(loc, p->key.val.string.val, p->key.val.string.len));
	}
	qsort(*props, n, sizeof(VProp), DocmodelSchemaPropCmp);
	return n;
}

static uint32
NameHash(void *items, int i)
{
	VProp *prop = items;

	return hash_bytes((const unsigned char *) prop->names[i], prop->lens[i]);
}

static bool
NameEqual(void *items, int i, int j)
{
	VProp *prop = items;

	return prop->lens[i] == prop->lens[j] &&
		   memcmp(prop->names[i], prop->names[j], prop->lens[i]) == 0;
}

/* Read v, an array of distinct strings, into prop's names. */
static void
KwNames(VProp *prop, JsonbValue *v, const char *loc)
{
	int i;
	int j;

	if (v->type != jbvArray)
		DocmodelSchemaBadKeyword(loc, "must be an array of strings");
	prop->nnames = v->val.array.nElems;
	prop->names = palloc(sizeof(char *) * Max(prop->nnames, 1));
	prop->lens = palloc(sizeof(int) * Max(prop->nnames, 1));
	for (i = 0; i < prop->nnames; i++)
	{
		JsonbValue *e = &v->val.array.elems[i];

		if (e->type != jbvString)
			DocmodelSchemaBadKeyword(loc, "must be an array of strings");
		prop->names[i] = e->val.string.val;
		prop->lens[i] = e->val.string.len;
	}
	if (DocmodelSchemaFirstDuplicate(prop, prop->nnames, NameHash, NameEqual,
									 &j) >= 0)
		DocmodelSchemaBadKeyword(loc, "must not repeat a name");
}

/* Make v (a scalar or an expanded container) comparable to instances. */
static JsonbValue
ConstValue(JsonbValue *v)
{
	JsonbValue r;

	if (IsAJsonbScalar(v))
		return *v;
	else
	{
		Jsonb *jb = JsonbValueToJsonb(v);

		r.type = jbvBinary;
		r.val.binary.data = &jb->root;
		r.val.binary.len = VARSIZE(jb) - VARHDRSZ;
		return r;
	}
}

/* Handlers of keywords: compile value v of keyword kw at loc into n. */
typedef void (*KwCompile)(CompileCtx *cc, VNode *n, const char *kw,
						  JsonbValue *v, const char *loc);

static void
KwType(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v, const char *loc)
{
	int nv = v->type == jbvArray ? v->val.array.nElems : 1;
	int i;
	int t;

	if (v->type != jbvArray && v->type != jbvString)
		DocmodelSchemaBadKeyword(loc,
								 "must be a type name or an array of them");
	for (i = 0; i < nv; i++)
	{
		JsonbValue *e = v->type == jbvArray ? &v->val.array.elems[i] : v;

		if (e->type != jbvString)
			DocmodelSchemaBadKeyword(loc,
									 "must be a type name or an array of them");
		for (t = 0; t < lengthof(DocmodelSchemaTypeNames); t++)
			if (strlen(DocmodelSchemaTypeNames[t]) == e->val.string.len &&
				memcmp(DocmodelSchemaTypeNames[t], e->val.string.val,
					   e->val.string.len) == 0)
				break;
		if (t == lengthof(DocmodelSchemaTypeNames))
			DocmodelSchemaBadKeyword(loc, psprintf("unknown type \"%.*s\"",
												   e->val.string.len,
												   e->val.string.val));
		n->types |= 1 << t;
	}
}

static void
KwEnum(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v, const char *loc)
{
	int i;

	if (v->type != jbvArray)
		DocmodelSchemaBadKeyword(loc, "must be an array");
	n->nenum = v->val.array.nElems;
	n->enums = palloc(sizeof(JsonbValue) * Max(n->nenum, 1));
	for (i = 0; i < n->nenum; i++)
	{
		CHECK_FOR_INTERRUPTS();
		n->enums[i] = ConstValue(&v->val.array.elems[i]);
	}
}

static void
KwConst(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
		const char *loc)
{
	n->has_const = true;
	n->constv = ConstValue(v);
}

static void
KwNumeric(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
		  const char *loc)
{
	Numeric x = KwNumber(v, loc);

	if (strcmp(kw, "multipleOf") == 0)
	{
		if (SchemaNumCmp(x, int64_to_numeric(0)) <= 0)
			DocmodelSchemaBadKeyword(loc, "must be greater than 0");
		n->multiple_of = x;
	}
	else if (strcmp(kw, "minimum") == 0)
		n->minimum = x;
	else if (strcmp(kw, "maximum") == 0)
		n->maximum = x;
	else if (strcmp(kw, "exclusiveMinimum") == 0)
		n->xminimum = x;
	else
		n->xmaximum = x;
}

static void
KwCountKw(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
		  const char *loc)
{
	int64 c = KwCount(v, loc);

	if (strcmp(kw, "minLength") == 0)
		n->min_length = c;
	else if (strcmp(kw, "maxLength") == 0)
		n->max_length = c;
	else if (strcmp(kw, "minItems") == 0)
		n->min_items = c;
	else if (strcmp(kw, "maxItems") == 0)
		n->max_items = c;
	else if (strcmp(kw, "minContains") == 0)
		n->min_contains = c;
	else if (strcmp(kw, "maxContains") == 0)
		n->max_contains = c;
	else if (strcmp(kw, "minProperties") == 0)
		n->min_props = c;
	else
		n->max_props = c;
}

static void
KwPattern(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
		  const char *loc)
{
	if (v->type != jbvString)
		DocmodelSchemaBadKeyword(loc, "must be a string");
	KwPatternCompile(cc, &n->pattern, v->val.string.val, v->val.string.len,
					 loc);
}

static void
KwUnique(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
		 const char *loc)
{
	n->unique = KwBool(v, loc);
}

/* A keyword whose value is one schema. */
static void
KwSchema(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
		 const char *loc)
{
	VNode *s = DocmodelSchemaCompileNode(cc, v, loc);

	if (strcmp(kw, "contains") == 0)
		n->contains = s;
	else if (strcmp(kw, "unevaluatedProperties") == 0)
		n->uneval_props = s;
	else if (strcmp(kw, "unevaluatedItems") == 0)
		n->uneval_items = s;
	else if (strcmp(kw, "not") == 0)
		n->not = s;
	else if (strcmp(kw, "if") == 0)
		n->if_ = s;
	else if (strcmp(kw, "then") == 0)
		n->then_ = s;
	else if (strcmp(kw, "else") == 0)
		n->else_ = s;
	else if (strcmp(kw, "propertyNames") == 0)
		n->property_names = s;
	else if (strcmp(kw, "additionalProperties") == 0)
		n->additional = s;
	else if (strcmp(kw, "items") == 0)
	{
		n->items = s;
		n->items_kw = "items";
	}
	else
		elog(ERROR, "unexpected schema keyword %s", kw);
}

static void
KwItems(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
		const char *loc)
{
	if ((cc->draft7 || cc->d2019) && v->type == jbvArray)
	{
		int i;

		/* draft-07's (and 2019-09's) array form: the prefix (an empty array allowed) */
		n->prefix.n = v->val.array.nElems;
		n->prefix.s = palloc(sizeof(VNode *) * Max(n->prefix.n, 1));
		for (i = 0; i < n->prefix.n; i++)
			n->prefix.s[i] = DocmodelSchemaCompileNode(
				cc, &v->val.array.elems[i], LocIndex(loc, i));
		n->items_array = true;
		return;
	}
	n->items = DocmodelSchemaCompileNode(cc, v, loc);
	n->items_kw = "items";
}

static void
KwAdditionalItems(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
				  const char *loc)
{
	VNode *s = DocmodelSchemaCompileNode(cc, v, loc);

	/* jsonb puts "items" first; additionalItems follows an items array only */
	if (!n->items_array)
		return;
	n->items = s;
	n->items_kw = "additionalItems";
}

static void
KwPrefixItems(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
			  const char *loc)
{
	KwSchemaList(cc, &n->prefix, v, loc);
}

static void
KwProperties(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
			 const char *loc)
{
	n->nprops = KwSchemaMap(cc, &n->props, v, loc);
}

static void
KwPatternProperties(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
					const char *loc)
{
	int i;

	if (v->type != jbvObject)
		DocmodelSchemaBadKeyword(loc, "must be an object of schemas");
	n->npatterns = v->val.object.nPairs;
	n->patterns = palloc0(sizeof(VPattern) * Max(n->npatterns, 1));
	for (i = 0; i < n->npatterns; i++)
	{
		JsonbPair *p = &v->val.object.pairs[i];
		char *ploc =
			LocAppend(loc, p->key.val.string.val, p->key.val.string.len);

		KwPatternCompile(cc, &n->patterns[i], p->key.val.string.val,
						 p->key.val.string.len, ploc);
		n->patterns[i].schema = DocmodelSchemaCompileNode(cc, &p->value, ploc);
	}
}

static void
KwRequired(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
		   const char *loc)
{
	VProp p;
	int i;

	KwNames(&p, v, loc);
	n->nrequired = p.nnames;
	n->required = palloc0(sizeof(VProp) * Max(p.nnames, 1));
	for (i = 0; i < p.nnames; i++)
	{
		n->required[i].name = p.names[i];
		n->required[i].len = p.lens[i];
	}
}

static void
KwDependentRequired(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
					const char *loc)
{
	int i;
	VProp *d;

	if (v->type != jbvObject)
		DocmodelSchemaBadKeyword(loc, "must be an object of string arrays");
	/* after the entries of draft-07's dependencies, if any */
	d = palloc0(sizeof(VProp) * (n->ndep_required + v->val.object.nPairs + 1));
	if (n->ndep_required > 0)
		memcpy(d, n->dep_required, sizeof(VProp) * n->ndep_required);
	n->dep_required = d;
	n->dep_required_kw = kw;
	for (i = 0; i < v->val.object.nPairs; i++)
	{
		JsonbPair *p = &v->val.object.pairs[i];

		d = &n->dep_required[n->ndep_required++];
		d->name = p->key.val.string.val;
		d->len = p->key.val.string.len;
		KwNames(d, &p->value,
				LocAppend(loc, p->key.val.string.val, p->key.val.string.len));
	}
}

static void
KwDependentSchemas(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
				   const char *loc)
{
	VProp *m;
	int nm = KwSchemaMap(cc, &m, v, loc);

	/* after the entries of draft-07's dependencies, if any */
	if (n->ndep_schemas > 0)
	{
		VProp *d = palloc0(sizeof(VProp) * (n->ndep_schemas + nm + 1));

		memcpy(d, n->dep_schemas, sizeof(VProp) * n->ndep_schemas);
		memcpy(d + n->ndep_schemas, m, sizeof(VProp) * nm);
		m = d;
		nm += n->ndep_schemas;
	}
	n->dep_schemas = m;
	n->ndep_schemas = nm;
	n->dep_schemas_kw = kw;
}

/*
 * draft-07's dependencies: arrays are dependentRequired, others schemas. Also
 * read in 2019-09 and 2020-12, as their optional tests expect; it is the
 * shorter key, so it comes before dependentRequired and dependentSchemas,
 * which add to its entries.
 */
static void
KwDependencies(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
			   const char *loc)
{
	int i;

	if (v->type != jbvObject)
		DocmodelSchemaBadKeyword(loc, "must be an object");
	n->dep_required = palloc0(sizeof(VProp) * Max(v->val.object.nPairs, 1));
	n->dep_schemas = palloc0(sizeof(VProp) * Max(v->val.object.nPairs, 1));
	n->dep_required_kw = n->dep_schemas_kw = kw;
	for (i = 0; i < v->val.object.nPairs; i++)
	{
		JsonbPair *p = &v->val.object.pairs[i];
		char *ploc =
			LocAppend(loc, p->key.val.string.val, p->key.val.string.len);
		VProp *d;

		if (p->value.type == jbvArray)
		{
			d = &n->dep_required[n->ndep_required++];
			KwNames(d, &p->value, ploc);
		}
		else
		{
			d = &n->dep_schemas[n->ndep_schemas++];
			d->schema = DocmodelSchemaCompileNode(cc, &p->value, ploc);
		}
		d->name = p->key.val.string.val;
		d->len = p->key.val.string.len;
	}
	n->ndep_required_d7 = n->ndep_required;
}

static void
KwApplicatorList(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
				 const char *loc)
{
	if (strcmp(kw, "allOf") == 0)
		KwSchemaList(cc, &n->all_of, v, loc);
	else if (strcmp(kw, "anyOf") == 0)
		KwSchemaList(cc, &n->any_of, v, loc);
	else
		KwSchemaList(cc, &n->one_of, v, loc);
}

/* $defs, definitions: compiled so that errors show now and refs find them. */
static void
KwDefs(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v, const char *loc)
{
	VProp *defs;

	KwSchemaMap(cc, &defs, v, loc);
}

static void
KwRef(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v, const char *loc)
{
	RefFix *f = palloc(sizeof(RefFix));

	f->from = n;
	f->dynamic = strcmp(kw, "$ref") != 0;
	if (f->dynamic)
		n->dref_kw = kw;
	f->recursive = strcmp(kw, "$recursiveRef") == 0;
	f->ref = DocmodelSchemaKwString(v, loc);
	f->base = cc->base;
	f->loc = pstrdup(loc);
	n->ref_text = f->ref;
	cc->pending = lappend(cc->pending, f);
}

static void
AddAnchor(CompileCtx *cc, VNode *n, char *name)
{
	Anchor *a = palloc(sizeof(Anchor));

	a->base = cc->base;
	a->name = name;
	a->node = n;
	DocmodelSchemaIndexPut(cc->anchors, psprintf("%s#%s", a->base, a->name), a);
}

static void
KwAnchor(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
		 const char *loc)
{
	AddAnchor(cc, n, DocmodelSchemaKwString(v, loc));
}

/* $dynamicAnchor: an anchor, and a target $dynamicRef may find by scope. */
static void
KwDynamicAnchor(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
				const char *loc)
{
	Anchor *a = palloc(sizeof(Anchor));

	AddAnchor(cc, n, DocmodelSchemaKwString(v, loc));
	a->base = cc->base;
	a->name = DocmodelSchemaKwString(v, loc);
	a->node = n;
	cc->dyn_anchors = lappend(cc->dyn_anchors, a);
}

/* 2019-09's $recursiveAnchor: true makes its resource a target by scope. */
static void
KwRecursiveAnchor(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
				  const char *loc)
{
	Anchor *a;

	if (!KwBool(v, loc))
		return;
	a = palloc(sizeof(Anchor));
	a->base = cc->base;
	a->name = "";
	a->node = n;
	cc->dyn_anchors = lappend(cc->dyn_anchors, a);
}

static void
KwId(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v, const char *loc)
{
	char *id = DocmodelSchemaKwString(v, loc);

	/* a new base URI is taken by DocmodelSchemaCompileNode, before the keywords */
	if (cc->draft7 && id[0] == '#')
		AddAnchor(cc, n, id + 1); /* draft-07's plain-name fragment */
}

static void
KwFormat(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
		 const char *loc)
{
	int f;

	if (v->type != jbvString)
		DocmodelSchemaBadKeyword(loc, "must be a string");
	if (cc->format_annotation)
		return;
	for (f = 1; f < lengthof(DocmodelSchemaFormatNames); f++)
		if (strlen(DocmodelSchemaFormatNames[f]) == v->val.string.len &&
			memcmp(DocmodelSchemaFormatNames[f], v->val.string.val,
				   v->val.string.len) == 0)
			n->format = f;
}

/* Known keywords; D7/D19/D20: the dialects where one applies. */
#define D7 1
#define D20 2
#define D19 4
#define D1920 (D19 | D20)
#define DALL (D7 | D19 | D20)

typedef struct Keyword
{
	const char *name;
	int dialects;
	KwCompile fn; /* NULL: an annotation, or the dialect's identifier */
} Keyword;

static const Keyword Keywords[] = {
	{"$anchor", D1920, KwAnchor},
	{"$comment", DALL, NULL},
	{"$defs", D1920, KwDefs},
	{"$dynamicAnchor", D20, KwDynamicAnchor},
	{"$dynamicRef", D20, KwRef},
	{"$id", DALL, KwId},
	{"$recursiveAnchor", D19, KwRecursiveAnchor},
	{"$recursiveRef", D19, KwRef},
	{"$ref", DALL, KwRef},
	{"$schema", DALL, NULL},
	{"$vocabulary", D1920, NULL},
	{"additionalItems", D7 | D19, KwAdditionalItems},
	{"additionalProperties", DALL, KwSchema},
	{"allOf", DALL, KwApplicatorList},
	{"anyOf", DALL, KwApplicatorList},
	{"const", DALL, KwConst},
	{"contains", DALL, KwSchema},
	{"contentEncoding", DALL, NULL},
	{"contentMediaType", DALL, NULL},
	{"contentSchema", D1920, NULL},
	{"default", DALL, NULL},
	{"definitions", D7, KwDefs},
	{"dependencies", DALL, KwDependencies},
	{"dependentRequired", D1920, KwDependentRequired},
	{"dependentSchemas", D1920, KwDependentSchemas},
	{"deprecated", D1920, NULL},
	{"description", DALL, NULL},
	{"else", DALL, KwSchema},
	{"enum", DALL, KwEnum},
	{"examples", DALL, NULL},
	{"exclusiveMaximum", DALL, KwNumeric},
	{"exclusiveMinimum", DALL, KwNumeric},
	{"format", DALL, KwFormat},
	{"if", DALL, KwSchema},
	{"items", DALL, KwItems},
	{"maxContains", D1920, KwCountKw},
	{"maxItems", DALL, KwCountKw},
	{"maxLength", DALL, KwCountKw},
	{"maxProperties", DALL, KwCountKw},
	{"maximum", DALL, KwNumeric},
	{"minContains", D1920, KwCountKw},
	{"minItems", DALL, KwCountKw},
	{"minLength", DALL, KwCountKw},
	{"minProperties", DALL, KwCountKw},
	{"minimum", DALL, KwNumeric},
	{"multipleOf", DALL, KwNumeric},
	{"not", DALL, KwSchema},
	{"oneOf", DALL, KwApplicatorList},
	{"pattern", DALL, KwPattern},
	{"patternProperties", DALL, KwPatternProperties},
	{"prefixItems", D20, KwPrefixItems},
	{"properties", DALL, KwProperties},
	{"propertyNames", DALL, KwSchema},
	{"readOnly", DALL, NULL},
	{"required", DALL, KwRequired},
	{"then", DALL, KwSchema},
	{"title", DALL, NULL},
	{"type", DALL, KwType},
	{"unevaluatedItems", D1920, KwSchema},
	{"unevaluatedProperties", D1920, KwSchema},
	{"uniqueItems", DALL, KwUnique},
	{"writeOnly", DALL, NULL},
};

/*
 * Tell whether a and b are one edit apart (a letter added, removed, changed,
 * or two neighbours swapped), case aside.
 */
static bool
OneEditApart(const char *a, int la, const char *b, int lb)
{
	int i = 0;

	if (abs(la - lb) > 1)
		return false;
	while (i < la && i < lb && pg_ascii_tolower(a[i]) == pg_ascii_tolower(b[i]))
		i++;
	if (i == la && i == lb)
		return true; /* only case differs */
	if (la == lb)
	{
		/* a change, or a swap of i and i + 1 */
		if (pg_strncasecmp(a + i + 1, b + i + 1, la - i - 1) == 0)
			return true;
		return i + 1 < la &&
			   pg_ascii_tolower(a[i]) == pg_ascii_tolower(b[i + 1]) &&
			   pg_ascii_tolower(a[i + 1]) == pg_ascii_tolower(b[i]) &&
			   pg_strncasecmp(a + i + 2, b + i + 2, la - i - 2) == 0;
	}
	if (la > lb)
		return pg_strncasecmp(a + i + 1, b + i, lb - i) == 0;
	return pg_strncasecmp(a + i, b + i + 1, la - i) == 0;
}

/* Find keyword k; refuse an unknown one spelled like a known one. */
static const Keyword *
LookupKeyword(const char *k, int len, const char *loc)
{
	int lo = 0;
	int hi = lengthof(Keywords) - 1;
	int i;

	while (lo <= hi)
	{
		int mid = (lo + hi) / 2;
		int c = strncmp(Keywords[mid].name, k, len);

		if (c == 0 && Keywords[mid].name[len] != '\0')
			c = 1;
		if (c == 0)
			return &Keywords[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	for (i = 0; i < lengthof(Keywords); i++)
	{
		int kl = strlen(Keywords[i].name);

		if (len >= 4 && OneEditApart(Keywords[i].name, kl, k, len))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid JSON Schema at \"%s\": unknown keyword "
							"\"%.*s\"",
							LocAppend(loc, k, len), len, k),
					 errhint("Did you mean \"%s\"?", Keywords[i].name)));
	}
	return NULL;
}

/* The parts of a URI reference (RFC 3986); NULL where absent. */
typedef struct UriParts
{
	char *scheme;
	char *authority;
	char *path; /* never NULL */
	char *query;
} UriParts;

/* Split s (without a fragment) into *u. */
static void
UriSplit(const char *s, UriParts *u)
{
	const char *p = s;
	const char *q;

	memset(u, 0, sizeof(*u));
	while (isalnum((unsigned char) *p) || *p == '+' || *p == '-' || *p == '.')
		p++;
	if (*p == ':' && p > s && isalpha((unsigned char) *s))
	{
		u->scheme = pnstrdup(s, p - s);
		s = p + 1;
	}
	if (s[0] == '/' && s[1] == '/')
	{
		p = s + 2 + strcspn(s + 2, "/?");
		u->authority = pnstrdup(s + 2, p - s - 2);
		s = p;
	}
	q = strchr(s, '?');
	u->path = q ? pnstrdup(s, q - s) : pstrdup(s);
	u->query = q ? pstrdup(q + 1) : NULL;
}

/* RFC 3986's remove_dot_segments. */
static char *
UriRemoveDots(const char *in)
{
	StringInfoData out;

	initStringInfo(&out);
	while (*in)
	{
		if (strncmp(in, "../", 3) == 0 || strncmp(in, "./", 2) == 0)
			in += in[0] == '.' && in[1] == '.' ? 3 : 2;
		else if (strncmp(in, "/./", 3) == 0 || strcmp(in, "/.") == 0)
			in = in[2] ? in + 2 : "/";
		else if (strncmp(in, "/../", 4) == 0 || strcmp(in, "/..") == 0)
		{
			char *slash = strrchr(out.data, '/');

			out.len = slash ? slash - out.data : 0;
			out.data[out.len] = '\0';
			in = in[3] ? in + 3 : "/";
		}
		else if (strcmp(in, ".") == 0 || strcmp(in, "..") == 0)
			break;
		else
		{
			int n = 1 + strcspn(in + 1, "/");

			appendBinaryStringInfo(&out, in, n);
			in += n;
		}
	}
	return out.data;
}

/*
 * Resolve the URI reference ref (without a fragment) against base (RFC
 * 3986, 5.2): the URI of an "$id" or a "$ref" in its schema resource.
 */
char *
DocmodelSchemaUriResolve(const char *base, const char *ref)
{
	UriParts b;
	UriParts r;
	UriParts t;
	StringInfoData out;

	UriSplit(ref, &r);
	UriSplit(base, &b);
	t = r;
	if (r.scheme == NULL)
	{
		t.scheme = b.scheme;
		if (r.authority == NULL)
		{
			t.authority = b.authority;
			if (r.path[0] == '\0')
			{
				t.path = b.path;
				t.query = r.query ? r.query : b.query;
			}
			else if (r.path[0] != '/')
			{
				char *slash = strrchr(b.path, '/');

				t.path = b.authority && b.path[0] == '\0'
							 ? psprintf("/%s", r.path)
							 : psprintf("%.*s%s",
										slash ? (int) (slash - b.path) + 1 : 0,
										b.path, r.path);
			}
		}
	}
	if (t.path != b.path || r.scheme != NULL)
		t.path = UriRemoveDots(t.path);
	initStringInfo(&out);
	if (t.scheme)
		appendStringInfo(&out, "%s:", t.scheme);
	if (t.authority)
		appendStringInfo(&out, "//%s", t.authority);
	appendStringInfoString(&out, t.path);
	if (t.query)
		appendStringInfo(&out, "?%s", t.query);
	return out.data;
}

/* Compile the schema v found at loc. */
VNode *
DocmodelSchemaCompileNode(CompileCtx *cc, JsonbValue *v, const char *loc)
{
	VNode *n;
	int i;
	int dialect = cc->draft7 ? D7 : cc->d2019 ? D19 : D20;
	bool ref_only = false;
	char *base = cc->base;
	char *base_loc = cc->base_loc;

	check_stack_depth();
	CHECK_FOR_INTERRUPTS();
	n = palloc0(sizeof(VNode));
	n->loc = pstrdup(loc);
	n->draft7 = cc->draft7;
	n->nenum = -1;
	n->min_length = n->max_length = n->min_items = n->max_items = -1;
	n->min_contains = n->max_contains = n->min_props = n->max_props = -1;
	cc->nodes = lappend(cc->nodes, n);
	DocmodelSchemaIndexPut(cc->locs, n->loc, n);
	if (v->type == jbvBool)
	{
		n->boolean = v->val.boolean ? 1 : 0;
		return n;
	}
	n->boolean = -1;
	if (v->type != jbvObject)
		DocmodelSchemaBadKeyword(loc[0] ? loc : "/",
								 "a schema must be an object or a boolean");

	/* draft-07: "$ref" makes its siblings ignored */
	if (cc->draft7)
		for (i = 0; i < v->val.object.nPairs; i++)
			if (v->val.object.pairs[i].key.val.string.len == 4 &&
				memcmp(v->val.object.pairs[i].key.val.string.val, "$ref", 4) ==
					0)
				ref_only = true;
	/* an "$id" starts a resource: its URI is the base of what it holds */
	i = DocmodelJsonTreeFindMember(v, "$id", 3);
	if (!ref_only && i >= 0 && v->val.object.pairs[i].value.type == jbvString &&
		v->val.object.pairs[i].value.val.string.val[0] != '#')
	{
		JsonbValue *id = &v->val.object.pairs[i].value;
		const char *h = memchr(id->val.string.val, '#', id->val.string.len);
		Resource *r = palloc(sizeof(Resource));

		r->uri = DocmodelSchemaUriResolve(
			cc->base, pnstrdup(id->val.string.val, h ? h - id->val.string.val
													 : id->val.string.len));
		r->loc = n->loc;
		DocmodelSchemaIndexPut(cc->resources, r->uri, r);
		cc->base = r->uri;
		cc->base_loc = r->loc;
	}
	n->res_uri = cc->base;
	n->res_loc = cc->base_loc ? cc->base_loc : "";

	for (i = 0; i < v->val.object.nPairs; i++)
	{
		JsonbPair *p = &v->val.object.pairs[i];
		const char *k = p->key.val.string.val;
		int klen = p->key.val.string.len;
		const Keyword *kw;

		if (ref_only && !(klen == 4 && memcmp(k, "$ref", 4) == 0))
			continue;
		kw = LookupKeyword(k, klen, loc);
		if (kw == NULL || kw->fn == NULL || !(kw->dialects & dialect))
			continue; /* an annotation, or not a keyword of this dialect */
		kw->fn(cc, n, kw->name, &p->value, LocAppend(loc, k, klen));
	}
	if (n->nrequired > 0 && n->nprops > 0)
	{
		/* a required property is found by the pass that finds properties */
		n->req_prop = palloc(sizeof(int) * n->nrequired);
		for (i = 0; i < n->nrequired; i++)
		{
			VProp *rp = DocmodelSchemaFindProp(
				n->props, n->nprops, n->required[i].name, n->required[i].len);

			n->req_prop[i] = rp ? (int) (rp - n->props) : -1;
		}
	}
	cc->base = base;
	cc->base_loc = base_loc;
	return n;
}
