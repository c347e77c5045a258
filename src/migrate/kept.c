/*-------------------------------------------------------------------------
 *
 * migrate/kept.c
 *	  Where a document keeps its schema version and what a way down
 *	  dropped (README, "Schema versions and migrations", "Both ways"): the
 *	  object holding the management fields, the version field, and the
 *	  "_kept" member beside it, an object of rule to versions, each the
 *	  guarded RFC 6902 operations (json/patch.h) that put back, going up
 *	  again, what the rule's way down left out.
 *
 *	  Shared state: none.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/jsonb.h"

#include "json/tree.h"
#include "migrate/kept.h"

/*
 * The object holding the management fields of a document tree (the root,
 * or its container member); with create, a missing container is made.
 * NULL when there is none.
 */
JsonbValue *
DocmodelFieldsHolder(JsonbValue *root, const DocFieldSet *fs, bool create)
{
	JsonbValue *where;
	int k;

	DocmodelJsonTreeExpand(root);
	if (root->type != jbvObject)
		return NULL;
	if (fs->container.len == 0)
		return root;
	k = DocmodelJsonTreeFindMember(root, fs->container.name, fs->container.len);
	where = k >= 0 ? &root->val.object.pairs[k].value : NULL;
	if (where != NULL)
		DocmodelJsonTreeExpand(where);
	if (where != NULL && where->type == jbvObject)
		return where;
	if (!create)
		return NULL;
	{
		JsonbValue empty;

		empty.type = jbvObject;
		empty.val.object.nPairs = 0;
		empty.val.object.pairs = NULL;
		DocmodelJsonTreeSetMember(root, fs->container.name, fs->container.len,
								  &empty);
		k = DocmodelJsonTreeFindMember(root, fs->container.name,
									   fs->container.len);
		return &root->val.object.pairs[k].value;
	}
}

/* Set the schema version field (named as in fs) of a document tree. */
void
DocmodelSetVersion(JsonbValue *root, const DocFieldSet *fs, const char *text)
{
	const DocFieldName *name = &fs->field[DOC_FIELD_SCHEMA];
	JsonbValue sv = DocmodelJsonTreeString(text, strlen(text));

	DocmodelJsonTreeSetMember(DocmodelFieldsHolder(root, fs, true), name->name,
							  name->len, &sv);
}

/*
 * Take the kept complement (the "_kept" member beside the schema field) out
 * of a document tree: returns it expanded (an object of the rules' to
 * versions, each the guarded operations that put back what its way down
 * dropped), or NULL when there is none.
 */
JsonbValue *
DocmodelTakeKept(JsonbValue *root, const DocFieldSet *fs)
{
	JsonbValue *holder = DocmodelFieldsHolder(root, fs, false);
	JsonbValue *kept;
	int k;

	if (holder == NULL)
		return NULL;
	k = DocmodelJsonTreeFindMember(holder, KEPT_NAME, KEPT_LEN);
	if (k < 0)
		return NULL;
	kept = palloc(sizeof(JsonbValue));
	*kept = DocmodelJsonTreeCopy(&holder->val.object.pairs[k].value);
	DocmodelJsonTreeRemoveAt(holder, k);
	DocmodelJsonTreeExpand(kept);
	if (kept->type != jbvObject)
		return NULL;
	return kept;
}

/* Put kept (an object; nothing when empty or NULL) back into a tree. */
void
DocmodelPutKept(JsonbValue *root, const DocFieldSet *fs, JsonbValue *kept)
{
	if (kept == NULL || kept->type != jbvObject || kept->val.object.nPairs == 0)
		return;
	DocmodelJsonTreeSetMember(DocmodelFieldsHolder(root, fs, true), KEPT_NAME,
							  KEPT_LEN, kept);
}

/* Merge the members of object add into object into (add's win). */
JsonbValue *
DocmodelMergeKept(JsonbValue *into, JsonbValue *add)
{
	int i;

	if (add == NULL)
		return into;
	if (into == NULL)
		return add;
	for (i = 0; i < add->val.object.nPairs; i++)
		DocmodelJsonTreeSetMember(into,
								  add->val.object.pairs[i].key.val.string.val,
								  add->val.object.pairs[i].key.val.string.len,
								  &add->val.object.pairs[i].value);
	return into;
}

/*
 * Whether a stored document (NULL: none) holds a "_kept" member beside its
 * fields: one binary search, no tree (every update of a typed document
 * asks).
 */
bool
DocmodelHasKept(Jsonb *old, const DocFieldSet *fs)
{
	JsonbContainer *c;
	JsonbValue *v;

	if (old == NULL || !JB_ROOT_IS_OBJECT(old))
		return false;
	c = DocmodelFieldContainer(fs, &old->root);
	if (c == NULL)
		return false;
	v = getKeyJsonValueFromContainer(c, KEPT_NAME, KEPT_LEN, NULL);
	return v != NULL;
}
