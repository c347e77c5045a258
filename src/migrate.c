/*-------------------------------------------------------------------------
 *
 * migrate.c
 *	  Schema-version migrations (README, "Schema versions and
 *	  migrations"): the registered rules of each document type, the step
 *	  interpreter (RFC 6902 plus docmodel's ops) over a JsonbValue tree that
 *	  is built once and serialized once per document, migrate() and its
 *	  hooks for the collection trigger and get(), and the loop of the
 *	  migrate_collection procedure (its SQL work is in sql/docmodel.sql).
 *
 *	  Shared state: a backend-local cache of docmodel.migration_rules (one
 *	  entry per document type: its chain of rules with parsed steps), kept
 *	  in MigrateCacheContext under CacheMemoryContext. A statement trigger on
 *	  the registry sends a relcache invalidation for it; our relcache and
 *	  pg_proc syscache subscribers (called by docmodel.c's dispatchers)
 *	  only mark the cache stale, and the next call
 *	  reloads it with one query. The cache is never freed while a migration
 *	  is running a fn step (which may re-enter migrate()): see migrate_depth.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/relation.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "collection.h"
#include "docmodel.h"
#include "fields.h"
#include "jsonutil.h"
#include "migrate.h"
#include "version.h"

/* The step ops, in the order of op_names. */
typedef enum StepOp
{
	OP_ADD,
	OP_REMOVE,
	OP_REPLACE,
	OP_MOVE,
	OP_COPY,
	OP_TEST,
	OP_DEFAULT,
	OP_SPLIT,
	OP_JOIN,
	OP_WRAP,
	OP_CAST,
	OP_TO_EPOCH,
	OP_FROM_EPOCH,
	OP_STRIP_DASHES,
	OP_NEST,
	OP_UNNEST,
	OP_FOR_EACH,
	OP_COUNT
} StepOp;

static const char *const op_names[OP_COUNT] = {
	"add",        "remove",       "replace", "move",   "copy",    "test",
	"default",    "split",        "join",    "wrap",   "cast",    "to_epoch",
	"from_epoch", "strip_dashes", "nest",    "unnest", "for_each"};

#define OP_LIST                                                            \
	"add, remove, replace, move, copy, test, default, split, join, wrap, " \
	"cast, to_epoch, from_epoch, strip_dashes, nest, unnest, for_each"

typedef enum CastTo
{
	CAST_NUMBER,
	CAST_STRING,
	CAST_BOOLEAN
} CastTo;

/* A parsed JSON Pointer: its text (for messages) and unescaped tokens. */
typedef struct JPointer
{
	char *text;
	int ntok;
	char **tok;
	int *toklen;
} JPointer;

/* One parsed step; which fields are set depends on op. */
typedef struct Step
{
	StepOp op;
	char *label; /* "3", or "2.1" inside a for_each */
	JPointer path;
	JPointer from; /* move, copy */
	JPointer into; /* join, wrap, nest, unnest (target) */
	bool has_into;
	JPointer *ptrs; /* split targets; join and nest sources */
	int nptrs;
	JsonbValue *value; /* add, replace, test, default; wrap template */
	char *sep;         /* split, join */
	int seplen;
	CastTo cast_to;
	int64 unit_us;      /* to_epoch, from_epoch */
	struct Step *steps; /* for_each */
	int nsteps;
} Step;

/* One registered rule: from -> to by steps, or by a jsonb -> jsonb function. */
typedef struct Rule
{
	DocVersion *from;
	DocVersion *to;
	char *from_text;
	char *to_text;
	Step *steps;
	int nsteps;
	bool is_fn;
	char *fn_text;
	Oid fn_oid; /* the pinned function; InvalidOid: its pin was dropped */
	FmgrInfo flinfo;
} Rule;

#define TYPE_NAME_MAX 256

/* A document type's rules, sorted by from version. */
typedef struct TypeRules
{
	char name[TYPE_NAME_MAX]; /* hash key */
	int nrules;
	Rule *rules;
	DocVersion *oldest;
	DocVersion *current;
	char *current_text;
	int current_len;
} TypeRules;

/* The cache; see the file banner. */
static MemoryContext MigrateCacheContext = NULL;
static HTAB *migrate_types = NULL;
static long migrate_ntypes = 0;
static bool migrate_cache_valid = false;
static uint64 migrate_inval_count = 0; /* invalidations seen */
static Oid migrate_registry_relid = InvalidOid;
static bool migrate_sql_has_pins = true; /* false: the SQL is still 0.1.0 */
static int migrate_depth = 0;
static TypeRules *migrate_last_type = NULL; /* the last type found */

/*
 * What an error while applying a chain names: ApplyChain pushes an error
 * context callback (MigrateErrorContext) with this as its argument, so an
 * error of any SQLSTATE raised while a step works (numeric_in on a huge
 * number, out of memory, ...) says which step, op, key and path.
 */
typedef struct ApplyCx
{
	const char *key;
	const char *type;
	const char *from; /* the rule running; NULL before the first */
	const char *to;
	const char *fn;     /* its function, for a fn rule; else NULL */
	const Step *step;   /* the step running, or NULL */
	const char *prefix; /* element path inside a for_each, or "" */
} ApplyCx;

PG_FUNCTION_INFO_V1(migrate);
PG_FUNCTION_INFO_V1(migrate_doc);
PG_FUNCTION_INFO_V1(current_version);
PG_FUNCTION_INFO_V1(migration_pending);
PG_FUNCTION_INFO_V1(migration_steps);
PG_FUNCTION_INFO_V1(migration_doc_type);
PG_FUNCTION_INFO_V1(migration_doc_version);
PG_FUNCTION_INFO_V1(migration_check_steps);
PG_FUNCTION_INFO_V1(migration_rules_changed);
PG_FUNCTION_INFO_V1(migrate_collection);

/* ---------------------------------------------------------------------
 * Step parsing (when registered, and when the cache loads)
 * ---------------------------------------------------------------------
 */

/*
 * Initialize buf and fill it with fmt formatted with args,
 * growing it as needed (args is only read through copies).
 */
static void FormatReason(StringInfo buf, const char *fmt, va_list args)
	pg_attribute_printf(2, 0);

static void
FormatReason(StringInfo buf, const char *fmt, va_list args)
{
	initStringInfo(buf);
	for (;;)
	{
		va_list copy;
		int needed;

		va_copy(copy, args);
		needed = appendStringInfoVA(buf, fmt, copy);
		va_end(copy);
		if (needed == 0)
			break;
		enlargeStringInfo(buf, needed);
	}
}

/* Raise 22023 for a step that is not well formed. */
static void pg_attribute_noreturn()
	BadStep(const char *label, const char *op, const char *fmt, ...)
		pg_attribute_printf(3, 4);

static void
BadStep(const char *label, const char *op, const char *fmt, ...)
{
	StringInfoData reason;
	va_list args;

	va_start(args, fmt);
	FormatReason(&reason, fmt, args);
	va_end(args);
	if (op)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("invalid migration step %s (%s): %s", label, op,
							   reason.data),
						errdetail("Step %s, op \"%s\".", label, op)));
	ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					errmsg("invalid migration step %s: %s", label, reason.data),
					errhint("Known ops: " OP_LIST ".")));
}

/* Build a mutable JsonbValue tree from a jsonb container. */
static JsonbValue *
TreeFromContainer(JsonbContainer *c)
{
	JsonbIterator *it = JsonbIteratorInit(c);
	JsonbParseState *state = NULL;
	JsonbValue v;
	JsonbValue *res = NULL;
	JsonbIteratorToken tok;

	while ((tok = JsonbIteratorNext(&it, &v, false)) != WJB_DONE)
		res = pushJsonbValue(&state, tok, tok < WJB_BEGIN_ARRAY ? &v : NULL);
	/* A raw scalar comes back as a one-element pseudo array. */
	if (res->type == jbvArray && res->val.array.rawScalar)
		return &res->val.array.elems[0];
	return res;
}

/* Turn a value found in a container (scalar or binary) into a tree. */
static JsonbValue *
TreeFromValue(JsonbValue *v)
{
	JsonbValue *res;

	if (v->type == jbvBinary)
		return TreeFromContainer(v->val.binary.data);
	res = palloc(sizeof(JsonbValue));
	*res = *v;
	return res;
}

/* Return a palloc'd NUL-terminated copy of a string value. */
static char *
StringOf(JsonbValue *v)
{
	return pnstrdup(v->val.string.val, v->val.string.len);
}

/* Parse a JSON Pointer; root ("") only where allow_root. */
static void
ParsePointer(JPointer *p, JsonbValue *v, const char *label, const char *op,
			 const char *field, bool allow_root)
{
	const char *s;
	int len;
	int i;
	int ntok = 0;

	if (v->type != jbvString)
		BadStep(label, op, "field \"%s\" must be a JSON Pointer string", field);
	s = v->val.string.val;
	len = v->val.string.len;
	p->text = pnstrdup(s, len);
	if (len == 0)
	{
		if (!allow_root)
			BadStep(label, op,
					"field \"%s\" may not point at the document root", field);
		p->ntok = 0;
		p->tok = NULL;
		p->toklen = NULL;
		return;
	}
	if (s[0] != '/')
		BadStep(label, op, "bad JSON Pointer \"%s\" in field \"%s\"", p->text,
				field);
	for (i = 0; i < len; i++)
		if (s[i] == '/')
			ntok++;
	p->ntok = ntok;
	p->tok = palloc(sizeof(char *) * ntok);
	p->toklen = palloc(sizeof(int) * ntok);
	ntok = -1;
	for (i = 0; i < len; i++)
	{
		if (s[i] == '/')
		{
			ntok++;
			p->tok[ntok] = palloc(len + 1);
			p->toklen[ntok] = 0;
			continue;
		}
		if (s[i] == '~')
		{
			if (i + 1 < len && (s[i + 1] == '0' || s[i + 1] == '1'))
			{
				p->tok[ntok][p->toklen[ntok]++] = s[i + 1] == '0' ? '~' : '/';
				i++;
				continue;
			}
			BadStep(label, op, "bad JSON Pointer \"%s\" in field \"%s\"",
					p->text, field);
		}
		p->tok[ntok][p->toklen[ntok]++] = s[i];
	}
}

/* Tell whether pointer a is b or an ancestor of b, token by token. */
static bool
PointerIsPrefix(const JPointer *a, const JPointer *b)
{
	return DocmodelPointerIsPrefix(a->tok, a->toklen, a->ntok, b->tok,
								   b->toklen, b->ntok);
}

/* Return the field of a step object, or NULL when absent. */
static JsonbValue *
StepField(JsonbContainer *obj, const char *name)
{
	return getKeyJsonValueFromContainer(obj, name, strlen(name), NULL);
}

/* Return the field of a step object, raising 22023 when absent. */
static JsonbValue *
NeedField(JsonbContainer *obj, const char *name, const char *label,
		  const char *op)
{
	JsonbValue *v = StepField(obj, name);

	if (v == NULL)
		BadStep(label, op, "missing field \"%s\"", name);
	return v;
}

/* Parse an array of JSON Pointers (field of the step). */
static void
ParsePointerArray(Step *st, JsonbContainer *obj, const char *field,
				  const char *label, const char *op)
{
	JsonbValue *v = NeedField(obj, field, label, op);
	int n;
	int i;

	if (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data) ||
		JsonContainerSize(v->val.binary.data) == 0)
		BadStep(label, op,
				"field \"%s\" must be a non-empty array of JSON Pointers",
				field);
	n = JsonContainerSize(v->val.binary.data);
	st->nptrs = n;
	st->ptrs = palloc0(sizeof(JPointer) * n);
	for (i = 0; i < n; i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(v->val.binary.data, i);

		ParsePointer(&st->ptrs[i], e, label, op, field, false);
	}
}

/* Return the separator field (default one space). */
static void
ParseSeparator(Step *st, JsonbContainer *obj, const char *label, const char *op)
{
	JsonbValue *v = StepField(obj, "separator");

	if (v == NULL)
	{
		st->sep = " ";
		st->seplen = 1;
		return;
	}
	if (v->type != jbvString || v->val.string.len == 0)
		BadStep(label, op, "field \"separator\" must be a non-empty string");
	st->sep = StringOf(v);
	st->seplen = v->val.string.len;
}

/* Return the microseconds in a time unit named by the step, or raise. */
static int64
ParseUnit(JsonbContainer *obj, const char *label, const char *op)
{
	JsonbValue *v = StepField(obj, "unit");
	char *u;

	if (v == NULL)
		return INT64CONST(1000);
	if (v->type != jbvString)
		BadStep(label, op, "field \"unit\" must be a string");
	u = StringOf(v);
	if (strcmp(u, "ms") == 0)
		return INT64CONST(1000);
	if (strcmp(u, "s") == 0)
		return INT64CONST(1000000);
	if (strcmp(u, "min") == 0)
		return INT64CONST(60000000);
	if (strcmp(u, "h") == 0)
		return INT64CONST(3600000000);
	if (strcmp(u, "day") == 0)
		return INT64CONST(86400000000);
	BadStep(label, op, "unknown unit \"%s\" (ms, s, min, h or day)", u);
}

static Step *ParseSteps(JsonbContainer *arr, const char *prefix, bool nested,
						int *nsteps);

/* Refuse members of a step object that its op does not know. */
static void
CheckMembers(JsonbContainer *obj, const char *const *allowed, const char *label,
			 const char *op)
{
	JsonbIterator *it = JsonbIteratorInit(obj);
	JsonbValue v;
	JsonbIteratorToken tok;

	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		const char *const *a;
		bool ok = false;

		if (tok != WJB_KEY)
			continue;
		if (v.val.string.len == 2 && memcmp(v.val.string.val, "op", 2) == 0)
			continue;
		for (a = allowed; *a; a++)
			if ((int) strlen(*a) == v.val.string.len &&
				memcmp(*a, v.val.string.val, v.val.string.len) == 0)
				ok = true;
		if (!ok)
			BadStep(label, op, "unknown field \"%.*s\"", v.val.string.len,
					v.val.string.val);
	}
}

/* Parse one step object into st; raise 22023 naming its label and op. */
static void
ParseStep(Step *st, JsonbValue *sv, const char *label, bool nested)
{
	JsonbContainer *obj;
	JsonbValue *opv;
	JsonbValue *v;
	char *op;
	int i;
	bool value_root = nested; /* value ops may name the element */

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
		if (strcmp(op, op_names[i]) == 0)
			break;
	if (i == OP_COUNT)
		BadStep(label, NULL, "unknown op \"%s\"", op);
	st->op = (StepOp) i;

	switch (st->op)
	{
		case OP_ADD:
		case OP_REPLACE:
		case OP_TEST:
		case OP_DEFAULT:
		{
			static const char *const f[] = {"path", "value", NULL};

			CheckMembers(obj, f, label, op);
			ParsePointer(
				&st->path, NeedField(obj, "path", label, op), label, op, "path",
				value_root && (st->op == OP_REPLACE || st->op == OP_TEST));
			st->value = TreeFromValue(NeedField(obj, "value", label, op));
			break;
		}
		case OP_REMOVE:
		case OP_STRIP_DASHES:
		{
			static const char *const f[] = {"path", NULL};

			CheckMembers(obj, f, label, op);
			ParsePointer(&st->path, NeedField(obj, "path", label, op), label,
						 op, "path", value_root && st->op == OP_STRIP_DASHES);
			break;
		}
		case OP_MOVE:
		case OP_COPY:
		{
			static const char *const f[] = {"from", "path", NULL};

			CheckMembers(obj, f, label, op);
			ParsePointer(&st->from, NeedField(obj, "from", label, op), label,
						 op, "from", false);
			ParsePointer(&st->path, NeedField(obj, "path", label, op), label,
						 op, "path", false);
			if (st->op == OP_MOVE && st->from.ntok < st->path.ntok &&
				PointerIsPrefix(&st->from, &st->path))
				BadStep(label, op,
						"cannot move \"%s\" into its own child \"%s\"",
						st->from.text, st->path.text);
			break;
		}
		case OP_SPLIT:
		{
			static const char *const f[] = {"path", "into", "separator", NULL};

			CheckMembers(obj, f, label, op);
			ParsePointer(&st->path, NeedField(obj, "path", label, op), label,
						 op, "path", false);
			ParsePointerArray(st, obj, "into", label, op);
			ParseSeparator(st, obj, label, op);
			break;
		}
		case OP_JOIN:
		{
			static const char *const f[] = {"paths", "into", "separator", NULL};

			CheckMembers(obj, f, label, op);
			ParsePointerArray(st, obj, "paths", label, op);
			ParsePointer(&st->into, NeedField(obj, "into", label, op), label,
						 op, "into", false);
			st->has_into = true;
			st->path = st->into;
			ParseSeparator(st, obj, label, op);
			break;
		}
		case OP_WRAP:
		{
			static const char *const f[] = {"path", "into", "template", NULL};

			CheckMembers(obj, f, label, op);
			ParsePointer(&st->path, NeedField(obj, "path", label, op), label,
						 op, "path", false);
			v = StepField(obj, "into");
			if (v)
			{
				ParsePointer(&st->into, v, label, op, "into", false);
				st->has_into = strcmp(st->into.text, st->path.text) != 0;
			}
			v = StepField(obj, "template");
			if (v)
				st->value = TreeFromValue(v);
			break;
		}
		case OP_CAST:
		{
			static const char *const f[] = {"path", "to", NULL};
			char *to;

			CheckMembers(obj, f, label, op);
			ParsePointer(&st->path, NeedField(obj, "path", label, op), label,
						 op, "path", value_root);
			v = NeedField(obj, "to", label, op);
			if (v->type != jbvString)
				BadStep(label, op, "field \"to\" must be a string");
			to = StringOf(v);
			if (strcmp(to, "number") == 0)
				st->cast_to = CAST_NUMBER;
			else if (strcmp(to, "string") == 0)
				st->cast_to = CAST_STRING;
			else if (strcmp(to, "boolean") == 0)
				st->cast_to = CAST_BOOLEAN;
			else
				BadStep(label, op,
						"cannot cast to \"%s\" (number, string or boolean)",
						to);
			break;
		}
		case OP_TO_EPOCH:
		case OP_FROM_EPOCH:
		{
			static const char *const f[] = {"path", "unit", NULL};

			CheckMembers(obj, f, label, op);
			ParsePointer(&st->path, NeedField(obj, "path", label, op), label,
						 op, "path", value_root);
			st->unit_us = ParseUnit(obj, label, op);
			break;
		}
		case OP_NEST:
		{
			static const char *const f[] = {"paths", "into", NULL};

			CheckMembers(obj, f, label, op);
			ParsePointerArray(st, obj, "paths", label, op);
			ParsePointer(&st->into, NeedField(obj, "into", label, op), label,
						 op, "into", false);
			st->has_into = true;
			st->path = st->into;
			for (i = 0; i < st->nptrs; i++)
				if (PointerIsPrefix(&st->ptrs[i], &st->into))
					BadStep(
						label, op,
						"cannot nest \"%s\" into itself or its child \"%s\"",
						st->ptrs[i].text, st->into.text);
			break;
		}
		case OP_UNNEST:
		{
			static const char *const f[] = {"path", "into", NULL};

			CheckMembers(obj, f, label, op);
			ParsePointer(&st->path, NeedField(obj, "path", label, op), label,
						 op, "path", false);
			v = StepField(obj, "into");
			if (v)
			{
				ParsePointer(&st->into, v, label, op, "into", true);
				st->has_into = true;
			}
			break;
		}
		case OP_FOR_EACH:
		{
			static const char *const f[] = {"path", "steps", NULL};

			CheckMembers(obj, f, label, op);
			ParsePointer(&st->path, NeedField(obj, "path", label, op), label,
						 op, "path", false);
			v = NeedField(obj, "steps", label, op);
			if (v->type != jbvBinary ||
				!JsonContainerIsArray(v->val.binary.data))
				BadStep(label, op, "field \"steps\" must be an array");
			st->steps =
				ParseSteps(v->val.binary.data, label, true, &st->nsteps);
			break;
		}
		case OP_COUNT:
			elog(ERROR, "unexpected migration op");
	}
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

/* Check a steps value as register_migration does; raise 22023 if bad. */
static Step *
CheckSteps(Jsonb *steps, int *nsteps)
{
	if (!JB_ROOT_IS_ARRAY(steps) || JB_ROOT_IS_SCALAR(steps))
		ereport(
			ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("migration steps must be a JSON array of step objects"),
			 errhint("Example: [{\"op\": \"remove\", \"path\": \"/old\"}].")));
	return ParseSteps(&steps->root, NULL, false, nsteps);
}

/* ---------------------------------------------------------------------
 * The registry cache
 * ---------------------------------------------------------------------
 */

/* Mark the cache stale when the registry (or every relation) changes. */
void
DocmodelMigrateRelcache(Oid relid)
{
	if (relid == InvalidOid || relid == migrate_registry_relid)
	{
		migrate_cache_valid = false;
		migrate_inval_count++;
	}
}

/* Mark the cache stale when a function changes (fn steps hold FmgrInfo). */
void
DocmodelMigrateSyscache(int cacheid, uint32 hashvalue)
{
	migrate_cache_valid = false;
	migrate_inval_count++;
}

/* Compare two rules by from version (for qsort). */
static int
RuleCmp(const void *a, const void *b)
{
	return DocVersionCmp(((const Rule *) a)->from, ((const Rule *) b)->from);
}

/* Return the rule of tr whose from version equals v, or NULL. */
static Rule *
FindRuleFrom(TypeRules *tr, const DocVersion *v)
{
	int lo = 0;
	int hi = tr->nrules - 1;

	while (lo <= hi)
	{
		int mid = (lo + hi) / 2;
		int c = DocVersionCmp(tr->rules[mid].from, v);

		if (c == 0)
			return &tr->rules[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return NULL;
}

/* Load every rule of the registry into a fresh cache context. */
static void
LoadCache(void)
{
	MemoryContext old_cxt = MigrateCacheContext;
	MemoryContext cxt;
	MemoryContext caller = CurrentMemoryContext;
	HASHCTL ctl;
	HTAB *types;
	Oid nsp;
	uint64 i;
	uint64 gen;
	int ret;

	nsp = get_namespace_oid("docmodel", false);
	migrate_registry_relid = get_relname_relid("migration_rules", nsp);
	if (!OidIsValid(migrate_registry_relid))
		elog(ERROR, "docmodel.migration_rules does not exist");

	/* Count invalidations from here on: one while loading wins. */
	gen = migrate_inval_count;

	cxt = AllocSetContextCreate(CacheMemoryContext, "docmodel migrations",
								ALLOCSET_DEFAULT_SIZES);
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = TYPE_NAME_MAX;
	ctl.entrysize = sizeof(TypeRules);
	ctl.hcxt = cxt;
	types = hash_create("docmodel migration types", 16, &ctl,
						HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);

	/* A registry that cannot be read (or parsed) leaves no half cache. */
	PG_TRY();
	{
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
		/*
		 * The SQL of 0.1.0 (the new library before ALTER EXTENSION UPDATE)
		 * has no pins: its function rules are refused until the update.
		 */
		ret = SPI_execute("SELECT pg_catalog.to_regprocedure("
						  "'docmodel._migration_fn(pg_catalog.text, "
						  "docmodel.version)') IS NOT NULL",
						  true, 1);
		if (ret != SPI_OK_SELECT || SPI_processed != 1)
			elog(ERROR, "looking up docmodel._migration_fn failed: %d", ret);
		{
			bool isnull;

			migrate_sql_has_pins = DatumGetBool(SPI_getbinval(
				SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
		}
		ret =
			SPI_execute(migrate_sql_has_pins
							? "SELECT doc_type, from_version::pg_catalog.text, "
							  "to_version::pg_catalog.text, steps, fn, "
							  "docmodel._migration_fn(doc_type, from_version) "
							  "FROM docmodel.migration_rules "
							  "ORDER BY doc_type, from_version"
							: "SELECT doc_type, from_version::pg_catalog.text, "
							  "to_version::pg_catalog.text, steps, fn, "
							  "NULL::pg_catalog.oid "
							  "FROM docmodel.migration_rules "
							  "ORDER BY doc_type, from_version",
						true, 0);
		if (ret != SPI_OK_SELECT)
			elog(ERROR, "reading docmodel.migration_rules failed: %d", ret);

		MemoryContextSwitchTo(cxt);
		for (i = 0; i < SPI_processed; i++)
		{
			HeapTuple tup = SPI_tuptable->vals[i];
			TupleDesc td = SPI_tuptable->tupdesc;
			char *type = SPI_getvalue(tup, td, 1);
			bool found;
			bool isnull;
			TypeRules *tr;
			Rule *r;
			Datum d;

			if (strlen(type) >= TYPE_NAME_MAX)
				continue;
			tr = hash_search(types, type, HASH_ENTER, &found);
			if (!found)
			{
				tr->nrules = 0;
				tr->rules = NULL;
			}
			tr->rules =
				tr->rules ? repalloc(tr->rules, sizeof(Rule) * (tr->nrules + 1))
						  : palloc(sizeof(Rule));
			r = &tr->rules[tr->nrules++];
			memset(r, 0, sizeof(Rule));
			r->from_text = SPI_getvalue(tup, td, 2);
			r->to_text = SPI_getvalue(tup, td, 3);
			r->from = DocVersionFromCString(r->from_text, true);
			r->to = DocVersionFromCString(r->to_text, true);
			d = SPI_getbinval(tup, td, 4, &isnull);
			if (!isnull)
			{
				Jsonb *steps = DatumGetJsonbPCopy(d);

				r->steps = CheckSteps(steps, &r->nsteps);
			}
			else
			{
				r->is_fn = true;
				r->fn_text = SPI_getvalue(tup, td, 5);
				d = SPI_getbinval(tup, td, 6, &isnull);
				r->fn_oid = isnull ? InvalidOid : DatumGetObjectId(d);
				if (OidIsValid(r->fn_oid))
					fmgr_info_cxt(r->fn_oid, &r->flinfo, cxt);
			}
		}
		MemoryContextSwitchTo(caller);
		SPI_finish();
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(caller);
		MemoryContextDelete(cxt);
		PG_RE_THROW();
	}
	PG_END_TRY();

	/* Sort each chain; the oldest version, and the newest reachable. */
	{
		HASH_SEQ_STATUS seq;
		TypeRules *tr;
		long n = 0;

		hash_seq_init(&seq, types);
		while ((tr = hash_seq_search(&seq)) != NULL)
		{
			Rule *r;

			qsort(tr->rules, tr->nrules, sizeof(Rule), RuleCmp);
			tr->oldest = tr->rules[0].from;
			tr->current = tr->oldest;
			while ((r = FindRuleFrom(tr, tr->current)) != NULL)
				tr->current = r->to;
			tr->current_text = DocVersionToCString(tr->current);
			tr->current_len = strlen(tr->current_text);
			/* keep the text as registered (e.g. "3.0") when there is one */
			for (int k = 0; k < tr->nrules; k++)
				if (DocVersionCmp(tr->rules[k].to, tr->current) == 0)
				{
					tr->current_text = tr->rules[k].to_text;
					tr->current_len = strlen(tr->current_text);
				}
			n++;
		}
		migrate_ntypes = n;
	}
	migrate_types = types;
	migrate_last_type = NULL;
	migrate_cache_valid = (gen == migrate_inval_count);
	MigrateCacheContext = cxt;

	/*
	 * Free the previous cache, unless a migration further up the stack (a fn
	 * step that called migrate()) may still be using it: then let it live as
	 * long as the new one.
	 */
	if (old_cxt)
	{
		if (migrate_depth > 0)
			MemoryContextSetParent(old_cxt, cxt);
		else
			MemoryContextDelete(old_cxt);
	}
}

/* Return the rules of a type (NULL when it has none), loading if stale. */
static TypeRules *
LookupType(const char *type, int len)
{
	char name[TYPE_NAME_MAX];

	TypeRules *tr;

	if (!migrate_cache_valid)
		LoadCache();
	if (migrate_ntypes == 0 || len >= TYPE_NAME_MAX)
		return NULL;
	/* most calls of a statement ask for the same type */
	tr = migrate_last_type;
	if (tr && memcmp(tr->name, type, len) == 0 && tr->name[len] == '\0')
		return tr;
	memcpy(name, type, len);
	name[len] = '\0';
	tr = hash_search(migrate_types, name, HASH_FIND, NULL);
	if (tr)
		migrate_last_type = tr;
	return tr;
}

/* ---------------------------------------------------------------------
 * Tree operations
 * ---------------------------------------------------------------------
 */

/* Compare object keys as jsonb orders them: shorter first, then bytes. */
static int
KeyCmp(const char *a, int alen, const char *b, int blen)
{
	if (alen != blen)
		return alen < blen ? -1 : 1;
	return memcmp(a, b, alen);
}

/* Binary-search an object's key; return its index or -(insert pos) - 1. */
static int
ObjFind(JsonbValue *obj, const char *k, int klen)
{
	int lo = 0;
	int hi = obj->val.object.nPairs - 1;

	while (lo <= hi)
	{
		int mid = (lo + hi) / 2;
		JsonbValue *mk = &obj->val.object.pairs[mid].key;
		int c = KeyCmp(mk->val.string.val, mk->val.string.len, k, klen);

		if (c == 0)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -lo - 1;
}

/* Set key k of an object to val (copied in), keeping keys sorted. */
static void
ObjSet(JsonbValue *obj, const char *k, int klen, JsonbValue *val)
{
	int i = ObjFind(obj, k, klen);
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

/* Remove pair i of an object. */
static void
ObjRemoveAt(JsonbValue *obj, int i)
{
	JsonbPair *p = obj->val.object.pairs;
	int n = obj->val.object.nPairs;

	memmove(&p[i], &p[i + 1], sizeof(JsonbPair) * (n - i - 1));
	obj->val.object.nPairs = n - 1;
}

/* Insert val at position i of an array. */
static void
ArrInsert(JsonbValue *arr, int i, JsonbValue *val)
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

/* Parse an array index token; -1 when it is not one. */
static int
ArrIndex(const char *t, int len)
{
	int i;
	int64 n = 0;

	if (len == 0 || len > 9 || (len > 1 && t[0] == '0'))
		return -1;
	for (i = 0; i < len; i++)
	{
		if (t[i] < '0' || t[i] > '9')
			return -1;
		n = n * 10 + (t[i] - '0');
	}
	return (int) n;
}

/* Return the value at the first ntok tokens of p, or NULL. */
static JsonbValue *
Resolve(JsonbValue *root, const JPointer *p, int ntok)
{
	JsonbValue *cur = root;
	int i;

	for (i = 0; i < ntok; i++)
	{
		if (cur->type == jbvObject)
		{
			int k = ObjFind(cur, p->tok[i], p->toklen[i]);

			if (k < 0)
				return NULL;
			cur = &cur->val.object.pairs[k].value;
		}
		else if (cur->type == jbvArray)
		{
			int k = ArrIndex(p->tok[i], p->toklen[i]);

			if (k < 0 || k >= cur->val.array.nElems)
				return NULL;
			cur = &cur->val.array.elems[k];
		}
		else
			return NULL;
	}
	return cur;
}

/* Return a deep copy of a tree (scalars' data is shared, never mutated). */
static JsonbValue *
CopyValue(const JsonbValue *src, const JsonbValue *dollar)
{
	JsonbValue *dst = palloc(sizeof(JsonbValue));
	int i;

	if (dollar && src->type == jbvString && src->val.string.len == 1 &&
		src->val.string.val[0] == '$')
		return CopyValue(dollar, NULL);
	*dst = *src;
	if (src->type == jbvObject)
	{
		int n = src->val.object.nPairs;

		dst->val.object.pairs = palloc(sizeof(JsonbPair) * Max(n, 1));
		for (i = 0; i < n; i++)
		{
			dst->val.object.pairs[i] = src->val.object.pairs[i];
			dst->val.object.pairs[i].value =
				*CopyValue(&src->val.object.pairs[i].value, dollar);
		}
	}
	else if (src->type == jbvArray)
	{
		int n = src->val.array.nElems;

		dst->val.array.elems = palloc(sizeof(JsonbValue) * Max(n, 1));
		for (i = 0; i < n; i++)
			dst->val.array.elems[i] =
				*CopyValue(&src->val.array.elems[i], dollar);
	}
	return dst;
}

/* Return a JSON type name for messages. */
static const char *
KindName(const JsonbValue *v)
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
		default:
			return "a value";
	}
}

/* Make a string value. */
static JsonbValue
StringValue(const char *s, int len)
{
	JsonbValue v;

	v.type = jbvString;
	v.val.string.val = (char *) s;
	v.val.string.len = len;
	return v;
}

/* ---------------------------------------------------------------------
 * The interpreter
 * ---------------------------------------------------------------------
 */

/*
 * Raise sqlstate (with hint, when not NULL) for a step that cannot apply,
 * naming key, step, op, path.
 */
static void pg_attribute_noreturn()
	StepFailCode(ApplyCx *cx, const Step *st, const char *path, int sqlstate,
				 const char *hint, const char *fmt, ...)
		pg_attribute_printf(6, 7);

/* Raise 22000 for a step that cannot apply (StepFailCode's usual case). */
#define StepFail(cx, st, path, ...) \
	StepFailCode(cx, st, path, ERRCODE_DATA_EXCEPTION, NULL, __VA_ARGS__)

static void
StepFailCode(ApplyCx *cx, const Step *st, const char *path, int sqlstate,
			 const char *hint, const char *fmt, ...)
{
	StringInfoData reason;
	va_list args;
	StringInfoData detail;

	va_start(args, fmt);
	FormatReason(&reason, fmt, args);
	va_end(args);
	initStringInfo(&detail);
	if (cx->key)
		appendStringInfo(&detail, "Key \"%s\", type", cx->key);
	else
		appendStringInfoString(&detail, "Type");
	appendStringInfo(
		&detail,
		" \"%s\", migration %s to %s, step %s, op \"%s\", path \"%s%s\".",
		cx->type, cx->from, cx->to, st->label, op_names[st->op], cx->prefix,
		path);
	ereport(ERROR, (errcode(sqlstate),
					errmsg("migration step %s (%s) cannot apply: %s", st->label,
						   op_names[st->op], reason.data),
					errdetail_internal("%s", detail.data),
					hint ? errhint("%s", hint) : 0));
}

/*
 * Error context of a migration: the rule, the step and op, the key and the
 * step's path (cx is an ApplyCx; see ApplyChain).
 */
static void
MigrateErrorContext(void *arg)
{
	ApplyCx *cx = (ApplyCx *) arg;
	StringInfoData buf;

	initStringInfo(&buf);
	if (cx->step)
		appendStringInfo(&buf, "migration step %s (%s) of type \"%s\"",
						 cx->step->label, op_names[cx->step->op], cx->type);
	else
		appendStringInfo(&buf, "migration of type \"%s\"", cx->type);
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

/* Add val at pointer p (RFC 6902 add); raise when the parent is missing. */
static void
AddAt(ApplyCx *cx, const Step *st, JsonbValue *root, const JPointer *p,
	  JsonbValue *val)
{
	JsonbValue *parent;
	const char *t;
	int tl;

	if (p->ntok == 0)
	{
		*root = *val;
		return;
	}
	parent = Resolve(root, p, p->ntok - 1);
	t = p->tok[p->ntok - 1];
	tl = p->toklen[p->ntok - 1];
	if (parent == NULL)
		StepFail(cx, st, p->text, "the parent of \"%s\" does not exist",
				 p->text);
	if (parent->type == jbvObject)
		ObjSet(parent, t, tl, val);
	else if (parent->type == jbvArray)
	{
		int k = (tl == 1 && t[0] == '-') ? parent->val.array.nElems
										 : ArrIndex(t, tl);

		if (k < 0 || k > parent->val.array.nElems)
			StepFail(cx, st, p->text, "array index \"%.*s\" is out of range",
					 tl, t);
		ArrInsert(parent, k, val);
	}
	else
		StepFail(cx, st, p->text, "the parent of \"%s\" is %s, not a container",
				 p->text, KindName(parent));
}

/*
 * Remove the value at pointer p and return a copy of it; NULL when absent
 * (the caller decides whether that is an error).
 */
static JsonbValue *
RemoveAt(JsonbValue *root, const JPointer *p)
{
	JsonbValue *parent;
	JsonbValue *res;
	const char *t;
	int tl;

	if (p->ntok == 0)
		return NULL;
	parent = Resolve(root, p, p->ntok - 1);
	if (parent == NULL)
		return NULL;
	t = p->tok[p->ntok - 1];
	tl = p->toklen[p->ntok - 1];
	res = palloc(sizeof(JsonbValue));
	if (parent->type == jbvObject)
	{
		int k = ObjFind(parent, t, tl);

		if (k < 0)
			return NULL;
		*res = parent->val.object.pairs[k].value;
		ObjRemoveAt(parent, k);
		return res;
	}
	if (parent->type == jbvArray)
	{
		int k = ArrIndex(t, tl);
		int n = parent->val.array.nElems;

		if (k < 0 || k >= n)
			return NULL;
		*res = parent->val.array.elems[k];
		memmove(&parent->val.array.elems[k], &parent->val.array.elems[k + 1],
				sizeof(JsonbValue) * (n - k - 1));
		parent->val.array.nElems = n - 1;
		return res;
	}
	return NULL;
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

/* Cast the value in slot v in place (cast op). */
static void
CastValue(ApplyCx *cx, const Step *st, const char *path, JsonbValue *v)
{
	if (v->type == jbvNull)
		return;
	if (v->type == jbvArray || v->type == jbvObject)
		StepFail(cx, st, path, "cannot cast %s", KindName(v));
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
				bool b = v->val.boolean;

				v->type = jbvNumeric;
				v->val.numeric = int64_to_numeric(b ? 1 : 0);
			}
			break;
		case CAST_STRING:
			if (v->type == jbvNumeric)
			{
				char *s = DatumGetCString(DirectFunctionCall1(
					numeric_out, NumericGetDatum(v->val.numeric)));

				*v = StringValue(s, strlen(s));
			}
			else if (v->type == jbvBool)
				*v = v->val.boolean ? StringValue("true", 4)
									: StringValue("false", 5);
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
				bool b =
					DatumGetInt32(DirectFunctionCall1(
						numeric_sign, NumericGetDatum(v->val.numeric))) != 0;

				v->type = jbvBool;
				v->val.boolean = b;
			}
			break;
	}
}

/*
 * Replace an ISO 8601 string in slot v by its epoch in the step's unit
 * (floored). Only the forms DocmodelParseIso8601 reads, the same in every
 * session; anything else is 22007.
 */
static void
ToEpoch(ApplyCx *cx, const Step *st, const char *path, JsonbValue *v)
{
	TimestampTz ts;
	int64 us;
	int64 q;

	if (v->type == jbvNull)
		return;
	if (v->type != jbvString)
		StepFail(cx, st, path, "expected an ISO-8601 string, found %s",
				 KindName(v));
	if (!DocmodelParseIso8601(v->val.string.val, v->val.string.len, &ts))
		StepFailCode(cx, st, path, ERRCODE_INVALID_DATETIME_FORMAT,
					 "Write a date as 2024-01-02 or a date-time as "
					 "2024-01-02T03:04:05.678+01:00; without an offset it is "
					 "UTC.",
					 "\"%.*s\" is not an ISO 8601 date or date-time",
					 v->val.string.len, v->val.string.val);
	us = ts + (int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY;
	q = us / st->unit_us;
	if (us % st->unit_us != 0 && us < 0)
		q--; /* floor */
	v->type = jbvNumeric;
	v->val.numeric = int64_to_numeric(q);
}

/*
 * Replace an epoch number in slot v by ISO 8601 UTC text with milliseconds,
 * computed in numeric (a double loses microseconds past the year 2255).
 */
static void
FromEpoch(ApplyCx *cx, const Step *st, const char *path, JsonbValue *v)
{
	Datum us;
	double approx;
	char *buf;

	if (v->type == jbvNull)
		return;
	if (v->type != jbvNumeric)
		StepFail(cx, st, path, "expected an epoch number, found %s",
				 KindName(v));
	us = DirectFunctionCall2(numeric_mul, NumericGetDatum(v->val.numeric),
							 NumericGetDatum(int64_to_numeric(st->unit_us)));
	us = DirectFunctionCall2(numeric_round, us, Int32GetDatum(0));
	approx = DatumGetFloat8(DirectFunctionCall1(numeric_float8, us));
	buf = palloc(DOCMODEL_ISO8601_LEN + 1);
	/* years 0000 to 9999 lie well inside int64 microseconds */
	if (!(fabs(approx) < 1e18) ||
		!DocmodelFormatIso8601(
			DatumGetInt64(DirectFunctionCall1(numeric_int8, us)) -
				(int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) *
					USECS_PER_DAY,
			buf))
		StepFailCode(cx, st, path, ERRCODE_DATETIME_VALUE_OUT_OF_RANGE, NULL,
					 "epoch %s is out of range (years 0000 to 9999)",
					 DatumGetCString(DirectFunctionCall1(
						 numeric_out, NumericGetDatum(v->val.numeric))));
	*v = StringValue(buf, DOCMODEL_ISO8601_LEN);
}

static void ApplySteps(ApplyCx *cx, const Step *steps, int nsteps,
					   JsonbValue *root);

/* Apply one step to the tree at root. */
static void
ApplyStep(ApplyCx *cx, const Step *st, JsonbValue *root)
{
	JsonbValue *v;
	int i;

	CHECK_FOR_INTERRUPTS();
	switch (st->op)
	{
		case OP_ADD:
			AddAt(cx, st, root, &st->path, CopyValue(st->value, NULL));
			break;
		case OP_REMOVE:
			if (RemoveAt(root, &st->path) == NULL)
				StepFail(cx, st, st->path.text, "\"%s\" does not exist",
						 st->path.text);
			break;
		case OP_REPLACE:
			v = Resolve(root, &st->path, st->path.ntok);
			if (v == NULL)
				StepFail(cx, st, st->path.text, "\"%s\" does not exist",
						 st->path.text);
			*v = *CopyValue(st->value, NULL);
			break;
		case OP_MOVE:
			v = RemoveAt(root, &st->from);
			if (v == NULL)
				StepFail(cx, st, st->from.text, "\"%s\" does not exist",
						 st->from.text);
			AddAt(cx, st, root, &st->path, v);
			break;
		case OP_COPY:
			v = Resolve(root, &st->from, st->from.ntok);
			if (v == NULL)
				StepFail(cx, st, st->from.text, "\"%s\" does not exist",
						 st->from.text);
			AddAt(cx, st, root, &st->path, CopyValue(v, NULL));
			break;
		case OP_TEST:
			v = Resolve(root, &st->path, st->path.ntok);
			if (v == NULL)
				StepFail(cx, st, st->path.text,
						 "test failed: \"%s\" does not exist", st->path.text);
			if (!DocmodelJsonbValueEqual(v, st->value))
				StepFail(cx, st, st->path.text,
						 "test failed: the value at \"%s\" differs",
						 st->path.text);
			break;
		case OP_DEFAULT:
			if (Resolve(root, &st->path, st->path.ntok) == NULL)
				AddAt(cx, st, root, &st->path, CopyValue(st->value, NULL));
			break;
		case OP_SPLIT:
		{
			char *s;
			int len;
			int pos = 0;

			v = Resolve(root, &st->path, st->path.ntok);
			if (v == NULL)
				break;
			if (v->type != jbvString)
				StepFail(cx, st, st->path.text, "expected a string, found %s",
						 KindName(v));
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
				piece = StringValue(s + pos, end - pos);
				AddAt(cx, st, root, &st->ptrs[i], &piece);
				pos = (end == len) ? len + 1 : end + st->seplen;
			}
			break;
		}
		case OP_JOIN:
		{
			StringInfoData buf;
			int found = 0;

			initStringInfo(&buf);
			for (i = 0; i < st->nptrs; i++)
			{
				v = Resolve(root, &st->ptrs[i], st->ptrs[i].ntok);
				if (v == NULL || v->type == jbvNull)
					continue;
				if (found++ > 0)
					appendBinaryStringInfo(&buf, st->sep, st->seplen);
				if (v->type == jbvString)
					appendBinaryStringInfo(&buf, v->val.string.val,
										   v->val.string.len);
				else if (v->type == jbvNumeric)
					appendStringInfoString(
						&buf,
						DatumGetCString(DirectFunctionCall1(
							numeric_out, NumericGetDatum(v->val.numeric))));
				else if (v->type == jbvBool)
					appendStringInfoString(&buf,
										   v->val.boolean ? "true" : "false");
				else
					StepFail(cx, st, st->ptrs[i].text, "cannot join %s",
							 KindName(v));
			}
			if (found == 0)
				break;
			for (i = 0; i < st->nptrs; i++)
				RemoveAt(root, &st->ptrs[i]);
			{
				JsonbValue s = StringValue(buf.data, buf.len);

				AddAt(cx, st, root, &st->into, &s);
			}
			break;
		}
		case OP_WRAP:
		{
			JsonbValue arr;

			v = Resolve(root, &st->path, st->path.ntok);
			if (v == NULL)
				break;
			if (st->has_into && Resolve(root, &st->into, st->into.ntok) != NULL)
				StepFail(cx, st, st->into.text, "\"%s\" already exists",
						 st->into.text);
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
			break;
		}
		case OP_CAST:
		case OP_TO_EPOCH:
		case OP_FROM_EPOCH:
		case OP_STRIP_DASHES:
			v = Resolve(root, &st->path, st->path.ntok);
			if (v == NULL)
				break;
			if (st->op == OP_CAST)
				CastValue(cx, st, st->path.text, v);
			else if (st->op == OP_TO_EPOCH)
				ToEpoch(cx, st, st->path.text, v);
			else if (st->op == OP_FROM_EPOCH)
				FromEpoch(cx, st, st->path.text, v);
			else if (v->type == jbvString)
			{
				char *out = palloc(v->val.string.len + 1);
				int n = 0;

				for (i = 0; i < v->val.string.len; i++)
					if (v->val.string.val[i] != '-')
						out[n++] = v->val.string.val[i];
				*v = StringValue(out, n);
			}
			else if (v->type != jbvNull)
				StepFail(cx, st, st->path.text, "expected a string, found %s",
						 KindName(v));
			break;
		case OP_NEST:
		{
			JsonbValue *target = Resolve(root, &st->into, st->into.ntok);

			if (target && target->type != jbvObject)
				StepFail(cx, st, st->into.text, "\"%s\" is %s, not an object",
						 st->into.text, KindName(target));
			for (i = 0; i < st->nptrs; i++)
			{
				const JPointer *p = &st->ptrs[i];

				v = RemoveAt(root, p);
				if (v == NULL)
					continue;
				/* a removal may have moved the target: find it again */
				target = Resolve(root, &st->into, st->into.ntok);
				if (target == NULL)
				{
					JsonbValue empty;

					empty.type = jbvObject;
					empty.val.object.nPairs = 0;
					empty.val.object.pairs = NULL;
					AddAt(cx, st, root, &st->into, &empty);
					target = Resolve(root, &st->into, st->into.ntok);
				}
				ObjSet(target, p->tok[p->ntok - 1], p->toklen[p->ntok - 1], v);
			}
			break;
		}
		case OP_UNNEST:
		{
			JsonbValue *target;
			JPointer parent;

			v = Resolve(root, &st->path, st->path.ntok);
			if (v == NULL)
				break;
			if (v->type != jbvObject)
				StepFail(cx, st, st->path.text, "\"%s\" is %s, not an object",
						 st->path.text, KindName(v));
			v = RemoveAt(root, &st->path);
			if (st->has_into)
				parent = st->into;
			else
			{
				parent = st->path;
				parent.ntok--;
			}
			target = Resolve(root, &parent, parent.ntok);
			if (target == NULL || target->type != jbvObject)
				StepFail(cx, st, st->path.text,
						 "the target of \"%s\" is not an object",
						 st->path.text);
			for (i = 0; i < v->val.object.nPairs; i++)
			{
				JsonbPair *pr = &v->val.object.pairs[i];

				if (ObjFind(target, pr->key.val.string.val,
							pr->key.val.string.len) >= 0)
					StepFail(cx, st, st->path.text,
							 "field \"%.*s\" already exists in the target",
							 pr->key.val.string.len, pr->key.val.string.val);
				ObjSet(target, pr->key.val.string.val, pr->key.val.string.len,
					   &pr->value);
			}
			break;
		}
		case OP_FOR_EACH:
		{
			const char *saved = cx->prefix;

			v = Resolve(root, &st->path, st->path.ntok);
			if (v == NULL)
				break;
			if (v->type != jbvArray)
				StepFail(cx, st, st->path.text, "\"%s\" is %s, not an array",
						 st->path.text, KindName(v));
			for (i = 0; i < v->val.array.nElems; i++)
			{
				cx->prefix = psprintf("%s%s/%d", saved, st->path.text, i);
				ApplySteps(cx, st->steps, st->nsteps, &v->val.array.elems[i]);
			}
			cx->prefix = saved;
			break;
		}
		case OP_COUNT:
			elog(ERROR, "unexpected migration op");
	}
}

/* Apply steps in order to the tree at root. */
static void
ApplySteps(ApplyCx *cx, const Step *steps, int nsteps, JsonbValue *root)
{
	const Step *outer = cx->step; /* the for_each we are in, or NULL */
	int i;

	for (i = 0; i < nsteps; i++)
	{
		cx->step = &steps[i];
		ApplyStep(cx, &steps[i], root);
	}
	cx->step = outer;
}

/* Set the schema version field of a document tree. */
static void
SetVersion(JsonbValue *root, DocMetaStyle style, const char *text)
{
	JsonbValue sv = StringValue(text, strlen(text));
	const DocFieldSet *fs = DocmodelFieldSetFor(style);
	const DocFieldName *c = &fs->container;
	const DocFieldName *name = &fs->field[DOC_FIELD_SCHEMA];

	if (c->len > 0)
	{
		int k = ObjFind(root, c->name, c->len);

		if (k < 0 || root->val.object.pairs[k].value.type != jbvObject)
		{
			JsonbValue meta;

			meta.type = jbvObject;
			meta.val.object.nPairs = 0;
			meta.val.object.pairs = NULL;
			ObjSet(root, c->name, c->len, &meta);
			k = ObjFind(root, c->name, c->len);
		}
		ObjSet(&root->val.object.pairs[k].value, name->name, name->len, &sv);
	}
	else
		ObjSet(root, name->name, name->len, &sv);
}

/* Call a rule's jsonb -> jsonb function on a document. */
static Jsonb *
CallRuleFn(ApplyCx *cx, Rule *r, Jsonb *doc)
{
	Datum d;
	Jsonb *res;
	LOCAL_FCINFO(fcinfo, 1);

	if (!OidIsValid(r->fn_oid) && !migrate_sql_has_pins)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("migration function %s is not pinned", r->fn_text),
				 errdetail("Type \"%s\", migration %s to %s. The extension's "
						   "SQL objects are those of docmodel 0.1.0.",
						   cx->type, cx->from, cx->to),
				 errhint("Run ALTER EXTENSION docmodel UPDATE.")));
	if (!OidIsValid(r->fn_oid))
		ereport(
			ERROR,
			(errcode(ERRCODE_UNDEFINED_FUNCTION),
			 errmsg("migration function %s does not exist", r->fn_text),
			 errdetail("Type \"%s\", migration %s to %s.", cx->type, cx->from,
					   cx->to),
			 errhint(
				 "Register the migration again with an existing function.")));
	InitFunctionCallInfoData(*fcinfo, &r->flinfo, 1, InvalidOid, NULL, NULL);
	fcinfo->args[0].value = JsonbPGetDatum(doc);
	fcinfo->args[0].isnull = false;
	migrate_depth++;
	PG_TRY();
	{
		d = FunctionCallInvoke(fcinfo);
	}
	PG_FINALLY();
	{
		migrate_depth--;
	}
	PG_END_TRY();
	if (fcinfo->isnull)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("migration function %s returned null", r->fn_text),
				 cx->key
					 ? errdetail("Key \"%s\", type \"%s\", migration %s to %s.",
								 cx->key, cx->type, cx->from, cx->to)
					 : errdetail("Type \"%s\", migration %s to %s.", cx->type,
								 cx->from, cx->to)));
	res = DatumGetJsonbP(d);
	if (!JB_ROOT_IS_OBJECT(res))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("migration function %s did not return an object",
						r->fn_text),
				 cx->key
					 ? errdetail("Key \"%s\", type \"%s\", migration %s to %s.",
								 cx->key, cx->type, cx->from, cx->to)
					 : errdetail("Type \"%s\", migration %s to %s.", cx->type,
								 cx->from, cx->to)));
	return res;
}

/* Return whether v is a version of tr's chain (a from or a to). */
static bool
OnChain(TypeRules *tr, const DocVersion *v)
{
	int i;

	for (i = 0; i < tr->nrules; i++)
		if (DocVersionCmp(tr->rules[i].from, v) == 0 ||
			DocVersionCmp(tr->rules[i].to, v) == 0)
			return true;
	return false;
}

/* Raise 22023 unless target is a version of tr's chain. */
static void
CheckTarget(TypeRules *tr, const DocVersion *target)
{
	if (!OnChain(tr, target))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("no migration of type \"%s\" reaches version %s",
						tr->name, DocVersionToCString(target)),
				 errdetail("Type \"%s\" goes from version %s to %s.", tr->name,
						   DocVersionToCString(tr->oldest), tr->current_text)));
}

/*
 * Apply the rules of tr to doc, from version v up to tgt, and return the
 * new document (built once, unless a fn rule sits in the chain). style is
 * resolved (not AUTO): it says where the schema field goes.
 */
static Jsonb *
ApplyChain(Jsonb *doc, TypeRules *tr, DocMetaStyle style, const DocVersion *v,
		   const DocVersion *tgt, const char *key)
{
	JsonbValue *tree = NULL;
	Jsonb *cur = doc;
	ApplyCx cx;
	ErrorContextCallback errcb;
	Jsonb *res;

	cx.key = key;
	cx.type = tr->name;
	cx.from = NULL;
	cx.to = NULL;
	cx.fn = NULL;
	cx.step = NULL;
	cx.prefix = "";
	errcb.callback = MigrateErrorContext;
	errcb.arg = &cx;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;
	while (DocVersionCmp(v, tgt) < 0)
	{
		Rule *r = FindRuleFrom(tr, v);

		cx.from = cx.to = cx.fn = NULL;
		if (r == NULL)
			ereport(
				ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("no migration of type \"%s\" starts at version %s",
						tr->name, DocVersionToCString(v)),
				 key ? errdetail("Key \"%s\": type \"%s\" goes from version %s "
								 "to %s.",
								 key, tr->name, DocVersionToCString(tr->oldest),
								 tr->current_text)
					 : errdetail("Type \"%s\" goes from version %s to %s.",
								 tr->name, DocVersionToCString(tr->oldest),
								 tr->current_text),
				 errhint("Register a migration from version %s.",
						 DocVersionToCString(v))));
		cx.from = r->from_text;
		cx.to = r->to_text;
		cx.fn = r->is_fn ? r->fn_text : NULL;
		if (r->is_fn)
		{
			if (tree)
				cur = JsonbValueToJsonb(tree);
			cur = CallRuleFn(&cx, r, cur);
			tree = NULL;
		}
		if (tree == NULL)
			tree = TreeFromContainer(&cur->root);
		if (!r->is_fn)
			ApplySteps(&cx, r->steps, r->nsteps, tree);
		if (tree->type != jbvObject)
			ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
							errmsg("migration of type \"%s\" from %s to %s did "
								   "not leave an object",
								   tr->name, r->from_text, r->to_text)));
		SetVersion(tree, style, r->to_text);
		v = r->to;
	}
	res = JsonbValueToJsonb(tree);
	error_context_stack = errcb.previous;
	return res;
}

/* See migrate.h. */
Jsonb *
DocmodelMigrate(Jsonb *doc, DocMetaStyle style, const DocVersion *target,
				const char *key, bool stamp_absent)
{
	DocFields f;
	TypeRules *tr;
	const DocVersion *v;
	const DocVersion *tgt;

	if (!JB_ROOT_IS_OBJECT(doc))
		return doc;
	FindFields(&doc->root, style, &f);
	if (f.type == NULL)
		return doc;
	tr = LookupType(f.type, f.typelen);
	if (tr == NULL)
		return doc;

	/* The fast path: a current document comes back as it is. */
	if (f.has_version && target == NULL && f.versionlen == tr->current_len &&
		memcmp(f.version, tr->current_text, f.versionlen) == 0)
		return doc;

	tgt = target ? target : tr->current;
	if (target)
		CheckTarget(tr, target);
	if (!f.has_version)
	{
		if (stamp_absent)
		{
			JsonbValue *tree = TreeFromContainer(&doc->root);

			SetVersion(tree, f.style,
					   target ? DocVersionToCString(target) : tr->current_text);
			return JsonbValueToJsonb(tree);
		}
		v = tr->oldest;
	}
	else
		v = ParseDocVersion(&f, key);
	if (DocVersionCmp(v, tgt) >= 0)
		return doc;
	return ApplyChain(doc, tr, f.style, v, tgt, key);
}

/* See migrate.h. */
Jsonb *
DocmodelMigrateOnWrite(Jsonb *body, const char *type, int type_len,
					   DocMetaStyle style, const char *key, int key_len,
					   JsonbValue **schema)
{
	DocFields f;
	TypeRules *tr;
	const DocVersion *v;
	char *keyz;
	JsonbValue *sv;

	*schema = NULL;
	if (!JB_ROOT_IS_OBJECT(body))
		return body;
	tr = LookupType(type, type_len);
	if (tr == NULL)
		return body;
	FindFields(&body->root, style, &f);
	f.type = (char *) type;
	f.typelen = type_len;
	if (f.has_version && f.versionlen == tr->current_len &&
		memcmp(f.version, tr->current_text, f.versionlen) == 0)
		return body;
	sv = palloc(sizeof(JsonbValue));
	sv->type = jbvString;
	sv->val.string.val = pstrdup(tr->current_text);
	sv->val.string.len = strlen(tr->current_text);
	if (!f.has_version)
	{
		/* a new shape written without a version is the current one */
		*schema = sv;
		return body;
	}
	keyz = pnstrdup(key, key_len);
	v = ParseDocVersion(&f, keyz);
	if (DocVersionCmp(v, tr->current) >= 0)
		return body; /* newer than we know: keep it */
	*schema = sv;
	return ApplyChain(body, tr, f.style, v, tr->current, keyz);
}

/* See migrate.h. */
HeapTuple
DocmodelMigrateTuple(HeapTuple tup, TupleDesc desc, int keycol, int doccol)
{
	bool isnull;
	Datum d = heap_getattr(tup, doccol, desc, &isnull);
	Jsonb *doc;
	Jsonb *cur;
	Datum values[1];
	bool nulls[1] = {false};
	int cols[1];
	char *key = NULL;

	if (isnull)
		return tup;
	doc = DatumGetJsonbP(d);
	if (keycol > 0)
	{
		Datum k = heap_getattr(tup, keycol, desc, &isnull);

		if (!isnull)
			key = TextDatumGetCString(k);
	}
	cur = DocmodelMigrate(doc, DOC_META_AUTO, NULL, key, false);
	if (cur == doc)
		return tup;
	values[0] = JsonbPGetDatum(cur);
	cols[0] = doccol;
	return heap_modify_tuple_by_cols(tup, desc, 1, cols, values, nulls);
}

/* ---------------------------------------------------------------------
 * SQL-callable functions
 * ---------------------------------------------------------------------
 */

/* migrate(doc jsonb, target version DEFAULT NULL) -> jsonb */
Datum
migrate(PG_FUNCTION_ARGS)
{
	Datum d;
	Jsonb *doc;
	Jsonb *res;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	d = PG_GETARG_DATUM(0);
	/* a plain in-line datum needs no detoasting call */
	doc = VARATT_IS_EXTENDED(DatumGetPointer(d)) ? DatumGetJsonbP(d)
												 : (Jsonb *) DatumGetPointer(d);
	res = DocmodelMigrate(doc, DOC_META_AUTO,
						  PG_ARGISNULL(1) ? NULL : PG_GETARG_DOCVERSION_P(1),
						  NULL, false);
	if (res == doc)
		PG_RETURN_DATUM(d); /* the same datum, not a copy */
	PG_RETURN_JSONB_P(res);
}

/* _migrate_doc(doc jsonb, target version, key text) -> jsonb: errors name key */
Datum
migrate_doc(PG_FUNCTION_ARGS)
{
	Datum d;
	Jsonb *doc;
	Jsonb *res;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	d = PG_GETARG_DATUM(0);
	doc = DatumGetJsonbP(d);
	res = DocmodelMigrate(
		doc, DOC_META_AUTO, PG_ARGISNULL(1) ? NULL : PG_GETARG_DOCVERSION_P(1),
		PG_ARGISNULL(2) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(2)), false);
	if (res == doc)
		PG_RETURN_DATUM(d);
	PG_RETURN_JSONB_P(res);
}

/* current_version(doc_type text) -> version: NULL without migrations */
Datum
current_version(PG_FUNCTION_ARGS)
{
	text *t = PG_GETARG_TEXT_PP(0);
	TypeRules *tr = LookupType(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
	DocVersion *v;

	if (tr == NULL)
		PG_RETURN_NULL();
	v = DocVersionFromCString(tr->current_text, true);
	PG_RETURN_DOCVERSION_P(v);
}

/*
 * _migration_pending(doc, doc_type, target) -> boolean: would migrate()
 * change this document (of type doc_type when given)? A document whose
 * version cannot be read counts as pending, so migrating it raises the
 * error with its key.
 */
Datum
migration_pending(PG_FUNCTION_ARGS)
{
	Jsonb *doc;
	DocFields f;
	TypeRules *tr;
	const DocVersion *v;
	const DocVersion *tgt;

	if (PG_ARGISNULL(0))
		PG_RETURN_BOOL(false);
	doc = PG_GETARG_JSONB_P(0);
	if (!JB_ROOT_IS_OBJECT(doc))
		PG_RETURN_BOOL(false);
	FindFields(&doc->root, DOC_META_AUTO, &f);
	if (f.type == NULL)
		PG_RETURN_BOOL(false);
	if (!PG_ARGISNULL(1))
	{
		text *t = PG_GETARG_TEXT_PP(1);

		if (VARSIZE_ANY_EXHDR(t) != f.typelen ||
			memcmp(VARDATA_ANY(t), f.type, f.typelen) != 0)
			PG_RETURN_BOOL(false);
	}
	tr = LookupType(f.type, f.typelen);
	if (tr == NULL)
		PG_RETURN_BOOL(false);
	tgt = PG_ARGISNULL(2) ? tr->current : PG_GETARG_DOCVERSION_P(2);
	if (!f.has_version)
		v = tr->oldest;
	else if (PG_ARGISNULL(2) && f.versionlen == tr->current_len &&
			 memcmp(f.version, tr->current_text, f.versionlen) == 0)
		PG_RETURN_BOOL(false);
	else if (!f.version_ok ||
			 (v = DocVersionFromCString(pnstrdup(f.version, f.versionlen),
										false)) == NULL)
		PG_RETURN_BOOL(true);
	PG_RETURN_BOOL(DocVersionCmp(v, tgt) < 0);
}

/*
 * _migration_steps(doc_type, version, target) -> integer: how many steps
 * take a document of that version (NULL: the oldest) to target (NULL: the
 * current version); a fn rule counts as one. NULL when the type has no
 * migrations or no chain starts at version; 22023 for an unreachable target.
 */
Datum
migration_steps(PG_FUNCTION_ARGS)
{
	text *t;
	TypeRules *tr;
	const DocVersion *v;
	const DocVersion *tgt;
	int n = 0;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	t = PG_GETARG_TEXT_PP(0);
	tr = LookupType(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
	if (tr == NULL)
		PG_RETURN_NULL();
	v = PG_ARGISNULL(1) ? tr->oldest : PG_GETARG_DOCVERSION_P(1);
	tgt = PG_ARGISNULL(2) ? tr->current : PG_GETARG_DOCVERSION_P(2);
	if (!PG_ARGISNULL(2))
		CheckTarget(tr, tgt);
	while (DocVersionCmp(v, tgt) < 0)
	{
		Rule *r = FindRuleFrom(tr, v);

		if (r == NULL)
			PG_RETURN_NULL();
		n += r->is_fn ? 1 : r->nsteps;
		v = r->to;
	}
	PG_RETURN_INT32(n);
}

/* _doc_type(doc) -> text: the type field, whichever meta style */
Datum
migration_doc_type(PG_FUNCTION_ARGS)
{
	Jsonb *doc = PG_GETARG_JSONB_P(0);
	DocFields f;

	if (!JB_ROOT_IS_OBJECT(doc))
		PG_RETURN_NULL();
	FindFields(&doc->root, DOC_META_AUTO, &f);
	if (f.type == NULL)
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text_with_len(f.type, f.typelen));
}

/* _doc_version(doc) -> version: the schema field (22P02 when bad) */
Datum
migration_doc_version(PG_FUNCTION_ARGS)
{
	Jsonb *doc = PG_GETARG_JSONB_P(0);
	DocFields f;

	if (!JB_ROOT_IS_OBJECT(doc))
		PG_RETURN_NULL();
	FindFields(&doc->root, DOC_META_AUTO, &f);
	if (f.type == NULL || !f.has_version)
		PG_RETURN_NULL();
	PG_RETURN_DOCVERSION_P(ParseDocVersion(&f, NULL));
}

/* _check_migration_steps(steps jsonb): raise 22023 when a step is bad */
Datum
migration_check_steps(PG_FUNCTION_ARGS)
{
	int n;

	CheckSteps(PG_GETARG_JSONB_P(0), &n);
	PG_RETURN_VOID();
}

/* Statement trigger on the registry: tell every backend's cache. */
Datum
migration_rules_changed(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;

	if (!CALLED_AS_TRIGGER(fcinfo))
		elog(ERROR, "migration_rules_changed: not called as a trigger");
	CacheInvalidateRelcacheByRelid(RelationGetRelid(trigdata->tg_relation));
	return PointerGetDatum(NULL);
}

/* Run one statement through SPI with text arguments; raise on failure. */
static void
RunSpi(const char *sql, int nargs, Oid *types, Datum *values, const char *nulls,
	   int expect)
{
	int ret = SPI_execute_with_args(sql, nargs, types, values, nulls, false, 0);

	if (ret != expect)
		elog(ERROR, "%s failed: %s", sql, SPI_result_code_string(ret));
}

/* Return column col of the first result row as a palloc'd string, or NULL. */
static char *
SpiText(int col)
{
	return SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, col);
}

/*
 * Check that the table relid still has the columns a run reads and writes
 * by name (id text, doc jsonb): 55000 or 42804 naming the column. Locks it
 * for the current transaction; a table that is gone is left to the run's
 * SQL, which reports it.
 */
static void
CheckRunTable(Oid relid)
{
	Relation rel = try_relation_open(relid, AccessShareLock);

	if (rel == NULL)
		return;
	DocmodelCheckLayout(rel, DOCMODEL_LAYOUT_DOCUMENTS);
	relation_close(rel, NoLock);
}

/*
 * CALL migrate_collection(coll, doc_type, target, batch_size): start or
 * resume a run (_migration_start), then migrate batch after batch
 * (_migration_batch), committing after each and printing its progress. A
 * batch that fails is rolled back and recorded by _migration_batch; its
 * error is raised here after that record is committed and the lock freed.
 * Must be called by CALL outside a transaction block (it commits).
 */
Datum
migrate_collection(PG_FUNCTION_ARGS)
{
	CallContext *cc = (CallContext *) fcinfo->context;
	Oid types[4] = {OIDOID, TEXTOID, TEXTOID, INT4OID};
	Datum values[4];
	char nulls[5] = "    ";
	Oid btypes[2] = {INT8OID, INT4OID};
	Datum bvalues[2];
	int64 run;
	int64 this_run = 0;
	int64 done = 0;
	TimestampTz started;
	char *collname;

	if (cc == NULL || !IsA(cc, CallContext) || cc->atomic)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TRANSACTION_TERMINATION),
				 errmsg("migrate_collection must be called by CALL outside "
						"a transaction block"),
				 errdetail("It commits after every batch."),
				 errhint("Run it on its own, not inside BEGIN ... COMMIT or "
						 "a function.")));
	if (PG_ARGISNULL(0))
		nulls[0] = 'n';
	else
		values[0] = PG_GETARG_DATUM(0);
	if (PG_ARGISNULL(1))
		nulls[1] = 'n';
	else
		values[1] = PG_GETARG_DATUM(1);
	if (PG_ARGISNULL(2))
		nulls[2] = 'n';
	else
		values[2] =
			CStringGetTextDatum(DocVersionToCString(PG_GETARG_DOCVERSION_P(2)));
	if (PG_ARGISNULL(3))
		nulls[3] = 'n';
	else
		values[3] = PG_GETARG_DATUM(3);

	if (!PG_ARGISNULL(0))
		CheckRunTable(PG_GETARG_OID(0));
	if (SPI_connect_ext(SPI_OPT_NONATOMIC) != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	RunSpi("SELECT docmodel._migration_start($1::pg_catalog.regclass, $2, "
		   "$3::docmodel.version, $4)",
		   4, types, values, nulls, SPI_OK_SELECT);
	run = pg_strtoint64(SpiText(1));
	collname = PG_ARGISNULL(0) ? "" : get_rel_name(PG_GETARG_OID(0));
	SPI_commit();
	SPI_start_transaction();

	started = GetCurrentTimestamp();
	bvalues[0] = Int64GetDatum(run);
	bvalues[1] = PG_ARGISNULL(3) ? Int32GetDatum(5000) : PG_GETARG_DATUM(3);
	for (;;)
	{
		char *n_text;
		char *state;
		int64 n;
		int64 total;
		double secs;
		double rate;

		RunSpi("SELECT * FROM docmodel._migration_batch($1, $2)", 2, btypes,
			   bvalues, NULL, SPI_OK_SELECT);
		n_text = SpiText(1);
		n = pg_strtoint64(n_text);
		done = pg_strtoint64(SpiText(2));
		total = pg_strtoint64(SpiText(3));
		state = SpiText(4);
		if (state != NULL)
		{
			/* keep the error past the commit that records it */
			char *msg = SpiText(5);
			char *detail = SpiText(6);
			char *hint = SpiText(7);
			char *where = SpiText(8); /* the step, key and path */

			SPI_commit();
			SPI_start_transaction();
			RunSpi("SELECT docmodel._migration_unlock($1)", 1, btypes, bvalues,
				   NULL, SPI_OK_SELECT);
			ereport(
				ERROR,
				(errcode(MAKE_SQLSTATE(state[0], state[1], state[2], state[3],
									   state[4])),
				 errmsg_internal("%s", msg),
				 (detail && detail[0]) ? errdetail_internal("%s", detail) : 0,
				 (hint && hint[0]) ? errhint("%s", hint) : 0,
				 (where && where[0]) ? errcontext("%s", where) : 0));
		}
		SPI_commit();
		SPI_start_transaction();
		if (n == 0)
			break;
		this_run += n;
		secs = (double) (GetCurrentTimestamp() - started) / USECS_PER_SEC;
		rate = (double) this_run / Max(secs, 0.001);
		ereport(NOTICE,
				(errmsg("migrated " INT64_FORMAT "/" INT64_FORMAT
						" (%d%%), %.0f docs/s, eta %.0fs",
						done, total, (int) (100.0 * done / Max(total, 1)), rate,
						ceil((double) Max(total - done, 0) / Max(rate, 1.0)))));
	}
	RunSpi("SELECT docmodel._migration_unlock($1)", 1, btypes, bvalues, NULL,
		   SPI_OK_SELECT);
	SPI_finish();
	ereport(NOTICE, (errmsg("run " INT64_FORMAT " done: " INT64_FORMAT
							" documents of %s migrated",
							run, done, collname ? collname : "?")));
	PG_RETURN_VOID();
}
