/*-------------------------------------------------------------------------
 *
 * migrate/steps_time.h
 *	  The migration steps on times (steps_time.c): appliers of the op table.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_MIGRATE_STEPS_TIME_H
#define DOCMODEL_MIGRATE_STEPS_TIME_H

#include "migrate/step_util.h"

extern void DocmodelStepToEpoch(ApplyCx *cx, const Step *st, JsonbValue *root);
extern void DocmodelStepFromEpoch(ApplyCx *cx, const Step *st,
								  JsonbValue *root);
extern void DocmodelStepFormatDate(ApplyCx *cx, const Step *st,
								   JsonbValue *root);

#endif /* DOCMODEL_MIGRATE_STEPS_TIME_H */
