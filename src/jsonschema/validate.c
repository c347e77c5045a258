/*-------------------------------------------------------------------------
 *
 * jsonschema/validate.c
 *	  The SQL functions of JSON Schema validation: schema_valid,
 *	  schema_errors and schema_output (the "basic" output format), over the
 *	  cache of compiled schemas (schema.c) and the validator (run.c); and
 *	  violations returned as rows (DocmodelReturnViolations, registry.c's
 *	  too). No state.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/json.h"

#include "jsonschema/validate.h"

/* ---------------------------------------------------------------------
 * SQL: schema_valid, schema_errors
 * ---------------------------------------------------------------------
 */

PG_FUNCTION_INFO_V1(schema_valid);
PG_FUNCTION_INFO_V1(schema_errors);
PG_FUNCTION_INFO_V1(schema_output);

/*
 * schema_output(schema jsonb, instance jsonb) returns jsonb: JSON Schema's
 * "basic" output format: {"valid": ..., "errors": [{"keywordLocation",
 * "absoluteKeywordLocation" (when the keyword's resource has a URI),
 * "instanceLocation", "error"}]}, one unit per violation.
 */
Datum
schema_output(PG_FUNCTION_ARGS)
{
	Jsonb *schema = PG_GETARG_JSONB_P(0);
	Jsonb *instance = PG_GETARG_JSONB_P(1);
	List *errors = NIL;
	bool valid;
	StringInfoData out;
	ListCell *lc;

	valid = DocmodelSchemaValidateForOutput(DocmodelSchemaGet(schema), instance,
											&errors);
	initStringInfo(&out);
	appendStringInfo(&out, "{\"valid\": %s", valid ? "true" : "false");
	if (!valid)
	{
		appendStringInfoString(&out, ", \"errors\": [");
		foreach (lc, errors)
		{
			DocmodelViolation *e = lfirst(lc);

			CHECK_FOR_INTERRUPTS();
			if (lc != list_head(errors))
				appendStringInfoString(&out, ", ");
			appendStringInfoString(&out, "{\"keywordLocation\": ");
			escape_json(&out, e->keyword_location);
			if (e->absolute_location)
			{
				appendStringInfoString(&out, ", \"absoluteKeywordLocation\": ");
				escape_json(&out, e->absolute_location);
			}
			appendStringInfoString(&out, ", \"instanceLocation\": ");
			escape_json(&out, e->path);
			appendStringInfoString(&out, ", \"error\": ");
			escape_json(&out, e->message);
			appendStringInfoChar(&out, '}');
		}
		appendStringInfoChar(&out, ']');
	}
	appendStringInfoChar(&out, '}');
	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(out.data)));
}

/* schema_valid(schema jsonb, instance jsonb) returns boolean */
Datum
schema_valid(PG_FUNCTION_ARGS)
{
	Jsonb *schema = PG_GETARG_JSONB_P(0);
	Jsonb *instance = PG_GETARG_JSONB_P(1);

	PG_RETURN_BOOL(
		DocmodelSchemaValidate(DocmodelSchemaGet(schema), instance, NULL, 0));
}

/* Return violations as rows; see validate.h. */
void
DocmodelReturnViolations(FunctionCallInfo fcinfo, List *errors)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ListCell *lc;

	InitMaterializedSRF(fcinfo, 0);
	foreach (lc, errors)
	{
		DocmodelViolation *e = lfirst(lc);
		Datum values[3];
		bool nulls[3] = {false, false, false};

		values[0] = CStringGetTextDatum(e->path);
		values[1] = CStringGetTextDatum(e->schema_path);
		values[2] = CStringGetTextDatum(e->message);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

/* schema_errors(schema jsonb, instance jsonb) returns table(path, schema_path,
 * message) */
Datum
schema_errors(PG_FUNCTION_ARGS)
{
	Jsonb *schema = PG_GETARG_JSONB_P(0);
	Jsonb *instance = PG_GETARG_JSONB_P(1);
	List *errors = NIL;

	DocmodelSchemaValidate(DocmodelSchemaGet(schema), instance, &errors, 0);
	DocmodelReturnViolations(fcinfo, errors);
	PG_RETURN_VOID();
}
