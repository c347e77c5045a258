/*-------------------------------------------------------------------------
 *
 * json/tree.h
 *	  The one mutable in-memory JSON document of docmodel: a JsonbValue
 *	  tree expanded lazily (a container stays jbvBinary until an operation
 *	  descends into it), object pairs kept in jsonb key order (shorter
 *	  first, then bytes) so a member is found by binary search, turned back
 *	  into jsonb once. Used by migrations and patch.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_JSONTREE_H
#define DOCMODEL_JSONTREE_H

#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "json/pointer.h"

/* Why a pointer could not be followed (or an operation could not apply). */
typedef enum JsonTreeStatus
{
	JSONTREE_OK,
	JSONTREE_NO_MEMBER,      /* the object has no such member */
	JSONTREE_NOT_CONTAINER,  /* a scalar where a container is needed */
	JSONTREE_BAD_INDEX,      /* an array token that is not an index */
	JSONTREE_INDEX_OVERFLOW, /* an index above INT32_MAX */
	JSONTREE_PAST_END,       /* "-" where an existing element is needed */
	JSONTREE_INDEX_RANGE,    /* an index past the array's end */
	JSONTREE_ROOT,           /* the root where it cannot be removed */
	JSONTREE_INTO_ITSELF,    /* a move into the moved value's own child */
	JSONTREE_TEST_FAILED,    /* a test found another value */
	JSONTREE_WRONG_KIND,     /* [n] on an object, a name on an array */
	JSONTREE_TOO_BIG         /* a copy would pass the room left */
} JsonTreeStatus;

/* Where and why an operation failed. */
typedef struct JsonTreeMiss
{
	JsonTreeStatus status;
	int tok;        /* the failing token's position in the pointer */
	JsonbValue *at; /* the node the token was looked up in */
	bool in_from;   /* the failing pointer is a move/copy's "from" */
} JsonTreeMiss;

/* Make *root the document doc (a scalar, or its container unexpanded). */
extern void DocmodelJsonTreeFromJsonb(Jsonb *doc, JsonbValue *root);

/*
 * Fill v with a stored value (as fillJsonbValue does): entry e of a
 * container whose data starts at base, its bytes at off (len of them, the
 * alignment padding included). Nothing is copied.
 */
static inline void
DocmodelJsonTreeEntryValue(JEntry e, char *base, uint32 off, uint32 len,
						   JsonbValue *v)
{
	if (JBE_ISSTRING(e))
	{
		v->type = jbvString;
		v->val.string.val = base + off;
		v->val.string.len = len;
	}
	else if (JBE_ISNUMERIC(e))
	{
		v->type = jbvNumeric;
		v->val.numeric = (Numeric) (base + INTALIGN(off));
	}
	else if (JBE_ISBOOL_TRUE(e) || JBE_ISBOOL_FALSE(e))
	{
		v->type = jbvBool;
		v->val.boolean = JBE_ISBOOL_TRUE(e);
	}
	else if (JBE_ISNULL(e))
		v->type = jbvNull;
	else
	{
		v->type = jbvBinary;
		v->val.binary.data = (JsonbContainer *) (base + INTALIGN(off));
		v->val.binary.len = len - (INTALIGN(off) - off);
	}
}

/* Compare object keys as jsonb orders them: shorter first, then bytes. */
static inline int
DocmodelJsonTreeKeyCmp(const char *a, int alen, const char *b, int blen)
{
	if (alen != blen)
		return alen < blen ? -1 : 1;
	return memcmp(a, b, alen);
}

/* Return a fully expanded tree of v (a scalar or a jbvBinary). */
extern JsonbValue *DocmodelJsonTreeBuild(const JsonbValue *v);

/* Expand a jbvBinary container one level in place; others stay as they are. */
extern void DocmodelJsonTreeExpand(JsonbValue *v);

/* Binary-search an expanded object; return the index or -(insert pos) - 1. */
extern int DocmodelJsonTreeFindMember(const JsonbValue *obj, const char *k,
									  int klen);

/* Set member k of an expanded object to *val (the key is not copied). */
extern void DocmodelJsonTreeSetMember(JsonbValue *obj, const char *k, int klen,
									  const JsonbValue *val);

/* Insert *val at position i (0..n) of an expanded array. */
extern void DocmodelJsonTreeInsertElem(JsonbValue *arr, int i,
									   const JsonbValue *val);

/* Remove and return child i of an expanded object or array. */
extern JsonbValue DocmodelJsonTreeRemoveAt(JsonbValue *parent, int i);

/* Flags of the walks below. */
#define JSONTREE_CREATE 0x01 /* a missing member of an object is made {} */
/*
 * A Couchbase path: "-1" is an array's last element; where p->index is set,
 * [n] reads only arrays and a name only objects, and a member is created
 * only where no [n] follows.
 */
#define JSONTREE_LAST 0x02

/*
 * Return child t of p in cur (expanded here), its position in *pos when
 * pos is given; NULL with *miss filled when it is not there.
 */
extern JsonbValue *DocmodelJsonTreeChild(JsonbValue *cur, const JsonPointer *p,
										 int t, int flags, int *pos,
										 JsonTreeMiss *miss);

/*
 * Return the node at the first ntok tokens of p, expanding containers on
 * the way; NULL with *miss filled when a token cannot be followed.
 */
extern JsonbValue *DocmodelJsonTreeWalk(JsonbValue *root, const JsonPointer *p,
										int ntok, int flags,
										JsonTreeMiss *miss);

/*
 * JsonTreeWalk of all of p for reading: stored containers are searched
 * where they are (binary search, position) and expanded only to say why a
 * token is not there.
 */
extern JsonbValue *DocmodelJsonTreeRead(JsonbValue *root, const JsonPointer *p,
										int flags, JsonTreeMiss *miss);

/* Put *val at p (RFC 6902 add: set a member, insert an element). */
extern bool DocmodelJsonTreeAdd(JsonbValue *root, const JsonPointer *p,
								const JsonbValue *val, JsonTreeMiss *miss);

/* Take the value at p out into *removed (RFC 6902 remove). */
extern bool DocmodelJsonTreeRemove(JsonbValue *root, const JsonPointer *p,
								   JsonbValue *removed, JsonTreeMiss *miss);

/* Return a copy of v sharing nothing mutable with it. */
extern JsonbValue DocmodelJsonTreeCopy(const JsonbValue *v);

/*
 * The most bytes the copies made while changing one document may take:
 * jsonb's own maximum (a container of more cannot be stored), counted by
 * JsonTreeRoom.
 */
#define JSONTREE_MAX_BYTES ((Size) JENTRY_OFFLENMASK)

/*
 * Return the room the tree v takes: an upper bound of both the memory a
 * JsonTreeCopy of it allocates (a JsonbValue or JsonbPair per expanded
 * node) and its bytes as jsonb. Counting stops once past limit (the result
 * is then above limit, not exact), so the cost is bounded by limit too.
 */
extern Size DocmodelJsonTreeRoom(const JsonbValue *v, Size limit);

/*
 * Tell whether a and b are equal as jsonb's = says (numerics numerically);
 * either may be partly expanded (a jbvBinary met against an expanded node
 * is expanded in place).
 */
extern bool DocmodelJsonTreeEqual(JsonbValue *a, JsonbValue *b);

/* Return a string node over s (len bytes, not copied). */
static inline JsonbValue
DocmodelJsonTreeString(const char *s, int len)
{
	JsonbValue v;

	v.type = jbvString;
	v.val.string.val = (char *) s;
	v.val.string.len = len;
	return v;
}

/* Return a string node over the C string s (not copied). */
static inline JsonbValue
DocmodelJsonTreeCString(const char *s)
{
	return DocmodelJsonTreeString(s, strlen(s));
}

/* Return a number node of i. */
static inline JsonbValue
DocmodelJsonTreeInt(int64 i)
{
	JsonbValue v;

	v.type = jbvNumeric;
	v.val.numeric = int64_to_numeric(i);
	return v;
}

/* Set member name (a C string, not copied) of an expanded object to val. */
static inline void
DocmodelJsonTreePut(JsonbValue *obj, const char *name, JsonbValue val)
{
	DocmodelJsonTreeSetMember(obj, name, strlen(name), &val);
}

/* The JSON type of v for messages: "an object", "a string", "null", ... */
extern const char *DocmodelJsonTreeTypeName(const JsonbValue *v);

/*
 * A number node of n, which jsonb's text form reads back: 22003 for NaN
 * and +-Infinity (what: the value's name in the message).
 */
extern JsonbValue DocmodelJsonTreeNumber(Numeric n, const char *what);

/* Turn a tree back into jsonb. */
extern Jsonb *DocmodelJsonTreeToJsonb(JsonbValue *v);

/*
 * Return the jsonb of an object made of the members keep[0..nkeep) of the
 * stored object container c (indexes in ascending order) and the nadd
 * pairs of add (sorted by key as jsonb orders keys, none equal to a kept
 * one; values scalars or stored containers, never expanded ones), written
 * from c's bytes without decoding them: the bytes DocmodelJsonTreeToJsonb
 * writes for the same members.
 */
extern Jsonb *DocmodelJsonTreeMergeObject(JsonbContainer *c, const int *keep,
										  int nkeep, const JsonbPair *add,
										  int nadd);

/*
 * The depth of stored container c as Couchbase counts it ([] 1, [1] 2,
 * [[1]] 3: a scalar is a level), or limit + 1 when deeper than limit; and
 * of a value (a scalar, or a container as jbvBinary).
 */
extern int DocmodelJsonTreeContainerDepth(JsonbContainer *c, int limit);
extern int DocmodelJsonTreeDepth(const JsonbValue *v, int limit);

#endif /* DOCMODEL_JSONTREE_H */
