/*-------------------------------------------------------------------------
 *
 * docmodel.h
 *	  What the docmodel source files share: limits, settings, and the small
 *	  interfaces one concern offers another (each concern's own header has
 *	  the rest: key.h, version.h, ...).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_H
#define DOCMODEL_H

#include "fmgr.h"
#include "access/htup.h"

#include "compat.h"

/* Couchbase's limits, kept by docmodel (see README, "Keys"). */
#define DOCMODEL_MAX_KEY_BYTES 250
#define DOCMODEL_MAX_DOC_BYTES (20 * 1024 * 1024)
#define DOCMODEL_MAX_DELIM_BYTES 4
#define DOCMODEL_DEFAULT_DELIM "::"

/* Settings (docmodel.c). */
extern char *docmodel_actor;
extern bool docmodel_keep_stamps;
extern char *docmodel_default_meta_style;

/* Raise 22004 "<name> must not be null" when argument argno is NULL. */
extern void DocmodelRequireArg(FunctionCallInfo fcinfo, int argno,
							   const char *name);

/*
 * Raise 55000 unless every relation prepared statement plan reads or
 * writes (any subquery or CTE included) is one of rels[0 .. nrels - 1] or
 * one their own rewrite rules name (a plain statement runs those too):
 * statements prepared from qualified names are checked to reach the OIDs
 * they were made for (see NamedPlanSubscribers in init.c).
 */
struct _SPI_plan;
extern void DocmodelCheckPlanTargets(struct _SPI_plan *plan, const Oid *rels,
									 int nrels);

/*
 * Run one fixed statement as the owner of docmodel's table table (which it
 * writes), for a caller whose rights were checked; see docmodel.c.
 */
extern uint64 DocmodelExecAsOwner(const char *table, const char *sql, int nargs,
								  Oid *types, Datum *values, const char *nulls,
								  Datum *result, bool *result_null);

/*
 * Code run as another role (DocmodelBecomeOwner ... DocmodelRestoreUser):
 * the owner of relid, in a security-restricted operation and a settings
 * nest level of its own, so that nothing the owner's code sets (search_path,
 * docmodel.actor, timeouts, default_transaction_read_only, even with
 * set_config(..., false)) outlives the switch; with DOCMODEL_FIXED_PATH
 * also search_path = pg_catalog, pg_temp, as PostgreSQL's maintenance
 * commands run an index's functions. An error in between is cleaned up by
 * the (sub)transaction's abort, as for a function's SET clause.
 */
typedef struct DocmodelOwnerSwitch
{
	Oid save_userid;
	int save_sec;
	int guc_level;
} DocmodelOwnerSwitch;
#define DOCMODEL_FIXED_PATH 0x01
extern Oid DocmodelRelationOwner(Oid relid);
extern void DocmodelBecomeRole(DocmodelOwnerSwitch *s, Oid role, int flags);
extern void DocmodelRestoreUser(DocmodelOwnerSwitch *s);

/* Raise 42P01 unless relid is an existing relation; return its kind. */
extern char DocmodelRequireRelation(Oid relid);
/* Raise 42501 unless the current user owns relid (as ALTER TABLE does). */
extern void DocmodelRequireOwner(Oid relid);

/* SPI_connect, raising an error when it fails. */
extern void DocmodelSpiConnect(void);

/*
 * Raise 39P01 (trigger_protocol_violated) for a trigger function of
 * docmodel's fired as it was not made to be (how: what it needs), never
 * XX000: any role can attach one to a table of its own.
 */
extern void DocmodelTriggerMisuse(const char *function, const char *how)
	pg_attribute_noreturn();

/*
 * A backend-local hash table of entrysize-byte entries keyed by their first
 * keysize bytes (a C string when strings, else binary), in cxt (NULL: the
 * top memory context).
 */
extern struct HTAB *DocmodelHash(const char *name, long nelem, Size keysize,
								 Size entrysize, bool strings,
								 MemoryContext cxt);

/*
 * Raise 2D000 unless fcinfo is a procedure's called by CALL outside a
 * transaction block (it commits between batches); name is the procedure's.
 */
extern void DocmodelRequireCall(FunctionCallInfo fcinfo, const char *name);

/*
 * The rows of row trigger td's event: the old one (UPDATE, DELETE) and the
 * new one (INSERT, UPDATE), NULL where the event has none.
 */
struct TriggerData;
extern void DocmodelTriggerRows(struct TriggerData *td, HeapTuple *oldt,
								HeapTuple *newt);

#endif /* DOCMODEL_H */
