/*-------------------------------------------------------------------------
 *
 * collection/cberror.c
 *	  Couchbase's error conditions of the document API (DocumentNotFound,
 *	  DocumentExists, CasMismatch), raised with the fields a program reads
 *	  without parsing the message: the collection's schema and table, the
 *	  column and constraint where one applies, and Couchbase's name of the
 *	  condition in the data type name field (errcouchbase); and the internal
 *	  statements of the key-value API kept out of an error's context
 *	  (DocmodelErrHideStatement). No state.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "utils/lsyscache.h"
#include "utils/plancache.h"
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

/*
 * context without its line line (which a line of its own must be); NULL
 * when nothing is left.
 */
static char *
CbCutLine(char *context, const char *line)
{
	size_t len = strlen(line);
	char *p = context;
	StringInfoData out;

	while ((p = strstr(p, line)) != NULL)
	{
		if ((p == context || p[-1] == '\n') &&
			(p[len] == '\0' || p[len] == '\n'))
			break;
		p += len;
	}
	if (p == NULL)
		return context;
	initStringInfo(&out);
	appendBinaryStringInfo(&out, context, p - context);
	if (p[len] == '\n')
		appendStringInfoString(&out, p + len + 1);
	else if (out.len > 0)
		out.data[--out.len] = '\0';
	return out.len > 0 ? out.data : NULL;
}

/*
 * Raise the current error again without the line "SQL statement ..." that
 * SPI added for plan's statement: a key-value function's own statement is
 * docmodel's, not the caller's (the caller's own statements, a trigger's,
 * keep theirs). cxt: a memory context of the caller's (not ErrorContext).
 */
void
DocmodelErrHideStatement(SPIPlanPtr plan, MemoryContext cxt)
{
	List *sources = SPI_plan_get_plan_sources(plan);
	const char *sql;
	ErrorData *edata;

	MemoryContextSwitchTo(cxt);
	edata = CopyErrorData();
	FlushErrorState();
	if (sources != NIL)
	{
		sql = ((CachedPlanSource *) linitial(sources))->query_string;
		if (edata->context != NULL)
			edata->context = CbCutLine(edata->context,
									   psprintf("SQL statement \"%s\"", sql));
		if (edata->internalquery != NULL &&
			strcmp(edata->internalquery, sql) == 0)
		{
			edata->internalquery = NULL;
			edata->internalpos = 0;
		}
	}
	ReThrowError(edata);
}
