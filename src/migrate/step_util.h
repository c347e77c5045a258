/*-------------------------------------------------------------------------
 *
 * migrate/step_util.h
 *	  The parsed migration step and what every applier uses (step_util.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_MIGRATE_STEP_UTIL_H
#define DOCMODEL_MIGRATE_STEP_UTIL_H

#include "compat.h"
#include "lib/stringinfo.h"
#include "utils/jsonb.h"

#include "json/pointer.h"

/* The step language, parsed (steps.c) and applied. */
/* The step ops; the first six in json/patch.h's JsonPatchOp order. */
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
	OP_DROP_EMPTY,
	OP_REPLACE_REGEX,
	OP_REQUIRE,
	OP_FORMAT_DATE,
	OP_UNWRAP,
	OP_COUNT
} StepOp;

typedef enum CastTo
{
	CAST_NUMBER,
	CAST_STRING,
	CAST_BOOLEAN
} CastTo;

/* A step's "missing" member: what it does when the path it reads is absent. */
typedef enum StepMissing
{
	MISSING_DEFAULT, /* the op's own rule: RFC 6902 ops and require raise,
					  * the others skip */
	MISSING_ERROR,
	MISSING_SKIP
} StepMissing;

/* A compiled regular expression of a step (migrate/steps.c). */
typedef struct StepRegex StepRegex;

/* One parsed step; which fields are set depends on op. */
typedef struct Step
{
	StepOp op;
	const char *opname; /* as steps spell it (DocmodelStepsOpName) */
	char *label;        /* "3", or "2.1" inside a for_each */
	JsonPointer path;
	JsonPointer from; /* move, copy */
	JsonPointer into; /* join, wrap, unwrap, nest, unnest (target) */
	bool has_into;
	JsonPointer *ptrs; /* split targets; join and nest sources */
	int nptrs;
	JsonbValue *value; /* add, replace, test, default; wrap and unwrap
						* template */
	char *sep;         /* split, join */
	int seplen;
	CastTo cast_to;
	CastTo cast_from; /* cast: the type it goes back to (has_cast_from) */
	bool has_cast_from;
	int64 unit_us; /* to_epoch, from_epoch, format_date */
	StepMissing missing;
	StepRegex *regex; /* replace_regex, require (NULL: no pattern) */
	char *with;       /* replace_regex: the replacement */
	int withlen;
	char *message;      /* require: the error message, or NULL */
	bool date_only;     /* format_date: "date", not "date-time" */
	text *input;        /* to_epoch, format_date: a to_timestamp template
						 * the string is read by ("input"), or NULL: ISO 8601 */
	struct Step *steps; /* for_each */
	int nsteps;
} Step;

/*
 * What an error while applying a chain names: ApplyChain pushes an error
 * context callback (DocmodelStepsErrorContext) with this as its argument, so an
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
	Size room;          /* what copy steps may still take (json/patch.h) */
	bool write_rule;    /* a write rule's steps, not a migration's */
} ApplyCx;

/*
 * Raise sqlstate (with hint, when not NULL) for a step that cannot apply,
 * naming key, step, op, path; StepFail: 22000, the usual case.
 */
extern void DocmodelStepFailMsg(ApplyCx *cx, const Step *st, const char *path,
								int sqlstate, const char *hint,
								const char *reason) pg_attribute_noreturn();
#define StepFail(cx, st, path, ...) \
	StepFailCode(cx, st, path, ERRCODE_DATA_EXCEPTION, NULL, __VA_ARGS__)
#define StepFailCode(cx, st, path, sqlstate, hint, ...) \
	DocmodelStepFailMsg(cx, st, path, sqlstate, hint, psprintf(__VA_ARGS__))

/* The value at p, expanded one level, or NULL when it is not there. */
extern JsonbValue *DocmodelStepResolve(JsonbValue *root, const JsonPointer *p);
/*
 * The value at the step's path when it is of type; NULL when it is absent,
 * or null and null_ok (left alone); 22000 "expected <what>" else.
 */
extern JsonbValue *DocmodelStepResolveAs(ApplyCx *cx, const Step *st,
										 JsonbValue *root, enum jbvType type,
										 const char *what, bool null_ok);

/* Append where a step failed (key, type, rule, step, op, path) to buf. */
extern void DocmodelStepAppendWhere(StringInfo buf, ApplyCx *cx, const Step *st,
									const char *path);

#endif /* DOCMODEL_MIGRATE_STEP_UTIL_H */
