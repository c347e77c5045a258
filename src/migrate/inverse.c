/*-------------------------------------------------------------------------
 *
 * migrate/inverse.c
 *	  The way down of the migration step language (README, "Schema versions
 *	  and migrations", "Both ways"): each step's inverse, as steps of the
 *	  same language, and whether the step is an isomorphism or what it
 *	  drops. register_migration stores a rule's derived down steps (the
 *	  inverses of its steps, last first); migrate.c runs them like any
 *	  steps, and keeps what a lossy way down drops (the complement).
 *
 *	  Shared state: none. Runs when a rule is registered, never per
 *	  document.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "json/tree.h"
#include "migrate/inverse.h"
#include "migrate/steps.h"

PG_FUNCTION_INFO_V1(migration_inverse);

/* What one step's way down is. */
typedef struct Inverse
{
	JsonbValue steps;  /* an array of steps (maybe empty); jbvNull: none */
	bool lossless;     /* down(up(x)) = x for the documents it applies to */
	const char *drops; /* what is lost (NULL when nothing), or why there is
						* no way down */
} Inverse;

static void InvertSteps(JsonbValue *steps, Inverse *res);

/* Member name of an expanded step object, or NULL. */
static JsonbValue *
Member(JsonbValue *obj, const char *name)
{
	int k = DocmodelJsonTreeFindMember(obj, name, strlen(name));

	if (k < 0)
		return NULL;
	DocmodelJsonTreeExpand(&obj->val.object.pairs[k].value);
	return &obj->val.object.pairs[k].value;
}

/* A new empty object node. */
static JsonbValue
NewObject(void)
{
	JsonbValue o;

	o.type = jbvObject;
	o.val.object.nPairs = 0;
	o.val.object.pairs = NULL;
	return o;
}

/* Append v to the expanded array arr. */
static void
AppendElem(JsonbValue *arr, JsonbValue v)
{
	DocmodelJsonTreeInsertElem(arr, arr->val.array.nElems, &v);
}

/* A step {"op": op, ...} with "missing": "skip" when skip. */
static JsonbValue
NewStep(const char *op, bool skip)
{
	JsonbValue o = NewObject();

	DocmodelJsonTreePut(&o, "op", DocmodelJsonTreeCString(op));
	if (skip)
		DocmodelJsonTreePut(&o, "missing", DocmodelJsonTreeCString("skip"));
	return o;
}

/* Copy member name of from (when there) into to, as to_name. */
static void
CopyMember(JsonbValue *to, const char *to_name, JsonbValue *from,
		   const char *name)
{
	JsonbValue *v = Member(from, name);

	if (v)
		DocmodelJsonTreePut(to, to_name, DocmodelJsonTreeCopy(v));
}

/* The parent of pointer text p ("/a/b" -> "/a", "/a" -> ""). */
static char *
ParentOf(JsonbValue *p)
{
	char *s = pnstrdup(p->val.string.val, p->val.string.len);
	char *slash = strrchr(s, '/');

	if (slash)
		*slash = '\0';
	return s;
}

/* Set res to: way down inv (one step, or none when inv is NULL). */
static void
Down(Inverse *res, JsonbValue *inv, bool lossless, const char *drops)
{
	res->steps.type = jbvArray;
	res->steps.val.array.rawScalar = false;
	res->steps.val.array.nElems = 0;
	res->steps.val.array.elems = NULL;
	if (inv)
		AppendElem(&res->steps, *inv);
	res->lossless = lossless;
	res->drops = drops;
}

/* Set res to: no way down, because why. */
static void
OneWay(Inverse *res, const char *why)
{
	res->steps.type = jbvNull;
	res->lossless = false;
	res->drops = why;
}

/* The inverse of nest or for_each: see InvertStep. */
static void
InvertNested(JsonbValue *st, const char *op, JsonbValue *path, Inverse *res)
{
	JsonbValue inv;

	if (strcmp(op, "nest") == 0)
	{
		JsonbValue *into = Member(st, "into");
		JsonbValue *paths = Member(st, "paths");
		char *parent = ParentOf(into);
		int i;

		for (i = 0; i < paths->val.array.nElems; i++)
		{
			JsonbValue *p = &paths->val.array.elems[i];

			DocmodelJsonTreeExpand(p);
			if (strcmp(ParentOf(p), parent) != 0)
			{
				OneWay(res, "nest goes back only when its paths sit beside "
							"\"into\"");
				return;
			}
		}
		inv = NewStep("unnest", true);
		DocmodelJsonTreePut(&inv, "path", *into);
		Down(res, &inv, true, NULL);
	}
	else if (strcmp(op, "for_each") == 0)
	{
		Inverse nested;

		InvertSteps(Member(st, "steps"), &nested);
		if (nested.steps.type == jbvNull)
		{
			*res = nested;
			return;
		}
		if (nested.steps.val.array.nElems == 0)
		{
			Down(res, NULL, nested.lossless, nested.drops);
			return;
		}
		inv = NewStep("for_each", true);
		DocmodelJsonTreePut(&inv, "path", *path);
		DocmodelJsonTreePut(&inv, "steps", nested.steps);
		Down(res, &inv, nested.lossless, nested.drops);
	}
	else
		elog(ERROR, "no inverse known for step op \"%s\"", op);
}

/* The inverse of a reshaping step (split to for_each): see InvertStep. */
static void
InvertReshape(JsonbValue *st, const char *op, JsonbValue *path, Inverse *res)
{
	JsonbValue inv;

	if (strcmp(op, "split") == 0)
	{
		inv = NewStep("join", false);
		DocmodelJsonTreePut(&inv, "paths",
							DocmodelJsonTreeCopy(Member(st, "into")));
		DocmodelJsonTreePut(&inv, "into", *path);
		CopyMember(&inv, "separator", st, "separator");
		Down(res, &inv, true, NULL);
	}
	else if (strcmp(op, "join") == 0)
	{
		inv = NewStep("split", true);
		DocmodelJsonTreePut(&inv, "path", *Member(st, "into"));
		DocmodelJsonTreePut(&inv, "into",
							DocmodelJsonTreeCopy(Member(st, "paths")));
		CopyMember(&inv, "separator", st, "separator");
		Down(res, &inv, false,
			 "parts holding the separator, and numbers or booleans joined "
			 "as text");
	}
	else if (strcmp(op, "wrap") == 0 || strcmp(op, "unwrap") == 0)
	{
		JsonbValue *into = Member(st, "into");
		bool up_is_wrap = strcmp(op, "wrap") == 0;

		inv = NewStep(up_is_wrap ? "unwrap" : "wrap", true);
		DocmodelJsonTreePut(&inv, "path", into ? *into : *path);
		if (into)
			DocmodelJsonTreePut(&inv, "into", *path);
		CopyMember(&inv, "template", st, "template");
		Down(res, &inv, up_is_wrap,
			 up_is_wrap ? NULL
						: "every element but the first, and what the first "
						  "holds outside the template's \"$\"");
	}
	else if (strcmp(op, "cast") == 0)
	{
		JsonbValue *from = Member(st, "from");

		if (from == NULL)
		{
			OneWay(res, "cast goes back only with \"from\" (the type before)");
			return;
		}
		inv = NewStep("cast", true);
		DocmodelJsonTreePut(&inv, "path", *path);
		DocmodelJsonTreePut(&inv, "to", *from);
		DocmodelJsonTreePut(&inv, "from", *Member(st, "to"));
		Down(res, &inv, false,
			 "the value's spelling (\"042\" comes back as \"42\")");
	}
	else if (strcmp(op, "to_epoch") == 0 || strcmp(op, "from_epoch") == 0)
	{
		bool up_is_to = strcmp(op, "to_epoch") == 0;

		inv = NewStep(up_is_to ? "from_epoch" : "to_epoch", true);
		DocmodelJsonTreePut(&inv, "path", *path);
		CopyMember(&inv, "unit", st, "unit");
		Down(res, &inv, false,
			 up_is_to ? "the date's text: the way down writes ISO 8601 in "
						"UTC with milliseconds"
					  : "fractions of the unit");
	}
	else
		InvertNested(st, op, path, res);
}

/* The inverse of one (well-formed, expanded) step object st. */
static void
InvertStep(JsonbValue *st, Inverse *res)
{
	JsonbValue *opv = Member(st, "op");
	char *op = pnstrdup(opv->val.string.val, opv->val.string.len);
	JsonbValue *path = Member(st, "path");
	JsonbValue inv;

	if (strcmp(op, "add") == 0 || strcmp(op, "copy") == 0)
	{
		inv = NewStep("remove", true);
		DocmodelJsonTreePut(&inv, "path", *path);
		Down(res, &inv, strcmp(op, "copy") == 0,
			 strcmp(op, "copy") == 0
				 ? NULL
				 : "the value at \"path\" (going up again adds \"value\")");
	}
	else if (strcmp(op, "remove") == 0)
		Down(res, NULL, false,
			 "the removed value: the way down does not bring it back");
	else if (strcmp(op, "replace") == 0)
		Down(res, NULL, false,
			 "the replaced value: the way down keeps the new one");
	else if (strcmp(op, "move") == 0)
	{
		inv = NewStep("move", true);
		DocmodelJsonTreePut(&inv, "from", *path);
		DocmodelJsonTreePut(&inv, "path", *Member(st, "from"));
		Down(res, &inv, true, NULL);
	}
	else if (strcmp(op, "test") == 0 || strcmp(op, "require") == 0)
		Down(res, NULL, true, NULL);
	else if (strcmp(op, "default") == 0)
		Down(res, NULL, false,
			 "nothing, but the way down leaves the default where there was "
			 "none");
	else if (strcmp(op, "strip_dashes") == 0)
		Down(res, NULL, false, "the dashes");
	else if (strcmp(op, "drop_empty") == 0)
		Down(res, NULL, false, "the members that were null, \"\", [] or {}");
	else if (strcmp(op, "replace_regex") == 0)
		Down(res, NULL, false, "the text the pattern replaced");
	else if (strcmp(op, "format_date") == 0)
		Down(res, NULL, false, "the date's form before");
	else if (strcmp(op, "unnest") == 0)
		OneWay(res, "unnest moves members whose names no step knows");
	else
		InvertReshape(st, op, path, res);
}

/* The way down of a steps array: the inverses, last step first. */
static void
InvertSteps(JsonbValue *steps, Inverse *res)
{
	int i;

	check_stack_depth();
	Down(res, NULL, true, NULL);
	for (i = steps->val.array.nElems - 1; i >= 0; i--)
	{
		JsonbValue *st = &steps->val.array.elems[i];
		Inverse one;
		int k;

		CHECK_FOR_INTERRUPTS();
		DocmodelJsonTreeExpand(st);
		InvertStep(st, &one);
		if (one.steps.type == jbvNull)
		{
			*res = one;
			return;
		}
		for (k = 0; k < one.steps.val.array.nElems; k++)
			AppendElem(&res->steps, one.steps.val.array.elems[k]);
		res->lossless = res->lossless && one.lossless;
		if (one.drops && res->drops == NULL)
			res->drops = one.drops;
	}
}

/*
 * SQL: _migration_inverse(steps jsonb) -> jsonb: {"down": the rule's down
 * steps or null (one-way), "lossless": bool, "steps": [{"step", "op",
 * "inverse", "lossless", "drops"}, ...]} for each top-level step. The steps
 * are checked first (22023 as register_migration).
 */
Datum
migration_inverse(PG_FUNCTION_ARGS)
{
	Jsonb *steps = PG_GETARG_JSONB_P(0);
	JsonbValue *tree;
	JsonbValue result = NewObject();
	JsonbValue each;
	Inverse all;
	int n;
	int i;

	(void) DocmodelStepsCheck(steps, &n);
	tree = palloc(sizeof(JsonbValue));
	DocmodelJsonTreeFromJsonb(steps, tree);
	DocmodelJsonTreeExpand(tree);
	each.type = jbvArray;
	each.val.array.rawScalar = false;
	each.val.array.nElems = 0;
	each.val.array.elems = NULL;
	for (i = 0; i < tree->val.array.nElems; i++)
	{
		JsonbValue *st = &tree->val.array.elems[i];
		JsonbValue o = NewObject();
		Inverse one;

		DocmodelJsonTreeExpand(st);
		InvertStep(st, &one);
		DocmodelJsonTreePut(&o, "step", DocmodelJsonTreeInt(i + 1));
		DocmodelJsonTreePut(&o, "op", *Member(st, "op"));
		DocmodelJsonTreePut(&o, "inverse", one.steps);
		DocmodelJsonTreePut(
			&o, "lossless",
			(JsonbValue){.type = jbvBool, .val.boolean = one.lossless});
		if (one.drops)
			DocmodelJsonTreePut(&o, "drops",
								DocmodelJsonTreeCString(one.drops));
		else
			DocmodelJsonTreePut(&o, "drops", (JsonbValue){.type = jbvNull});
		AppendElem(&each, o);
	}
	InvertSteps(tree, &all);
	DocmodelJsonTreePut(&result, "down", all.steps);
	DocmodelJsonTreePut(
		&result, "lossless",
		(JsonbValue){.type = jbvBool,
					 .val.boolean = all.lossless && all.steps.type != jbvNull});
	DocmodelJsonTreePut(&result, "steps", each);
	PG_RETURN_JSONB_P(DocmodelJsonTreeToJsonb(&result));
}
