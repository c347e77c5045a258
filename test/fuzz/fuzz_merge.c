/*
 * fuzz_merge.c: the object merge written from a stored object's bytes
 * (DocmodelJsonTreeMergeObject, src/json/tree.c), which assembles every
 * stored document and every read of meta_style 'columns'. Input: a JSON
 * object (the body) and, on the lines after the first newline, a second
 * one (the members added); without a newline, a fixed set of stamps is
 * added. The body's members whose key starts with "_" are left out (as
 * management fields are), and added members whose key a kept one has are
 * not added. The merge must give the bytes of DocmodelJsonTreeToJsonb of
 * the same members and of PostgreSQL's own encoder.
 */
#include "postgres.h"

#include "mb/pg_wchar.h"
#include "utils/jsonb.h"

#include "fuzz.h"
#include "json/tree.h"

/* The members of object container c as pairs over its stored values. */
static int
Members(JsonbContainer *c, JsonbPair *out)
{
	int n = JsonContainerSize(c);
	char *base = (char *) &c->children[2 * n];
	uint32 koff = 0;
	uint32 voff = 0;
	int i;

	for (i = 0; i < n; i++)
		JBE_ADVANCE_OFFSET(voff, c->children[i]);
	for (i = 0; i < n; i++)
	{
		uint32 kstart = koff;
		uint32 vstart = voff;

		JBE_ADVANCE_OFFSET(koff, c->children[i]);
		JBE_ADVANCE_OFFSET(voff, c->children[n + i]);
		out[i].key = DocmodelJsonTreeString(base + kstart, koff - kstart);
		DocmodelJsonTreeEntryValue(c->children[n + i], base, vstart,
								   voff - vstart, &out[i].value);
	}
	return n;
}

/* PostgreSQL's encoding of the object of the n pairs p. */
static Jsonb *
Reference(const JsonbPair *p, int n)
{
	JsonbParseState *state = NULL;
	JsonbValue *res;
	int i;

	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	for (i = 0; i < n; i++)
	{
		pushJsonbValue(&state, WJB_KEY, &p[i].key);
		res = pushJsonbValue(&state, WJB_VALUE, &p[i].value);
	}
	res = pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	return JsonbValueToJsonb(res);
}

void
FuzzMerge(const uint8 *data, size_t size)
{
	char *str = FuzzCString(data, size);
	char *nl;
	Jsonb *body;
	Jsonb *more;
	JsonbPair *bp;
	JsonbPair *ap;
	JsonbPair *add;
	JsonbPair *all;
	JsonbValue obj;
	int *keep;
	int nb;
	int na;
	int nkeep = 0;
	int nadd = 0;
	int nall = 0;
	int i;
	int j;
	Jsonb *merged;
	Jsonb *tree;
	Jsonb *ref;

	if (str == NULL || !pg_verifymbstr(str, size, true))
		return;
	nl = strchr(str, '\n');
	if (nl != NULL)
		*nl = '\0';
	body = FuzzJsonb(str);
	more = FuzzJsonb(nl != NULL ? nl + 1
								: "{\"_ver\": 12, \"_type\": \"user\", "
								  "\"_created\": \"2024-01-31T12:00:00.000Z\", "
								  "\"_modifiedBy\": \"me\", \"_meta\": [1]}");
	if (!JB_ROOT_IS_OBJECT(body) || !JB_ROOT_IS_OBJECT(more))
		return;
	bp = palloc(Max(JB_ROOT_COUNT(body), 1) * sizeof(JsonbPair));
	ap = palloc(Max(JB_ROOT_COUNT(more), 1) * sizeof(JsonbPair));
	nb = Members(&body->root, bp);
	na = Members(&more->root, ap);
	keep = palloc(Max(nb, 1) * sizeof(int));
	add = palloc(Max(na, 1) * sizeof(JsonbPair));
	all = palloc(Max(nb + na, 1) * sizeof(JsonbPair));
	for (i = 0; i < nb; i++)
		if (bp[i].key.val.string.len == 0 || bp[i].key.val.string.val[0] != '_')
			keep[nkeep++] = i;
	for (j = 0; j < na; j++)
	{
		bool taken = false;

		for (i = 0; i < nkeep && !taken; i++)
			taken = DocmodelJsonTreeKeyCmp(bp[keep[i]].key.val.string.val,
										   bp[keep[i]].key.val.string.len,
										   ap[j].key.val.string.val,
										   ap[j].key.val.string.len) == 0;
		if (!taken)
			add[nadd++] = ap[j];
	}
	/* the same members in key order, for the other two encoders */
	for (i = 0, j = 0; i < nkeep || j < nadd;)
		if (j < nadd && (i == nkeep || DocmodelJsonTreeKeyCmp(
										   add[j].key.val.string.val,
										   add[j].key.val.string.len,
										   bp[keep[i]].key.val.string.val,
										   bp[keep[i]].key.val.string.len) < 0))
			all[nall++] = add[j++];
		else
			all[nall++] = bp[keep[i++]];
	merged = DocmodelJsonTreeMergeObject(&body->root, keep, nkeep, add, nadd);
	obj.type = jbvObject;
	obj.val.object.pairs = all;
	obj.val.object.nPairs = nall;
	tree = DocmodelJsonTreeToJsonb(&obj);
	ref = Reference(all, nall);
	FuzzCheck(VARSIZE(merged) == VARSIZE(tree) &&
				  memcmp(merged, tree, VARSIZE(tree)) == 0,
			  "merge and DocmodelJsonTreeToJsonb differ: %s",
			  JsonbToCString(NULL, &tree->root, 0));
	FuzzCheck(VARSIZE(merged) == VARSIZE(ref) &&
				  memcmp(merged, ref, VARSIZE(ref)) == 0,
			  "merge and JsonbValueToJsonb differ: %s, %s",
			  JsonbToCString(NULL, &merged->root, 0),
			  JsonbToCString(NULL, &ref->root, 0));
}
