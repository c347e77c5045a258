/*-------------------------------------------------------------------------
 *
 * copy/rules.h
 *	  The copy and aggregate rules with their prepared statements (rules.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_COPY_RULES_H
#define DOCMODEL_COPY_RULES_H

#include "commands/trigger.h"
#include "executor/spi.h"
#include "utils/jsonb.h"

/* The rule of one trigger (or of apply_copies) and its statements. */
#define MAX_RULE_PLANS 4

typedef struct RulePlans
{
	Oid tgoid; /* hash key: the trigger */
	bool valid;
	int32 id;
	char kind;      /* 'c' copy, 'a' aggregate */
	Oid coll;       /* the collection written by the rule */
	Oid source;     /* the collection read */
	char *path;     /* (TopMemoryContext) the rule's path */
	char *refpath;  /* the path of the references */
	char *ref;      /* copy: the member holding the key */
	Jsonb *fields;  /* copy: the fields */
	char *agg;      /* aggregate: count, keys, sum:/p ... */
	char *agg_ptr;  /* aggregate: its pointer, or NULL */
	int on_missing; /* copy: 0 keep, 1 null, 2 remove, 3 refuse */
	bool deferred;  /* copy: mode deferred (its writes are queued) */
	char *doc_type; /* aggregate: only documents of this type hold it, or
					 * NULL */
	Jsonb *frozen;  /* copy: frozen_when (pointer -> values), or NULL */
	bool stamps;    /* the fields or the aggregate's pointer read stamps a
					 * meta_style 'columns' source keeps in columns: its
					 * documents are read with them merged */
	SPIPlanPtr plans[MAX_RULE_PLANS];
} RulePlans;

/*
 * Trigger td's rule and statements, connected to SPI; read from
 * docmodel.copy_rules and prepared when not valid. kind: 'c' for the source
 * trigger of a copy, 'f' for its fill trigger, 'a' for an aggregate's.
 */
extern RulePlans *DocmodelCopyRuleFor(TriggerData *td, char kind);
/* Copy rule id's apply statements, connected to SPI (42704, 42809). */
extern RulePlans *DocmodelCopyApplyRule(int32 id);
/* Run plan with args as the owner of relation owner_of; SPI's result. */
extern int DocmodelCopyRunAsOwner(SPIPlanPtr plan, Datum *args,
								  const char *nulls, bool read_only, long count,
								  Oid owner_of);
/* The OID of docmodel.copy_queue, as the last rule loaded found it. */
extern Oid DocmodelCopyQueueTable(void);
/* Cache invalidation subscriber (init.c's dispatcher; no catalog access, no error). */
extern void DocmodelCopyRelcache(Oid relid);
/* SQL-callable: the statement trigger of docmodel.copy_rules. */
extern Datum copy_rules_changed(PG_FUNCTION_ARGS);

#endif /* DOCMODEL_COPY_RULES_H */
