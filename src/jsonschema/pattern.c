/*-------------------------------------------------------------------------
 *
 * jsonschema/pattern.c
 *	  JSON Schema's patterns matched: those of the simple kind (^[0-9]{10}$)
 *	  on ASCII text without the regular expression engine (backtracking
 *	  within a budget, then an automaton over the text once), the others by
 *	  regex.c. No state.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>

#include "miscadmin.h"

#include "json/util.h"
#include "jsonschema/pattern.h"
#include "jsonschema/regex.h"

/*
 * Most schemas' patterns are a run of single characters or classes with
 * quantifiers (^[0-9]{10}$, ^[^@]+@[^@]+$): those are matched here on ASCII
 * text, as the regular expression engine would, for a fraction of its cost
 * (it converts the text and sets up its machinery on every call). Anything
 * else (groups, alternation, back references, lazy quantifiers, non-ASCII)
 * goes to the engine.
 *
 * The match is linear in the text: backtracking first, which is fastest
 * on the usual patterns, with a budget of character tests proportional to
 * the text's length (SimpleTryAt); past it, the pattern runs as an
 * automaton over the text once (SimpleRun), holding for each atom the set
 * of counts of its characters matched so far that some start position
 * reaches (a Thompson-style set of states, a 256-bit set per atom since a
 * count is at most 255): the text's length times the atoms', whatever the
 * pattern ("a*a*a*b" over a long run of "a" included).
 */
#define SIMPLE_MAX_ATOMS 32
#define SIMPLE_MAX_COUNT 255 /* the engine's own bound of {m,n} (DUPMAX) */

typedef struct SimpleAtom
{
	uint64 set[2]; /* the ASCII characters it matches */
	int min;
	int max;        /* INT_MAX: unbounded */
	uint64 keep[4]; /* the counts a state holds: 0..max, or 0..min */
	uint64 done[4]; /* the counts that complete the atom: min and up */
	bool loop;      /* unbounded: count min stays min on one more */
	int cap;        /* the highest count held */
	int nw;         /* the words of keep and done in use: cap / 64 + 1 */
} SimpleAtom;

struct SimplePattern
{
	bool anchor_start;
	bool anchor_end;
	int natoms;
	SimpleAtom atoms[SIMPLE_MAX_ATOMS];
};

static void
SetAdd(uint64 *set, int lo, int hi)
{
	for (; lo <= hi; lo++)
		set[lo >> 6] |= UINT64CONST(1) << (lo & 63);
}

/* Make set (256 bits) the counts lo..hi. */
static void
SimpleCounts(uint64 *set, int lo, int hi)
{
	memset(set, 0, 4 * sizeof(uint64));
	SetAdd(set, lo, hi);
}

/* Add the class escape \c (d, w, s, or their negations) to set. */
static bool
SetEscape(uint64 *set, char c)
{
	uint64 x[2] = {0, 0};

	switch (tolower((unsigned char) c))
	{
		case 'd':
			SetAdd(x, '0', '9');
			break;
		case 'w':
			SetAdd(x, '0', '9');
			SetAdd(x, 'a', 'z');
			SetAdd(x, 'A', 'Z');
			SetAdd(x, '_', '_');
			break;
		case 's':
			SetAdd(x, '\t', '\r');
			SetAdd(x, ' ', ' ');
			break;
		default:
			return false;
	}
	set[0] |= isupper((unsigned char) c) ? ~x[0] : x[0];
	set[1] |= isupper((unsigned char) c) ? ~x[1] : x[1];
	return true;
}

/* Read one character of a class or pattern, "\." style escapes included. */
static int
SimpleChar(const char **p)
{
	const char *s = *p;

	if (s[0] == '\\' && s[1] != '\0' && !isalnum((unsigned char) s[1]))
	{
		*p = s + 2;
		return (unsigned char) s[1];
	}
	if (s[0] == '\\' || (unsigned char) s[0] >= 0x80 || s[0] < ' ')
		return -1;
	*p = s + 1;
	return (unsigned char) s[0];
}

/* Read a bracket expression at *p (after "["); false where not simple. */
static bool
SimpleClass(const char **p, uint64 *set)
{
	const char *s = *p;
	bool negate = *s == '^';

	if (negate)
		s++;
	if (*s == ']' || *s == '\0')
		return false; /* "[]...]": leave POSIX's rules to the engine */
	while (*s != ']')
	{
		int lo;
		int hi;

		if (*s == '\0' || *s == '[')
			return false;
		if (s[0] == '\\' && SetEscape(set, s[1]))
		{
			s += 2;
			continue;
		}
		if ((lo = SimpleChar(&s)) < 0)
			return false;
		hi = lo;
		if (s[0] == '-' && s[1] != ']')
		{
			s++;
			if ((hi = SimpleChar(&s)) < lo)
				return false;
		}
		SetAdd(set, lo, hi);
	}
	if (negate)
	{
		set[0] = ~set[0];
		set[1] = ~set[1];
	}
	*p = s + 1;
	return true;
}

/* Compile src into a SimplePattern, or return NULL when it is not one. */
SimplePattern *
DocmodelSchemaSimpleCompile(const char *src)
{
	SimplePattern *sp = palloc0(sizeof(SimplePattern));
	const char *p = src;

	if ((sp->anchor_start = *p == '^'))
		p++;
	while (*p)
	{
		SimpleAtom *a = &sp->atoms[sp->natoms];
		int c;

		if (p[0] == '$' && p[1] == '\0')
		{
			sp->anchor_end = true;
			break;
		}
		if (sp->natoms == SIMPLE_MAX_ATOMS || strchr("()|^$*+?{}]", *p))
			return NULL;
		if (*p == '.')
		{
			/* ECMA-262: every character but the line terminators */
			SetAdd(a->set, 0, 127);
			a->set[0] &= ~((UINT64CONST(1) << '\n') | (UINT64CONST(1) << '\r'));
			p++;
		}
		else if (*p == '[')
		{
			p++;
			if (!SimpleClass(&p, a->set))
				return NULL;
		}
		else if (p[0] == '\\' && SetEscape(a->set, p[1]))
			p += 2;
		else if ((c = SimpleChar(&p)) >= 0)
			SetAdd(a->set, c, c);
		else
			return NULL;
		a->min = a->max = 1;
		if (*p == '*' || *p == '+' || *p == '?')
		{
			a->min = *p == '+' ? 1 : 0;
			a->max = *p == '?' ? 1 : INT_MAX;
			p++;
		}
		else if (*p == '{')
		{
			char *end;

			if (!isdigit((unsigned char) p[1]))
				return NULL;
			a->min = a->max = strtol(p + 1, &end, 10);
			if (*end == ',')
				a->max = isdigit((unsigned char) end[1])
							 ? strtol(end + 1, &end, 10)
							 : (end++, INT_MAX);
			if (*end != '}' || a->max < a->min || a->min > SIMPLE_MAX_COUNT ||
				(a->max > SIMPLE_MAX_COUNT && a->max != INT_MAX))
				return NULL;
			p = end + 1;
		}
		if (*p == '?' || *p == '*' || *p == '+' || *p == '{')
			return NULL; /* lazy or stacked quantifiers */
		a->loop = a->max == INT_MAX;
		a->cap = a->loop ? a->min : a->max;
		a->nw = a->cap / 64 + 1;
		SimpleCounts(a->keep, 0, a->cap);
		SimpleCounts(a->done, a->min, a->cap);
		sp->natoms++;
	}
	return sp;
}

/*
 * Tell whether sp matches anywhere in s[0..len) (ASCII): every position is
 * read once, the states of all the starts so far advanced together.
 */
static bool
SimpleRun(const SimplePattern *sp, const char *s, int len)
{
	uint64 st[SIMPLE_MAX_ATOMS][4];
	int pos;

	memset(st, 0, sizeof(st[0]) * sp->natoms);
	for (pos = 0;; pos++)
	{
		bool end = false;
		bool alive = false;
		int c;
		int i;

		/* a match may start here; then each completed atom starts the next */
		if (pos == 0 || !sp->anchor_start)
		{
			if (sp->natoms == 0)
				end = true;
			else
				st[0][0] |= 1;
		}
		for (i = 0; i < sp->natoms; i++)
		{
			const SimpleAtom *a = &sp->atoms[i];
			uint64 done = st[i][0] & a->done[0];
			int k;

			for (k = 1; k < a->nw; k++)
				done |= st[i][k] & a->done[k];
			if (done)
			{
				if (i + 1 == sp->natoms)
					end = true;
				else
					st[i + 1][0] |= 1;
			}
		}
		if (end && (!sp->anchor_end || pos == len))
			return true;
		if (pos == len)
			return false;
		if ((pos & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		/* read s[pos]: each atom's counts go up by one, or die */
		c = (unsigned char) s[pos];
		for (i = 0; i < sp->natoms; i++)
		{
			const SimpleAtom *a = &sp->atoms[i];
			uint64 *w = st[i];
			uint64 any = 0;
			bool top;
			int k;

			if (!((a->set[c >> 6] >> (c & 63)) & 1))
			{
				for (k = 0; k < a->nw; k++)
					w[k] = 0;
				continue;
			}
			top = a->loop && ((w[a->cap >> 6] >> (a->cap & 63)) & 1);
			for (k = a->nw - 1; k > 0; k--)
				any |= w[k] = ((w[k] << 1) | (w[k - 1] >> 63)) & a->keep[k];
			any |= w[0] = (w[0] << 1) & a->keep[0];
			if (top)
			{
				w[a->cap >> 6] |= UINT64CONST(1) << (a->cap & 63);
				any = 1;
			}
			alive |= any != 0;
		}
		/* anchored at the start and nothing left: no match */
		if (!alive && sp->anchor_start)
			return false;
	}
}

/*
 * Match atoms [i, natoms) of sp at s[pos..len), backtracking, each
 * character tested costing one of *budget: 1 a match, 0 none, -1 the
 * budget ran out.
 */
static int
SimpleTryAt(const SimplePattern *sp, int i, const char *s, int len, int pos,
			int64 *budget)
{
	const SimpleAtom *a;
	int n = 0;

	if (i == sp->natoms)
		return !sp->anchor_end || pos == len;
	a = &sp->atoms[i];
	while (n < a->max && pos + n < len &&
		   (a->set[s[pos + n] >> 6] >> (s[pos + n] & 63)) & 1)
		n++;
	if ((*budget -= n + 1) < 0)
		return -1;
	for (; n >= a->min; n--)
	{
		int r = SimpleTryAt(sp, i + 1, s, len, pos + n, budget);

		if (r != 0)
			return r;
	}
	return 0;
}

/* Tell whether sp matches anywhere in s[0..len) (ASCII), in linear time. */
static bool
SimpleMatches(const SimplePattern *sp, const char *s, int len)
{
	int64 budget = 4 * ((int64) len + 16);
	int start;

	for (start = 0; start <= len; start++)
	{
		int r = SimpleTryAt(sp, 0, s, len, start, &budget);

		if (r < 0)
			return SimpleRun(sp, s, len);
		if (r > 0)
			return true;
		if (sp->anchor_start)
			break;
	}
	return false;
}

/* Tell whether the pattern matches anywhere in s; see pattern.h. */
bool
DocmodelSchemaPatternMatches(const SimplePattern *simple, const EcmaRegex *re,
							 const char *s, int len)
{
	if (simple != NULL && DocmodelIsAscii(s, len))
		return SimpleMatches(simple, s, len);
	return DocmodelRegexMatch(re, s, len);
}
