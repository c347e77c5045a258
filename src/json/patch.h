/*-------------------------------------------------------------------------
 *
 * json/patch.h
 *	  RFC 6902 JSON Patch on the shared tree (json/tree.h): the six
 *	  operations, each reporting why it could not apply as a code so that
 *	  patch() and migration steps keep their own messages; and
 *	  DocmodelPatch, the whole patch applied to a document.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_JSONPATCH_H
#define DOCMODEL_JSONPATCH_H

#include "utils/jsonb.h"

#include "json/pointer.h"
#include "json/tree.h"

/* The six operations of RFC 6902. */
typedef enum JsonPatchOp
{
	JSONPATCH_ADD,
	JSONPATCH_REMOVE,
	JSONPATCH_REPLACE,
	JSONPATCH_MOVE,
	JSONPATCH_COPY,
	JSONPATCH_TEST
} JsonPatchOp;

/*
 * Apply one operation to the tree at root: path, and from for move and
 * copy; value (used as is, not copied) for add, replace and test. Return
 * false with *miss filled (miss->in_from when from failed) when it cannot
 * apply; a failed test is JSONTREE_TEST_FAILED with miss->at the value
 * found. *room is what copies may still take (JsonTreeRoom), lowered by
 * each copy; a copy that needs more fails with JSONTREE_TOO_BIG (a patch
 * copying the whole document again and again doubles it each time).
 */
extern bool DocmodelJsonPatchApplyOp(JsonPatchOp op, JsonbValue *root,
									 const JsonPointer *path,
									 const JsonPointer *from, JsonbValue *value,
									 Size *room, JsonTreeMiss *miss);

/*
 * Apply an RFC 6902 patch (a jsonb array of operations) to doc and return
 * the result. Raises 22023 for a malformed patch, 22000 for an operation
 * that cannot apply (missing path, failing test), 54000 for a copy taking
 * the document and patch past JSONTREE_MAX_BYTES, naming the operation's
 * index (from 0), op and path.
 */
extern Jsonb *DocmodelPatch(Jsonb *doc, Jsonb *patch);

/*
 * The RFC 6902 patch turning tree a into tree b (diff()'s, see patch.c),
 * as an array node; with_was: each "remove" and "replace" also carries
 * "was", the value it finds in a.
 */
extern JsonbValue DocmodelJsonDiffTrees(JsonbValue *a, JsonbValue *b,
										bool with_was);

/*
 * Apply, to the tree at root, the operations of a diff made with with_was
 * if they all still fit: each "add" where nothing is (and its parent is),
 * each "remove" or "replace" where the value is still the one it says it
 * "was". Else nothing is applied (false), never raised: what a document
 * kept for later (migrate.c's complement) must not overwrite what was
 * written since, nor be put back in part.
 */
extern bool DocmodelJsonPatchApplyGuarded(JsonbValue *root, JsonbValue *ops);

/*
 * The keys of a path index over the change from a to b (NULL: absent, the
 * whole document changes): "=" and the JSON Pointer of each operation of
 * diff(a, b), "<" and each proper ancestor of those pointers, sorted and
 * each once, as a text[] datum. A change at pointer p touches pointer q
 * when p is q or an ancestor of q (a key "=" of a prefix of q) or a
 * descendant of q (the key "<" q).
 */
extern Datum DocmodelJsonDiffKeys(Jsonb *a, Jsonb *b);
extern Datum json_diff_keys(PG_FUNCTION_ARGS);

#endif /* DOCMODEL_JSONPATCH_H */
