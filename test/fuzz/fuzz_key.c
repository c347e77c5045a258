/*
 * fuzz_key.c: the key parser (src/collection/key.c). Input: one byte choosing the
 * delimiter's length (1 to 4), the delimiter, then the key. The parser reads
 * libFuzzer's own buffer (no copy), so a read past the key's end is seen by
 * AddressSanitizer.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"

#include "collection/config.h"
#include "fuzz.h"
#include "collection/key.h"

extern Datum key_parts(PG_FUNCTION_ARGS);
extern Datum key_is_valid(PG_FUNCTION_ARGS);

typedef struct KeyInput
{
	const char *key;
	int klen;
	const char *delim;
	int dlen;
	int typelen;
} KeyInput;

/* The type of in's key when part type_part holds it (DocmodelKeyType). */
static int
KeyTypeLength(KeyInput *in, int type_part, const char **type)
{
	DocmodelCollection cfg;
	int len;

	memset(&cfg, 0, sizeof(cfg));
	cfg.type_part = type_part;
	memcpy(cfg.delim, in->delim, in->dlen);
	cfg.delim_len = in->dlen;
	DocmodelKeyType(&cfg, in->key, in->klen, type, &len);
	return len;
}

static void
CheckDelim(void *arg)
{
	KeyInput *in = arg;

	DocmodelCheckDelimiter(in->delim, in->dlen);
}

static void
CheckKeyRaising(void *arg)
{
	KeyInput *in = arg;

	const char *type;

	DocmodelCheckKey(in->key, in->klen, in->delim, in->dlen, true);
	in->typelen = KeyTypeLength(in, 1, &type);
}

void
FuzzKey(const uint8 *data, size_t size)
{
	KeyInput in;
	bool valid;
	text *k;
	text *d;
	ArrayType *parts;
	Datum *elems;
	int n;
	int i;
	StringInfoData joined;

	if (size < 1)
		return;
	in.dlen = 1 + data[0] % 4;
	if (size < 1 + (size_t) in.dlen)
		return;
	in.delim = (const char *) data + 1;
	in.key = (const char *) data + 1 + in.dlen;
	in.klen = size - 1 - in.dlen;
	/* SQL text is NUL-free and valid in the database encoding */
	if (memchr(data + 1, 0, size - 1) != NULL ||
		!pg_verifymbstr((const char *) data + 1, size - 1, true))
		return;
	if (!FuzzTry(CheckDelim, &in))
		return;

	valid = DocmodelCheckKey(in.key, in.klen, in.delim, in.dlen, false);
	FuzzCheck(FuzzTry(CheckKeyRaising, &in) == valid,
			  "raise=false said %d for key \"%.*s\"", valid, in.klen, in.key);

	k = cstring_to_text_with_len(in.key, in.klen);
	d = cstring_to_text_with_len(in.delim, in.dlen);
	FuzzCheck(DatumGetBool(DirectFunctionCall2(key_is_valid, PointerGetDatum(k),
											   PointerGetDatum(d))) == valid,
			  "key_is_valid disagrees on \"%.*s\"", in.klen, in.key);
	if (!valid)
		return;
	FuzzCheck(in.typelen > 0 && in.typelen <= in.klen, "type length %d of %d",
			  in.typelen, in.klen);

	/* key_parts splits a valid key into parts that join back to it */
	parts = DatumGetArrayTypeP(
		DirectFunctionCall2(key_parts, PointerGetDatum(k), PointerGetDatum(d)));
	deconstruct_array(parts, TEXTOID, -1, false, TYPALIGN_INT, &elems, NULL,
					  &n);
	initStringInfo(&joined);
	for (i = 0; i < n; i++)
	{
		text *p = DatumGetTextPP(elems[i]);

		FuzzCheck(VARSIZE_ANY_EXHDR(p) > 0, "empty part %d", i);
		if (i > 0)
			appendBinaryStringInfo(&joined, in.delim, in.dlen);
		appendBinaryStringInfo(&joined, VARDATA_ANY(p), VARSIZE_ANY_EXHDR(p));
	}
	FuzzCheck(joined.len == in.klen &&
				  memcmp(joined.data, in.key, in.klen) == 0,
			  "parts of \"%.*s\" join to \"%s\"", in.klen, in.key, joined.data);
	FuzzCheck(VARSIZE_ANY_EXHDR(DatumGetTextPP(elems[0])) == in.typelen,
			  "first part and type length differ for \"%.*s\"", in.klen,
			  in.key);
	/* a later part as the type (type_part): that part, where key_parts has it */
	if (n >= 2)
	{
		text *p = DatumGetTextPP(elems[n - 1]);
		const char *type;
		int len = KeyTypeLength(&in, n, &type);

		FuzzCheck(len == VARSIZE_ANY_EXHDR(p) &&
					  memcmp(type, VARDATA_ANY(p), len) == 0,
				  "part %d and type differ for \"%.*s\"", n, in.klen, in.key);
	}
}
