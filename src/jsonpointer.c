/*-------------------------------------------------------------------------
 *
 * jsonpointer.c
 *	  JSON Pointer (RFC 6901): parse, format one token, prefix test, array
 *	  index tokens. The one pointer of migrations, patch and every path
 *	  inside a document. No shared state.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "jsonpointer.h"

/* Parse a pointer; see jsonpointer.h. */
JsonPointerError
JsonPointerParse(const char *s, int len, bool allow_root, JsonPointer *p)
{
	int i;
	int n = -1;

	p->text = pnstrdup(s, len);
	p->ntok = 0;
	p->tok = NULL;
	p->toklen = NULL;
	if (len == 0)
		return allow_root ? JSONPOINTER_OK : JSONPOINTER_ROOT;
	if (s[0] != '/')
		return JSONPOINTER_NO_SLASH;
	for (i = 0; i < len; i++)
		if (s[i] == '/')
			p->ntok++;
	p->tok = palloc(sizeof(char *) * p->ntok);
	p->toklen = palloc(sizeof(int) * p->ntok);
	for (i = 0; i < len; i++)
	{
		char c = s[i];

		if (c == '/')
		{
			n++;
			p->tok[n] = palloc(len - i);
			p->toklen[n] = 0;
			p->tok[n][0] = '\0';
			continue;
		}
		if (c == '~')
		{
			if (i + 1 >= len || (s[i + 1] != '0' && s[i + 1] != '1'))
				return JSONPOINTER_BAD_TILDE;
			c = s[++i] == '0' ? '~' : '/';
		}
		p->tok[n][p->toklen[n]++] = c;
		p->tok[n][p->toklen[n]] = '\0';
	}
	return JSONPOINTER_OK;
}

/* Append one escaped token; see jsonpointer.h. */
void
JsonPointerAppendToken(StringInfo buf, const char *tok, int len)
{
	int i;

	appendStringInfoChar(buf, '/');
	for (i = 0; i < len; i++)
	{
		if (tok[i] == '~')
			appendBinaryStringInfo(buf, "~0", 2);
		else if (tok[i] == '/')
			appendBinaryStringInfo(buf, "~1", 2);
		else
			appendStringInfoChar(buf, tok[i]);
	}
}

/* Tell whether a is a prefix of b; see jsonpointer.h. */
bool
JsonPointerIsPrefix(const JsonPointer *a, const JsonPointer *b)
{
	int i;

	if (a->ntok > b->ntok)
		return false;
	for (i = 0; i < a->ntok; i++)
		if (a->toklen[i] != b->toklen[i] ||
			memcmp(a->tok[i], b->tok[i], a->toklen[i]) != 0)
			return false;
	return true;
}

/* Read an array index token; see jsonpointer.h. */
JsonPointerIndex
JsonPointerArrayIndex(const char *tok, int len, int *index)
{
	int64 n = 0;
	int i;

	if (len == 1 && tok[0] == '-')
		return JSONPOINTER_INDEX_END;
	if (len == 0 || (len > 1 && tok[0] == '0'))
		return JSONPOINTER_INDEX_BAD;
	for (i = 0; i < len; i++)
	{
		if (tok[i] < '0' || tok[i] > '9')
			return JSONPOINTER_INDEX_BAD;
		n = n * 10 + (tok[i] - '0');
		if (n > PG_INT32_MAX)
			return JSONPOINTER_INDEX_RANGE;
	}
	*index = (int) n;
	return JSONPOINTER_INDEX;
}
