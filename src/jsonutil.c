/*-------------------------------------------------------------------------
 *
 * jsonutil.c
 *	  Small jsonb helpers shared by the concerns that work on JsonbValue
 *	  trees (migrate.c, revision.c, document.c). No shared state.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "jsonutil.h"

/* Tell whether two values are equal JSON; see jsonutil.h. */
bool
DocmodelJsonbValueEqual(const JsonbValue *a, const JsonbValue *b)
{
	int i;

	if (a->type != b->type)
		return false;
	switch (a->type)
	{
		case jbvNull:
			return true;
		case jbvBool:
			return a->val.boolean == b->val.boolean;
		case jbvString:
			return a->val.string.len == b->val.string.len &&
				   memcmp(a->val.string.val, b->val.string.val,
						  a->val.string.len) == 0;
		case jbvNumeric:
			return DatumGetBool(
				DirectFunctionCall2(numeric_eq, NumericGetDatum(a->val.numeric),
									NumericGetDatum(b->val.numeric)));
		case jbvArray:
			if (a->val.array.nElems != b->val.array.nElems)
				return false;
			for (i = 0; i < a->val.array.nElems; i++)
				if (!DocmodelJsonbValueEqual(&a->val.array.elems[i],
											 &b->val.array.elems[i]))
					return false;
			return true;
		case jbvObject:
			if (a->val.object.nPairs != b->val.object.nPairs)
				return false;
			for (i = 0; i < a->val.object.nPairs; i++)
			{
				const JsonbPair *pa = &a->val.object.pairs[i];
				const JsonbPair *pb = &b->val.object.pairs[i];

				if (pa->key.val.string.len != pb->key.val.string.len ||
					memcmp(pa->key.val.string.val, pb->key.val.string.val,
						   pa->key.val.string.len) != 0 ||
					!DocmodelJsonbValueEqual(&pa->value, &pb->value))
					return false;
			}
			return true;
		default:
			return false;
	}
}

/* Tell whether two flat values are equal JSON; see jsonutil.h. */
bool
DocmodelFlatValuesEqual(JsonbValue *a, JsonbValue *b)
{
	if (a->type == jbvBinary && b->type == jbvBinary)
	{
		JsonbContainer *ca = a->val.binary.data;
		JsonbContainer *cb = b->val.binary.data;

		if (a->val.binary.len == b->val.binary.len &&
			memcmp(ca, cb, a->val.binary.len) == 0)
			return true;
		return compareJsonbContainers(ca, cb) == 0;
	}
	if (a->type == jbvBinary || b->type == jbvBinary)
		return false;
	return DocmodelJsonbValueEqual(a, b);
}
