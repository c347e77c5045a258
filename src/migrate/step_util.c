/*-------------------------------------------------------------------------
 *
 * migrate/step_util.c
 *	  What every applier of a migration step uses: the value at a step's
 *	  path, and the error of a step that cannot apply (naming key, type,
 *	  rule, step, op and path). No state.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/jsonb.h"

#include "json/tree.h"
#include "migrate/step_util.h"

/*
 * Return the value at p, expanded one level (so a caller tests its type
 * directly), or NULL when it is not there.
 */
JsonbValue *
DocmodelStepResolve(JsonbValue *root, const JsonPointer *p)
{
	JsonTreeMiss miss;
	JsonbValue *v = DocmodelJsonTreeWalk(root, p, p->ntok, 0, &miss);

	if (v != NULL)
		DocmodelJsonTreeExpand(v);
	return v;
}

/*
 * Return the value at the step's path when it is of type; NULL when it is
 * absent, or null and null_ok (left alone); 22000 "expected <what>" else.
 */
JsonbValue *
DocmodelStepResolveAs(ApplyCx *cx, const Step *st, JsonbValue *root,
					  enum jbvType type, const char *what, bool null_ok)
{
	JsonbValue *v = DocmodelStepResolve(root, &st->path);

	if (v == NULL || (null_ok && v->type == jbvNull))
		return NULL;
	if (v->type != type)
		StepFail(cx, st, st->path.text, "expected %s, found %s", what,
				 DocmodelJsonTreeTypeName(v));
	return v;
}

/* Append where a step failed (key, type, rule, step, op, path) to buf. */
void
DocmodelStepAppendWhere(StringInfo buf, ApplyCx *cx, const Step *st,
						const char *path)
{
	if (cx->key)
		appendStringInfo(buf, "Key \"%s\", type", cx->key);
	else
		appendStringInfoString(buf, "Type");
	if (cx->write_rule)
		appendStringInfo(buf, " \"%s\", write rule", cx->type);
	else
		appendStringInfo(buf, " \"%s\", migration %s to %s", cx->type, cx->from,
						 cx->to);
	appendStringInfo(buf, ", step %s, op \"%s\", path \"%s%s\".", st->label,
					 st->opname, cx->prefix, path);
}

/*
 * Raise sqlstate (with hint, when not NULL) for a step that cannot apply,
 * naming key, step, op, path.
 */
void
DocmodelStepFailMsg(ApplyCx *cx, const Step *st, const char *path, int sqlstate,
					const char *hint, const char *reason)
{
	StringInfoData detail;

	initStringInfo(&detail);
	DocmodelStepAppendWhere(&detail, cx, st, path);
	ereport(ERROR, (errcode(sqlstate),
					errmsg("%s step %s (%s) cannot apply: %s",
						   cx->write_rule ? "write rule" : "migration",
						   st->label, st->opname, reason),
					errdetail_internal("%s", detail.data),
					hint ? errhint("%s", hint) : 0));
}
