/*-------------------------------------------------------------------------
 *
 * mapping/convert.c
 *	  Values between tables and documents, in C where they run per row:
 *	  N1QL's value states (is_missing, is_null, is_valued), epoch numbers
 *	  (to_epoch, from_epoch) and compact(), whose walker the migration step
 *	  drop_empty shares. No state.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "json/tree.h"
#include "json/util.h"
#include "mapping/convert.h"

PG_FUNCTION_INFO_V1(mapping_is_missing);
PG_FUNCTION_INFO_V1(mapping_is_null);
PG_FUNCTION_INFO_V1(mapping_is_valued);
PG_FUNCTION_INFO_V1(mapping_to_epoch);
PG_FUNCTION_INFO_V1(mapping_from_epoch);
PG_FUNCTION_INFO_V1(mapping_compact);
/*
 * Return the value at path (a text[] of member names and array indexes,
 * as #> takes) in doc, or NULL when it is missing.
 */
JsonbValue *
DocmodelValueAtPath(Jsonb *doc, ArrayType *path)
{
	JsonbValue *root = palloc(sizeof(JsonbValue));
	JsonPointer p;
	JsonTreeMiss miss;
	StringInfoData ptr;
	Datum *elems;
	bool *nulls;
	int i;

	deconstruct_array(path, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls,
					  &p.ntok);
	p.tok = palloc(sizeof(char *) * (p.ntok + 1));
	p.toklen = palloc(sizeof(int) * (p.ntok + 1));
	initStringInfo(&ptr);
	for (i = 0; i < p.ntok; i++)
	{
		if (nulls[i])
			return NULL; /* a NULL step reaches nothing */
		p.tok[i] = TextDatumGetCString(elems[i]);
		p.toklen[i] = strlen(p.tok[i]);
		DocmodelJsonPointerAppendToken(&ptr, p.tok[i], p.toklen[i]);
	}
	p.text = ptr.data;
	DocmodelJsonTreeFromJsonb(doc, root);
	return DocmodelJsonTreeRead(root, &p, 0, &miss);
}

/* is_missing(doc, VARIADIC path): the path is not in the document. */
Datum
mapping_is_missing(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(DocmodelValueAtPath(PG_GETARG_JSONB_P(0),
									   PG_GETARG_ARRAYTYPE_P(1)) == NULL);
}

/* is_null(doc, VARIADIC path): the path holds JSON null. */
Datum
mapping_is_null(PG_FUNCTION_ARGS)
{
	JsonbValue *v =
		DocmodelValueAtPath(PG_GETARG_JSONB_P(0), PG_GETARG_ARRAYTYPE_P(1));

	PG_RETURN_BOOL(v != NULL && v->type == jbvNull);
}

/* is_valued(doc, VARIADIC path): the path holds a value other than null. */
Datum
mapping_is_valued(PG_FUNCTION_ARGS)
{
	JsonbValue *v =
		DocmodelValueAtPath(PG_GETARG_JSONB_P(0), PG_GETARG_ARRAYTYPE_P(1));

	PG_RETURN_BOOL(v != NULL && v->type != jbvNull);
}

/* Return the epoch unit named by argument argno, in nanoseconds. */
static int64
UnitArg(FunctionCallInfo fcinfo, int argno)
{
	char *name = text_to_cstring(PG_GETARG_TEXT_PP(argno));
	int64 ns;

	if (!DocmodelEpochUnit(name, &ns))
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("unknown epoch unit \"%s\"", name),
						errhint("The units are ns, us, ms, s, min, h and "
								"day.")));
	return ns;
}

/* to_epoch(ts, unit): whole units since 1970-01-01 UTC, rounded down. */
Datum
mapping_to_epoch(PG_FUNCTION_ARGS)
{
	TimestampTz ts = PG_GETARG_TIMESTAMPTZ(0);
	int64 n;

	if (!DocmodelToEpoch(ts, UnitArg(fcinfo, 1), &n))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("timestamp %s is out of range for epoch unit \"%s\"",
						timestamptz_to_str(ts),
						text_to_cstring(PG_GETARG_TEXT_PP(1)))));
	PG_RETURN_INT64(n);
}

/* from_epoch(n, unit): the time n units after 1970-01-01 UTC. */
Datum
mapping_from_epoch(PG_FUNCTION_ARGS)
{
	int64 n = PG_GETARG_INT64(0);
	TimestampTz ts;

	if (!DocmodelFromEpoch(n, UnitArg(fcinfo, 1), &ts))
		ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
						errmsg("epoch " INT64_FORMAT " %s is out of range", n,
							   text_to_cstring(PG_GETARG_TEXT_PP(1)))));
	PG_RETURN_TIMESTAMPTZ(ts);
}

bool
DocmodelIsEmptyValue(const JsonbValue *v)
{
	switch (v->type)
	{
		case jbvNull:
			return true;
		case jbvString:
			return v->val.string.len == 0;
		case jbvArray:
			return v->val.array.nElems == 0;
		case jbvObject:
			return v->val.object.nPairs == 0;
		default:
			return false;
	}
}

bool
DocmodelIsDashedGuid(const char *s, int len)
{
	int i;

	if (len != 36)
		return false;
	for (i = 0; i < len; i++)
		if ((i == 8 || i == 13 || i == 18 || i == 23)
				? s[i] != '-'
				: !isxdigit((unsigned char) s[i]))
			return false;
	return true;
}

/* Convert string node v as o says. */
static void
CompactString(JsonbValue *v, const DocmodelCompactOpts *o)
{
	TimestampTz ts;
	int64 n;

	if (o->date_ns != 0 &&
		DocmodelParseIso8601(v->val.string.val, v->val.string.len, &ts) &&
		DocmodelToEpoch(ts, o->date_ns, &n))
		*v = DocmodelJsonTreeInt(n);
	else if (o->guids &&
			 DocmodelIsDashedGuid(v->val.string.val, v->val.string.len))
	{
		char *out = palloc(32);
		int k = 0;
		int i;

		for (i = 0; i < 36; i++)
			if (v->val.string.val[i] != '-')
				out[k++] = v->val.string.val[i];
		*v = DocmodelJsonTreeString(out, 32);
	}
}

void
DocmodelCompact(JsonbValue *v, const DocmodelCompactOpts *o)
{
	int i;

	check_stack_depth();
	DocmodelJsonTreeExpand(v);
	if (v->type == jbvString)
		CompactString(v, o);
	else if (v->type == jbvObject)
		for (i = v->val.object.nPairs - 1; i >= 0; i--)
		{
			JsonbValue *m = &v->val.object.pairs[i].value;

			DocmodelCompact(m, o);
			if (m->type == jbvNull ? o->nulls
								   : o->empties && DocmodelIsEmptyValue(m))
				(void) DocmodelJsonTreeRemoveAt(v, i);
		}
	else if (v->type == jbvArray)
		for (i = 0; i < v->val.array.nElems; i++)
			DocmodelCompact(&v->val.array.elems[i], o);
}

/* Raise 22023: compact()'s option name is bad for the reason detail. */
static void
CompactBadOption(const char *name, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid compact option \"%s\"", name),
			 errdetail("%s", detail),
			 errhint("The options are nulls, empties and guids (booleans), "
					 "dates (an epoch unit, or false) and defaults (an object "
					 "from JSON Pointer to the value dropped there).")));
}

/*
 * Drop from root the members the defaults object names (JSON Pointer ->
 * value) where they hold that value.
 */
static void
DropDefaults(JsonbValue *root, JsonbValue *defaults)
{
	int i;

	DocmodelJsonTreeExpand(defaults);
	if (defaults->type != jbvObject)
		CompactBadOption("defaults",
						 "It must be an object from JSON Pointer to "
						 "value.");
	for (i = 0; i < defaults->val.object.nPairs; i++)
	{
		JsonbPair *d = &defaults->val.object.pairs[i];
		JsonPointer p;
		JsonTreeMiss miss;
		JsonbValue *v;
		JsonbValue removed;

		if (DocmodelJsonPointerParse(d->key.val.string.val,
									 d->key.val.string.len, false,
									 &p) != JSONPOINTER_OK)
			CompactBadOption(
				"defaults",
				psprintf("\"%.*s\" is not a JSON Pointer to a member.",
						 d->key.val.string.len, d->key.val.string.val));
		v = DocmodelJsonTreeWalk(root, &p, p.ntok, 0, &miss);
		if (v != NULL && DocmodelJsonTreeEqual(v, &d->value))
			(void) DocmodelJsonTreeRemove(root, &p, &removed, &miss);
	}
}

/* compact(doc, options): see doc/mappings.md. */
Datum
mapping_compact(PG_FUNCTION_ARGS)
{
	Jsonb *doc = PG_GETARG_JSONB_P(0);
	Jsonb *options = PG_GETARG_JSONB_P(1);
	DocmodelCompactOpts o = {true, true, false, 0};
	JsonbValue opts;
	JsonbValue root;
	int i;

	DocmodelJsonTreeFromJsonb(options, &opts);
	DocmodelJsonTreeExpand(&opts);
	if (opts.type != jbvObject)
		CompactBadOption("options", "Give the options as a JSON object.");
	DocmodelJsonTreeFromJsonb(doc, &root);
	for (i = 0; i < opts.val.object.nPairs; i++)
	{
		JsonbPair *op = &opts.val.object.pairs[i];
		char *name = pnstrdup(op->key.val.string.val, op->key.val.string.len);
		JsonbValue *v = &op->value;

		if (strcmp(name, "defaults") == 0)
			DropDefaults(&root, v);
		else if (strcmp(name, "dates") == 0)
		{
			if (v->type == jbvBool && !v->val.boolean)
				o.date_ns = 0;
			else if (v->type != jbvString ||
					 !DocmodelEpochUnit(
						 pnstrdup(v->val.string.val, v->val.string.len),
						 &o.date_ns))
				CompactBadOption(name,
								 "It is an epoch unit (ns, us, ms, s, min, h, "
								 "day), or false.");
		}
		else if (strcmp(name, "nulls") == 0 || strcmp(name, "empties") == 0 ||
				 strcmp(name, "guids") == 0)
		{
			if (v->type != jbvBool)
				CompactBadOption(name, "It is true or false.");
			*(name[0] == 'n'   ? &o.nulls
			  : name[0] == 'e' ? &o.empties
							   : &o.guids) = v->val.boolean;
		}
		else
			CompactBadOption(name, "It is not an option of compact().");
	}
	DocmodelCompact(&root, &o);
	PG_RETURN_JSONB_P(DocmodelJsonTreeToJsonb(&root));
}
