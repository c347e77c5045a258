/*-------------------------------------------------------------------------
 *
 * jsonschema/run.c
 *	  A compiled JSON Schema (compile.h's VNodes) run over jsonb: the keywords
 *	  of each node in turn, the annotations unevaluatedProperties and
 *	  unevaluatedItems read, the dynamic scope kept where a schema reads it,
 *	  every violation listed with its instance path and schema path (JSON
 *	  Pointers, formatted by json/pointer.c), or a stop at the first.
 *
 *	  State: a counter of validations (ValidateRuns), backend-local.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/numeric.h"

#include "json/pointer.h"
#include "json/tree.h"
#include "jsonschema/run.h"

typedef struct VCtx
{
	bool collect; /* list violations (false: stop at the first) */
	List **errors;
	int max_errors;
	int nerrors;
	StringInfoData ipath; /* instance path of the value being checked */
	uint64 run;           /* this validation (VNode.active_run) */
	bool dynamic;         /* keep the dynamic scope */
	const char **scope;   /* the resources entered, outermost first */
	int nscope;
	int scope_cap;
	struct RefHop *hops; /* the references being followed, innermost first */
	bool output;         /* Report: the "basic" output's locations too */
	VNode *entered;      /* ValidateWatched has entered this node */
} VCtx;

static uint64 ValidateRuns = 0;

/* A reference being followed: from n's keyword kw to its target. */
typedef struct RefHop
{
	VNode *from;
	VNode *to;
	const char *kw;
	struct RefHop *up;
} RefHop;

static bool ValidateNode(VCtx *cx, VNode *n, JsonbValue *v);
static VNode *DynamicTarget(VCtx *cx, VNode *n);

static void pg_attribute_printf(4, 5)
	Report(VCtx *cx, VNode *n, const char *kw, const char *fmt, ...)
{
	DocmodelViolation *e;
	StringInfoData msg;
	StringInfoData sp;

	if (cx->max_errors > 0 && cx->nerrors >= cx->max_errors)
		return;
	cx->nerrors++;
	initStringInfo(&msg);
	for (;;)
	{
		va_list args;
		int needed;

		va_start(args, fmt);
		needed = appendStringInfoVA(&msg, fmt, args);
		va_end(args);
		if (needed == 0)
			break;
		enlargeStringInfo(&msg, needed);
	}
	initStringInfo(&sp);
	appendStringInfoString(&sp, n->loc);
	if (kw != NULL)
		DocmodelJsonPointerAppendToken(&sp, kw, strlen(kw));
	e = palloc0(sizeof(DocmodelViolation));
	e->path = pstrdup(cx->ipath.data);
	e->schema_path = sp.data;
	e->message = msg.data;
	if (cx->output)
	{
		StringInfoData kl;
		RefHop *h;
		int nh = 0;
		int i;
		RefHop **hv;
		const char *start = "";

		/* the path taken: each reference's keyword, from the root */
		for (h = cx->hops; h; h = h->up)
			nh++;
		hv = palloc(sizeof(RefHop *) * Max(nh, 1));
		for (h = cx->hops, i = nh - 1; h; h = h->up, i--)
			hv[i] = h;
		initStringInfo(&kl);
		for (i = 0; i < nh; i++)
		{
			const char *from = hv[i]->from->loc;

			if (strncmp(from, start, strlen(start)) == 0)
				from += strlen(start);
			appendStringInfoString(&kl, from);
			DocmodelJsonPointerAppendToken(&kl, hv[i]->kw, strlen(hv[i]->kw));
			start = hv[i]->to->loc;
		}
		appendStringInfoString(&kl, strncmp(sp.data, start, strlen(start)) == 0
										? sp.data + strlen(start)
										: sp.data);
		e->keyword_location = kl.data;
		if (n->res_uri && n->res_uri[0] &&
			strncmp(sp.data, n->res_loc, strlen(n->res_loc)) == 0)
			e->absolute_location =
				psprintf("%s#%s", n->res_uri, sp.data + strlen(n->res_loc));
	}
	*cx->errors = lappend(*cx->errors, e);
}

/* Record a violation of n's keyword kw, or stop at the first. */
/* A check of a subschema: ok false when it fails, stop unless collecting. */
#define CHECK(passed)         \
	do                        \
	{                         \
		if (!(passed))        \
		{                     \
			ok = false;       \
			if (!cx->collect) \
				return false; \
		}                     \
	} while (0)

#define FAIL(cx, n, kw, ...)                  \
	do                                        \
	{                                         \
		if (!(cx)->collect)                   \
			return false;                     \
		Report((cx), (n), (kw), __VA_ARGS__); \
		ok = false;                           \
	} while (0)

static char *
NumText(Numeric n)
{
	return DatumGetCString(
		DirectFunctionCall1(numeric_out, NumericGetDatum(n)));
}

static bool
NumIsIntegral(Numeric n)
{
	Datum f;

	if (numeric_is_nan(n) || numeric_is_inf(n))
		return false;
	if (DatumGetInt32(DirectFunctionCall1(numeric_scale, NumericGetDatum(n))) ==
		0)
		return true; /* no digits after the point */
	f = DirectFunctionCall1(numeric_floor, NumericGetDatum(n));
	return SchemaNumCmp(DatumGetNumeric(f), n) == 0;
}

static int
TypeOf(JsonbValue *v)
{
	switch (v->type)
	{
		case jbvNull:
			return T_NULL;
		case jbvBool:
			return T_BOOLEAN;
		case jbvString:
			return T_STRING;
		case jbvNumeric:
			return T_NUMBER;
		case jbvBinary:
			return JsonContainerIsObject(v->val.binary.data) ? T_OBJECT
															 : T_ARRAY;
		default:
			return T_OBJECT;
	}
}

/* Run n over v without listing violations. */
static bool
Quietly(VCtx *cx, VNode *n, JsonbValue *v)
{
	bool saved = cx->collect;
	bool ok;

	cx->collect = false;
	ok = ValidateNode(cx, n, v);
	cx->collect = saved;
	return ok;
}

/* Push a member name / index onto the instance path; return the old length. */
static int
PushKey(VCtx *cx, const char *k, int len)
{
	int old = cx->ipath.len;

	if (cx->collect)
		DocmodelJsonPointerAppendToken(&cx->ipath, k, len);
	return old;
}

static int
PushIndex(VCtx *cx, int i)
{
	int old = cx->ipath.len;

	if (cx->collect)
		appendStringInfo(&cx->ipath, "/%d", i);
	return old;
}

static void
Pop(VCtx *cx, int old)
{
	if (cx->ipath.data == NULL)
		return; /* not collecting: no path kept */
	cx->ipath.len = old;
	cx->ipath.data[old] = '\0';
}

/*
 * Check count (characters, items or properties) against the bounds min and
 * max (-1: absent) of n's keywords minkw and maxkw: "must <verb> at least
 * <min> <what>, not <count>".
 */
static pg_attribute_always_inline bool
ValidateCount(VCtx *cx, VNode *n, int count, int64 min, int64 max,
			  const char *minkw, const char *maxkw, const char *verb,
			  const char *what)
{
	bool ok = true;

	if (min >= 0 && count < min)
		FAIL(cx, n, minkw, "must %s at least " INT64_FORMAT " %s, not %d", verb,
			 min, what, count);
	if (max >= 0 && count > max)
		FAIL(cx, n, maxkw, "must %s at most " INT64_FORMAT " %s, not %d", verb,
			 max, what, count);
	return ok;
}

static bool
ValidateString(VCtx *cx, VNode *n, JsonbValue *v)
{
	bool ok = true;
	const char *s = v->val.string.val;
	int len = v->val.string.len;

	/*
	 * A string has between len / (the encoding's longest character) and len
	 * characters: they are counted only when that does not decide.
	 */
	if ((n->max_length >= 0 && len > n->max_length) ||
		(n->min_length >= 0 && (len + pg_database_encoding_max_length() - 1) /
									   pg_database_encoding_max_length() <
								   n->min_length))
		CHECK(ValidateCount(cx, n, pg_mbstrlen_with_len(s, len), n->min_length,
							n->max_length, "minLength", "maxLength", "be",
							"characters long"));
	if (n->pattern.re != NULL &&
		!DocmodelSchemaPatternMatches(n->pattern.simple, n->pattern.re, s, len))
		FAIL(cx, n, "pattern", "must match the pattern \"%s\"", n->pattern.src);
	if (n->format != F_NONE && !DocmodelSchemaFormatValid(n->format, s, len))
		FAIL(cx, n, "format", "must be a valid %s",
			 DocmodelSchemaFormatNames[n->format]);
	return ok;
}

static bool
ValidateNumber(VCtx *cx, VNode *n, JsonbValue *v)
{
	bool ok = true;
	Numeric x = v->val.numeric;

	if (n->minimum && SchemaNumCmp(x, n->minimum) < 0)
		FAIL(cx, n, "minimum", "must be >= %s", NumText(n->minimum));
	if (n->maximum && SchemaNumCmp(x, n->maximum) > 0)
		FAIL(cx, n, "maximum", "must be <= %s", NumText(n->maximum));
	if (n->xminimum && SchemaNumCmp(x, n->xminimum) <= 0)
		FAIL(cx, n, "exclusiveMinimum", "must be > %s", NumText(n->xminimum));
	if (n->xmaximum && SchemaNumCmp(x, n->xmaximum) >= 0)
		FAIL(cx, n, "exclusiveMaximum", "must be < %s", NumText(n->xmaximum));
	if (n->multiple_of)
	{
		Datum r = DirectFunctionCall2(numeric_mod, NumericGetDatum(x),
									  NumericGetDatum(n->multiple_of));

		if (SchemaNumCmp(DatumGetNumeric(r), int64_to_numeric(0)) != 0)
			FAIL(cx, n, "multipleOf", "must be a multiple of %s",
				 NumText(n->multiple_of));
	}
	return ok;
}

/*
 * The hash of an instance's item (a scalar, or a container as stored),
 * consistent with JsonTreeEqual: jsonb_hash's, which jsonb's = agrees with
 * (numerics by value, object keys in their stored order).
 */
static uint32
ItemHash(void *items, int i)
{
	JsonbValue *v = &((JsonbValue *) items)[i];
	JsonbIterator *it;
	JsonbIteratorToken tok;
	JsonbValue x;
	uint32 h = 0;

	if (v->type != jbvBinary)
	{
		JsonbHashScalarValue(v, &h);
		return h;
	}
	it = JsonbIteratorInit(v->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &x, false)) != WJB_DONE)
		switch (tok)
		{
			case WJB_BEGIN_ARRAY:
				h ^= JB_FARRAY;
				break;
			case WJB_BEGIN_OBJECT:
				h ^= JB_FOBJECT;
				break;
			case WJB_KEY:
			case WJB_VALUE:
			case WJB_ELEM:
				JsonbHashScalarValue(&x, &h);
				break;
			default:
				break;
		}
	return h;
}

static bool
ItemEqual(void *items, int i, int j)
{
	return DocmodelJsonTreeEqual(&((JsonbValue *) items)[i],
								 &((JsonbValue *) items)[j]);
}

/* The size items of the array container c, read into one array. */
static JsonbValue *
ArrayElements(JsonbContainer *c, int size)
{
	JsonbValue *elems =
		MemoryContextAllocHuge(CurrentMemoryContext, sizeof(JsonbValue) * size);
	/* the elements, read from the entries (no iterator) */
	JEntry *children = c->children;
	char *base = (char *) (children + size);
	uint32 o = 0;
	int i;

	for (i = 0; i < size; i++)
	{
		uint32 start = o;

		if ((i & 4095) == 0)
			CHECK_FOR_INTERRUPTS();
		JBE_ADVANCE_OFFSET(o, children[i]);
		DocmodelJsonTreeEntryValue(children[i], base, start, o - start,
								   &elems[i]);
	}
	return elems;
}

static bool
ValidateArray(VCtx *cx, VNode *n, JsonbValue *v)
{
	bool ok = true;
	JsonbContainer *c = v->val.binary.data;
	int size = JsonContainerSize(c);
	int i;
	int old;
	JsonbValue *elems = NULL;

	if (n->min_items >= 0 || n->max_items >= 0)
		CHECK(ValidateCount(cx, n, size, n->min_items, n->max_items, "minItems",
							"maxItems", "have", "items"));
	if (size > 0 && (n->unique || n->contains || n->prefix.n > 0 || n->items))
		elems = ArrayElements(c, size);
	if (n->unique && size > 1)
	{
		int j;

		/* one report: the first item equal to an earlier one */
		if ((i = DocmodelSchemaFirstDuplicate(elems, size, ItemHash, ItemEqual,
											  &j)) >= 0)
			FAIL(cx, n, "uniqueItems",
				 "must have unique items (items %d and %d are equal)", j, i);
	}
	for (i = 0; i < size && i < n->prefix.n; i++)
	{
		old = PushIndex(cx, i);
		CHECK(ValidateNode(cx, n->prefix.s[i], &elems[i]));
		Pop(cx, old);
	}
	if (n->items)
		for (i = Max(n->prefix.n, 0); i < size; i++)
		{
			old = PushIndex(cx, i);
			CHECK(ValidateNode(cx, n->items, &elems[i]));
			Pop(cx, old);
		}
	if (n->contains)
	{
		int64 matches = 0;
		int64 min = n->min_contains >= 0 && !n->draft7 ? n->min_contains : 1;

		for (i = 0; i < size; i++)
			if (Quietly(cx, n->contains, &elems[i]))
				matches++;
		if (matches < min)
		{
			if (n->min_contains >= 0 && !n->draft7)
				FAIL(cx, n, "minContains",
					 "must contain at least " INT64_FORMAT
					 " items matching \"contains\", not " INT64_FORMAT,
					 min, matches);
			else
				FAIL(cx, n, "contains",
					 "must contain an item matching \"contains\"");
		}
		if (!n->draft7 && n->max_contains >= 0 && matches > n->max_contains)
			FAIL(cx, n, "maxContains",
				 "must contain at most " INT64_FORMAT
				 " items matching \"contains\", not " INT64_FORMAT,
				 n->max_contains, matches);
	}
	return ok;
}

/* Objects up to this many members per property are matched in one pass. */
#define PASS_MEMBERS_PER_PROP 4
#define PASS_STACK_PROPS 32

/*
 * Find the members of object c named by props (sorted as jsonb sorts keys)
 * in one forward pass over c's keys (getKeyJsonValueFromContainer's binary
 * search per name costs more, on small objects, than the rest of the
 * validation): at[i] the pair index of props[i], -1 when absent; the pair
 * indexes found increase with i. Return the offset of c's first value.
 */
static uint32
PassProps(JsonbContainer *c, const VProp *props, int nprops, int *at)
{
	uint32 count = JsonContainerSize(c);
	JEntry *children = c->children;
	char *base = (char *) (children + count * 2);
	uint32 o = 0;
	uint32 i;
	int j = 0;

	for (i = 0; i < count; i++)
	{
		uint32 start = o;
		int klen;

		JBE_ADVANCE_OFFSET(o, children[i]);
		klen = o - start;
		/* the names before this key are absent */
		while (j < nprops)
		{
			int cmp = props[j].len != klen
						  ? (props[j].len < klen ? -1 : 1)
						  : memcmp(props[j].name, base + start, klen);

			if (cmp < 0)
				at[j++] = -1;
			else
			{
				if (cmp == 0)
					at[j++] = i;
				break;
			}
		}
	}
	while (j < nprops)
		at[j++] = -1;
	return o;
}

/*
 * Check v (an object) against n's required, dependentRequired and
 * dependentSchemas (or draft-07's dependencies); at: the pair index of each
 * of n's properties when the one pass found them (PassProps), else NULL.
 */
static bool
ValidateDependencies(VCtx *cx, VNode *n, JsonbValue *v, const int *at)
{
	bool ok = true;
	JsonbContainer *c = v->val.binary.data;
	int i;
	JsonbValue val;

	for (i = 0; i < n->nrequired; i++)
	{
		bool has;

		CHECK_FOR_INTERRUPTS();
		if (at != NULL && n->req_prop != NULL && n->req_prop[i] >= 0)
			has = at[n->req_prop[i]] >= 0;
		else
			has = getKeyJsonValueFromContainer(
					  c, n->required[i].name, n->required[i].len, &val) != NULL;
		if (!has)
			FAIL(cx, n, "required", "must have the property \"%.*s\"",
				 n->required[i].len, n->required[i].name);
	}
	for (i = 0; i < n->ndep_required; i++)
	{
		VProp *d = &n->dep_required[i];
		int j;

		CHECK_FOR_INTERRUPTS();
		if (getKeyJsonValueFromContainer(c, d->name, d->len, &val) == NULL)
			continue;
		for (j = 0; j < d->nnames; j++)
		{
			CHECK_FOR_INTERRUPTS();
			if (getKeyJsonValueFromContainer(c, d->names[j], d->lens[j],
											 &val) == NULL)
				FAIL(cx, n,
					 i < n->ndep_required_d7 ? "dependencies"
											 : n->dep_required_kw,
					 "must have the property \"%.*s\" when \"%.*s\" is present",
					 d->lens[j], d->names[j], d->len, d->name);
		}
	}
	for (i = 0; i < n->ndep_schemas; i++)
	{
		VProp *d = &n->dep_schemas[i];

		if (getKeyJsonValueFromContainer(c, d->name, d->len, &val) == NULL)
			continue;
		CHECK(ValidateNode(cx, d->schema, v));
	}
	return ok;
}

/*
 * Apply n's properties to the members of c the one pass found (at, from
 * PassProps; vo: the offset of c's first value), their values in order.
 */
static bool
ValidatePassed(VCtx *cx, VNode *n, JsonbContainer *c, const int *at, uint32 vo)
{
	bool ok = true;
	int size = JsonContainerSize(c);
	int vi = 0;
	int i;
	int old;
	JsonbValue val;

	for (i = 0; i < n->nprops; i++)
	{
		VProp *p = &n->props[i];
		uint32 start;

		CHECK_FOR_INTERRUPTS();
		if (at[i] < 0)
			continue;
		for (; vi < at[i]; vi++)
			JBE_ADVANCE_OFFSET(vo, c->children[size + vi]);
		start = vo;
		JBE_ADVANCE_OFFSET(vo, c->children[size + vi]);
		vi++;
		DocmodelJsonTreeEntryValue(c->children[size + at[i]],
								   (char *) (c->children + size * 2), start,
								   vo - start, &val);
		old = PushKey(cx, p->name, p->len);
		CHECK(ValidateNode(cx, p->schema, &val));
		Pop(cx, old);
	}
	return ok;
}

/*
 * Apply n's propertyNames, properties, patternProperties and
 * additionalProperties to each member of c, in one pass over its entries
 * (no iterator).
 */
static bool
ValidateMembers(VCtx *cx, VNode *n, JsonbContainer *c)
{
	bool ok = true;
	int size = JsonContainerSize(c);
	JEntry *children = c->children;
	char *base = (char *) (children + size * 2);
	uint32 ko = 0;
	uint32 vo = size > 0 ? getJsonbOffset(c, size) : 0;
	JsonbValue key;
	JsonbValue val;
	int old;
	int i;

	key.type = jbvString;
	for (i = 0; i < size; i++)
	{
		bool matched = false;
		uint32 kstart = ko;
		uint32 vstart = vo;
		VProp *p;
		int j;

		CHECK_FOR_INTERRUPTS();
		JBE_ADVANCE_OFFSET(ko, children[i]);
		JBE_ADVANCE_OFFSET(vo, children[size + i]);
		key.val.string.val = base + kstart;
		key.val.string.len = ko - kstart;
		DocmodelJsonTreeEntryValue(children[size + i], base, vstart,
								   vo - vstart, &val);
		old = PushKey(cx, key.val.string.val, key.val.string.len);
		if (n->property_names)
			CHECK(ValidateNode(cx, n->property_names, &key));
		p = DocmodelSchemaFindProp(n->props, n->nprops, key.val.string.val,
								   key.val.string.len);
		if (p != NULL)
		{
			matched = true;
			CHECK(ValidateNode(cx, p->schema, &val));
		}
		for (j = 0; j < n->npatterns; j++)
			if (DocmodelSchemaPatternMatches(
					n->patterns[j].simple, n->patterns[j].re,
					key.val.string.val, key.val.string.len))
			{
				matched = true;
				CHECK(ValidateNode(cx, n->patterns[j].schema, &val));
			}
		if (!matched && n->additional)
		{
			if (n->additional->boolean == 0)
			{
				Pop(cx, old);
				FAIL(cx, n, "additionalProperties",
					 "must not have the property \"%.*s\"", key.val.string.len,
					 key.val.string.val);
				old = PushKey(cx, key.val.string.val, key.val.string.len);
			}
			else
				CHECK(ValidateNode(cx, n->additional, &val));
		}
		Pop(cx, old);
	}
	return ok;
}

static bool
ValidateObject(VCtx *cx, VNode *n, JsonbValue *v)
{
	bool ok = true;
	JsonbContainer *c = v->val.binary.data;
	int size = JsonContainerSize(c);
	int i;
	int old;
	JsonbValue val;
	bool only;
	bool found;
	int at_buf[PASS_STACK_PROPS];
	int *at = at_buf;
	uint32 vo = 0;

	/*
	 * An object not much larger than the properties named: one pass finds
	 * them, for the properties (when nothing else applies to members) and
	 * the required names among them.
	 */
	only =
		n->npatterns == 0 && n->additional == NULL && n->property_names == NULL;
	found = n->nprops > 0 && (only || n->req_prop != NULL) &&
			size <= PASS_MEMBERS_PER_PROP * n->nprops + 16;
	if (found)
	{
		if (n->nprops > PASS_STACK_PROPS)
			at = palloc(sizeof(int) * n->nprops);
		vo = PassProps(c, n->props, n->nprops, at);
	}
	if (n->min_props >= 0 || n->max_props >= 0)
		CHECK(ValidateCount(cx, n, size, n->min_props, n->max_props,
							"minProperties", "maxProperties", "have",
							"properties"));
	if (n->nrequired > 0 || n->ndep_required > 0 || n->ndep_schemas > 0)
		CHECK(ValidateDependencies(cx, n, v, found ? at : NULL));
	if (found && only)
		CHECK(ValidatePassed(cx, n, c, at, vo));
	else if (n->nprops > 0 && only)
	{
		/* only properties, a large object: look each one up */
		for (i = 0; i < n->nprops; i++)
		{
			VProp *p = &n->props[i];

			CHECK_FOR_INTERRUPTS();
			if (getKeyJsonValueFromContainer(c, p->name, p->len, &val) == NULL)
				continue;
			old = PushKey(cx, p->name, p->len);
			CHECK(ValidateNode(cx, p->schema, &val));
			Pop(cx, old);
		}
	}
	else if (n->nprops > 0 || n->npatterns > 0 || n->additional ||
			 n->property_names)
		CHECK(ValidateMembers(cx, n, c));
	return ok;
}

/* Tell whether v equals c (a const or enum value; see ConstValue). */
static bool
ValueEquals(JsonbValue *v, JsonbValue *c)
{
	JsonbValue a = *v;
	JsonbValue b = *c;

	if ((a.type == jbvBinary) != (b.type == jbvBinary))
		return false;
	return DocmodelJsonTreeEqual(&a, &b);
}

static void
CollectOwnProps(VNode *n, JsonbValue *v, bool *seen, int size, bool self)
{
	if (n->additional || (n->uneval_props && !self))
		memset(seen, true, size);
	else if (n->nprops > 0 || n->npatterns > 0)
	{
		JsonbIterator *it = JsonbIteratorInit(v->val.binary.data);
		JsonbIteratorToken tok;
		JsonbValue key;
		int k = 0;

		while ((tok = JsonbIteratorNext(&it, &key, true)) != WJB_DONE)
		{
			int j;

			if (tok != WJB_KEY)
				continue;
			CHECK_FOR_INTERRUPTS();
			if (DocmodelSchemaFindProp(n->props, n->nprops, key.val.string.val,
									   key.val.string.len))
				seen[k] = true;
			for (j = 0; j < n->npatterns && !seen[k]; j++)
				if (DocmodelSchemaPatternMatches(
						n->patterns[j].simple, n->patterns[j].re,
						key.val.string.val, key.val.string.len))
					seen[k] = true;
			k++;
		}
	}
}

static void
CollectOwnItems(VCtx *cx, VNode *n, JsonbValue *elems, bool *seen, int size,
				bool self)
{
	int i;

	if (n->items || (n->uneval_items && !self))
		memset(seen, true, size);
	else
		for (i = 0; i < n->prefix.n && i < size; i++)
			seen[i] = true;
	if (n->contains)
		for (i = 0; i < size; i++)
			if (!seen[i] && Quietly(cx, n->contains, &elems[i]))
				seen[i] = true;
}

/*
 * unevaluatedProperties / unevaluatedItems: the annotations of the
 * in-place applicators. Mark in seen the members of v (an object; elems
 * NULL) or its items elems (an array) that n or a subschema applied in
 * place evaluates: properties, patternProperties, additionalProperties, a
 * nested unevaluatedProperties (prefixItems, items, contains,
 * unevaluatedItems), through $ref, allOf, the branches of anyOf and oneOf
 * that v passes, if with then or else, and dependentSchemas (objects).
 * self: n is the schema whose own unevaluated* keyword is being checked.
 */
static void
Collect(VCtx *cx, VNode *n, JsonbValue *v, JsonbValue *elems, bool *seen,
		int size, bool self)
{
	JsonbValue val;
	int i;

	if (n == NULL || n->boolean >= 0)
		return;
	check_stack_depth();
	CHECK_FOR_INTERRUPTS();
	if (n->ref)
		Collect(cx, n->ref, v, elems, seen, size, false);
	if (n->dref)
		Collect(cx, n->ndyn > 0 ? DynamicTarget(cx, n) : n->dref, v, elems,
				seen, size, false);
	if (elems == NULL)
		CollectOwnProps(n, v, seen, size, self);
	else
		CollectOwnItems(cx, n, elems, seen, size, self);
	for (i = 0; i < n->all_of.n; i++)
		Collect(cx, n->all_of.s[i], v, elems, seen, size, false);
	for (i = 0; i < n->any_of.n; i++)
		if (Quietly(cx, n->any_of.s[i], v))
			Collect(cx, n->any_of.s[i], v, elems, seen, size, false);
	for (i = 0; i < n->one_of.n; i++)
		if (Quietly(cx, n->one_of.s[i], v))
			Collect(cx, n->one_of.s[i], v, elems, seen, size, false);
	if (n->if_)
	{
		if (Quietly(cx, n->if_, v))
		{
			Collect(cx, n->if_, v, elems, seen, size, false);
			Collect(cx, n->then_, v, elems, seen, size, false);
		}
		else
			Collect(cx, n->else_, v, elems, seen, size, false);
	}
	for (i = 0; elems == NULL && i < n->ndep_schemas; i++)
		if (getKeyJsonValueFromContainer(v->val.binary.data,
										 n->dep_schemas[i].name,
										 n->dep_schemas[i].len, &val))
			Collect(cx, n->dep_schemas[i].schema, v, NULL, seen, size, false);
}

/* Apply n's unevaluatedProperties to the members nothing else evaluated. */
static bool
ValidateUnevaluatedProps(VCtx *cx, VNode *n, JsonbValue *v)
{
	bool ok = true;
	JsonbContainer *c = v->val.binary.data;
	int size = JsonContainerSize(c);
	bool *seen;
	JsonbIterator *it;
	JsonbIteratorToken tok;
	JsonbValue key;
	JsonbValue val;
	int k = 0;

	if (size == 0)
		return true;
	seen = palloc0(size);
	Collect(cx, n, v, NULL, seen, size, true);
	it = JsonbIteratorInit(c);
	while ((tok = JsonbIteratorNext(&it, &key, true)) != WJB_DONE)
	{
		int old;

		if (tok != WJB_KEY)
			continue;
		tok = JsonbIteratorNext(&it, &val, true);
		if (seen[k++])
			continue;
		CHECK_FOR_INTERRUPTS();
		if (n->uneval_props->boolean == 0)
		{
			FAIL(cx, n, "unevaluatedProperties",
				 "must not have the unevaluated property \"%.*s\"",
				 key.val.string.len, key.val.string.val);
			continue;
		}
		old = PushKey(cx, key.val.string.val, key.val.string.len);
		CHECK(ValidateNode(cx, n->uneval_props, &val));
		Pop(cx, old);
	}
	pfree(seen);
	return ok;
}

/* Apply n's unevaluatedItems to the items nothing else evaluated. */
static bool
ValidateUnevaluatedItems(VCtx *cx, VNode *n, JsonbValue *v)
{
	bool ok = true;
	JsonbContainer *c = v->val.binary.data;
	int size = JsonContainerSize(c);
	JsonbValue *elems;
	bool *seen;
	int i;

	if (size == 0)
		return true;
	elems = ArrayElements(c, size);
	seen = palloc0(size);
	Collect(cx, n, v, elems, seen, size, true);
	for (i = 0; i < size; i++)
	{
		int old;

		if (seen[i])
			continue;
		CHECK_FOR_INTERRUPTS();
		if (n->uneval_items->boolean == 0)
		{
			FAIL(cx, n, "unevaluatedItems",
				 "must not have the unevaluated item %d", i);
			continue;
		}
		old = PushIndex(cx, i);
		CHECK(ValidateNode(cx, n->uneval_items, &elems[i]));
		Pop(cx, old);
	}
	pfree(seen);
	pfree(elems);
	return ok;
}

/* The target of n's $dynamicRef / $recursiveRef in the current scope. */
static VNode *
DynamicTarget(VCtx *cx, VNode *n)
{
	int i;
	int k;

	for (i = 0; i < cx->nscope; i++)
		for (k = 0; k < n->ndyn; k++)
			if (strcmp(n->dyn[k].uri, cx->scope[i]) == 0)
				return n->dyn[k].node;
	return n->dref;
}

/*
 * A document came back to n on the same value through a loop of
 * applicators (CheckLoops): validating it would never finish.
 */
static void
LoopError(VCtx *cx, VNode *n)
{
	const char *via = cx->hops ? cx->hops->from->loc : "";
	const char *kw = cx->hops ? cx->hops->kw : "$ref";

	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("JSON Schema at \"%s\": \"%s\" at \"%s/%s\" loops "
					"back to it without descending into the value",
					n->loc[0] ? n->loc : "/", kw, via, kw),
			 cx->collect ? errdetail("The value is at \"%s\".",
									 cx->ipath.len ? cx->ipath.data : "/")
						 : 0));
}

/*
 * ValidateNode of a watched node (a loop's guard, or any node of a schema
 * that keeps the dynamic scope): enter the node's resource into the scope,
 * refuse a second visit on the same value, then validate as usual
 * (cx->entered tells ValidateNode the watch is done).
 */
static bool
ValidateWatched(VCtx *cx, VNode *n, JsonbValue *v)
{
	JsonbValue *pv = n->active_v;
	uint64 pr = n->active_run;
	bool ok;
	bool pushed = false;

	if (cx->dynamic && n->res_uri != NULL &&
		(cx->nscope == 0 || strcmp(cx->scope[cx->nscope - 1], n->res_uri) != 0))
	{
		if (cx->nscope == cx->scope_cap)
		{
			cx->scope_cap = Max(16, cx->scope_cap * 2);
			cx->scope =
				cx->scope ? repalloc(cx->scope, sizeof(char *) * cx->scope_cap)
						  : palloc(sizeof(char *) * cx->scope_cap);
		}
		cx->scope[cx->nscope++] = n->res_uri;
		pushed = true;
	}
	if (n->loop_guard)
	{
		if (pr == cx->run && pv == v)
			LoopError(cx, n);
		n->active_v = v;
		n->active_run = cx->run;
	}
	cx->entered = n;
	ok = ValidateNode(cx, n, v);
	if (n->loop_guard)
	{
		n->active_v = pv;
		n->active_run = pr;
	}
	if (pushed)
		cx->nscope--;
	return ok;
}

/* Tell whether v (of type t, a T_* bit) is of one of n's types. */
static inline bool
TypeMatches(VNode *n, JsonbValue *v, int t)
{
	return (n->types & t) != 0 || (t == T_NUMBER && (n->types & T_INTEGER) &&
								   NumIsIntegral(v->val.numeric));
}

/* Validate v against to, the target of n's reference keyword kw. */
static bool
ValidateRef(VCtx *cx, VNode *n, VNode *to, const char *kw, JsonbValue *v)
{
	RefHop hop = {n, to, kw, cx->hops};
	bool ok;

	cx->hops = &hop;
	ok = ValidateNode(cx, to, v);
	cx->hops = hop.up;
	return ok;
}

/* Apply n's allOf, anyOf, oneOf, not and if/then/else to v. */
static bool
ValidateApplicators(VCtx *cx, VNode *n, JsonbValue *v)
{
	bool ok = true;
	int i;

	for (i = 0; i < n->all_of.n; i++)
		CHECK(ValidateNode(cx, n->all_of.s[i], v));
	if (n->any_of.n > 0)
	{
		for (i = 0; i < n->any_of.n; i++)
			if (Quietly(cx, n->any_of.s[i], v))
				break;
		if (i == n->any_of.n)
			FAIL(cx, n, "anyOf", "must match at least one schema of \"anyOf\"");
	}
	if (n->one_of.n > 0)
	{
		int matches = 0;
		int first = -1;

		for (i = 0; i < n->one_of.n && matches < 2; i++)
			if (Quietly(cx, n->one_of.s[i], v))
			{
				if (matches++ == 0)
					first = i;
				else
					FAIL(cx, n, "oneOf",
						 "must match exactly one schema of \"oneOf\", not "
						 "schemas %d and %d",
						 first, i);
			}
		if (matches == 0)
			FAIL(cx, n, "oneOf", "must match exactly one schema of \"oneOf\"");
	}
	if (n->not &&Quietly(cx, n->not, v))
		FAIL(cx, n, "not", "must not match the schema of \"not\"");
	if (n->if_)
	{
		VNode *branch = Quietly(cx, n->if_, v) ? n->then_ : n->else_;

		if (branch)
			CHECK(ValidateNode(cx, branch, v));
	}
	return ok;
}

/* Validate v against n, listing violations when cx->collect. */
static bool
ValidateNode(VCtx *cx, VNode *n, JsonbValue *v)
{
	bool ok = true;
	int t;
	int i;

	if (unlikely(n->watch))
	{
		if (cx->entered != n)
			return ValidateWatched(cx, n, v);
		cx->entered = NULL;
	}
	check_stack_depth();
	CHECK_FOR_INTERRUPTS();
	if (n->boolean >= 0)
	{
		if (n->boolean == 0)
			FAIL(cx, n, NULL, "no value is allowed here");
		return ok;
	}
	if (n->ref)
	{
		CHECK(ValidateRef(cx, n, n->ref, "$ref", v));
		if (n->draft7)
			return ok;
	}
	if (n->dref)
		CHECK(ValidateRef(cx, n, n->ndyn > 0 ? DynamicTarget(cx, n) : n->dref,
						  n->dref_kw, v));
	t = TypeOf(v);
	if (n->types && !TypeMatches(n, v, t))
	{
		StringInfoData names;
		int k;

		if (!cx->collect)
			return false;
		initStringInfo(&names);
		for (k = 0; k < lengthof(DocmodelSchemaTypeNames); k++)
			if (n->types & (1 << k))
				appendStringInfo(&names, "%s%s", names.len ? " or " : "",
								 DocmodelSchemaTypeNames[k]);
		FAIL(cx, n, "type", "must be of type %s, not %s", names.data,
			 DocmodelJsonTreeTypeName(v));
	}
	if (n->nenum >= 0)
	{
		for (i = 0; i < n->nenum; i++)
		{
			CHECK_FOR_INTERRUPTS();
			if (ValueEquals(v, &n->enums[i]))
				break;
		}
		if (i == n->nenum)
			FAIL(cx, n, "enum", "must be one of the values of \"enum\"");
	}
	if (n->has_const && !ValueEquals(v, &n->constv))
		FAIL(cx, n, "const", "must be equal to the value of \"const\"");

	if (t == T_STRING)
		CHECK(ValidateString(cx, n, v));
	else if (t == T_NUMBER)
		CHECK(ValidateNumber(cx, n, v));
	else if (t == T_ARRAY)
		CHECK(ValidateArray(cx, n, v));
	else if (t == T_OBJECT)
		CHECK(ValidateObject(cx, n, v));

	CHECK(ValidateApplicators(cx, n, v));
	if (n->uneval_props && t == T_OBJECT)
		CHECK(ValidateUnevaluatedProps(cx, n, v));
	if (n->uneval_items && t == T_ARRAY)
		CHECK(ValidateUnevaluatedItems(cx, n, v));
	return ok;
}

/* Validate an instance; see run.h. */
bool
DocmodelSchemaValidate(DocmodelSchema *s, Jsonb *instance, List **errors,
					   int max_errors)
{
	VCtx cx = {0};
	JsonbValue v;

	cx.collect = errors != NULL;
	cx.errors = errors;
	cx.max_errors = max_errors;
	cx.run = ++ValidateRuns;
	cx.dynamic = s->dynamic;
	if (cx.collect)
		initStringInfo(&cx.ipath);
	DocmodelJsonTreeFromJsonb(instance, &v);
	return ValidateNode(&cx, s->root, &v);
}

/*
 * Validate instance against s, listing every violation with the "basic"
 * output format's locations too (keyword_location, absolute_location).
 */
bool
DocmodelSchemaValidateForOutput(DocmodelSchema *s, Jsonb *instance,
								List **errors)
{
	VCtx cx = {0};
	JsonbValue v;

	cx.collect = true;
	cx.output = true;
	cx.errors = errors;
	cx.run = ++ValidateRuns;
	cx.dynamic = s->dynamic;
	initStringInfo(&cx.ipath);
	DocmodelJsonTreeFromJsonb(instance, &v);
	return ValidateNode(&cx, s->root, &v);
}
