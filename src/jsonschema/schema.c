/*-------------------------------------------------------------------------
 *
 * jsonschema/schema.c
 *	  A JSON Schema document compiled whole: the root compiled (compile.c),
 *	  every "$ref" resolved to its node through hash indexes of locations,
 *	  resources and anchors, the loops of applicators found and watched.
 *
 *	  State: a per-backend cache of compiled schemas keyed by the schema's
 *	  bytes (SchemaCache, at most SCHEMA_CACHE_SIZE entries, each in its own
 *	  memory context under CacheMemoryContext; the least recently used is
 *	  dropped). Nothing is shared between backends.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "json/pointer.h"
#include "json/tree.h"
#include "json/util.h"
#include "jsonschema/schema.h"

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
			int hi = DocmodelHexDigit(s[1]);
			int lo = hi < 0 ? -1 : DocmodelHexDigit(s[2]);

			if (hi < 0 || lo < 0)
				DocmodelSchemaBadKeyword(loc,
										 "\"$ref\" has a bad percent escape");
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
		DocmodelSchemaBadKeyword(
			loc, psprintf("\"$ref\" \"#%s\" is not a JSON Pointer", ptr));
	initStringInfo(&canon);
	for (i = 0; i < p.ntok; i++)
		DocmodelJsonPointerAppendToken(&canon, p.tok[i], p.toklen[i]);
	if ((n = DocmodelSchemaIndexGet(cc->locs, canon.data, false)) == NULL)
	{
		if ((v = DocmodelJsonTreeWalk(cc->root, &p, p.ntok, 0, &miss)) == NULL)
			DocmodelSchemaBadKeyword(
				loc, psprintf("\"$ref\" target \"#%s\" does not exist", ptr));
		n = DocmodelSchemaCompileNode(cc, v, canon.data);
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
		uri = DocmodelSchemaUriResolve(f->base, pnstrdup(ref, hash - ref));
		res = DocmodelSchemaIndexGet(cc->resources, uri, true);
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
			Anchor *a = DocmodelSchemaIndexGet(cc->anchors, name, true);

			if (a != NULL)
				*slot = a->node;
			if (*slot == NULL)
				DocmodelSchemaBadKeyword(
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

/* Compile schema into the current memory context; see schema.h. */
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
			char *mode = DocmodelSchemaKwString(
				&cc.root->val.object.pairs[m].value, "/x-docmodel-format");

			if (strcmp(mode, "annotation") == 0)
				cc.format_annotation = true;
			else if (strcmp(mode, "assertion") != 0)
				DocmodelSchemaBadKeyword(
					"/x-docmodel-format",
					"must be \"assertion\" or \"annotation\"");
		}
		m = DocmodelJsonTreeFindMember(cc.root, "$schema", 7);

		if (m >= 0)
		{
			JsonbValue *d = &cc.root->val.object.pairs[m].value;
			char *uri = DocmodelSchemaKwString(d, "/$schema");
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
	cc.resources = DocmodelSchemaIndexCreate("docmodel schema resources");
	cc.locs = DocmodelSchemaIndexCreate("docmodel schema locations");
	cc.anchors = DocmodelSchemaIndexCreate("docmodel schema anchors");
	root->uri = cc.base = "";
	root->loc = "";
	DocmodelSchemaIndexPut(cc.resources, root->uri, root);
	s->root = DocmodelSchemaCompileNode(&cc, cc.root, "");
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

/* Return the compiled schema; see schema.h. */
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
