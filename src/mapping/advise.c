/*-------------------------------------------------------------------------
 *
 * mapping/advise.c
 *	  advise(coll, sample): the modeling advice measured on a collection's
 *	  own documents. One pass over a sample (read as the caller through
 *	  SPI) fills a table of statistics per path (JSON Pointers with "*" for
 *	  array elements); the findings come from that table, each with the
 *	  bytes it would save across the whole collection (the sample's bytes
 *	  scaled by the collection's row count over the sample's). No shared
 *	  state; nothing kept between calls.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <ctype.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"

#include "collection/columns.h"
#include "collection/config.h"
#include "collection/fields.h"
#include "json/pointer.h"
#include "json/tree.h"
#include "json/util.h"
#include "collection/key.h"
#include "mapping/convert.h"
#include "mapping/advise.h"

PG_FUNCTION_INFO_V1(mapping_advise);

#define PATH_LEN 200
#define ARRAY_SOFT_MAX 20 /* elements a document keeps before bucketing */
#define LONG_NAME 20      /* a field name longer than this costs bytes */
#define TOAST_LIMIT 2000  /* a document past this is compressed and moved */
#define MAX_VERSIONS 16

/*
 * Whether name (a path token as advise prints it: "~1" for "/", "~0" for
 * "~") is an identifier N1QL reads without backticks: [A-Za-z_][A-Za-z0-9_]*.
 */
static bool
N1qlIdentifier(const char *name)
{
	const char *p = name;

	if (*p == '\0' || (*p >= '0' && *p <= '9'))
		return false;
	for (; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			  (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	return true;
}

/* name with every character N1QL would need quoted as _ (region-number:
 * region_number), and _ first when it starts with a digit. */
static char *
N1qlSuggestion(const char *name)
{
	StringInfoData b;
	const char *p;

	initStringInfo(&b);
	if (*name >= '0' && *name <= '9')
		appendStringInfoChar(&b, '_');
	for (p = name; *p; p++)
		appendStringInfoChar(&b, ((*p >= 'a' && *p <= 'z') ||
								  (*p >= 'A' && *p <= 'Z') ||
								  (*p >= '0' && *p <= '9'))
									 ? *p
									 : '_');
	return b.data;
}

/* N1QL's reserved words (Couchbase Server 7) that documents use as names. */
static const char *const Reserved[] = {
	"all",      "alter",       "analyze",    "and",          "any",
	"array",    "as",          "asc",        "at",           "begin",
	"between",  "binary",      "boolean",    "break",        "bucket",
	"build",    "by",          "call",       "case",         "cast",
	"cluster",  "collate",     "collection", "commit",       "connect",
	"continue", "correlate",   "cover",      "create",       "current",
	"database", "dataset",     "datastore",  "declare",      "decrement",
	"default",  "delete",      "derived",    "desc",         "describe",
	"distinct", "do",          "drop",       "each",         "element",
	"else",     "end",         "every",      "except",       "exclude",
	"execute",  "exists",      "explain",    "false",        "fetch",
	"filter",   "first",       "flatten",    "for",          "force",
	"from",     "function",    "golang",     "grant",        "group",
	"gsi",      "hash",        "having",     "if",           "ignore",
	"ilike",    "in",          "include",    "increment",    "index",
	"infer",    "inline",      "inner",      "insert",       "intersect",
	"into",     "is",          "join",       "key",          "keys",
	"keyspace", "known",       "language",   "last",         "left",
	"let",      "letting",     "like",       "limit",        "lsm",
	"map",      "mapping",     "matched",    "materialized", "merge",
	"minus",    "missing",     "namespace",  "nest",         "not",
	"null",     "number",      "object",     "offset",       "on",
	"option",   "or",          "order",      "outer",        "over",
	"parse",    "partition",   "password",   "path",         "pool",
	"prepare",  "primary",     "private",    "privilege",    "procedure",
	"public",   "raw",         "realm",      "reduce",       "rename",
	"replace",  "return",      "returning",  "revoke",       "right",
	"role",     "rollback",    "satisfies",  "schema",       "select",
	"self",     "semi",        "set",        "show",         "some",
	"start",    "statistics",  "string",     "system",       "then",
	"to",       "transaction", "trigger",    "true",         "truncate",
	"under",    "union",       "unique",     "unknown",      "unnest",
	"unset",    "update",      "upsert",     "use",          "user",
	"using",    "validate",    "value",      "valued",       "values",
	"via",      "view",        "when",       "where",        "while",
	"with",     "within",      "work",       "xor"};

/* What the sample showed at one path. */
typedef struct PathStat
{
	char path[PATH_LEN]; /* hash key */
	int64 count;         /* members or elements seen here */
	int64 nulls;
	int64 empties;
	int64 empty_bytes; /* of the null and empty members, names included */
	int64 iso;
	int64 iso_bytes; /* saved as epoch numbers */
	int64 guids;
	int64 key_copies; /* strings equal to the document's key */
	int64 key_bytes;
	int64 name_len;          /* the member's name (when a member) */
	int64 arrays;            /* arrays here */
	int64 max_len;           /* longest */
	int64 tail_bytes;        /* of elements past ARRAY_SOFT_MAX */
	double sv, sl, svl, svv; /* sums for the slope of length over _ver */
	int32 *lens;
	int nlens;
	int caplens;
	int64 repeated;       /* arrays where this member is the same in all */
	int64 repeated_bytes; /* what keeping it once would save */
} PathStat;

typedef struct AdviseCx
{
	MemoryContext keep; /* what outlives a document: lengths, versions */
	HTAB *paths;
	const char *key;
	int keylen;
	double ver; /* the document's _ver (0: none) */
	int64 camel;
	int64 snake;
	int64 docs;
	int64 big_docs;
	int64 big_bytes; /* past TOAST_LIMIT */
	int64 largest;
	int64 untyped;
	int64 mistyped;
	char *mistyped_key;
	int nversions;
	char *versions[MAX_VERSIONS];
	int64 version_docs[MAX_VERSIONS];
} AdviseCx;

static PathStat *
Stat(AdviseCx *cx, const char *path)
{
	char key[PATH_LEN];
	PathStat *s;
	bool found;

	memset(key, 0, sizeof(key));
	strlcpy(key, path, sizeof(key));
	s = hash_search(cx->paths, key, HASH_ENTER, &found);
	if (!found)
	{
		memset(((char *) s) + PATH_LEN, 0, sizeof(PathStat) - PATH_LEN);
	}
	return s;
}

/* The bytes value v takes (string bytes, a number's, a container's). */
static int64
ValueBytes(const JsonbValue *v)
{
	switch (v->type)
	{
		case jbvString:
			return v->val.string.len;
		case jbvNumeric:
			return VARSIZE_ANY(v->val.numeric);
		case jbvBinary:
			return v->val.binary.len;
		default:
			return 1;
	}
}

static void Walk(AdviseCx *cx, JsonbValue *v, StringInfo path, PathStat *at);

/* Note what member name k (len bytes) says about naming. */
static void
NoteName(AdviseCx *cx, const char *k, int len)
{
	bool upper = false;
	bool under = false;
	int i;

	for (i = 1; i < len; i++)
	{
		upper |= isupper((unsigned char) k[i]) != 0;
		under |= k[i] == '_';
	}
	if (upper && !under && islower((unsigned char) k[0]))
		cx->camel++;
	else if (under && !upper && k[0] != '_')
		cx->snake++;
}

/* Arrays of objects: members equal in every element, at path/ * /k. */
static void
RepeatedMembers(AdviseCx *cx, JsonbValue *arr, StringInfo path)
{
	JsonbValue *first = &arr->val.array.elems[0];
	int n = arr->val.array.nElems;
	int i;
	int j;

	DocmodelJsonTreeExpand(first);
	if (first->type != jbvObject)
		return;
	for (i = 0; i < first->val.object.nPairs; i++)
	{
		JsonbPair *p = &first->val.object.pairs[i];
		bool same = true;
		int base = path->len;

		for (j = 1; j < n && same; j++)
		{
			JsonbValue *e = &arr->val.array.elems[j];
			int k;

			DocmodelJsonTreeExpand(e);
			k = e->type == jbvObject
					? DocmodelJsonTreeFindMember(e, p->key.val.string.val,
												 p->key.val.string.len)
					: -1;
			same = k >= 0 && DocmodelJsonTreeEqual(
								 &e->val.object.pairs[k].value, &p->value);
		}
		if (!same)
			continue;
		appendStringInfoString(path, "/*");
		DocmodelJsonPointerAppendToken(path, p->key.val.string.val,
									   p->key.val.string.len);
		{
			PathStat *s = Stat(cx, path->data);

			s->repeated++;
			s->repeated_bytes += (int64) (n - 1) * (p->key.val.string.len +
													ValueBytes(&p->value));
		}
		path->len = base;
		path->data[base] = '\0';
	}
}

/* Statistics of the value v found at path (s: its PathStat). */
static void
Walk(AdviseCx *cx, JsonbValue *v, StringInfo path, PathStat *s)
{
	int base = path->len;
	int i;

	check_stack_depth();
	s->count++;
	if (v->type == jbvNull)
		s->nulls++;
	if (v->type == jbvString)
	{
		TimestampTz ts;
		const char *str = v->val.string.val;
		int len = v->val.string.len;

		if (len == 0)
			s->empties++;
		else if (len >= 10 && isdigit((unsigned char) str[0]) &&
				 DocmodelParseIso8601(str, len, &ts))
		{
			s->iso++;
			s->iso_bytes += len - 8;
		}
		else if (len == 36 && str[8] == '-' && DocmodelIsDashedGuid(str, len))
			s->guids++;
		if (len == cx->keylen && memcmp(str, cx->key, len) == 0)
		{
			s->key_copies++;
			s->key_bytes += len;
		}
		return;
	}
	if (v->type != jbvBinary)
		return;
	DocmodelJsonTreeExpand(v);
	if (v->type == jbvObject)
	{
		if (v->val.object.nPairs == 0)
			s->empties++;
		for (i = 0; i < v->val.object.nPairs; i++)
		{
			JsonbPair *p = &v->val.object.pairs[i];
			PathStat *m;

			DocmodelJsonPointerAppendToken(path, p->key.val.string.val,
										   p->key.val.string.len);
			m = Stat(cx, path->data);
			m->name_len = p->key.val.string.len;
			NoteName(cx, p->key.val.string.val, p->key.val.string.len);
			if (DocmodelIsEmptyValue(&p->value) ||
				(p->value.type == jbvBinary &&
				 JsonContainerSize(p->value.val.binary.data) == 0))
				m->empty_bytes += p->key.val.string.len + 8;
			Walk(cx, &p->value, path, m);
			path->len = base;
			path->data[base] = '\0';
		}
	}
	else if (v->type == jbvArray)
	{
		int n = v->val.array.nElems;
		PathStat *e;

		if (n == 0)
			s->empties++;
		s->arrays++;
		s->max_len = Max(s->max_len, n);
		if (s->nlens == s->caplens)
		{
			s->caplens = Max(64, 2 * s->caplens);
			s->lens = s->lens ? repalloc(s->lens, sizeof(int32) * s->caplens)
							  : MemoryContextAlloc(cx->keep,
												   sizeof(int32) * s->caplens);
		}
		s->lens[s->nlens++] = n;
		s->sv += cx->ver;
		s->sl += n;
		s->svl += cx->ver * n;
		s->svv += cx->ver * cx->ver;
		for (i = ARRAY_SOFT_MAX; i < n; i++)
			s->tail_bytes += ValueBytes(&v->val.array.elems[i]);
		if (n >= 2)
			RepeatedMembers(cx, v, path);
		appendStringInfoString(path, "/*");
		e = Stat(cx, path->data);
		for (i = 0; i < n; i++)
			Walk(cx, &v->val.array.elems[i], path, e);
		path->len = base;
		path->data[base] = '\0';
	}
}

/* One sampled document: its own checks, then its paths. */
static void
AdviseDoc(AdviseCx *cx, const DocmodelCollection *cfg, const char *key,
		  Jsonb *doc)
{
	const DocFieldSet *fs = cfg->fs;
	JsonbContainer *mc = DocmodelFieldContainer(fs, &doc->root);
	JsonbValue *tv = NULL;
	JsonbValue *vv = NULL;
	JsonbValue root;
	StringInfoData path;
	int64 size = VARSIZE(doc);

	cx->docs++;
	cx->key = key;
	cx->keylen = strlen(key);
	if (size > TOAST_LIMIT)
	{
		cx->big_docs++;
		cx->big_bytes += size - TOAST_LIMIT;
	}
	cx->largest = Max(cx->largest, size);
	cx->ver = 0;
	if (mc != NULL)
	{
		JsonbValue *ver = DocmodelFieldValue(fs, mc, DOC_FIELD_VER);

		tv = DocmodelFieldValue(fs, mc, DOC_FIELD_TYPE);
		vv = DocmodelFieldValue(fs, mc, DOC_FIELD_SCHEMA);
		if (ver != NULL && ver->type == jbvNumeric)
			cx->ver = DatumGetFloat8(DirectFunctionCall1(
				numeric_float8, NumericGetDatum(ver->val.numeric)));
	}
	if (cfg->xattrs)
		; /* the fields are in column meta, not here */
	else if (tv == NULL || tv->type != jbvString)
		cx->untyped++;
	else
	{
		const char *kt;
		int ktlen;

		DocmodelKeyType(cfg, key, cx->keylen, &kt, &ktlen);
		if (DOCMODEL_BODY_TYPED(cfg)
				? !DocmodelTypeAllowed(cfg, tv->val.string.val,
									   tv->val.string.len)
				: (ktlen != tv->val.string.len ||
				   memcmp(kt, tv->val.string.val, ktlen) != 0))
		{
			cx->mistyped++;
			if (cx->mistyped_key == NULL)
				cx->mistyped_key = MemoryContextStrdup(cx->keep, key);
		}
	}
	if (!cfg->xattrs)
	{
		char *v = vv == NULL ? "(none)"
				  : vv->type == jbvString
					  ? pnstrdup(vv->val.string.val, vv->val.string.len)
				  : vv->type == jbvNumeric
					  ? DatumGetCString(DirectFunctionCall1(
							numeric_out, NumericGetDatum(vv->val.numeric)))
					  : "(not a version)";
		int i;

		for (i = 0; i < cx->nversions && strcmp(cx->versions[i], v) != 0; i++)
			;
		if (i == cx->nversions && i < MAX_VERSIONS)
			cx->versions[cx->nversions++] = MemoryContextStrdup(cx->keep, v);
		if (i < MAX_VERSIONS)
			cx->version_docs[i]++;
	}
	DocmodelJsonTreeFromJsonb(doc, &root);
	initStringInfo(&path);
	Walk(cx, &root, &path, Stat(cx, ""));
}

static int
IntCmp(const void *a, const void *b)
{
	int32 x = *(const int32 *) a;
	int32 y = *(const int32 *) b;

	return x < y ? -1 : x > y;
}

/* One finding. */
static void
AdviseEmit(ReturnSetInfo *rsinfo, const char *check, const char *severity,
		   const char *path, char *detail, int64 bytes, double scale)
{
	Datum values[5];
	bool nulls[5] = {false, false, path == NULL, false, false};

	values[0] = CStringGetTextDatum(check);
	values[1] = CStringGetTextDatum(severity);
	values[2] = path ? CStringGetTextDatum(path[0] ? path : "/") : (Datum) 0;
	values[3] = CStringGetTextDatum(detail);
	values[4] = Int64GetDatum((int64) (bytes * scale + 0.5));
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/* The findings of one path. */
static void
PathFindings(ReturnSetInfo *rsinfo, AdviseCx *cx, PathStat *s, double scale)
{
	const char *leaf = strrchr(s->path, '/');
	int i;

	if (s->arrays > 0 && s->nlens > 0)
	{
		int32 p95;
		double n = s->nlens;
		double slope = 0;
		double d = n * s->svv - s->sv * s->sv;

		qsort(s->lens, s->nlens, sizeof(int32), IntCmp);
		p95 = s->lens[(int) ((s->nlens - 1) * 0.95)];
		if (d > 0)
			slope = (n * s->svl - s->sv * s->sl) / d;
		if (s->max_len > 2 * ARRAY_SOFT_MAX || slope > 0.5)
			AdviseEmit(
				rsinfo, "unbounded_array", "warning", s->path,
				psprintf("an array that grows without bound: longest %lld "
						 "elements, 95th percentile %d, %s; keep the latest "
						 "%d (mutate_in's \"max\") or move older ones to "
						 "bucket documents (bucket_append); bytes: the "
						 "elements past %d",
						 (long long) s->max_len, p95,
						 slope > 0 ? psprintf("%.1f more per _ver", slope)
								   : "no growth over _ver in the sample",
						 ARRAY_SOFT_MAX, ARRAY_SOFT_MAX),
				s->tail_bytes, scale);
	}
	if (s->nulls + s->empties > 0 && s->path[0] && s->name_len > 0)
		AdviseEmit(
			rsinfo, "null_or_empty", "info", s->path,
			psprintf("%lld of %lld values are null and %lld empty; leave "
					 "the field out (N1QL: MISSING), or compact()",
					 (long long) s->nulls, (long long) s->count,
					 (long long) s->empties),
			s->empty_bytes, scale);
	if (s->iso > 0)
		AdviseEmit(rsinfo, "iso_dates", "info", s->path,
				   psprintf("%lld ISO-8601 date strings; epoch numbers "
							"(to_epoch) take 8 bytes and sort as numbers",
							(long long) s->iso),
				   s->iso_bytes, scale);
	if (s->guids > 0)
		AdviseEmit(rsinfo, "dashed_guids", "info", s->path,
				   psprintf("%lld GUIDs with dashes; without them (compact's "
							"\"guids\") each is 4 bytes shorter",
							(long long) s->guids),
				   4 * s->guids, scale);
	if (s->name_len > LONG_NAME)
		AdviseEmit(
			rsinfo, "long_field_name", "info", s->path,
			psprintf("a %lld-byte field name, stored in each of %lld "
					 "documents; a shorter one (map_rename) saves the rest",
					 (long long) s->name_len, (long long) s->count),
			(s->name_len - LONG_NAME / 2) * s->count, scale);
	if (leaf != NULL && s->name_len > 0)
	{
		char *name = pstrdup(leaf + 1);

		for (i = 0; name[i]; i++)
			name[i] = tolower((unsigned char) name[i]);
		for (i = 0; i < lengthof(Reserved); i++)
			if (strcmp(name, Reserved[i]) == 0)
			{
				AdviseEmit(
					rsinfo, "reserved_word", "warning", s->path,
					psprintf("\"%s\" is a N1QL reserved word: every query "
							 "naming it must quote it in backticks",
							 leaf + 1),
					0, scale);
				break;
			}
		if (strcmp(leaf, "/*") != 0 && !N1qlIdentifier(leaf + 1))
			AdviseEmit(rsinfo, "quoted_name", "info", s->path,
					   psprintf("\"%s\" is no N1QL identifier (letters, "
								"digits and _, not first a digit): every "
								"query naming it must quote it in "
								"backticks; a name such as \"%s\" needs "
								"none (a migration step move renames it)",
								leaf + 1, N1qlSuggestion(leaf + 1)),
					   0, scale);
	}
	if (s->key_copies > 0)
		AdviseEmit(rsinfo, "key_in_body", "info", s->path,
				   psprintf("%lld documents repeat their own key here; the key "
							"is the row's id already",
							(long long) s->key_copies),
				   s->key_bytes, scale);
	if (s->repeated > 0)
		AdviseEmit(
			rsinfo, "repeated_in_elements", "info", s->path,
			psprintf("the same value in every element of %lld arrays; keep "
					 "it once beside the array",
					 (long long) s->repeated),
			s->repeated_bytes, scale);
}

/* The findings about the documents as a whole. */
static void
DocFindings(ReturnSetInfo *rsinfo, AdviseCx *cx, double scale)
{
	int i;

	if (cx->big_docs > 0)
		AdviseEmit(
			rsinfo, "toast", "warning", NULL,
			psprintf("%lld of %lld documents are past the 2 kB TOAST "
					 "threshold (largest %lld bytes): compressed and stored "
					 "out of line, each read and write pays for the whole",
					 (long long) cx->big_docs, (long long) cx->docs,
					 (long long) cx->largest),
			cx->big_bytes, scale);
	if (cx->camel > 0 && cx->snake > 0 &&
		Min(cx->camel, cx->snake) * 10 >= cx->camel + cx->snake)
		AdviseEmit(
			rsinfo, "mixed_naming", "info", NULL,
			psprintf("field names mix camelCase (%lld) and snake_case (%lld); "
					 "pick one (map_rename, a migration rename)",
					 (long long) cx->camel, (long long) cx->snake),
			0, scale);
	if (cx->untyped > 0)
		AdviseEmit(rsinfo, "type_missing", "warning", NULL,
				   psprintf("%lld of %lld documents carry no type field",
							(long long) cx->untyped, (long long) cx->docs),
				   0, scale);
	if (cx->mistyped > 0)
		AdviseEmit(
			rsinfo, "type_mismatch", "warning", NULL,
			psprintf("%lld documents' type differs from their key's (first: "
					 "\"%s\")",
					 (long long) cx->mistyped, cx->mistyped_key),
			0, scale);
	if (cx->nversions > 1)
	{
		StringInfoData b;

		initStringInfo(&b);
		for (i = 0; i < cx->nversions; i++)
			appendStringInfo(&b, "%s%s (%lld)", i ? ", " : "", cx->versions[i],
							 (long long) cx->version_docs[i]);
		AdviseEmit(
			rsinfo, "schema_versions", "info", NULL,
			psprintf("%d schema versions present: %s; migrate_collection "
					 "brings them to the current one",
					 cx->nversions, b.data),
			0, scale);
	}
}

/*
 * advise(coll, sample) -> TABLE(check, severity, path, detail, bytes_saved):
 * see doc/mappings.md.
 */
Datum
mapping_advise(PG_FUNCTION_ARGS)
{
	Oid relid = PG_GETARG_OID(0);
	int32 sample = PG_GETARG_INT32(1);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	DocmodelCollection *cfgp = DocmodelCollectionOf(relid);
	DocmodelCollection cfg;
	AdviseCx cx;
	HASH_SEQ_STATUS seq;
	PathStat *s;
	Portal portal;
	int64 total;
	Oid types[1] = {INT4OID};
	Datum values[1];
	char *rel;
	bool isnull;
	MemoryContext tmp;

	cfg = *cfgp;
	if (sample < 1)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("invalid sample %d for advise on \"%s\"", sample,
							   get_rel_name(relid)),
						errdetail("sample is the number of documents read, at "
								  "least 1.")));
	InitMaterializedSRF(fcinfo, 0);
	memset(&cx, 0, sizeof(cx));
	cx.keep = CurrentMemoryContext;
	tmp = AllocSetContextCreate(CurrentMemoryContext, "docmodel advise doc",
								ALLOCSET_DEFAULT_SIZES);
	cx.paths = DocmodelHash("docmodel advise", 256, PATH_LEN, sizeof(PathStat),
							true, CurrentMemoryContext);
	rel = DatumGetCString(
		DirectFunctionCall1(regclassout, ObjectIdGetDatum(relid)));
	DocmodelSpiConnect();
	/* as the caller: SELECT on the collection, row-level security */
	if (SPI_execute(psprintf("SELECT pg_catalog.count(*) FROM %s AS d "
							 "WHERE d.expires_at IS NULL "
							 "OR d.expires_at OPERATOR(pg_catalog.>) "
							 "pg_catalog.now()",
							 rel),
					true, 1) != SPI_OK_SELECT)
		elog(ERROR, "counting the documents failed");
	total = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
										SPI_tuptable->tupdesc, 1, &isnull));
	values[0] = Int32GetDatum(sample);
	/* the first documents in key order: repeatable, and an index scan; each
	 * with its stamps (meta_style 'columns' keeps them in columns) */
	portal = SPI_cursor_open_with_args(
		NULL,
		psprintf("SELECT d.id, %s FROM %s AS d "
				 "WHERE d.expires_at IS NULL "
				 "OR d.expires_at OPERATOR(pg_catalog.>) pg_catalog.now() "
				 "ORDER BY d.id LIMIT $1",
				 DocmodelDocumentSql(relid, "d"), rel),
		1, types, values, NULL, true, 0);
	for (;;)
	{
		uint64 i;

		SPI_cursor_fetch(portal, true, 1000);
		if (SPI_processed == 0)
			break;
		for (i = 0; i < SPI_processed; i++)
		{
			HeapTuple t = SPI_tuptable->vals[i];
			char *key = SPI_getvalue(t, SPI_tuptable->tupdesc, 1);
			Datum d = SPI_getbinval(t, SPI_tuptable->tupdesc, 2, &isnull);

			if (!isnull && key != NULL)
			{
				MemoryContext old = MemoryContextSwitchTo(tmp);

				AdviseDoc(&cx, &cfg, key, DatumGetJsonbP(d));
				MemoryContextSwitchTo(old);
				MemoryContextReset(tmp);
			}
			CHECK_FOR_INTERRUPTS();
		}
		SPI_freetuptable(SPI_tuptable);
	}
	SPI_cursor_close(portal);
	SPI_finish();
	if (cx.docs > 0)
	{
		double scale = (double) total / cx.docs;

		DocFindings(rsinfo, &cx, scale);
		hash_seq_init(&seq, cx.paths);
		while ((s = hash_seq_search(&seq)) != NULL)
			PathFindings(rsinfo, &cx, s, scale);
	}
	return (Datum) 0;
}
