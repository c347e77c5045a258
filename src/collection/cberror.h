/*-------------------------------------------------------------------------
 *
 * collection/cberror.h
 *	  Couchbase's error conditions of the document API, raised with the
 *	  fields a driver reads (cberror.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_COLLECTION_CBERROR_H
#define DOCMODEL_COLLECTION_CBERROR_H

#include "postgres.h"

#include "compat.h"

/*
 * An ereport auxiliary: Couchbase's name of the condition (DocumentExists,
 * CasMismatch, PathNotFound...) in the error's data type name field, which
 * drivers expose (node-postgres err.dataType, psycopg e.diag.datatype_name,
 * JDBC getDatatype(), pgx DataTypeName).
 */
#define errcouchbase(name) err_generic_string(PG_DIAG_DATATYPE_NAME, (name))

/*
 * An ereport auxiliary: the schema and table of collection relid, and
 * (column) the column the condition is about, when not NULL.
 */
extern int DocmodelErrCollection(Oid relid, const char *column);

/* Raise P0002 DocumentNotFound: key is not live in collection relid. */
extern void DocmodelKvNotFound(Oid relid, const char *key)
	pg_attribute_noreturn();

/*
 * Raise 23505 DocumentExists: key is live in collection relid; the
 * constraint is the collection's primary key, the column id.
 */
extern void DocmodelKvExists(Oid relid, const char *key)
	pg_attribute_noreturn();

/* Raise 40001 CasMismatch: cas was given for key, stored is stored. */
extern void DocmodelKvCasMismatch(Oid relid, const char *key, int64 cas,
								  int64 stored) pg_attribute_noreturn();

/*
 * Raise the current error (in a PG_CATCH) again without the context line
 * of plan's statement, a key-value function's own; cxt: the caller's
 * memory context.
 */
struct _SPI_plan;
extern void DocmodelErrHideStatement(struct _SPI_plan *plan, MemoryContext cxt)
	pg_attribute_noreturn();

#endif /* DOCMODEL_COLLECTION_CBERROR_H */
