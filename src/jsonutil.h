/*-------------------------------------------------------------------------
 *
 * jsonutil.h
 *	  Small jsonb helpers shared by the concerns that work on JsonbValue
 *	  trees (migrate.c, revision.c, document.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_JSONUTIL_H
#define DOCMODEL_JSONUTIL_H

#include "utils/jsonb.h"

/*
 * Tell whether two JsonbValues are equal as jsonb's = says: scalars by
 * value (numerics numerically), arrays element by element, objects pair by
 * pair (their pairs sorted as jsonb keeps them). jbvBinary is not compared.
 */
extern bool DocmodelJsonbValueEqual(const JsonbValue *a, const JsonbValue *b);

/*
 * The same for two values as an iterator (unexpanded) hands them out: each
 * a scalar or a jbvBinary container.
 */
extern bool DocmodelFlatValuesEqual(JsonbValue *a, JsonbValue *b);

#endif /* DOCMODEL_JSONUTIL_H */
