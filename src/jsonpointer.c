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

/* Append byte c to the last token of p (sized for the whole text). */
static inline void
SubdocTokenChar(JsonPointer *p, char c)
{
	int n = p->ntok - 1;

	p->tok[n][p->toklen[n]++] = c;
	p->tok[n][p->toklen[n]] = '\0';
}

/* Start a new, empty token in p. */
static inline void
SubdocTokenStart(JsonPointer *p, int len)
{
	p->tok[p->ntok] = palloc(len + 1);
	p->tok[p->ntok][0] = '\0';
	p->toklen[p->ntok] = 0;
	p->ntok++;
}

/* Parse a Couchbase sub-document path; see jsonpointer.h. */
const char *
JsonPointerParseSubdoc(const char *s, int len, JsonPointer *p)
{
	int i = 0;
	int max = 1;

	p->text = pnstrdup(s, len);
	p->ntok = 0;
	p->tok = NULL;
	p->toklen = NULL;
	if (len == 0)
		return NULL;
	for (i = 0; i < len; i++)
		if (s[i] == '.' || s[i] == '[')
			max++;
	p->tok = palloc(sizeof(char *) * max);
	p->toklen = palloc(sizeof(int) * max);
	i = 0;
	while (i < len)
	{
		if (s[i] == '[')
		{
			int start = ++i;
			int index;

			while (i < len && s[i] != ']')
				i++;
			if (i >= len)
				return psprintf("\"[\" at byte %d is not closed by \"]\"",
								start - 1);
			SubdocTokenStart(p, i - start);
			memcpy(p->tok[p->ntok - 1], s + start, i - start);
			p->tok[p->ntok - 1][i - start] = '\0';
			p->toklen[p->ntok - 1] = i - start;
			if (!(i - start == 2 && s[start] == '-' && s[start + 1] == '1') &&
				JsonPointerArrayIndex(s + start, i - start, &index) !=
					JSONPOINTER_INDEX)
				return psprintf("\"[%.*s]\" at byte %d is not an array index "
								"(digits without leading zeros, or -1)",
								i - start, s + start, start - 1);
			i++;
		}
		else
		{
			/* a member: after "." or at the start */
			if (p->ntok > 0)
			{
				if (s[i] != '.')
					return psprintf("\"%c\" at byte %d: a member name "
									"starts after \".\"",
									s[i], i);
				i++;
			}
			SubdocTokenStart(p, len - i);
			if (i < len && s[i] == '`')
			{
				/* quoted: `` is a literal backtick, ` ends the name */
				int open = i++;

				for (;;)
				{
					if (i >= len)
						return psprintf("backtick at byte %d is not closed",
										open);
					if (s[i] == '`' && i + 1 < len && s[i + 1] == '`')
					{
						SubdocTokenChar(p, '`');
						i += 2;
					}
					else if (s[i] == '`')
					{
						i++;
						break;
					}
					else
						SubdocTokenChar(p, s[i++]);
				}
				if (i < len && s[i] != '.' && s[i] != '[')
					return psprintf("\"%c\" at byte %d follows a quoted "
									"member name",
									s[i], i);
			}
			else
			{
				while (i < len && s[i] != '.' && s[i] != '[')
				{
					if (s[i] == '`' || s[i] == ']')
						return psprintf("\"%c\" at byte %d inside a member "
										"name (quote the name in backticks)",
										s[i], i);
					SubdocTokenChar(p, s[i++]);
				}
				if (p->toklen[p->ntok - 1] == 0)
					return psprintf("empty member name at byte %d", i);
			}
		}
	}
	return NULL;
}
