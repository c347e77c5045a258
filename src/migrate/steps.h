/*-------------------------------------------------------------------------
 *
 * migrate/steps.h
 *	  What the migration files share (not for other concerns): a parsed
 *	  step, the context of a running chain, and the entry points of the
 *	  step language (migrate/steps.c) that the registry and the chain
 *	  runner (migrate.c) call.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_MIGRATE_STEPS_H
#define DOCMODEL_MIGRATE_STEPS_H

#include "utils/jsonb.h"

#include "json/pointer.h"
#include "migrate/step_util.h"

/* Parse a steps value as register_migration does; raise 22023 if bad. */
extern Step *DocmodelStepsCheck(Jsonb *steps, int *nsteps);

/* Apply steps in order to the tree at root (cx->step follows them). */
extern void DocmodelStepsApply(ApplyCx *cx, const Step *steps, int nsteps,
							   JsonbValue *root);

/* Error context callback of a running chain (arg is its ApplyCx). */
extern void DocmodelStepsErrorContext(void *arg);

/*
 * Raise 22023 unless every step (for_each's nested ones too) is one a write
 * rule may hold: a setter that gives the same document when run again.
 */
extern void DocmodelStepsCheckWriteRule(const Step *steps, int nsteps);

/* The name of a step op, as steps spell it. */
extern const char *DocmodelStepsOpName(StepOp op);

#endif /* DOCMODEL_MIGRATE_STEPS_H */
