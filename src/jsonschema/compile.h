/*-------------------------------------------------------------------------
 *
 * jsonschema/compile.h
 *	  A JSON Schema document compiled into C: the nodes (VNode, one per
 *	  subschema) that validation runs, the state of a compilation, and the
 *	  compiler of one subschema and its keywords (compile.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_JSONSCHEMA_COMPILE_H
#define DOCMODEL_JSONSCHEMA_COMPILE_H

#include "compat.h"
#include "nodes/pg_list.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "jsonschema/formats.h"
#include "jsonschema/pattern.h"
#include "jsonschema/regex.h"

/* A compiled schema (see schema.h). */
typedef struct DocmodelSchema DocmodelSchema;

/* Instance types, as "type" names them (bits of VNode.types). */
#define T_NULL 0x01
#define T_BOOLEAN 0x02
#define T_OBJECT 0x04
#define T_ARRAY 0x08
#define T_NUMBER 0x10
#define T_STRING 0x20
#define T_INTEGER 0x40

/* The names of the instance types, by T_* bit. */
extern const char *const DocmodelSchemaTypeNames[7];

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

/* Compare two numerics. */
static inline int
SchemaNumCmp(Numeric a, Numeric b)
{
	return DatumGetInt32(DirectFunctionCall2(numeric_cmp, NumericGetDatum(a),
											 NumericGetDatum(b)));
}

/* A new NameIndex (NameIndexEntry by hash) in the current memory context. */
extern HTAB *DocmodelSchemaIndexCreate(const char *name);

/* Add item under name (not copied) to index. */
extern void DocmodelSchemaIndexPut(HTAB *index, const char *name, void *item);

/* The first (or last) item added under name to index, or NULL. */
extern void *DocmodelSchemaIndexGet(HTAB *index, const char *name, bool last);

/*
 * The first i whose item equals an earlier one (that one in *dup), or -1:
 * items hashed, only those of equal hash compared (uniqueItems, names).
 */
extern int DocmodelSchemaFirstDuplicate(
	void *items, int n, uint32 (*hash)(void *items, int i),
	bool (*equal)(void *items, int i, int j), int *dup);

/* Refuse the schema at loc: 22023 "invalid JSON Schema at loc: what". */
extern void pg_attribute_noreturn()
	DocmodelSchemaBadKeyword(const char *loc, const char *what);

/* The string v, copied (22023 when v is not a string). */
extern char *DocmodelSchemaKwString(JsonbValue *v, const char *loc);

/* Order VProps by name as jsonb orders keys (qsort, bsearch). */
extern int DocmodelSchemaPropCmp(const void *a, const void *b);
/* The property named k (len bytes) in a sorted VProp array, or NULL. */
extern VProp *DocmodelSchemaFindProp(VProp *props, int n, const char *k,
									 int len);

/* Resolve the URI reference ref (no fragment) against base (RFC 3986, 5.2). */
extern char *DocmodelSchemaUriResolve(const char *base, const char *ref);

/*
 * Compile the subschema v found at loc (a JSON Pointer) into a new VNode,
 * its subschemas too; its "$ref"s are added to cc->pending.
 */
extern VNode *DocmodelSchemaCompileNode(CompileCtx *cc, JsonbValue *v,
										const char *loc);

#endif /* DOCMODEL_JSONSCHEMA_COMPILE_H */
