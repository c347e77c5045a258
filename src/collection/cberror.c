/*-------------------------------------------------------------------------
 *
 * collection/cberror.c
 *	  Couchbase's error conditions of the document API (DocumentNotFound,
 *	  DocumentExists, CasMismatch), raised with the fields a program reads
 *	  without parsing the message: the collection's schema and table, the
 *	  column and constraint where one applies, and Couchbase's name of the
 *	  condition in the data type name field (errcouchbase). No state.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/index.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/relcache.h"

#include "collection/cberror.h"

/* The schema and table of relid, and column when given. */
int
DocmodelErrCollection(Oid relid, const char *column)
{
	char *nsp = get_namespace_name(get_rel_namespace(relid));
	char *rel = get_rel_name(relid);

	if (nsp != NULL)
		err_generic_string(PG_DIAG_SCHEMA_NAME, nsp);
	if (rel != NULL)
		err_generic_string(PG_DIAG_TABLE_NAME, rel);
	if (column != NULL)
		err_generic_string(PG_DIAG_COLUMN_NAME, column);
	return 0;
}

/* The name of relid's primary key, NULL when it has none. */
static char *
CbPrimaryKeyName(Oid relid)
{
	Relation rel = RelationIdGetRelation(relid);
	Oid pk;

	if (!RelationIsValid(rel))
		return NULL;
	pk = RelationGetPrimaryKeyIndex(rel);
	RelationClose(rel);
	return OidIsValid(pk) ? get_rel_name(pk) : NULL;
}

/* Raise P0002 DocumentNotFound. */
void
DocmodelKvNotFound(Oid relid, const char *key)
{
	ereport(ERROR,
			(errcode(ERRCODE_NO_DATA_FOUND),
			 errmsg("document \"%s\" does not exist", key),
			 errdetail("Collection \"%s\" has no document with key \"%s\" "
					   "(or it has expired).",
					   get_rel_name(relid), key),
			 errhint("Use docmodel.insert() or docmodel.upsert() to create "
					 "it."),
			 DocmodelErrCollection(relid, "id"),
			 errcouchbase("DocumentNotFound")));
	pg_unreachable();
}

/* Raise 23505 DocumentExists. */
void
DocmodelKvExists(Oid relid, const char *key)
{
	char *pk = CbPrimaryKeyName(relid);

	ereport(ERROR,
			(errcode(ERRCODE_UNIQUE_VIOLATION),
			 errmsg("document \"%s\" already exists", key),
			 errdetail("Collection \"%s\" has a document with key \"%s\".",
					   get_rel_name(relid), key),
			 errhint("Use docmodel.upsert() or docmodel.replace() to "
					 "overwrite it."),
			 DocmodelErrCollection(relid, "id"),
			 pk != NULL ? err_generic_string(PG_DIAG_CONSTRAINT_NAME, pk) : 0,
			 errcouchbase("DocumentExists")));
	pg_unreachable();
}

/* Raise 40001 CasMismatch. */
void
DocmodelKvCasMismatch(Oid relid, const char *key, int64 cas, int64 stored)
{
	ereport(ERROR,
			(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
			 errmsg("CAS mismatch for document \"%s\"", key),
			 errdetail("Key \"%s\": the given cas is " INT64_FORMAT
					   ", the stored cas is " INT64_FORMAT ".",
					   key, cas, stored),
			 errhint("Read the document again and retry with its current "
					 "cas."),
			 DocmodelErrCollection(relid, "cas"), errcouchbase("CasMismatch")));
	pg_unreachable();
}
