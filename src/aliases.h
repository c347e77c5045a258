/*-------------------------------------------------------------------------
 *
 * aliases.h
 *	  The released C names kept as aliases (aliases.c): SQL-callable only.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_ALIASES_H
#define DOCMODEL_ALIASES_H

#include "fmgr.h"

extern Datum _check_collection_options(PG_FUNCTION_ARGS);
extern Datum _collection_config_changed(PG_FUNCTION_ARGS);
extern Datum create_collection(PG_FUNCTION_ARGS);
extern Datum current_version(PG_FUNCTION_ARGS);
extern Datum diff(PG_FUNCTION_ARGS);
extern Datum incr(PG_FUNCTION_ARGS);
extern Datum key(PG_FUNCTION_ARGS);
extern Datum migrate(PG_FUNCTION_ARGS);
extern Datum migrate_collection(PG_FUNCTION_ARGS);
extern Datum migrate_doc(PG_FUNCTION_ARGS);
extern Datum next_id(PG_FUNCTION_ARGS);
extern Datum next_key(PG_FUNCTION_ARGS);
extern Datum patch(PG_FUNCTION_ARGS);
extern Datum uuid_key(PG_FUNCTION_ARGS);

#endif /* DOCMODEL_ALIASES_H */
