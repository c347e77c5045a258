/*-------------------------------------------------------------------------
 *
 * json/pointer.c
 *	  JSON Pointer (RFC 6901): parse, format one token, prefix test, array
 *	  index tokens. The one pointer of migrations, patch and every path
 *	  inside a document. No shared state.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "json/pointer.h"

/* Start p empty, as the text s of len bytes. */
static void
PointerInit(JsonPointer *p, const char *s, int len)
{
	p->text = pnstrdup(s, len);
	p->ntok = 0;
	p->tok = NULL;
	p->toklen = NULL;
	p->index = NULL;
}

/* Parse a pointer; see json/pointer.h. */
JsonPointerError
DocmodelJsonPointerParse(const char *s, int len, bool allow_root,
						 JsonPointer *p)
{
	int i;
	int n = -1;

	PointerInit(p, s, len);
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

/* Append one escaped token; see json/pointer.h. */
void
DocmodelJsonPointerAppendToken(StringInfo buf, const char *tok, int len)
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

/* Tell whether a is a prefix of b; see json/pointer.h. */
bool
DocmodelJsonPointerIsPrefix(const JsonPointer *a, const JsonPointer *b)
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

/* Read an array index token; see json/pointer.h. */
JsonPointerIndex
DocmodelJsonPointerArrayIndex(const char *tok, int len, int *index)
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

/* Tell whether c may follow "\" in a JSON string ("\u" aside). */
static inline bool
SubdocJsonEscape(char c, char *out)
{
	switch (c)
	{
		case '"':
		case '\\':
		case '/':
			*out = c;
			return true;
		case 'b':
			*out = '\b';
			return true;
		case 'f':
			*out = '\f';
			return true;
		case 'n':
			*out = '\n';
			return true;
		case 'r':
			*out = '\r';
			return true;
		case 't':
			*out = '\t';
			return true;
		default:
			return false;
	}
}

/* Start token t of p: its text (len bytes, copied), whether an index. */
static void
SubdocToken(JsonPointer *p, const char *s, int len, bool index)
{
	int t = p->ntok++;

	p->tok[t] = pnstrdup(s, len);
	p->toklen[t] = len;
	p->index[t] = index;
}

/*
 * Read "[...]" at s[*i] into a token of p ("-1", or digits without their
 * leading zeros); return NULL or why not.
 */
static const char *
SubdocBracket(const char *s, int len, int *i, JsonPointer *p)
{
	int open = *i;
	int start = open + 1;
	int end = start;
	int k;

	while (end < len && s[end] != ']')
		end++;
	if (end >= len)
		return psprintf("\"[\" at byte %d is not closed by \"]\"", open);
	*i = end + 1;
	if (end - start == 2 && s[start] == '-' && s[start + 1] == '1')
	{
		SubdocToken(p, "-1", 2, true);
		return NULL;
	}
	for (k = start; k < end; k++)
		if (s[k] < '0' || s[k] > '9')
			break;
	if (k < end || end == start)
		return psprintf("\"[%.*s]\" at byte %d is not an array index "
						"(digits, or -1)",
						end - start, s + start, open);
	while (start < end - 1 && s[start] == '0')
		start++;
	SubdocToken(p, s + start, end - start, true);
	return NULL;
}

/*
 * Read a member name at s[*i] (up to an unquoted "." or "[") into a token
 * of p; return NULL or why not.
 */
static const char *
SubdocMember(const char *s, int len, int *i, JsonPointer *p)
{
	int start = *i;
	int end;
	int k;
	bool quoted = false;
	bool escaped = false;
	int backticks = 0;
	int open = 0;
	char c;
	StringInfoData name;

	for (end = start; end < len; end++)
	{
		c = s[end];
		if (escaped)
		{
			char out;

			if (!SubdocJsonEscape(c, &out))
				return psprintf("\"\\%c\" at byte %d is not a JSON escape "
								"(\\\" \\\\ \\/ \\b \\f \\n \\r \\t)",
								c, end - 1);
			escaped = false;
		}
		else if (c == '\\')
			escaped = true;
		else if (c == '"' || (unsigned char) c < 0x20)
			return psprintf("byte %d of the path must be escaped "
							"(a '\"' as \\\", a control character)",
							end);
		if (c == '`')
		{
			backticks++;
			quoted = !quoted;
			if (quoted)
				open = end;
		}
		if (quoted)
			continue;
		if (c == ']')
			return psprintf("\"]\" at byte %d inside a member name (quote "
							"the name in backticks)",
							end);
		if (c == '[' || c == '.')
			break;
	}
	if (quoted)
		return psprintf("the backtick at byte %d is not closed", open);
	if (escaped)
		return psprintf("\"\\\" at byte %d ends the name", end - 1);
	*i = end;
	k = start;
	if (end - start > 1 && s[start] == '`' && s[end - 1] == '`')
	{
		k++;
		end--;
	}
	if (k >= end)
		return psprintf("empty member name at byte %d", start);
	if (backticks == 0 && memchr(s + k, '\\', end - k) == NULL)
	{
		SubdocToken(p, s + k, end - k, false);
		return NULL;
	}
	/* `` is one backtick, a lone one is dropped; JSON escapes unescaped */
	initStringInfo(&name);
	for (; k < end; k++)
	{
		if (s[k] == '`')
		{
			if (k + 1 < end && s[k + 1] == '`')
				appendStringInfoChar(&name, s[k++]);
		}
		else if (s[k] == '\\')
		{
			(void) SubdocJsonEscape(s[++k], &c);
			appendStringInfoChar(&name, c);
		}
		else
			appendStringInfoChar(&name, s[k]);
	}
	if (name.len == 0)
		return psprintf("empty member name at byte %d", start);
	SubdocToken(p, name.data, name.len, false);
	return NULL;
}

/* Parse a Couchbase sub-document path; see json/pointer.h. */
JsonPointerSubdocError
DocmodelJsonPointerParseSubdoc(const char *s, int len, int maxtok,
							   JsonPointer *p, const char **why)
{
	int i = 0;
	int max = 1;

	PointerInit(p, s, len);
	*why = NULL;
	if (len == 0)
		return JSONPOINTER_SUBDOC_OK;
	for (i = 0; i < len; i++)
		if (s[i] == '.' || s[i] == '[')
			max++;
	p->tok = palloc(sizeof(char *) * max);
	p->toklen = palloc(sizeof(int) * max);
	p->index = palloc(sizeof(bool) * max);
	i = 0;
	while (i < len)
	{
		if (p->ntok == maxtok)
		{
			*why = psprintf("more than %d levels", maxtok);
			return JSONPOINTER_SUBDOC_DEEP;
		}
		if (s[i] == '[')
		{
			if ((*why = SubdocBracket(s, len, &i, p)) != NULL)
				return JSONPOINTER_SUBDOC_INVALID;
			/* "]" is followed by the end, "[" or "." (then a member, "["
			 * or the end) */
			if (i < len && s[i] != '[' && s[i] != '.')
			{
				*why = psprintf("\"%c\" at byte %d follows \"]\" (write "
								"\".\" or \"[\")",
								s[i], i);
				return JSONPOINTER_SUBDOC_INVALID;
			}
			if (i < len && s[i] == '.')
				i++;
		}
		else
		{
			if ((*why = SubdocMember(s, len, &i, p)) != NULL)
				return JSONPOINTER_SUBDOC_INVALID;
			if (i < len && s[i] == '.')
				i++;
		}
	}
	return JSONPOINTER_SUBDOC_OK;
}
