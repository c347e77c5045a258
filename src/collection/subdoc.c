/*-------------------------------------------------------------------------
 *
 * collection/subdoc.c
 *	  Couchbase's sub-document API (README, "Sub-documents"): lookup_in
 *	  (get, exists, count) and mutate_in (insert, upsert, replace, remove,
 *	  array_append, array_prepend, array_insert, array_addunique,
 *	  increment, decrement) on paths inside one document, in Couchbase's
 *	  path syntax (a.b[2].c, json/pointer.c) or as a JSON Pointer.
 *
 *	  Specs are parsed and checked once per call (SubdocParse): a malformed
 *	  spec raises there; what Couchbase finds only when the spec's turn
 *	  comes (its path's syntax and levels, its value's depth and kind, its
 *	  delta) is kept with the spec and raised then (SubdocDefer). lookup_in
 *	  reads the document as get() does (migrated) and resolves each spec on
 *	  the shared tree (json/tree.h); a spec that cannot be read gives an
 *	  error object in its result, the call goes on. mutate_in writes with
 *	  one statement through kv.c (DocmodelKvWriteWith: its plan cache, lock
 *	  and cas rules), whose new doc is _mutate_in_apply(stored doc, specs,
 *	  key): every spec applied in C on one tree, the document written once
 *	  through the collection trigger. Without a cas or preserve_expiry the
 *	  statement is a leaner one (SubdocUpdateLean), with no quals or
 *	  expressions for those. A failing spec raises inside that
 *	  statement, so nothing is written (all or nothing).
 *
 * Shared state: SubdocActive, the parsed specs of the mutate_in call whose
 * statement is running (set and restored around it, also on error), so
 * that _mutate_in_apply does not parse them again and leaves the per-spec
 * results there. _mutate_in_apply called otherwise (directly in SQL, or by
 * a nested statement with other specs) parses its own.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "common/int.h"
#include "fmgr.h"
#include "executor/spi.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "docmodel.h"
#include "json/pointer.h"
#include "json/tree.h"
#include "collection/kv.h"
#include "migrate/migrate.h"
#include "collection/subdoc.h"

PG_FUNCTION_INFO_V1(subdoc_lookup_in);
PG_FUNCTION_INFO_V1(subdoc_mutate_in);
PG_FUNCTION_INFO_V1(subdoc_mutate_in_apply);

/*
 * Couchbase's limits: a path of at most 1024 bytes and 31 components (32
 * with the root); a document at most 32 levels deep, a scalar counting as
 * one ({"a": 1} is 2 deep), so a value at a path of n components nests at
 * most 32 - n levels.
 */
#define SUBDOC_MAX_SPECS 16
#define SUBDOC_MAX_PATH 1024
#define SUBDOC_MAX_DEPTH 32
#define SUBDOC_MAX_LEVELS (SUBDOC_MAX_DEPTH - 1)

typedef enum SubdocOp
{
	SD_GET,
	SD_EXISTS,
	SD_COUNT,
	SD_INSERT,
	SD_UPSERT,
	SD_REPLACE,
	SD_REMOVE,
	SD_ARRAY_APPEND,
	SD_ARRAY_PREPEND,
	SD_ARRAY_INSERT,
	SD_ARRAY_ADDUNIQUE,
	SD_INCREMENT,
	SD_DECREMENT,
	SD_NOPS
} SubdocOp;

/* What each op is and takes. */
static const struct
{
	const char *name;
	bool mutation;
	bool value;  /* takes "value" (required) */
	bool values; /* may take "values" instead (several elements) */
	bool create; /* takes "create_path" */
	bool root;   /* allowed on the root "" */
} SubdocOps[SD_NOPS] = {
	[SD_GET] = {"get", false, false, false, false, true},
	[SD_EXISTS] = {"exists", false, false, false, false, false},
	[SD_COUNT] = {"count", false, false, false, false, true},
	[SD_INSERT] = {"insert", true, true, false, true, false},
	[SD_UPSERT] = {"upsert", true, true, false, true, false},
	[SD_REPLACE] = {"replace", true, true, false, false, true},
	[SD_REMOVE] = {"remove", true, false, false, false, false},
	[SD_ARRAY_APPEND] = {"array_append", true, true, true, true, true},
	[SD_ARRAY_PREPEND] = {"array_prepend", true, true, true, true, true},
	[SD_ARRAY_INSERT] = {"array_insert", true, true, true, false, false},
	[SD_ARRAY_ADDUNIQUE] = {"array_addunique", true, true, false, true, true},
	[SD_INCREMENT] = {"increment", true, false, false, true, false},
	[SD_DECREMENT] = {"decrement", true, false, false, true, false},
};

/* Why a spec could not apply, as Couchbase names it. */
typedef struct SubdocMiss
{
	int sqlstate;
	const char *name; /* PathNotFound, PathMismatch, ... */
	char *what;       /* the message's end: path "a.b" not found */
	char *detail;
} SubdocMiss;

/* One parsed spec. */
typedef struct SubdocSpec
{
	SubdocOp op;
	SubdocMiss *bad; /* why its path or value cannot apply: raised when the
					  * spec's turn comes, as Couchbase checks them */
	JsonPointer path;
	bool create_path;
	int nvalues;
	JsonbValue *values; /* scalars, or containers as jbvBinary */
	int64 delta;        /* increment's; decrement's negated */
	int32 max;          /* array_append/prepend's "max": trim to it; 0: none */
} SubdocSpec;

/* One call's specs and per-spec results. */
typedef struct SubdocCall
{
	bool mutate;
	const char *key;
	Jsonb *raw; /* the specs as given */
	int nspecs;
	SubdocSpec specs[SUBDOC_MAX_SPECS];
	bool has_result[SUBDOC_MAX_SPECS];
	int64 result[SUBDOC_MAX_SPECS];
	bool failed; /* a spec raised in mutate_in's statement */
	Oid relid;   /* mutate_in's collection, else InvalidOid */
} SubdocCall;

static SubdocCall *SubdocActive = NULL;

/* The function the errors name. */
static const char *
SubdocFn(const SubdocCall *call)
{
	return call->mutate ? "mutate_in" : "lookup_in";
}

/* Raise a spec's error: the key, the spec index, its op; detail as named. */
static void
SubdocRaise(const SubdocCall *call, int i, const SubdocMiss *m)
{
	ereport(ERROR,
			(errcode(m->sqlstate),
			 errmsg("%s spec %d (%s) of document \"%s\": %s", SubdocFn(call), i,
					SubdocOps[call->specs[i].op].name, call->key, m->what),
			 errdetail("%s: %s", m->name, m->detail), errcouchbase(m->name),
			 OidIsValid(call->relid) ? DocmodelErrCollection(call->relid, "doc")
									 : 0));
}

/* Fill *m; return false. */
static bool
SubdocSetMiss(SubdocMiss *m, int sqlstate, const char *name, char *what,
			  char *detail)
{
	m->sqlstate = sqlstate;
	m->name = name;
	m->what = what;
	m->detail = detail;
	return false;
}

/* Raise a spec that is malformed (22023 unless sqlstate says otherwise). */
static void
SubdocBadSpec(const SubdocCall *call, int i, const char *op, int sqlstate,
			  const char *name, char *msg)
{
	if (op == NULL)
		ereport(ERROR, (errcode(sqlstate),
						errmsg("%s spec %d of document \"%s\": %s",
							   SubdocFn(call), i, call->key, msg),
						errdetail("%s: %s", name,
								  "Specs look like {\"op\": \"get\", "
								  "\"path\": \"a.b[0]\"}."),
						errcouchbase(name)));
	ereport(ERROR,
			(errcode(sqlstate),
			 errmsg("%s spec %d (%s) of document \"%s\": %s", SubdocFn(call), i,
					op, call->key, msg),
			 errdetail("%s: see doc/subdoc.md, \"Sub-documents\".", name),
			 errcouchbase(name)));
}

/*
 * Record why spec i cannot apply (its path or value, which Couchbase
 * checks when the spec's turn comes): raised then, so that an earlier
 * spec's failure is the one reported. A spec keeps its first reason.
 */
static void
SubdocDefer(SubdocCall *call, int i, int sqlstate, const char *name, char *msg)
{
	SubdocSpec *s = &call->specs[i];

	if (s->bad != NULL)
		return;
	s->bad = palloc(sizeof(SubdocMiss));
	SubdocSetMiss(s->bad, sqlstate, name, msg,
				  pstrdup("see doc/subdoc.md, \"Sub-documents\"."));
}

/*
 * Tell whether token t of p is an array index: written [n] in Couchbase's
 * syntax; in a JSON Pointer, digits or "-1".
 */
static bool
SubdocIsIndex(const JsonPointer *p, int t)
{
	int index;

	if (p->index != NULL)
		return p->index[t];
	return (p->toklen[t] == 2 && p->tok[t][0] == '-' && p->tok[t][1] == '1') ||
		   DocmodelJsonPointerArrayIndex(p->tok[t], p->toklen[t], &index) ==
			   JSONPOINTER_INDEX;
}

/* Fill *m when doc is deeper than Couchbase reads (DocTooDeep). */
static bool
SubdocDocDepth(Jsonb *doc, SubdocMiss *m)
{
	if (doc == NULL || JB_ROOT_IS_SCALAR(doc) ||
		DocmodelJsonTreeContainerDepth(&doc->root, SUBDOC_MAX_DEPTH) <=
			SUBDOC_MAX_DEPTH)
		return true;
	return SubdocSetMiss(
		m, ERRCODE_PROGRAM_LIMIT_EXCEEDED, "DocTooDeep",
		psprintf("the document is more than %d levels deep", SUBDOC_MAX_DEPTH),
		psprintf("A document is read to at most %d levels (a scalar "
				 "counts as one).",
				 SUBDOC_MAX_DEPTH));
}

/*
 * Check one value of spec i: the document it makes at most 32 levels deep
 * (ValueTooDeep), a primitive for addunique (ValueInvalid).
 */
static void
SubdocCheckValue(SubdocCall *call, int i, const JsonbValue *v)
{
	SubdocSpec *s = &call->specs[i];
	/* an array op's value goes one level below its path */
	bool inside = s->op == SD_ARRAY_APPEND || s->op == SD_ARRAY_PREPEND ||
				  s->op == SD_ARRAY_ADDUNIQUE;
	int limit = SUBDOC_MAX_DEPTH - s->path.ntok - (inside ? 1 : 0);

	if (DocmodelJsonTreeDepth(v, limit) > limit)
		SubdocDefer(call, i, ERRCODE_PROGRAM_LIMIT_EXCEEDED, "ValueTooDeep",
					psprintf("the value at path \"%s\" would make the "
							 "document more than %d levels deep",
							 s->path.text, SUBDOC_MAX_DEPTH));
	if (s->op == SD_ARRAY_ADDUNIQUE && v->type == jbvBinary)
		SubdocDefer(call, i, ERRCODE_INVALID_PARAMETER_VALUE, "ValueInvalid",
					pstrdup("array_addunique takes a primitive value (a "
							"string, number, boolean or null)"));
}

/* Read the delta of increment/decrement spec i into s->delta. */
static void
SubdocDelta(SubdocCall *call, int i, SubdocSpec *s, const JsonbValue *v)
{
	char *text;
	char *end;
	int64 d = 1;

	if (v != NULL && v->type != jbvNumeric)
		SubdocDefer(call, i, ERRCODE_INVALID_PARAMETER_VALUE, "DeltaInvalid",
					pstrdup("\"delta\" must be a non-zero integer"));
	else if (v != NULL)
	{
		text = DatumGetCString(
			DirectFunctionCall1(numeric_out, NumericGetDatum(v->val.numeric)));
		errno = 0;
		d = strtoi64(text, &end, 10);
		if (*end != '\0' || errno != 0 || d == 0 ||
			(s->op == SD_DECREMENT && d == PG_INT64_MIN))
			SubdocDefer(
				call, i, ERRCODE_INVALID_PARAMETER_VALUE, "DeltaInvalid",
				psprintf("delta %s is not a non-zero 64-bit integer", text));
	}
	s->delta = s->op == SD_DECREMENT ? -d : d;
}

/* The members of one spec object, as found (NULL when absent). */
typedef struct SubdocMembers
{
	JsonbValue *op;
	JsonbValue *path;
	JsonbValue *value;
	JsonbValue *values;
	JsonbValue *delta;
	JsonbValue *max;
} SubdocMembers;

/*
 * Read the members of spec i (v: a jbvBinary) into *m, and its flags into
 * *s; refuse a spec that is not an object and members no op knows.
 */
static void
SubdocReadMembers(SubdocCall *call, int i, const JsonbValue *v, SubdocSpec *s,
				  SubdocMembers *m)
{
	JsonbIterator *it;
	JsonbValue k;
	JsonbValue x;
	JsonbIteratorToken tok;
	StringInfoData unknown;

	if (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
		SubdocBadSpec(call, i, NULL, ERRCODE_INVALID_PARAMETER_VALUE,
					  "InvalidArgument", pstrdup("a spec must be an object"));
	memset(s, 0, sizeof(*s));
	memset(m, 0, sizeof(*m));
	initStringInfo(&unknown);
	it = JsonbIteratorInit(v->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
	{
		JsonbValue *copy;

		if (tok != WJB_KEY)
			continue;
		JsonbIteratorNext(&it, &x, true);
		copy = palloc(sizeof(JsonbValue));
		*copy = x;
#define SUBDOC_IS(name)                  \
	(k.val.string.len == strlen(name) && \
	 memcmp(k.val.string.val, name, k.val.string.len) == 0)
		if (SUBDOC_IS("op"))
			m->op = copy;
		else if (SUBDOC_IS("path"))
			m->path = copy;
		else if (SUBDOC_IS("value"))
			m->value = copy;
		else if (SUBDOC_IS("values"))
			m->values = copy;
		else if (SUBDOC_IS("delta"))
			m->delta = copy;
		else if (SUBDOC_IS("max"))
			m->max = copy;
		else if (SUBDOC_IS("create_path"))
		{
			if (x.type != jbvBool)
				SubdocBadSpec(call, i, NULL, ERRCODE_INVALID_PARAMETER_VALUE,
							  "InvalidArgument",
							  pstrdup("\"create_path\" must be a boolean"));
			s->create_path = x.val.boolean;
		}
		else if (SUBDOC_IS("xattr"))
		{
			if (x.type != jbvBool)
				SubdocBadSpec(call, i, NULL, ERRCODE_INVALID_PARAMETER_VALUE,
							  "InvalidArgument",
							  pstrdup("\"xattr\" must be a boolean"));
			if (x.val.boolean)
				SubdocBadSpec(call, i, NULL, ERRCODE_FEATURE_NOT_SUPPORTED,
							  "XattrUnsupported",
							  pstrdup("extended attributes (\"xattr\": true) "
									  "are not supported"));
		}
		else
			appendStringInfo(&unknown, "%s\"%.*s\"",
							 unknown.len > 0 ? ", " : "", k.val.string.len,
							 k.val.string.val);
#undef SUBDOC_IS
	}
	if (unknown.len > 0)
		SubdocBadSpec(call, i, NULL, ERRCODE_INVALID_PARAMETER_VALUE,
					  "InvalidArgument",
					  psprintf("unknown member %s", unknown.data));
}

/* Find spec i's op (s->op) and check it belongs here; return its name. */
static const char *
SubdocParseOp(SubdocCall *call, int i, SubdocSpec *s, const JsonbValue *op)
{
	const char *opname;

	if (op == NULL || op->type != jbvString)
		SubdocBadSpec(call, i, NULL, ERRCODE_INVALID_PARAMETER_VALUE,
					  "InvalidArgument",
					  pstrdup("\"op\" must be given, as a string"));
	for (s->op = 0; s->op < SD_NOPS; s->op++)
		if (strlen(SubdocOps[s->op].name) == op->val.string.len &&
			memcmp(SubdocOps[s->op].name, op->val.string.val,
				   op->val.string.len) == 0)
			break;
	if (s->op == SD_NOPS)
		SubdocBadSpec(call, i, NULL, ERRCODE_INVALID_PARAMETER_VALUE,
					  "InvalidArgument",
					  psprintf("unknown op \"%.*s\"", op->val.string.len,
							   op->val.string.val));
	opname = SubdocOps[s->op].name;
	if (SubdocOps[s->op].mutation != call->mutate)
		SubdocBadSpec(call, i, opname, ERRCODE_INVALID_PARAMETER_VALUE,
					  "InvalidArgument",
					  psprintf("op \"%s\" belongs to %s", opname,
							   call->mutate ? "lookup_in" : "mutate_in"));
	if (s->create_path && !SubdocOps[s->op].create)
		SubdocBadSpec(call, i, opname, ERRCODE_INVALID_PARAMETER_VALUE,
					  "InvalidArgument",
					  psprintf("op \"%s\" takes no \"create_path\"", opname));

	return opname;
}

/* Parse spec i's path into s->path, in either syntax, within the limits. */
static void
SubdocParsePath(SubdocCall *call, int i, const char *opname, SubdocSpec *s,
				const JsonbValue *path)
{
	char *ptext;
	int plen;
	int last;
	const char *why;
	JsonPointerSubdocError err;

	if (path == NULL || path->type != jbvString)
		SubdocBadSpec(call, i, opname, ERRCODE_INVALID_PARAMETER_VALUE,
					  "InvalidArgument",
					  pstrdup("\"path\" must be given, as a string"));
	ptext = path->val.string.val;
	plen = path->val.string.len;
	if (plen > SUBDOC_MAX_PATH)
		SubdocBadSpec(call, i, opname, ERRCODE_INVALID_PARAMETER_VALUE,
					  "InvalidArgument",
					  psprintf("the path is %d bytes long, at most %d", plen,
							   SUBDOC_MAX_PATH));
	if (plen > 0 && ptext[0] == '/')
	{
		err = DocmodelJsonPointerParse(ptext, plen, false, &s->path) ==
					  JSONPOINTER_OK
				  ? JSONPOINTER_SUBDOC_OK
				  : JSONPOINTER_SUBDOC_INVALID;
		why = "a \"~\" not followed by 0 or 1";
		if (err == JSONPOINTER_SUBDOC_OK && s->path.ntok > SUBDOC_MAX_LEVELS)
			err = JSONPOINTER_SUBDOC_DEEP;
	}
	else
		err = DocmodelJsonPointerParseSubdoc(ptext, plen, SUBDOC_MAX_LEVELS,
											 &s->path, &why);
	if (err == JSONPOINTER_SUBDOC_INVALID)
		SubdocDefer(call, i, ERRCODE_INVALID_PARAMETER_VALUE, "PathInvalid",
					psprintf("path \"%s\" is invalid: %s", s->path.text, why));
	if (err == JSONPOINTER_SUBDOC_DEEP)
		SubdocDefer(call, i, ERRCODE_PROGRAM_LIMIT_EXCEEDED, "PathTooBig",
					psprintf("path \"%s\" has more than %d levels",
							 s->path.text, SUBDOC_MAX_LEVELS));
	if (err != JSONPOINTER_SUBDOC_OK)
		return;
	if (s->path.ntok == 0 && !SubdocOps[s->op].root)
		SubdocBadSpec(call, i, opname, ERRCODE_INVALID_PARAMETER_VALUE,
					  "PathInvalid",
					  psprintf("op \"%s\" cannot apply to the whole document "
							   "(path \"\")",
							   opname));
	last = s->path.ntok - 1;
	if (s->op == SD_ARRAY_INSERT &&
		(!SubdocIsIndex(&s->path, last) ||
		 DocmodelJsonPointerArrayIndex(s->path.tok[last], s->path.toklen[last],
									   &plen) != JSONPOINTER_INDEX))
		SubdocDefer(call, i, ERRCODE_INVALID_PARAMETER_VALUE, "PathInvalid",
					psprintf("path \"%s\" does not end in an array index "
							 "[n]",
							 s->path.text));
	/* insert and upsert set a member: a path ending in [n] is invalid */
	if ((s->op == SD_INSERT || s->op == SD_UPSERT) && s->path.index != NULL &&
		s->path.index[last])
		SubdocDefer(call, i, ERRCODE_INVALID_PARAMETER_VALUE, "PathInvalid",
					psprintf("path \"%s\" ends in an array index: %s sets "
							 "a member (array_insert or replace change an "
							 "array)",
							 s->path.text, opname));
}

/*
 * Read array_append's or array_prepend's "max" (a whole number from 1) into
 * s->max: the array keeps its last (append) or first (prepend) max
 * elements.
 */
static void
SubdocMax(SubdocCall *call, int i, const char *opname, SubdocSpec *s,
		  const JsonbValue *max)
{
	bool error = false;

	if (s->op != SD_ARRAY_APPEND && s->op != SD_ARRAY_PREPEND)
		SubdocBadSpec(call, i, opname, ERRCODE_INVALID_PARAMETER_VALUE,
					  "InvalidArgument",
					  psprintf("op \"%s\" takes no \"max\"", opname));
	if (max->type == jbvNumeric)
		s->max = numeric_int4_opt_error(max->val.numeric, &error);
	if (max->type != jbvNumeric || error || s->max <= 0 ||
		!DatumGetBool(
			DirectFunctionCall2(numeric_eq, NumericGetDatum(max->val.numeric),
								NumericGetDatum(int64_to_numeric(s->max)))))
		SubdocBadSpec(call, i, opname, ERRCODE_INVALID_PARAMETER_VALUE,
					  "InvalidArgument",
					  pstrdup("\"max\" must be a whole number from 1 to "
							  "2147483647"));
}

/* Check spec i's delta, value or values against its op, into *s. */
static void
SubdocParseValues(SubdocCall *call, int i, const char *opname, SubdocSpec *s,
				  const SubdocMembers *m)
{
	JsonbIterator *it;
	JsonbValue x;
	JsonbIteratorToken tok;
	int n;

	if (m->delta != NULL && s->op != SD_INCREMENT && s->op != SD_DECREMENT)
		SubdocBadSpec(call, i, opname, ERRCODE_INVALID_PARAMETER_VALUE,
					  "InvalidArgument",
					  psprintf("op \"%s\" takes no \"delta\"", opname));
	if (s->op == SD_INCREMENT || s->op == SD_DECREMENT)
		SubdocDelta(call, i, s, m->delta);
	if (m->max != NULL)
		SubdocMax(call, i, opname, s, m->max);
	if (m->values != NULL && !SubdocOps[s->op].values)
		SubdocBadSpec(call, i, opname, ERRCODE_INVALID_PARAMETER_VALUE,
					  "InvalidArgument",
					  psprintf("op \"%s\" takes no \"values\"", opname));
	if (m->value != NULL && !SubdocOps[s->op].value)
		SubdocBadSpec(call, i, opname, ERRCODE_INVALID_PARAMETER_VALUE,
					  "InvalidArgument",
					  psprintf("op \"%s\" takes no \"value\"", opname));
	if (m->value != NULL && m->values != NULL)
		SubdocBadSpec(call, i, opname, ERRCODE_INVALID_PARAMETER_VALUE,
					  "InvalidArgument",
					  pstrdup("give \"value\" or \"values\", not both"));
	if (SubdocOps[s->op].value && m->value == NULL && m->values == NULL)
		SubdocBadSpec(call, i, opname, ERRCODE_INVALID_PARAMETER_VALUE,
					  "InvalidArgument",
					  psprintf("op \"%s\" needs a \"value\"", opname));
	if (m->value != NULL)
	{
		s->nvalues = 1;
		s->values = m->value;
	}
	else if (m->values != NULL)
	{
		if (m->values->type != jbvBinary ||
			!JsonContainerIsArray(m->values->val.binary.data) ||
			JsonContainerSize(m->values->val.binary.data) == 0)
			SubdocBadSpec(call, i, opname, ERRCODE_INVALID_PARAMETER_VALUE,
						  "ValueInvalid",
						  pstrdup("\"values\" must be a non-empty array"));
		s->values = palloc(sizeof(JsonbValue) *
						   JsonContainerSize(m->values->val.binary.data));
		it = JsonbIteratorInit(m->values->val.binary.data);
		while ((tok = JsonbIteratorNext(&it, &x, true)) != WJB_DONE)
			if (tok == WJB_ELEM)
				s->values[s->nvalues++] = x;
	}
	for (n = 0; n < s->nvalues; n++)
		SubdocCheckValue(call, i, &s->values[n]);
}

/* Parse and check spec i (v: a jbvBinary) into call->specs[i]. */
static void
SubdocParseSpec(SubdocCall *call, int i, const JsonbValue *v)
{
	SubdocSpec *s = &call->specs[i];
	SubdocMembers m;
	const char *opname;

	SubdocReadMembers(call, i, v, s, &m);
	opname = SubdocParseOp(call, i, s, m.op);
	SubdocParsePath(call, i, opname, s, m.path);
	SubdocParseValues(call, i, opname, s, &m);
}

/* Parse a call's specs (a JSON array of at most 16 spec objects). */
static SubdocCall *
SubdocParse(Jsonb *specs, const char *key, bool mutate)
{
	SubdocCall *call = palloc0(sizeof(SubdocCall));
	JsonbIterator *it;
	JsonbValue v;
	JsonbIteratorToken tok;
	int n;

	call->mutate = mutate;
	call->key = key;
	call->raw = specs;
	if (JB_ROOT_IS_SCALAR(specs) || !JB_ROOT_IS_ARRAY(specs))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s of document \"%s\": specs must be a JSON array",
						SubdocFn(call), key),
				 errhint("Write [{\"op\": \"get\", \"path\": \"a.b\"}].")));
	n = JB_ROOT_COUNT(specs);
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s of document \"%s\": no specs", SubdocFn(call), key),
				 errhint("Give between 1 and %d specs.", SUBDOC_MAX_SPECS)));
	if (n > SUBDOC_MAX_SPECS)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("%s of document \"%s\": %d specs, at most %d",
							   SubdocFn(call), key, n, SUBDOC_MAX_SPECS),
						errdetail("InvalidArgument: Couchbase's limit of "
								  "specs per call."),
						errhint("Split the specs into several calls.")));
	it = JsonbIteratorInit(&specs->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
		if (tok == WJB_ELEM)
			SubdocParseSpec(call, call->nspecs++, &v);
	return call;
}

/* Name level t of p for messages. */
static char *
SubdocLevel(const JsonPointer *p, int t)
{
	return psprintf("level %d (\"%s\") of path \"%s\"", t + 1, p->tok[t],
					p->text);
}

/* Fill *m with why p could not be followed (miss), in Couchbase's words. */
static bool
SubdocPathMiss(SubdocMiss *m, const JsonPointer *p, const JsonTreeMiss *miss)
{
	int t = miss->tok;
	char *level = SubdocLevel(p, t);
	bool arr;

	if (miss->status == JSONTREE_NO_MEMBER)
		return SubdocSetMiss(
			m, ERRCODE_SQL_JSON_MEMBER_NOT_FOUND, "PathNotFound",
			psprintf("path \"%s\" not found", p->text),
			psprintf("The object at %s has no such member.", level));
	if (miss->status == JSONTREE_INDEX_OVERFLOW)
		return SubdocSetMiss(
			m, ERRCODE_SQL_JSON_MEMBER_NOT_FOUND, "PathNotFound",
			psprintf("path \"%s\" not found", p->text),
			psprintf("The array at %s has fewer elements.", level));
	if (miss->status == JSONTREE_INDEX_RANGE)
		return SubdocSetMiss(m, ERRCODE_SQL_JSON_MEMBER_NOT_FOUND,
							 "PathNotFound",
							 psprintf("path \"%s\" not found", p->text),
							 psprintf("The array at %s has %d elements.", level,
									  miss->at->val.array.nElems));
	/* a document that is a scalar (an xattrs body): Couchbase's DocNotJson */
	if (miss->status == JSONTREE_NOT_CONTAINER && t == 0)
		return SubdocSetMiss(
			m, ERRCODE_SQL_JSON_OBJECT_NOT_FOUND, "DocNotJson",
			psprintf("path \"%s\" does not match the document", p->text),
			psprintf("The document is %s, not an object or an array.",
					 DocmodelJsonTreeTypeName(miss->at)));
	/* a scalar, an array met with a member name, an object with [n] */
	arr = (miss->status == JSONTREE_NOT_CONTAINER ||
		   miss->status == JSONTREE_WRONG_KIND) &&
		  SubdocIsIndex(p, t);
	return SubdocSetMiss(
		m,
		arr ? ERRCODE_SQL_JSON_ARRAY_NOT_FOUND
			: ERRCODE_SQL_JSON_OBJECT_NOT_FOUND,
		"PathMismatch",
		psprintf("path \"%s\" does not match the document", p->text),
		psprintf("%s needs %s, the document has %s.", level,
				 arr ? "an array" : "an object",
				 DocmodelJsonTreeTypeName(miss->at)));
}

/*
 * Return the node at the first ntok tokens of p ("-1" the last element of
 * an array; with create, a missing member of an object becomes an empty
 * object: Couchbase's create_path); NULL with *m filled.
 */
static JsonbValue *
SubdocWalk(JsonbValue *root, const JsonPointer *p, int ntok, bool create,
		   SubdocMiss *m)
{
	JsonTreeMiss miss;
	JsonbValue *v = DocmodelJsonTreeWalk(
		root, p, ntok, JSONTREE_LAST | (create ? JSONTREE_CREATE : 0), &miss);

	if (v == NULL)
		SubdocPathMiss(m, p, &miss);
	return v;
}

/* Return child t of p in cur (expanded), its position in *pos; or NULL. */
static JsonbValue *
SubdocChild(JsonbValue *cur, const JsonPointer *p, int t, int *pos,
			SubdocMiss *m)
{
	JsonTreeMiss miss;
	JsonbValue *v = DocmodelJsonTreeChild(cur, p, t, JSONTREE_LAST, pos, &miss);

	if (v == NULL)
		SubdocPathMiss(m, p, &miss);
	return v;
}

/* PathMismatch: the node at path p is not what the op needs. */
static bool
SubdocMismatch(SubdocMiss *m, int sqlstate, const JsonPointer *p,
			   const char *needs, const JsonbValue *found)
{
	return SubdocSetMiss(
		m, sqlstate, "PathMismatch",
		psprintf("path \"%s\" does not match the document", p->text),
		psprintf("The op needs %s there, the document has %s.", needs,
				 DocmodelJsonTreeTypeName(found)));
}

/* Tell whether v is a JSON primitive (not an object or array). */
static bool
SubdocIsPrimitive(const JsonbValue *v)
{
	return v->type != jbvBinary && v->type != jbvObject && v->type != jbvArray;
}

/* increment/decrement the node at *target (NULL: absent, starting at 0). */
static bool
SubdocCount(SubdocCall *call, int i, JsonbValue *target, JsonbValue *out,
			SubdocMiss *m)
{
	SubdocSpec *s = &call->specs[i];
	int64 cur = 0;
	int64 res;

	if (target != NULL)
	{
		char *text;
		char *end;

		if (target->type != jbvNumeric)
			return SubdocMismatch(m, ERRCODE_NON_NUMERIC_SQL_JSON_ITEM,
								  &s->path, "a number", target);
		text = DatumGetCString(DirectFunctionCall1(
			numeric_out, NumericGetDatum(target->val.numeric)));
		errno = 0;
		cur = strtoi64(text, &end, 10);
		if (*end != '\0')
			return SubdocSetMiss(
				m, ERRCODE_NON_NUMERIC_SQL_JSON_ITEM, "PathMismatch",
				psprintf("path \"%s\" does not match the document",
						 s->path.text),
				psprintf("The op needs an integer there, the document has "
						 "%s.",
						 text));
		if (errno != 0)
			return SubdocSetMiss(
				m, ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE, "NumberTooBig",
				psprintf("the number at path \"%s\" is too big", s->path.text),
				psprintf("%s is out of the 64-bit integer range.", text));
	}
	/* Couchbase: the new value cannot be stored (ValueInvalid) */
	if (pg_add_s64_overflow(cur, s->delta, &res))
		return SubdocSetMiss(
			m, ERRCODE_INVALID_PARAMETER_VALUE, "ValueInvalid",
			psprintf("the number at path \"%s\" would overflow", s->path.text),
			psprintf(INT64_FORMAT " plus " INT64_FORMAT
								  " is out of the 64-bit integer range.",
					 cur, s->delta));
	out->type = jbvNumeric;
	out->val.numeric = int64_to_numeric(res);
	call->has_result[i] = true;
	call->result[i] = res;
	return true;
}

/*
 * The array at path p (its last token included), created empty under
 * parent objects created too with create_path; NULL with *m filled.
 */
static JsonbValue *
SubdocArray(JsonbValue *root, const JsonPointer *p, bool create, SubdocMiss *m)
{
	int last = p->ntok - 1;
	JsonbValue *parent;
	JsonbValue *arr;

	if (p->ntok == 0)
		arr = root; /* the whole document (an xattrs collection's body) */
	else if ((parent = SubdocWalk(root, p, last, create, m)) == NULL)
		return NULL;
	else if ((arr = SubdocChild(parent, p, last, NULL, m)) == NULL && create &&
			 parent->type == jbvObject &&
			 m->sqlstate == ERRCODE_SQL_JSON_MEMBER_NOT_FOUND)
	{
		JsonbValue empty = {.type = jbvArray};

		DocmodelJsonTreeSetMember(parent, p->tok[last], p->toklen[last],
								  &empty);
		arr = DocmodelJsonTreeChild(parent, p, last, 0, NULL, NULL);
	}
	if (arr == NULL)
		return NULL;
	DocmodelJsonTreeExpand(arr);
	if (arr->type != jbvArray)
	{
		SubdocMismatch(m, ERRCODE_SQL_JSON_ARRAY_NOT_FOUND, p, "an array", arr);
		return NULL;
	}
	return arr;
}

/*
 * Tell whether primitives a and b are the same JSON text, as Couchbase
 * compares array_addunique's value: numbers by their text as stored (1.0
 * and 1 differ; 1e2 is stored as 100), strings by their bytes.
 */
static bool
SubdocSameText(JsonbValue *a, JsonbValue *b)
{
	if (a->type != b->type)
		return false;
	if (a->type == jbvNumeric)
		return VARSIZE_ANY_EXHDR(a->val.numeric) ==
				   VARSIZE_ANY_EXHDR(b->val.numeric) &&
			   memcmp(VARDATA_ANY(a->val.numeric), VARDATA_ANY(b->val.numeric),
					  VARSIZE_ANY_EXHDR(a->val.numeric)) == 0;
	return DocmodelJsonTreeEqual(a, b);
}

/* array_addunique of spec s into arr (expanded); false with *m. */
static bool
SubdocAddUnique(SubdocSpec *s, JsonbValue *arr, SubdocMiss *m)
{
	const JsonPointer *p = &s->path;
	int k;

	for (k = 0; k < arr->val.array.nElems; k++)
	{
		JsonbValue *e = &arr->val.array.elems[k];

		if (!SubdocIsPrimitive(e))
			return SubdocSetMiss(
				m, ERRCODE_SQL_JSON_ARRAY_NOT_FOUND, "PathMismatch",
				psprintf("path \"%s\" does not match the document", p->text),
				psprintf("Element %d of the array is %s; "
						 "array_addunique needs an array of "
						 "primitives.",
						 k, DocmodelJsonTreeTypeName(e)));
		if (SubdocSameText(e, &s->values[0]))
			return SubdocSetMiss(
				m, ERRCODE_DUPLICATE_JSON_OBJECT_KEY_VALUE, "PathExists",
				psprintf("the array at path \"%s\" already holds the "
						 "value",
						 p->text),
				psprintf("Element %d is equal to it.", k));
	}
	DocmodelJsonTreeInsertElem(arr, arr->val.array.nElems, &s->values[0]);
	return true;
}

/* array_insert of spec s into parent (the array holding its last token). */
static bool
SubdocArrayInsert(SubdocSpec *s, JsonbValue *parent, SubdocMiss *m)
{
	const JsonPointer *p = &s->path;
	int last = p->ntok - 1;
	int pos;
	int k;

	if (parent->type != jbvArray)
		return SubdocMismatch(m, ERRCODE_SQL_JSON_ARRAY_NOT_FOUND, p,
							  "an array as parent", parent);
	(void) DocmodelJsonPointerArrayIndex(p->tok[last], p->toklen[last], &pos);
	if (pos > parent->val.array.nElems)
		return SubdocSetMiss(
			m, ERRCODE_SQL_JSON_MEMBER_NOT_FOUND, "PathNotFound",
			psprintf("path \"%s\" not found", p->text),
			psprintf("The array has %d elements: array_insert takes "
					 "an index from 0 to %d.",
					 parent->val.array.nElems, parent->val.array.nElems));
	for (k = 0; k < s->nvalues; k++)
		DocmodelJsonTreeInsertElem(parent, pos + k, &s->values[k]);
	return true;
}

/* increment or decrement of spec i at its last token inside parent. */
static bool
SubdocCountAt(SubdocCall *call, int i, JsonbValue *parent, SubdocMiss *m)
{
	const JsonPointer *p = &call->specs[i].path;
	int last = p->ntok - 1;
	JsonbValue *target;
	JsonbValue num;

	if (parent->type == jbvObject && !SubdocIsIndex(p, last) &&
		DocmodelJsonTreeFindMember(parent, p->tok[last], p->toklen[last]) < 0)
	{
		if (!SubdocCount(call, i, NULL, &num, m))
			return false;
		DocmodelJsonTreeSetMember(parent, p->tok[last], p->toklen[last], &num);
		return true;
	}
	if ((target = SubdocChild(parent, p, last, NULL, m)) == NULL ||
		!SubdocCount(call, i, target, &num, m))
		return false;
	*target = num;
	return true;
}

/* Apply mutation spec i to the tree at root; false with *m on failure. */
static bool
SubdocMutate(SubdocCall *call, int i, JsonbValue *root, SubdocMiss *m)
{
	SubdocSpec *s = &call->specs[i];
	const JsonPointer *p = &s->path;
	int last = p->ntok - 1;
	JsonbValue *parent;
	JsonbValue *arr;
	JsonbValue *target;
	int pos;
	int k;

	switch (s->op)
	{
		case SD_ARRAY_APPEND:
		case SD_ARRAY_PREPEND:
			if ((arr = SubdocArray(root, p, s->create_path, m)) == NULL)
				return false;
			pos = s->op == SD_ARRAY_APPEND ? arr->val.array.nElems : 0;
			for (k = 0; k < s->nvalues; k++)
				DocmodelJsonTreeInsertElem(arr, pos + k, &s->values[k]);
			/* "max": trim from the other end (the oldest elements) */
			while (s->max > 0 && arr->val.array.nElems > s->max)
				(void) DocmodelJsonTreeRemoveAt(
					arr,
					s->op == SD_ARRAY_APPEND ? 0 : arr->val.array.nElems - 1);
			return true;
		case SD_ARRAY_ADDUNIQUE:
			if ((arr = SubdocArray(root, p, s->create_path, m)) == NULL)
				return false;
			return SubdocAddUnique(s, arr, m);
		default:
			break;
	}

	/* replace "": the whole document, as the SDKs send it (a whole-body set) */
	if (p->ntok == 0)
	{
		*root = s->values[0];
		return true;
	}
	/* the others act on the last token inside its parent */
	parent = SubdocWalk(root, p, last,
						s->create_path && s->op != SD_ARRAY_INSERT, m);
	if (parent == NULL)
		return false;
	DocmodelJsonTreeExpand(parent);
	switch (s->op)
	{
		case SD_INSERT:
		case SD_UPSERT:
			if (parent->type != jbvObject)
				return SubdocMismatch(m, ERRCODE_SQL_JSON_OBJECT_NOT_FOUND, p,
									  "an object (for an array element, use "
									  "replace or array_insert) as parent",
									  parent);
			if (s->op == SD_INSERT &&
				DocmodelJsonTreeFindMember(parent, p->tok[last],
										   p->toklen[last]) >= 0)
				return SubdocSetMiss(
					m, ERRCODE_DUPLICATE_JSON_OBJECT_KEY_VALUE, "PathExists",
					psprintf("path \"%s\" already exists", p->text),
					pstrdup("insert adds a member that is not there; upsert "
							"or replace change one."));
			DocmodelJsonTreeSetMember(parent, p->tok[last], p->toklen[last],
									  &s->values[0]);
			return true;
		case SD_REPLACE:
			if ((target = SubdocChild(parent, p, last, NULL, m)) == NULL)
				return false;
			*target = s->values[0];
			return true;
		case SD_REMOVE:
			if (SubdocChild(parent, p, last, &pos, m) == NULL)
				return false;
			(void) DocmodelJsonTreeRemoveAt(parent, pos);
			return true;
		case SD_ARRAY_INSERT:
			return SubdocArrayInsert(s, parent, m);
		case SD_INCREMENT:
		case SD_DECREMENT:
			return SubdocCountAt(call, i, parent, m);
		default:
			elog(ERROR, "unexpected sub-document op %d", s->op);
	}
	return false;
}

/*
 * Return lookup spec i's result object, read from the tree at root (deep:
 * why the document cannot be read, else NULL); raise a spec whose path is
 * invalid.
 */
static JsonbValue
SubdocLookup(SubdocCall *call, int i, JsonbValue *root, const SubdocMiss *deep)
{
	SubdocSpec *s = &call->specs[i];
	SubdocMiss m;
	JsonTreeMiss miss;
	JsonbValue *v = NULL;
	JsonbValue r;
	bool ok;
	JsonbValue res = {.type = jbvObject};

	if (s->bad != NULL)
		SubdocRaise(call, i, s->bad);
	if (deep != NULL)
		ok = SubdocSetMiss(&m, deep->sqlstate, deep->name, deep->what,
						   deep->detail);
	else
	{
		v = DocmodelJsonTreeRead(root, &s->path, JSONTREE_LAST, &miss);
		ok = v != NULL || SubdocPathMiss(&m, &s->path, &miss);
	}
	if (s->op == SD_EXISTS && !ok &&
		m.sqlstate == ERRCODE_SQL_JSON_MEMBER_NOT_FOUND)
	{
		/* exists: a missing path is false, not an error */
		ok = true;
		r.type = jbvBool;
		r.val.boolean = false;
		v = &r;
	}
	else if (ok && s->op == SD_EXISTS)
	{
		r.type = jbvBool;
		r.val.boolean = true;
		v = &r;
	}
	else if (ok && s->op == SD_COUNT)
	{
		/* a container read on an error path was expanded by JsonTreeRead */
		if (v->type == jbvBinary || v->type == jbvObject || v->type == jbvArray)
		{
			r.type = jbvNumeric;
			r.val.numeric = int64_to_numeric(
				v->type == jbvBinary   ? JsonContainerSize(v->val.binary.data)
				: v->type == jbvObject ? v->val.object.nPairs
									   : v->val.array.nElems);
			v = &r;
		}
		else
			ok = SubdocMismatch(&m, ERRCODE_SQL_JSON_ARRAY_NOT_FOUND, &s->path,
								"an object or an array", v);
	}
	if (ok)
		DocmodelJsonTreePut(&res, "value", *v);
	else
	{
		DocmodelJsonTreePut(&res, "error", DocmodelJsonTreeCString(m.name));
		DocmodelJsonTreePut(
			&res, "message",
			DocmodelJsonTreeCString(psprintf("%s: %s", m.what, m.detail)));
	}
	return res;
}

/*
 * lookup_in(coll, key, specs) -> jsonb: one result per spec, in order:
 * {"value": v}, or {"error": name, "message": text}; NULL when the
 * document is absent or expired. The document is read as get() reads it.
 */
Datum
subdoc_lookup_in(PG_FUNCTION_ARGS)
{
	char *key = text_to_cstring(PG_GETARG_TEXT_PP(1));
	SubdocCall *call = SubdocParse(PG_GETARG_JSONB_P(2), key, false);
	Jsonb *doc = DocmodelKvGet(PG_GETARG_OID(0), PG_GETARG_DATUM(1));
	JsonbValue root;
	JsonbValue res = {.type = jbvArray};
	SubdocMiss deep;
	bool readable;
	int i;

	if (doc == NULL)
		PG_RETURN_NULL();
	readable = SubdocDocDepth(doc, &deep);
	DocmodelJsonTreeFromJsonb(doc, &root);
	res.val.array.elems = palloc(sizeof(JsonbValue) * call->nspecs);
	for (i = 0; i < call->nspecs; i++)
		res.val.array.elems[i] =
			SubdocLookup(call, i, &root, readable ? NULL : &deep);
	res.val.array.nElems = call->nspecs;
	PG_RETURN_JSONB_P(DocmodelJsonTreeToJsonb(&res));
}

/*
 * doc (NULL: {}) with every spec of call applied, after migrating a stored
 * document to its current schema version (as get() reads it); raise the
 * first spec that cannot apply.
 */
static Jsonb *
SubdocApply(SubdocCall *call, Jsonb *doc, const char *key)
{
	JsonbValue root;
	SubdocMiss m;
	bool read_depth = true; /* the document's depth is checked once */
	int i;

	if (doc == NULL)
	{
		/* a new document: an array when the first spec addresses one at
		 * the root ("" of an array op, or a path starting with [n]), as
		 * Couchbase makes it; else an object */
		const SubdocSpec *s = &call->specs[0];
		bool arr =
			s->bad == NULL &&
			(s->path.ntok == 0
				 ? s->op == SD_ARRAY_APPEND || s->op == SD_ARRAY_PREPEND ||
					   s->op == SD_ARRAY_ADDUNIQUE
				 : s->path.index != NULL && s->path.index[0]);

		memset(&root, 0, sizeof(root));
		root.type = arr ? jbvArray : jbvObject;
	}
	else
	{
		/* schema version: see migrate.c (paths name the current version);
		 * by the fields of mutate_in's collection (an xattrs body carries
		 * none), else of any meta style */
		const DocmodelCollection *cfg =
			call == SubdocActive && OidIsValid(call->relid)
				? DocmodelCollectionOf(call->relid)
				: NULL;

		if (!(cfg && cfg->xattrs))
			doc = DocmodelMigrateIn(doc, NULL, key, cfg ? cfg->fs : NULL,
									cfg ? cfg->id : 0);
		DocmodelJsonTreeFromJsonb(doc, &root);
	}
	memset(call->has_result, 0, sizeof(call->has_result));
	/* specs in order: the first that cannot apply is the one raised */
	for (i = 0; i < call->nspecs; i++)
	{
		bool ok;

		if (call->specs[i].bad != NULL)
			ok = SubdocSetMiss(
				&m, call->specs[i].bad->sqlstate, call->specs[i].bad->name,
				call->specs[i].bad->what, call->specs[i].bad->detail);
		else
			ok = (!read_depth || SubdocDocDepth(doc, &m)) &&
				 SubdocMutate(call, i, &root, &m);
		read_depth = false;
		if (!ok)
		{
			call->failed = call == SubdocActive;
			SubdocRaise(call, i, &m);
		}
	}
	return DocmodelJsonTreeToJsonb(&root);
}

/* SubdocApply as DocmodelKvUpdateDirect calls it (arg: the call). */
static Jsonb *
SubdocApplyDirect(void *arg, Jsonb *doc)
{
	SubdocCall *call = arg;

	return SubdocApply(call, doc, call->key);
}

/*
 * The statements of mutate_in ($1 key, $2 specs, $3 expires_at, $4 cas,
 * $5 preserve_expiry): the live document updated (at cas when given), and
 * for store_semantics upsert and insert, a new one inserted (over an
 * expired one).
 */
static const DocmodelKvSql SubdocUpdate = {
	KV_EXT_SUBDOC_UPDATE,
	"%2$.0s"
	"UPDATE %1$s AS c SET doc = docmodel._mutate_in_apply(%3$s, $2, $1), "
	"expires_at = CASE WHEN $5 THEN c.expires_at ELSE $3 END "
	"WHERE c.id OPERATOR(pg_catalog.=) $1 AND (c.expires_at IS NULL OR "
	"c.expires_at OPERATOR(pg_catalog.>) pg_catalog.now()) AND ($4 IS NULL OR "
	"c.cas OPERATOR(pg_catalog.=) $4) RETURNING c.cas",
	5,
	{TEXTOID, JSONBOID, TIMESTAMPTZOID, INT8OID, BOOLOID}};

/*
 * The common case of SubdocUpdate, no cas and no preserve_expiry: fewer
 * quals and expressions for the executor to set up on every call.
 */
static const DocmodelKvSql SubdocUpdateLean = {
	KV_EXT_SUBDOC_UPDATE_LEAN,
	"%2$.0s"
	"UPDATE %1$s AS c SET doc = docmodel._mutate_in_apply(%3$s, $2, $1), "
	"expires_at = $3 WHERE c.id OPERATOR(pg_catalog.=) $1 AND "
	"(c.expires_at IS NULL OR c.expires_at OPERATOR(pg_catalog.>) "
	"pg_catalog.now()) RETURNING c.cas",
	5,
	{TEXTOID, JSONBOID, TIMESTAMPTZOID, INT8OID, BOOLOID}};
static const DocmodelKvSql SubdocInsert = {
	KV_EXT_SUBDOC_INSERT,
	"INSERT INTO %s AS c (id, doc, expires_at) "
	"VALUES ($1, docmodel._mutate_in_apply(NULL, $2, $1), $3) "
	"ON CONFLICT (id) DO UPDATE SET doc = EXCLUDED.doc, "
	"expires_at = EXCLUDED.expires_at "
	"WHERE c.expires_at OPERATOR(pg_catalog.<=) pg_catalog.now() "
	"RETURNING c.cas",
	5,
	{TEXTOID, JSONBOID, TIMESTAMPTZOID, INT8OID, BOOLOID}};

/*
 * mutate_in on a Citus table, whose workers cannot run _mutate_in_apply
 * inside the statement (Citus refuses a VOLATILE function there): the live
 * document is read and locked (FOR UPDATE, on its shard), the specs are
 * applied here, and the new document ($2) is written. A cas given is also
 * assigned to the column, which carries a lock on the shard as replace's
 * does (DocmodelKvRowRules). $6 is now(), the transaction's start.
 */
#define SUBDOC_CITUS_ARGS                                                   \
	6,                                                                      \
	{                                                                       \
		TEXTOID, JSONBOID, TIMESTAMPTZOID, INT8OID, BOOLOID, TIMESTAMPTZOID \
	}
#define SUBDOC_CITUS_LIVE                                          \
	"c.id OPERATOR(pg_catalog.=) $1 AND (c.expires_at IS NULL OR " \
	"c.expires_at OPERATOR(pg_catalog.>) $6)"
static const DocmodelKvSql SubdocCitusRead = {
	KV_EXT_SUBDOC_READ,
	"%2$.0s"
	"SELECT %3$s FROM %1$s AS c WHERE " SUBDOC_CITUS_LIVE " FOR UPDATE",
	SUBDOC_CITUS_ARGS};
static const DocmodelKvSql SubdocCitusSet = {
	KV_EXT_SUBDOC_SET,
	"UPDATE %s AS c SET doc = $2, expires_at = CASE WHEN $5 THEN "
	"c.expires_at ELSE $3 END WHERE " SUBDOC_CITUS_LIVE " RETURNING c.cas",
	SUBDOC_CITUS_ARGS};
static const DocmodelKvSql SubdocCitusSetCas = {
	KV_EXT_SUBDOC_SET_CAS,
	"UPDATE %s AS c SET doc = $2, cas = $4, expires_at = CASE WHEN $5 THEN "
	"c.expires_at ELSE $3 END WHERE " SUBDOC_CITUS_LIVE
	" AND c.cas OPERATOR(pg_catalog.=) $4 RETURNING c.cas",
	SUBDOC_CITUS_ARGS};
static const DocmodelKvSql SubdocCitusPut = {
	KV_EXT_SUBDOC_PUT,
	"INSERT INTO %s AS c (id, doc, expires_at) VALUES ($1, $2, $3) "
	"ON CONFLICT (id) DO UPDATE SET doc = EXCLUDED.doc, "
	"expires_at = EXCLUDED.expires_at "
	"WHERE c.expires_at OPERATOR(pg_catalog.<=) $6 RETURNING c.cas",
	SUBDOC_CITUS_ARGS};

/* Write as mutate_in does, on a Citus table (see above); return the cas. */
static int64
SubdocMutateCitus(FunctionCallInfo fcinfo, SubdocCall *call, bool update,
				  bool insert, Datum *values, char *nulls)
{
	MemoryContext outer = CurrentMemoryContext;
	Jsonb *doc = NULL;
	bool found;

	values[5] = TimestampTzGetDatum(GetCurrentTransactionStartTimestamp());
	nulls[5] = ' ';
	DocmodelSpiConnect();
	found =
		DocmodelKvExec(call->relid, &SubdocCitusRead, values, nulls, NULL) > 0;
	if (found)
	{
		bool isnull;
		Datum d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1,
								&isnull);

		MemoryContextSwitchTo(outer);
		doc = isnull ? NULL : DatumGetJsonbPCopy(d);
	}
	SPI_finish();
	if (found && !update)
		DocmodelKvExists(call->relid, call->key);
	if (found || insert)
		values[1] = JsonbPGetDatum(SubdocApply(call, doc, call->key));
	else
		nulls[1] = 'n'; /* nothing to write: the update raises P0002 */
	return DocmodelKvWriteWith(fcinfo,
							   !found && insert  ? NULL
							   : PG_ARGISNULL(3) ? &SubdocCitusSet
												 : &SubdocCitusSetCas,
							   found ? NULL : (insert ? &SubdocCitusPut : NULL),
							   values, nulls, call->key, 3);
}

/*
 * Read mutate_in's store_semantics (argument 5): replace runs *update alone,
 * upsert *update then *insert, insert *insert alone. A cas (argument 3) goes
 * with replace only.
 */
static void
SubdocSemantics(FunctionCallInfo fcinfo, const char *key,
				const DocmodelKvSql **update, const DocmodelKvSql **insert)
{
	char *sem = text_to_cstring(PG_GETARG_TEXT_PP(5));

	if (strcmp(sem, "upsert") == 0)
		*insert = &SubdocInsert;
	else if (strcmp(sem, "insert") == 0)
	{
		*insert = &SubdocInsert;
		*update = NULL;
	}
	else if (strcmp(sem, "replace") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid store_semantics \"%s\"", sem),
				 errdetail("Document \"%s\": store_semantics is replace, "
						   "upsert or insert.",
						   key)));
	if (*insert != NULL && !PG_ARGISNULL(3))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cas cannot be given with store_semantics \"%s\"", sem),
				 errdetail("Document \"%s\": a cas compares with a present "
						   "document, which only replace requires.",
						   key)));
}

/* mutate_in's result: {"cas": cas, "results": [null or {"value": n}, ...]}. */
static Jsonb *
SubdocMutateResult(SubdocCall *call, int64 cas)
{
	JsonbValue res = {.type = jbvObject};
	JsonbValue results = {.type = jbvArray};
	int i;

	results.val.array.elems = palloc(sizeof(JsonbValue) * call->nspecs);
	for (i = 0; i < call->nspecs; i++)
	{
		JsonbValue *e = &results.val.array.elems[i];

		e->type = jbvNull;
		if (call->has_result[i])
		{
			*e = (JsonbValue){.type = jbvObject};
			DocmodelJsonTreePut(e, "value",
								DocmodelJsonTreeInt(call->result[i]));
		}
	}
	results.val.array.nElems = call->nspecs;
	DocmodelJsonTreePut(&res, "cas", DocmodelJsonTreeInt(cas));
	DocmodelJsonTreePut(&res, "results", results);
	return DocmodelJsonTreeToJsonb(&res);
}

/*
 * mutate_in(coll, key, specs, cas, expiry, store_semantics,
 * preserve_expiry) -> {"cas": new cas, "results": [...]}: every spec
 * applied, or none. store_semantics: replace (the document must exist),
 * upsert (absent: from {}), insert (must not exist: from {}).
 */
Datum
subdoc_mutate_in(PG_FUNCTION_ARGS)
{
	SubdocCall *volatile save = SubdocActive;
	MemoryContext cxt = CurrentMemoryContext;
	SubdocCall *call;
	const DocmodelKvSql *update = &SubdocUpdate;
	const DocmodelKvSql *insert = NULL;
	char *key;
	Datum values[6];
	char nulls[6] = {' ', ' ', ' ', ' ', ' ', ' '};
	TimestampTz at = 0;
	int64 cas;
	int i;

	DocmodelRequireArg(fcinfo, 0, "collection");
	DocmodelRequireArg(fcinfo, 1, "key");
	DocmodelRequireArg(fcinfo, 2, "specs");
	DocmodelRequireArg(fcinfo, 5, "store_semantics");
	key = text_to_cstring(PG_GETARG_TEXT_PP(1));
	SubdocSemantics(fcinfo, key, &update, &insert);
	call = SubdocParse(PG_GETARG_JSONB_P(2), key, true);
	/* upsert and insert may make the document, and so its paths: every
	 * spec that takes create_path has it (Couchbase: Mkdoc implies Mkdir_p) */
	for (i = 0; insert != NULL && i < call->nspecs; i++)
		if (SubdocOps[call->specs[i].op].create)
			call->specs[i].create_path = true;
	values[4] = BoolGetDatum(DocmodelKvPreserveExpiry(fcinfo, 6, 4));
	if (!DocmodelKvExpiryAt(fcinfo, 4, key, &at))
		nulls[2] = 'n';
	values[0] = PG_GETARG_DATUM(1);
	values[1] = JsonbPGetDatum(call->raw);
	values[2] = TimestampTzGetDatum(at);
	values[3] = PG_ARGISNULL(3) ? (Datum) 0 : PG_GETARG_DATUM(3);
	if (PG_ARGISNULL(3))
		nulls[3] = 'n';
	if (update != NULL && PG_ARGISNULL(3) && !DatumGetBool(values[4]))
		update = &SubdocUpdateLean;

	call->relid = PG_GETARG_OID(0);
	SubdocActive = call;
	PG_TRY();
	{
		bool found = false;
		bool skipped = false;

		/*
		 * The lean case updates the row itself where that is exactly what
		 * its statement would do (kv.h); else, or when no live document was
		 * there (the statement raises or inserts), the statement runs. When
		 * a BEFORE trigger skipped the row, its UPDATE has been done (its
		 * triggers ran once): what follows a statement's UPDATE of no row
		 * follows, the insert of upsert or DocumentNotFound.
		 */
		if (DocmodelKvCitus(call->relid))
			cas = SubdocMutateCitus(fcinfo, call, update != NULL,
									insert != NULL, values, nulls);
		else if (update != &SubdocUpdateLean ||
				 !DocmodelKvUpdateDirect(
					 call->relid, values[0], SubdocApplyDirect, call,
					 nulls[2] == 'n' ? NULL : &at, &found, &skipped, &cas))
			cas = DocmodelKvWriteWith(fcinfo, update, insert, values, nulls,
									  key, 3);
		else if (skipped && insert == NULL)
			DocmodelKvNotFound(call->relid, key);
		else if (!found)
			cas = DocmodelKvWriteWith(fcinfo, skipped ? NULL : update, insert,
									  values, nulls, key, 3);
	}
	PG_CATCH();
	{
		SubdocActive = save;
		if (call->failed)
		{
			/* a spec's error: its message says all, not the statement */
			ErrorData *edata;

			MemoryContextSwitchTo(cxt);
			edata = CopyErrorData();
			FlushErrorState();
			edata->context = NULL;
			ReThrowError(edata);
		}
		PG_RE_THROW();
	}
	PG_END_TRY();
	SubdocActive = save;

	PG_RETURN_JSONB_P(SubdocMutateResult(call, cas));
}

/*
 * _mutate_in_apply(doc, specs, key) -> jsonb: doc (NULL: {}) with every
 * spec applied, or an error naming the first that cannot apply. A stored
 * document is migrated to its current schema version first, as get()
 * reads it. Internal to mutate_in's statement (whose parsed specs it
 * takes from SubdocActive); callable directly, parsing its own.
 */
Datum
subdoc_mutate_in_apply(PG_FUNCTION_ARGS)
{
	Jsonb *specs;
	char *key;
	SubdocCall *call = SubdocActive;

	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
		PG_RETURN_NULL();
	specs = PG_GETARG_JSONB_P(1);
	key = text_to_cstring(PG_GETARG_TEXT_PP(2));
	if (call == NULL || strcmp(call->key, key) != 0 ||
		(specs != call->raw && (VARSIZE(specs) != VARSIZE(call->raw) ||
								memcmp(specs, call->raw, VARSIZE(specs)) != 0)))
		call = SubdocParse(specs, key, true);
	PG_RETURN_JSONB_P(
		SubdocApply(call, PG_ARGISNULL(0) ? NULL : PG_GETARG_JSONB_P(0), key));
}
