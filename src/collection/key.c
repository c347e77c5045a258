/*-------------------------------------------------------------------------
 *
 * collection/key.c
 *	  Couchbase-style document keys: build them from parts, split them,
 *	  check them (README, "Keys"), and make time-ordered UUID keys.
 *
 *	  Shared state: none between backends. Each backend keeps the last
 *	  timestamp uuid_key() used (static, so its keys sort in creation order),
 *	  and key()/key_with() cache the argument types of each call site in
 *	  fn_extra. Nothing here needs a lock.
 *
 *	  The key rules: at most 250 bytes; every part non-empty; no control
 *	  character (bytes 0x01-0x1f and 0x7f); no part contains the delimiter;
 *	  and no two occurrences of the delimiter overlap (with "::", "a:::b"
 *	  is refused: it could be "a:" + "b" or "a" + ":b"). So the occurrences
 *	  of the delimiter in a valid key are exactly its separators, and
 *	  splitting gives back the parts it was built from.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <time.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "port.h"
#include "port/pg_bitutils.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/uuid.h"
#include "access/xact.h"
#include "miscadmin.h"
#include "storage/proc.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "collection/config.h"
#include "compat.h"
#include "docmodel.h"
#include "collection/key.h"

PG_FUNCTION_INFO_V1(key_key);
PG_FUNCTION_INFO_V1(key_with);
PG_FUNCTION_INFO_V1(key_parts);
PG_FUNCTION_INFO_V1(key_type);
PG_FUNCTION_INFO_V1(key_id);
PG_FUNCTION_INFO_V1(key_parent);
PG_FUNCTION_INFO_V1(key_is_valid);
PG_FUNCTION_INFO_V1(key_uuid_key);
PG_FUNCTION_INFO_V1(revision_key);
PG_FUNCTION_INFO_V1(key_from_template);

/* Room for a key being built: the limit plus the longest single append. */
#define KEY_BUF_BYTES (DOCMODEL_MAX_KEY_BYTES + 64)

/* How much of a key or part an error message shows. */
#define KEY_SHOW_BYTES 60

/* What a key scan found wrong, if anything. */
typedef enum KeyFault
{
	KEY_OK,
	KEY_TOO_LONG,
	KEY_EMPTY_PART,
	KEY_CONTROL_CHAR,
	KEY_OVERLAP
} KeyFault;

/* The result of ScanKey. */
typedef struct KeyScan
{
	KeyFault fault;
	int part;      /* 1-based part the fault is in */
	int pos;       /* byte offset of the fault */
	int nparts;    /* parts found (when fault is KEY_OK) */
	int firstend;  /* end of the first part */
	int laststart; /* start of the last part */
	int lastsep;   /* start of the last separator, or -1 */
} KeyScan;

/* How a key part's value becomes text. */
typedef enum PartKind
{
	PART_TEXT,   /* text, varchar (varlena) */
	PART_BPCHAR, /* char(n): trailing blanks dropped */
	PART_NAME,
	PART_CSTRING, /* an untyped literal */
	PART_INT2,
	PART_INT4,
	PART_INT8,
	PART_NUMERIC,
	PART_UUID,
	PART_BOOL
} PartKind;

/* Per call site cache of key()/key_with(), kept in fn_extra. */
typedef struct KeyCallCache
{
	int nargs;     /* PG_NARGS() it was built for */
	bool variadic; /* called with VARIADIC array */
	/* for a VARIADIC array call: the element type */
	Oid elemtype;
	int16 elemlen;
	bool elembyval;
	char elemalign;
	PartKind elemkind;
	/* for a spread call: one kind per argument */
	PartKind kinds[FLEXIBLE_ARRAY_MEMBER];
} KeyCallCache;

static const char hexdigits[] = "0123456789abcdef";

/* Return a text argument, detoasted only when it must be (as pg_detoast_datum_packed). */
static inline text *
ArgText(Datum d)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(d);

	if (unlikely(VARATT_IS_COMPRESSED(v) || VARATT_IS_EXTERNAL(v)))
		v = pg_detoast_datum_packed(v);
	return (text *) v;
}

#define KEY_GETARG_TEXT_PP(n) ArgText(PG_GETARG_DATUM(n))

/* Return whether the byte is a control character for the key rules. */
static inline bool
IsKeyControl(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/* Return whether a byte may not be in a delimiter: letter, digit, space, control. */
static inline bool
IsBadDelimiterByte(unsigned char c)
{
	/* every ASCII whitespace and control byte is <= ' ' or 0x7f */
	return c <= ' ' || c == 0x7f || (c >= '0' && c <= '9') ||
		   ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

/* Return whether a delimiter is 1-4 bytes, none a letter, digit, space or control. */
static inline bool
DelimiterIsValid(const char *delim, int dlen, int *badbyte)
{
	int i;

	*badbyte = -1;
	if (dlen < 1 || dlen > DOCMODEL_MAX_DELIM_BYTES)
		return false;
	for (i = 0; i < dlen; i++)
	{
		if (IsBadDelimiterByte((unsigned char) delim[i]))
		{
			*badbyte = i;
			return false;
		}
	}
	return true;
}

/* Return a printable, clipped copy of some key bytes for an error message. */
static char *
ShowKey(const char *s, int len)
{
	int n = len;
	char *out;
	int i;

	if (n > KEY_SHOW_BYTES)
		n = pg_mbcliplen(s, len, KEY_SHOW_BYTES);
	out = palloc(n + 4);
	for (i = 0; i < n; i++)
		out[i] = IsKeyControl((unsigned char) s[i]) ? '?' : s[i];
	if (n < len)
	{
		memcpy(out + n, "...", 3);
		n += 3;
	}
	out[n] = '\0';
	return out;
}

/* Return a printable copy of a delimiter for an error message. */
static char *
ShowDelim(const char *delim, int dlen)
{
	return ShowKey(delim, dlen);
}

void
DocmodelCheckDelimiter(const char *delim, int dlen)
{
	int badbyte;

	if (DelimiterIsValid(delim, dlen, &badbyte))
		return;
	if (badbyte < 0)
		ereport(
			ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid key delimiter \"%s\"", ShowDelim(delim, dlen)),
			 errdetail("A delimiter is 1 to %d bytes long; this one has %d.",
					   DOCMODEL_MAX_DELIM_BYTES, dlen),
			 errhint("Use a delimiter such as \"::\", \":\" or \"_\".")));
	ereport(
		ERROR,
		(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		 errmsg("invalid key delimiter \"%s\"", ShowDelim(delim, dlen)),
		 errdetail("A delimiter may not contain letters, digits, whitespace "
				   "or control characters (byte %d is 0x%02x).",
				   badbyte + 1, (unsigned char) delim[badbyte]),
		 errhint("Use a delimiter such as \"::\", \":\" or \"_\".")));
}

/* Return whether bytes 1.. of the delimiter follow p[0] (which matched). */
static inline bool
DelimRestAt(const char *p, const char *delim, int dlen)
{
	int j;

	for (j = 1; j < dlen; j++)
		if (p[j] != delim[j])
			return false;
	return true;
}

/*
 * Return, for eight key bytes read little-endian, a mask with the high bit
 * set of each byte that may be "special": the first delimiter byte or a
 * control character. The lowest set bit is always a true hit; the borrows
 * of the zero-byte trick may add false hits above it, which the caller
 * checks away.
 */
static inline uint64
SpecialBytes8(uint64 w, uint64 d0s)
{
	const uint64 ones = UINT64CONST(0x0101010101010101);
	const uint64 highs = UINT64CONST(0x8080808080808080);
	uint64 x = w ^ d0s;
	uint64 y = w ^ (ones * 0x7f);

	return (((x - ones) & ~x) | ((y - ones) & ~y) | ((w - ones * 0x20) & ~w)) &
		   highs;
}

/*
 * Look at key byte i, a candidate special byte: record a separator, or
 * return the fault it makes (KEY_OK when it is neither).
 */
static inline KeyFault
ScanByte(const char *key, int len, int i, const char *delim, int dlen,
		 int *partstart, KeyScan *s)
{
	unsigned char c = (unsigned char) key[i];

	if (c == (unsigned char) delim[0])
	{
		if (i + dlen <= len && DelimRestAt(key + i, delim, dlen))
		{
			s->pos = i;
			s->part = s->nparts;
			if (i < *partstart)
				return KEY_OVERLAP;
			if (i == *partstart)
				return KEY_EMPTY_PART;
			if (s->firstend < 0)
				s->firstend = i;
			s->lastsep = i;
			s->nparts++;
			*partstart = i + dlen;
		}
	}
	else if (IsKeyControl(c))
	{
		s->pos = i;
		s->part = s->nparts;
		return KEY_CONTROL_CHAR;
	}
	return KEY_OK;
}

/*
 * Scan a key against the key rules, finding every occurrence of the
 * delimiter (overlapping ones too). The caller has checked the delimiter.
 * Ordinary bytes are skipped 16 (SSE2) or 8 at a time; blocks never read
 * outside the key (a short tail is read as the last whole block, its bytes
 * already seen masked off).
 */
static KeyFault
KeyScanParts(const char *key, int len, const char *delim, int dlen, KeyScan *s)
{
	unsigned char d0 = (unsigned char) delim[0];
	int partstart = 0;
	int pos = 0; /* first byte not yet looked at */
	KeyFault f;

	s->nparts = 1;
	s->firstend = -1;
	s->lastsep = -1;
	s->part = 1;
	s->pos = 0;
	if (len > DOCMODEL_MAX_KEY_BYTES)
		return s->fault = KEY_TOO_LONG;

#ifdef __SSE2__
	if (len >= 16)
	{
		const __m128i vd0 = _mm_set1_epi8((char) d0);
		const __m128i v1f = _mm_set1_epi8(0x1f);
		const __m128i v7f = _mm_set1_epi8(0x7f);

		while (pos < len)
		{
			int base = (len - pos >= 16) ? pos : len - 16;
			__m128i v = _mm_loadu_si128((const __m128i *) (key + base));
			__m128i sp = _mm_or_si128(
				_mm_or_si128(_mm_cmpeq_epi8(v, vd0), _mm_cmpeq_epi8(v, v7f)),
				_mm_cmpeq_epi8(_mm_min_epu8(v, v1f), v));
			uint32 mask = (uint32) _mm_movemask_epi8(sp);

			mask &= ~(uint32) 0 << (pos - base);
			while (mask != 0)
			{
				int i = base + pg_rightmost_one_pos32(mask);

				mask &= mask - 1;
				if ((f = ScanByte(key, len, i, delim, dlen, &partstart, s)) !=
					KEY_OK)
					return s->fault = f;
			}
			pos = base + 16;
		}
	}
#endif
#ifndef WORDS_BIGENDIAN
	if (len >= 8)
	{
		uint64 d0s = UINT64CONST(0x0101010101010101) * d0;

		while (pos < len)
		{
			int base = (len - pos >= 8) ? pos : len - 8;
			uint64 w;
			uint64 mask;

			memcpy(&w, key + base, 8);
			mask =
				SpecialBytes8(w, d0s) & (~UINT64CONST(0) << (8 * (pos - base)));
			while (mask != 0)
			{
				int i = base + (pg_rightmost_one_pos64(mask) >> 3);

				mask &= mask - 1;
				if ((f = ScanByte(key, len, i, delim, dlen, &partstart, s)) !=
					KEY_OK)
					return s->fault = f;
			}
			pos = base + 8;
		}
	}
#endif
	for (; pos < len; pos++)
	{
		unsigned char c = (unsigned char) key[pos];

		if ((c == d0 || IsKeyControl(c)) &&
			(f = ScanByte(key, len, pos, delim, dlen, &partstart, s)) != KEY_OK)
			return s->fault = f;
	}
	if (partstart == len)
	{
		s->pos = len;
		s->part = s->nparts;
		return s->fault = KEY_EMPTY_PART;
	}
	if (s->firstend < 0)
		s->firstend = len;
	s->laststart = partstart;
	return s->fault = KEY_OK;
}

/* Raise the error a failed ScanKey describes. */
static void
ReportKeyFault(const char *key, int len, const char *delim, int dlen,
			   const KeyScan *s)
{
	switch (s->fault)
	{
		case KEY_OK:
			break;
		case KEY_TOO_LONG:
			ereport(
				ERROR,
				(errcode(ERRCODE_STRING_DATA_RIGHT_TRUNCATION),
				 errmsg("key is too long"),
				 errdetail("Key \"%s\" is %d bytes; the limit is %d.",
						   ShowKey(key, len), len, DOCMODEL_MAX_KEY_BYTES)));
			break;
		case KEY_EMPTY_PART:
			ereport(
				ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid key \"%s\"", ShowKey(key, len)),
				 errdetail("Part %d of the key is empty (delimiter \"%s\").",
						   s->part, ShowDelim(delim, dlen))));
			break;
		case KEY_CONTROL_CHAR:
			ereport(
				ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid key \"%s\"", ShowKey(key, len)),
				 errdetail("Byte %d of the key is the control character "
						   "0x%02x; keys may not contain control characters.",
						   s->pos + 1, (unsigned char) key[s->pos])));
			break;
		case KEY_OVERLAP:
			ereport(
				ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid key \"%s\"", ShowKey(key, len)),
				 errdetail("The delimiter \"%s\" occurs twice overlapping at "
						   "byte %d, so the parts of the key are ambiguous.",
						   ShowDelim(delim, dlen), s->pos + 1)));
			break;
	}
}

bool
DocmodelCheckKey(const char *key, int len, const char *delim, int dlen,
				 bool raise)
{
	KeyScan s;

	if (KeyScanParts(key, len, delim, dlen, &s) == KEY_OK)
		return true;
	if (raise)
		ReportKeyFault(key, len, delim, dlen, &s);
	return false;
}

/*
 * The document type of a key under collection cfg's layout, the one place
 * that derives it (the trigger, and every concern that needs a key's type):
 * part cfg->type_part of the key (1: the first), or the collection's
 * doc_type when type_part is 0 (keys carry no type); NULL (length 0) in a
 * body-typed collection (DOCMODEL_BODY_TYPED), whose documents' types are
 * in their bodies alone. The key has passed
 * DocmodelCheckKey(), so the delimiter occurs only as separators. Raises
 * 22023 naming the key when it has fewer parts. *type points into key (or
 * cfg) and is not NUL-terminated.
 */
void
DocmodelKeyType(const DocmodelCollection *cfg, const char *key, int key_len,
				const char **type, int *type_len)
{
	const char *d = cfg->delim;
	int dlen = cfg->delim_len;
	int part = 1;
	int start = 0;
	int i;

	if (cfg->type_part == 0)
	{
		/* a body-typed collection (types): no type without the body */
		*type = cfg->has_doc_type ? cfg->doc_type : NULL;
		*type_len = cfg->has_doc_type ? cfg->doc_type_len : 0;
		return;
	}
	/* the separators: memchr finds each delimiter's first byte */
	for (i = 0; i + dlen <= key_len; i++)
	{
		const char *p = memchr(key + i, d[0], key_len - dlen + 1 - i);

		if (p == NULL)
		{
			i = key_len;
			break;
		}
		i = p - key;
		if (memcmp(p, d, dlen) != 0)
			continue;
		if (part == cfg->type_part)
			break;
		part++;
		start = i + dlen;
		i = start - 1;
	}
	if (part < cfg->type_part)
	{
		char *coll = get_rel_name(cfg->relid);

		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("key \"%s\" has no part %d", ShowKey(key, key_len),
						cfg->type_part),
				 errdetail("Collection \"%s\" takes the document type from "
						   "part %d of a key (delimiter \"%s\"); this key has "
						   "%d part%s.",
						   coll ? coll : "(dropped)", cfg->type_part,
						   ShowDelim(d, dlen), part, part == 1 ? "" : "s")));
	}
	*type = key + start;
	*type_len = (i + dlen <= key_len ? i : key_len) - start;
}

/* Check a key (text) and its delimiter (text), raising on any fault. */
static void
CheckKeyArgs(text *key, text *delim, KeyScan *s)
{
	const char *k = VARDATA_ANY(key);
	int klen = VARSIZE_ANY_EXHDR(key);
	const char *d = VARDATA_ANY(delim);
	int dlen = VARSIZE_ANY_EXHDR(delim);

	int badbyte;

	if (unlikely(!DelimiterIsValid(d, dlen, &badbyte)))
		DocmodelCheckDelimiter(d, dlen);
	if (unlikely(KeyScanParts(k, klen, d, dlen, s) != KEY_OK))
		ReportKeyFault(k, klen, d, dlen, s);
}

/* Map a part's type to how it becomes text, or raise 22023 for a refused type. */
static PartKind
PartKindOf(Oid type, int partno)
{
	Oid base = getBaseType(type);

	switch (base)
	{
		case TEXTOID:
		case VARCHAROID:
			return PART_TEXT;
		case BPCHAROID:
			return PART_BPCHAR;
		case NAMEOID:
			return PART_NAME;
		case UNKNOWNOID:
		case CSTRINGOID:
			return PART_CSTRING;
		case INT2OID:
			return PART_INT2;
		case INT4OID:
			return PART_INT4;
		case INT8OID:
			return PART_INT8;
		case NUMERICOID:
			return PART_NUMERIC;
		case UUIDOID:
			return PART_UUID;
		case BOOLOID:
			return PART_BOOL;
		default:
			break;
	}
	ereport(
		ERROR,
		(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		 errmsg("key part %d has type %s, which cannot be a key part", partno,
				format_type_be(type)),
		 errdetail("Key parts may be text, varchar, char, name, smallint, "
				   "integer, bigint, numeric, uuid or boolean; the text form "
				   "of other types can change with settings, and a key must "
				   "not."),
		 errhint("Cast the part to text in a fixed format, for example "
				 "to_char(d, 'YYYY-MM-DD') for a date.")));
	return PART_TEXT; /* keep the compiler quiet */
}

/* Build (once per call site) the cache of key part kinds. */
static KeyCallCache *
GetKeyCallCache(FunctionCallInfo fcinfo, int first)
{
	KeyCallCache *cache = (KeyCallCache *) fcinfo->flinfo->fn_extra;
	int nargs = PG_NARGS();
	int i;

	if (cache != NULL && cache->nargs == nargs)
		return cache;

	cache = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt,
								   offsetof(KeyCallCache, kinds) +
									   sizeof(PartKind) * Max(nargs, 1));
	cache->nargs = nargs;
	cache->variadic = get_fn_expr_variadic(fcinfo->flinfo);
	if (cache->variadic)
	{
		Oid arrtype = get_fn_expr_argtype(fcinfo->flinfo, first);

		if (!OidIsValid(arrtype))
			elog(ERROR, "could not determine the type of the VARIADIC array");
		cache->elemtype = get_base_element_type(arrtype);
		if (!OidIsValid(cache->elemtype))
			elog(ERROR, "VARIADIC argument is not an array");
		cache->elemkind = PartKindOf(cache->elemtype, 1);
		get_typlenbyvalalign(cache->elemtype, &cache->elemlen,
							 &cache->elembyval, &cache->elemalign);
	}
	else
	{
		for (i = first; i < nargs; i++)
		{
			Oid t = get_fn_expr_argtype(fcinfo->flinfo, i);

			if (!OidIsValid(t))
				elog(ERROR, "could not determine the type of key part %d",
					 i - first + 1);
			cache->kinds[i] = PartKindOf(t, i - first + 1);
		}
	}
	fcinfo->flinfo->fn_extra = cache;
	return cache;
}

/* Raise 22001 for a key that grew past the limit while being built. */
static void
ReportBuiltTooLong(const char *buf, int pos, int partno)
{
	ereport(ERROR,
			(errcode(ERRCODE_STRING_DATA_RIGHT_TRUNCATION),
			 errmsg("key is too long"),
			 errdetail("Key \"%s\" is over %d bytes by part %d.",
					   ShowKey(buf, pos), DOCMODEL_MAX_KEY_BYTES, partno)));
}

/* Raise 22004 for a NULL key part. */
static void
ReportNullPart(int partno)
{
	ereport(ERROR,
			(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
			 errmsg("key part %d is null", partno),
			 errdetail("A key part may not be NULL; docmodel never skips one."),
			 errhint("Give the part a value, for example with coalesce().")));
}

/* Write a uuid's canonical text form (36 bytes) at dst. */
static void
WriteUuid(char *dst, const pg_uuid_t *u)
{
	int i;
	char *p = dst;

	for (i = 0; i < UUID_LEN; i++)
	{
		if (i == 4 || i == 6 || i == 8 || i == 10)
			*p++ = '-';
		*p++ = hexdigits[u->data[i] >> 4];
		*p++ = hexdigits[u->data[i] & 0x0f];
	}
}

/*
 * Append one part's text form to the key buffer at *pos. Returns false when
 * the key has grown past the limit (the buffer always has room for the
 * fixed-size forms; variable ones are checked before copying).
 */
static inline bool
AppendPart(char *buf, int *pos, PartKind kind, Datum d)
{
	int p = *pos;
	const char *s;
	int len;

	switch (kind)
	{
		case PART_INT4:
			*pos = p + pg_ltoa(DatumGetInt32(d), buf + p);
			return *pos <= DOCMODEL_MAX_KEY_BYTES;
		case PART_INT8:
			*pos = p + pg_lltoa(DatumGetInt64(d), buf + p);
			return *pos <= DOCMODEL_MAX_KEY_BYTES;
		case PART_INT2:
			*pos = p + pg_itoa(DatumGetInt16(d), buf + p);
			return *pos <= DOCMODEL_MAX_KEY_BYTES;
		case PART_UUID:
			WriteUuid(buf + p, DatumGetUUIDP(d));
			*pos = p + 36;
			return *pos <= DOCMODEL_MAX_KEY_BYTES;
		case PART_BOOL:
			if (DatumGetBool(d))
			{
				memcpy(buf + p, "true", 4);
				*pos = p + 4;
			}
			else
			{
				memcpy(buf + p, "false", 5);
				*pos = p + 5;
			}
			return *pos <= DOCMODEL_MAX_KEY_BYTES;
		case PART_TEXT:
		{
			text *t = (text *) PG_DETOAST_DATUM_PACKED(d);

			s = VARDATA_ANY(t);
			len = VARSIZE_ANY_EXHDR(t);
			break;
		}
		case PART_BPCHAR:
		{
			text *t = (text *) PG_DETOAST_DATUM_PACKED(d);

			s = VARDATA_ANY(t);
			len = VARSIZE_ANY_EXHDR(t);
			while (len > 0 && s[len - 1] == ' ')
				len--;
			break;
		}
		case PART_NAME:
			s = NameStr(*DatumGetName(d));
			len = strnlen(s, NAMEDATALEN);
			break;
		case PART_CSTRING:
			s = DatumGetCString(d);
			len = strlen(s);
			break;
		case PART_NUMERIC:
			s = DatumGetCString(DirectFunctionCall1(numeric_out, d));
			len = strlen(s);
			break;
		default:
			elog(ERROR, "unexpected key part kind %d", (int) kind);
			return false;
	}
	if (len > DOCMODEL_MAX_KEY_BYTES - p)
	{
		/* copy what fits, for the error message */
		memcpy(buf + p, s, Max(DOCMODEL_MAX_KEY_BYTES - p, 0));
		*pos = DOCMODEL_MAX_KEY_BYTES + 1;
		return false;
	}
	memcpy(buf + p, s, len);
	*pos = p + len;
	return true;
}

/* Return whether the delimiter occurs in buf at off (within len bytes). */
static inline bool
DelimAt(const char *buf, int len, int off, const char *delim, int dlen)
{
	return off >= 0 && off + dlen <= len && memcmp(buf + off, delim, dlen) == 0;
}

/*
 * Explain why a built key failed its scan, naming the part at fault.
 * starts[i]/ends[i] bound part i (0-based) in buf.
 */
static void
ReportBuiltKey(const char *buf, int len, const int *starts, const int *ends,
			   int nparts, const char *delim, int dlen)
{
	int i;
	int j;

	for (i = 0; i < nparts; i++)
	{
		int plen = ends[i] - starts[i];
		const char *part = buf + starts[i];

		if (plen == 0)
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							errmsg("key part %d is empty", i + 1),
							errdetail("Every part of a key needs at least one "
									  "character; the key would be \"%s\".",
									  ShowKey(buf, len))));
		for (j = 0; j < plen; j++)
			if (IsKeyControl((unsigned char) part[j]))
				ereport(
					ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("key part %d contains a control character", i + 1),
					 errdetail("Byte %d of part \"%s\" is 0x%02x; keys may "
							   "not contain control characters.",
							   j + 1, ShowKey(part, plen),
							   (unsigned char) part[j])));
		for (j = 0; j + dlen <= plen; j++)
			if (memcmp(part + j, delim, dlen) == 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("key part %d contains the delimiter \"%s\"",
								i + 1, ShowDelim(delim, dlen)),
						 errdetail("Part %d is \"%s\".", i + 1,
								   ShowKey(part, plen)),
						 errhint("Use another delimiter with key_with(), or "
								 "remove the delimiter from the value.")));
	}
	/* no part holds the delimiter: an occurrence straddles a separator */
	for (i = 0; i + 1 < nparts; i++)
	{
		int sep = ends[i];

		for (j = sep - dlen + 1; j < sep + dlen; j++)
		{
			if (j == sep || !DelimAt(buf, len, j, delim, dlen))
				continue;
			if (j < sep)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("key part %d ends with part of the delimiter "
								"\"%s\"",
								i + 1, ShowDelim(delim, dlen)),
						 errdetail("Key \"%s\" could be split in more than one "
								   "way.",
								   ShowKey(buf, len)),
						 errhint("Use another delimiter with key_with(), or "
								 "change the value.")));
			ereport(
				ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("key part %d starts with part of the delimiter "
						"\"%s\"",
						i + 2, ShowDelim(delim, dlen)),
				 errdetail("Key \"%s\" could be split in more than one way.",
						   ShowKey(buf, len)),
				 errhint("Use another delimiter with key_with(), or "
						 "change the value.")));
		}
	}
	elog(ERROR, "key \"%s\" failed its check for no known reason",
		 ShowKey(buf, len));
}

/* Join the parts fcinfo args first.. (or its VARIADIC array) into a key. */
static text *
BuildKey(FunctionCallInfo fcinfo, int first, const char *delim, int dlen)
{
	KeyCallCache *cache = GetKeyCallCache(fcinfo, first);
	char buf[KEY_BUF_BYTES];
	int starts[DOCMODEL_MAX_KEY_BYTES + 2];
	int ends[DOCMODEL_MAX_KEY_BYTES + 2];
	int pos = 0;
	int n = 0;
	int nparts;
	Datum *elems = NULL;
	bool *nulls = NULL;
	KeyScan s;
	text *result;

	if (cache->variadic)
	{
		ArrayType *arr;

		if (PG_ARGISNULL(first))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("VARIADIC array of key parts is null"),
					 errdetail("A key needs at least one part, and no part may "
							   "be NULL.")));
		arr = PG_GETARG_ARRAYTYPE_P(first);
		deconstruct_array(arr, cache->elemtype, cache->elemlen,
						  cache->elembyval, cache->elemalign, &elems, &nulls,
						  &nparts);
	}
	else
		nparts = PG_NARGS() - first;

	if (nparts < 1)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("a key needs at least one part"),
						errdetail("The VARIADIC array of parts is empty.")));

	for (n = 0; n < nparts; n++)
	{
		PartKind kind;
		Datum d;

		if (cache->variadic)
		{
			if (nulls[n])
				ReportNullPart(n + 1);
			kind = cache->elemkind;
			d = elems[n];
		}
		else
		{
			if (PG_ARGISNULL(first + n))
				ReportNullPart(n + 1);
			kind = cache->kinds[first + n];
			d = PG_GETARG_DATUM(first + n);
		}
		if (n > 0)
		{
			if (dlen == 2)
			{
				buf[pos] = delim[0];
				buf[pos + 1] = delim[1];
			}
			else
				memcpy(buf + pos, delim, dlen);
			pos += dlen;
			if (pos > DOCMODEL_MAX_KEY_BYTES)
				ReportBuiltTooLong(buf, DOCMODEL_MAX_KEY_BYTES, n + 1);
		}
		starts[n] = pos;
		if (!AppendPart(buf, &pos, kind, d))
			ReportBuiltTooLong(buf, DOCMODEL_MAX_KEY_BYTES, n + 1);
		ends[n] = pos;
	}

	/*
	 * A key is right when it passes the rules and its delimiter occurrences
	 * are exactly the separators put in: every separator is one, so equal
	 * counts mean equal sets.
	 */
	if (KeyScanParts(buf, pos, delim, dlen, &s) != KEY_OK || s.nparts != nparts)
		ReportBuiltKey(buf, pos, starts, ends, nparts, delim, dlen);

	result = (text *) palloc(VARHDRSZ + pos);
	SET_VARSIZE(result, VARHDRSZ + pos);
	memcpy(VARDATA(result), buf, pos);
	return result;
}

/* key(VARIADIC parts "any"): join the parts with "::". */
Datum
key_key(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(BuildKey(fcinfo, 0, DOCMODEL_DEFAULT_DELIM,
							  sizeof(DOCMODEL_DEFAULT_DELIM) - 1));
}

/* key_with(delimiter text, VARIADIC parts "any"): join the parts with delimiter. */
Datum
key_with(PG_FUNCTION_ARGS)
{
	text *delim;
	int badbyte;

	if (PG_ARGISNULL(0))
		ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						errmsg("key delimiter is null")));
	delim = KEY_GETARG_TEXT_PP(0);
	if (unlikely(!DelimiterIsValid(VARDATA_ANY(delim), VARSIZE_ANY_EXHDR(delim),
								   &badbyte)))
		DocmodelCheckDelimiter(VARDATA_ANY(delim), VARSIZE_ANY_EXHDR(delim));
	PG_RETURN_TEXT_P(
		BuildKey(fcinfo, 1, VARDATA_ANY(delim), VARSIZE_ANY_EXHDR(delim)));
}

/* key_parts(key, delimiter): split a key into its parts. */
Datum
key_parts(PG_FUNCTION_ARGS)
{
	text *k = KEY_GETARG_TEXT_PP(0);
	text *delim = KEY_GETARG_TEXT_PP(1);
	const char *kp = VARDATA_ANY(k);
	int klen = VARSIZE_ANY_EXHDR(k);
	const char *d = VARDATA_ANY(delim);
	int dlen = VARSIZE_ANY_EXHDR(delim);
	KeyScan s;
	Datum *parts;
	int n = 0;
	int start = 0;
	int i;

	CheckKeyArgs(k, delim, &s);
	parts = palloc(sizeof(Datum) * s.nparts);
	for (i = 0; n < s.nparts - 1; i++)
	{
		if (DelimAt(kp, klen, i, d, dlen))
		{
			parts[n++] = PointerGetDatum(
				cstring_to_text_with_len(kp + start, i - start));
			start = i + dlen;
			i = start - 1;
		}
	}
	parts[n++] =
		PointerGetDatum(cstring_to_text_with_len(kp + start, klen - start));
	PG_RETURN_ARRAYTYPE_P(
		construct_array(parts, n, TEXTOID, -1, false, TYPALIGN_INT));
}

/* key_type(key, delimiter): the first part of a key. */
Datum
key_type(PG_FUNCTION_ARGS)
{
	text *k = KEY_GETARG_TEXT_PP(0);
	KeyScan s;

	CheckKeyArgs(k, KEY_GETARG_TEXT_PP(1), &s);
	PG_RETURN_TEXT_P(cstring_to_text_with_len(VARDATA_ANY(k), s.firstend));
}

/* key_id(key, delimiter): the last part of a key. */
Datum
key_id(PG_FUNCTION_ARGS)
{
	text *k = KEY_GETARG_TEXT_PP(0);
	KeyScan s;

	CheckKeyArgs(k, KEY_GETARG_TEXT_PP(1), &s);
	PG_RETURN_TEXT_P(cstring_to_text_with_len(
		VARDATA_ANY(k) + s.laststart, VARSIZE_ANY_EXHDR(k) - s.laststart));
}

/* key_parent(key, delimiter): all but the last part; NULL for a one-part key. */
Datum
key_parent(PG_FUNCTION_ARGS)
{
	text *k = KEY_GETARG_TEXT_PP(0);
	KeyScan s;

	CheckKeyArgs(k, KEY_GETARG_TEXT_PP(1), &s);
	if (s.nparts < 2)
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text_with_len(VARDATA_ANY(k), s.lastsep));
}

/* key_is_valid(key, delimiter): whether the key and delimiter keep the rules. */
Datum
key_is_valid(PG_FUNCTION_ARGS)
{
	text *k = KEY_GETARG_TEXT_PP(0);
	text *delim = KEY_GETARG_TEXT_PP(1);
	int badbyte;
	KeyScan s;

	if (!DelimiterIsValid(VARDATA_ANY(delim), VARSIZE_ANY_EXHDR(delim),
						  &badbyte))
		PG_RETURN_BOOL(false);
	PG_RETURN_BOOL(KeyScanParts(VARDATA_ANY(k), VARSIZE_ANY_EXHDR(k),
								VARDATA_ANY(delim), VARSIZE_ANY_EXHDR(delim),
								&s) == KEY_OK);
}

/*
 * Return a nanosecond timestamp that is later than any this backend returned
 * before, by at least the step that moves UUIDv7's 12-bit sub-millisecond
 * fraction (as PostgreSQL 17's uuidv7() does, RFC 9562 method 3).
 */
static uint64
AscendingNanoseconds(void)
{
	static uint64 previous = 0;
	struct timespec ts;
	uint64 ns;

	/* 1 ms / 4096, rounded up: one step always moves the 12-bit fraction */
	const uint64 step = 245;

	clock_gettime(CLOCK_REALTIME, &ts);
	ns = (uint64) ts.tv_sec * UINT64CONST(1000000000) + (uint64) ts.tv_nsec;
	if (ns < previous + step)
		ns = previous + step;
	previous = ns;
	return ns;
}

/*
 * uuid_key(doc_type, delimiter DEFAULT '::'): doc_type + delimiter + 32 hex
 * digits of a UUIDv7 (0.1.0's definition passes no delimiter).
 */
Datum
key_uuid_key(PG_FUNCTION_ARGS)
{
	text *doctype = KEY_GETARG_TEXT_PP(0);
	const char *t = VARDATA_ANY(doctype);
	int tlen = VARSIZE_ANY_EXHDR(doctype);
	const char *delim = DOCMODEL_DEFAULT_DELIM;
	int dlen = sizeof(DOCMODEL_DEFAULT_DELIM) - 1;
	uint8 u[16];
	uint64 ns;
	uint64 ms;
	uint32 subms;
	int len;
	text *result;
	char *p;
	int i;

	if (PG_NARGS() > 1)
	{
		text *d = KEY_GETARG_TEXT_PP(1);

		delim = VARDATA_ANY(d);
		dlen = VARSIZE_ANY_EXHDR(d);
		DocmodelCheckDelimiter(delim, dlen);
	}
	DocmodelCheckKey(t, tlen, delim, dlen, true);
	len = tlen + dlen + 32;
	if (len > DOCMODEL_MAX_KEY_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_STRING_DATA_RIGHT_TRUNCATION),
				 errmsg("key is too long"),
				 errdetail("Document type \"%s\" leaves no room for a UUID "
						   "within %d bytes.",
						   ShowKey(t, tlen), DOCMODEL_MAX_KEY_BYTES)));

	if (!pg_strong_random(u + 6, 10))
		ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
						errmsg("could not generate random values")));
	ns = AscendingNanoseconds();
	ms = ns / 1000000;
	subms = (uint32) (((ns % 1000000) << 12) / 1000000);

	/* unix_ts_ms (48 bits), ver 7 + 12-bit fraction, var 10 + random */
	u[0] = (uint8) (ms >> 40);
	u[1] = (uint8) (ms >> 32);
	u[2] = (uint8) (ms >> 24);
	u[3] = (uint8) (ms >> 16);
	u[4] = (uint8) (ms >> 8);
	u[5] = (uint8) ms;
	u[6] = (uint8) (0x70 | (subms >> 8));
	u[7] = (uint8) (subms & 0xff);
	u[8] = (uint8) (0x80 | (u[8] & 0x3f));

	result = (text *) palloc(VARHDRSZ + len);
	SET_VARSIZE(result, VARHDRSZ + len);
	p = VARDATA(result);
	memcpy(p, t, tlen);
	memcpy(p + tlen, delim, dlen);
	p += tlen + dlen;
	for (i = 0; i < 16; i++)
	{
		*p++ = hexdigits[u[i] >> 4];
		*p++ = hexdigits[u[i] & 0x0f];
	}
	/* the type must not merge with the delimiter ("a:" + ":") */
	DocmodelCheckKey(VARDATA(result), len, delim, dlen, true);
	PG_RETURN_TEXT_P(result);
}

/* revision_key(key, ver, delimiter): key + "::v::" + ver. */
Datum
revision_key(PG_FUNCTION_ARGS)
{
	text *k = KEY_GETARG_TEXT_PP(0);
	int32 ver = PG_GETARG_INT32(1);
	text *delim = KEY_GETARG_TEXT_PP(2);
	const char *kp = VARDATA_ANY(k);
	int klen = VARSIZE_ANY_EXHDR(k);
	const char *d = VARDATA_ANY(delim);
	int dlen = VARSIZE_ANY_EXHDR(delim);
	char buf[KEY_BUF_BYTES];
	int pos;
	KeyScan s;
	text *result;

	CheckKeyArgs(k, delim, &s);
	if (ver < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("revision number %d is out of range", ver),
				 errdetail("Revisions of key \"%s\" are numbered from 1.",
						   ShowKey(kp, klen))));
	memcpy(buf, kp, klen);
	pos = klen;
	memcpy(buf + pos, d, dlen);
	pos += dlen;
	buf[pos++] = 'v';
	memcpy(buf + pos, d, dlen);
	pos += dlen;
	pos += pg_ltoa(ver, buf + pos);
	if (pos > DOCMODEL_MAX_KEY_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_STRING_DATA_RIGHT_TRUNCATION),
				 errmsg("key is too long"),
				 errdetail("Revision key \"%s\" is %d bytes; the limit is %d.",
						   ShowKey(buf, pos), pos, DOCMODEL_MAX_KEY_BYTES),
				 errhint("Keep keys that have revisions shorter than %d bytes.",
						 DOCMODEL_MAX_KEY_BYTES - 2 * dlen - 11)));
	result = (text *) palloc(VARHDRSZ + pos);
	SET_VARSIZE(result, VARHDRSZ + pos);
	memcpy(VARDATA(result), buf, pos);
	PG_RETURN_TEXT_P(result);
}

/*
 * #MONO_INCR# of key_from_template: a counter from 1 within one statement
 * of one transaction (cbimport's counts within one import).
 */
static struct
{
	LocalTransactionId lxid;
	TimestampTz stmt;
	int64 next;
} MonoIncr;

/* Raise 22023 for a key template that cannot be used. */
static void
TemplateError(const char *tmpl, const char *what, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("key template \"%s\": %s", tmpl, what),
			 detail ? errdetail("%s", detail) : 0,
			 errhint("Templates are cbimport's --generate-key: %%field%%, "
					 "%%a.b%% (nested), #UUID#, #MONO_INCR#, and text; "
					 "%%%% is a literal %%.")));
}

/* Append the text of field path (dots: nested members) of doc to buf. */
static void
TemplateField(StringInfo buf, Jsonb *doc, const char *tmpl, const char *path,
			  int plen)
{
	JsonbContainer *c = &doc->root;
	JsonbValue v;
	JsonbValue *found = NULL;
	int start = 0;
	int i;

	if (plen == 0)
		TemplateError(tmpl, "empty field name \"%%\"",
					  "Write %%%% for a literal %%.");
	for (i = 0; i <= plen; i++)
	{
		if (i < plen && path[i] != '.')
			continue;
		found = NULL;
		if (c != NULL && JsonContainerIsObject(c) && i > start)
			found =
				getKeyJsonValueFromContainer(c, path + start, i - start, &v);
		if (found == NULL)
			TemplateError(tmpl,
						  psprintf("field \"%.*s\" is missing", plen, path),
						  "The document has no such member.");
		c = found->type == jbvBinary ? found->val.binary.data : NULL;
		start = i + 1;
	}
	switch (found->type)
	{
		case jbvString:
			appendBinaryStringInfo(buf, found->val.string.val,
								   found->val.string.len);
			break;
		case jbvNumeric:
			appendStringInfoString(
				buf, DatumGetCString(DirectFunctionCall1(
						 numeric_out, NumericGetDatum(found->val.numeric))));
			break;
		case jbvBool:
			appendStringInfoString(buf, found->val.boolean ? "true" : "false");
			break;
		default:
			TemplateError(
				tmpl,
				psprintf("field \"%.*s\" is not a string, number or boolean",
						 plen, path),
				found->type == jbvNull ? "It is null."
									   : "It is an object or an array.");
	}
}

/*
 * key_from_template(doc, template): the key cbimport's --generate-key
 * template makes of doc: %field% and %a.b% the member's value, #UUID# a
 * random UUID, #MONO_INCR# a counter from 1 within the statement, %% a %,
 * other text as it is.
 */
Datum
key_from_template(PG_FUNCTION_ARGS)
{
	Jsonb *doc = PG_GETARG_JSONB_P(0);
	char *tmpl = text_to_cstring(PG_GETARG_TEXT_PP(1));
	int n = strlen(tmpl);
	StringInfoData buf;
	int i = 0;

	if (!JB_ROOT_IS_OBJECT(doc))
		TemplateError(tmpl, "the document is not a JSON object", NULL);
	initStringInfo(&buf);
	while (i < n)
	{
		if (tmpl[i] == '%')
		{
			const char *end = strchr(tmpl + i + 1, '%');

			if (end == NULL)
				TemplateError(tmpl,
							  psprintf("unterminated field at byte %d", i + 1),
							  "A field is written %name%.");
			if (end == tmpl + i + 1)
				appendStringInfoChar(&buf, '%');
			else
				TemplateField(&buf, doc, tmpl, tmpl + i + 1,
							  end - (tmpl + i + 1));
			i = end - tmpl + 1;
		}
		else if (strncmp(tmpl + i, "#UUID#", 6) == 0)
		{
			pg_uuid_t u;
			char text[36];

			if (!pg_strong_random(u.data, UUID_LEN))
				ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
								errmsg("could not generate random values")));
			u.data[6] = (u.data[6] & 0x0f) | 0x40; /* version 4 */
			u.data[8] = (u.data[8] & 0x3f) | 0x80; /* variant 10 */
			WriteUuid(text, &u);
			appendBinaryStringInfo(&buf, text, 36);
			i += 6;
		}
		else if (strncmp(tmpl + i, "#MONO_INCR#", 11) == 0)
		{
			TimestampTz stmt = GetCurrentStatementStartTimestamp();

			if (MonoIncr.lxid != DocmodelMyLxid || MonoIncr.stmt != stmt)
			{
				MonoIncr.lxid = DocmodelMyLxid;
				MonoIncr.stmt = stmt;
				MonoIncr.next = 1;
			}
			appendStringInfo(&buf, INT64_FORMAT, MonoIncr.next++);
			i += 11;
		}
		else
			appendStringInfoChar(&buf, tmpl[i++]);
	}
	if (buf.len == 0)
		TemplateError(tmpl, "the key is empty", NULL);
	if (buf.len > DOCMODEL_MAX_KEY_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_STRING_DATA_RIGHT_TRUNCATION),
				 errmsg("key is too long"),
				 errdetail("Key template \"%s\" made a key of %d bytes; the "
						   "limit is %d.",
						   tmpl, buf.len, DOCMODEL_MAX_KEY_BYTES)));
	PG_RETURN_TEXT_P(cstring_to_text_with_len(buf.data, buf.len));
}

/* See key.h. */
bool
DocmodelDocumentOfType(const DocmodelCollection *cfg, const char *key,
					   int key_len, Jsonb *doc, const char *type)
{
	const char *kt;
	int ktlen;

	if (DOCMODEL_BODY_TYPED(cfg))
	{
		JsonbContainer *mc =
			doc ? DocmodelFieldContainer(cfg->fs, &doc->root) : NULL;
		JsonbValue *tv =
			mc ? DocmodelFieldValue(cfg->fs, mc, DOC_FIELD_TYPE) : NULL;

		return tv != NULL && tv->type == jbvString &&
			   DocmodelSameType(
				   cfg->type_check == DOCMODEL_TYPE_CASE_INSENSITIVE
					   ? DOCMODEL_TYPE_CASE_INSENSITIVE
					   : DOCMODEL_TYPE_EXACT,
				   tv->val.string.val, tv->val.string.len, type, strlen(type));
	}
	DocmodelKeyType(cfg, key, key_len, &kt, &ktlen);
	return kt != NULL && ktlen == strlen(type) && memcmp(kt, type, ktlen) == 0;
}
