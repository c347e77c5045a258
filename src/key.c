/*-------------------------------------------------------------------------
 *
 * key.c
 *	  Couchbase-style document keys: build them from parts, split them,
 *	  check them (DESIGN.md "Keys"). No shared state.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"

#include "docmodel.h"
#include "key.h"

/* Raise 22023 unless the delimiter is 1-4 bytes, none alphanumeric or space. */
void
DocmodelCheckDelimiter(const char *delim, int dlen)
{
	int i;

	if (dlen < 1 || dlen > DOCMODEL_MAX_DELIM_BYTES)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("invalid key delimiter \"%.*s\"", dlen, delim),
						errdetail("A delimiter is 1 to %d bytes long.",
								  DOCMODEL_MAX_DELIM_BYTES)));
	for (i = 0; i < dlen; i++)
	{
		unsigned char c = (unsigned char) delim[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			(c >= '0' && c <= '9') || c == ' ' || c == '\t' || c == '\n' ||
			c == '\r' || c == '\f' || c == '\v')
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid key delimiter \"%.*s\"", dlen, delim),
					 errdetail("A delimiter may not contain letters, digits or "
							   "whitespace.")));
	}
}

/* Check a whole key against the key rules; see key.h. */
bool
DocmodelCheckKey(const char *key, int len, const char *delim, int dlen,
				 bool raise)
{
	int i;
	int partstart = 0;
	int partno = 1;

	if (len > DOCMODEL_MAX_KEY_BYTES)
	{
		if (!raise)
			return false;
		ereport(ERROR,
				(errcode(ERRCODE_STRING_DATA_RIGHT_TRUNCATION),
				 errmsg("key is too long: %d bytes", len),
				 errdetail("Key \"%.40s...\" is longer than the limit of %d "
						   "bytes.",
						   key, DOCMODEL_MAX_KEY_BYTES)));
	}
	for (i = 0; i <= len; i++)
	{
		if (i == len || (i + dlen <= len && memcmp(key + i, delim, dlen) == 0))
		{
			if (i == partstart)
			{
				if (!raise)
					return false;
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("invalid key \"%.*s\"", len, key),
						 errdetail("Part %d of the key is empty.", partno)));
			}
			if (i == len)
				break;
			i += dlen - 1;
			partstart = i + 1;
			partno++;
			continue;
		}
		if ((unsigned char) key[i] < 0x20 || key[i] == 0x7f)
		{
			if (!raise)
				return false;
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid key \"%.*s\"", len, key),
					 errdetail("A key may not contain control characters.")));
		}
	}
	return true;
}
