/*-------------------------------------------------------------------------
 *
 * fields.c
 *	  The management fields of a document: the three meta styles as
 *	  descriptions (DocFieldSet), the descriptions collections build
 *	  from their fields spec, and DocmodelFieldsFind(), the scan that finds a
 *	  document's type and schema version for migrations.
 *
 * Shared state: the presets and the scan lists derived from them, built
 * once per backend by DocmodelFieldsInit() (from _PG_init) and read-only
 * after; CustomSets, the descriptions built from fields specs, one per
 * distinct spec, kept for the backend's life (a handful at most), so that
 * a pointer to one stays valid across cache invalidations.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/jsonb.h"
#include "port/pg_bitutils.h"
#include "utils/numeric.h"

#include "fields.h"
#include "jsonpointer.h"
#include "jsontree.h"

#define NAME(s)          \
	{                    \
		s, sizeof(s) - 1 \
	}

/* The names without underscore (the "meta" and the plain styles). */
#define PLAIN_NAMES                                                       \
	{                                                                     \
		NAME("type"), NAME("schema"), NAME("created"), NAME("createdBy"), \
			NAME("modified"), NAME("modifiedBy"), NAME("ver")             \
	}

/* The presets, by meta style (AUTO's slot: the underscore style). */
static DocFieldSet Presets[DOC_META_NSTYLES] = {
	[DOC_META_UNDERSCORE] = {DOC_META_UNDERSCORE,
							 {NULL, 0},
							 {NAME("_type"), NAME("_schema"), NAME("_created"),
							  NAME("_createdBy"), NAME("_modified"),
							  NAME("_modifiedBy"), NAME("_ver")}},
	[DOC_META_META] = {DOC_META_META, NAME("meta"), PLAIN_NAMES},
	[DOC_META_PLAIN] = {DOC_META_PLAIN, {NULL, 0}, PLAIN_NAMES},
};

/* The order in which AUTO tries the styles: the first whose type field is
 * present wins, else the last. */
static const DocMetaStyle AutoOrder[] = {DOC_META_UNDERSCORE, DOC_META_META,
										 DOC_META_PLAIN};

#define MAX_WANT 8
#define MAX_SETS lengthof(AutoOrder)

/* The keys one pass over an object looks for. */
typedef struct ScanList
{
	const DocFieldName *want[MAX_WANT];
	uint32 head[MAX_WANT]; /* KeyHead() of want[k] */
	int n;
	int maxlen;      /* keys sort by length: none wanted after this one */
	uint8 bylen[64]; /* bit k set: want[k] has this length */
} ScanList;

/*
 * The first four bytes of a key of len bytes (zero-padded) as one word:
 * most keys of a wanted length are told apart by one compare. (A memcpy of
 * a constant length is one load; of a variable one, a call.)
 */
static inline uint32
KeyHead(const char *s, int len)
{
	uint32 h = 0;
	int i;

	if (len >= 4)
		memcpy(&h, s, 4);
	else
		for (i = 0; i < len; i++)
			((char *) &h)[i] = s[i];
	return h;
}

/*
 * How DocmodelFieldsFind() reads one style: the root's scan list, the candidate
 * descriptions (one, or AUTO's), and per candidate the slots of its type,
 * schema and container names in the root's list (-1: not at the root).
 */
typedef struct ScanPlan
{
	ScanList root;
	int nsets;
	const DocFieldSet *set[MAX_SETS];
	int type_slot[MAX_SETS];
	int schema_slot[MAX_SETS];
	int container_slot[MAX_SETS];
	ScanList inner[MAX_SETS]; /* type, schema in the container */
} ScanPlan;

static ScanPlan Plans[DOC_META_NSTYLES];

/* A description built from a collection's fields spec (interned). */
typedef struct CustomSet
{
	struct CustomSet *next;
	DocMetaStyle base;
	char *spec; /* the spec's canonical text */
	DocFieldSet fs;
	ScanPlan plan;
} CustomSet;

static CustomSet *CustomSets = NULL; /* TopMemoryContext, never freed */

/* Fill fs's derived members from its names. */
void
DocmodelFieldSetInit(DocFieldSet *fs)
{
	int i;
	int j;

	fs->minlen = PG_INT32_MAX;
	fs->maxlen = 0;
	memset(fs->first, 0, sizeof(fs->first));
	for (i = 0; i < DOC_NFIELDS; i++)
	{
		const DocFieldName *f = &fs->field[i];
		uint8 c = (uint8) f->name[0];

		fs->minlen = Min(fs->minlen, f->len);
		fs->maxlen = Max(fs->maxlen, f->len);
		fs->first[c >> 3] |= 1 << (c & 7);
		/* insertion sort of the kinds by name, shorter first */
		for (j = i; j > 0; j--)
		{
			const DocFieldName *g = &fs->field[fs->order[j - 1]];

			if (g->len < f->len ||
				(g->len == f->len && memcmp(g->name, f->name, f->len) < 0))
				break;
			fs->order[j] = fs->order[j - 1];
		}
		fs->order[j] = (DocFieldKind) i;
	}
}

/* Add name to l (once); return its slot. */
static int
AddWant(ScanList *l, const DocFieldName *name)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (l->want[i]->len == name->len &&
			memcmp(l->want[i]->name, name->name, name->len) == 0)
			return i;
	Assert(l->n < MAX_WANT && name->len < lengthof(l->bylen));
	l->want[l->n] = name;
	l->head[l->n] = KeyHead(name->name, name->len);
	l->maxlen = Max(l->maxlen, name->len);
	l->bylen[name->len] |= 1 << l->n;
	return l->n++;
}

/* Add the candidate description fs to scan plan p. */
static void
AddSet(ScanPlan *p, const DocFieldSet *fs)
{
	int i = p->nsets++;

	Assert(i < MAX_SETS);
	p->set[i] = fs;
	p->type_slot[i] = p->schema_slot[i] = p->container_slot[i] = -1;
	AddWant(&p->inner[i], &fs->field[DOC_FIELD_TYPE]);
	AddWant(&p->inner[i], &fs->field[DOC_FIELD_SCHEMA]);
	if (fs->container.len > 0)
		p->container_slot[i] = AddWant(&p->root, &fs->container);
	else
	{
		p->type_slot[i] = AddWant(&p->root, &fs->field[DOC_FIELD_TYPE]);
		p->schema_slot[i] = AddWant(&p->root, &fs->field[DOC_FIELD_SCHEMA]);
	}
}

/* Build the presets and DocmodelFieldsFind()'s scan plans. */
void
DocmodelFieldsInit(void)
{
	int s;
	int i;

	Presets[DOC_META_AUTO] = Presets[DOC_META_UNDERSCORE];
	for (s = 0; s < DOC_META_NSTYLES; s++)
		DocmodelFieldSetInit(&Presets[s]);
	for (s = 0; s < DOC_META_NSTYLES; s++)
	{
		if (s == DOC_META_AUTO)
			for (i = 0; i < lengthof(AutoOrder); i++)
				AddSet(&Plans[s], &Presets[AutoOrder[i]]);
		else
			AddSet(&Plans[s], &Presets[s]);
		Presets[s].plan = &Plans[s];
	}
}

/* The members of a fields spec, by DocFieldKind. */
static const char *const SpecMembers[DOC_NFIELDS] = {
	"type", "schema", "created", "createdBy", "modified", "modifiedBy", "ver"};

/* The style-independent name of a kind of field (a fields spec member). */
const char *
DocmodelFieldKindName(DocFieldKind kind)
{
	return SpecMembers[kind];
}

/* Raise 22023: member of a fields spec is bad, for the reason detail. */
static void
BadSpecMember(const char *member, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid fields member \"%s\"", member),
			 errdetail("%s", detail),
			 errhint("Give fields as an object such as {\"type\": "
					 "\"docType\", \"created\": \"/meta/createdAt\"} whose "
					 "members are type, schema, created, createdBy, modified, "
					 "modifiedBy and ver.")));
}

/*
 * Read member k (value v) of a fields spec into fs: the field it names and
 * its name there, the object holding it when v is a JSON Pointer (which
 * must agree with the fields before it: *any_pointer). Returns its kind.
 */
static int
SpecMember(const JsonbValue *k, const JsonbValue *v, DocFieldSet *fs,
		   bool *any_pointer)
{
	char *member = pnstrdup(k->val.string.val, k->val.string.len);
	char *name;
	JsonPointer p;
	DocFieldName container = {NULL, 0};
	int kind;

	for (kind = 0; kind < DOC_NFIELDS; kind++)
		if (strcmp(member, SpecMembers[kind]) == 0)
			break;
	if (kind == DOC_NFIELDS)
		BadSpecMember(member,
					  strcmp(member, "id") == 0 || strcmp(member, "key") == 0 ||
							  strcmp(member, "cas") == 0 ||
							  strcmp(member, "expiry") == 0
						  ? "A document's key, cas and expiry are columns "
							"of the collection (id, cas, expires_at), not "
							"fields of the document; they cannot be "
							"renamed."
						  : "It is not a management field.");
	if (v->type != jbvString || v->val.string.len == 0)
		BadSpecMember(member, "Its value must be a non-empty string: a "
							  "name, or a JSON Pointer such as "
							  "\"/meta/type\".");
	name = pnstrdup(v->val.string.val, v->val.string.len);
	if (name[0] == '/')
	{
		if (DocmodelJsonPointerParse(name, strlen(name), false, &p) !=
			JSONPOINTER_OK)
			BadSpecMember(
				member, psprintf("\"%s\" is not a valid JSON Pointer.", name));
		if (p.ntok > 2)
			BadSpecMember(member,
						  psprintf("\"%s\" is nested %d levels deep; a "
								   "management field is at the root or in "
								   "one object of it.",
								   name, p.ntok - 1));
		if (p.ntok == 2)
		{
			container.name = p.tok[0];
			container.len = p.toklen[0];
		}
		if (*any_pointer &&
			(container.len != fs->container.len ||
			 memcmp(container.name, fs->container.name, container.len) != 0))
			BadSpecMember(member,
						  psprintf("\"%s\" puts it in another object than "
								   "the fields before it; the management "
								   "fields live together.",
								   name));
		fs->container = container;
		*any_pointer = true;
		name = p.tok[p.ntok - 1];
	}
	if (name[0] == '\0' || strlen(name) >= 64)
		BadSpecMember(member, "A field name is 1 to 63 bytes long.");
	fs->field[kind].name = name;
	fs->field[kind].len = strlen(name);
	return kind;
}

/*
 * Raise 22023 when two fields of fs, or a field and the object holding
 * them, are named alike (naming a member given, rather than a default).
 */
static void
CheckDistinct(const DocFieldSet *fs, const bool *given)
{
	int i;
	int j;

	for (i = 0; i < DOC_NFIELDS; i++)
	{
		const DocFieldName *a = &fs->field[i];

		if (fs->container.len > 0 && a->len == fs->container.len &&
			memcmp(a->name, fs->container.name, a->len) == 0)
			BadSpecMember(SpecMembers[i],
						  psprintf("\"%s\" is also the object holding the "
								   "management fields.",
								   a->name));
		for (j = i + 1; j < DOC_NFIELDS; j++)
		{
			const DocFieldName *b = &fs->field[j];

			if (a->len == b->len && memcmp(a->name, b->name, a->len) == 0)
				BadSpecMember(SpecMembers[given[j] ? j : i],
							  psprintf("\"%s\" and \"%s\" would both be "
									   "\"%s\".",
									   SpecMembers[i], SpecMembers[j],
									   a->name));
		}
	}
}

/*
 * Return the description a collection's fields spec (create_collection's
 * fields) gives on top of the preset of meta style base: each member
 * renames one management field, by a name (in the fields' object) or a
 * JSON Pointer of one or two tokens ("/docType" at the root,
 * "/meta/type" in the object "meta"); the fields all live in one object,
 * so the pointers must agree on it. Raises 22023 naming the bad member.
 * Built once per backend and spec; the result is never freed.
 */
const DocFieldSet *
DocmodelFieldSetFromSpec(Jsonb *spec, DocMetaStyle base)
{
	char *text = JsonbToCString(NULL, &spec->root, VARSIZE(spec));
	CustomSet *cs;
	DocFieldSet fs = Presets[base];
	bool given[DOC_NFIELDS] = {false};
	bool any_pointer = false;
	JsonbIterator *it;
	JsonbValue k;
	JsonbValue v;
	JsonbIteratorToken tok;
	MemoryContext old;
	int i;

	for (cs = CustomSets; cs != NULL; cs = cs->next)
		if (cs->base == base && strcmp(cs->spec, text) == 0)
			return &cs->fs;
	if (!JB_ROOT_IS_OBJECT(spec) || JB_ROOT_IS_SCALAR(spec))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid fields \"%s\"", text),
				 errdetail("fields is a JSON object from management field to "
						   "its name.")));
	it = JsonbIteratorInit(&spec->root);
	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
		if (tok == WJB_KEY)
		{
			(void) JsonbIteratorNext(&it, &v, true);
			given[SpecMember(&k, &v, &fs, &any_pointer)] = true;
		}
	CheckDistinct(&fs, given);
	old = MemoryContextSwitchTo(TopMemoryContext);
	cs = palloc0(sizeof(CustomSet));
	cs->base = base;
	cs->spec = pstrdup(text);
	cs->fs = fs;
	for (i = 0; i < DOC_NFIELDS; i++)
		cs->fs.field[i].name = pnstrdup(fs.field[i].name, fs.field[i].len);
	if (fs.container.len > 0)
		cs->fs.container.name = pnstrdup(fs.container.name, fs.container.len);
	DocmodelFieldSetInit(&cs->fs);
	AddSet(&cs->plan, &cs->fs);
	cs->fs.plan = &cs->plan;
	cs->next = CustomSets;
	CustomSets = cs;
	MemoryContextSwitchTo(old);
	return &cs->fs;
}

/* Return the description of a meta style (AUTO: the underscore one). */
const DocFieldSet *
DocmodelFieldSetFor(DocMetaStyle style)
{
	return &Presets[style];
}

/*
 * Return the object container of root that holds fs's fields: root itself,
 * or fs's container member; NULL when that is absent or not an object.
 */
JsonbContainer *
DocmodelFieldContainer(const DocFieldSet *fs, JsonbContainer *root)
{
	JsonbValue k =
		DocmodelJsonTreeString(fs->container.name, fs->container.len);
	JsonbValue *v;

	if (fs->container.len == 0)
		return root;
	v = findJsonbValueFromContainer(root, JB_FOBJECT, &k);
	if (v == NULL || v->type != jbvBinary ||
		!JsonContainerIsObject(v->val.binary.data))
		return NULL;
	return v->val.binary.data;
}

/* Return the value of field kind of fs in object container c, or NULL. */
JsonbValue *
DocmodelFieldValue(const DocFieldSet *fs, JsonbContainer *c, DocFieldKind kind)
{
	return DocmodelFieldValueIn(fs, c, kind, NULL);
}

JsonbValue *
DocmodelFieldValueIn(const DocFieldSet *fs, JsonbContainer *c,
					 DocFieldKind kind, JsonbValue *res)
{
	return getKeyJsonValueFromContainer(c, fs->field[kind].name,
										fs->field[kind].len, res);
}

/* Fill f->version from a version field value (string or number). */
static void
TakeVersion(DocFields *f, JsonbValue *v)
{
	f->has_version = true;
	if (v->type == jbvString)
	{
		f->version = v->val.string.val; /* not NUL-terminated */
		f->versionlen = v->val.string.len;
		f->version_ok = true;
	}
	else if (v->type == jbvNumeric)
	{
		f->version = DatumGetCString(
			DirectFunctionCall1(numeric_out, NumericGetDatum(v->val.numeric)));
		f->versionlen = strlen(f->version);
		f->version_ok = true;
	}
	else if (v->type == jbvNull)
		f->has_version = false;
	else
	{
		/* a boolean, object or array: not a version */
		f->version = v->type == jbvBool ? (v->val.boolean ? "true" : "false")
										: "(a container)";
		f->versionlen = strlen(f->version);
		f->version_ok = false;
	}
}

/* The keys of a ScanList found in one object: pair index (or -1) and value
 * bounds. */
typedef struct KeyHits
{
	int idx[MAX_WANT];
	uint32 start[MAX_WANT]; /* value offsets, when idx >= 0 */
	uint32 end[MAX_WANT];
} KeyHits;

/*
 * Find the keys of l in an object in one forward pass over its entries
 * (keys, then the values up to the last one wanted), computing the offsets
 * as it goes. getKeyJsonValueFromContainer's binary search per key, and
 * getJsonbOffset per value, cost more than the rest of migrate() on a
 * current document.
 */
static void
ScanKeys(JsonbContainer *c, const ScanList *l, KeyHits *h)
{
	uint32 count = JsonContainerSize(c);
	JEntry *children = c->children;
	char *base = (char *) (children + count * 2);
	uint32 off = 0;
	uint32 i;
	int nhit = 0;
	int hitk[MAX_WANT]; /* the hits in pair order: slot in l */
	int j;

	for (j = 0; j < l->n; j++)
		h->idx[j] = -1;
	for (i = 0; i < count; i++)
	{
		uint32 start = off;
		const char *key = base + start;
		int len;
		uint32 m;
		uint32 head;

		JBE_ADVANCE_OFFSET(off, children[i]);
		len = off - start;
		if (len > l->maxlen)
		{
			/* keys sort by length: no more hits; just skip them */
			for (i++; i < count; i++)
				JBE_ADVANCE_OFFSET(off, children[i]);
			break;
		}
		/* the common case: no name of this length */
		if ((m = l->bylen[len]) == 0)
			continue;
		head = KeyHead(key, len);
		for (; m != 0; m &= m - 1)
		{
			int k = pg_rightmost_one_pos32(m);
			const char *name = l->want[k]->name;

			if (l->head[k] != head)
				continue;
			for (j = 4; j < len && name[j] == key[j]; j++)
				;
			if (j >= len)
			{
				h->idx[k] = i;
				hitk[nhit++] = k;
				break; /* the names are unique */
			}
		}
	}
	/* the values' offsets continue after the keys' */
	for (i = 0, j = 0; j < nhit; j++)
	{
		int k = hitk[j];

		for (; i < (uint32) h->idx[k]; i++)
			JBE_ADVANCE_OFFSET(off, children[count + i]);
		h->start[k] = off;
		JBE_ADVANCE_OFFSET(off, children[count + i]);
		i++;
		h->end[k] = off;
	}
}

/* Fill v with the value of hit k of an object. */
static void
HitValue(JsonbContainer *c, const KeyHits *h, int k, JsonbValue *v)
{
	uint32 count = JsonContainerSize(c);

	DocmodelJsonTreeEntryValue(c->children[count + h->idx[k]],
							   (char *) (c->children + count * 2), h->start[k],
							   h->end[k] - h->start[k], v);
}

/*
 * Find the type and version fields of a document in the given style;
 * return whether it is an object with a type field.
 */
bool
DocmodelFieldsFind(Jsonb *doc, DocMetaStyle style, DocFields *f)
{
	return DocmodelFieldsFindIn(doc, &Presets[style], f);
}

/* The same in the description fs (a preset, AUTO's, or a collection's). */
bool
DocmodelFieldsFindIn(Jsonb *doc, const DocFieldSet *fs0, DocFields *f)
{
	JsonbContainer *root = &doc->root;
	const ScanPlan *p = fs0->plan;
	JsonbValue v;
	KeyHits h;
	KeyHits mh;
	int s;

	f->type = NULL;
	f->typelen = 0;
	f->has_version = false;
	f->version = NULL;
	f->versionlen = 0;
	f->version_ok = false;
	f->set = p->set[p->nsets - 1];
	f->style = f->set->style;
	if (!JB_ROOT_IS_OBJECT(doc))
		return false;
	ScanKeys(root, &p->root, &h);
	for (s = 0; s < p->nsets; s++)
	{
		const DocFieldSet *fs = p->set[s];
		JsonbContainer *where = root;
		const KeyHits *wh = &h;
		int tk = p->type_slot[s];
		int vk = p->schema_slot[s];

		if (fs->container.len > 0)
		{
			int ck = p->container_slot[s];

			where = NULL;
			if (h.idx[ck] >= 0)
			{
				HitValue(root, &h, ck, &v);
				if (v.type == jbvBinary &&
					JsonContainerIsObject(v.val.binary.data))
				{
					where = v.val.binary.data;
					ScanKeys(where, &p->inner[s], &mh);
					wh = &mh;
				}
			}
			tk = 0; /* Inner's slots */
			vk = 1;
		}
		if (s < p->nsets - 1 && (where == NULL || wh->idx[tk] < 0))
			continue; /* AUTO: not this style */
		f->style = fs->style;
		f->set = fs;
		if (where == NULL)
			return false; /* no container object */
		if (wh->idx[tk] >= 0)
		{
			HitValue(where, wh, tk, &v);
			if (v.type == jbvString)
			{
				f->type = v.val.string.val;
				f->typelen = v.val.string.len;
			}
		}
		/* read even without a type field: the trigger knows the type */
		if (wh->idx[vk] >= 0)
		{
			HitValue(where, wh, vk, &v);
			TakeVersion(f, &v);
		}
		break;
	}
	return f->type != NULL;
}

/* Parse the document's version; raise 22P02 naming the key when bad. */
DocVersion *
DocmodelFieldsParseVersion(DocFields *f, const char *key)
{
	DocVersion *v = f->version_ok
						? DocmodelVersionFromCString(
							  pnstrdup(f->version, f->versionlen), false)
						: NULL;

	if (v == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid schema version \"%.*s\" in document",
						f->versionlen, f->version),
				 key ? errdetail("Key \"%s\", type \"%.*s\".", key, f->typelen,
								 f->type)
					 : errdetail("Type \"%.*s\".", f->typelen, f->type)));
	return v;
}
