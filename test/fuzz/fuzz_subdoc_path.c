/*
 * fuzz_subdoc_path.c: the Couchbase sub-document path parser
 * (JsonPointerParseSubdoc, src/json/pointer.c), directly and as users reach
 * it: the input as the path of mutate_in specs applied to a document
 * (src/collection/subdoc.c, _mutate_in_apply). A path is refused with an ERROR or
 * resolves; nothing else may happen. Property: a path that parses, written
 * back with every name quoted in backticks and every index as [n], parses to
 * the same tokens.
 */
#include "postgres.h"

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/jsonb.h"

#include "fuzz.h"
#include "json/pointer.h"

extern Datum subdoc_mutate_in_apply(PG_FUNCTION_ARGS);

/* a document built by the first spec, then one spec on the input's path */
static const char *const specs[] = {
	"{\"op\": \"upsert\", \"path\": %1$s, \"value\": 1, \"create_path\": true}",
	"{\"op\": \"insert\", \"path\": %1$s, \"value\": [1]}",
	"{\"op\": \"replace\", \"path\": %1$s, \"value\": {}}",
	"{\"op\": \"remove\", \"path\": %1$s}",
	"{\"op\": \"array_append\", \"path\": %1$s, \"values\": [1, 2], "
	"\"create_path\": true}",
	"{\"op\": \"array_prepend\", \"path\": %1$s, \"value\": 0}",
	"{\"op\": \"array_insert\", \"path\": %1$s, \"value\": 0}",
	"{\"op\": \"array_addunique\", \"path\": %1$s, \"value\": 2}",
	"{\"op\": \"increment\", \"path\": %1$s, \"delta\": 2, "
	"\"create_path\": true}",
	"{\"op\": \"decrement\", \"path\": %1$s}",
};
static const char *const seed =
	"{\"op\": \"upsert\", \"path\": \"/a\", \"value\": {\"b\": [1, 2, {\"c\": "
	"3}], \"\": 4, \"x.y\": {\"`\": [5]}, \"0\": [], \"s\": \"x-y\"}}";

/* Apply specs (a JSON array text) to {} with _mutate_in_apply. */
static void
Apply(void *arg)
{
	LOCAL_FCINFO(fcinfo, 3);

	InitFunctionCallInfoData(*fcinfo, NULL, 3, InvalidOid, NULL, NULL);
	fcinfo->args[0].isnull = true;
	fcinfo->args[1].value = JsonbPGetDatum(FuzzJsonb((const char *) arg));
	fcinfo->args[1].isnull = false;
	fcinfo->args[2].value = CStringGetTextDatum("fuzz::1");
	fcinfo->args[2].isnull = false;
	(void) subdoc_mutate_in_apply(fcinfo);
}

/*
 * The parsed path written back: [n] for an index, every name in backticks
 * with JSON escapes; NULL when a name holds a control character JSON
 * escapes only as \u (which paths do not take).
 */
static char *
Quoted(const JsonPointer *p)
{
	StringInfoData buf;
	int i;
	int j;

	initStringInfo(&buf);
	for (i = 0; i < p->ntok; i++)
	{
		if (p->index[i])
		{
			appendStringInfo(&buf, "[%s]", p->tok[i]);
			continue;
		}
		if (i > 0)
			appendStringInfoChar(&buf, '.');
		appendStringInfoChar(&buf, '`');
		for (j = 0; j < p->toklen[i]; j++)
		{
			char c = p->tok[i][j];
			const char *esc = c == '`'    ? "``"
							  : c == '"'  ? "\\\""
							  : c == '\\' ? "\\\\"
							  : c == '\b' ? "\\b"
							  : c == '\f' ? "\\f"
							  : c == '\n' ? "\\n"
							  : c == '\r' ? "\\r"
							  : c == '\t' ? "\\t"
										  : NULL;

			if (esc != NULL)
				appendStringInfoString(&buf, esc);
			else if ((unsigned char) c < 0x20)
				return NULL;
			else
				appendStringInfoChar(&buf, c);
		}
		appendStringInfoChar(&buf, '`');
	}
	return buf.data;
}

void
FuzzSubdocPath(const uint8 *data, size_t size)
{
	char *str = FuzzCString(data, size);
	StringInfoData quoted;
	JsonPointer p;
	const char *why;
	char *again;
	int i;

	if (str == NULL)
		return;
	/* the parser itself, on the fuzzer's bytes (any encoding) */
	if (DocmodelJsonPointerParseSubdoc(str, size, 31, &p, &why) ==
			JSONPOINTER_SUBDOC_OK &&
		(again = Quoted(&p)) != NULL)
	{
		JsonPointer q;

		FuzzCheck(DocmodelJsonPointerParseSubdoc(again, strlen(again), 31, &q,
												 &why) == JSONPOINTER_SUBDOC_OK,
				  "quoted path \"%s\" of \"%s\" does not parse", again, str);
		FuzzCheck(q.ntok == p.ntok, "\"%s\": %d tokens, quoted %d", str, p.ntok,
				  q.ntok);
		for (i = 0; i < p.ntok; i++)
			FuzzCheck(p.toklen[i] == q.toklen[i] && p.index[i] == q.index[i] &&
						  memcmp(p.tok[i], q.tok[i], p.toklen[i]) == 0,
					  "\"%s\": token %d changed when quoted", str, i);
	}
	if (!pg_verifymbstr(str, size, true))
		return;
	initStringInfo(&quoted);
	escape_json(&quoted, str);
	for (i = 0; i < lengthof(specs); i++)
		(void) FuzzTry(
			Apply, psprintf("[%s, %s]", seed, psprintf(specs[i], quoted.data)));
}
