/*-------------------------------------------------------------------------
 *
 * jsonschema/registry.c
 *	  The schema registry (docmodel.schemas: a JSON Schema and a mode per
 *	  document type and version, written by register_schema/drop_schema),
 *	  its enforcement by the collection trigger (DocmodelValidateWrite), and
 *	  validate(doc) / validation_errors(doc). Schemas are compiled and run
 *	  by schema.c and run.c.
 *
 *	  Shared state: a backend-local copy of docmodel.schemas (SchemaRegistry,
 *	  in its own context under CacheMemoryContext). A statement trigger on
 *	  the table sends a relcache invalidation for it; our relcache
 *	  subscriber (called by docmodel.c's dispatcher) only marks the copy
 *	  stale, and the next lookup reloads it with one query.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "collection/config.h"
#include "docmodel.h"
#include "collection/fields.h"
#include "jsonschema/validate.h"
#include "collection/version.h"
#include "catalog.h"
#include "collection/stamp.h"
#include "jsonschema/registry.h"

/* How a type's schema is enforced on write (README, "Schema validation"). */
typedef enum SchemaMode
{
	SCHEMA_STRICT,
	SCHEMA_MODERATE,
	SCHEMA_WARN,
	SCHEMA_OFF
} SchemaMode;

/* One registered schema. */
typedef struct RegisteredSchema
{
	char *doc_type;
	int type_len;
	DocVersion *version;
	char *version_text;
	int version_len;
	Jsonb *schema;
	DocmodelSchema *compiled; /* in the registry's context, once used */
	SchemaMode mode;
} RegisteredSchema;

static MemoryContext SchemaRegistryContext = NULL;
static RegisteredSchema *SchemaRegistry = NULL;
static int SchemaRegistryCount = 0;
static bool SchemaRegistryValid = false;
static uint64 SchemaInvalCount = 0;
static Oid SchemaRegistryRelid = InvalidOid;

/* How many violations the detail of a refused write lists. */
#define SCHEMA_DETAIL_MAX 3

PG_FUNCTION_INFO_V1(schema_schemas_changed);
PG_FUNCTION_INFO_V1(schema_validate);
PG_FUNCTION_INFO_V1(schema_validation_errors);

/* Mark the registry copy stale when docmodel.schemas (or everything) changes. */
void
DocmodelSchemaRelcache(Oid relid)
{
	if (relid == InvalidOid || relid == SchemaRegistryRelid)
	{
		SchemaRegistryValid = false;
		SchemaInvalCount++;
	}
}

/* The statement trigger on docmodel.schemas: tell every backend, and the
 * Citus workers (citus.c). */
Datum
schema_schemas_changed(PG_FUNCTION_ARGS)
{
	return DocmodelCatalogChanged(fcinfo, "schemas_changed");
}

/* Read docmodel.schemas into a new registry copy. */
static void
LoadRegistry(void)
{
	MemoryContext caller = CurrentMemoryContext;
	MemoryContext cxt;
	uint64 gen;
	uint64 i;

	SchemaRegistryRelid =
		get_relname_relid("schemas", get_namespace_oid("docmodel", false));
	if (!OidIsValid(SchemaRegistryRelid))
	{
		/* the SQL of 0.1.0 (not updated yet): no schemas, look again later */
		SchemaRegistryCount = 0;
		return;
	}
	gen = SchemaInvalCount;
	cxt = AllocSetContextCreate(CacheMemoryContext, "docmodel schemas",
								ALLOCSET_SMALL_SIZES);
	PG_TRY();
	{
		DocmodelSpiConnect();
		if (SPI_execute("SELECT doc_type, version::text, schema, mode "
						"FROM docmodel.schemas",
						true, 0) != SPI_OK_SELECT)
			elog(ERROR, "reading docmodel.schemas failed");
		MemoryContextSwitchTo(cxt);
		SchemaRegistry =
			palloc0(sizeof(RegisteredSchema) * Max(SPI_processed, 1));
		for (i = 0; i < SPI_processed; i++)
		{
			HeapTuple tup = SPI_tuptable->vals[i];
			TupleDesc desc = SPI_tuptable->tupdesc;
			RegisteredSchema *r = &SchemaRegistry[i];
			bool isnull;
			char *mode;

			r->doc_type = SPI_getvalue(tup, desc, 1);
			r->type_len = strlen(r->doc_type);
			r->version_text = SPI_getvalue(tup, desc, 2);
			r->version_len = strlen(r->version_text);
			r->version = DocmodelVersionFromCString(r->version_text, true);
			r->schema =
				DatumGetJsonbPCopy(SPI_getbinval(tup, desc, 3, &isnull));
			mode = SPI_getvalue(tup, desc, 4);
			r->mode = strcmp(mode, "strict") == 0     ? SCHEMA_STRICT
					  : strcmp(mode, "moderate") == 0 ? SCHEMA_MODERATE
					  : strcmp(mode, "warn") == 0     ? SCHEMA_WARN
													  : SCHEMA_OFF;
		}
		SchemaRegistryCount = SPI_processed;
		MemoryContextSwitchTo(caller);
		SPI_finish();
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(caller);
		MemoryContextDelete(cxt);
		SchemaRegistry = NULL;
		SchemaRegistryCount = 0;
		PG_RE_THROW();
	}
	PG_END_TRY();
	if (SchemaRegistryContext != NULL)
		MemoryContextDelete(SchemaRegistryContext);
	SchemaRegistryContext = cxt;
	SchemaRegistryValid = (gen == SchemaInvalCount);
}

/*
 * Return the schema registered for type at version (NULL: none); a
 * document without a version (version NULL) takes the type's newest.
 */
static RegisteredSchema *
LookupSchema(const char *type, int type_len, const DocVersion *version)
{
	RegisteredSchema *best = NULL;
	int i;

	if (!SchemaRegistryValid)
		LoadRegistry();
	for (i = 0; i < SchemaRegistryCount; i++)
	{
		RegisteredSchema *r = &SchemaRegistry[i];

		if (r->type_len != type_len || memcmp(r->doc_type, type, type_len) != 0)
			continue;
		if (version != NULL)
		{
			if (DocmodelVersionCmp(r->version, version) == 0)
				return r;
		}
		else if (best == NULL ||
				 DocmodelVersionCmp(r->version, best->version) > 0)
			best = r;
	}
	return best;
}

/* The compiled schema of r, compiled the first time the registry needs it. */
static DocmodelSchema *
Compiled(RegisteredSchema *r)
{
	if (r->compiled == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(SchemaRegistryContext);

		r->compiled = DocmodelSchemaCompile(r->schema);
		MemoryContextSwitchTo(old);
	}
	return r->compiled;
}

/*
 * Return the schema that applies to doc, whose management fields fs
 * describes (a collection's, or a meta style's preset; NULL for an xattrs
 * body, whose fields are in the column meta), or NULL.
 */
static RegisteredSchema *SchemaOfFields(DocFields *f, const char *type,
										int type_len, const char *key);

static RegisteredSchema *
SchemaOfDocument(Jsonb *doc, const DocFieldSet *fs, const char *type,
				 int type_len, const char *key)
{
	DocFields f = {0};

	if (!SchemaRegistryValid)
		LoadRegistry();

	/* a body without fields (not an object, or xattrs: fs NULL) */
	if (!JB_ROOT_IS_OBJECT(doc) || fs == NULL)
		return LookupSchema(type, type_len, NULL);
	if (DocmodelFieldsFindIn(doc, fs, &f) && type == NULL)
	{
		type = f.type;
		type_len = f.typelen;
	}
	return SchemaOfFields(&f, type, type_len, key);
}

/* The same once the document's fields f are found. */
static RegisteredSchema *
SchemaOfFields(DocFields *f, const char *type, int type_len, const char *key)
{
	DocVersion *v = NULL;

	if (!SchemaRegistryValid)
		LoadRegistry();
	if (type == NULL)
		return NULL;
	if (f->has_version && f->version_ok)
	{
		int i;

		/* the version as the registry spells it (the usual case) */
		for (i = 0; i < SchemaRegistryCount; i++)
		{
			RegisteredSchema *r = &SchemaRegistry[i];

			if (r->type_len == type_len && r->version_len == f->versionlen &&
				memcmp(r->version_text, f->version, f->versionlen) == 0 &&
				memcmp(r->doc_type, type, type_len) == 0)
				return r;
		}
	}
	if (f->has_version)
		v = DocmodelFieldsParseVersion(f, key);
	return LookupSchema(type, type_len, v);
}

/* Append the first violations to buf ("path: message; ..."). */
static void
DescribeViolations(StringInfo buf, List *errors)
{
	ListCell *lc;
	int n = 0;

	foreach (lc, errors)
	{
		DocmodelViolation *e = lfirst(lc);

		if (n == SCHEMA_DETAIL_MAX)
		{
			appendStringInfo(buf, "; and %d more", list_length(errors) - n);
			break;
		}
		appendStringInfo(buf, "%s%s: %s", n ? "; " : "",
						 e->path[0] ? e->path : "(root)", e->message);
		n++;
	}
}

/* Report (at elevel) that doc is invalid against r: its first violations. */
static void
ReportInvalid(RegisteredSchema *r, DocmodelSchema *s, Jsonb *doc,
			  const char *key, int elevel)
{
	List *errors = NIL;
	StringInfoData detail;

	DocmodelSchemaValidate(s, doc, &errors, SCHEMA_DETAIL_MAX + 1);
	initStringInfo(&detail);
	DescribeViolations(&detail, errors);
	ereport(elevel,
			(errcode(ERRCODE_CHECK_VIOLATION),
			 errmsg("document \"%s\" is not valid against the schema of type "
					"\"%s\" version %s",
					key, r->doc_type, r->version_text),
			 errdetail("%s", detail.data),
			 elevel == WARNING
				 ? errhint("The schema's mode is warn: the document is stored.")
				 : 0));
}

/* Whether any schema is registered: a write has anything to validate. */
bool
DocmodelValidateWanted(void)
{
	if (!SchemaRegistryValid)
		LoadRegistry();
	return SchemaRegistryCount > 0;
}

/*
 * Enforce the schema of the written document (the collection trigger's
 * step after the assembly): doc is the document to store, st the write.
 * Errors: 23514 when the mode refuses an invalid document.
 */
void
DocmodelValidateWrite(Jsonb *doc, const DocmodelStamp *st)
{
	RegisteredSchema *r;
	char *key;
	DocmodelSchema *s;

	/* no schema registered (the usual case): no per-row work */
	if (!SchemaRegistryValid)
		LoadRegistry();
	if (SchemaRegistryCount == 0)
		return;
	key = pnstrdup(st->key, st->key_len);
	r = SchemaOfDocument(doc, st->cfg->xattrs ? NULL : st->cfg->fs, st->type,
						 st->type_len, key);
	if (r == NULL || r->mode == SCHEMA_OFF)
		return;
	s = Compiled(r);
	if (DocmodelSchemaValidate(s, doc, NULL, 0))
		return;
	if (r->mode == SCHEMA_MODERATE && !st->is_insert && st->old_doc != NULL)
	{
		/* an already invalid document may be updated */
		RegisteredSchema *old =
			SchemaOfDocument(st->old_doc, st->cfg->xattrs ? NULL : st->cfg->fs,
							 st->type, st->type_len, key);

		if (old != NULL &&
			!DocmodelSchemaValidate(Compiled(old), st->old_doc, NULL, 0))
			return;
	}
	ReportInvalid(r, s, doc, key, r->mode == SCHEMA_WARN ? WARNING : ERROR);
}

/* Refuse a document a bulk migration produced; see collection/config.h. */
void
DocmodelValidateMigrated(Jsonb *doc, const char *key, const DocFieldSet *fs)
{
	RegisteredSchema *r;
	DocmodelSchema *s;

	/* no schema registered (the usual case): no per-document work */
	if (!SchemaRegistryValid)
		LoadRegistry();
	if (SchemaRegistryCount == 0 || !JB_ROOT_IS_OBJECT(doc))
		return;
	r = SchemaOfDocument(doc, fs ? fs : DocmodelFieldSetFor(DOC_META_AUTO),
						 NULL, 0, key);
	if (r == NULL || r->mode == SCHEMA_OFF)
		return;
	s = Compiled(r);
	if (!DocmodelSchemaValidate(s, doc, NULL, 0))
		ReportInvalid(r, s, doc, key ? key : "", ERROR);
}

/* The first violation of a migrated document, as "path: message"; see
 * collection/config.h. */
char *
DocmodelFirstViolation(Jsonb *doc, const char *key, const DocFieldSet *fs)
{
	RegisteredSchema *r;
	List *errors = NIL;
	DocmodelViolation *e;

	if (!JB_ROOT_IS_OBJECT(doc))
		return NULL;
	r = SchemaOfDocument(doc, fs ? fs : DocmodelFieldSetFor(DOC_META_AUTO),
						 NULL, 0, key);
	if (r == NULL || r->mode == SCHEMA_OFF ||
		DocmodelSchemaValidate(Compiled(r), doc, &errors, 1))
		return NULL;
	e = linitial(errors);
	return psprintf("%s: %s", e->path, e->message);
}

/*
 * Return the schema of a document given to validate(): 22023 without a type.
 * Its fields are read where collection argument 1 keeps them, when given
 * (validate(doc, coll)), else in any meta style.
 */
static RegisteredSchema *
SchemaForSql(FunctionCallInfo fcinfo, Jsonb *doc)
{
	DocFields f;
	const DocFieldSet *fs = NULL;

	if (PG_NARGS() > 1 && !PG_ARGISNULL(1))
	{
		const DocmodelCollection *cfg = DocmodelCollectionOf(PG_GETARG_OID(1));

		if (cfg->xattrs)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("collection \"%s\" keeps its documents' type "
							"and version in column meta, not in the body",
							get_rel_name(PG_GETARG_OID(1))),
					 errhint("Registered schemas do not apply to the bodies "
							 "of a meta_style xattrs collection; "
							 "schema_valid() takes any schema.")));
		fs = cfg->fs;
	}
	if (!JB_ROOT_IS_OBJECT(doc) ||
		!(fs ? DocmodelFieldsFindIn(doc, fs, &f)
			 : DocmodelFieldsFind(doc, DOC_META_AUTO, &f)) ||
		f.type == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("document has no type field"),
				 errhint("validate() takes a document's type and version from "
						 "its management fields; schema_valid() takes any "
						 "schema.")));
	/* the fields as found (SchemaOfDocument would find them again) */
	return SchemaOfFields(&f, f.type, f.typelen, NULL);
}

/*
 * validate(doc jsonb [, coll regclass]) returns boolean: valid against its
 * type and version's schema
 */
Datum
schema_validate(PG_FUNCTION_ARGS)
{
	Jsonb *doc = PG_GETARG_JSONB_P(0);
	RegisteredSchema *r = SchemaForSql(fcinfo, doc);

	if (r == NULL)
		PG_RETURN_BOOL(true); /* no schema registered: nothing to break */
	PG_RETURN_BOOL(DocmodelSchemaValidate(Compiled(r), doc, NULL, 0));
}

/*
 * validation_errors(doc jsonb [, coll regclass]) returns table(path,
 * schema_path, message)
 */
Datum
schema_validation_errors(PG_FUNCTION_ARGS)
{
	Jsonb *doc = PG_GETARG_JSONB_P(0);
	RegisteredSchema *r = SchemaForSql(fcinfo, doc);
	List *errors = NIL;

	if (r != NULL)
		DocmodelSchemaValidate(Compiled(r), doc, &errors, 0);
	DocmodelReturnViolations(fcinfo, errors);
	PG_RETURN_VOID();
}
