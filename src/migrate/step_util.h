/*-------------------------------------------------------------------------
 *
 * migrate/step_util.h
 *	  What every applier of a migration step uses (step_util.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_MIGRATE_STEP_UTIL_H
#define DOCMODEL_MIGRATE_STEP_UTIL_H

#include "lib/stringinfo.h"

#include "migrate/steps.h"

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
