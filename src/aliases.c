/*-------------------------------------------------------------------------
 *
 * aliases.c
 *	  The C names the frozen 0.1.0 install script names (sql/docmodel--0.1.0.sql), kept as
 *	  aliases of the functions they were renamed to by the naming rule (CONTRIBUTING.md,
 *	  "Naming"): a database still at 0.1.0 runs against this library, and the upgrade to
 *	  0.2.0 starts from it. Each alias only calls its function. No state.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"

#include "aliases.h"

/* The functions of today's names (declared in their own files by PG_FUNCTION_INFO_V1). */
extern Datum collection_check_collection_options(PG_FUNCTION_ARGS);
extern Datum collection_config_changed(PG_FUNCTION_ARGS);
extern Datum collection_create_collection(PG_FUNCTION_ARGS);
extern Datum migration_current_version(PG_FUNCTION_ARGS);
extern Datum json_diff(PG_FUNCTION_ARGS);
extern Datum counter_incr(PG_FUNCTION_ARGS);
extern Datum key_key(PG_FUNCTION_ARGS);
extern Datum migration_migrate(PG_FUNCTION_ARGS);
extern Datum migration_migrate_collection(PG_FUNCTION_ARGS);
extern Datum migration_migrate_doc(PG_FUNCTION_ARGS);
extern Datum counter_next_id(PG_FUNCTION_ARGS);
extern Datum counter_next_key(PG_FUNCTION_ARGS);
extern Datum json_patch(PG_FUNCTION_ARGS);
extern Datum key_uuid_key(PG_FUNCTION_ARGS);

PG_FUNCTION_INFO_V1(_check_collection_options);
Datum
_check_collection_options(PG_FUNCTION_ARGS)
{
	return collection_check_collection_options(fcinfo);
}

PG_FUNCTION_INFO_V1(_collection_config_changed);
Datum
_collection_config_changed(PG_FUNCTION_ARGS)
{
	return collection_config_changed(fcinfo);
}

PG_FUNCTION_INFO_V1(create_collection);
Datum
create_collection(PG_FUNCTION_ARGS)
{
	return collection_create_collection(fcinfo);
}

PG_FUNCTION_INFO_V1(current_version);
Datum
current_version(PG_FUNCTION_ARGS)
{
	return migration_current_version(fcinfo);
}

PG_FUNCTION_INFO_V1(diff);
Datum
diff(PG_FUNCTION_ARGS)
{
	return json_diff(fcinfo);
}

PG_FUNCTION_INFO_V1(incr);
Datum
incr(PG_FUNCTION_ARGS)
{
	return counter_incr(fcinfo);
}

PG_FUNCTION_INFO_V1(key);
Datum
key(PG_FUNCTION_ARGS)
{
	return key_key(fcinfo);
}

PG_FUNCTION_INFO_V1(migrate);
Datum
migrate(PG_FUNCTION_ARGS)
{
	return migration_migrate(fcinfo);
}

PG_FUNCTION_INFO_V1(migrate_collection);
Datum
migrate_collection(PG_FUNCTION_ARGS)
{
	return migration_migrate_collection(fcinfo);
}

PG_FUNCTION_INFO_V1(migrate_doc);
Datum
migrate_doc(PG_FUNCTION_ARGS)
{
	return migration_migrate_doc(fcinfo);
}

PG_FUNCTION_INFO_V1(next_id);
Datum
next_id(PG_FUNCTION_ARGS)
{
	return counter_next_id(fcinfo);
}

PG_FUNCTION_INFO_V1(next_key);
Datum
next_key(PG_FUNCTION_ARGS)
{
	return counter_next_key(fcinfo);
}

PG_FUNCTION_INFO_V1(patch);
Datum
patch(PG_FUNCTION_ARGS)
{
	return json_patch(fcinfo);
}

PG_FUNCTION_INFO_V1(uuid_key);
Datum
uuid_key(PG_FUNCTION_ARGS)
{
	return key_uuid_key(fcinfo);
}
