/*-------------------------------------------------------------------------
 *
 * jsonschema/formats.c
 *	  The format checks of JSON Schema: each a function of the string, on its
 *	  RFC's grammar; DocmodelSchemaFormatValid picks one by VFormat. No state.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "mb/pg_wchar.h"
#include "utils/memutils.h"

#include "json/util.h"
#include "jsonschema/idna.h"
#include "jsonschema/regex.h"
#include "jsonschema/formats.h"

const char *const DocmodelSchemaFormatNames[] = {NULL,
												 "date-time",
												 "date",
												 "time",
												 "email",
												 "uuid",
												 "ipv4",
												 "ipv6",
												 "uri",
												 "hostname",
												 "duration",
												 "idn-email",
												 "idn-hostname",
												 "uri-reference",
												 "iri",
												 "iri-reference",
												 "uri-template",
												 "json-pointer",
												 "relative-json-pointer",
												 "regex"};

static int
Num(const char *s, int n)
{
	int v = 0;
	int i;

	for (i = 0; i < n; i++)
		v = v * 10 + (s[i] - '0');
	return v;
}

static bool
FormatUuid(const char *s, int len)
{
	int i;

	if (len != 36)
		return false;
	for (i = 0; i < 36; i++)
	{
		if (i == 8 || i == 13 || i == 18 || i == 23)
		{
			if (s[i] != '-')
				return false;
		}
		else if (DocmodelHexDigit(s[i]) < 0)
			return false;
	}
	return true;
}

static bool
FormatIpv4(const char *s, int len)
{
	int parts = 0;
	int i = 0;

	while (parts < 4)
	{
		int start = i;

		while (i < len && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == start || i - start > 3 || (i - start > 1 && s[start] == '0') ||
			Num(s + start, i - start) > 255)
			return false;
		parts++;
		if (parts < 4)
		{
			if (i >= len || s[i] != '.')
				return false;
			i++;
		}
	}
	return i == len;
}

static bool
FormatIpv6(const char *s, int len)
{
	int groups = 0;
	bool gap = false;
	int i = 0;

	if (len >= 2 && s[0] == ':' && s[1] == ':')
	{
		gap = true;
		i = 2;
		if (len == 2)
			return true;
	}
	else if (len >= 1 && s[0] == ':')
		return false;
	while (i < len)
	{
		int start = i;

		while (i < len && DocmodelHexDigit(s[i]) >= 0)
			i++;
		if (i < len && s[i] == '.')
		{
			/* an IPv4 tail takes two groups */
			if (!FormatIpv4(s + start, len - start))
				return false;
			groups += 2;
			i = len;
			break;
		}
		if (i == start || i - start > 4)
			return false;
		groups++;
		if (i == len)
			break;
		if (s[i] != ':')
			return false;
		i++;
		if (i < len && s[i] == ':')
		{
			if (gap)
				return false;
			gap = true;
			i++;
			if (i == len)
				break;
		}
		else if (i == len)
			return false;
	}
	return gap ? groups < 8 : groups == 8;
}

/* hostname (RFC 1123) or, with idn, idn-hostname (RFC 5890): idna.c */
static bool
HostnameCheck(const char *s, int len, bool idn)
{
	return DocmodelIdnaHostnameValid(s, len, idn);
}

static bool
FormatHostname(const char *s, int len)
{
	return HostnameCheck(s, len, false);
}

/*
 * An e-mail address (RFC 5321): a dot-atom or quoted local part, then a
 * host. With idn (RFC 6531), non-ASCII code points are atext too and the
 * host is an idn-hostname.
 */
static bool
EmailCheck(const char *s, int len, bool idn)
{
	const char *at = NULL;
	int i;
	int l;

	for (i = len - 1; i >= 0; i--)
		if (s[i] == '@')
		{
			at = s + i;
			break;
		}
	if (at == NULL)
		return false;
	l = at - s;
	if (l == 0 || (!idn && l > 64))
		return false;
	if (s[0] == '"')
	{
		if (l < 2 || s[l - 1] != '"')
			return false;
	}
	else
	{
		if (s[0] == '.' || s[l - 1] == '.')
			return false;
		for (i = 0; i < l; i++)
		{
			char c = s[i];

			if (c == '.' && s[i + 1] == '.')
				return false;
			if (!(isalnum((unsigned char) c) ||
				  strchr("!#$%&'*+-/=?^_`{|}~.", c) ||
				  (idn && (unsigned char) c >= 0x80)))
				return false;
		}
	}
	at++;
	len -= l + 1;
	if (len > 2 && at[0] == '[' && at[len - 1] == ']')
	{
		if (len > 7 && pg_strncasecmp(at + 1, "IPv6:", 5) == 0)
			return FormatIpv6(at + 6, len - 7);
		return FormatIpv4(at + 1, len - 2);
	}
	return HostnameCheck(at, len, idn);
}

static bool
FormatEmail(const char *s, int len)
{
	return EmailCheck(s, len, false);
}

/*
 * Tell whether s[i..] starts a valid percent escape or is one of chars (or,
 * iri, a non-ASCII byte: RFC 3987's ucschar and iprivate).
 */
static bool
UriChar(const char *s, int len, int *i, const char *chars, bool iri)
{
	unsigned char c = s[*i];

	if (c == '%')
	{
		if (*i + 2 >= len || DocmodelHexDigit(s[*i + 1]) < 0 ||
			DocmodelHexDigit(s[*i + 2]) < 0)
			return false;
		*i += 2;
		return true;
	}
	if (c >= 0x80)
		return iri;
	return c != '\0' && (isalnum(c) || strchr(chars, c) != NULL);
}

#define URI_UNRESERVED_SUB "-._~!$&'()*+,;="

/*
 * RFC 3986 URI: scheme ":" [ "//" authority ] path [ "?" query ] [ "#"
 * fragment ]; with ref, a relative reference is accepted too (its first path
 * segment has no ":"); with iri, RFC 3987's non-ASCII characters.
 */
static bool
UriCheck(const char *s, int len, bool ref, bool iri)
{
	int i = 0;
	bool scheme = false;

	if (len > 0 && isalpha((unsigned char) s[0]))
	{
		while (i < len && (isalnum((unsigned char) s[i]) || s[i] == '+' ||
						   s[i] == '-' || s[i] == '.'))
			i++;
		scheme = i < len && s[i] == ':';
	}
	if (scheme)
		i++;
	else if (!ref)
		return false;
	else
	{
		/* a relative reference: no ":" before the first "/", "?" or "#" */
		for (i = 0; i < len && s[i] != '/' && s[i] != '?' && s[i] != '#'; i++)
			if (s[i] == ':')
				return false;
		i = 0;
	}
	if (i + 1 < len && s[i] == '/' && s[i + 1] == '/')
	{
		int start = i + 2;
		int end = start;
		int at = -1;
		int h;

		while (end < len && s[end] != '/' && s[end] != '?' && s[end] != '#')
		{
			if (s[end] == '@')
				at = end;
			end++;
		}
		for (i = start; i < at; i++)
			if (!UriChar(s, at, &i, URI_UNRESERVED_SUB ":", iri))
				return false;
		h = at >= 0 ? at + 1 : start;
		if (h < end && s[h] == '[')
		{
			const char *close = memchr(s + h, ']', end - h);

			if (close == NULL)
				return false;
			if (h + 1 < end && (s[h + 1] == 'v' || s[h + 1] == 'V'))
			{
				/* IPvFuture: "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" ) */
				int k = h + 2;
				int c = close - s;

				while (k < c && DocmodelHexDigit(s[k]) >= 0)
					k++;
				if (k == h + 2 || k >= c || s[k] != '.' || k + 1 == c)
					return false;
				for (k++; k < c; k++)
					if (!(isalnum((unsigned char) s[k]) ||
						  strchr(URI_UNRESERVED_SUB ":", s[k])))
						return false;
			}
			else if (!FormatIpv6(s + h + 1, close - s - h - 1))
				return false;
			i = close - s + 1;
		}
		else
			for (i = h; i < end && s[i] != ':'; i++)
				if (!UriChar(s, end, &i, URI_UNRESERVED_SUB, iri))
					return false;
		if (i < end)
		{
			if (s[i] != ':')
				return false;
			for (i++; i < end; i++)
				if (!isdigit((unsigned char) s[i]))
					return false;
		}
		i = end;
	}
	/* path, then query, then fragment */
	for (; i < len && s[i] != '?' && s[i] != '#'; i++)
		if (!UriChar(s, len, &i, URI_UNRESERVED_SUB ":@/", iri))
			return false;
	if (i < len && s[i] == '?')
		for (i++; i < len && s[i] != '#'; i++)
			if (!UriChar(s, len, &i, URI_UNRESERVED_SUB ":@/?", iri))
				return false;
	if (i < len && s[i] == '#')
		for (i++; i < len; i++)
			if (!UriChar(s, len, &i, URI_UNRESERVED_SUB ":@/?", iri))
				return false;
	return true;
}

static bool
FormatUri(const char *s, int len)
{
	return UriCheck(s, len, false, false);
}

/*
 * RFC 3339 appendix A duration: "P" then years, months, days (each unit
 * following the one before it, none skipped) and "T" hours, minutes,
 * seconds likewise; or weeks alone.
 */
static bool
FormatDuration(const char *s, int len)
{
	static const char date_units[] = "YMD";
	static const char time_units[] = "HMS";
	int i = 1;
	int last = -1;
	bool any = false;

	if (len < 2 || s[0] != 'P')
		return false;
	for (;;)
	{
		int d = i;
		const char *u;

		if (i < len && s[i] == 'T')
			break;
		if (i == len)
			return any;
		while (i < len && isdigit((unsigned char) s[i]))
			i++;
		if (i == d || i == len)
			return false;
		if (s[i] == 'W')
			return !any && i + 1 == len;
		u = strchr(date_units, s[i]);
		if (u == NULL || s[i] == '\0' ||
			(last >= 0 && u - date_units != last + 1))
			return false;
		last = u - date_units;
		any = true;
		i++;
	}
	/* the time part */
	i++;
	last = -1;
	if (i == len)
		return false;
	while (i < len)
	{
		int d = i;
		const char *u;

		while (i < len && isdigit((unsigned char) s[i]))
			i++;
		if (i == d || i == len)
			return false;
		u = strchr(time_units, s[i]);
		if (u == NULL || s[i] == '\0' ||
			(last >= 0 && u - time_units != last + 1))
			return false;
		last = u - time_units;
		i++;
	}
	return true;
}

/* RFC 6901 JSON Pointer: "" or "/"-led tokens, "~" only as ~0 or ~1. */
static bool
FormatJsonPointer(const char *s, int len)
{
	int i;

	if (len > 0 && s[0] != '/')
		return false;
	for (i = 0; i < len; i++)
		if (s[i] == '~' &&
			(i + 1 == len || (s[i + 1] != '0' && s[i + 1] != '1')))
			return false;
	return true;
}

/*
 * Relative JSON Pointer: a non-negative integer (no leading zero) then "#"
 * or a JSON Pointer.
 */
static bool
FormatRelativeJsonPointer(const char *s, int len)
{
	int i = 0;

	while (i < len && isdigit((unsigned char) s[i]))
		i++;
	if (i == 0 || (s[0] == '0' && i > 1))
		return false;
	if (i < len && s[i] == '#')
		return i + 1 == len;
	return FormatJsonPointer(s + i, len - i);
}

/* RFC 6570 URI Template (level 4): literals and {expressions}. */
static bool
FormatUriTemplate(const char *s, int len)
{
	int i = 0;

	while (i < len)
	{
		unsigned char c = s[i];

		if (c == '{')
		{
			i++;
			if (i < len && strchr("+#./;?&", s[i]) && s[i] != '\0')
				i++;
			for (;;)
			{
				int start = i;

				/* varname: varchar *( ["."] varchar ) */
				for (;;)
				{
					if (i < len && s[i] == '%')
					{
						if (i + 2 >= len || DocmodelHexDigit(s[i + 1]) < 0 ||
							DocmodelHexDigit(s[i + 2]) < 0)
							return false;
						i += 3;
					}
					else if (i < len &&
							 (isalnum((unsigned char) s[i]) || s[i] == '_'))
						i++;
					else
						return false;
					if (i < len && s[i] == '.' && i + 1 < len &&
						s[i + 1] != '.')
						i++;
					else if (i < len && (isalnum((unsigned char) s[i]) ||
										 s[i] == '_' || s[i] == '%'))
						continue;
					else
						break;
				}
				if (i == start)
					return false;
				if (i < len && s[i] == '*')
					i++;
				else if (i < len && s[i] == ':')
				{
					int d = ++i;

					if (i >= len || s[i] < '1' || s[i] > '9')
						return false;
					while (i < len && isdigit((unsigned char) s[i]))
						i++;
					if (i - d > 4)
						return false;
				}
				if (i < len && s[i] == ',')
				{
					i++;
					continue;
				}
				if (i < len && s[i] == '}')
				{
					i++;
					break;
				}
				return false;
			}
		}
		else if (c == '%')
		{
			if (i + 2 >= len || DocmodelHexDigit(s[i + 1]) < 0 ||
				DocmodelHexDigit(s[i + 2]) < 0)
				return false;
			i += 3;
		}
		else if (c <= 0x20 || c == 0x7F || strchr("\"<>\\^`|}", c))
			return false;
		else
			i++;
	}
	return true;
}

/* An ECMA-262 regular expression (one the "pattern" keyword would read). */
static bool
FormatRegex(const char *s, int len)
{
	MemoryContext cxt = AllocSetContextCreate(
		CurrentMemoryContext, "docmodel format regex", ALLOCSET_SMALL_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	EcmaStatus st;
	char *err;

	(void) DocmodelRegexCompile(s, len, &st, &err);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
	return st != ECMA_SYNTAX;
}

bool
DocmodelSchemaFormatValid(VFormat f, const char *s, int len)
{
	switch (f)
	{
		case F_DATE_TIME:
			return DocmodelIsRfc3339(s, len, ISO_DATE | ISO_TIME);
		case F_DATE:
			return DocmodelIsRfc3339(s, len, ISO_DATE);
		case F_TIME:
			return DocmodelIsRfc3339(s, len, ISO_TIME);
		case F_EMAIL:
			return FormatEmail(s, len);
		case F_IDN_EMAIL:
			return EmailCheck(s, len, true);
		case F_UUID:
			return FormatUuid(s, len);
		case F_IPV4:
			return FormatIpv4(s, len);
		case F_IPV6:
			return FormatIpv6(s, len);
		case F_URI:
			return FormatUri(s, len);
		case F_URI_REFERENCE:
			return UriCheck(s, len, true, false);
		case F_IRI:
			return UriCheck(s, len, false, true);
		case F_IRI_REFERENCE:
			return UriCheck(s, len, true, true);
		case F_HOSTNAME:
			return FormatHostname(s, len);
		case F_IDN_HOSTNAME:
			return HostnameCheck(s, len, true);
		case F_DURATION:
			return FormatDuration(s, len);
		case F_JSON_POINTER:
			return FormatJsonPointer(s, len);
		case F_RELATIVE_JSON_POINTER:
			return FormatRelativeJsonPointer(s, len);
		case F_URI_TEMPLATE:
			return FormatUriTemplate(s, len);
		case F_REGEX:
			return FormatRegex(s, len);
		default:
			return true;
	}
}
