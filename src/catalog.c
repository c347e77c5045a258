/*-------------------------------------------------------------------------
 *
 * catalog.c
 *	  The statement trigger of docmodel's catalogs (DocmodelCatalogChanged),
 *	  and the writes of docmodel's own tables that record other roles' objects
 *	  (docmodel.collection_config, docmodel.migration_run, the mapping
 *	  tables): no role but their owner may write them directly (README,
 *	  "Security"), so every change goes through the functions here. Each
 *	  checks the caller first, as PostgreSQL would for the object concerned
 *	  (owner of the collection, as ALTER TABLE; UPDATE on it for a
 *	  migration run; member of a mapping's owner role, SELECT on the tables
 *	  it maps: 42501 otherwise), then runs one fixed statement as the owner
 *	  of the docmodel table it writes.
 *
 *	  A SECURITY DEFINER function could not do this: inside it the caller
 *	  is no longer known, so it could not check the caller's rights. The
 *	  switch to the owner is a security-restricted operation (as in
 *	  REFRESH MATERIALIZED VIEW) around one SPI statement whose every name
 *	  and operator is schema-qualified, so the caller's search_path reaches
 *	  nothing. No shared state.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_depend.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "collection/columns.h"
#include "collection/config.h"
#include "collection/stamp.h"
#include "compat.h"
#include "docmodel.h"
#include "catalog.h"
#include "citus/citus.h"
#include "json/pointer.h"
#include "utils/inval.h"

PG_FUNCTION_INFO_V1(collection_config_changed);
PG_FUNCTION_INFO_V1(catalog_config_create);
PG_FUNCTION_INFO_V1(catalog_config_set_revisions);
PG_FUNCTION_INFO_V1(catalog_config_set_keep_for);
PG_FUNCTION_INFO_V1(catalog_record_erasure);
PG_FUNCTION_INFO_V1(catalog_config_adopt_history);
PG_FUNCTION_INFO_V1(catalog_config_drop);
PG_FUNCTION_INFO_V1(catalog_config_set_max_ttl);
PG_FUNCTION_INFO_V1(catalog_config_set_layout);
PG_FUNCTION_INFO_V1(catalog_config_set_documents);
PG_FUNCTION_INFO_V1(catalog_config_set_meta_style);
PG_FUNCTION_INFO_V1(migration_run_new);
PG_FUNCTION_INFO_V1(migration_run_set);
PG_FUNCTION_INFO_V1(mapping_write);
PG_FUNCTION_INFO_V1(copy_rule_write);

static void CheckRulesForColumns(Oid relid);

/* Raise 42501 unless the current user has UPDATE on relid. */
static void
RequireUpdate(Oid relid, const char *why)
{
	DocmodelRequireRelation(relid);
	if (pg_class_aclcheck(relid, GetUserId(), ACL_UPDATE) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for table %s", get_rel_name(relid)),
				 errdetail("%s needs UPDATE on the collection.", why)));
}

/* Fill values/nulls[0 .. n - 1] from the first n arguments of fcinfo. */
static void
TakeArgs(FunctionCallInfo fcinfo, int n, Datum *values, char *nulls)
{
	int i;

	for (i = 0; i < n; i++)
	{
		nulls[i] = PG_ARGISNULL(i) ? 'n' : ' ';
		values[i] = PG_ARGISNULL(i) ? (Datum) 0 : PG_GETARG_DATUM(i);
	}
}

/*
 * Update the configuration row of collection $1 (values[0]) with the SET
 * clause set; raise 42809 when the collection has none (no row updated:
 * DocmodelRequireCollection raises).
 */
static void
UpdateConfig(const char *set, int nargs, Oid *types, Datum *values,
			 const char *nulls)
{
	if (DocmodelExecAsOwner(
			"collection_config",
			psprintf("UPDATE docmodel.collection_config AS c %s "
					 "WHERE c.coll::pg_catalog.oid OPERATOR(pg_catalog.=) $1",
					 set),
			nargs, types, values, nulls, NULL, NULL) == 0)
		(void) DocmodelRequireCollection(DatumGetObjectId(values[0]));
}

/*
 * _config_create(coll, doc_type, meta_style, time_unit, delimiter) ->
 * integer: record a new collection the caller owns; return its id (the
 * argument of its triggers). A row a plain DROP TABLE left under the same
 * OID is stale and replaced.
 */
Datum
catalog_config_create(PG_FUNCTION_ARGS)
{
	Oid types[5] = {OIDOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID};
	Datum values[5];
	char nulls[5];
	Datum id;
	bool isnull;

	DocmodelRequireArg(fcinfo, 0, "coll");
	DocmodelRequireOwner(PG_GETARG_OID(0));
	TakeArgs(fcinfo, 5, values, nulls);
	DocmodelExecAsOwner(
		"collection_config",
		"DELETE FROM docmodel.collection_config AS c "
		"WHERE c.coll::pg_catalog.oid OPERATOR(pg_catalog.=) $1",
		1, types, values, nulls, NULL, NULL);
	DocmodelExecAsOwner("collection_config",
						"INSERT INTO docmodel.collection_config "
						"(coll, doc_type, meta_style, time_unit, delimiter) "
						"VALUES ($1::pg_catalog.regclass, $2, $3, $4, $5) "
						"RETURNING id",
						5, types, values, nulls, &id, &isnull);
	if (isnull)
		ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
						errmsg("_config_create: no id")));
	PG_RETURN_DATUM(id);
}

/*
 * _config_set_revisions(coll, revisions, revisions_table): set a
 * collection's history; the caller owns the collection and the history
 * table (the trigger writes history into it without further checks).
 */
Datum
catalog_config_set_revisions(PG_FUNCTION_ARGS)
{
	Oid types[3] = {OIDOID, INT4OID, OIDOID};
	Datum values[3];
	char nulls[3];

	DocmodelRequireArg(fcinfo, 0, "coll");
	DocmodelRequireArg(fcinfo, 1, "revisions");
	DocmodelRequireOwner(PG_GETARG_OID(0));
	if (!PG_ARGISNULL(2))
		DocmodelRequireOwner(PG_GETARG_OID(2));
	TakeArgs(fcinfo, 3, values, nulls);
	UpdateConfig("SET revisions = $2, "
				 "revisions_table = $3::pg_catalog.regclass",
				 3, types, values, nulls);
	PG_RETURN_VOID();
}

/*
 * _config_set_keep_for(coll, keep_for): how long a collection keeps a
 * revision whatever its number (NULL: by number alone); the caller owns
 * the collection.
 */
Datum
catalog_config_set_keep_for(PG_FUNCTION_ARGS)
{
	Oid types[2] = {OIDOID, INTERVALOID};
	Datum values[2];
	char nulls[2];

	DocmodelRequireArg(fcinfo, 0, "coll");
	DocmodelRequireOwner(PG_GETARG_OID(0));
	TakeArgs(fcinfo, 2, values, nulls);
	UpdateConfig("SET revisions_keep_for = $2", 2, types, values, nulls);
	PG_RETURN_VOID();
}

/*
 * _record_erasure(coll, key, path): record in docmodel.erasures that
 * erase_path removed path from the document key of coll (a collection the
 * caller owns), now, by docmodel.actor or else the session user.
 */
Datum
catalog_record_erasure(PG_FUNCTION_ARGS)
{
	Oid types[4] = {OIDOID, TEXTOID, TEXTOID, TEXTOID};
	Datum values[4];
	char nulls[4];

	DocmodelRequireArg(fcinfo, 0, "coll");
	DocmodelRequireArg(fcinfo, 1, "key");
	DocmodelRequireArg(fcinfo, 2, "path");
	DocmodelRequireOwner(PG_GETARG_OID(0));
	(void) DocmodelRequireCollection(PG_GETARG_OID(0));
	TakeArgs(fcinfo, 3, values, nulls);
	values[3] = CStringGetTextDatum(DocmodelWho());
	nulls[3] = ' ';
	DocmodelExecAsOwner("erasures",
						"INSERT INTO docmodel.erasures "
						"(coll, id, path, erased_at, erased_by) "
						"VALUES ($1::pg_catalog.regclass, $2, $3, "
						"pg_catalog.now(), $4)",
						4, types, values, nulls, NULL, NULL);
	PG_RETURN_VOID();
}

/*
 * _config_adopt_history(hist) -> boolean: forget the configuration of
 * dropped collections whose history table is hist, so that a new
 * collection can take that history over; false when there is none. Taking
 * a history table over needs its ownership.
 */
Datum
catalog_config_adopt_history(PG_FUNCTION_ARGS)
{
	Oid types[1] = {OIDOID};
	Datum values[1];
	char nulls[1] = {' '};
	static const char *const orphans =
		"FROM docmodel.collection_config AS c "
		"WHERE c.revisions_table::pg_catalog.oid OPERATOR(pg_catalog.=) $1 "
		"AND NOT EXISTS (SELECT FROM pg_catalog.pg_class AS r "
		"WHERE r.oid OPERATOR(pg_catalog.=) c.coll::pg_catalog.oid)";
	char *sql;

	DocmodelRequireArg(fcinfo, 0, "hist");
	values[0] = PG_GETARG_DATUM(0);
	sql = psprintf("SELECT %s", orphans);
	if (DocmodelExecAsOwner("collection_config", sql, 1, types, values, nulls,
							NULL, NULL) == 0)
		PG_RETURN_BOOL(false);
	DocmodelRequireOwner(PG_GETARG_OID(0));
	sql = psprintf("DELETE %s", orphans);
	PG_RETURN_BOOL(DocmodelExecAsOwner("collection_config", sql, 1, types,
									   values, nulls, NULL, NULL) > 0);
}

/*
 * _config_set_max_ttl(coll, max_ttl): set a collection's max_ttl (seconds,
 * 0 for none); the caller owns the collection.
 */
Datum
catalog_config_set_max_ttl(PG_FUNCTION_ARGS)
{
	Oid types[2] = {OIDOID, INT4OID};
	Datum values[2];
	char nulls[2];

	DocmodelRequireArg(fcinfo, 0, "coll");
	DocmodelRequireArg(fcinfo, 1, "max_ttl");
	if (PG_GETARG_INT32(1) < 0)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("invalid max_ttl %d", PG_GETARG_INT32(1)),
						errdetail("max_ttl is 0 (none) or a number of "
								  "seconds.")));
	DocmodelRequireOwner(PG_GETARG_OID(0));
	TakeArgs(fcinfo, 2, values, nulls);
	UpdateConfig("SET max_ttl = $2", 2, types, values, nulls);
	PG_RETURN_VOID();
}

/*
 * _config_set_documents(coll, documents): record the documents view of a
 * collection; the caller owns both (docmodel._documents_view makes it).
 */
Datum
catalog_config_set_documents(PG_FUNCTION_ARGS)
{
	Oid types[2] = {OIDOID, OIDOID};
	Datum values[2];
	char nulls[2];
	ObjectAddress view;
	ObjectAddress coll;

	DocmodelRequireArg(fcinfo, 0, "coll");
	DocmodelRequireArg(fcinfo, 1, "documents");
	DocmodelRequireOwner(PG_GETARG_OID(0));
	DocmodelRequireOwner(PG_GETARG_OID(1));
	/* a view, never the collection itself (it would depend on itself) nor
	 * another table */
	if (PG_GETARG_OID(1) == PG_GETARG_OID(0) ||
		DocmodelRequireRelation(PG_GETARG_OID(1)) != RELKIND_VIEW)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" cannot be the documents view of collection "
						"\"%s\"",
						get_rel_name(PG_GETARG_OID(1)),
						get_rel_name(PG_GETARG_OID(0))),
				 errdetail("A collection's documents view is a view, not the "
						   "collection nor another table.")));
	TakeArgs(fcinfo, 2, values, nulls);
	UpdateConfig("SET documents = $2", 2, types, values, nulls);
	/* the view goes with its collection, as an index does: a plain DROP
	 * TABLE drops it without CASCADE */
	ObjectAddressSet(view, RelationRelationId, PG_GETARG_OID(1));
	ObjectAddressSet(coll, RelationRelationId, PG_GETARG_OID(0));
	deleteDependencyRecordsForSpecific(RelationRelationId, view.objectId,
									   DEPENDENCY_AUTO, RelationRelationId,
									   coll.objectId);
	recordDependencyOn(&view, &coll, DEPENDENCY_AUTO);
	PG_RETURN_VOID();
}

/*
 * _config_set_meta_style(coll, meta_style, meta_style_to, meta_style_key):
 * set a collection's meta style and the state of a set_meta_style
 * conversion (the style it goes to and the last key done; NULL: none); the
 * caller owns the collection.
 */
Datum
catalog_config_set_meta_style(PG_FUNCTION_ARGS)
{
	Oid types[4] = {OIDOID, TEXTOID, TEXTOID, TEXTOID};
	Datum values[4];
	char nulls[4];

	DocmodelRequireArg(fcinfo, 0, "coll");
	DocmodelRequireArg(fcinfo, 1, "meta_style");
	DocmodelRequireOwner(PG_GETARG_OID(0));
	/* a conversion to columns begins: no rule may read its stamps' places */
	if (!PG_ARGISNULL(2) &&
		strcmp(text_to_cstring(PG_GETARG_TEXT_PP(2)), "columns") == 0 &&
		!DocmodelCollectionOf(PG_GETARG_OID(0))->columns)
		CheckRulesForColumns(PG_GETARG_OID(0));
	TakeArgs(fcinfo, 4, values, nulls);
	UpdateConfig("SET meta_style = $2, meta_style_to = $3, meta_style_key = $4",
				 4, types, values, nulls);
	PG_RETURN_VOID();
}

/*
 * _config_set_layout(coll, type_part, type_check, fields, types): set a
 * collection's key layout, field names and body types, which create_collection()
 * checked; the caller owns the collection.
 */
Datum
catalog_config_set_layout(PG_FUNCTION_ARGS)
{
	Oid types[5] = {OIDOID, INT4OID, TEXTOID, JSONBOID, TEXTARRAYOID};
	Datum values[5];
	char nulls[5];

	DocmodelRequireArg(fcinfo, 0, "coll");
	DocmodelRequireArg(fcinfo, 1, "type_part");
	DocmodelRequireArg(fcinfo, 2, "type_check");
	DocmodelRequireOwner(PG_GETARG_OID(0));
	TakeArgs(fcinfo, 5, values, nulls);
	/* the table's CHECKs refuse an inconsistent layout (23514) */
	UpdateConfig("SET type_part = $2, type_check = $3, fields = $4, "
				 "types = $5",
				 5, types, values, nulls);
	PG_RETURN_VOID();
}

/*
 * _config_drop(coll): forget a collection the caller owns, with the
 * migration and write rules registered for it alone (their scope is its
 * configuration id, never used again): left behind, a rule's pin would keep
 * its function from being dropped. Rules of every collection stay.
 */
Datum
catalog_config_drop(PG_FUNCTION_ARGS)
{
	Oid types[1] = {OIDOID};
	Datum values[1];
	char nulls[1] = {' '};
	static const char *const rules[] = {"migration_rules", "write_rules"};
	int i;

	DocmodelRequireArg(fcinfo, 0, "coll");
	DocmodelRequireOwner(PG_GETARG_OID(0));
	values[0] = PG_GETARG_DATUM(0);
	for (i = 0; i < lengthof(rules); i++)
		DocmodelExecAsOwner(
			rules[i],
			psprintf("DELETE FROM docmodel.%s AS r WHERE r.collection_id "
					 "OPERATOR(pg_catalog.=) ANY (SELECT c.id FROM "
					 "docmodel.collection_config AS c WHERE "
					 "c.coll::pg_catalog.oid OPERATOR(pg_catalog.=) $1)",
					 rules[i]),
			1, types, values, nulls, NULL, NULL);
	DocmodelExecAsOwner(
		"collection_config",
		"DELETE FROM docmodel.collection_config AS c "
		"WHERE c.coll::pg_catalog.oid OPERATOR(pg_catalog.=) $1",
		1, types, values, nulls, NULL, NULL);
	PG_RETURN_VOID();
}

/*
 * _migration_run_new(coll, doc_type, target, targets) -> bigint: record a
 * new run of migrate_collection on a collection the caller may update.
 */
Datum
migration_run_new(PG_FUNCTION_ARGS)
{
	Oid types[4] = {OIDOID, TEXTOID, TEXTOID, JSONBOID};
	Datum values[4];
	char nulls[4];
	Datum run;
	bool isnull;

	DocmodelRequireArg(fcinfo, 0, "coll");
	DocmodelRequireArg(fcinfo, 3, "targets");
	RequireUpdate(PG_GETARG_OID(0), "Running a migration of a collection");
	TakeArgs(fcinfo, 4, values, nulls);
	DocmodelExecAsOwner(
		"migration_run",
		"INSERT INTO docmodel.migration_run (coll, doc_type, target, targets) "
		"VALUES ($1::pg_catalog.regclass, $2, $3::docmodel.version, $4) "
		"RETURNING run_id",
		4, types, values, nulls, &run, &isnull);
	if (isnull)
		ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
						errmsg("_migration_run_new: no run_id")));
	PG_RETURN_DATUM(run);
}

/*
 * _migration_run_set(run, status, last_key, docs_done, docs_total, targets,
 * error): record the state of a run whose collection the caller may update.
 * finished_at is set when the run is done and cleared while it runs.
 */
Datum
migration_run_set(PG_FUNCTION_ARGS)
{
	Oid types[7] = {INT8OID, TEXTOID,  TEXTOID, INT8OID,
					INT8OID, JSONBOID, TEXTOID};
	Datum values[7];
	char nulls[7];
	Datum coll;
	bool isnull;

	DocmodelRequireArg(fcinfo, 0, "run");
	DocmodelRequireArg(fcinfo, 1, "status");
	TakeArgs(fcinfo, 7, values, nulls);
	if (DocmodelExecAsOwner("migration_run",
							"SELECT r.coll::pg_catalog.oid "
							"FROM docmodel.migration_run AS r "
							"WHERE r.run_id OPERATOR(pg_catalog.=) $1",
							1, types, values, nulls, &coll, &isnull) == 0)
		ereport(ERROR, (errcode(ERRCODE_UNDEFINED_OBJECT),
						errmsg("migration run " INT64_FORMAT " does not exist",
							   PG_GETARG_INT64(0))));
	RequireUpdate(DatumGetObjectId(coll),
				  "Recording a migration of a collection");
	DocmodelExecAsOwner(
		"migration_run",
		"UPDATE docmodel.migration_run AS r SET status = $2, last_key = $3, "
		"docs_done = COALESCE($4, r.docs_done), docs_total = $5, "
		"targets = COALESCE($6, r.targets), error = $7, finished_at = CASE "
		"WHEN $2 OPERATOR(pg_catalog.=) 'done' "
		"THEN pg_catalog.clock_timestamp() "
		"WHEN $2 OPERATOR(pg_catalog.=) 'running' THEN NULL "
		"ELSE r.finished_at END "
		"WHERE r.run_id OPERATOR(pg_catalog.=) $1",
		7, types, values, nulls, NULL, NULL);
	PG_RETURN_VOID();
}

/*
 * The statement of each op of _mapping_write, and the table it writes:
 * $1 owner, $2 mapping, $3 tbl, $4 under, $5 field, $6 the spec
 * _mapping_check returned.
 */
static const struct
{
	const char *op;
	const char *table;
	const char *sql;
} MappingWrites[] = {
	{"create", "mappings",
	 "INSERT INTO docmodel.mappings (name, root, doc_type, owner) "
	 "VALUES ($2, $3::pg_catalog.regclass, $6 OPERATOR(pg_catalog.->>) "
	 "'doc_type', $1::pg_catalog.regrole)"},
	{"part", "mapping_parts",
	 "INSERT INTO docmodel.mapping_parts AS p (mapping, owner, tbl, under, "
	 "field, spec) VALUES ($2, $1::pg_catalog.regrole, "
	 "$3::pg_catalog.regclass, $4::pg_catalog.regclass, $5, $6) "
	 "ON CONFLICT (owner, mapping, under, field) DO UPDATE "
	 "SET tbl = excluded.tbl, spec = excluded.spec"},
	{"column", "mapping_columns",
	 "INSERT INTO docmodel.mapping_columns AS c (mapping, owner, tbl, col, "
	 "new_name) VALUES ($2, $1::pg_catalog.regrole, $3::pg_catalog.regclass, "
	 "$5::pg_catalog.name, $6 OPERATOR(pg_catalog.->>) 'name') "
	 "ON CONFLICT (owner, mapping, tbl, col) "
	 "DO UPDATE SET new_name = excluded.new_name"},
	{"project", "projections",
	 "INSERT INTO docmodel.projections AS p (mapping, owner, tbl, coll, "
	 "triggers) VALUES ($2, $1::pg_catalog.regrole, $3::pg_catalog.regclass, "
	 "$4::pg_catalog.regclass, ARRAY(SELECT "
	 "pg_catalog.jsonb_array_elements_text($6 OPERATOR(pg_catalog.->) "
	 "'triggers')::pg_catalog.oid)) ON CONFLICT (owner, mapping, tbl) "
	 "DO UPDATE SET coll = excluded.coll, triggers = excluded.triggers"},
	{"unproject", "projections",
	 "DELETE FROM docmodel.projections AS p "
	 "WHERE p.owner::pg_catalog.oid OPERATOR(pg_catalog.=) $1 "
	 "AND p.mapping OPERATOR(pg_catalog.=) $2"},
	{"drop", "mappings",
	 "DELETE FROM docmodel.mappings AS m "
	 "WHERE m.owner::pg_catalog.oid OPERATOR(pg_catalog.=) $1 "
	 "AND m.name OPERATOR(pg_catalog.=) $2"},
};

/* Raise 42501 unless the current user may read relid (mapping name). */
static void
RequireSelect(Oid relid, const char *name)
{
	DocmodelRequireRelation(relid);
	if (pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for table %s", get_rel_name(relid)),
				 errdetail("Mapping \"%s\" reads the table.", name)));
}

/*
 * _mapping_write(op, owner, mapping, tbl, under, field, spec): record a
 * change of mapping (owner, mapping). create: a mapping of the current user
 * (owner) over root table tbl, spec {"doc_type": t}. part: tbl's part under
 * table under as field (replacing one there). column: field is a column of
 * tbl, spec {"name": new name, or null to leave it out}. drop: the mapping
 * and its parts (refused while it is projected). project: table tbl of the
 * mapping projected into collection under by the triggers spec
 * {"triggers": [OIDs]} the caller has just created; unproject: all of
 * them. The
 * caller must have the privileges of the owner role (create: be it) and
 * SELECT on tbl; then docmodel._mapping_check, the one validator, checks
 * the change and makes what is stored, whoever called: nothing the caller
 * gives is stored without it.
 */
Datum
mapping_write(PG_FUNCTION_ARGS)
{
	Oid types[6] = {OIDOID, TEXTOID, OIDOID, OIDOID, TEXTOID, JSONBOID};
	Oid check_types[7] = {TEXTOID, OIDOID,  TEXTOID, OIDOID,
						  OIDOID,  TEXTOID, JSONBOID};
	Datum values[7];
	char nulls[7];
	char *op;
	char *name;
	Oid owner;
	int w;
	int i;

	DocmodelRequireArg(fcinfo, 0, "op");
	DocmodelRequireArg(fcinfo, 1, "owner");
	DocmodelRequireArg(fcinfo, 2, "mapping");
	op = text_to_cstring(PG_GETARG_TEXT_PP(0));
	owner = PG_GETARG_OID(1);
	name = text_to_cstring(PG_GETARG_TEXT_PP(2));
	for (w = 0; w < lengthof(MappingWrites); w++)
		if (strcmp(op, MappingWrites[w].op) == 0)
			break;
	if (w == lengthof(MappingWrites))
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("unknown mapping change \"%s\"", op),
						errdetail("The changes are create, part, column, drop, "
								  "project and unproject.")));
	if (strcmp(op, "create") == 0 ? owner != GetUserId()
								  : !has_privs_of_role(GetUserId(), owner))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of mapping \"%s\"", name),
				 errdetail("A mapping is created by the current user and "
						   "changed by its owner role's members.")));
	if (!PG_ARGISNULL(3))
		RequireSelect(PG_GETARG_OID(3), name);

	/* the validator runs as the caller: it only reads */
	TakeArgs(fcinfo, 7, values, nulls);
	DocmodelSpiConnect();
	if (SPI_execute_with_args(
			"SELECT docmodel._mapping_check($1, $2::pg_catalog.regrole, $3, "
			"$4::pg_catalog.regclass, $5::pg_catalog.regclass, $6, $7)",
			7, check_types, values, nulls, true, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("checking a change of mapping \"%s\" failed", name)));
	{
		bool isnull;
		Datum spec = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc,
								   1, &isnull);

		nulls[6] = isnull ? 'n' : ' ';
		values[6] = isnull ? (Datum) 0 : SPI_datumTransfer(spec, false, -1);
	}
	SPI_finish();

	/* $1 .. $6: owner, mapping, tbl, under, field, checked spec */
	for (i = 0; i < 6; i++)
	{
		values[i] = values[i + 1];
		nulls[i] = nulls[i + 1];
	}
	DocmodelExecAsOwner(MappingWrites[w].table, MappingWrites[w].sql, 6, types,
						values, nulls, NULL, NULL);
	PG_RETURN_VOID();
}

/*
 * The reference path of a rule (its kind, path and ref): a copy's is its
 * path followed by ref (in its collection), an aggregate's its ref (in its
 * source).
 */
static char *
RuleRefPath(const char *kind, const char *path, const char *ref)
{
	StringInfoData b;

	if (strcmp(kind, "aggregate") == 0)
		return pstrdup(ref);
	initStringInfo(&b);
	appendStringInfoString(&b, path);
	DocmodelJsonPointerAppendToken(&b, ref, strlen(ref));
	return b.data;
}

/*
 * Refuse (0A000) a rule _copy_rule_write creates (its arguments in fcinfo)
 * whose references start at a stamp that meta_style 'columns' keeps in a
 * column: the rule's index and triggers read the references from the
 * body, which does not hold them.
 */
static void
CheckRuleRefs(FunctionCallInfo fcinfo)
{
	char *kind;
	char *refpath;
	Oid relid;

	if (PG_ARGISNULL(4) || PG_ARGISNULL(5))
		return; /* the table's constraints refuse it */
	kind = text_to_cstring(PG_GETARG_TEXT_PP(4));
	relid = PG_GETARG_OID(strcmp(kind, "aggregate") == 0 ? 3 : 1);
	refpath = RuleRefPath(kind, text_to_cstring(PG_GETARG_TEXT_PP(2)),
						  text_to_cstring(PG_GETARG_TEXT_PP(5)));
	if (DocmodelColumnsStampPointer(DocmodelCollectionOf(relid), refpath))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot read references at %s of collection %s",
						refpath, get_rel_name(relid)),
				 errdetail("The collection keeps that management field in a "
						   "column (meta_style 'columns'); a rule reads "
						   "references from the document's body, through "
						   "an index on it."),
				 errhint("Keep the references in a member of the body.")));
}

/*
 * Refuse (0A000) to give collection relid meta_style 'columns' while a
 * copy or aggregate rule reads references in its documents at a stamp the
 * columns would keep out of the body (CheckRuleRefs).
 */
static void
CheckRulesForColumns(Oid relid)
{
	Oid types[1] = {OIDOID};
	Datum values[1] = {ObjectIdGetDatum(relid)};
	DocmodelCollection cfg = *DocmodelCollectionOf(relid);
	uint64 i;

	cfg.columns = true;
	DocmodelSpiConnect();
	if (SPI_execute_with_args(
			"SELECT r.kind, r.path, r.ref, r.coll FROM docmodel.copy_rules AS "
			"r "
			"WHERE CASE r.kind WHEN 'aggregate' THEN r.source ELSE r.coll "
			"END::pg_catalog.oid OPERATOR(pg_catalog.=) $1 ORDER BY r.id",
			1, types, values, NULL, true, 0) != SPI_OK_SELECT)
		ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
						errmsg("reading copy rules failed")));
	for (i = 0; i < SPI_processed; i++)
	{
		HeapTuple t = SPI_tuptable->vals[i];
		TupleDesc d = SPI_tuptable->tupdesc;
		char *path = SPI_getvalue(t, d, 2);
		char *refpath =
			RuleRefPath(SPI_getvalue(t, d, 1), path, SPI_getvalue(t, d, 3));

		if (DocmodelColumnsStampPointer(&cfg, refpath))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot convert collection %s to meta_style "
							"'columns'",
							get_rel_name(relid)),
					 errdetail("The %s rule of %s at %s reads references at %s "
							   "of its documents, a management field the "
							   "columns would keep out of the body its "
							   "index reads.",
							   SPI_getvalue(t, d, 1), SPI_getvalue(t, d, 4),
							   path, refpath),
					 errhint("Drop the rule first (drop_copy or "
							 "drop_aggregate).")));
	}
	SPI_finish();
}

/*
 * _copy_rule_write(op, coll, path, source, kind, ref, fields, agg,
 * on_missing, mode) -> integer: record (op 'create') or forget ('drop') the
 * copy or aggregate rule of collection coll at path; return its id (NULL
 * when a drop found none). Creating needs the ownership of both
 * collections (the rule's triggers write one from the other's writes, as
 * their owner), dropping that of coll. The table's constraints check what
 * is stored; create_copy and create_aggregate check the rest first.
 */
Datum
copy_rule_write(PG_FUNCTION_ARGS)
{
	Oid types[11] = {OIDOID,  TEXTOID, OIDOID,  TEXTOID, TEXTOID, JSONBOID,
					 TEXTOID, TEXTOID, TEXTOID, TEXTOID, JSONBOID};
	Datum values[12];
	char nulls[12];
	char *op;
	Datum id = (Datum) 0;
	bool isnull = true;
	int i;

	DocmodelRequireArg(fcinfo, 0, "op");
	DocmodelRequireArg(fcinfo, 1, "coll");
	DocmodelRequireArg(fcinfo, 2, "path");
	op = text_to_cstring(PG_GETARG_TEXT_PP(0));
	TakeArgs(fcinfo, Min(PG_NARGS(), 12), values, nulls);
	for (i = PG_NARGS(); i < 12; i++)
	{
		values[i] = (Datum) 0;
		nulls[i] = 'n';
	}
	for (i = 0; i < 11; i++)
	{
		values[i] = values[i + 1];
		nulls[i] = nulls[i + 1];
	}
	if (strcmp(op, "create") == 0)
	{
		DocmodelRequireArg(fcinfo, 3, "source");
		DocmodelRequireOwner(PG_GETARG_OID(1));
		DocmodelRequireOwner(PG_GETARG_OID(3));
		CheckRuleRefs(fcinfo);
		DocmodelExecAsOwner(
			"copy_rules",
			"INSERT INTO docmodel.copy_rules (coll, path, source, kind, ref, "
			"fields, agg, on_missing, mode, doc_type, frozen_when) VALUES "
			"($1::pg_catalog.regclass, $2, $3::pg_catalog.regclass, $4, $5, "
			"$6, $7, $8, $9, $10, $11) RETURNING id",
			11, types, values, nulls, &id, &isnull);
	}
	else if (strcmp(op, "drop") == 0)
	{
		DocmodelRequireOwner(PG_GETARG_OID(1));
		DocmodelExecAsOwner(
			"copy_rules",
			"DELETE FROM docmodel.copy_rules AS r "
			"WHERE r.coll::pg_catalog.oid OPERATOR(pg_catalog.=) "
			"$1 AND r.path OPERATOR(pg_catalog.=) $2 RETURNING id",
			2, types, values, nulls, &id, &isnull);
		/* a deferred rule's queued keys go with it */
		if (!isnull)
		{
			Oid qtypes[1] = {INT4OID};

			DocmodelExecAsOwner(
				"copy_queue",
				"DELETE FROM docmodel.copy_queue AS q WHERE q.rule "
				"OPERATOR(pg_catalog.=) $1",
				1, qtypes, &id, NULL, NULL, NULL);
		}
	}
	else
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("unknown copy rule change \"%s\"", op),
						errdetail("The changes are create and drop.")));
	if (isnull)
		PG_RETURN_NULL();
	PG_RETURN_DATUM(id);
}

/* A statement trigger on one of docmodel's catalogs; see catalog.h. */
Datum
DocmodelCatalogChanged(FunctionCallInfo fcinfo, const char *name)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;

	if (!CALLED_AS_TRIGGER(fcinfo))
		DocmodelTriggerMisuse(name, "a statement trigger");
	CacheInvalidateRelcacheByRelid(RelationGetRelid(trigdata->tg_relation));
	DocmodelCitusPush();
	return PointerGetDatum(NULL);
}

/*
 * Statement trigger on docmodel.collection_config: invalidate every
 * backend's configuration cache (at commit; in this backend at once).
 */
Datum
collection_config_changed(PG_FUNCTION_ARGS)
{
	return DocmodelCatalogChanged(fcinfo, "_collection_config_changed");
}
