/*
 * fuzz_schema.c: JSON Schema compile and validate (src/jsonschema/validate.c). Input: a
 * schema and, on the lines after the first newline, an instance (without a
 * newline: the instance null). A schema may be refused (22023, 0A000); a
 * compiled one must give the same verdict stopping at the first violation
 * as listing them all, and list none exactly when the instance is valid.
 */
#include "postgres.h"

#include "mb/pg_wchar.h"
#include "utils/jsonb.h"

#include "fuzz.h"
#include "jsonschema/validate.h"

void
FuzzSchema(const uint8 *data, size_t size)
{
	char *str = FuzzCString(data, size);
	char *nl;
	Jsonb *schema;
	Jsonb *instance;
	DocmodelSchema *s;
	List *errors = NIL;
	bool valid;
	bool listed;

	if (str == NULL || !pg_verifymbstr(str, size, true))
		return;
	nl = strchr(str, '\n');
	if (nl != NULL)
		*nl = '\0';
	schema = FuzzJsonb(str);
	instance = FuzzJsonb(nl != NULL ? nl + 1 : "null");
	s = DocmodelSchemaGet(schema);
	valid = DocmodelSchemaValidate(s, instance, NULL, 0);
	listed = DocmodelSchemaValidate(s, instance, &errors, 0);
	FuzzCheck(valid == listed, "first-violation verdict %d, listing verdict %d",
			  valid, listed);
	FuzzCheck(valid == (errors == NIL), "valid %d with %d violations listed",
			  valid, list_length(errors));
}
