/*-------------------------------------------------------------------------
 *
 * migrate/steps.c
 *	  The migration step language (README, "Schema versions and
 *	  migrations"): parsing a rule's steps when it is registered or cached,
 *	  and applying them to a document tree (json/tree.h). Table-driven: one
 *	  entry per op (step_ops) with its members (each read by its kind, see
 *	  ParseMember) and its applier.
 *	  The six RFC 6902 ops run through json/patch.c's operations; this file
 *	  keeps docmodel's own ops and the step error messages.
 *
 *	  Shared state: none. Parsed steps live in the registry cache
 *	  (migrate.c) and are never changed while applied: values are copied
 *	  into the document.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_collation.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "regex/regex.h"
#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/datetime.h"
#include "utils/formatting.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

#include "compat.h"
#include "json/patch.h"
#include "json/pointer.h"
#include "json/tree.h"
#include "json/util.h"
#include "mapping/convert.h"
#include "migrate/step_util.h"
#include "migrate/steps.h"
#include "migrate/steps_time.h"

#define OP_LIST                                                            \
	"add, remove, replace, move, copy, test, default, split, join, wrap, " \
	"cast, to_epoch, from_epoch, strip_dashes, nest, unnest, for_each, "   \
	"drop_empty, replace_regex, require, format_date, unwrap"

/* How a member of a step object is read (see ParseMember); the optional
 * ones from M_INTO_OPT on. */
typedef enum MemberKind
{
	M_PATH,        /* a pointer into st->path */
	M_FROM,        /* a pointer into st->from */
	M_INTO,        /* a pointer into st->into, also the step's path */
	M_PTRS,        /* a non-empty array of pointers into st->ptrs */
	M_VALUE,       /* any JSON, into st->value */
	M_TO,          /* number, string or boolean, into st->cast_to */
	M_STEPS,       /* an array of nested steps */
	M_PATTERN,     /* a regular expression, into st->regex */
	M_WITH,        /* a string (may be empty), into st->with */
	M_INTO_OPT,    /* a pointer into st->into, when not the path (wrap) */
	M_INTO_ROOT,   /* a pointer into st->into, the root allowed (unnest) */
	M_TEMPLATE,    /* any JSON, into st->value */
	M_SEP,         /* a non-empty string (default one space) */
	M_UNIT,        /* a time unit (default ms) into st->unit_us */
	M_PATH_OPT,    /* a pointer into st->path (default "", the root) */
	M_PATTERN_OPT, /* a regular expression, into st->regex */
	M_MESSAGE,     /* a non-empty string, into st->message */
	M_FORMAT,      /* "date" (default) or "date-time", into st->date_only */
	M_MISSING,     /* "error" or "skip", into st->missing */
	M_INPUT,       /* a to_timestamp template, into st->input (default:
					* ISO 8601) */
	M_CAST_FROM    /* number, string or boolean, into st->cast_from: the
					* type cast goes back to */
} MemberKind;

typedef struct StepMember
{
	const char *name;
	MemberKind kind;
} StepMember;

/* The most members an op takes besides "op". */
#define STEP_MAX_MEMBERS 5

/* An op of the step language: see step_ops. */
typedef struct StepOpDef
{
	const char *name;
	StepMember members[STEP_MAX_MEMBERS]; /* allowed besides "op", in parse
										   * order */
	bool root_ok; /* inside a for_each, path may be "" */
	void (*apply)(ApplyCx *cx, const Step *st, JsonbValue *root);
	MemberKind source; /* what "missing" looks at: M_PATH (0), M_FROM or
						* M_PTRS (each of them) */
	bool strict;       /* without "missing", a missing source is an error the
						* applier raises itself */
} StepOpDef;

/* A compiled pattern (pg_regcomp mallocs it: freed with its context). */
struct StepRegex
{
	regex_t re;
	char *text; /* the pattern as written, for messages */
	MemoryContextCallback free_cb;
};

static Step *ParseSteps(JsonbContainer *arr, const char *prefix, bool nested,
						int *nsteps);

/* ---------------------------------------------------------------------
 * Parsing (when registered, and when the cache loads)
 * ---------------------------------------------------------------------
 */

/* Raise 22023 for a step that is not well formed (op NULL: not known). */
#define BadStep(label, op, ...) BadStepMsg(label, op, psprintf(__VA_ARGS__))

static void
pg_attribute_noreturn()
	BadStepMsg(const char *label, const char *op, const char *reason)
{
	if (op)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("invalid migration step %s (%s): %s", label, op,
							   reason),
						errdetail("Step %s, op \"%s\".", label, op)));
	ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					errmsg("invalid migration step %s: %s", label, reason),
					errhint("Known ops: " OP_LIST ".")));
}

/*
 * Check an "input" template: a non-empty string of at most 100 bytes, read
 * the same in every session: no TM prefix (month and day names of lc_time),
 * no TZ (zone abbreviations, timezone_abbreviations); TZH and TZM (a
 * numeric offset in the text) are fine. Text in double quotes is literal.
 */
static void
CheckInputTemplate(const char *s, JsonbValue *v, const char *label,
				   const char *op, const char *field)
{
	bool quoted = false;
	int i;

	if (s == NULL || v->val.string.len == 0 || v->val.string.len > 100)
		BadStep(label, op,
				"field \"%s\" must be a to_timestamp template of 1 to 100 "
				"bytes",
				field);
	for (i = 0; s[i] != '\0'; i++)
	{
		if (s[i] == '\\' && quoted && s[i + 1] != '\0')
			i++;
		else if (s[i] == '"')
			quoted = !quoted;
		else if (!quoted && pg_ascii_toupper((unsigned char) s[i]) == 'T' &&
				 pg_ascii_toupper((unsigned char) s[i + 1]) == 'M')
			BadStep(label, op,
					"template \"%s\" uses TM: month and day names would "
					"depend on the session's lc_time",
					s);
		else if (!quoted && pg_ascii_toupper((unsigned char) s[i]) == 'T' &&
				 pg_ascii_toupper((unsigned char) s[i + 1]) == 'Z' &&
				 pg_ascii_toupper((unsigned char) s[i + 2]) != 'H' &&
				 pg_ascii_toupper((unsigned char) s[i + 2]) != 'M')
			BadStep(label, op,
					"template \"%s\" uses TZ: zone abbreviations would "
					"depend on the session; use TZH:TZM",
					s);
	}
}

/* Return a palloc'd NUL-terminated copy of a string value. */
static char *
StringOf(JsonbValue *v)
{
	return pnstrdup(v->val.string.val, v->val.string.len);
}

/* Parse a JSON Pointer; root ("") only where allow_root. */
static void
ParsePointer(JsonPointer *p, JsonbValue *v, const char *label, const char *op,
			 const char *field, bool allow_root)
{
	if (v->type != jbvString)
		BadStep(label, op, "field \"%s\" must be a JSON Pointer string", field);
	switch (DocmodelJsonPointerParse(v->val.string.val, v->val.string.len,
									 allow_root, p))
	{
		case JSONPOINTER_OK:
			return;
		case JSONPOINTER_ROOT:
			BadStep(label, op,
					"field \"%s\" may not point at the document root", field);
		case JSONPOINTER_NO_SLASH:
		case JSONPOINTER_BAD_TILDE:
			BadStep(label, op, "bad JSON Pointer \"%s\" in field \"%s\"",
					p->text, field);
	}
}

/* Return the field of a step object, or NULL when absent. */
static JsonbValue *
StepField(JsonbContainer *obj, const char *name)
{
	return getKeyJsonValueFromContainer(obj, name, strlen(name), NULL);
}

/* Refuse members of a step object that its op does not know. */
static void
CheckMembers(JsonbContainer *obj, const StepMember *allowed, const char *label,
			 const char *op)
{
	JsonbIterator *it = JsonbIteratorInit(obj);
	JsonbValue v;
	JsonbIteratorToken tok;

	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		const StepMember *a;
		bool ok = false;

		if (tok != WJB_KEY)
			continue;
		if (v.val.string.len == 2 && memcmp(v.val.string.val, "op", 2) == 0)
			continue;
		for (a = allowed; a < allowed + STEP_MAX_MEMBERS && a->name; a++)
			if ((int) strlen(a->name) == v.val.string.len &&
				memcmp(a->name, v.val.string.val, v.val.string.len) == 0)
				ok = true;
		if (!ok)
			BadStep(label, op, "unknown field \"%.*s\"", v.val.string.len,
					v.val.string.val);
	}
}

/* Free a step's compiled pattern (its memory context's reset callback). */
static void
FreeStepRegex(void *arg)
{
	pg_regfree(&((StepRegex *) arg)->re);
}

/*
 * Compile the pattern v (PostgreSQL's advanced regular expressions, as
 * regexp_replace reads them) once, when the step is parsed; collation "C",
 * so the same in every database and session. Raise 22023 when it does not
 * compile.
 */
static StepRegex *
CompilePattern(JsonbValue *v, const char *label, const char *op,
			   const char *field)
{
	StepRegex *r = palloc0(sizeof(StepRegex));
	pg_wchar *wide;
	int wlen;
	int rc;

	if (v->type != jbvString)
		BadStep(label, op, "field \"%s\" must be a string", field);
	r->text = StringOf(v);
	wide = palloc(sizeof(pg_wchar) * (v->val.string.len + 1));
	wlen = pg_mb2wchar_with_len(v->val.string.val, wide, v->val.string.len);
	rc = pg_regcomp(&r->re, wide, wlen, REG_ADVANCED, C_COLLATION_OID);
	pfree(wide);
	if (rc != REG_OKAY)
	{
		char err[100];

		pg_regerror(rc, &r->re, err, sizeof(err));
		BadStep(label, op,
				"invalid regular expression \"%s\" in field \"%s\": %s",
				r->text, field, err);
	}
	r->free_cb.func = FreeStepRegex;
	r->free_cb.arg = r;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, &r->free_cb);
	return r;
}

/*
 * Read member m of a step from its string value v into st (cast's to, the
 * separator, unit, with, message, format and missing).
 */
static void
ParseWord(Step *st, JsonbValue *v, const StepMember *m, const char *op)
{
	const char *label = st->label;
	char *s = v->type == jbvString ? StringOf(v) : NULL;

	switch (m->kind)
	{
		case M_TO:
		case M_CAST_FROM:
		{
			CastTo t;

			if (s == NULL)
				BadStep(label, op, "field \"%s\" must be a string", m->name);
			if (strcmp(s, "number") == 0)
				t = CAST_NUMBER;
			else if (strcmp(s, "string") == 0)
				t = CAST_STRING;
			else if (strcmp(s, "boolean") == 0)
				t = CAST_BOOLEAN;
			else
				BadStep(label, op,
						"cannot cast %s \"%s\" (number, string or boolean)",
						m->kind == M_TO ? "to" : "from", s);
			if (m->kind == M_TO)
				st->cast_to = t;
			else
			{
				st->cast_from = t;
				st->has_cast_from = true;
			}
			break;
		}
		case M_SEP:
			if (s == NULL || v->val.string.len == 0)
				BadStep(label, op,
						"field \"separator\" must be a non-empty string");
			st->sep = s;
			st->seplen = v->val.string.len;
			break;
		case M_UNIT:
			if (s == NULL)
				BadStep(label, op, "field \"unit\" must be a string");
			/* steps count in ms at the finest */
			if (!DocmodelEpochUnit(s, &st->unit_us) ||
				st->unit_us < INT64CONST(1000000))
				BadStep(label, op, "unknown unit \"%s\" (ms, s, min, h or day)",
						s);
			st->unit_us /= 1000;
			break;
		case M_WITH:
			if (s == NULL)
				BadStep(label, op, "field \"%s\" must be a string", m->name);
			st->with = s;
			st->withlen = v->val.string.len;
			break;
		case M_MESSAGE:
			if (s == NULL || v->val.string.len == 0)
				BadStep(label, op, "field \"%s\" must be a non-empty string",
						m->name);
			st->message = s;
			break;
		case M_FORMAT:
			if (s == NULL ||
				(strcmp(s, "date") != 0 && strcmp(s, "date-time") != 0))
				BadStep(label, op,
						"field \"%s\" must be \"date\" or \"date-time\"",
						m->name);
			st->date_only = strcmp(s, "date") == 0;
			break;
		case M_INPUT:
			CheckInputTemplate(s, v, label, op, m->name);
			st->input = cstring_to_text(s);
			break;
		case M_MISSING:
			if (s != NULL && strcmp(s, "error") == 0)
				st->missing = MISSING_ERROR;
			else if (s != NULL && strcmp(s, "skip") == 0)
				st->missing = MISSING_SKIP;
			else
				BadStep(label, op, "field \"%s\" must be \"error\" or \"skip\"",
						m->name);
			break;
		default:
			elog(ERROR, "step member %s is not a word", m->name);
	}
}

/*
 * Read member m of step object obj into st (CheckMembers has already
 * refused the members its op does not know); root_ok: the path may name
 * the element of a for_each itself ("").
 */
static void
ParseMember(Step *st, JsonbContainer *obj, const StepMember *m, const char *op,
			bool root_ok)
{
	const char *label = st->label;
	JsonbValue *v = StepField(obj, m->name);
	JsonbContainer *c;
	int i;

	if (v == NULL && m->kind < M_INTO_OPT)
		BadStep(label, op, "missing field \"%s\"", m->name);
	if (v == NULL && m->kind == M_SEP)
	{
		st->sep = " ";
		st->seplen = 1;
	}
	else if (v == NULL && m->kind == M_UNIT)
		st->unit_us = INT64CONST(1000);
	else if (v == NULL && m->kind == M_PATH_OPT)
		DocmodelJsonPointerParse("", 0, true, &st->path);
	else if (v == NULL && m->kind == M_FORMAT)
		st->date_only = true;
	if (v == NULL)
		return;
	c = v->type == jbvBinary ? v->val.binary.data : NULL;
	switch (m->kind)
	{
		case M_PATH:
			ParsePointer(&st->path, v, label, op, m->name, root_ok);
			break;
		case M_PATH_OPT:
			ParsePointer(&st->path, v, label, op, m->name, true);
			break;
		case M_FROM:
			ParsePointer(&st->from, v, label, op, m->name, false);
			break;
		case M_INTO:
		case M_INTO_OPT:
		case M_INTO_ROOT:
			ParsePointer(&st->into, v, label, op, m->name,
						 m->kind == M_INTO_ROOT);
			st->has_into = m->kind != M_INTO_OPT ||
						   strcmp(st->into.text, st->path.text) != 0;
			if (m->kind == M_INTO)
				st->path = st->into;
			break;
		case M_PTRS:
			if (c == NULL || !JsonContainerIsArray(c) ||
				JsonContainerSize(c) == 0)
				BadStep(label, op,
						"field \"%s\" must be a non-empty array of JSON "
						"Pointers",
						m->name);
			st->nptrs = JsonContainerSize(c);
			st->ptrs = palloc0(sizeof(JsonPointer) * st->nptrs);
			for (i = 0; i < st->nptrs; i++)
				ParsePointer(&st->ptrs[i], getIthJsonbValueFromContainer(c, i),
							 label, op, m->name, false);
			break;
		case M_VALUE:
		case M_TEMPLATE:
			st->value = DocmodelJsonTreeBuild(v);
			break;
		case M_STEPS:
			if (c == NULL || !JsonContainerIsArray(c))
				BadStep(label, op, "field \"steps\" must be an array");
			st->steps = ParseSteps(c, label, true, &st->nsteps);
			break;
		case M_PATTERN:
		case M_PATTERN_OPT:
			st->regex = CompilePattern(v, label, op, m->name);
			break;
		default:
			ParseWord(st, v, m, op);
	}
}

/* ---------------------------------------------------------------------
 * Applying steps to a tree
 * ---------------------------------------------------------------------
 */

/* Replace each "$" string in the tree at v by a copy of dollar. */
static void
SubstDollar(JsonbValue *v, const JsonbValue *dollar)
{
	int i;

	check_stack_depth();
	if (v->type == jbvString && v->val.string.len == 1 &&
		v->val.string.val[0] == '$')
		*v = DocmodelJsonTreeCopy(dollar);
	else if (v->type == jbvObject)
		for (i = 0; i < v->val.object.nPairs; i++)
			SubstDollar(&v->val.object.pairs[i].value, dollar);
	else if (v->type == jbvArray)
		for (i = 0; i < v->val.array.nElems; i++)
			SubstDollar(&v->val.array.elems[i], dollar);
}

/* Return a copy of t (a wrap template: with each "$" made dollar). */
static JsonbValue *
CopyValue(const JsonbValue *t, const JsonbValue *dollar)
{
	JsonbValue *dst = palloc(sizeof(JsonbValue));

	*dst = DocmodelJsonTreeCopy(t);
	if (dollar != NULL)
		SubstDollar(dst, dollar);
	return dst;
}

void
DocmodelStepsErrorContext(void *arg)
{
	ApplyCx *cx = (ApplyCx *) arg;
	StringInfoData buf;

	initStringInfo(&buf);
	if (cx->step)
		appendStringInfo(&buf, "%s step %s (%s) of type \"%s\"",
						 cx->write_rule ? "write rule" : "migration",
						 cx->step->label, cx->step->opname, cx->type);
	else
		appendStringInfo(&buf, "%s of type \"%s\"",
						 cx->write_rule ? "write rule" : "migration", cx->type);
	if (cx->from)
		appendStringInfo(&buf, " from %s to %s", cx->from, cx->to);
	if (cx->fn)
		appendStringInfo(&buf, " by function %s", cx->fn);
	if (cx->key)
		appendStringInfo(&buf, ", key \"%s\"", cx->key);
	if (cx->step)
		appendStringInfo(&buf, ", path \"%s%s\"", cx->prefix,
						 cx->step->path.text);
	if (cx->step && (cx->step->op == OP_MOVE || cx->step->op == OP_COPY))
		appendStringInfo(&buf, " (from \"%s%s\")", cx->prefix,
						 cx->step->from.text);
	errcontext("%s", buf.data);
}

/* Raise the error of a step whose add at p failed as miss says. */
static void
pg_attribute_noreturn()
	AddFailed(ApplyCx *cx, const Step *st, const JsonPointer *p,
			  const JsonTreeMiss *miss)
{
	if (miss->tok < p->ntok - 1)
		StepFail(cx, st, p->text, "the parent of \"%s\" does not exist",
				 p->text);
	if (miss->status == JSONTREE_NOT_CONTAINER)
		StepFail(cx, st, p->text, "the parent of \"%s\" is %s, not a container",
				 p->text, DocmodelJsonTreeTypeName(miss->at));
	StepFail(cx, st, p->text, "array index \"%.*s\" is out of range",
			 p->toklen[p->ntok - 1], p->tok[p->ntok - 1]);
}

/* Add val at pointer p (RFC 6902 add); raise when the parent is missing. */
static void
AddAt(ApplyCx *cx, const Step *st, JsonbValue *root, const JsonPointer *p,
	  JsonbValue *val)
{
	JsonTreeMiss miss;

	if (!DocmodelJsonTreeAdd(root, p, val, &miss))
		AddFailed(cx, st, p, &miss);
}

/*
 * Remove the value at pointer p and return it; NULL when absent (the
 * caller decides whether that is an error).
 */
static JsonbValue *
RemoveAt(JsonbValue *root, const JsonPointer *p)
{
	JsonTreeMiss miss;
	JsonbValue *res = palloc(sizeof(JsonbValue));

	if (!DocmodelJsonTreeRemove(root, p, res, &miss))
		return NULL;
	return res;
}

/*
 * Run an RFC 6902 step (add, remove, replace, move, copy, test) through
 * jsonpatch's operations; raise with the step's own messages.
 */
static void
ApplyPatchStep(ApplyCx *cx, const Step *st, JsonbValue *root)
{
	JsonTreeMiss miss;
	JsonbValue *value = NULL;
	const JsonPointer *p = &st->path;

	if (st->value != NULL)
		value = st->op == OP_TEST ? st->value : CopyValue(st->value, NULL);
	if (DocmodelJsonPatchApplyOp((JsonPatchOp) st->op, root, &st->path,
								 &st->from, value, &cx->room, &miss))
		return;
	if (miss.status == JSONTREE_TOO_BIG)
		StepFailCode(cx, st, st->path.text, ERRCODE_PROGRAM_LIMIT_EXCEEDED,
					 NULL,
					 "copying \"%s\" would take the document past %zu bytes",
					 st->from.text, JSONTREE_MAX_BYTES);
	if (miss.in_from)
		p = &st->from;
	if (miss.status == JSONTREE_TEST_FAILED)
		StepFail(cx, st, p->text, "test failed: the value at \"%s\" differs",
				 p->text);
	if (st->op == OP_TEST)
		StepFail(cx, st, p->text, "test failed: \"%s\" does not exist",
				 p->text);
	if (miss.in_from || st->op == OP_REMOVE || st->op == OP_REPLACE)
		StepFail(cx, st, p->text, "\"%s\" does not exist", p->text);
	AddFailed(cx, st, p, &miss);
}

/* Return whether s is a JSON number (optional surrounding spaces). */
static bool
LooksNumeric(const char *s)
{
	const char *p = s;
	bool digits = false;

	while (*p == ' ')
		p++;
	if (*p == '-' || *p == '+')
		p++;
	while (*p >= '0' && *p <= '9')
		p++, digits = true;
	if (*p == '.')
	{
		p++;
		while (*p >= '0' && *p <= '9')
			p++, digits = true;
	}
	if (!digits)
		return false;
	if (*p == 'e' || *p == 'E')
	{
		bool exp = false;

		p++;
		if (*p == '-' || *p == '+')
			p++;
		while (*p >= '0' && *p <= '9')
			p++, exp = true;
		if (!exp)
			return false;
	}
	while (*p == ' ')
		p++;
	return *p == '\0';
}

/* cast: convert the value at path in place. */
static void
ApplyCast(ApplyCx *cx, const Step *st, JsonbValue *root)
{
	JsonbValue *v = DocmodelStepResolve(root, &st->path);
	const char *path = st->path.text;

	if (v == NULL || v->type == jbvNull)
		return;
	if (v->type == jbvArray || v->type == jbvObject)
		StepFail(cx, st, path, "cannot cast %s", DocmodelJsonTreeTypeName(v));
	switch (st->cast_to)
	{
		case CAST_NUMBER:
			if (v->type == jbvString)
			{
				char *s = StringOf(v);

				if (!LooksNumeric(s))
					StepFail(cx, st, path, "\"%s\" is not a number", s);
				v->type = jbvNumeric;
				v->val.numeric = DatumGetNumeric(DirectFunctionCall3(
					numeric_in, CStringGetDatum(s),
					ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1)));
			}
			else if (v->type == jbvBool)
			{
				v->val.numeric = int64_to_numeric(v->val.boolean ? 1 : 0);
				v->type = jbvNumeric;
			}
			break;
		case CAST_STRING:
			if (v->type == jbvNumeric)
			{
				char *s = DatumGetCString(DirectFunctionCall1(
					numeric_out, NumericGetDatum(v->val.numeric)));

				*v = DocmodelJsonTreeString(s, strlen(s));
			}
			else if (v->type == jbvBool)
				*v = v->val.boolean ? DocmodelJsonTreeString("true", 4)
									: DocmodelJsonTreeString("false", 5);
			break;
		case CAST_BOOLEAN:
			if (v->type == jbvString)
			{
				bool b;

				if (!parse_bool_with_len(v->val.string.val, v->val.string.len,
										 &b))
					StepFail(cx, st, path, "\"%.*s\" is not a boolean",
							 v->val.string.len, v->val.string.val);
				v->type = jbvBool;
				v->val.boolean = b;
			}
			else if (v->type == jbvNumeric)
			{
				v->val.boolean =
					DatumGetInt32(DirectFunctionCall1(
						numeric_sign, NumericGetDatum(v->val.numeric))) != 0;
				v->type = jbvBool;
			}
			break;
	}
}

/*
 * The appliers of docmodel's own ops, one per op: each applies st to the
 * tree at root. A step whose path is absent does nothing (default adds).
 */

/* default: add the value where nothing is. */
static void
ApplyDefault(ApplyCx *cx, const Step *st, JsonbValue *root)
{
	if (DocmodelStepResolve(root, &st->path) == NULL)
		AddAt(cx, st, root, &st->path, CopyValue(st->value, NULL));
}

/* split: cut a string at the separator into the targets. */
static void
ApplySplit(ApplyCx *cx, const Step *st, JsonbValue *root)
{
	JsonbValue *v =
		DocmodelStepResolveAs(cx, st, root, jbvString, "a string", false);
	char *s;
	int len;
	int pos = 0;
	int i;

	if (v == NULL)
		return;
	s = v->val.string.val;
	len = v->val.string.len;
	RemoveAt(root, &st->path);
	for (i = 0; i < st->nptrs && pos <= len; i++)
	{
		int end = len;
		JsonbValue piece;

		/* the last target takes the rest */
		if (i < st->nptrs - 1)
		{
			int k;

			for (k = pos; k + st->seplen <= len; k++)
				if (memcmp(s + k, st->sep, st->seplen) == 0)
					break;
			end = (k + st->seplen <= len) ? k : len;
		}
		piece = DocmodelJsonTreeString(s + pos, end - pos);
		AddAt(cx, st, root, &st->ptrs[i], &piece);
		pos = (end == len) ? len + 1 : end + st->seplen;
	}
}

/* join: the scalars at paths, joined by the separator, into one string. */
static void
ApplyJoin(ApplyCx *cx, const Step *st, JsonbValue *root)
{
	StringInfoData buf;
	JsonbValue joined;
	int found = 0;
	int i;

	initStringInfo(&buf);
	for (i = 0; i < st->nptrs; i++)
	{
		JsonbValue *v = DocmodelStepResolve(root, &st->ptrs[i]);

		if (v == NULL || v->type == jbvNull)
			continue;
		if (found++ > 0)
			appendBinaryStringInfo(&buf, st->sep, st->seplen);
		if (v->type == jbvString)
			appendBinaryStringInfo(&buf, v->val.string.val, v->val.string.len);
		else if (v->type == jbvNumeric)
			appendStringInfoString(
				&buf, DatumGetCString(DirectFunctionCall1(
						  numeric_out, NumericGetDatum(v->val.numeric))));
		else if (v->type == jbvBool)
			appendStringInfoString(&buf, v->val.boolean ? "true" : "false");
		else
			StepFail(cx, st, st->ptrs[i].text, "cannot join %s",
					 DocmodelJsonTreeTypeName(v));
	}
	if (found == 0)
		return;
	for (i = 0; i < st->nptrs; i++)
		RemoveAt(root, &st->ptrs[i]);
	joined = DocmodelJsonTreeString(buf.data, buf.len);
	AddAt(cx, st, root, &st->into, &joined);
}

/* wrap: put the value (or the template around it) into an array. */
static void
ApplyWrap(ApplyCx *cx, const Step *st, JsonbValue *root)
{
	JsonbValue *v = DocmodelStepResolve(root, &st->path);
	JsonbValue arr;

	if (v == NULL)
		return;
	if (st->has_into && DocmodelStepResolve(root, &st->into) != NULL)
		StepFail(cx, st, st->into.text, "\"%s\" already exists", st->into.text);
	arr.type = jbvArray;
	arr.val.array.rawScalar = false;
	arr.val.array.nElems = 1;
	arr.val.array.elems =
		st->value ? CopyValue(st->value, v) : CopyValue(v, NULL);
	if (st->has_into)
	{
		RemoveAt(root, &st->path);
		AddAt(cx, st, root, &st->into, &arr);
	}
	else
		*v = arr;
}

/*
 * The value in elem at the place of the "$" string in template t (wrap's
 * template), or NULL when elem has none there or t holds no "$".
 */
static JsonbValue *
DollarIn(JsonbValue *t, JsonbValue *elem)
{
	int i;

	check_stack_depth();
	DocmodelJsonTreeExpand(t);
	if (t->type == jbvString && t->val.string.len == 1 &&
		t->val.string.val[0] == '$')
		return elem;
	DocmodelJsonTreeExpand(elem);
	if (t->type == jbvObject && elem->type == jbvObject)
	{
		for (i = 0; i < t->val.object.nPairs; i++)
		{
			JsonbPair *pr = &t->val.object.pairs[i];
			int k = DocmodelJsonTreeFindMember(elem, pr->key.val.string.val,
											   pr->key.val.string.len);
			JsonbValue *res;

			if (k < 0)
				continue;
			res = DollarIn(&pr->value, &elem->val.object.pairs[k].value);
			if (res)
				return res;
		}
	}
	else if (t->type == jbvArray && elem->type == jbvArray &&
			 !t->val.array.rawScalar)
	{
		for (i = 0; i < t->val.array.nElems && i < elem->val.array.nElems; i++)
		{
			JsonbValue *res =
				DollarIn(&t->val.array.elems[i], &elem->val.array.elems[i]);

			if (res)
				return res;
		}
	}
	return NULL;
}

/*
 * unwrap: wrap's inverse: the first element of the array at path (with a
 * template, the value at its "$"), into into (default: path itself); an
 * empty array leaves nothing.
 */
static void
ApplyUnwrap(ApplyCx *cx, const Step *st, JsonbValue *root)
{
	JsonbValue *v = DocmodelStepResolve(root, &st->path);
	JsonbValue *first = NULL;

	if (v == NULL)
		return;
	if (v->type != jbvArray || v->val.array.rawScalar)
		StepFail(cx, st, st->path.text, "expected an array, found %s",
				 DocmodelJsonTreeTypeName(v));
	if (st->has_into && DocmodelStepResolve(root, &st->into) != NULL)
		StepFail(cx, st, st->into.text, "\"%s\" already exists", st->into.text);
	if (v->val.array.nElems > 0)
	{
		first = &v->val.array.elems[0];
		if (st->value)
		{
			JsonbValue tmpl = DocmodelJsonTreeCopy(st->value);

			first = DollarIn(&tmpl, first);
		}
		if (first)
			first = CopyValue(first, NULL);
	}
	if (!st->has_into)
	{
		if (first)
			*v = *first;
		else
			RemoveAt(root, &st->path);
		return;
	}
	RemoveAt(root, &st->path);
	if (first)
		AddAt(cx, st, root, &st->into, first);
}

/* strip_dashes: drop every "-" of a string. */
static void
ApplyStripDashes(ApplyCx *cx, const Step *st, JsonbValue *root)
{
	JsonbValue *v =
		DocmodelStepResolveAs(cx, st, root, jbvString, "a string", true);
	char *out;
	int n = 0;
	int i;

	if (v == NULL)
		return;
	out = palloc(v->val.string.len + 1);
	for (i = 0; i < v->val.string.len; i++)
		if (v->val.string.val[i] != '-')
			out[n++] = v->val.string.val[i];
	*v = DocmodelJsonTreeString(out, n);
}

/* nest: move the values at paths into the object at into. */
static void
ApplyNest(ApplyCx *cx, const Step *st, JsonbValue *root)
{
	JsonbValue *target = DocmodelStepResolve(root, &st->into);
	int i;

	if (target && target->type != jbvObject)
		StepFail(cx, st, st->into.text, "\"%s\" is %s, not an object",
				 st->into.text, DocmodelJsonTreeTypeName(target));
	for (i = 0; i < st->nptrs; i++)
	{
		const JsonPointer *p = &st->ptrs[i];
		JsonbValue *v = RemoveAt(root, p);

		if (v == NULL)
			continue;
		/* a removal may have moved the target: find it again */
		target = DocmodelStepResolve(root, &st->into);
		if (target == NULL)
		{
			JsonbValue empty;

			empty.type = jbvObject;
			empty.val.object.nPairs = 0;
			empty.val.object.pairs = NULL;
			AddAt(cx, st, root, &st->into, &empty);
			target = DocmodelStepResolve(root, &st->into);
		}
		DocmodelJsonTreeSetMember(target, p->tok[p->ntok - 1],
								  p->toklen[p->ntok - 1], v);
	}
}

/* unnest: move the members of the object at path up into its parent. */
static void
ApplyUnnest(ApplyCx *cx, const Step *st, JsonbValue *root)
{
	JsonbValue *v = DocmodelStepResolve(root, &st->path);
	JsonbValue *target;
	JsonPointer parent;
	int i;

	if (v == NULL)
		return;
	if (v->type != jbvObject)
		StepFail(cx, st, st->path.text, "\"%s\" is %s, not an object",
				 st->path.text, DocmodelJsonTreeTypeName(v));
	v = RemoveAt(root, &st->path);
	parent = st->has_into ? st->into : st->path;
	if (!st->has_into)
		parent.ntok--;
	target = DocmodelStepResolve(root, &parent);
	if (target == NULL || target->type != jbvObject)
		StepFail(cx, st, st->path.text, "the target of \"%s\" is not an object",
				 st->path.text);
	for (i = 0; i < v->val.object.nPairs; i++)
	{
		JsonbPair *pr = &v->val.object.pairs[i];

		if (DocmodelJsonTreeFindMember(target, pr->key.val.string.val,
									   pr->key.val.string.len) >= 0)
			StepFail(cx, st, st->path.text,
					 "field \"%.*s\" already exists in the target",
					 pr->key.val.string.len, pr->key.val.string.val);
		DocmodelJsonTreeSetMember(target, pr->key.val.string.val,
								  pr->key.val.string.len, &pr->value);
	}
}

/* for_each: apply the nested steps to every element of an array. */
static void
ApplyForEach(ApplyCx *cx, const Step *st, JsonbValue *root)
{
	JsonbValue *v = DocmodelStepResolve(root, &st->path);
	const char *saved = cx->prefix;
	int i;

	if (v == NULL)
		return;
	if (v->type != jbvArray)
		StepFail(cx, st, st->path.text, "\"%s\" is %s, not an array",
				 st->path.text, DocmodelJsonTreeTypeName(v));
	for (i = 0; i < v->val.array.nElems; i++)
	{
		cx->prefix = psprintf("%s%s/%d", saved, st->path.text, i);
		DocmodelStepsApply(cx, st->steps, st->nsteps, &v->val.array.elems[i]);
	}
	cx->prefix = saved;
}

/* drop_empty: drop null, "", [] and {} at path (the whole document when none). */
static void
ApplyDropEmpty(ApplyCx *cx, const Step *st, JsonbValue *root)
{
	static const DocmodelCompactOpts drop = {true, true, false, 0};
	JsonbValue *v = DocmodelStepResolve(root, &st->path);

	if (v == NULL)
		return;
	DocmodelCompact(v, &drop);
	if (st->path.ntok > 0 && DocmodelIsEmptyValue(v))
		RemoveAt(root, &st->path);
}

/* Append the n wide characters at w to buf in the database encoding. */
static void
AppendWide(StringInfo buf, const pg_wchar *w, int n)
{
	if (n <= 0)
		return;
	enlargeStringInfo(buf, n * MAX_MULTIBYTE_CHAR_LEN);
	buf->len += pg_wchar2mb_with_len(w, buf->data + buf->len, n);
	buf->data[buf->len] = '\0';
}

/*
 * Run the step's pattern on the wide string w (wlen characters) from
 * character start; fill m (nmatch entries); return false when it does not
 * match.
 */
static bool
RunPattern(ApplyCx *cx, const Step *st, pg_wchar *w, int wlen, int start,
		   regmatch_t *m, int nmatch)
{
	int rc = pg_regexec(&st->regex->re, w, wlen, start, NULL, nmatch, m, 0);

	if (rc == REG_NOMATCH)
		return false;
	if (rc != REG_OKAY)
	{
		char err[100];

		CHECK_FOR_INTERRUPTS(); /* REG_CANCEL */
		pg_regerror(rc, &st->regex->re, err, sizeof(err));
		StepFailCode(cx, st, st->path.text, ERRCODE_INVALID_REGULAR_EXPRESSION,
					 NULL, "regular expression failed: %s", err);
	}
	return true;
}

/* Return the string v as wide characters (*wlen of them). */
static pg_wchar *
WideOf(const JsonbValue *v, int *wlen)
{
	pg_wchar *w = palloc(sizeof(pg_wchar) * (v->val.string.len + 1));

	*wlen = pg_mb2wchar_with_len(v->val.string.val, w, v->val.string.len);
	return w;
}

/*
 * replace_regex: replace every match of the pattern in the string at path,
 * as regexp_replace(value, pattern, with, 'g') does: in "with", \1 to \9
 * stand for the pattern's parenthesized parts, \& for the whole match, \\
 * for a backslash.
 */
static void
ApplyReplaceRegex(ApplyCx *cx, const Step *st, JsonbValue *root)
{
	JsonbValue *v =
		DocmodelStepResolveAs(cx, st, root, jbvString, "a string", true);
	regmatch_t m[10];
	StringInfoData buf;
	pg_wchar *w;
	int wlen;
	int nmatch;
	int done = 0; /* characters of w copied or replaced */
	int start;

	if (v == NULL)
		return;
	w = WideOf(v, &wlen);
	/* the parts of a match are tracked only when "with" names them */
	nmatch = memchr(st->with, '\\', st->withlen) ? lengthof(m) : 1;
	if (!RunPattern(cx, st, w, wlen, 0, m, nmatch))
		return; /* no match: the value stays as it is */
	initStringInfo(&buf);
	do
	{
		const char *p = st->with;
		const char *end = st->with + st->withlen;

		AppendWide(&buf, w + done, m[0].rm_so - done);
		while (p < end)
		{
			int k;

			if (*p != '\\' || p + 1 == end)
			{
				appendStringInfoChar(&buf, *p++);
				continue;
			}
			p++;
			if (*p >= '1' && *p <= '9')
				k = *p++ - '0';
			else if (*p == '&')
				k = 0, p++;
			else
			{
				appendStringInfoChar(&buf, '\\');
				if (*p == '\\')
					p++;
				continue;
			}
			if (m[k].rm_so >= 0 && m[k].rm_eo >= 0)
				AppendWide(&buf, w + m[k].rm_so, m[k].rm_eo - m[k].rm_so);
		}
		done = m[0].rm_eo;
		/* a match of zero characters: search again one further on */
		start = m[0].rm_so == m[0].rm_eo ? done + 1 : done;
	} while (start <= wlen && RunPattern(cx, st, w, wlen, start, m, nmatch));
	AppendWide(&buf, w + done, wlen - done);
	*v = DocmodelJsonTreeString(buf.data, buf.len);
}

/*
 * Raise 23514 for a require step: its message (else the reason), the
 * reason and where in the detail.
 */
static void
pg_attribute_noreturn()
	RequireFailed(ApplyCx *cx, const Step *st, const char *reason)
{
	StringInfoData detail;

	initStringInfo(&detail);
	if (st->message)
		appendStringInfo(&detail, "%s. ", reason);
	DocmodelStepAppendWhere(&detail, cx, st, st->path.text);
	ereport(ERROR, (errcode(ERRCODE_CHECK_VIOLATION),
					errmsg("%s", st->message ? st->message : reason),
					errdetail_internal("%s", detail.data)));
}

/*
 * require: the value at path must be there and not null; with a pattern,
 * a string the pattern matches.
 */
static void
ApplyRequire(ApplyCx *cx, const Step *st, JsonbValue *root)
{
	JsonbValue *v = DocmodelStepResolve(root, &st->path);
	const char *path = st->path.text;
	regmatch_t m[1];
	pg_wchar *w;
	int wlen;

	if (v == NULL)
		RequireFailed(cx, st, psprintf("\"%s\" does not exist", path));
	if (v->type == jbvNull)
		RequireFailed(cx, st, psprintf("\"%s\" is null", path));
	if (st->regex == NULL)
		return;
	if (v->type != jbvString)
		RequireFailed(cx, st,
					  psprintf("\"%s\" is %s, not a string", path,
							   DocmodelJsonTreeTypeName(v)));
	w = WideOf(v, &wlen);
	if (!RunPattern(cx, st, w, wlen, 0, m, 1))
		RequireFailed(
			cx, st,
			psprintf("\"%s\" does not match \"%s\"", path, st->regex->text));
}

/* Shorthands for the table. */
#define PATH           \
	{                  \
		"path", M_PATH \
	}
#define VALUE            \
	{                    \
		"value", M_VALUE \
	}
#define PATHS           \
	{                   \
		"paths", M_PTRS \
	}
#define MISSING              \
	{                        \
		"missing", M_MISSING \
	}

/*
 * The ops: name, members besides "op", root_ok, applier, and for "missing"
 * the source it looks at and whether the op raises on its own; see StepOp.
 */
static const StepOpDef step_ops[OP_COUNT] = {
	{"add", {PATH, VALUE}, false, ApplyPatchStep},
	{"remove", {PATH, MISSING}, false, ApplyPatchStep, M_PATH, true},
	{"replace", {PATH, VALUE, MISSING}, true, ApplyPatchStep, M_PATH, true},
	{"move",
	 {{"from", M_FROM}, PATH, MISSING},
	 false,
	 ApplyPatchStep,
	 M_FROM,
	 true},
	{"copy",
	 {{"from", M_FROM}, PATH, MISSING},
	 false,
	 ApplyPatchStep,
	 M_FROM,
	 true},
	{"test", {PATH, VALUE, MISSING}, true, ApplyPatchStep, M_PATH, true},
	{"default", {PATH, VALUE}, false, ApplyDefault},
	{"split",
	 {PATH, {"into", M_PTRS}, {"separator", M_SEP}, MISSING},
	 false,
	 ApplySplit},
	{"join",
	 {PATHS, {"into", M_INTO}, {"separator", M_SEP}, MISSING},
	 false,
	 ApplyJoin,
	 M_PTRS},
	{"wrap",
	 {PATH, {"into", M_INTO_OPT}, {"template", M_TEMPLATE}, MISSING},
	 false,
	 ApplyWrap},
	{"cast",
	 {PATH, {"to", M_TO}, {"from", M_CAST_FROM}, MISSING},
	 true,
	 ApplyCast},
	{"to_epoch",
	 {PATH, {"unit", M_UNIT}, {"input", M_INPUT}, MISSING},
	 true,
	 DocmodelStepToEpoch},
	{"from_epoch",
	 {PATH, {"unit", M_UNIT}, MISSING},
	 true,
	 DocmodelStepFromEpoch},
	{"strip_dashes", {PATH, MISSING}, true, ApplyStripDashes},
	{"nest", {PATHS, {"into", M_INTO}, MISSING}, false, ApplyNest, M_PTRS},
	{"unnest", {PATH, {"into", M_INTO_ROOT}, MISSING}, false, ApplyUnnest},
	{"for_each", {PATH, {"steps", M_STEPS}, MISSING}, false, ApplyForEach},
	{"drop_empty", {{"path", M_PATH_OPT}, MISSING}, true, ApplyDropEmpty},
	{"replace_regex",
	 {PATH, {"pattern", M_PATTERN}, {"with", M_WITH}, MISSING},
	 true,
	 ApplyReplaceRegex},
	{"require",
	 {PATH, {"pattern", M_PATTERN_OPT}, {"message", M_MESSAGE}, MISSING},
	 true,
	 ApplyRequire,
	 M_PATH,
	 true},
	{"format_date",
	 {PATH,
	  {"format", M_FORMAT},
	  {"unit", M_UNIT},
	  {"input", M_INPUT},
	  MISSING},
	 true,
	 DocmodelStepFormatDate},
	{"unwrap",
	 {PATH, {"into", M_INTO_OPT}, {"template", M_TEMPLATE}, MISSING},
	 false,
	 ApplyUnwrap},
};

/* Parse one step object into st; raise 22023 naming its label and op. */
static void
ParseStep(Step *st, JsonbValue *sv, const char *label, bool nested)
{
	JsonbContainer *obj;
	JsonbValue *opv;
	char *op;
	const StepMember *m;
	int i;

	memset(st, 0, sizeof(Step));
	st->label = pstrdup(label);
	if (sv->type != jbvBinary || !JsonContainerIsObject(sv->val.binary.data))
		BadStep(label, NULL, "a step must be an object");
	obj = sv->val.binary.data;
	opv = StepField(obj, "op");
	if (opv == NULL)
		BadStep(label, NULL, "missing field \"op\"");
	if (opv->type != jbvString)
		BadStep(label, NULL, "field \"op\" must be a string");
	op = StringOf(opv);
	for (i = 0; i < OP_COUNT; i++)
		if (strcmp(op, step_ops[i].name) == 0)
			break;
	if (i == OP_COUNT)
		BadStep(label, NULL, "unknown op \"%s\"", op);
	st->op = (StepOp) i;
	st->opname = step_ops[i].name;
	CheckMembers(obj, step_ops[i].members, label, op);
	for (m = step_ops[i].members;
		 m < step_ops[i].members + STEP_MAX_MEMBERS && m->name; m++)
		ParseMember(st, obj, m, op, nested && step_ops[i].root_ok);
	if (st->op == OP_MOVE && st->from.ntok < st->path.ntok &&
		DocmodelJsonPointerIsPrefix(&st->from, &st->path))
		BadStep(label, op, "cannot move \"%s\" into its own child \"%s\"",
				st->from.text, st->path.text);
	for (i = 0; st->op == OP_NEST && i < st->nptrs; i++)
		if (DocmodelJsonPointerIsPrefix(&st->ptrs[i], &st->into))
			BadStep(label, op,
					"cannot nest \"%s\" into itself or its child \"%s\"",
					st->ptrs[i].text, st->into.text);
}

/* Parse a steps array; labels are 1-based, "2.1" for nested steps. */
static Step *
ParseSteps(JsonbContainer *arr, const char *prefix, bool nested, int *nsteps)
{
	int n = JsonContainerSize(arr);
	Step *steps = palloc0(sizeof(Step) * Max(n, 1));
	int i;

	for (i = 0; i < n; i++)
	{
		JsonbValue *sv = getIthJsonbValueFromContainer(arr, i);
		char label[64];

		if (prefix)
			snprintf(label, sizeof(label), "%s.%d", prefix, i + 1);
		else
			snprintf(label, sizeof(label), "%d", i + 1);
		ParseStep(&steps[i], sv, label, nested);
	}
	*nsteps = n;
	return steps;
}

Step *
DocmodelStepsCheck(Jsonb *steps, int *nsteps)
{
	if (!JB_ROOT_IS_ARRAY(steps) || JB_ROOT_IS_SCALAR(steps))
		ereport(
			ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("migration steps must be a JSON array of step objects"),
			 errhint("Example: [{\"op\": \"remove\", \"path\": \"/old\"}].")));
	return ParseSteps(&steps->root, NULL, false, nsteps);
}

const char *
DocmodelStepsOpName(StepOp op)
{
	return step_ops[op].name;
}

/*
 * Tell whether step st applies as its "missing" member says: false (skip
 * it) when "skip" and its source is absent; raise 22000 when "error" and a
 * source is absent where the op itself would skip. Join and nest read each
 * of their paths: "skip" is their own rule, "error" wants every one.
 */
static bool
SourcesPresent(ApplyCx *cx, const Step *st, JsonbValue *root)
{
	const StepOpDef *def = &step_ops[st->op];
	int n = def->source == M_PTRS ? st->nptrs : 1;
	int i;

	if (st->missing == MISSING_DEFAULT ||
		(st->missing == MISSING_SKIP && def->source == M_PTRS) ||
		(st->missing == MISSING_ERROR && def->strict))
		return true;
	for (i = 0; i < n; i++)
	{
		const JsonPointer *p = def->source == M_PTRS   ? &st->ptrs[i]
							   : def->source == M_FROM ? &st->from
													   : &st->path;

		if (DocmodelStepResolve(root, p) != NULL)
			continue;
		if (st->missing == MISSING_SKIP)
			return false;
		StepFail(cx, st, p->text, "\"%s\" does not exist", p->text);
	}
	return true;
}

void
DocmodelStepsApply(ApplyCx *cx, const Step *steps, int nsteps, JsonbValue *root)
{
	const Step *outer = cx->step; /* the for_each we are in, or NULL */
	int i;

	for (i = 0; i < nsteps; i++)
	{
		CHECK_FOR_INTERRUPTS();
		cx->step = &steps[i];
		if (SourcesPresent(cx, &steps[i], root))
			step_ops[steps[i].op].apply(cx, &steps[i], root);
	}
	cx->step = outer;
}

/* See migrate/steps.h: the setters, which give the same document again. */
void
DocmodelStepsCheckWriteRule(const Step *steps, int nsteps)
{
	int i;

	for (i = 0; i < nsteps; i++)
	{
		const Step *st = &steps[i];

		switch (st->op)
		{
			case OP_DEFAULT:
			case OP_CAST:
			case OP_STRIP_DASHES:
			case OP_DROP_EMPTY:
			case OP_REPLACE_REGEX:
			case OP_REQUIRE:
			case OP_FORMAT_DATE:
				break;
			case OP_FOR_EACH:
				DocmodelStepsCheckWriteRule(st->steps, st->nsteps);
				break;
			default:
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("op \"%s\" cannot be a step of a write rule",
								DocmodelStepsOpName(st->op)),
						 errdetail("Step %s. A write rule runs on every "
								   "write, also of documents it has already "
								   "set: its steps are setters that leave a "
								   "set document as it is.",
								   st->label),
						 errhint("Use default, cast, strip_dashes, "
								 "drop_empty, replace_regex, require, "
								 "format_date, or for_each of them; "
								 "reshape documents with a migration.")));
		}
	}
}

/* ---------------------------------------------------------------------
 * SQL-callable checks (register_migration, register_write_rule)
 * ---------------------------------------------------------------------
 */

PG_FUNCTION_INFO_V1(migration_check_steps);
PG_FUNCTION_INFO_V1(migration_check_write_rule_steps);

/*
 * _check_write_rule_steps(steps jsonb): raise 22023 when a step is bad or
 * not one a write rule may hold.
 */
Datum
migration_check_write_rule_steps(PG_FUNCTION_ARGS)
{
	int n;
	Step *steps = DocmodelStepsCheck(PG_GETARG_JSONB_P(0), &n);

	DocmodelStepsCheckWriteRule(steps, n);
	PG_RETURN_VOID();
}

/* _check_migration_steps(steps jsonb): raise 22023 when a step is bad */
Datum
migration_check_steps(PG_FUNCTION_ARGS)
{
	int n;

	DocmodelStepsCheck(PG_GETARG_JSONB_P(0), &n);
	PG_RETURN_VOID();
}
