/*-------------------------------------------------------------------------
 *
 * jsonschema/validate.c
 *	  JSON Schema validation over jsonb: dialects 2020-12 (the default) and
 *	  draft-07 (by "$schema"). A schema is compiled once into a tree of
 *	  VNodes (numbers as numerics, patterns compiled by PostgreSQL's regex
 *	  engine, "$ref" and "$anchor" resolved to nodes), then run over the
 *	  instance listing every violation with its instance path and schema
 *	  path (JSON Pointers, formatted by jsonpointer.c).
 *
 *	  State: a per-backend cache of compiled schemas keyed by the schema's
 *	  bytes (SchemaCache, at most SCHEMA_CACHE_SIZE entries, each in its own
 *	  memory context under CacheMemoryContext; the least recently used is
 *	  dropped). Nothing is shared between backends.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_collation.h"
#include "common/hashfn.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/memutils.h"
#include "utils/numeric.h"

#include "compat.h"
#include "json/pointer.h"
#include "json/tree.h"
#include "jsonschema/regex.h"
#include "jsonschema/idna.h"
#include "json/util.h"
#include "jsonschema/validate.h"

/* Instance types, as "type" names them (bits of VNode.types). */
#define T_NULL 0x01
#define T_BOOLEAN 0x02
#define T_OBJECT 0x04
#define T_ARRAY 0x08
#define T_NUMBER 0x10
#define T_STRING 0x20
#define T_INTEGER 0x40

static const char *const TypeNames[] = {"null",   "boolean", "object", "array",
										"number", "string",  "integer"};

/* Formats asserted (others are annotations). */
typedef enum VFormat
{
	F_NONE,
	F_DATE_TIME,
	F_DATE,
	F_TIME,
	F_EMAIL,
	F_UUID,
	F_IPV4,
	F_IPV6,
	F_URI,
	F_HOSTNAME,
	F_DURATION,
	F_IDN_EMAIL,
	F_IDN_HOSTNAME,
	F_URI_REFERENCE,
	F_IRI,
	F_IRI_REFERENCE,
	F_URI_TEMPLATE,
	F_JSON_POINTER,
	F_RELATIVE_JSON_POINTER,
	F_REGEX
} VFormat;

static const char *const FormatNames[] = {NULL,
										  "date-time",
										  "date",
										  "time",
										  "email",
										  "uuid",
										  "ipv4",
										  "ipv6",
										  "uri",
										  "hostname",
										  "duration",
										  "idn-email",
										  "idn-hostname",
										  "uri-reference",
										  "iri",
										  "iri-reference",
										  "uri-template",
										  "json-pointer",
										  "relative-json-pointer",
										  "regex"};

typedef struct VNode VNode;

/* A named member: properties, required, dependentSchemas, ... */
typedef struct VProp
{
	char *name;
	int len;
	VNode *schema; /* the member's schema, or NULL */
	char **names;  /* dependentRequired: the names required */
	int *lens;
	int nnames;
} VProp;

/* A compiled pattern and, for patternProperties, its schema. */
typedef struct SimplePattern SimplePattern;
static SimplePattern *SimpleCompile(const char *src);

typedef struct VPattern
{
	EcmaRegex *re;
	SimplePattern *simple; /* the same pattern, ASCII text, faster */
	char *src;
	VNode *schema;
} VPattern;

/* A list of subschemas (allOf, anyOf, oneOf, prefixItems). */
typedef struct VList
{
	int n;
	VNode **s;
} VList;

/* One compiled schema (a subschema of the document at loc). */
struct VNode
{
	char *loc;   /* JSON Pointer of this schema in the schema document */
	int boolean; /* -1: an object schema; 0: false; 1: true */
	bool draft7; /* $ref alone applies */
	int types;   /* T_* bits; 0: no "type" */
	int nenum;   /* -1: no "enum" */
	JsonbValue *enums;
	bool has_const;
	JsonbValue constv;
	Numeric multiple_of, minimum, maximum, xminimum, xmaximum;
	int64 min_length, max_length, min_items, max_items, min_contains,
		max_contains, min_props, max_props; /* -1: absent */
	VPattern pattern;                       /* re NULL: absent */
	bool unique;
	bool items_array; /* draft-07: items was an array */
	VNode *contains;
	VList prefix;         /* prefixItems, or draft-07's items array */
	VNode *items;         /* elements past prefix */
	const char *items_kw; /* "items" or "additionalItems" */
	int nprops;
	VProp *props; /* sorted as jsonb sorts keys */
	int npatterns;
	VPattern *patterns;
	VNode *additional;
	VNode *property_names;
	int nrequired;
	VProp *required;
	int *req_prop; /* required[i] is props[req_prop[i]] (-1: none) */
	int ndep_required;
	VProp *dep_required;
	const char *dep_required_kw;
	int ndep_required_d7; /* the first of dep_required: from dependencies */
	int ndep_schemas;
	VProp *dep_schemas;
	const char *dep_schemas_kw;
	VList all_of, any_of, one_of;
	VNode * not ;
	VNode *if_, *then_, *else_;
	VNode *ref;
	char *ref_text;
	VNode *dref;         /* $dynamicRef / $recursiveRef: its static target */
	const char *dref_kw; /* which of the two */
	char *res_loc;       /* where that resource is in the schema document */
	int ndyn;            /* the dynamic anchors it may go to instead */
	struct DynCand *dyn;
	char *res_uri;       /* the base URI of the resource holding it */
	bool watch;          /* ValidateNode: loop_guard or dynamic scope */
	VNode *uneval_props; /* unevaluatedProperties */
	VNode *uneval_items; /* unevaluatedItems */
	VFormat format;
	int mark; /* CheckLoops: 0 not seen, 1 on the path, 2 done */
	/* a loop of applicators reaches this node: watched while validating */
	bool loop_guard;
	JsonbValue *active_v; /* the value it is being applied to, in run */
	uint64 active_run;
};

/* A "$dynamicAnchor" (or $recursiveAnchor, name "") a $dynamicRef may reach. */
typedef struct DynCand
{
	char *uri; /* the resource holding it */
	VNode *node;
} DynCand;

/* A "$ref" to resolve once the document is compiled. */
typedef struct RefFix
{
	VNode *from;
	bool dynamic;   /* $dynamicRef */
	bool recursive; /* $recursiveRef */
	char *ref;
	char *base; /* the base URI it is resolved against */
	char *loc;  /* of the $ref keyword, for messages */
} RefFix;

/* An "$anchor" (or draft-07 "$id": "#name") of the resource base. */
typedef struct Anchor
{
	char *base;
	char *name;
	VNode *node;
} Anchor;

/* A schema resource: the root, or a subschema with its own "$id". */
typedef struct Resource
{
	char *uri; /* absolute, or relative to nothing ("" for a root without id) */
	char *loc; /* where it is in the schema document */
} Resource;

/*
 * An index of compiled things by name, so that resolving each "$ref" costs
 * a lookup, not a scan of everything compiled: entries by the hash of the
 * name, each with the items of that hash (NamedItem) in the order added.
 */
typedef struct NameIndexEntry
{
	uint32 hash; /* hash key */
	List *items; /* NamedItem * */
} NameIndexEntry;

typedef struct NamedItem
{
	const char *name;
	void *item;
} NamedItem;

/* Compilation state of one schema document. */
typedef struct CompileCtx
{
	bool draft7;
	bool d2019;             /* draft 2019-09 */
	bool format_annotation; /* "x-docmodel-format": "annotation" */
	JsonbValue *root;       /* the schema, fully expanded */
	char *base;             /* the base URI of the schema being compiled */
	char *base_loc;         /* where its resource is in the schema document */
	HTAB *resources;        /* Resource * by URI */
	List *nodes;            /* every VNode compiled */
	HTAB *locs;             /* VNode * by loc */
	List *pending;          /* RefFix *: "$ref"s not resolved yet */
	List *dyn_anchors;      /* Anchor *: $dynamicAnchor, $recursiveAnchor */
	bool dynamic;           /* a $dynamicRef / $recursiveRef goes by scope */
	HTAB *anchors;          /* Anchor * by "base#name" */
} CompileCtx;

struct DocmodelSchema
{
	Jsonb *bytes; /* the schema, copied */
	VNode *root;
	bool dynamic; /* validation keeps the dynamic scope */
};

static VNode *CompileNode(CompileCtx *cc, JsonbValue *v, const char *loc);
static VProp *FindProp(VProp *props, int n, const char *k, int len);
static int NumCmp(Numeric a, Numeric b);

/* A new NameIndex in the current memory context. */
static HTAB *
IndexCreate(const char *name)
{
	HASHCTL ctl;

	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(uint32);
	ctl.entrysize = sizeof(NameIndexEntry);
	ctl.hcxt = CurrentMemoryContext;
	return hash_create(name, 64, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
}

/* Add item under name (not copied) to index. */
static void
IndexPut(HTAB *index, const char *name, void *item)
{
	uint32 h = hash_bytes((const unsigned char *) name, strlen(name));
	bool found;
	NameIndexEntry *e = hash_search(index, &h, HASH_ENTER, &found);
	NamedItem *ni = palloc(sizeof(NamedItem));

	if (!found)
		e->items = NIL;
	ni->name = name;
	ni->item = item;
	e->items = lappend(e->items, ni);
}

/* The first (or last) item added under name to index, or NULL. */
static void *
IndexGet(HTAB *index, const char *name, bool last)
{
	uint32 h = hash_bytes((const unsigned char *) name, strlen(name));
	NameIndexEntry *e = hash_search(index, &h, HASH_FIND, NULL);
	void *res = NULL;
	ListCell *lc;

	if (e == NULL)
		return NULL;
	foreach (lc, e->items)
	{
		NamedItem *ni = lfirst(lc);

		if (strcmp(ni->name, name) == 0)
		{
			res = ni->item;
			if (!last)
				break;
		}
	}
	return res;
}

/*
 * Return the first i (in order) whose item equals an earlier one, and that
 * one in *dup; -1 when the n items all differ. Items are hashed and only
 * those of equal hash compared: O(n) expected, where comparing every pair
 * would let a long array or list of names take minutes.
 */
static int
FirstDuplicate(void *items, int n, uint32 (*hash)(void *items, int i),
			   bool (*equal)(void *items, int i, int j), int *dup)
{
	Size size = 16;
	int *slots;
	uint32 *hashes;
	int res = -1;
	int i;

	while (size < (Size) n * 2)
		size *= 2;
	slots = MemoryContextAllocHuge(CurrentMemoryContext, size * sizeof(int));
	memset(slots, -1, size * sizeof(int));
	hashes = MemoryContextAllocHuge(CurrentMemoryContext,
									Max(n, 1) * sizeof(uint32));
	for (i = 0; i < n && res < 0; i++)
	{
		Size k;

		CHECK_FOR_INTERRUPTS();
		hashes[i] = hash(items, i);
		for (k = hashes[i] & (size - 1); slots[k] >= 0;
			 k = (k + 1) & (size - 1))
			if (hashes[slots[k]] == hashes[i] && equal(items, slots[k], i))
			{
				*dup = slots[k];
				res = i;
				break;
			}
		if (res < 0)
			slots[k] = i;
	}
	pfree(slots);
	pfree(hashes);
	return res;
}

/* ---------------------------------------------------------------------
 * Compilation
 * ---------------------------------------------------------------------
 */

/* Return the value of hex digit c, or -1. */
static int
HexDigit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Return loc + "/" + token (escaped). */
static char *
LocAppend(const char *loc, const char *tok, int len)
{
	StringInfoData b;

	initStringInfo(&b);
	appendStringInfoString(&b, loc);
	DocmodelJsonPointerAppendToken(&b, tok, len);
	return b.data;
}

/* Return loc + "/" + an index. */
static char *
LocIndex(const char *loc, int i)
{
	return psprintf("%s/%d", loc, i);
}

static void
pg_attribute_noreturn() BadKeyword(const char *loc, const char *what)
{
	ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					errmsg("invalid JSON Schema at \"%s\": %s", loc, what)));
}

/* Return v as a number (22023 otherwise). */
static Numeric
KwNumber(JsonbValue *v, const char *loc)
{
	if (v->type != jbvNumeric)
		BadKeyword(loc, "must be a number");
	return v->val.numeric;
}

/* Return v as a non-negative integer (2.0 counts), clamped to INT64. */
static int64
KwCount(JsonbValue *v, const char *loc)
{
	Numeric n;
	double d;

	if (v->type != jbvNumeric)
		BadKeyword(loc, "must be a non-negative integer");
	n = v->val.numeric;
	d = DatumGetFloat8(
		DirectFunctionCall1(numeric_float8_no_overflow, NumericGetDatum(n)));
	if (d < 0 || d != floor(d))
		BadKeyword(loc, "must be a non-negative integer");
	if (d >= (double) PG_INT64_MAX)
		return PG_INT64_MAX;
	return (int64) d;
}

static bool
KwBool(JsonbValue *v, const char *loc)
{
	if (v->type != jbvBool)
		BadKeyword(loc, "must be a boolean");
	return v->val.boolean;
}

static char *
KwString(JsonbValue *v, const char *loc)
{
	if (v->type != jbvString)
		BadKeyword(loc, "must be a string");
	return pnstrdup(v->val.string.val, v->val.string.len);
}

/*
 * Compile a pattern: ECMA-262's grammar (ecma_regex.c); what it cannot match
 * exactly is refused (0A000), never run with other semantics.
 */
static void
CompilePattern(CompileCtx *cc, VPattern *p, const char *src, int len,
			   const char *loc)
{
	EcmaStatus st;
	char *err;
	EcmaRegex *re = DocmodelRegexCompile(src, len, &st, &err);

	if (st == ECMA_UNSUPPORTED)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("JSON Schema at \"%s\": the pattern's %s is not "
						"supported",
						loc, err),
				 errdetail("Patterns are matched in linear time; lookaround "
						   "and backreferences are refused rather than "
						   "matched otherwise.")));
	if (st == ECMA_TOO_LARGE)
		ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						errmsg("JSON Schema at \"%s\": %s", loc, err)));
	if (re == NULL)
		BadKeyword(loc, psprintf("invalid regular expression: %s", err));
	p->re = re;
	p->src = pnstrdup(src, len);
	p->simple = SimpleCompile(p->src);
}

/*
 * Most schemas' patterns are a run of single characters or classes with
 * quantifiers (^[0-9]{10}$, ^[^@]+@[^@]+$): those are matched here on ASCII
 * text, as the regular expression engine would, for a fraction of its cost
 * (it converts the text and sets up its machinery on every call). Anything
 * else (groups, alternation, back references, lazy quantifiers, non-ASCII)
 * goes to the engine.
 *
 * The match is linear in the text: backtracking first, which is fastest
 * on the usual patterns, with a budget of character tests proportional to
 * the text's length (SimpleTryAt); past it, the pattern runs as an
 * automaton over the text once (SimpleRun), holding for each atom the set
 * of counts of its characters matched so far that some start position
 * reaches (a Thompson-style set of states, a 256-bit set per atom since a
 * count is at most 255): the text's length times the atoms', whatever the
 * pattern ("a*a*a*b" over a long run of "a" included).
 */
#define SIMPLE_MAX_ATOMS 32
#define SIMPLE_MAX_COUNT 255 /* the engine's own bound of {m,n} (DUPMAX) */

typedef struct SimpleAtom
{
	uint64 set[2]; /* the ASCII characters it matches */
	int min;
	int max;        /* INT_MAX: unbounded */
	uint64 keep[4]; /* the counts a state holds: 0..max, or 0..min */
	uint64 done[4]; /* the counts that complete the atom: min and up */
	bool loop;      /* unbounded: count min stays min on one more */
	int cap;        /* the highest count held */
	int nw;         /* the words of keep and done in use: cap / 64 + 1 */
} SimpleAtom;

struct SimplePattern
{
	bool anchor_start;
	bool anchor_end;
	int natoms;
	SimpleAtom atoms[SIMPLE_MAX_ATOMS];
};

static void
SetAdd(uint64 *set, int lo, int hi)
{
	for (; lo <= hi; lo++)
		set[lo >> 6] |= UINT64CONST(1) << (lo & 63);
}

/* Make set (256 bits) the counts lo..hi. */
static void
SimpleCounts(uint64 *set, int lo, int hi)
{
	memset(set, 0, 4 * sizeof(uint64));
	SetAdd(set, lo, hi);
}

/* Add the class escape \c (d, w, s, or their negations) to set. */
static bool
SetEscape(uint64 *set, char c)
{
	uint64 x[2] = {0, 0};

	switch (tolower((unsigned char) c))
	{
		case 'd':
			SetAdd(x, '0', '9');
			break;
		case 'w':
			SetAdd(x, '0', '9');
			SetAdd(x, 'a', 'z');
			SetAdd(x, 'A', 'Z');
			SetAdd(x, '_', '_');
			break;
		case 's':
			SetAdd(x, '\t', '\r');
			SetAdd(x, ' ', ' ');
			break;
		default:
			return false;
	}
	set[0] |= isupper((unsigned char) c) ? ~x[0] : x[0];
	set[1] |= isupper((unsigned char) c) ? ~x[1] : x[1];
	return true;
}

/* Read one character of a class or pattern, "\." style escapes included. */
static int
SimpleChar(const char **p)
{
	const char *s = *p;

	if (s[0] == '\\' && s[1] != '\0' && !isalnum((unsigned char) s[1]))
	{
		*p = s + 2;
		return (unsigned char) s[1];
	}
	if (s[0] == '\\' || (unsigned char) s[0] >= 0x80 || s[0] < ' ')
		return -1;
	*p = s + 1;
	return (unsigned char) s[0];
}

/* Read a bracket expression at *p (after "["); false where not simple. */
static bool
SimpleClass(const char **p, uint64 *set)
{
	const char *s = *p;
	bool negate = *s == '^';

	if (negate)
		s++;
	if (*s == ']' || *s == '\0')
		return false; /* "[]...]": leave POSIX's rules to the engine */
	while (*s != ']')
	{
		int lo;
		int hi;

		if (*s == '\0' || *s == '[')
			return false;
		if (s[0] == '\\' && SetEscape(set, s[1]))
		{
			s += 2;
			continue;
		}
		if ((lo = SimpleChar(&s)) < 0)
			return false;
		hi = lo;
		if (s[0] == '-' && s[1] != ']')
		{
			s++;
			if ((hi = SimpleChar(&s)) < lo)
				return false;
		}
		SetAdd(set, lo, hi);
	}
	if (negate)
	{
		set[0] = ~set[0];
		set[1] = ~set[1];
	}
	*p = s + 1;
	return true;
}

/* Compile src into a SimplePattern, or return NULL when it is not one. */
static SimplePattern *
SimpleCompile(const char *src)
{
	SimplePattern *sp = palloc0(sizeof(SimplePattern));
	const char *p = src;

	if ((sp->anchor_start = *p == '^'))
		p++;
	while (*p)
	{
		SimpleAtom *a = &sp->atoms[sp->natoms];
		int c;

		if (p[0] == '$' && p[1] == '\0')
		{
			sp->anchor_end = true;
			break;
		}
		if (sp->natoms == SIMPLE_MAX_ATOMS || strchr("()|^$*+?{}]", *p))
			return NULL;
		if (*p == '.')
		{
			/* ECMA-262: every character but the line terminators */
			SetAdd(a->set, 0, 127);
			a->set[0] &= ~((UINT64CONST(1) << '\n') | (UINT64CONST(1) << '\r'));
			p++;
		}
		else if (*p == '[')
		{
			p++;
			if (!SimpleClass(&p, a->set))
				return NULL;
		}
		else if (p[0] == '\\' && SetEscape(a->set, p[1]))
			p += 2;
		else if ((c = SimpleChar(&p)) >= 0)
			SetAdd(a->set, c, c);
		else
			return NULL;
		a->min = a->max = 1;
		if (*p == '*' || *p == '+' || *p == '?')
		{
			a->min = *p == '+' ? 1 : 0;
			a->max = *p == '?' ? 1 : INT_MAX;
			p++;
		}
		else if (*p == '{')
		{
			char *end;

			if (!isdigit((unsigned char) p[1]))
				return NULL;
			a->min = a->max = strtol(p + 1, &end, 10);
			if (*end == ',')
				a->max = isdigit((unsigned char) end[1])
							 ? strtol(end + 1, &end, 10)
							 : (end++, INT_MAX);
			if (*end != '}' || a->max < a->min || a->min > SIMPLE_MAX_COUNT ||
				(a->max > SIMPLE_MAX_COUNT && a->max != INT_MAX))
				return NULL;
			p = end + 1;
		}
		if (*p == '?' || *p == '*' || *p == '+' || *p == '{')
			return NULL; /* lazy or stacked quantifiers */
		a->loop = a->max == INT_MAX;
		a->cap = a->loop ? a->min : a->max;
		a->nw = a->cap / 64 + 1;
		SimpleCounts(a->keep, 0, a->cap);
		SimpleCounts(a->done, a->min, a->cap);
		sp->natoms++;
	}
	return sp;
}

/*
 * Tell whether sp matches anywhere in s[0..len) (ASCII): every position is
 * read once, the states of all the starts so far advanced together.
 */
static bool
SimpleRun(const SimplePattern *sp, const char *s, int len)
{
	uint64 st[SIMPLE_MAX_ATOMS][4];
	int pos;

	memset(st, 0, sizeof(st[0]) * sp->natoms);
	for (pos = 0;; pos++)
	{
		bool end = false;
		bool alive = false;
		int c;
		int i;

		/* a match may start here; then each completed atom starts the next */
		if (pos == 0 || !sp->anchor_start)
		{
			if (sp->natoms == 0)
				end = true;
			else
				st[0][0] |= 1;
		}
		for (i = 0; i < sp->natoms; i++)
		{
			const SimpleAtom *a = &sp->atoms[i];
			uint64 done = st[i][0] & a->done[0];
			int k;

			for (k = 1; k < a->nw; k++)
				done |= st[i][k] & a->done[k];
			if (done)
			{
				if (i + 1 == sp->natoms)
					end = true;
				else
					st[i + 1][0] |= 1;
			}
		}
		if (end && (!sp->anchor_end || pos == len))
			return true;
		if (pos == len)
			return false;
		if ((pos & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		/* read s[pos]: each atom's counts go up by one, or die */
		c = (unsigned char) s[pos];
		for (i = 0; i < sp->natoms; i++)
		{
			const SimpleAtom *a = &sp->atoms[i];
			uint64 *w = st[i];
			uint64 any = 0;
			bool top;
			int k;

			if (!((a->set[c >> 6] >> (c & 63)) & 1))
			{
				for (k = 0; k < a->nw; k++)
					w[k] = 0;
				continue;
			}
			top = a->loop && ((w[a->cap >> 6] >> (a->cap & 63)) & 1);
			for (k = a->nw - 1; k > 0; k--)
				any |= w[k] = ((w[k] << 1) | (w[k - 1] >> 63)) & a->keep[k];
			any |= w[0] = (w[0] << 1) & a->keep[0];
			if (top)
			{
				w[a->cap >> 6] |= UINT64CONST(1) << (a->cap & 63);
				any = 1;
			}
			alive |= any != 0;
		}
		/* anchored at the start and nothing left: no match */
		if (!alive && sp->anchor_start)
			return false;
	}
}

/*
 * Match atoms [i, natoms) of sp at s[pos..len), backtracking, each
 * character tested costing one of *budget: 1 a match, 0 none, -1 the
 * budget ran out.
 */
static int
SimpleTryAt(const SimplePattern *sp, int i, const char *s, int len, int pos,
			int64 *budget)
{
	const SimpleAtom *a;
	int n = 0;

	if (i == sp->natoms)
		return !sp->anchor_end || pos == len;
	a = &sp->atoms[i];
	while (n < a->max && pos + n < len &&
		   (a->set[s[pos + n] >> 6] >> (s[pos + n] & 63)) & 1)
		n++;
	if ((*budget -= n + 1) < 0)
		return -1;
	for (; n >= a->min; n--)
	{
		int r = SimpleTryAt(sp, i + 1, s, len, pos + n, budget);

		if (r != 0)
			return r;
	}
	return 0;
}

/* Tell whether sp matches anywhere in s[0..len) (ASCII), in linear time. */
static bool
SimpleMatches(const SimplePattern *sp, const char *s, int len)
{
	int64 budget = 4 * ((int64) len + 16);
	int start;

	for (start = 0; start <= len; start++)
	{
		int r = SimpleTryAt(sp, 0, s, len, start, &budget);

		if (r < 0)
			return SimpleRun(sp, s, len);
		if (r > 0)
			return true;
		if (sp->anchor_start)
			break;
	}
	return false;
}

static bool
AsciiOnly(const char *s, int len)
{
	int i = 0;
	uint64 high = 0;

	/* eight bytes at a time: any high bit is a non-ASCII byte */
	for (; i + 8 <= len; i += 8)
	{
		uint64 w;

		memcpy(&w, s + i, 8);
		high |= w;
	}
	if (high & UINT64CONST(0x8080808080808080))
		return false;
	for (; i < len; i++)
		if ((unsigned char) s[i] >= 0x80)
			return false;
	return true;
}

/* Tell whether the pattern matches anywhere in s (len bytes). */
static bool
PatternMatches(const VPattern *vp, const char *s, int len)
{
	if (vp->simple != NULL && AsciiOnly(s, len))
		return SimpleMatches(vp->simple, s, len);
	return DocmodelRegexMatch(vp->re, s, len);
}

/* Compile v (an array of schemas, at least one). */
static void
KwSchemaList(CompileCtx *cc, VList *l, JsonbValue *v, const char *loc)
{
	int i;

	if (v->type != jbvArray || v->val.array.nElems == 0)
		BadKeyword(loc, "must be a non-empty array of schemas");
	l->n = v->val.array.nElems;
	l->s = palloc(sizeof(VNode *) * l->n);
	for (i = 0; i < l->n; i++)
		l->s[i] = CompileNode(cc, &v->val.array.elems[i], LocIndex(loc, i));
}

static int
PropCmp(const void *a, const void *b)
{
	const VProp *pa = a;
	const VProp *pb = b;

	if (pa->len != pb->len)
		return pa->len < pb->len ? -1 : 1;
	return memcmp(pa->name, pb->name, pa->len);
}

/* Compile v (an object of schemas) into *props, sorted by name. */
static int
KwSchemaMap(CompileCtx *cc, VProp **props, JsonbValue *v, const char *loc)
{
	int i;
	int n;

	if (v->type != jbvObject)
		BadKeyword(loc, "must be an object of schemas");
	n = v->val.object.nPairs;
	*props = palloc0(sizeof(VProp) * Max(n, 1));
	for (i = 0; i < n; i++)
	{
		JsonbPair *p = &v->val.object.pairs[i];

		(*props)[i].name = p->key.val.string.val;
		(*props)[i].len = p->key.val.string.len;
		(*props)[i].schema = CompileNode(
			cc, &p->value,
			LocAppend(loc, p->key.val.string.val, p->key.val.string.len));
	}
	qsort(*props, n, sizeof(VProp), PropCmp);
	return n;
}

static uint32
NameHash(void *items, int i)
{
	VProp *prop = items;

	return hash_bytes((const unsigned char *) prop->names[i], prop->lens[i]);
}

static bool
NameEqual(void *items, int i, int j)
{
	VProp *prop = items;

	return prop->lens[i] == prop->lens[j] &&
		   memcmp(prop->names[i], prop->names[j], prop->lens[i]) == 0;
}

/* Read v, an array of distinct strings, into prop's names. */
static void
KwNames(VProp *prop, JsonbValue *v, const char *loc)
{
	int i;
	int j;

	if (v->type != jbvArray)
		BadKeyword(loc, "must be an array of strings");
	prop->nnames = v->val.array.nElems;
	prop->names = palloc(sizeof(char *) * Max(prop->nnames, 1));
	prop->lens = palloc(sizeof(int) * Max(prop->nnames, 1));
	for (i = 0; i < prop->nnames; i++)
	{
		JsonbValue *e = &v->val.array.elems[i];

		if (e->type != jbvString)
			BadKeyword(loc, "must be an array of strings");
		prop->names[i] = e->val.string.val;
		prop->lens[i] = e->val.string.len;
	}
	if (FirstDuplicate(prop, prop->nnames, NameHash, NameEqual, &j) >= 0)
		BadKeyword(loc, "must not repeat a name");
}

/* Make v (a scalar or an expanded container) comparable to instances. */
static JsonbValue
ConstValue(JsonbValue *v)
{
	JsonbValue r;

	if (IsAJsonbScalar(v))
		return *v;
	else
	{
		Jsonb *jb = JsonbValueToJsonb(v);

		r.type = jbvBinary;
		r.val.binary.data = &jb->root;
		r.val.binary.len = VARSIZE(jb) - VARHDRSZ;
		return r;
	}
}

/* Handlers of keywords: compile value v of keyword kw at loc into n. */
typedef void (*KwCompile)(CompileCtx *cc, VNode *n, const char *kw,
						  JsonbValue *v, const char *loc);

static void
KwType(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v, const char *loc)
{
	int nv = v->type == jbvArray ? v->val.array.nElems : 1;
	int i;
	int t;

	if (v->type != jbvArray && v->type != jbvString)
		BadKeyword(loc, "must be a type name or an array of them");
	for (i = 0; i < nv; i++)
	{
		JsonbValue *e = v->type == jbvArray ? &v->val.array.elems[i] : v;

		if (e->type != jbvString)
			BadKeyword(loc, "must be a type name or an array of them");
		for (t = 0; t < lengthof(TypeNames); t++)
			if (strlen(TypeNames[t]) == e->val.string.len &&
				memcmp(TypeNames[t], e->val.string.val, e->val.string.len) == 0)
				break;
		if (t == lengthof(TypeNames))
			BadKeyword(loc, psprintf("unknown type \"%.*s\"", e->val.string.len,
									 e->val.string.val));
		n->types |= 1 << t;
	}
}

static void
KwEnum(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v, const char *loc)
{
	int i;

	if (v->type != jbvArray)
		BadKeyword(loc, "must be an array");
	n->nenum = v->val.array.nElems;
	n->enums = palloc(sizeof(JsonbValue) * Max(n->nenum, 1));
	for (i = 0; i < n->nenum; i++)
	{
		CHECK_FOR_INTERRUPTS();
		n->enums[i] = ConstValue(&v->val.array.elems[i]);
	}
}

static void
KwConst(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
		const char *loc)
{
	n->has_const = true;
	n->constv = ConstValue(v);
}

static void
KwNumeric(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
		  const char *loc)
{
	Numeric x = KwNumber(v, loc);

	if (strcmp(kw, "multipleOf") == 0)
	{
		if (NumCmp(x, int64_to_numeric(0)) <= 0)
			BadKeyword(loc, "must be greater than 0");
		n->multiple_of = x;
	}
	else if (strcmp(kw, "minimum") == 0)
		n->minimum = x;
	else if (strcmp(kw, "maximum") == 0)
		n->maximum = x;
	else if (strcmp(kw, "exclusiveMinimum") == 0)
		n->xminimum = x;
	else
		n->xmaximum = x;
}

static void
KwCountKw(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
		  const char *loc)
{
	int64 c = KwCount(v, loc);

	if (strcmp(kw, "minLength") == 0)
		n->min_length = c;
	else if (strcmp(kw, "maxLength") == 0)
		n->max_length = c;
	else if (strcmp(kw, "minItems") == 0)
		n->min_items = c;
	else if (strcmp(kw, "maxItems") == 0)
		n->max_items = c;
	else if (strcmp(kw, "minContains") == 0)
		n->min_contains = c;
	else if (strcmp(kw, "maxContains") == 0)
		n->max_contains = c;
	else if (strcmp(kw, "minProperties") == 0)
		n->min_props = c;
	else
		n->max_props = c;
}

static void
KwPattern(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
		  const char *loc)
{
	if (v->type != jbvString)
		BadKeyword(loc, "must be a string");
	CompilePattern(cc, &n->pattern, v->val.string.val, v->val.string.len, loc);
}

static void
KwUnique(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
		 const char *loc)
{
	n->unique = KwBool(v, loc);
}

/* A keyword whose value is one schema. */
static void
KwSchema(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
		 const char *loc)
{
	VNode *s = CompileNode(cc, v, loc);

	if (strcmp(kw, "contains") == 0)
		n->contains = s;
	else if (strcmp(kw, "unevaluatedProperties") == 0)
		n->uneval_props = s;
	else if (strcmp(kw, "unevaluatedItems") == 0)
		n->uneval_items = s;
	else if (strcmp(kw, "not") == 0)
		n->not = s;
	else if (strcmp(kw, "if") == 0)
		n->if_ = s;
	else if (strcmp(kw, "then") == 0)
		n->then_ = s;
	else if (strcmp(kw, "else") == 0)
		n->else_ = s;
	else if (strcmp(kw, "propertyNames") == 0)
		n->property_names = s;
	else if (strcmp(kw, "additionalProperties") == 0)
		n->additional = s;
	else if (strcmp(kw, "items") == 0)
	{
		n->items = s;
		n->items_kw = "items";
	}
	else
		elog(ERROR, "unexpected schema keyword %s", kw);
}

static void
KwItems(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
		const char *loc)
{
	if ((cc->draft7 || cc->d2019) && v->type == jbvArray)
	{
		int i;

		/* draft-07's (and 2019-09's) array form: the prefix (an empty array allowed) */
		n->prefix.n = v->val.array.nElems;
		n->prefix.s = palloc(sizeof(VNode *) * Max(n->prefix.n, 1));
		for (i = 0; i < n->prefix.n; i++)
			n->prefix.s[i] =
				CompileNode(cc, &v->val.array.elems[i], LocIndex(loc, i));
		n->items_array = true;
		return;
	}
	n->items = CompileNode(cc, v, loc);
	n->items_kw = "items";
}

static void
KwAdditionalItems(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
				  const char *loc)
{
	VNode *s = CompileNode(cc, v, loc);

	/* jsonb puts "items" first; additionalItems follows an items array only */
	if (!n->items_array)
		return;
	n->items = s;
	n->items_kw = "additionalItems";
}

static void
KwPrefixItems(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
			  const char *loc)
{
	KwSchemaList(cc, &n->prefix, v, loc);
}

static void
KwProperties(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
			 const char *loc)
{
	n->nprops = KwSchemaMap(cc, &n->props, v, loc);
}

static void
KwPatternProperties(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
					const char *loc)
{
	int i;

	if (v->type != jbvObject)
		BadKeyword(loc, "must be an object of schemas");
	n->npatterns = v->val.object.nPairs;
	n->patterns = palloc0(sizeof(VPattern) * Max(n->npatterns, 1));
	for (i = 0; i < n->npatterns; i++)
	{
		JsonbPair *p = &v->val.object.pairs[i];
		char *ploc =
			LocAppend(loc, p->key.val.string.val, p->key.val.string.len);

		CompilePattern(cc, &n->patterns[i], p->key.val.string.val,
					   p->key.val.string.len, ploc);
		n->patterns[i].schema = CompileNode(cc, &p->value, ploc);
	}
}

static void
KwRequired(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
		   const char *loc)
{
	VProp p;
	int i;

	KwNames(&p, v, loc);
	n->nrequired = p.nnames;
	n->required = palloc0(sizeof(VProp) * Max(p.nnames, 1));
	for (i = 0; i < p.nnames; i++)
	{
		n->required[i].name = p.names[i];
		n->required[i].len = p.lens[i];
	}
}

static void
KwDependentRequired(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
					const char *loc)
{
	int i;

	VProp *d;

	if (v->type != jbvObject)
		BadKeyword(loc, "must be an object of string arrays");
	/* after the entries of draft-07's dependencies, if any */
	d = palloc0(sizeof(VProp) * (n->ndep_required + v->val.object.nPairs + 1));
	if (n->ndep_required > 0)
		memcpy(d, n->dep_required, sizeof(VProp) * n->ndep_required);
	n->dep_required = d;
	n->dep_required_kw = kw;
	for (i = 0; i < v->val.object.nPairs; i++)
	{
		JsonbPair *p = &v->val.object.pairs[i];

		d = &n->dep_required[n->ndep_required++];
		d->name = p->key.val.string.val;
		d->len = p->key.val.string.len;
		KwNames(d, &p->value,
				LocAppend(loc, p->key.val.string.val, p->key.val.string.len));
	}
}

static void
KwDependentSchemas(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
				   const char *loc)
{
	VProp *m;
	int nm = KwSchemaMap(cc, &m, v, loc);

	/* after the entries of draft-07's dependencies, if any */
	if (n->ndep_schemas > 0)
	{
		VProp *d = palloc0(sizeof(VProp) * (n->ndep_schemas + nm + 1));

		memcpy(d, n->dep_schemas, sizeof(VProp) * n->ndep_schemas);
		memcpy(d + n->ndep_schemas, m, sizeof(VProp) * nm);
		m = d;
		nm += n->ndep_schemas;
	}
	n->dep_schemas = m;
	n->ndep_schemas = nm;
	n->dep_schemas_kw = kw;
}

/*
 * draft-07's dependencies: arrays are dependentRequired, others schemas. Also
 * read in 2019-09 and 2020-12, as their optional tests expect; it is the
 * shorter key, so it comes before dependentRequired and dependentSchemas,
 * which add to its entries.
 */
static void
KwDependencies(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
			   const char *loc)
{
	int i;

	if (v->type != jbvObject)
		BadKeyword(loc, "must be an object");
	n->dep_required = palloc0(sizeof(VProp) * Max(v->val.object.nPairs, 1));
	n->dep_schemas = palloc0(sizeof(VProp) * Max(v->val.object.nPairs, 1));
	n->dep_required_kw = n->dep_schemas_kw = kw;
	for (i = 0; i < v->val.object.nPairs; i++)
	{
		JsonbPair *p = &v->val.object.pairs[i];
		char *ploc =
			LocAppend(loc, p->key.val.string.val, p->key.val.string.len);
		VProp *d;

		if (p->value.type == jbvArray)
		{
			d = &n->dep_required[n->ndep_required++];
			KwNames(d, &p->value, ploc);
		}
		else
		{
			d = &n->dep_schemas[n->ndep_schemas++];
			d->schema = CompileNode(cc, &p->value, ploc);
		}
		d->name = p->key.val.string.val;
		d->len = p->key.val.string.len;
	}
	n->ndep_required_d7 = n->ndep_required;
}

static void
KwApplicatorList(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
				 const char *loc)
{
	if (strcmp(kw, "allOf") == 0)
		KwSchemaList(cc, &n->all_of, v, loc);
	else if (strcmp(kw, "anyOf") == 0)
		KwSchemaList(cc, &n->any_of, v, loc);
	else
		KwSchemaList(cc, &n->one_of, v, loc);
}

/* $defs, definitions: compiled so that errors show now and refs find them. */
static void
KwDefs(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v, const char *loc)
{
	VProp *defs;

	KwSchemaMap(cc, &defs, v, loc);
}

static void
KwRef(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v, const char *loc)
{
	RefFix *f = palloc(sizeof(RefFix));

	f->from = n;
	f->dynamic = strcmp(kw, "$ref") != 0;
	if (f->dynamic)
		n->dref_kw = kw;
	f->recursive = strcmp(kw, "$recursiveRef") == 0;
	f->ref = KwString(v, loc);
	f->base = cc->base;
	f->loc = pstrdup(loc);
	n->ref_text = f->ref;
	cc->pending = lappend(cc->pending, f);
}

static void
AddAnchor(CompileCtx *cc, VNode *n, char *name)
{
	Anchor *a = palloc(sizeof(Anchor));

	a->base = cc->base;
	a->name = name;
	a->node = n;
	IndexPut(cc->anchors, psprintf("%s#%s", a->base, a->name), a);
}

static void
KwAnchor(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
		 const char *loc)
{
	AddAnchor(cc, n, KwString(v, loc));
}

/* $dynamicAnchor: an anchor, and a target $dynamicRef may find by scope. */
static void
KwDynamicAnchor(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
				const char *loc)
{
	Anchor *a = palloc(sizeof(Anchor));

	AddAnchor(cc, n, KwString(v, loc));
	a->base = cc->base;
	a->name = KwString(v, loc);
	a->node = n;
	cc->dyn_anchors = lappend(cc->dyn_anchors, a);
}

/* 2019-09's $recursiveAnchor: true makes its resource a target by scope. */
static void
KwRecursiveAnchor(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
				  const char *loc)
{
	Anchor *a;

	if (!KwBool(v, loc))
		return;
	a = palloc(sizeof(Anchor));
	a->base = cc->base;
	a->name = "";
	a->node = n;
	cc->dyn_anchors = lappend(cc->dyn_anchors, a);
}

static void
KwId(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v, const char *loc)
{
	char *id = KwString(v, loc);

	/* a new base URI is taken by CompileNode, before the keywords */
	if (cc->draft7 && id[0] == '#')
		AddAnchor(cc, n, id + 1); /* draft-07's plain-name fragment */
}

static void
KwFormat(CompileCtx *cc, VNode *n, const char *kw, JsonbValue *v,
		 const char *loc)
{
	int f;

	if (v->type != jbvString)
		BadKeyword(loc, "must be a string");
	if (cc->format_annotation)
		return;
	for (f = 1; f < lengthof(FormatNames); f++)
		if (strlen(FormatNames[f]) == v->val.string.len &&
			memcmp(FormatNames[f], v->val.string.val, v->val.string.len) == 0)
			n->format = f;
}

/* Known keywords; D7/D19/D20: the dialects where one applies. */
#define D7 1
#define D20 2
#define D19 4
#define D1920 (D19 | D20)
#define DALL (D7 | D19 | D20)

typedef struct Keyword
{
	const char *name;
	int dialects;
	KwCompile fn; /* NULL: an annotation, or the dialect's identifier */
} Keyword;

static const Keyword Keywords[] = {
	{"$anchor", D1920, KwAnchor},
	{"$comment", DALL, NULL},
	{"$defs", D1920, KwDefs},
	{"$dynamicAnchor", D20, KwDynamicAnchor},
	{"$dynamicRef", D20, KwRef},
	{"$id", DALL, KwId},
	{"$recursiveAnchor", D19, KwRecursiveAnchor},
	{"$recursiveRef", D19, KwRef},
	{"$ref", DALL, KwRef},
	{"$schema", DALL, NULL},
	{"$vocabulary", D1920, NULL},
	{"additionalItems", D7 | D19, KwAdditionalItems},
	{"additionalProperties", DALL, KwSchema},
	{"allOf", DALL, KwApplicatorList},
	{"anyOf", DALL, KwApplicatorList},
	{"const", DALL, KwConst},
	{"contains", DALL, KwSchema},
	{"contentEncoding", DALL, NULL},
	{"contentMediaType", DALL, NULL},
	{"contentSchema", D1920, NULL},
	{"default", DALL, NULL},
	{"definitions", D7, KwDefs},
	{"dependencies", DALL, KwDependencies},
	{"dependentRequired", D1920, KwDependentRequired},
	{"dependentSchemas", D1920, KwDependentSchemas},
	{"deprecated", D1920, NULL},
	{"description", DALL, NULL},
	{"else", DALL, KwSchema},
	{"enum", DALL, KwEnum},
	{"examples", DALL, NULL},
	{"exclusiveMaximum", DALL, KwNumeric},
	{"exclusiveMinimum", DALL, KwNumeric},
	{"format", DALL, KwFormat},
	{"if", DALL, KwSchema},
	{"items", DALL, KwItems},
	{"maxContains", D1920, KwCountKw},
	{"maxItems", DALL, KwCountKw},
	{"maxLength", DALL, KwCountKw},
	{"maxProperties", DALL, KwCountKw},
	{"maximum", DALL, KwNumeric},
	{"minContains", D1920, KwCountKw},
	{"minItems", DALL, KwCountKw},
	{"minLength", DALL, KwCountKw},
	{"minProperties", DALL, KwCountKw},
	{"minimum", DALL, KwNumeric},
	{"multipleOf", DALL, KwNumeric},
	{"not", DALL, KwSchema},
	{"oneOf", DALL, KwApplicatorList},
	{"pattern", DALL, KwPattern},
	{"patternProperties", DALL, KwPatternProperties},
	{"prefixItems", D20, KwPrefixItems},
	{"properties", DALL, KwProperties},
	{"propertyNames", DALL, KwSchema},
	{"readOnly", DALL, NULL},
	{"required", DALL, KwRequired},
	{"then", DALL, KwSchema},
	{"title", DALL, NULL},
	{"type", DALL, KwType},
	{"unevaluatedItems", D1920, KwSchema},
	{"unevaluatedProperties", D1920, KwSchema},
	{"uniqueItems", DALL, KwUnique},
	{"writeOnly", DALL, NULL},
};

/*
 * Tell whether a and b are one edit apart (a letter added, removed, changed,
 * or two neighbours swapped), case aside.
 */
static bool
OneEditApart(const char *a, int la, const char *b, int lb)
{
	int i = 0;

	if (abs(la - lb) > 1)
		return false;
	while (i < la && i < lb && pg_ascii_tolower(a[i]) == pg_ascii_tolower(b[i]))
		i++;
	if (i == la && i == lb)
		return true; /* only case differs */
	if (la == lb)
	{
		/* a change, or a swap of i and i + 1 */
		if (pg_strncasecmp(a + i + 1, b + i + 1, la - i - 1) == 0)
			return true;
		return i + 1 < la &&
			   pg_ascii_tolower(a[i]) == pg_ascii_tolower(b[i + 1]) &&
			   pg_ascii_tolower(a[i + 1]) == pg_ascii_tolower(b[i]) &&
			   pg_strncasecmp(a + i + 2, b + i + 2, la - i - 2) == 0;
	}
	if (la > lb)
		return pg_strncasecmp(a + i + 1, b + i, lb - i) == 0;
	return pg_strncasecmp(a + i, b + i + 1, la - i) == 0;
}

/* Find keyword k; refuse an unknown one spelled like a known one. */
static const Keyword *
LookupKeyword(const char *k, int len, const char *loc)
{
	int lo = 0;
	int hi = lengthof(Keywords) - 1;
	int i;

	while (lo <= hi)
	{
		int mid = (lo + hi) / 2;
		int c = strncmp(Keywords[mid].name, k, len);

		if (c == 0 && Keywords[mid].name[len] != '\0')
			c = 1;
		if (c == 0)
			return &Keywords[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	for (i = 0; i < lengthof(Keywords); i++)
	{
		int kl = strlen(Keywords[i].name);

		if (len >= 4 && OneEditApart(Keywords[i].name, kl, k, len))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid JSON Schema at \"%s\": unknown keyword "
							"\"%.*s\"",
							LocAppend(loc, k, len), len, k),
					 errhint("Did you mean \"%s\"?", Keywords[i].name)));
	}
	return NULL;
}

/* The parts of a URI reference (RFC 3986); NULL where absent. */
typedef struct UriParts
{
	char *scheme;
	char *authority;
	char *path; /* never NULL */
	char *query;
} UriParts;

/* Split s (without a fragment) into *u. */
static void
UriSplit(const char *s, UriParts *u)
{
	const char *p = s;
	const char *q;

	memset(u, 0, sizeof(*u));
	while (isalnum((unsigned char) *p) || *p == '+' || *p == '-' || *p == '.')
		p++;
	if (*p == ':' && p > s && isalpha((unsigned char) *s))
	{
		u->scheme = pnstrdup(s, p - s);
		s = p + 1;
	}
	if (s[0] == '/' && s[1] == '/')
	{
		p = s + 2 + strcspn(s + 2, "/?");
		u->authority = pnstrdup(s + 2, p - s - 2);
		s = p;
	}
	q = strchr(s, '?');
	u->path = q ? pnstrdup(s, q - s) : pstrdup(s);
	u->query = q ? pstrdup(q + 1) : NULL;
}

/* RFC 3986's remove_dot_segments. */
static char *
UriRemoveDots(const char *in)
{
	StringInfoData out;

	initStringInfo(&out);
	while (*in)
	{
		if (strncmp(in, "../", 3) == 0 || strncmp(in, "./", 2) == 0)
			in += in[0] == '.' && in[1] == '.' ? 3 : 2;
		else if (strncmp(in, "/./", 3) == 0 || strcmp(in, "/.") == 0)
			in = in[2] ? in + 2 : "/";
		else if (strncmp(in, "/../", 4) == 0 || strcmp(in, "/..") == 0)
		{
			char *slash = strrchr(out.data, '/');

			out.len = slash ? slash - out.data : 0;
			out.data[out.len] = '\0';
			in = in[3] ? in + 3 : "/";
		}
		else if (strcmp(in, ".") == 0 || strcmp(in, "..") == 0)
			break;
		else
		{
			int n = 1 + strcspn(in + 1, "/");

			appendBinaryStringInfo(&out, in, n);
			in += n;
		}
	}
	return out.data;
}

/*
 * Resolve the URI reference ref (without a fragment) against base (RFC
 * 3986, 5.2): the URI of an "$id" or a "$ref" in its schema resource.
 */
static char *
UriResolve(const char *base, const char *ref)
{
	UriParts b;
	UriParts r;
	UriParts t;
	StringInfoData out;

	UriSplit(ref, &r);
	UriSplit(base, &b);
	t = r;
	if (r.scheme == NULL)
	{
		t.scheme = b.scheme;
		if (r.authority == NULL)
		{
			t.authority = b.authority;
			if (r.path[0] == '\0')
			{
				t.path = b.path;
				t.query = r.query ? r.query : b.query;
			}
			else if (r.path[0] != '/')
			{
				char *slash = strrchr(b.path, '/');

				t.path = b.authority && b.path[0] == '\0'
							 ? psprintf("/%s", r.path)
							 : psprintf("%.*s%s",
										slash ? (int) (slash - b.path) + 1 : 0,
										b.path, r.path);
			}
		}
	}
	if (t.path != b.path || r.scheme != NULL)
		t.path = UriRemoveDots(t.path);
	initStringInfo(&out);
	if (t.scheme)
		appendStringInfo(&out, "%s:", t.scheme);
	if (t.authority)
		appendStringInfo(&out, "//%s", t.authority);
	appendStringInfoString(&out, t.path);
	if (t.query)
		appendStringInfo(&out, "?%s", t.query);
	return out.data;
}

/* Compile the schema v found at loc. */
static VNode *
CompileNode(CompileCtx *cc, JsonbValue *v, const char *loc)
{
	VNode *n;
	int i;
	int dialect = cc->draft7 ? D7 : cc->d2019 ? D19 : D20;
	bool ref_only = false;
	char *base = cc->base;
	char *base_loc = cc->base_loc;

	check_stack_depth();
	CHECK_FOR_INTERRUPTS();
	n = palloc0(sizeof(VNode));
	n->loc = pstrdup(loc);
	n->draft7 = cc->draft7;
	n->nenum = -1;
	n->min_length = n->max_length = n->min_items = n->max_items = -1;
	n->min_contains = n->max_contains = n->min_props = n->max_props = -1;
	cc->nodes = lappend(cc->nodes, n);
	IndexPut(cc->locs, n->loc, n);
	if (v->type == jbvBool)
	{
		n->boolean = v->val.boolean ? 1 : 0;
		return n;
	}
	n->boolean = -1;
	if (v->type != jbvObject)
		BadKeyword(loc[0] ? loc : "/",
				   "a schema must be an object or a boolean");

	/* draft-07: "$ref" makes its siblings ignored */
	if (cc->draft7)
		for (i = 0; i < v->val.object.nPairs; i++)
			if (v->val.object.pairs[i].key.val.string.len == 4 &&
				memcmp(v->val.object.pairs[i].key.val.string.val, "$ref", 4) ==
					0)
				ref_only = true;
	/* an "$id" starts a resource: its URI is the base of what it holds */
	i = DocmodelJsonTreeFindMember(v, "$id", 3);
	if (!ref_only && i >= 0 && v->val.object.pairs[i].value.type == jbvString &&
		v->val.object.pairs[i].value.val.string.val[0] != '#')
	{
		JsonbValue *id = &v->val.object.pairs[i].value;
		const char *h = memchr(id->val.string.val, '#', id->val.string.len);
		Resource *r = palloc(sizeof(Resource));

		r->uri = UriResolve(
			cc->base, pnstrdup(id->val.string.val, h ? h - id->val.string.val
													 : id->val.string.len));
		r->loc = n->loc;
		IndexPut(cc->resources, r->uri, r);
		cc->base = r->uri;
		cc->base_loc = r->loc;
	}
	n->res_uri = cc->base;
	n->res_loc = cc->base_loc ? cc->base_loc : "";

	for (i = 0; i < v->val.object.nPairs; i++)
	{
		JsonbPair *p = &v->val.object.pairs[i];
		const char *k = p->key.val.string.val;
		int klen = p->key.val.string.len;
		const Keyword *kw;

		if (ref_only && !(klen == 4 && memcmp(k, "$ref", 4) == 0))
			continue;
		kw = LookupKeyword(k, klen, loc);
		if (kw == NULL || kw->fn == NULL || !(kw->dialects & dialect))
			continue; /* an annotation, or not a keyword of this dialect */
		kw->fn(cc, n, kw->name, &p->value, LocAppend(loc, k, klen));
	}
	if (n->nrequired > 0 && n->nprops > 0)
	{
		/* a required property is found by the pass that finds properties */
		n->req_prop = palloc(sizeof(int) * n->nrequired);
		for (i = 0; i < n->nrequired; i++)
		{
			VProp *rp = FindProp(n->props, n->nprops, n->required[i].name,
								 n->required[i].len);

			n->req_prop[i] = rp ? (int) (rp - n->props) : -1;
		}
	}
	cc->base = base;
	cc->base_loc = base_loc;
	return n;
}

/* Decode %XX escapes of a URI fragment. */
static char *
PercentDecode(const char *s, const char *loc)
{
	StringInfoData b;

	initStringInfo(&b);
	for (; *s; s++)
	{
		if (*s == '%')
		{
			int hi = HexDigit(s[1]);
			int lo = hi < 0 ? -1 : HexDigit(s[2]);

			if (hi < 0 || lo < 0)
				BadKeyword(loc, "\"$ref\" has a bad percent escape");
			appendStringInfoChar(&b, (char) (hi * 16 + lo));
			s += 2;
		}
		else
			appendStringInfoChar(&b, *s);
	}
	return b.data;
}

/* Return the node at JSON Pointer ptr (canonical form), compiling it if new. */
static VNode *
NodeAt(CompileCtx *cc, const char *ptr, const char *loc)
{
	JsonPointer p;
	JsonTreeMiss miss;
	JsonbValue *v;
	StringInfoData canon;
	VNode *n;
	int i;

	if (DocmodelJsonPointerParse(ptr, strlen(ptr), true, &p) != JSONPOINTER_OK)
		BadKeyword(loc,
				   psprintf("\"$ref\" \"#%s\" is not a JSON Pointer", ptr));
	initStringInfo(&canon);
	for (i = 0; i < p.ntok; i++)
		DocmodelJsonPointerAppendToken(&canon, p.tok[i], p.toklen[i]);
	if ((n = IndexGet(cc->locs, canon.data, false)) == NULL)
	{
		if ((v = DocmodelJsonTreeWalk(cc->root, &p, p.ntok, 0, &miss)) == NULL)
			BadKeyword(loc,
					   psprintf("\"$ref\" target \"#%s\" does not exist", ptr));
		n = CompileNode(cc, v, canon.data);
	}
	pfree(canon.data); /* the schema's memory lives as long as it is cached */
	return n;
}

/* Resolve every pending "$ref" (targets compiled on the way may add more). */
/*
 * A $dynamicRef (name: its fragment) or $recursiveRef (name "") whose
 * static target's resource holds a dynamic anchor of that name goes, when
 * validating, to the outermost resource of the dynamic scope holding one:
 * list them all.
 */
static void
DynamicTargets(CompileCtx *cc, RefFix *f, const char *uri, const char *name)
{
	ListCell *lc;
	bool bookend = false;
	int n = 0;

	foreach (lc, cc->dyn_anchors)
	{
		Anchor *a = lfirst(lc);

		if (strcmp(a->name, name) == 0 && strcmp(a->base, uri) == 0)
			bookend = true;
	}
	if (!bookend || (name[0] == '\0' && !f->recursive))
		return;
	f->from->dyn =
		palloc(sizeof(DynCand) * Max(list_length(cc->dyn_anchors), 1));
	foreach (lc, cc->dyn_anchors)
	{
		Anchor *a = lfirst(lc);

		if (strcmp(a->name, name) == 0)
		{
			f->from->dyn[n].uri = a->base;
			f->from->dyn[n].node = a->node;
			n++;
		}
	}
	f->from->ndyn = n;
	cc->dynamic = true;
}

static void
ResolveRefs(CompileCtx *cc)
{
	int next;

	/* by position: the list grows as targets compiled add their refs */
	for (next = 0; next < list_length(cc->pending); next++)
	{
		RefFix *f = list_nth(cc->pending, next);
		VNode **slot = f->dynamic ? &f->from->dref : &f->from->ref;
		char *ref = f->ref;
		char *hash = strchr(ref, '#');
		char *uri;
		char *frag;
		Resource *res;

		CHECK_FOR_INTERRUPTS();
		if (hash == NULL)
			hash = ref + strlen(ref);
		uri = UriResolve(f->base, pnstrdup(ref, hash - ref));
		res = IndexGet(cc->resources, uri, true);
		pfree(uri);
		if (res == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("JSON Schema at \"%s\": remote \"$ref\" \"%s\" is "
							"not supported",
							f->loc, ref),
					 errdetail("\"$ref\" reaches the schema's own resources: "
							   "the root, and subschemas with an \"$id\".")));
		frag = PercentDecode(*hash ? hash + 1 : hash, f->loc);
		if (frag[0] == '\0' || frag[0] == '/')
		{
			char *ptr = psprintf("%s%s", res->loc, frag);

			cc->base = res->uri;
			cc->base_loc = res->loc;
			*slot = NodeAt(cc, ptr, f->loc);
			pfree(ptr);
		}
		else
		{
			char *name = psprintf("%s#%s", res->uri, frag);
			Anchor *a = IndexGet(cc->anchors, name, true);

			if (a != NULL)
				*slot = a->node;
			if (*slot == NULL)
				BadKeyword(
					f->loc,
					psprintf("\"$ref\" anchor \"%s\" does not exist", frag));
			pfree(name);
		}
		if (f->dynamic)
			DynamicTargets(cc, f, res->uri, f->recursive ? "" : frag);
		pfree(frag);
	}
}

static void CheckLoopsList(VList *l);

/*
 * Find the schemas a "$ref" reaches back to through applicators that stay
 * on the value ($ref, allOf, anyOf, oneOf, not, if/then/else,
 * dependentSchemas): validating a document that reaches such a loop would
 * never finish. Documents may never reach it (a branch of anyOf, an "if"
 * not taken), so the schema is not refused: the node that closes the loop
 * is watched, and a document that comes back to it on the same value is
 * refused then (ValidateNode).
 */
static void
CheckLoops(VNode *n)
{
	int i;

	if (n == NULL || n->mark == 2)
		return;
	if (n->mark == 1)
	{
		n->loop_guard = true;
		return;
	}
	check_stack_depth();
	CHECK_FOR_INTERRUPTS();
	n->mark = 1;
	CheckLoops(n->ref);
	CheckLoops(n->dref);
	for (i = 0; i < n->ndyn; i++)
		CheckLoops(n->dyn[i].node);
	CheckLoopsList(&n->all_of);
	CheckLoopsList(&n->any_of);
	CheckLoopsList(&n->one_of);
	CheckLoops(n->not );
	CheckLoops(n->if_);
	CheckLoops(n->then_);
	CheckLoops(n->else_);
	for (i = 0; i < n->ndep_schemas; i++)
		CheckLoops(n->dep_schemas[i].schema);
	n->mark = 2;
}

static void
CheckLoopsList(VList *l)
{
	int i;

	for (i = 0; i < l->n; i++)
		CheckLoops(l->s[i]);
}

/* Compile schema into the current memory context; see validate.h. */
DocmodelSchema *
DocmodelSchemaCompile(Jsonb *schema)
{
	DocmodelSchema *s = palloc0(sizeof(DocmodelSchema));
	CompileCtx cc = {0};
	JsonbValue top;
	Resource *root = palloc(sizeof(Resource));

	/* the compiled nodes point into the schema: keep a copy beside them */
	s->bytes = palloc(VARSIZE(schema));
	memcpy(s->bytes, schema, VARSIZE(schema));
	DocmodelJsonTreeFromJsonb(s->bytes, &top);
	cc.root = DocmodelJsonTreeBuild(&top);
	if (cc.root->type == jbvObject)
	{
		int m = DocmodelJsonTreeFindMember(cc.root, "x-docmodel-format", 17);

		/* formats are asserted unless the root says they are annotations */
		if (m >= 0)
		{
			char *mode = KwString(&cc.root->val.object.pairs[m].value,
								  "/x-docmodel-format");

			if (strcmp(mode, "annotation") == 0)
				cc.format_annotation = true;
			else if (strcmp(mode, "assertion") != 0)
				BadKeyword("/x-docmodel-format",
						   "must be \"assertion\" or \"annotation\"");
		}
		m = DocmodelJsonTreeFindMember(cc.root, "$schema", 7);

		if (m >= 0)
		{
			JsonbValue *d = &cc.root->val.object.pairs[m].value;
			char *uri = KwString(d, "/$schema");
			char *p = uri;

			if (strncmp(p, "https://", 8) == 0)
				p += 8;
			else if (strncmp(p, "http://", 7) == 0)
				p += 7;
			if (strcmp(p, "json-schema.org/draft-07/schema#") == 0 ||
				strcmp(p, "json-schema.org/draft-07/schema") == 0)
				cc.draft7 = true;
			else if (strcmp(p, "json-schema.org/draft/2019-09/schema") == 0 ||
					 strcmp(p, "json-schema.org/draft/2019-09/schema#") == 0)
				cc.d2019 = true;
			else if (strcmp(p, "json-schema.org/draft/2020-12/schema") != 0 &&
					 strcmp(p, "json-schema.org/draft/2020-12/schema#") != 0)
				ereport(
					ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("JSON Schema dialect \"%s\" is not supported", uri),
					 errhint("Use JSON Schema 2020-12 (the default), 2019-09 "
							 "or draft-07.")));
		}
	}
	/* the root is a resource even without an "$id" */
	cc.resources = IndexCreate("docmodel schema resources");
	cc.locs = IndexCreate("docmodel schema locations");
	cc.anchors = IndexCreate("docmodel schema anchors");
	root->uri = cc.base = "";
	root->loc = "";
	IndexPut(cc.resources, root->uri, root);
	s->root = CompileNode(&cc, cc.root, "");
	ResolveRefs(&cc);
	{
		ListCell *lc;

		foreach (lc, cc.nodes)
			CheckLoops(lfirst(lc));
		/* the dynamic scope is kept only for schemas that read it */
		s->dynamic = cc.dynamic;
		foreach (lc, cc.nodes)
		{
			VNode *n = lfirst(lc);

			n->watch = n->loop_guard || cc.dynamic;
		}
	}
	return s;
}

/* ---------------------------------------------------------------------
 * The cache of compiled schemas, keyed by the schema's bytes
 * ---------------------------------------------------------------------
 */
#define SCHEMA_CACHE_SIZE 32

typedef struct SchemaCacheEntry
{
	MemoryContext cxt; /* NULL: a free slot */
	uint32 hash;
	Jsonb *bytes; /* a copy of the schema */
	uint64 used;  /* for LRU */
	DocmodelSchema *schema;
} SchemaCacheEntry;

static SchemaCacheEntry SchemaCache[SCHEMA_CACHE_SIZE];
static uint64 SchemaCacheClock = 0;
static int SchemaCacheLast = 0; /* the entry returned last */

/* Return the compiled schema; see validate.h. */
DocmodelSchema *
DocmodelSchemaGet(Jsonb *schema)
{
	Size len = VARSIZE(schema);
	uint32 h;
	int i;
	int victim = 0;
	MemoryContext cxt;
	MemoryContext old;
	SchemaCacheEntry *e;

	/* most calls of a statement use the schema of the call before */
	e = &SchemaCache[SchemaCacheLast];
	if (e->cxt != NULL && VARSIZE(e->bytes) == len &&
		memcmp(e->bytes, schema, len) == 0)
	{
		e->used = ++SchemaCacheClock;
		return e->schema;
	}

	h = hash_bytes((const unsigned char *) schema, len);
	for (i = 0; i < SCHEMA_CACHE_SIZE; i++)
	{
		e = &SchemaCache[i];
		if (e->cxt != NULL && e->hash == h && VARSIZE(e->bytes) == len &&
			memcmp(e->bytes, schema, len) == 0)
		{
			e->used = ++SchemaCacheClock;
			SchemaCacheLast = i;
			return e->schema;
		}
		if (e->cxt == NULL || (SchemaCache[victim].cxt != NULL &&
							   e->used < SchemaCache[victim].used))
			victim = i;
	}

	cxt = AllocSetContextCreate(CacheMemoryContext, "docmodel schema",
								ALLOCSET_SMALL_SIZES);
	old = MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		DocmodelSchema *s = DocmodelSchemaCompile(schema);

		MemoryContextSwitchTo(old);
		e = &SchemaCache[victim];
		if (e->cxt != NULL)
			MemoryContextDelete(e->cxt);
		e->cxt = cxt;
		e->hash = h;
		e->bytes = s->bytes;
		e->used = ++SchemaCacheClock;
		e->schema = s;
		SchemaCacheLast = victim;
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(old);
		MemoryContextDelete(cxt);
		PG_RE_THROW();
	}
	PG_END_TRY();
	return e->schema;
}

/* ---------------------------------------------------------------------
 * Formats
 * ---------------------------------------------------------------------
 */

static int
Num(const char *s, int n)
{
	int v = 0;
	int i;

	for (i = 0; i < n; i++)
		v = v * 10 + (s[i] - '0');
	return v;
}

static bool
FormatUuid(const char *s, int len)
{
	int i;

	if (len != 36)
		return false;
	for (i = 0; i < 36; i++)
	{
		if (i == 8 || i == 13 || i == 18 || i == 23)
		{
			if (s[i] != '-')
				return false;
		}
		else if (HexDigit(s[i]) < 0)
			return false;
	}
	return true;
}

static bool
FormatIpv4(const char *s, int len)
{
	int parts = 0;
	int i = 0;

	while (parts < 4)
	{
		int start = i;

		while (i < len && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == start || i - start > 3 || (i - start > 1 && s[start] == '0') ||
			Num(s + start, i - start) > 255)
			return false;
		parts++;
		if (parts < 4)
		{
			if (i >= len || s[i] != '.')
				return false;
			i++;
		}
	}
	return i == len;
}

static bool
FormatIpv6(const char *s, int len)
{
	int groups = 0;
	bool gap = false;
	int i = 0;

	if (len >= 2 && s[0] == ':' && s[1] == ':')
	{
		gap = true;
		i = 2;
		if (len == 2)
			return true;
	}
	else if (len >= 1 && s[0] == ':')
		return false;
	while (i < len)
	{
		int start = i;

		while (i < len && HexDigit(s[i]) >= 0)
			i++;
		if (i < len && s[i] == '.')
		{
			/* an IPv4 tail takes two groups */
			if (!FormatIpv4(s + start, len - start))
				return false;
			groups += 2;
			i = len;
			break;
		}
		if (i == start || i - start > 4)
			return false;
		groups++;
		if (i == len)
			break;
		if (s[i] != ':')
			return false;
		i++;
		if (i < len && s[i] == ':')
		{
			if (gap)
				return false;
			gap = true;
			i++;
			if (i == len)
				break;
		}
		else if (i == len)
			return false;
	}
	return gap ? groups < 8 : groups == 8;
}

/* hostname (RFC 1123) or, with idn, idn-hostname (RFC 5890): idna.c */
static bool
HostnameCheck(const char *s, int len, bool idn)
{
	return DocmodelIdnaHostnameValid(s, len, idn);
}

static bool
FormatHostname(const char *s, int len)
{
	return HostnameCheck(s, len, false);
}

/*
 * An e-mail address (RFC 5321): a dot-atom or quoted local part, then a
 * host. With idn (RFC 6531), non-ASCII code points are atext too and the
 * host is an idn-hostname.
 */
static bool
EmailCheck(const char *s, int len, bool idn)
{
	const char *at = NULL;
	int i;
	int l;

	for (i = len - 1; i >= 0; i--)
		if (s[i] == '@')
		{
			at = s + i;
			break;
		}
	if (at == NULL)
		return false;
	l = at - s;
	if (l == 0 || (!idn && l > 64))
		return false;
	if (s[0] == '"')
	{
		if (l < 2 || s[l - 1] != '"')
			return false;
	}
	else
	{
		if (s[0] == '.' || s[l - 1] == '.')
			return false;
		for (i = 0; i < l; i++)
		{
			char c = s[i];

			if (c == '.' && s[i + 1] == '.')
				return false;
			if (!(isalnum((unsigned char) c) ||
				  strchr("!#$%&'*+-/=?^_`{|}~.", c) ||
				  (idn && (unsigned char) c >= 0x80)))
				return false;
		}
	}
	at++;
	len -= l + 1;
	if (len > 2 && at[0] == '[' && at[len - 1] == ']')
	{
		if (len > 7 && pg_strncasecmp(at + 1, "IPv6:", 5) == 0)
			return FormatIpv6(at + 6, len - 7);
		return FormatIpv4(at + 1, len - 2);
	}
	return HostnameCheck(at, len, idn);
}

static bool
FormatEmail(const char *s, int len)
{
	return EmailCheck(s, len, false);
}

/*
 * Tell whether s[i..] starts a valid percent escape or is one of chars (or,
 * iri, a non-ASCII byte: RFC 3987's ucschar and iprivate).
 */
static bool
UriChar(const char *s, int len, int *i, const char *chars, bool iri)
{
	unsigned char c = s[*i];

	if (c == '%')
	{
		if (*i + 2 >= len || HexDigit(s[*i + 1]) < 0 || HexDigit(s[*i + 2]) < 0)
			return false;
		*i += 2;
		return true;
	}
	if (c >= 0x80)
		return iri;
	return c != '\0' && (isalnum(c) || strchr(chars, c) != NULL);
}

#define URI_UNRESERVED_SUB "-._~!$&'()*+,;="

/*
 * RFC 3986 URI: scheme ":" [ "//" authority ] path [ "?" query ] [ "#"
 * fragment ]; with ref, a relative reference is accepted too (its first path
 * segment has no ":"); with iri, RFC 3987's non-ASCII characters.
 */
static bool
UriCheck(const char *s, int len, bool ref, bool iri)
{
	int i = 0;
	bool scheme = false;

	if (len > 0 && isalpha((unsigned char) s[0]))
	{
		while (i < len && (isalnum((unsigned char) s[i]) || s[i] == '+' ||
						   s[i] == '-' || s[i] == '.'))
			i++;
		scheme = i < len && s[i] == ':';
	}
	if (scheme)
		i++;
	else if (!ref)
		return false;
	else
	{
		/* a relative reference: no ":" before the first "/", "?" or "#" */
		for (i = 0; i < len && s[i] != '/' && s[i] != '?' && s[i] != '#'; i++)
			if (s[i] == ':')
				return false;
		i = 0;
	}
	if (i + 1 < len && s[i] == '/' && s[i + 1] == '/')
	{
		int start = i + 2;
		int end = start;
		int at = -1;
		int h;

		while (end < len && s[end] != '/' && s[end] != '?' && s[end] != '#')
		{
			if (s[end] == '@')
				at = end;
			end++;
		}
		for (i = start; i < at; i++)
			if (!UriChar(s, at, &i, URI_UNRESERVED_SUB ":", iri))
				return false;
		h = at >= 0 ? at + 1 : start;
		if (h < end && s[h] == '[')
		{
			const char *close = memchr(s + h, ']', end - h);

			if (close == NULL)
				return false;
			if (h + 1 < end && (s[h + 1] == 'v' || s[h + 1] == 'V'))
			{
				/* IPvFuture: "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" ) */
				int k = h + 2;
				int c = close - s;

				while (k < c && HexDigit(s[k]) >= 0)
					k++;
				if (k == h + 2 || k >= c || s[k] != '.' || k + 1 == c)
					return false;
				for (k++; k < c; k++)
					if (!(isalnum((unsigned char) s[k]) ||
						  strchr(URI_UNRESERVED_SUB ":", s[k])))
						return false;
			}
			else if (!FormatIpv6(s + h + 1, close - s - h - 1))
				return false;
			i = close - s + 1;
		}
		else
			for (i = h; i < end && s[i] != ':'; i++)
				if (!UriChar(s, end, &i, URI_UNRESERVED_SUB, iri))
					return false;
		if (i < end)
		{
			if (s[i] != ':')
				return false;
			for (i++; i < end; i++)
				if (!isdigit((unsigned char) s[i]))
					return false;
		}
		i = end;
	}
	/* path, then query, then fragment */
	for (; i < len && s[i] != '?' && s[i] != '#'; i++)
		if (!UriChar(s, len, &i, URI_UNRESERVED_SUB ":@/", iri))
			return false;
	if (i < len && s[i] == '?')
		for (i++; i < len && s[i] != '#'; i++)
			if (!UriChar(s, len, &i, URI_UNRESERVED_SUB ":@/?", iri))
				return false;
	if (i < len && s[i] == '#')
		for (i++; i < len; i++)
			if (!UriChar(s, len, &i, URI_UNRESERVED_SUB ":@/?", iri))
				return false;
	return true;
}

static bool
FormatUri(const char *s, int len)
{
	return UriCheck(s, len, false, false);
}

/*
 * RFC 3339 appendix A duration: "P" then years, months, days (each unit
 * following the one before it, none skipped) and "T" hours, minutes,
 * seconds likewise; or weeks alone.
 */
static bool
FormatDuration(const char *s, int len)
{
	static const char date_units[] = "YMD";
	static const char time_units[] = "HMS";
	int i = 1;
	int last = -1;
	bool any = false;

	if (len < 2 || s[0] != 'P')
		return false;
	for (;;)
	{
		int d = i;
		const char *u;

		if (i < len && s[i] == 'T')
			break;
		if (i == len)
			return any;
		while (i < len && isdigit((unsigned char) s[i]))
			i++;
		if (i == d || i == len)
			return false;
		if (s[i] == 'W')
			return !any && i + 1 == len;
		u = strchr(date_units, s[i]);
		if (u == NULL || s[i] == '\0' ||
			(last >= 0 && u - date_units != last + 1))
			return false;
		last = u - date_units;
		any = true;
		i++;
	}
	/* the time part */
	i++;
	last = -1;
	if (i == len)
		return false;
	while (i < len)
	{
		int d = i;
		const char *u;

		while (i < len && isdigit((unsigned char) s[i]))
			i++;
		if (i == d || i == len)
			return false;
		u = strchr(time_units, s[i]);
		if (u == NULL || s[i] == '\0' ||
			(last >= 0 && u - time_units != last + 1))
			return false;
		last = u - time_units;
		i++;
	}
	return true;
}

/* RFC 6901 JSON Pointer: "" or "/"-led tokens, "~" only as ~0 or ~1. */
static bool
FormatJsonPointer(const char *s, int len)
{
	int i;

	if (len > 0 && s[0] != '/')
		return false;
	for (i = 0; i < len; i++)
		if (s[i] == '~' &&
			(i + 1 == len || (s[i + 1] != '0' && s[i + 1] != '1')))
			return false;
	return true;
}

/*
 * Relative JSON Pointer: a non-negative integer (no leading zero) then "#"
 * or a JSON Pointer.
 */
static bool
FormatRelativeJsonPointer(const char *s, int len)
{
	int i = 0;

	while (i < len && isdigit((unsigned char) s[i]))
		i++;
	if (i == 0 || (s[0] == '0' && i > 1))
		return false;
	if (i < len && s[i] == '#')
		return i + 1 == len;
	return FormatJsonPointer(s + i, len - i);
}

/* RFC 6570 URI Template (level 4): literals and {expressions}. */
static bool
FormatUriTemplate(const char *s, int len)
{
	int i = 0;

	while (i < len)
	{
		unsigned char c = s[i];

		if (c == '{')
		{
			i++;
			if (i < len && strchr("+#./;?&", s[i]) && s[i] != '\0')
				i++;
			for (;;)
			{
				int start = i;

				/* varname: varchar *( ["."] varchar ) */
				for (;;)
				{
					if (i < len && s[i] == '%')
					{
						if (i + 2 >= len || HexDigit(s[i + 1]) < 0 ||
							HexDigit(s[i + 2]) < 0)
							return false;
						i += 3;
					}
					else if (i < len &&
							 (isalnum((unsigned char) s[i]) || s[i] == '_'))
						i++;
					else
						return false;
					if (i < len && s[i] == '.' && i + 1 < len &&
						s[i + 1] != '.')
						i++;
					else if (i < len && (isalnum((unsigned char) s[i]) ||
										 s[i] == '_' || s[i] == '%'))
						continue;
					else
						break;
				}
				if (i == start)
					return false;
				if (i < len && s[i] == '*')
					i++;
				else if (i < len && s[i] == ':')
				{
					int d = ++i;

					if (i >= len || s[i] < '1' || s[i] > '9')
						return false;
					while (i < len && isdigit((unsigned char) s[i]))
						i++;
					if (i - d > 4)
						return false;
				}
				if (i < len && s[i] == ',')
				{
					i++;
					continue;
				}
				if (i < len && s[i] == '}')
				{
					i++;
					break;
				}
				return false;
			}
		}
		else if (c == '%')
		{
			if (i + 2 >= len || HexDigit(s[i + 1]) < 0 ||
				HexDigit(s[i + 2]) < 0)
				return false;
			i += 3;
		}
		else if (c <= 0x20 || c == 0x7F || strchr("\"<>\\^`|}", c))
			return false;
		else
			i++;
	}
	return true;
}

/* An ECMA-262 regular expression (one the "pattern" keyword would read). */
static bool
FormatRegex(const char *s, int len)
{
	MemoryContext cxt = AllocSetContextCreate(
		CurrentMemoryContext, "docmodel format regex", ALLOCSET_SMALL_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	EcmaStatus st;
	char *err;

	(void) DocmodelRegexCompile(s, len, &st, &err);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
	return st != ECMA_SYNTAX;
}

static bool
FormatValid(VFormat f, const char *s, int len)
{
	switch (f)
	{
		case F_DATE_TIME:
			return DocmodelIsRfc3339(s, len, ISO_DATE | ISO_TIME);
		case F_DATE:
			return DocmodelIsRfc3339(s, len, ISO_DATE);
		case F_TIME:
			return DocmodelIsRfc3339(s, len, ISO_TIME);
		case F_EMAIL:
			return FormatEmail(s, len);
		case F_IDN_EMAIL:
			return EmailCheck(s, len, true);
		case F_UUID:
			return FormatUuid(s, len);
		case F_IPV4:
			return FormatIpv4(s, len);
		case F_IPV6:
			return FormatIpv6(s, len);
		case F_URI:
			return FormatUri(s, len);
		case F_URI_REFERENCE:
			return UriCheck(s, len, true, false);
		case F_IRI:
			return UriCheck(s, len, false, true);
		case F_IRI_REFERENCE:
			return UriCheck(s, len, true, true);
		case F_HOSTNAME:
			return FormatHostname(s, len);
		case F_IDN_HOSTNAME:
			return HostnameCheck(s, len, true);
		case F_DURATION:
			return FormatDuration(s, len);
		case F_JSON_POINTER:
			return FormatJsonPointer(s, len);
		case F_RELATIVE_JSON_POINTER:
			return FormatRelativeJsonPointer(s, len);
		case F_URI_TEMPLATE:
			return FormatUriTemplate(s, len);
		case F_REGEX:
			return FormatRegex(s, len);
		default:
			return true;
	}
}

/* ---------------------------------------------------------------------
 * Validation
 * ---------------------------------------------------------------------
 */

typedef struct VCtx
{
	bool collect; /* list violations (false: stop at the first) */
	List **errors;
	int max_errors;
	int nerrors;
	StringInfoData ipath; /* instance path of the value being checked */
	uint64 run;           /* this validation (VNode.active_run) */
	bool dynamic;         /* keep the dynamic scope */
	const char **scope;   /* the resources entered, outermost first */
	int nscope;
	int scope_cap;
	struct RefHop *hops; /* the references being followed, innermost first */
	bool output;         /* Report: the "basic" output's locations too */
	VNode *entered;      /* ValidateWatched has entered this node */
} VCtx;

static uint64 ValidateRuns = 0;

/* A reference being followed: from n's keyword kw to its target. */
typedef struct RefHop
{
	VNode *from;
	VNode *to;
	const char *kw;
	struct RefHop *up;
} RefHop;

static bool ValidateNode(VCtx *cx, VNode *n, JsonbValue *v);
static VNode *DynamicTarget(VCtx *cx, VNode *n);

static void pg_attribute_printf(4, 5)
	Report(VCtx *cx, VNode *n, const char *kw, const char *fmt, ...)
{
	DocmodelViolation *e;
	StringInfoData msg;
	StringInfoData sp;

	if (cx->max_errors > 0 && cx->nerrors >= cx->max_errors)
		return;
	cx->nerrors++;
	initStringInfo(&msg);
	for (;;)
	{
		va_list args;
		int needed;

		va_start(args, fmt);
		needed = appendStringInfoVA(&msg, fmt, args);
		va_end(args);
		if (needed == 0)
			break;
		enlargeStringInfo(&msg, needed);
	}
	initStringInfo(&sp);
	appendStringInfoString(&sp, n->loc);
	if (kw != NULL)
		DocmodelJsonPointerAppendToken(&sp, kw, strlen(kw));
	e = palloc0(sizeof(DocmodelViolation));
	e->path = pstrdup(cx->ipath.data);
	e->schema_path = sp.data;
	e->message = msg.data;
	if (cx->output)
	{
		StringInfoData kl;
		RefHop *h;
		int nh = 0;
		int i;
		RefHop **hv;
		const char *start = "";

		/* the path taken: each reference's keyword, from the root */
		for (h = cx->hops; h; h = h->up)
			nh++;
		hv = palloc(sizeof(RefHop *) * Max(nh, 1));
		for (h = cx->hops, i = nh - 1; h; h = h->up, i--)
			hv[i] = h;
		initStringInfo(&kl);
		for (i = 0; i < nh; i++)
		{
			const char *from = hv[i]->from->loc;

			if (strncmp(from, start, strlen(start)) == 0)
				from += strlen(start);
			appendStringInfoString(&kl, from);
			DocmodelJsonPointerAppendToken(&kl, hv[i]->kw, strlen(hv[i]->kw));
			start = hv[i]->to->loc;
		}
		appendStringInfoString(&kl, strncmp(sp.data, start, strlen(start)) == 0
										? sp.data + strlen(start)
										: sp.data);
		e->keyword_location = kl.data;
		if (n->res_uri && n->res_uri[0] &&
			strncmp(sp.data, n->res_loc, strlen(n->res_loc)) == 0)
			e->absolute_location =
				psprintf("%s#%s", n->res_uri, sp.data + strlen(n->res_loc));
	}
	*cx->errors = lappend(*cx->errors, e);
}

/* Record a violation of n's keyword kw, or stop at the first. */
/* A check of a subschema: ok false when it fails, stop unless collecting. */
#define CHECK(passed)         \
	do                        \
	{                         \
		if (!(passed))        \
		{                     \
			ok = false;       \
			if (!cx->collect) \
				return false; \
		}                     \
	} while (0)

#define FAIL(cx, n, kw, ...)                  \
	do                                        \
	{                                         \
		if (!(cx)->collect)                   \
			return false;                     \
		Report((cx), (n), (kw), __VA_ARGS__); \
		ok = false;                           \
	} while (0)

static int
NumCmp(Numeric a, Numeric b)
{
	return DatumGetInt32(DirectFunctionCall2(numeric_cmp, NumericGetDatum(a),
											 NumericGetDatum(b)));
}

static char *
NumText(Numeric n)
{
	return DatumGetCString(
		DirectFunctionCall1(numeric_out, NumericGetDatum(n)));
}

static bool
NumIsIntegral(Numeric n)
{
	Datum f;

	if (numeric_is_nan(n) || numeric_is_inf(n))
		return false;
	if (DatumGetInt32(DirectFunctionCall1(numeric_scale, NumericGetDatum(n))) ==
		0)
		return true; /* no digits after the point */
	f = DirectFunctionCall1(numeric_floor, NumericGetDatum(n));
	return NumCmp(DatumGetNumeric(f), n) == 0;
}

static int
TypeOf(JsonbValue *v)
{
	switch (v->type)
	{
		case jbvNull:
			return T_NULL;
		case jbvBool:
			return T_BOOLEAN;
		case jbvString:
			return T_STRING;
		case jbvNumeric:
			return T_NUMBER;
		case jbvBinary:
			return JsonContainerIsObject(v->val.binary.data) ? T_OBJECT
															 : T_ARRAY;
		default:
			return T_OBJECT;
	}
}

/* Run n over v without listing violations. */
static bool
Quietly(VCtx *cx, VNode *n, JsonbValue *v)
{
	bool saved = cx->collect;
	bool ok;

	cx->collect = false;
	ok = ValidateNode(cx, n, v);
	cx->collect = saved;
	return ok;
}

/* Push a member name / index onto the instance path; return the old length. */
static int
PushKey(VCtx *cx, const char *k, int len)
{
	int old = cx->ipath.len;

	if (cx->collect)
		DocmodelJsonPointerAppendToken(&cx->ipath, k, len);
	return old;
}

static int
PushIndex(VCtx *cx, int i)
{
	int old = cx->ipath.len;

	if (cx->collect)
		appendStringInfo(&cx->ipath, "/%d", i);
	return old;
}

static void
Pop(VCtx *cx, int old)
{
	if (cx->ipath.data == NULL)
		return; /* not collecting: no path kept */
	cx->ipath.len = old;
	cx->ipath.data[old] = '\0';
}

static bool
ValidateString(VCtx *cx, VNode *n, JsonbValue *v)
{
	bool ok = true;
	const char *s = v->val.string.val;
	int len = v->val.string.len;

	/*
	 * A string has between len / (the encoding's longest character) and len
	 * characters: they are counted only when that does not decide.
	 */
	if ((n->max_length >= 0 && len > n->max_length) ||
		(n->min_length >= 0 && (len + pg_database_encoding_max_length() - 1) /
									   pg_database_encoding_max_length() <
								   n->min_length))
	{
		int chars = pg_mbstrlen_with_len(s, len);

		if (n->min_length >= 0 && chars < n->min_length)
			FAIL(cx, n, "minLength",
				 "must be at least " INT64_FORMAT " characters long, not %d",
				 n->min_length, chars);
		if (n->max_length >= 0 && chars > n->max_length)
			FAIL(cx, n, "maxLength",
				 "must be at most " INT64_FORMAT " characters long, not %d",
				 n->max_length, chars);
	}
	if (n->pattern.re != NULL && !PatternMatches(&n->pattern, s, len))
		FAIL(cx, n, "pattern", "must match the pattern \"%s\"", n->pattern.src);
	if (n->format != F_NONE && !FormatValid(n->format, s, len))
		FAIL(cx, n, "format", "must be a valid %s", FormatNames[n->format]);
	return ok;
}

static bool
ValidateNumber(VCtx *cx, VNode *n, JsonbValue *v)
{
	bool ok = true;
	Numeric x = v->val.numeric;

	if (n->minimum && NumCmp(x, n->minimum) < 0)
		FAIL(cx, n, "minimum", "must be >= %s", NumText(n->minimum));
	if (n->maximum && NumCmp(x, n->maximum) > 0)
		FAIL(cx, n, "maximum", "must be <= %s", NumText(n->maximum));
	if (n->xminimum && NumCmp(x, n->xminimum) <= 0)
		FAIL(cx, n, "exclusiveMinimum", "must be > %s", NumText(n->xminimum));
	if (n->xmaximum && NumCmp(x, n->xmaximum) >= 0)
		FAIL(cx, n, "exclusiveMaximum", "must be < %s", NumText(n->xmaximum));
	if (n->multiple_of)
	{
		Datum r = DirectFunctionCall2(numeric_mod, NumericGetDatum(x),
									  NumericGetDatum(n->multiple_of));

		if (NumCmp(DatumGetNumeric(r), int64_to_numeric(0)) != 0)
			FAIL(cx, n, "multipleOf", "must be a multiple of %s",
				 NumText(n->multiple_of));
	}
	return ok;
}

/*
 * The hash of an instance's item (a scalar, or a container as stored),
 * consistent with JsonTreeEqual: jsonb_hash's, which jsonb's = agrees with
 * (numerics by value, object keys in their stored order).
 */
static uint32
ItemHash(void *items, int i)
{
	JsonbValue *v = &((JsonbValue *) items)[i];
	JsonbIterator *it;
	JsonbIteratorToken tok;
	JsonbValue x;
	uint32 h = 0;

	if (v->type != jbvBinary)
	{
		JsonbHashScalarValue(v, &h);
		return h;
	}
	it = JsonbIteratorInit(v->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &x, false)) != WJB_DONE)
		switch (tok)
		{
			case WJB_BEGIN_ARRAY:
				h ^= JB_FARRAY;
				break;
			case WJB_BEGIN_OBJECT:
				h ^= JB_FOBJECT;
				break;
			case WJB_KEY:
			case WJB_VALUE:
			case WJB_ELEM:
				JsonbHashScalarValue(&x, &h);
				break;
			default:
				break;
		}
	return h;
}

static bool
ItemEqual(void *items, int i, int j)
{
	return DocmodelJsonTreeEqual(&((JsonbValue *) items)[i],
								 &((JsonbValue *) items)[j]);
}

static bool
ValidateArray(VCtx *cx, VNode *n, JsonbValue *v)
{
	bool ok = true;
	JsonbContainer *c = v->val.binary.data;
	int size = JsonContainerSize(c);
	int i;
	int old;
	JsonbValue *elems = NULL;

	if (n->min_items >= 0 && size < n->min_items)
		FAIL(cx, n, "minItems",
			 "must have at least " INT64_FORMAT " items, not %d", n->min_items,
			 size);
	if (n->max_items >= 0 && size > n->max_items)
		FAIL(cx, n, "maxItems",
			 "must have at most " INT64_FORMAT " items, not %d", n->max_items,
			 size);
	if (size > 0 && (n->unique || n->contains || n->prefix.n > 0 || n->items))
	{
		/* the elements, read from the entries (no iterator) */
		JEntry *children = c->children;
		char *base = (char *) (children + size);
		uint32 o = 0;

		elems = MemoryContextAllocHuge(CurrentMemoryContext,
									   sizeof(JsonbValue) * size);
		for (i = 0; i < size; i++)
		{
			uint32 start = o;

			if ((i & 4095) == 0)
				CHECK_FOR_INTERRUPTS();
			JBE_ADVANCE_OFFSET(o, children[i]);
			DocmodelJsonTreeEntryValue(children[i], base, start, o - start,
									   &elems[i]);
		}
	}
	if (n->unique && size > 1)
	{
		int j;

		/* one report: the first item equal to an earlier one */
		if ((i = FirstDuplicate(elems, size, ItemHash, ItemEqual, &j)) >= 0)
			FAIL(cx, n, "uniqueItems",
				 "must have unique items (items %d and %d are equal)", j, i);
	}
	for (i = 0; i < size && i < n->prefix.n; i++)
	{
		old = PushIndex(cx, i);
		CHECK(ValidateNode(cx, n->prefix.s[i], &elems[i]));
		Pop(cx, old);
	}
	if (n->items)
		for (i = Max(n->prefix.n, 0); i < size; i++)
		{
			old = PushIndex(cx, i);
			CHECK(ValidateNode(cx, n->items, &elems[i]));
			Pop(cx, old);
		}
	if (n->contains)
	{
		int64 matches = 0;
		int64 min = n->min_contains >= 0 && !n->draft7 ? n->min_contains : 1;

		for (i = 0; i < size; i++)
			if (Quietly(cx, n->contains, &elems[i]))
				matches++;
		if (matches < min)
		{
			if (n->min_contains >= 0 && !n->draft7)
				FAIL(cx, n, "minContains",
					 "must contain at least " INT64_FORMAT
					 " items matching \"contains\", not " INT64_FORMAT,
					 min, matches);
			else
				FAIL(cx, n, "contains",
					 "must contain an item matching \"contains\"");
		}
		if (!n->draft7 && n->max_contains >= 0 && matches > n->max_contains)
			FAIL(cx, n, "maxContains",
				 "must contain at most " INT64_FORMAT
				 " items matching \"contains\", not " INT64_FORMAT,
				 n->max_contains, matches);
	}
	return ok;
}

/* Find name in a sorted VProp array. */
static VProp *
FindProp(VProp *props, int n, const char *k, int len)
{
	VProp key;

	if (n == 0)
		return NULL;
	key.name = (char *) k;
	key.len = len;
	return bsearch(&key, props, n, sizeof(VProp), PropCmp);
}

/* Objects up to this many members per property are matched in one pass. */
#define PASS_MEMBERS_PER_PROP 4
#define PASS_STACK_PROPS 32

/*
 * Find the members of object c named by props (sorted as jsonb sorts keys)
 * in one forward pass over c's keys (getKeyJsonValueFromContainer's binary
 * search per name costs more, on small objects, than the rest of the
 * validation): at[i] the pair index of props[i], -1 when absent; the pair
 * indexes found increase with i. Return the offset of c's first value.
 */
static uint32
PassProps(JsonbContainer *c, const VProp *props, int nprops, int *at)
{
	uint32 count = JsonContainerSize(c);
	JEntry *children = c->children;
	char *base = (char *) (children + count * 2);
	uint32 o = 0;
	uint32 i;
	int j = 0;

	for (i = 0; i < count; i++)
	{
		uint32 start = o;
		int klen;

		JBE_ADVANCE_OFFSET(o, children[i]);
		klen = o - start;
		/* the names before this key are absent */
		while (j < nprops)
		{
			int cmp = props[j].len != klen
						  ? (props[j].len < klen ? -1 : 1)
						  : memcmp(props[j].name, base + start, klen);

			if (cmp < 0)
				at[j++] = -1;
			else
			{
				if (cmp == 0)
					at[j++] = i;
				break;
			}
		}
	}
	while (j < nprops)
		at[j++] = -1;
	return o;
}

static bool
ValidateObject(VCtx *cx, VNode *n, JsonbValue *v)
{
	bool ok = true;
	JsonbContainer *c = v->val.binary.data;
	int size = JsonContainerSize(c);
	int i;
	int old;
	JsonbValue val;
	bool only;
	bool found;
	bool pass;
	int at_buf[PASS_STACK_PROPS];
	int *at = at_buf;
	uint32 vo = 0; /* the offset of value vi */
	int vi = 0;

	/*
	 * An object not much larger than the properties named: one pass finds
	 * them, for the properties (when nothing else applies to members) and
	 * the required names among them.
	 */
	only =
		n->npatterns == 0 && n->additional == NULL && n->property_names == NULL;
	found = n->nprops > 0 && (only || n->req_prop != NULL) &&
			size <= PASS_MEMBERS_PER_PROP * n->nprops + 16;
	if (found)
	{
		if (n->nprops > PASS_STACK_PROPS)
			at = palloc(sizeof(int) * n->nprops);
		vo = PassProps(c, n->props, n->nprops, at);
	}
	pass = found && only;

	if (n->min_props >= 0 && size < n->min_props)
		FAIL(cx, n, "minProperties",
			 "must have at least " INT64_FORMAT " properties, not %d",
			 n->min_props, size);
	if (n->max_props >= 0 && size > n->max_props)
		FAIL(cx, n, "maxProperties",
			 "must have at most " INT64_FORMAT " properties, not %d",
			 n->max_props, size);
	for (i = 0; i < n->nrequired; i++)
	{
		bool has;

		CHECK_FOR_INTERRUPTS();
		if (found && n->req_prop != NULL && n->req_prop[i] >= 0)
			has = at[n->req_prop[i]] >= 0;
		else
			has = getKeyJsonValueFromContainer(
					  c, n->required[i].name, n->required[i].len, &val) != NULL;
		if (!has)
			FAIL(cx, n, "required", "must have the property \"%.*s\"",
				 n->required[i].len, n->required[i].name);
	}
	for (i = 0; i < n->ndep_required; i++)
	{
		VProp *d = &n->dep_required[i];
		int j;

		CHECK_FOR_INTERRUPTS();
		if (getKeyJsonValueFromContainer(c, d->name, d->len, &val) == NULL)
			continue;
		for (j = 0; j < d->nnames; j++)
		{
			CHECK_FOR_INTERRUPTS();
			if (getKeyJsonValueFromContainer(c, d->names[j], d->lens[j],
											 &val) == NULL)
				FAIL(cx, n,
					 i < n->ndep_required_d7 ? "dependencies"
											 : n->dep_required_kw,
					 "must have the property \"%.*s\" when \"%.*s\" is present",
					 d->lens[j], d->names[j], d->len, d->name);
		}
	}
	for (i = 0; i < n->ndep_schemas; i++)
	{
		VProp *d = &n->dep_schemas[i];

		if (getKeyJsonValueFromContainer(c, d->name, d->len, &val) == NULL)
			continue;
		CHECK(ValidateNode(cx, d->schema, v));
	}
	if (pass)
	{
		/* only properties: found by the pass, their values in order */
		for (i = 0; i < n->nprops; i++)
		{
			VProp *p = &n->props[i];
			uint32 start;

			CHECK_FOR_INTERRUPTS();
			if (at[i] < 0)
				continue;
			for (; vi < at[i]; vi++)
				JBE_ADVANCE_OFFSET(vo, c->children[size + vi]);
			start = vo;
			JBE_ADVANCE_OFFSET(vo, c->children[size + vi]);
			vi++;
			DocmodelJsonTreeEntryValue(c->children[size + at[i]],
									   (char *) (c->children + size * 2), start,
									   vo - start, &val);
			old = PushKey(cx, p->name, p->len);
			CHECK(ValidateNode(cx, p->schema, &val));
			Pop(cx, old);
		}
	}
	else if (n->nprops > 0 && only)
	{
		/* only properties, a large object: look each one up */
		for (i = 0; i < n->nprops; i++)
		{
			VProp *p = &n->props[i];

			CHECK_FOR_INTERRUPTS();
			if (getKeyJsonValueFromContainer(c, p->name, p->len, &val) == NULL)
				continue;
			old = PushKey(cx, p->name, p->len);
			CHECK(ValidateNode(cx, p->schema, &val));
			Pop(cx, old);
		}
	}
	else if (n->nprops > 0 || n->npatterns > 0 || n->additional ||
			 n->property_names)
	{
		/* each member in order, read from the entries (no iterator) */
		JEntry *children = c->children;
		char *base = (char *) (children + size * 2);
		uint32 ko = 0;
		uint32 vo = size > 0 ? getJsonbOffset(c, size) : 0;
		JsonbValue key;

		key.type = jbvString;
		for (i = 0; i < size; i++)
		{
			bool matched = false;
			uint32 kstart = ko;
			uint32 vstart = vo;
			VProp *p;
			int j;

			CHECK_FOR_INTERRUPTS();
			JBE_ADVANCE_OFFSET(ko, children[i]);
			JBE_ADVANCE_OFFSET(vo, children[size + i]);
			key.val.string.val = base + kstart;
			key.val.string.len = ko - kstart;
			DocmodelJsonTreeEntryValue(children[size + i], base, vstart,
									   vo - vstart, &val);
			old = PushKey(cx, key.val.string.val, key.val.string.len);
			if (n->property_names)
				CHECK(ValidateNode(cx, n->property_names, &key));
			p = FindProp(n->props, n->nprops, key.val.string.val,
						 key.val.string.len);
			if (p != NULL)
			{
				matched = true;
				CHECK(ValidateNode(cx, p->schema, &val));
			}
			for (j = 0; j < n->npatterns; j++)
				if (PatternMatches(&n->patterns[j], key.val.string.val,
								   key.val.string.len))
				{
					matched = true;
					CHECK(ValidateNode(cx, n->patterns[j].schema, &val));
				}
			if (!matched && n->additional)
			{
				if (n->additional->boolean == 0)
				{
					Pop(cx, old);
					FAIL(cx, n, "additionalProperties",
						 "must not have the property \"%.*s\"",
						 key.val.string.len, key.val.string.val);
					old = PushKey(cx, key.val.string.val, key.val.string.len);
				}
				else
					CHECK(ValidateNode(cx, n->additional, &val));
			}
			Pop(cx, old);
		}
	}
	return ok;
}

/* Tell whether v equals c (a const or enum value; see ConstValue). */
static bool
ValueEquals(JsonbValue *v, JsonbValue *c)
{
	JsonbValue a = *v;
	JsonbValue b = *c;

	if ((a.type == jbvBinary) != (b.type == jbvBinary))
		return false;
	return DocmodelJsonTreeEqual(&a, &b);
}

/*
 * unevaluatedProperties / unevaluatedItems: the annotations of the
 * in-place applicators. Mark in seen the members (items) of v that n or a
 * subschema applied in place evaluates: properties, patternProperties,
 * additionalProperties, a nested unevaluatedProperties (prefixItems, items,
 * contains, unevaluatedItems), through $ref, allOf, the branches of anyOf
 * and oneOf that v passes, if with then or else, and dependentSchemas.
 * self: n is the schema whose own unevaluated* keyword is being checked.
 */
static void
CollectProps(VCtx *cx, VNode *n, JsonbValue *v, bool *seen, int size, bool self)
{
	JsonbContainer *c = v->val.binary.data;
	JsonbValue val;
	int i;

	if (n == NULL || n->boolean >= 0)
		return;
	check_stack_depth();
	CHECK_FOR_INTERRUPTS();
	if (n->ref)
		CollectProps(cx, n->ref, v, seen, size, false);
	if (n->dref)
		CollectProps(cx, n->ndyn > 0 ? DynamicTarget(cx, n) : n->dref, v, seen,
					 size, false);
	if (n->additional || (n->uneval_props && !self))
		memset(seen, true, size);
	else if (n->nprops > 0 || n->npatterns > 0)
	{
		JsonbIterator *it = JsonbIteratorInit(c);
		JsonbIteratorToken tok;
		JsonbValue key;
		int k = 0;

		while ((tok = JsonbIteratorNext(&it, &key, true)) != WJB_DONE)
		{
			int j;

			if (tok != WJB_KEY)
				continue;
			CHECK_FOR_INTERRUPTS();
			if (FindProp(n->props, n->nprops, key.val.string.val,
						 key.val.string.len))
				seen[k] = true;
			for (j = 0; j < n->npatterns && !seen[k]; j++)
				if (PatternMatches(&n->patterns[j], key.val.string.val,
								   key.val.string.len))
					seen[k] = true;
			k++;
		}
	}
	for (i = 0; i < n->all_of.n; i++)
		CollectProps(cx, n->all_of.s[i], v, seen, size, false);
	for (i = 0; i < n->any_of.n; i++)
		if (Quietly(cx, n->any_of.s[i], v))
			CollectProps(cx, n->any_of.s[i], v, seen, size, false);
	for (i = 0; i < n->one_of.n; i++)
		if (Quietly(cx, n->one_of.s[i], v))
			CollectProps(cx, n->one_of.s[i], v, seen, size, false);
	if (n->if_)
	{
		if (Quietly(cx, n->if_, v))
		{
			CollectProps(cx, n->if_, v, seen, size, false);
			CollectProps(cx, n->then_, v, seen, size, false);
		}
		else
			CollectProps(cx, n->else_, v, seen, size, false);
	}
	for (i = 0; i < n->ndep_schemas; i++)
		if (getKeyJsonValueFromContainer(c, n->dep_schemas[i].name,
										 n->dep_schemas[i].len, &val))
			CollectProps(cx, n->dep_schemas[i].schema, v, seen, size, false);
}

static void
CollectItems(VCtx *cx, VNode *n, JsonbValue *elems, bool *seen, int size,
			 JsonbValue *v, bool self)
{
	int i;

	if (n == NULL || n->boolean >= 0)
		return;
	check_stack_depth();
	CHECK_FOR_INTERRUPTS();
	if (n->ref)
		CollectItems(cx, n->ref, elems, seen, size, v, false);
	if (n->dref)
		CollectItems(cx, n->ndyn > 0 ? DynamicTarget(cx, n) : n->dref, elems,
					 seen, size, v, false);
	if (n->items || (n->uneval_items && !self))
		memset(seen, true, size);
	else
		for (i = 0; i < n->prefix.n && i < size; i++)
			seen[i] = true;
	if (n->contains)
		for (i = 0; i < size; i++)
			if (!seen[i] && Quietly(cx, n->contains, &elems[i]))
				seen[i] = true;
	for (i = 0; i < n->all_of.n; i++)
		CollectItems(cx, n->all_of.s[i], elems, seen, size, v, false);
	for (i = 0; i < n->any_of.n; i++)
		if (Quietly(cx, n->any_of.s[i], v))
			CollectItems(cx, n->any_of.s[i], elems, seen, size, v, false);
	for (i = 0; i < n->one_of.n; i++)
		if (Quietly(cx, n->one_of.s[i], v))
			CollectItems(cx, n->one_of.s[i], elems, seen, size, v, false);
	if (n->if_)
	{
		if (Quietly(cx, n->if_, v))
		{
			CollectItems(cx, n->if_, elems, seen, size, v, false);
			CollectItems(cx, n->then_, elems, seen, size, v, false);
		}
		else
			CollectItems(cx, n->else_, elems, seen, size, v, false);
	}
}

/* Apply n's unevaluatedProperties to the members nothing else evaluated. */
static bool
ValidateUnevaluatedProps(VCtx *cx, VNode *n, JsonbValue *v)
{
	bool ok = true;
	JsonbContainer *c = v->val.binary.data;
	int size = JsonContainerSize(c);
	bool *seen;
	JsonbIterator *it;
	JsonbIteratorToken tok;
	JsonbValue key;
	JsonbValue val;
	int k = 0;

	if (size == 0)
		return true;
	seen = palloc0(size);
	CollectProps(cx, n, v, seen, size, true);
	it = JsonbIteratorInit(c);
	while ((tok = JsonbIteratorNext(&it, &key, true)) != WJB_DONE)
	{
		int old;

		if (tok != WJB_KEY)
			continue;
		tok = JsonbIteratorNext(&it, &val, true);
		if (seen[k++])
			continue;
		CHECK_FOR_INTERRUPTS();
		if (n->uneval_props->boolean == 0)
		{
			FAIL(cx, n, "unevaluatedProperties",
				 "must not have the unevaluated property \"%.*s\"",
				 key.val.string.len, key.val.string.val);
			continue;
		}
		old = PushKey(cx, key.val.string.val, key.val.string.len);
		CHECK(ValidateNode(cx, n->uneval_props, &val));
		Pop(cx, old);
	}
	pfree(seen);
	return ok;
}

/* Apply n's unevaluatedItems to the items nothing else evaluated. */
static bool
ValidateUnevaluatedItems(VCtx *cx, VNode *n, JsonbValue *v)
{
	bool ok = true;
	JsonbContainer *c = v->val.binary.data;
	int size = JsonContainerSize(c);
	JsonbValue *elems;
	bool *seen;
	JsonbIterator *it;
	JsonbIteratorToken tok;
	JsonbValue e;
	int i = 0;

	if (size == 0)
		return true;
	elems =
		MemoryContextAllocHuge(CurrentMemoryContext, sizeof(JsonbValue) * size);
	it = JsonbIteratorInit(c);
	while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
		if (tok == WJB_ELEM)
			elems[i++] = e;
	seen = palloc0(size);
	CollectItems(cx, n, elems, seen, size, v, true);
	for (i = 0; i < size; i++)
	{
		int old;

		if (seen[i])
			continue;
		CHECK_FOR_INTERRUPTS();
		if (n->uneval_items->boolean == 0)
		{
			FAIL(cx, n, "unevaluatedItems",
				 "must not have the unevaluated item %d", i);
			continue;
		}
		old = PushIndex(cx, i);
		CHECK(ValidateNode(cx, n->uneval_items, &elems[i]));
		Pop(cx, old);
	}
	pfree(seen);
	pfree(elems);
	return ok;
}

/* The target of n's $dynamicRef / $recursiveRef in the current scope. */
static VNode *
DynamicTarget(VCtx *cx, VNode *n)
{
	int i;
	int k;

	for (i = 0; i < cx->nscope; i++)
		for (k = 0; k < n->ndyn; k++)
			if (strcmp(n->dyn[k].uri, cx->scope[i]) == 0)
				return n->dyn[k].node;
	return n->dref;
}

/*
 * A document came back to n on the same value through a loop of
 * applicators (CheckLoops): validating it would never finish.
 */
static void
LoopError(VCtx *cx, VNode *n)
{
	const char *via = cx->hops ? cx->hops->from->loc : "";
	const char *kw = cx->hops ? cx->hops->kw : "$ref";

	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("JSON Schema at \"%s\": \"%s\" at \"%s/%s\" loops "
					"back to it without descending into the value",
					n->loc[0] ? n->loc : "/", kw, via, kw),
			 cx->collect ? errdetail("The value is at \"%s\".",
									 cx->ipath.len ? cx->ipath.data : "/")
						 : 0));
}

/*
 * ValidateNode of a watched node (a loop's guard, or any node of a schema
 * that keeps the dynamic scope): enter the node's resource into the scope,
 * refuse a second visit on the same value, then validate as usual
 * (cx->entered tells ValidateNode the watch is done).
 */
static bool
ValidateWatched(VCtx *cx, VNode *n, JsonbValue *v)
{
	JsonbValue *pv = n->active_v;
	uint64 pr = n->active_run;
	bool ok;
	bool pushed = false;

	if (cx->dynamic && n->res_uri != NULL &&
		(cx->nscope == 0 || strcmp(cx->scope[cx->nscope - 1], n->res_uri) != 0))
	{
		if (cx->nscope == cx->scope_cap)
		{
			cx->scope_cap = Max(16, cx->scope_cap * 2);
			cx->scope =
				cx->scope ? repalloc(cx->scope, sizeof(char *) * cx->scope_cap)
						  : palloc(sizeof(char *) * cx->scope_cap);
		}
		cx->scope[cx->nscope++] = n->res_uri;
		pushed = true;
	}
	if (n->loop_guard)
	{
		if (pr == cx->run && pv == v)
			LoopError(cx, n);
		n->active_v = v;
		n->active_run = cx->run;
	}
	cx->entered = n;
	ok = ValidateNode(cx, n, v);
	if (n->loop_guard)
	{
		n->active_v = pv;
		n->active_run = pr;
	}
	if (pushed)
		cx->nscope--;
	return ok;
}

/* Validate v against n, listing violations when cx->collect. */
static bool
ValidateNode(VCtx *cx, VNode *n, JsonbValue *v)
{
	bool ok = true;
	int t;
	int i;

	if (unlikely(n->watch))
	{
		if (cx->entered != n)
			return ValidateWatched(cx, n, v);
		cx->entered = NULL;
	}
	check_stack_depth();
	CHECK_FOR_INTERRUPTS();
	if (n->boolean >= 0)
	{
		if (n->boolean == 0)
			FAIL(cx, n, NULL, "no value is allowed here");
		return ok;
	}
	if (n->ref)
	{
		RefHop hop = {n, n->ref, "$ref", cx->hops};
		bool r;

		cx->hops = &hop;
		r = ValidateNode(cx, n->ref, v);
		cx->hops = hop.up;
		CHECK(r);
		if (n->draft7)
			return ok;
	}
	if (n->dref)
	{
		RefHop hop = {n, n->ndyn > 0 ? DynamicTarget(cx, n) : n->dref,
					  n->dref_kw, cx->hops};
		bool r;

		cx->hops = &hop;
		r = ValidateNode(cx, hop.to, v);
		cx->hops = hop.up;
		CHECK(r);
	}
	t = TypeOf(v);
	if (n->types)
	{
		int match = n->types & t;

		if (!match && t == T_NUMBER && (n->types & T_INTEGER) &&
			NumIsIntegral(v->val.numeric))
			match = 1;
		if (!match)
		{
			StringInfoData names;
			int k;

			if (!cx->collect)
				return false;
			initStringInfo(&names);
			for (k = 0; k < lengthof(TypeNames); k++)
				if (n->types & (1 << k))
					appendStringInfo(&names, "%s%s", names.len ? " or " : "",
									 TypeNames[k]);
			FAIL(cx, n, "type", "must be of type %s, not %s", names.data,
				 DocmodelJsonTreeTypeName(v));
		}
	}
	if (n->nenum >= 0)
	{
		for (i = 0; i < n->nenum; i++)
		{
			CHECK_FOR_INTERRUPTS();
			if (ValueEquals(v, &n->enums[i]))
				break;
		}
		if (i == n->nenum)
			FAIL(cx, n, "enum", "must be one of the values of \"enum\"");
	}
	if (n->has_const && !ValueEquals(v, &n->constv))
		FAIL(cx, n, "const", "must be equal to the value of \"const\"");

	if (t == T_STRING)
		CHECK(ValidateString(cx, n, v));
	else if (t == T_NUMBER)
		CHECK(ValidateNumber(cx, n, v));
	else if (t == T_ARRAY)
		CHECK(ValidateArray(cx, n, v));
	else if (t == T_OBJECT)
		CHECK(ValidateObject(cx, n, v));

	for (i = 0; i < n->all_of.n; i++)
		CHECK(ValidateNode(cx, n->all_of.s[i], v));
	if (n->any_of.n > 0)
	{
		for (i = 0; i < n->any_of.n; i++)
			if (Quietly(cx, n->any_of.s[i], v))
				break;
		if (i == n->any_of.n)
			FAIL(cx, n, "anyOf", "must match at least one schema of \"anyOf\"");
	}
	if (n->one_of.n > 0)
	{
		int matches = 0;
		int first = -1;

		for (i = 0; i < n->one_of.n && matches < 2; i++)
			if (Quietly(cx, n->one_of.s[i], v))
			{
				if (matches++ == 0)
					first = i;
				else
					FAIL(cx, n, "oneOf",
						 "must match exactly one schema of \"oneOf\", not "
						 "schemas %d and %d",
						 first, i);
			}
		if (matches == 0)
			FAIL(cx, n, "oneOf", "must match exactly one schema of \"oneOf\"");
	}
	if (n->not &&Quietly(cx, n->not, v))
		FAIL(cx, n, "not", "must not match the schema of \"not\"");
	if (n->if_)
	{
		VNode *branch = Quietly(cx, n->if_, v) ? n->then_ : n->else_;

		if (branch)
			CHECK(ValidateNode(cx, branch, v));
	}
	if (n->uneval_props && t == T_OBJECT)
		CHECK(ValidateUnevaluatedProps(cx, n, v));
	if (n->uneval_items && t == T_ARRAY)
		CHECK(ValidateUnevaluatedItems(cx, n, v));
	return ok;
}

/* Validate an instance; see validate.h. */
bool
DocmodelSchemaValidate(DocmodelSchema *s, Jsonb *instance, List **errors,
					   int max_errors)
{
	VCtx cx = {0};
	JsonbValue v;

	cx.collect = errors != NULL;
	cx.errors = errors;
	cx.max_errors = max_errors;
	cx.run = ++ValidateRuns;
	cx.dynamic = s->dynamic;
	if (cx.collect)
		initStringInfo(&cx.ipath);
	DocmodelJsonTreeFromJsonb(instance, &v);
	return ValidateNode(&cx, s->root, &v);
}

/*
 * Validate instance against s, listing every violation with the "basic"
 * output format's locations too (keyword_location, absolute_location).
 */
static bool
ValidateForOutput(DocmodelSchema *s, Jsonb *instance, List **errors)
{
	VCtx cx = {0};
	JsonbValue v;

	cx.collect = true;
	cx.output = true;
	cx.errors = errors;
	cx.run = ++ValidateRuns;
	cx.dynamic = s->dynamic;
	initStringInfo(&cx.ipath);
	DocmodelJsonTreeFromJsonb(instance, &v);
	return ValidateNode(&cx, s->root, &v);
}

/* ---------------------------------------------------------------------
 * SQL: schema_valid, schema_errors
 * ---------------------------------------------------------------------
 */

PG_FUNCTION_INFO_V1(schema_valid);
PG_FUNCTION_INFO_V1(schema_errors);
PG_FUNCTION_INFO_V1(schema_output);

/*
 * schema_output(schema jsonb, instance jsonb) returns jsonb: JSON Schema's
 * "basic" output format: {"valid": ..., "errors": [{"keywordLocation",
 * "absoluteKeywordLocation" (when the keyword's resource has a URI),
 * "instanceLocation", "error"}]}, one unit per violation.
 */
Datum
schema_output(PG_FUNCTION_ARGS)
{
	Jsonb *schema = PG_GETARG_JSONB_P(0);
	Jsonb *instance = PG_GETARG_JSONB_P(1);
	List *errors = NIL;
	bool valid;
	StringInfoData out;
	ListCell *lc;

	valid = ValidateForOutput(DocmodelSchemaGet(schema), instance, &errors);
	initStringInfo(&out);
	appendStringInfo(&out, "{\"valid\": %s", valid ? "true" : "false");
	if (!valid)
	{
		appendStringInfoString(&out, ", \"errors\": [");
		foreach (lc, errors)
		{
			DocmodelViolation *e = lfirst(lc);

			CHECK_FOR_INTERRUPTS();
			if (lc != list_head(errors))
				appendStringInfoString(&out, ", ");
			appendStringInfoString(&out, "{\"keywordLocation\": ");
			escape_json(&out, e->keyword_location);
			if (e->absolute_location)
			{
				appendStringInfoString(&out, ", \"absoluteKeywordLocation\": ");
				escape_json(&out, e->absolute_location);
			}
			appendStringInfoString(&out, ", \"instanceLocation\": ");
			escape_json(&out, e->path);
			appendStringInfoString(&out, ", \"error\": ");
			escape_json(&out, e->message);
			appendStringInfoChar(&out, '}');
		}
		appendStringInfoChar(&out, ']');
	}
	appendStringInfoChar(&out, '}');
	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(out.data)));
}

/* schema_valid(schema jsonb, instance jsonb) returns boolean */
Datum
schema_valid(PG_FUNCTION_ARGS)
{
	Jsonb *schema = PG_GETARG_JSONB_P(0);
	Jsonb *instance = PG_GETARG_JSONB_P(1);

	PG_RETURN_BOOL(
		DocmodelSchemaValidate(DocmodelSchemaGet(schema), instance, NULL, 0));
}

/* Return violations as rows; see validate.h. */
void
DocmodelReturnViolations(FunctionCallInfo fcinfo, List *errors)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ListCell *lc;

	InitMaterializedSRF(fcinfo, 0);
	foreach (lc, errors)
	{
		DocmodelViolation *e = lfirst(lc);
		Datum values[3];
		bool nulls[3] = {false, false, false};

		values[0] = CStringGetTextDatum(e->path);
		values[1] = CStringGetTextDatum(e->schema_path);
		values[2] = CStringGetTextDatum(e->message);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

/* schema_errors(schema jsonb, instance jsonb) returns table(path, schema_path,
 * message) */
Datum
schema_errors(PG_FUNCTION_ARGS)
{
	Jsonb *schema = PG_GETARG_JSONB_P(0);
	Jsonb *instance = PG_GETARG_JSONB_P(1);
	List *errors = NIL;

	DocmodelSchemaValidate(DocmodelSchemaGet(schema), instance, &errors, 0);
	DocmodelReturnViolations(fcinfo, errors);
	PG_RETURN_VOID();
}
