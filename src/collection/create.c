/*-------------------------------------------------------------------------
 *
 * collection/create.c
 *	  The C helpers of create_collection(): checking its options, and the
 *	  one way docmodel names the tables it derives from a collection
 *	  (DocmodelDerivedName), and what an ALTER TABLE changed of a table (its
 *	  owner, its schema) for the event trigger that makes a collection's
 *	  parts follow it. No state.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_namespace.h"
#include "mb/pg_wchar.h"
#include "nodes/makefuncs.h"
#include "nodes/parsenodes.h"
#include "tcop/deparse_utility.h"
#include "utils/varlena.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "collection/config.h"
#include "collection/create.h"
#include "collection/key.h"
#include "collection/layout.h"

PG_FUNCTION_INFO_V1(collection_check_collection_options);
PG_FUNCTION_INFO_V1(collection_create_collection);
PG_FUNCTION_INFO_V1(collection_derived_name);
PG_FUNCTION_INFO_V1(collection_ddl_changes_owner);
PG_FUNCTION_INFO_V1(collection_ddl_old_schema);

/*
 * Raise 22023 naming the bad option of create_collection() (22004 when it is
 * NULL).
 */
static void
CreateBadOption(const char *what, const char *value, const char *hint)
{
	ereport(ERROR, (errcode(value ? ERRCODE_INVALID_PARAMETER_VALUE
								  : ERRCODE_NULL_VALUE_NOT_ALLOWED),
					errmsg("invalid %s \"%s\"", what, value ? value : "NULL"),
					hint ? errhint("%s", hint) : 0));
}

/*
 * Check create_collection()'s options: (name, doc_type, revisions,
 * meta_style, time_unit, delimiter), meta_style given as meta (argument 3
 * as resolved by the caller). Raises 22023 on the first bad one.
 */
static void
CheckCollectionOptions(FunctionCallInfo fcinfo, const char *meta)
{
	char *name = PG_ARGISNULL(0) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(0));
	char *doc_type =
		PG_ARGISNULL(1) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(1));
	char *unit = PG_ARGISNULL(4) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(4));
	char *delim =
		PG_ARGISNULL(5) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(5));
	DocMetaStyle ms;
	bool xattrs;
	int tu;

	if (name == NULL || name[0] == '\0')
		CreateBadOption("collection name", name, NULL);
	if (PG_ARGISNULL(2) || PG_GETARG_INT32(2) < 0)
		CreateBadOption("revisions",
						PG_ARGISNULL(2) ? NULL
										: psprintf("%d", PG_GETARG_INT32(2)),
						"Give the number of revisions to keep, 0 for none.");
	if (meta == NULL || !DocmodelConfigMetaStyle(meta, &ms, &xattrs))
		CreateBadOption("meta_style", meta,
						"Use one of underscore, meta, plain, xattrs, columns.");
	if (unit == NULL || !DocmodelConfigTimeUnit(unit, &tu))
		CreateBadOption("time_unit", unit,
						"Use one of ms, s, min, h, day, iso.");
	if (delim == NULL)
		CreateBadOption("key delimiter", delim, NULL);
	DocmodelCheckDelimiter(delim, strlen(delim));
	if (doc_type != NULL)
	{
		if (strstr(doc_type, delim) != NULL || doc_type[0] == '\0')
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid doc_type \"%s\"", doc_type),
					 errdetail("A document type is one non-empty key part, "
							   "without the delimiter \"%s\".",
							   delim)));
		DocmodelCheckKey(doc_type, strlen(doc_type), delim, strlen(delim),
						 true);
	}
}

/*
 * _check_collection_options(name, doc_type, revisions, meta_style,
 * time_unit, delimiter): create_collection()'s checks; a NULL meta_style
 * is 22004 here (create_collection() resolves it first).
 */
Datum
collection_check_collection_options(PG_FUNCTION_ARGS)
{
	CheckCollectionOptions(
		fcinfo, PG_ARGISNULL(3) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(3)));
	PG_RETURN_VOID();
}

/*
 * Check create_collection()'s types (argument 10, not NULL): a body-typed
 * collection has type_part 0, no doc_type, keeps its fields in the body
 * (not xattrs), and lists one or more types, each a non-empty name of at
 * most DOCMODEL_MAX_KEY_BYTES bytes. Raises 22023.
 */
static void
CheckTypes(FunctionCallInfo fcinfo, int32 part, const char *meta)
{
	ArrayType *arr = PG_GETARG_ARRAYTYPE_P(10);
	Datum *elems;
	bool *nulls;
	int n;
	int i;

	if (part != 0 || !PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("types needs type_part 0 and no doc_type"),
				 errdetail("types lists the types a document of a collection "
						   "whose keys carry no type may have, read from its "
						   "body's type field."),
				 errhint("Give type_part => 0 and leave doc_type out.")));
	if (strcmp(meta, "xattrs") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("types needs the type field in the body"),
				 errdetail("meta_style 'xattrs' keeps the type field outside "
						   "the body.")));
	if (ARR_NDIM(arr) > 1)
		CreateBadOption("types", "(a multidimensional array)",
						"Give a one-dimensional array of type names.");
	deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls,
					  &n);
	if (n == 0)
		CreateBadOption("types", "{}", "Give one type name or more.");
	for (i = 0; i < n; i++)
	{
		int len;

		CHECK_FOR_INTERRUPTS();
		if (nulls[i])
			CreateBadOption("types", "(an array with a NULL)",
							"Give type names, none NULL.");
		len = VARSIZE_ANY_EXHDR(DatumGetPointer(elems[i]));
		if (len == 0 || len > DOCMODEL_MAX_KEY_BYTES)
			ereport(
				ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid type \"%s\" in types",
						len == 0 ? "" : pnstrdup(VARDATA_ANY(elems[i]), 64)),
				 errdetail("A document type is a non-empty name of at "
						   "most %d bytes.",
						   DOCMODEL_MAX_KEY_BYTES)));
	}
}

/*
 * Check create_collection()'s key layout and field names (type_part,
 * type_check, fields: arguments 7 to 9, absent under the 0.1.0 schema);
 * raise 22023 on the first bad one. Return whether they differ from the
 * defaults (type_part 1, 'exact', no fields), i.e. must be recorded.
 */
static bool
CheckLayoutOptions(FunctionCallInfo fcinfo, const char *meta)
{
	DocMetaStyle ms;
	bool xattrs;
	int tc = DOCMODEL_TYPE_EXACT;
	int32 part;

	if (PG_NARGS() < 10)
		return false;
	part = PG_ARGISNULL(7) ? -1 : PG_GETARG_INT32(7);
	if (part < 0 || part > DOCMODEL_MAX_KEY_BYTES / 2)
		CreateBadOption("type_part",
						PG_ARGISNULL(7) ? NULL : psprintf("%d", part),
						"Give the key part that holds the document type (1 the "
						"first), or 0 when keys carry no type.");
	if (part == 0 && PG_ARGISNULL(1) && (PG_NARGS() < 11 || PG_ARGISNULL(10)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("type_part 0 needs a doc_type or types"),
				 errdetail("With type_part 0 keys carry no type: the "
						   "collection's doc_type is every document's type, "
						   "or each document's type is read from its body "
						   "and is one of the collection's types."),
				 errhint("Give doc_type or types as well.")));
	if (PG_ARGISNULL(8) ||
		!DocmodelConfigTypeCheck(text_to_cstring(PG_GETARG_TEXT_PP(8)), &tc))
		CreateBadOption("type_check",
						PG_ARGISNULL(8) ? NULL
										: text_to_cstring(PG_GETARG_TEXT_PP(8)),
						"Use one of exact, case_insensitive, off.");
	if (!PG_ARGISNULL(9))
	{
		(void) DocmodelConfigMetaStyle(meta, &ms, &xattrs);
		(void) DocmodelFieldSetFromSpec(PG_GETARG_JSONB_P(9), ms);
	}
	if (PG_NARGS() > 10 && !PG_ARGISNULL(10))
		CheckTypes(fcinfo, part, meta);
	return part != 1 || tc != DOCMODEL_TYPE_EXACT || !PG_ARGISNULL(9) ||
		   (PG_NARGS() > 10 && !PG_ARGISNULL(10));
}

/*
 * create_collection(name, doc_type, revisions, meta_style, time_unit,
 * delimiter, max_ttl, type_part, type_check, fields) -> regclass: check
 * the options, resolve the name against the caller's search_path, and let
 * _create_collection() do the rest; a max_ttl, the meta column of an
 * xattrs collection and a key layout other than the default are recorded
 * after.
 */
Datum
collection_create_collection(PG_FUNCTION_ARGS)
{
	Oid argtypes[7] = {TEXTOID, TEXTOID, TEXTOID, INT4OID,
					   TEXTOID, TEXTOID, TEXTOID};
	Datum args[7];
	char nulls[7] = {' ', ' ', ' ', ' ', ' ', ' ', ' '};
	List *names;
	RangeVar *rv;
	Oid nsp;
	int ret;
	int i;
	bool isnull;
	Datum result;
	bool layout;
	char *meta;

	/* meta_style NULL: the setting docmodel.default_meta_style */
	meta = PG_ARGISNULL(3) ? pstrdup(docmodel_default_meta_style)
						   : text_to_cstring(PG_GETARG_TEXT_PP(3));
	CheckCollectionOptions(fcinfo, meta);
	layout = CheckLayoutOptions(fcinfo, meta);
	/* max_ttl: absent under the 0.1.0 schema, before its update */
	if (PG_NARGS() > 6 && !PG_ARGISNULL(6) && PG_GETARG_INT32(6) < 0)
		CreateBadOption(
			"max_ttl", psprintf("%d", PG_GETARG_INT32(6)),
			"Give the longest expiry of the collection's documents in "
			"seconds, 0 or NULL for none.");
	names = textToQualifiedNameList(PG_GETARG_TEXT_PP(0));
	if (list_length(names) > 2)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("invalid collection name \"%s\"",
							   text_to_cstring(PG_GETARG_TEXT_PP(0))),
						errdetail("A collection name is a table name, "
								  "optionally schema-qualified.")));
	rv = makeRangeVarFromNameList(names);
	nsp = RangeVarGetCreationNamespace(rv);
	args[0] = CStringGetTextDatum(get_namespace_name(nsp));
	args[1] = CStringGetTextDatum(rv->relname);
	for (i = 1; i < 6; i++)
	{
		args[i + 1] = PG_GETARG_DATUM(i);
		if (PG_ARGISNULL(i))
			nulls[i + 1] = 'n';
	}
	args[4] = CStringGetTextDatum(meta);
	nulls[4] = ' ';
	DocmodelSpiConnect();
	ret = SPI_execute_with_args("SELECT docmodel._create_collection($1, $2, "
								"$3, $4, $5, $6, $7)",
								7, argtypes, args, nulls, false, 1);
	if (ret != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "docmodel._create_collection failed: %d", ret);
	result =
		SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (PG_NARGS() > 6 && !PG_ARGISNULL(6) && PG_GETARG_INT32(6) > 0)
	{
		Oid ttypes[2] = {OIDOID, INT4OID};
		Datum targs[2] = {result, PG_GETARG_DATUM(6)};

		ret = SPI_execute_with_args(
			"SELECT docmodel._config_set_max_ttl($1::pg_catalog.regclass, $2)",
			2, ttypes, targs, NULL, false, 1);
		if (ret != SPI_OK_SELECT)
			elog(ERROR, "docmodel._config_set_max_ttl failed: %d", ret);
	}
	if (strcmp(meta, "xattrs") == 0)
	{
		/* the management fields, outside the body (column 6) */
		Oid relid = DatumGetObjectId(result);

		ret = SPI_execute(
			psprintf("ALTER TABLE %s ADD COLUMN meta pg_catalog.jsonb",
					 quote_qualified_identifier(
						 get_namespace_name(get_rel_namespace(relid)),
						 get_rel_name(relid))),
			false, 0);
		if (ret != SPI_OK_UTILITY)
			elog(ERROR, "adding column meta failed: %d", ret);
	}
	if (layout)
	{
		bool notypes = PG_NARGS() < 11 || PG_ARGISNULL(10);
		Oid ltypes[5] = {OIDOID, INT4OID, TEXTOID, JSONBOID, TEXTARRAYOID};
		Datum largs[5] = {result, PG_GETARG_DATUM(7), PG_GETARG_DATUM(8),
						  PG_ARGISNULL(9) ? (Datum) 0 : PG_GETARG_DATUM(9),
						  notypes ? (Datum) 0 : PG_GETARG_DATUM(10)};
		char lnulls[5] = {' ', ' ', ' ', PG_ARGISNULL(9) ? 'n' : ' ',
						  notypes ? 'n' : ' '};

		ret = SPI_execute_with_args(
			"SELECT docmodel._config_set_layout($1::pg_catalog.regclass, $2, "
			"$3, $4, $5)",
			5, ltypes, largs, lnulls, false, 1);
		if (ret != SPI_OK_SELECT)
			elog(ERROR, "docmodel._config_set_layout failed: %d", ret);
	}
	SPI_finish();
	PG_RETURN_DATUM(result);
}

/*
 * Return a free name, in namespace nsp, for a table derived from the table
 * named base (its history: label "revisions"), chosen the way PostgreSQL
 * chooses index and constraint names (ChooseRelationName() and
 * makeObjectName() in indexcmds.c): base, "_", label, with base cut at a
 * character boundary so that the whole fits in NAMEDATALEN - 1 bytes; when
 * that name is taken by any relation, the label gets a number (revisions1,
 * revisions2, ...). The label is never cut, so the name says what it is.
 */
char *
DocmodelDerivedName(Oid nsp, const char *base, const char *label)
{
	char modlabel[NAMEDATALEN];
	int pass = 0;

	if (strlen(label) > NAMEDATALEN - 2 - 10)
		ereport(ERROR,
				(errcode(ERRCODE_NAME_TOO_LONG),
				 errmsg("derived name label \"%s\" is too long", label)));
	strlcpy(modlabel, label, sizeof(modlabel));
	for (;;)
	{
		int llen = strlen(modlabel);
		int blen = strlen(base);
		char *name;

		if (blen + 1 + llen > NAMEDATALEN - 1)
			blen = pg_mbcliplen(base, blen, NAMEDATALEN - 2 - llen);
		name = psprintf("%.*s_%s", blen, base, modlabel);
		if (!OidIsValid(get_relname_relid(name, nsp)))
			return name;
		pfree(name);
		snprintf(modlabel, sizeof(modlabel), "%s%d", label, ++pass);
	}
}

/* SQL: _derived_name(nsp regnamespace, base text, label text) -> name. */
Datum
collection_derived_name(PG_FUNCTION_ARGS)
{
	char *name = DocmodelDerivedName(PG_GETARG_OID(0),
									 text_to_cstring(PG_GETARG_TEXT_PP(1)),
									 text_to_cstring(PG_GETARG_TEXT_PP(2)));
	Name result = (Name) palloc0(NAMEDATALEN);

	strlcpy(NameStr(*result), name, NAMEDATALEN);
	PG_RETURN_NAME(result);
}

/*
 * SQL: _ddl_changes_owner(pg_ddl_command) -> boolean: whether a command of
 * pg_event_trigger_ddl_commands() is an ALTER TABLE with an OWNER TO among
 * its subcommands. A pg_ddl_command has no input function: only an event
 * trigger's pg_event_trigger_ddl_commands() makes one.
 */
Datum
collection_ddl_changes_owner(PG_FUNCTION_ARGS)
{
	CollectedCommand *cmd = (CollectedCommand *) PG_GETARG_POINTER(0);
	ListCell *lc;

	if (cmd == NULL || cmd->type != SCT_AlterTable)
		PG_RETURN_BOOL(false);
	foreach (lc, cmd->d.alterTable.subcmds)
	{
		CollectedATSubcmd *sub = (CollectedATSubcmd *) lfirst(lc);

		if (sub->parsetree != NULL && IsA(sub->parsetree, AlterTableCmd) &&
			((AlterTableCmd *) sub->parsetree)->subtype == AT_ChangeOwner)
			PG_RETURN_BOOL(true);
	}
	PG_RETURN_BOOL(false);
}

/*
 * SQL: _ddl_old_schema(pg_ddl_command) -> oid: the schema an ALTER TABLE ...
 * SET SCHEMA of pg_event_trigger_ddl_commands() moved its table from (the
 * command's secondary object), NULL for any other command.
 */
Datum
collection_ddl_old_schema(PG_FUNCTION_ARGS)
{
	CollectedCommand *cmd = (CollectedCommand *) PG_GETARG_POINTER(0);

	if (cmd == NULL || cmd->type != SCT_Simple || cmd->parsetree == NULL ||
		!IsA(cmd->parsetree, AlterObjectSchemaStmt) ||
		cmd->d.simple.secondaryObject.classId != NamespaceRelationId)
		PG_RETURN_NULL();
	PG_RETURN_OID(cmd->d.simple.secondaryObject.objectId);
}
