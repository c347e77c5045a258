/*-------------------------------------------------------------------------
 *
 * jsonschema/regex.c
 *	  ECMA-262 regular expressions as JSON Schema's "pattern" and
 *	  "patternProperties" use them: the pattern is parsed with ECMA-262's
 *	  grammar under the "u" flag (code points, strict escapes) and compiled
 *	  to a Thompson automaton, which regex_run.c runs over the text in time
 *	  linear in it.
 *
 *	  ECMA-262's semantics: "." matches every code point but the line
 *	  terminators (\n, \r, U+2028, U+2029); "$" matches only at the end of
 *	  the text (no "m" flag); \d is [0-9], \w [A-Za-z0-9_], \s the
 *	  WhiteSpace and LineTerminator code points; \b between a \w and a
 *	  non-\w; a "-" after a class range is literal ([a-z0-9-_]); {n,m} counts
 *	  are unrolled (at most ECMA_MAX_STATES states). Unicode property
 *	  escapes (\p{...}, \P{...}) are sets of code points from the tables of
 *	  unicode_props.c. Whether a match is greedy or lazy does not change
 *	  whether there is one, so lazy quantifiers are read and matched as the
 *	  others. Backreferences are refused, never run with other semantics.
 *
 *	  Lookarounds (?=...) (?!...) (?<=...) (?<!...): each one's body is
 *	  compiled once to an automaton of its own after the main one (a
 *	  lookahead's reversed, for regex_run.c reads it backward), innermost
 *	  first; where the lookaround stands, a zero-width I_LOOK state. Their
 *	  states count against ECMA_MAX_STATES together. As the "u" flag says, a
 *	  lookaround takes no quantifier.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "nodes/pg_list.h"

#include "json/util.h"
#include "jsonschema/regex.h"
#include "jsonschema/unicode_props.h"

#define MAX_CP 0x10FFFF

typedef enum ENodeKind
{
	N_EMPTY,
	N_CLASS,
	N_CAT,
	N_ALT,
	N_REPEAT,
	N_BOL,
	N_EOL,
	N_WORDB,
	N_NWORDB,
	N_LOOK /* a lookaround: a = its body, look = its index */
} ENodeKind;

typedef struct ENode
{
	ENodeKind kind;
	struct ENode *a; /* N_REPEAT: what repeats */
	struct ENode *b;
	struct ENode **kids; /* N_CAT, N_ALT: in order (no deep chains) */
	int nkids;
	EClass *cls;
	int min;
	int max;     /* -1: unbounded */
	int look;    /* N_LOOK: its index in EcmaRegex.look */
	bool behind; /* N_LOOK: lookbehind (else lookahead) */
	bool negate; /* N_LOOK: (?! or (?<! */
} ENode;

/* Parser state. */
typedef struct EParse
{
	const pg_wchar *p;
	int n;
	int i;
	int ngroups; /* capturing groups in the whole pattern */
	List *names; /* group names seen (char *) */
	List *props; /* property escapes read: (text, EClass *) */
	List *looks; /* the N_LOOK nodes, each after those of its body */
	EcmaStatus status;
	char *err;
} EParse;

/* The bytes of a pattern a message quotes. */
#define PATTERN_NAME_MAX 40

/* Counts past this read as "too large" (the automaton bound decides). */
#define COUNT_CAP 1000000

/* ---- code point sets ---- */

static EClass *
ClassNew(void)
{
	EClass *c = palloc0(sizeof(EClass));

	c->cap = 8;
	c->r = palloc(sizeof(ERange) * c->cap);
	return c;
}

static void
ClassAdd(EClass *c, pg_wchar lo, pg_wchar hi)
{
	if (c->n == c->cap)
	{
		c->cap *= 2;
		c->r = repalloc(c->r, sizeof(ERange) * c->cap);
	}
	c->r[c->n].lo = lo;
	c->r[c->n].hi = hi;
	c->n++;
}

static void
ClassAddClass(EClass *c, const EClass *o)
{
	int i;

	for (i = 0; i < o->n; i++)
		ClassAdd(c, o->r[i].lo, o->r[i].hi);
}

static int
RangeCmp(const void *a, const void *b)
{
	pg_wchar x = ((const ERange *) a)->lo;
	pg_wchar y = ((const ERange *) b)->lo;

	return x < y ? -1 : x > y;
}

/* Sort and merge the ranges, then fill the ASCII bitmap. */
static void
ClassNormalize(EClass *c)
{
	int i;
	int m = 0;

	qsort(c->r, c->n, sizeof(ERange), RangeCmp);
	for (i = 0; i < c->n; i++)
	{
		if (m > 0 && c->r[i].lo <= c->r[m - 1].hi + 1)
		{
			if (c->r[i].hi > c->r[m - 1].hi)
				c->r[m - 1].hi = c->r[i].hi;
		}
		else
			c->r[m++] = c->r[i];
	}
	c->n = m;
	c->ascii[0] = c->ascii[1] = 0;
	for (i = 0; i < c->n && c->r[i].lo < 128; i++)
	{
		pg_wchar k;

		for (k = c->r[i].lo; k <= c->r[i].hi && k < 128; k++)
			c->ascii[k >> 6] |= UINT64CONST(1) << (k & 63);
	}
}

/* The complement of c (normalized) over all code points. */
static EClass *
ClassNegate(EClass *c)
{
	EClass *o = ClassNew();
	pg_wchar next = 0;
	int i;

	ClassNormalize(c);
	for (i = 0; i < c->n; i++)
	{
		if (c->r[i].lo > next)
			ClassAdd(o, next, c->r[i].lo - 1);
		next = c->r[i].hi + 1;
	}
	if (next <= MAX_CP)
		ClassAdd(o, next, MAX_CP);
	ClassNormalize(o);
	return o;
}

/* Add \d, \w or \s (lower case) to c. */
static void
ClassAddEscape(EClass *c, char e)
{
	switch (e)
	{
		case 'd':
			ClassAdd(c, '0', '9');
			break;
		case 'w':
			ClassAdd(c, '0', '9');
			ClassAdd(c, 'A', 'Z');
			ClassAdd(c, '_', '_');
			ClassAdd(c, 'a', 'z');
			break;
		case 's':
			ClassAdd(c, 0x09, 0x0D);
			ClassAdd(c, 0x20, 0x20);
			ClassAdd(c, 0xA0, 0xA0);
			ClassAdd(c, 0x1680, 0x1680);
			ClassAdd(c, 0x2000, 0x200A);
			ClassAdd(c, 0x2028, 0x2029);
			ClassAdd(c, 0x202F, 0x202F);
			ClassAdd(c, 0x205F, 0x205F);
			ClassAdd(c, 0x3000, 0x3000);
			ClassAdd(c, 0xFEFF, 0xFEFF);
			break;
	}
}

/* \d \D \w \W \s \S as a set. */
static EClass *
ClassEscape(pg_wchar e)
{
	EClass *c = ClassNew();

	ClassAddEscape(c, (char) (e | 0x20));
	if (e >= 'A' && e <= 'Z')
		return ClassNegate(c);
	ClassNormalize(c);
	return c;
}

/* ---- parser ---- */

static ENode *
NodeNew(ENodeKind kind, ENode *a, ENode *b)
{
	ENode *n = palloc0(sizeof(ENode));

	n->kind = kind;
	n->a = a;
	n->b = b;
	return n;
}

static ENode *
NodeClass(EClass *c)
{
	ENode *n = NodeNew(N_CLASS, NULL, NULL);

	ClassNormalize(c);
	n->cls = c;
	return n;
}

static ENode *
NodeChar(pg_wchar ch)
{
	EClass *c = ClassNew();

	ClassAdd(c, ch, ch);
	return NodeClass(c);
}

static void *
Fail(EParse *ps, EcmaStatus st, const char *fmt, const char *arg)
{
	if (ps->status == ECMA_OK)
	{
		ps->status = st;
		ps->err = psprintf(fmt, arg);
	}
	return NULL;
}

#define PEEK(ps, k) ((ps)->i + (k) < (ps)->n ? (ps)->p[(ps)->i + (k)] : 0)
#define MORE(ps) ((ps)->i < (ps)->n)

static bool
IsSyntaxChar(pg_wchar c)
{
	return c < 128 && c != 0 && strchr("^$\\.*+?()[]{}|/", (int) c) != NULL;
}

/* Read n hex digits at ps->i; -1 when they are not there. */
static int
ReadHex(EParse *ps, int n)
{
	int v = 0;
	int k;

	for (k = 0; k < n; k++)
	{
		int h = DocmodelHexDigit(PEEK(ps, k));

		if (!MORE(ps) || ps->i + k >= ps->n || h < 0)
			return -1;
		v = v * 16 + h;
	}
	ps->i += n;
	return v;
}

/* \u escapes (after "\u"): \uXXXX, a surrogate pair, or \u{X...}. */
static int
ReadUnicodeEscape(EParse *ps)
{
	int v;

	if (PEEK(ps, 0) == '{')
	{
		int digits = 0;

		ps->i++;
		v = 0;
		while (MORE(ps) && DocmodelHexDigit(PEEK(ps, 0)) >= 0)
		{
			v = v * 16 + DocmodelHexDigit(PEEK(ps, 0));
			if (v > MAX_CP)
				return -1;
			ps->i++;
			digits++;
		}
		if (digits == 0 || PEEK(ps, 0) != '}')
			return -1;
		ps->i++;
		return v;
	}
	if ((v = ReadHex(ps, 4)) < 0)
		return -1;
	if (v >= 0xD800 && v <= 0xDBFF && PEEK(ps, 0) == '\\' && PEEK(ps, 1) == 'u')
	{
		int save = ps->i;
		int lo;

		ps->i += 2;
		lo = ReadHex(ps, 4);
		if (lo >= 0xDC00 && lo <= 0xDFFF)
			return 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00);
		ps->i = save;
	}
	return v;
}

/*
 * A CharacterEscape after "\" (ps->i at the letter): the code point, or -1
 * (an error is set).
 */
static int
ReadCharEscape(EParse *ps, bool in_class)
{
	pg_wchar c = PEEK(ps, 0);
	int v;

	ps->i++;
	switch (c)
	{
		case 'f':
			return 0x0C;
		case 'n':
			return 0x0A;
		case 'r':
			return 0x0D;
		case 't':
			return 0x09;
		case 'v':
			return 0x0B;
		case 'c':
		{
			pg_wchar l = PEEK(ps, 0);

			if (MORE(ps) && ((l >= 'a' && l <= 'z') || (l >= 'A' && l <= 'Z')))
			{
				ps->i++;
				return l % 32;
			}
			Fail(ps, ECMA_SYNTAX, "invalid escape \\c%s", "");
			return -1;
		}
		case '0':
			if (PEEK(ps, 0) >= '0' && PEEK(ps, 0) <= '9' && MORE(ps))
			{
				Fail(ps, ECMA_SYNTAX,
					 "invalid escape \\0 followed by a digit%s", "");
				return -1;
			}
			return 0;
		case 'x':
			if ((v = ReadHex(ps, 2)) < 0)
				Fail(ps, ECMA_SYNTAX, "invalid escape \\x%s", "");
			return v;
		case 'u':
			if ((v = ReadUnicodeEscape(ps)) < 0)
				Fail(ps, ECMA_SYNTAX, "invalid escape \\u%s", "");
			return v;
		default:
			if (IsSyntaxChar(c) || (in_class && c == '-'))
				return c;
			if (c < 128 && c >= ' ')
			{
				char s[2] = {(char) c, '\0'};

				Fail(ps, ECMA_SYNTAX, "invalid escape \\%s", s);
			}
			else
				Fail(ps, ECMA_SYNTAX, "invalid escape%s", "");
			return -1;
	}
}

/* A property escape's characters: UnicodePropertyValueCharacter. */
static bool
IsPropertyChar(pg_wchar c, bool digits)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
		   (digits && c >= '0' && c <= '9');
}

/* The longest name read (every property and value name is shorter). */
#define PROPERTY_NAME_MAX 64

/*
 * The code points of a property escape's name=value (name NULL: a lone
 * name or value), in a new class; NULL when ECMA-262 has no such property.
 */
static EClass *
PropertyClass(const char *name, const char *value)
{
	const UnicodeRange *r;
	int n;
	bool found;
	EClass *c;
	int i;

	if (name == NULL)
		found =
			DocmodelUnicodePropertyRanges(UNICODE_GC, value, false, &r, &n) ||
			DocmodelUnicodePropertyRanges(UNICODE_BINARY, value, false, &r, &n);
	else if (strcmp(name, "General_Category") == 0 || strcmp(name, "gc") == 0)
		found = DocmodelUnicodePropertyRanges(UNICODE_GC, value, false, &r, &n);
	else if (strcmp(name, "Script") == 0 || strcmp(name, "sc") == 0)
		found =
			DocmodelUnicodePropertyRanges(UNICODE_SCRIPT, value, false, &r, &n);
	else if (strcmp(name, "Script_Extensions") == 0 || strcmp(name, "scx") == 0)
		found =
			DocmodelUnicodePropertyRanges(UNICODE_SCRIPT, value, true, &r, &n);
	else
		found = false;
	if (!found)
		return NULL;
	c = palloc0(sizeof(EClass));
	c->cap = Max(n, 1);
	c->r = palloc(sizeof(ERange) * c->cap);
	for (i = 0; i < n; i++)
		ClassAdd(c, r[i].lo, r[i].hi);
	ClassNormalize(c);
	return c;
}

/*
 * Read the letters, digits and "_" of a property's name or value into buf
 * (at most PROPERTY_NAME_MAX kept); return how many there were.
 */
static int
ReadPropertyWord(EParse *ps, char *buf)
{
	int n = 0;

	while (MORE(ps) && IsPropertyChar(PEEK(ps, 0), true))
	{
		if (n < PROPERTY_NAME_MAX)
			buf[n] = (char) PEEK(ps, 0);
		n++;
		ps->i++;
	}
	return n;
}

/*
 * A property escape \p{...} or \P{...} (ps->i after the letter): ECMA-262's
 * General_Category, Script, Script_Extensions and binary properties, from
 * the tables of unicode_props.c; names are exact (case included). The
 * classes of the escapes read so far are kept by their text (a pattern
 * naming \p{L} a thousand times holds its ranges once).
 */
static EClass *
ReadProperty(EParse *ps, pg_wchar letter)
{
	int start = ps->i;
	char name[PROPERTY_NAME_MAX + 1];
	char value[PROPERTY_NAME_MAX + 1];
	char *text;
	int nlen = 0;
	int vlen = 0;
	bool has_name = false;
	ListCell *lc;
	EClass *c;
	int k;

	if (PEEK(ps, 0) != '{' || !MORE(ps))
		return Fail(ps, ECMA_SYNTAX, "invalid escape \\%s",
					letter == 'p' ? "p" : "P");
	ps->i++;
	vlen = ReadPropertyWord(ps, value);
	if (MORE(ps) && PEEK(ps, 0) == '=')
	{
		memcpy(name, value, Min(vlen, PROPERTY_NAME_MAX));
		nlen = vlen;
		vlen = 0;
		has_name = true;
		ps->i++;
		vlen = ReadPropertyWord(ps, value);
	}
	if (!MORE(ps) || PEEK(ps, 0) != '}' || vlen == 0 || (has_name && nlen == 0))
		return Fail(ps, ECMA_SYNTAX, "invalid property escape \\%s",
					letter == 'p' ? "p{...}" : "P{...}");
	ps->i++;

	/* the escape as written: its characters are ASCII letters, digits, _ = */
	text = palloc(ps->i - start + 3);
	text[0] = '\\';
	text[1] = (char) letter;
	for (k = start; k < ps->i; k++)
		text[k - start + 2] = (char) ps->p[k];
	text[ps->i - start + 2] = '\0';
	foreach (lc, ps->props)
	{
		EClass *kept = lsecond(lfirst(lc));

		if (strcmp(linitial(lfirst(lc)), text) == 0)
			return kept;
	}

	name[Min(nlen, PROPERTY_NAME_MAX)] = '\0';
	value[Min(vlen, PROPERTY_NAME_MAX)] = '\0';
	c = (nlen > PROPERTY_NAME_MAX || vlen > PROPERTY_NAME_MAX)
			? NULL
			: PropertyClass(has_name ? name : NULL, value);
	if (c == NULL)
	{
		if (strlen(text) > PROPERTY_NAME_MAX)
			strcpy(text + PROPERTY_NAME_MAX, "...");
		return Fail(ps, ECMA_SYNTAX, "unknown Unicode property %s", text);
	}
	if (letter == 'P')
		c = ClassNegate(c);
	ps->props = lappend(ps->props, list_make2(text, c));
	return c;
}

/*
 * A class atom: a code point (*cls NULL) or a class escape (*cls set);
 * false on error.
 */
static bool
ReadClassAtom(EParse *ps, int *cp, EClass **cls)
{
	pg_wchar c = PEEK(ps, 0);

	*cls = NULL;
	if (!MORE(ps))
	{
		Fail(ps, ECMA_SYNTAX, "unterminated character class%s", "");
		return false;
	}
	if (c != '\\')
	{
		ps->i++;
		*cp = c;
		return true;
	}
	ps->i++;
	c = PEEK(ps, 0);
	if (!MORE(ps))
	{
		Fail(ps, ECMA_SYNTAX, "\\ at the end of the pattern%s", "");
		return false;
	}
	if (c == 'b')
	{
		ps->i++;
		*cp = 0x08;
		return true;
	}
	if (c == 'd' || c == 'D' || c == 'w' || c == 'W' || c == 's' || c == 'S')
	{
		ps->i++;
		*cls = ClassEscape(c);
		return true;
	}
	if (c == 'p' || c == 'P')
	{
		ps->i++;
		*cls = ReadProperty(ps, c);
		return *cls != NULL;
	}
	if (c >= '1' && c <= '9')
	{
		Fail(ps, ECMA_SYNTAX, "invalid class escape \\%s", "digit");
		return false;
	}
	*cp = ReadCharEscape(ps, true);
	return *cp >= 0;
}

/* A character class (ps->i after "["). */
static ENode *
ReadClass(EParse *ps)
{
	EClass *c = ClassNew();
	bool negate = false;
	int merge_at = 4096;

	if (PEEK(ps, 0) == '^' && MORE(ps))
	{
		negate = true;
		ps->i++;
	}
	for (;;)
	{
		int a;
		int b;
		EClass *ca;
		EClass *cb;

		CHECK_FOR_INTERRUPTS();
		if (!MORE(ps))
			return Fail(ps, ECMA_SYNTAX, "unterminated character class%s", "");
		if (PEEK(ps, 0) == ']')
		{
			ps->i++;
			break;
		}
		if (!ReadClassAtom(ps, &a, &ca))
			return NULL;
		if (PEEK(ps, 0) == '-' && ps->i + 1 < ps->n && PEEK(ps, 1) != ']')
		{
			ps->i++;
			if (!ReadClassAtom(ps, &b, &cb))
				return NULL;
			if (ca != NULL || cb != NULL)
				return Fail(ps, ECMA_SYNTAX,
							"a class escape cannot bound a range%s", "");
			if (a > b)
				return Fail(ps, ECMA_SYNTAX,
							"range out of order in character class%s", "");
			ClassAdd(c, a, b);
		}
		else if (ca != NULL)
		{
			ClassAddClass(c, ca);
			/* merged as it grows: [\p{L}\p{L}...] holds L's ranges once */
			if (c->n > merge_at)
			{
				ClassNormalize(c);
				merge_at = 2 * c->n + 4096;
			}
		}
		else
			ClassAdd(c, a, a);
	}
	if (negate)
		c = ClassNegate(c);
	return NodeClass(c);
}

/* A decimal number at ps->i (saturated at COUNT_CAP); -1 when none. */
static int
ReadCount(EParse *ps)
{
	int v = 0;
	bool any = false;

	while (MORE(ps) && PEEK(ps, 0) >= '0' && PEEK(ps, 0) <= '9')
	{
		v = Min(v * 10 + (int) (PEEK(ps, 0) - '0'), COUNT_CAP);
		ps->i++;
		any = true;
	}
	return any ? v : -1;
}

/* A group name (ps->i after "<"), then ">"; NULL on error. */
static char *
ReadGroupName(EParse *ps)
{
	StringInfoData buf;

	initStringInfo(&buf);
	while (MORE(ps) && PEEK(ps, 0) != '>')
	{
		pg_wchar c = PEEK(ps, 0);
		bool ok = c == '$' || c == '_' || (c >= 'a' && c <= 'z') ||
				  (c >= 'A' && c <= 'Z') || c >= 128 ||
				  (buf.len > 0 && c >= '0' && c <= '9');

		if (!ok)
			return Fail(ps, ECMA_SYNTAX, "invalid group name%s", "");
		appendStringInfo(&buf, "%c", c < 128 ? (char) c : '?');
		if (c >= 128)
			appendStringInfo(&buf, "%x", (unsigned) c);
		ps->i++;
	}
	if (!MORE(ps) || buf.len == 0)
		return Fail(ps, ECMA_SYNTAX, "invalid group name%s", "");
	ps->i++;
	return buf.data;
}

static ENode *ReadDisjunction(EParse *ps);

/* An atom escape (ps->i after "\"). */
static ENode *
ReadAtomEscape(EParse *ps)
{
	pg_wchar c = PEEK(ps, 0);
	int cp;

	if (!MORE(ps))
		return Fail(ps, ECMA_SYNTAX, "\\ at the end of the pattern%s", "");
	if (c == 'd' || c == 'D' || c == 'w' || c == 'W' || c == 's' || c == 'S')
	{
		ps->i++;
		return NodeClass(ClassEscape(c));
	}
	if (c == 'p' || c == 'P')
	{
		EClass *cls;

		ps->i++;
		cls = ReadProperty(ps, c);
		return cls ? NodeClass(cls) : NULL;
	}
	if (c >= '1' && c <= '9')
	{
		int g = ReadCount(ps);

		if (g > ps->ngroups)
			return Fail(ps, ECMA_SYNTAX, "invalid escape \\%s (no such group)",
						psprintf("%d", g));
		return Fail(ps, ECMA_UNSUPPORTED, "backreference \\%s",
					psprintf("%d", g));
	}
	if (c == 'k')
	{
		ps->i++;
		if (PEEK(ps, 0) != '<' || !MORE(ps))
			return Fail(ps, ECMA_SYNTAX, "invalid escape \\k%s", "");
		ps->i++;
		if (ReadGroupName(ps) == NULL)
			return NULL;
		return Fail(ps, ECMA_UNSUPPORTED, "backreference \\k<...>%s", "");
	}
	cp = ReadCharEscape(ps, false);
	return cp < 0 ? NULL : NodeChar(cp);
}

/*
 * A group, after its "(": (?:...), a named (?<name>...), a plain one, or a
 * lookaround (?=...) (?!...) (?<=...) (?<!...): an N_LOOK node, added to
 * ps->looks after the lookarounds of its body (innermost first).
 */
static ENode *
ReadGroup(EParse *ps)
{
	ENode *atom;
	ENode *look = NULL;

	if (PEEK(ps, 0) == '?')
	{
		pg_wchar d = PEEK(ps, 1);
		pg_wchar e = PEEK(ps, 2);

		if (d == '=' || d == '!' || (d == '<' && (e == '=' || e == '!')))
		{
			look = NodeNew(N_LOOK, NULL, NULL);
			look->behind = d == '<';
			look->negate = (look->behind ? e : d) == '!';
			ps->i += look->behind ? 3 : 2;
		}
		else if (d == ':')
			ps->i += 2;
		else if (d == '<')
		{
			char *name;
			ListCell *lc;

			ps->i += 2;
			if ((name = ReadGroupName(ps)) == NULL)
				return NULL;
			foreach (lc, ps->names)
				if (strcmp(lfirst(lc), name) == 0)
					return Fail(ps, ECMA_SYNTAX, "duplicate group name \"%s\"",
								name);
			ps->names = lappend(ps->names, name);
		}
		else
			return Fail(ps, ECMA_SYNTAX, "invalid group (?%s", "");
	}
	atom = ReadDisjunction(ps);
	if (atom == NULL)
		return NULL;
	if (PEEK(ps, 0) != ')' || !MORE(ps))
		return Fail(ps, ECMA_SYNTAX, "missing )%s", "");
	ps->i++;
	if (look == NULL)
		return atom;
	look->a = atom;
	look->look = list_length(ps->looks);
	ps->looks = lappend(ps->looks, look);
	return look;
}

/* The quantifier after atom, when there is one: *, +, ?, {n}, {n,}, {n,m}. */
static ENode *
ReadQuantifier(EParse *ps, ENode *atom)
{
	pg_wchar c = PEEK(ps, 0);
	ENode *r;

	if (!MORE(ps) || !(c == '*' || c == '+' || c == '?' || c == '{'))
		return atom;
	r = NodeNew(N_REPEAT, atom, NULL);
	ps->i++;
	if (c == '*')
		r->min = 0, r->max = -1;
	else if (c == '+')
		r->min = 1, r->max = -1;
	else if (c == '?')
		r->min = 0, r->max = 1;
	else
	{
		r->min = r->max = ReadCount(ps);
		if (r->min < 0)
			return Fail(ps, ECMA_SYNTAX, "lone {%s", "");
		if (PEEK(ps, 0) == ',' && MORE(ps))
		{
			ps->i++;
			r->max = ReadCount(ps);
		}
		if (PEEK(ps, 0) != '}' || !MORE(ps))
			return Fail(ps, ECMA_SYNTAX, "incomplete quantifier%s", "");
		ps->i++;
		if (r->max >= 0 && r->max < r->min)
			return Fail(ps, ECMA_SYNTAX,
						"numbers out of order in {} quantifier%s", "");
	}
	if (PEEK(ps, 0) == '?' && MORE(ps))
		ps->i++; /* lazy: the same matches */
	return r;
}

/* A term: an assertion, or an atom and its quantifier. */
static ENode *
ReadTerm(EParse *ps)
{
	pg_wchar c = PEEK(ps, 0);
	ENode *atom;

	check_stack_depth();
	switch (c)
	{
		case '^':
			ps->i++;
			atom = NodeNew(N_BOL, NULL, NULL);
			goto assertion;
		case '$':
			ps->i++;
			atom = NodeNew(N_EOL, NULL, NULL);
			goto assertion;
		case '\\':
			if (PEEK(ps, 1) == 'b' || PEEK(ps, 1) == 'B')
			{
				atom = NodeNew(PEEK(ps, 1) == 'b' ? N_WORDB : N_NWORDB, NULL,
							   NULL);
				ps->i += 2;
				goto assertion;
			}
			ps->i++;
			atom = ReadAtomEscape(ps);
			break;
		case '(':
		{
			/* the u flag: a lookaround takes no quantifier, (?:(?=a))* may */
			bool look = PEEK(ps, 1) == '?' &&
						(PEEK(ps, 2) == '=' || PEEK(ps, 2) == '!' ||
						 (PEEK(ps, 2) == '<' &&
						  (PEEK(ps, 3) == '=' || PEEK(ps, 3) == '!')));

			ps->i++;
			atom = ReadGroup(ps);
			if (atom != NULL && look)
				goto assertion;
			break;
		}
		case '.':
		{
			EClass *cls = ClassNew();

			ps->i++;
			ClassAdd(cls, 0x0A, 0x0A);
			ClassAdd(cls, 0x0D, 0x0D);
			ClassAdd(cls, 0x2028, 0x2029);
			atom = NodeClass(ClassNegate(cls));
			break;
		}
		case '[':
			ps->i++;
			atom = ReadClass(ps);
			break;
		case '*':
		case '+':
		case '?':
			return Fail(ps, ECMA_SYNTAX, "nothing to repeat%s", "");
		case '{':
		case '}':
		case ']':
			return Fail(ps, ECMA_SYNTAX, "lone %s",
						c == '{' ? "{" : (c == '}' ? "}" : "]"));
		default:
			ps->i++;
			atom = NodeChar(c);
			break;
	}
	if (atom == NULL)
		return NULL;

	return ReadQuantifier(ps, atom);

assertion:
	c = PEEK(ps, 0);
	if (MORE(ps) && (c == '*' || c == '+' || c == '?' || c == '{'))
		return Fail(ps, ECMA_SYNTAX, "nothing to repeat%s", "");
	return atom;
}

/* Add k to the kids of n (N_CAT, N_ALT). */
static void
NodeAddKid(ENode *n, ENode *k)
{
	if (n->nkids % 8 == 0)
		n->kids = n->kids ? repalloc(n->kids, sizeof(ENode *) * (n->nkids + 8))
						  : palloc(sizeof(ENode *) * 8);
	n->kids[n->nkids++] = k;
}

static ENode *
ReadAlternative(EParse *ps)
{
	ENode *r = NodeNew(N_CAT, NULL, NULL);

	while (MORE(ps) && PEEK(ps, 0) != '|' && PEEK(ps, 0) != ')')
	{
		ENode *t = ReadTerm(ps);

		if (t == NULL)
			return NULL;
		NodeAddKid(r, t);
		CHECK_FOR_INTERRUPTS();
	}
	if (r->nkids == 0)
		r->kind = N_EMPTY;
	return r->nkids == 1 ? r->kids[0] : r;
}

static ENode *
ReadDisjunction(EParse *ps)
{
	ENode *r = NodeNew(N_ALT, NULL, NULL);
	ENode *a = ReadAlternative(ps);

	if (a == NULL)
		return NULL;
	NodeAddKid(r, a);
	while (MORE(ps) && PEEK(ps, 0) == '|')
	{
		ps->i++;
		if ((a = ReadAlternative(ps)) == NULL)
			return NULL;
		NodeAddKid(r, a);
		CHECK_FOR_INTERRUPTS();
	}
	return r->nkids == 1 ? r->kids[0] : r;
}

/* Count the capturing groups (for \N: a backreference or an error). */
static int
CountGroups(const pg_wchar *p, int n)
{
	int i;
	int g = 0;
	bool in_class = false;

	for (i = 0; i < n; i++)
	{
		if (p[i] == '\\')
			i++;
		else if (in_class)
			in_class = p[i] != ']';
		else if (p[i] == '[')
			in_class = true;
		else if (p[i] == '(')
		{
			if (i + 1 >= n || p[i + 1] != '?')
				g++;
			else if (i + 3 < n && p[i + 2] == '<' && p[i + 3] != '=' &&
					 p[i + 3] != '!')
				g++;
		}
	}
	return g;
}

/* ---- the automaton ---- */

/* The states node needs, saturated past ECMA_MAX_STATES. */
static int64
NodeSize(ENode *n)
{
	int64 a;
	int64 b;

	check_stack_depth();
	CHECK_FOR_INTERRUPTS();
	switch (n->kind)
	{
		case N_EMPTY:
			return 0;
		case N_CAT:
		case N_ALT:
		{
			int k;

			/* each kid once: a + b saturates, never overflows */
			b = n->kind == N_ALT ? 2 * (int64) (n->nkids - 1) : 0;
			for (k = 0; k < n->nkids && b <= ECMA_MAX_STATES; k++)
				b += NodeSize(n->kids[k]);
			return Min(b, ECMA_MAX_STATES + 1);
		}
		case N_REPEAT:
			a = NodeSize(n->a);
			if (n->max < 0)
				b = a * n->min + a + 2;
			else
				b = a * n->min + (a + 1) * (int64) (n->max - n->min);
			return Min(b, ECMA_MAX_STATES + 1);
		default:
			return 1;
	}
}

static int
RegexEmit(EcmaRegex *re, EOp op)
{
	EInst *in = &re->prog[re->n];

	in->op = op;
	in->x = in->y = 0;
	in->cls = NULL;
	return re->n++;
}

/*
 * Emit n's states; rev: n reversed (a sequence's parts in the other order),
 * for a lookahead's automaton, which reads the text backward. Assertions
 * test the same positions either way.
 */
static void
EmitNode(EcmaRegex *re, ENode *n, bool rev)
{
	int k;
	int split;
	int jmp;

	check_stack_depth();
	switch (n->kind)
	{
		case N_EMPTY:
			break;
		case N_CLASS:
			re->prog[RegexEmit(re, I_CLASS)].cls = n->cls;
			break;
		case N_BOL:
		case N_EOL:
		case N_WORDB:
		case N_NWORDB:
			RegexEmit(re, n->kind == N_BOL     ? I_BOL
						  : n->kind == N_EOL   ? I_EOL
						  : n->kind == N_WORDB ? I_WORDB
											   : I_NWORDB);
			break;
		case N_LOOK:
		{
			int look = RegexEmit(re, I_LOOK);

			re->prog[look].x = n->look;
			re->prog[look].y = n->negate;
			break;
		}
		case N_CAT:
			for (k = 0; k < n->nkids; k++)
				EmitNode(re, n->kids[rev ? n->nkids - 1 - k : k], rev);
			break;
		case N_ALT:
		{
			int *jmps = palloc(sizeof(int) * n->nkids);

			/* a split before each kid but the last, each to the next */
			for (k = 0; k < n->nkids; k++)
			{
				if (k == n->nkids - 1)
				{
					EmitNode(re, n->kids[k], rev);
					break;
				}
				split = RegexEmit(re, I_SPLIT);
				re->prog[split].x = re->n;
				EmitNode(re, n->kids[k], rev);
				jmps[k] = RegexEmit(re, I_JMP);
				re->prog[split].y = re->n;
			}
			for (k = 0; k < n->nkids - 1; k++)
				re->prog[jmps[k]].x = re->n;
			pfree(jmps);
			break;
		}
		case N_REPEAT:
			for (k = 0; k < n->min; k++)
				EmitNode(re, n->a, rev);
			if (n->max < 0)
			{
				split = RegexEmit(re, I_SPLIT);
				re->prog[split].x = re->n;
				EmitNode(re, n->a, rev);
				jmp = RegexEmit(re, I_JMP);
				re->prog[jmp].x = split;
				re->prog[split].y = re->n;
			}
			else
			{
				/* x{0,k} as (x(x(...)?)?)?: each split skips to the end */
				int nopt = n->max - n->min;
				int *splits = palloc(sizeof(int) * Max(nopt, 1));

				for (k = 0; k < nopt; k++)
				{
					splits[k] = RegexEmit(re, I_SPLIT);
					re->prog[splits[k]].x = re->n;
					EmitNode(re, n->a, rev);
				}
				for (k = 0; k < nopt; k++)
					re->prog[splits[k]].y = re->n;
				pfree(splits);
			}
			break;
	}
}

EcmaRegex *
DocmodelRegexCompile(const char *src, int len, EcmaStatus *status, char **err)
{
	EParse ps = {0};
	pg_wchar *w = palloc((len + 1) * sizeof(pg_wchar));
	ENode *root;
	EcmaRegex *re;
	int64 size;
	ListCell *lc;

	ps.n = pg_mb2wchar_with_len(src, w, len);
	ps.p = w;
	if (ps.n > ECMA_MAX_LENGTH)
	{
		*status = ECMA_TOO_LARGE;
		*err = psprintf("the pattern is longer than %d characters",
						ECMA_MAX_LENGTH);
		return NULL;
	}
	ps.ngroups = CountGroups(w, ps.n);
	root = ReadDisjunction(&ps);
	if (root != NULL && ps.i < ps.n)
		Fail(&ps, ECMA_SYNTAX, "unmatched )%s", "");
	if (ps.status != ECMA_OK)
	{
		*status = ps.status;
		*err = ps.err;
		return NULL;
	}
	/* the main automaton, then each lookaround's, each with its I_MATCH */
	size = NodeSize(root) + 1;
	foreach (lc, ps.looks)
		size += NodeSize(((ENode *) lfirst(lc))->a) + 1;
	if (size > ECMA_MAX_STATES)
	{
		*status = ECMA_TOO_LARGE;
		*err = psprintf("the pattern needs more than %d states (its {n,m} "
						"counts are unrolled)",
						ECMA_MAX_STATES);
		return NULL;
	}
	re = palloc0(sizeof(EcmaRegex));
	re->name =
		len <= PATTERN_NAME_MAX
			? pnstrdup(src, len)
			: psprintf("%s...",
					   pnstrdup(src, pg_mbcliplen(src, len, PATTERN_NAME_MAX)));
	re->prog = palloc(sizeof(EInst) * size);
	EmitNode(re, root, false);
	RegexEmit(re, I_MATCH);
	re->anchored = re->prog[0].op == I_BOL;
	re->nlook = list_length(ps.looks);
	re->look = palloc(sizeof(ELook) * Max(re->nlook, 1));
	foreach (lc, ps.looks)
	{
		ENode *n = lfirst(lc);
		ELook *l = &re->look[foreach_current_index(lc)];

		l->start = re->n;
		l->behind = n->behind;
		EmitNode(re, n->a, !n->behind);
		RegexEmit(re, I_MATCH);
	}
	*status = ECMA_OK;
	*err = NULL;
	return re;
}
