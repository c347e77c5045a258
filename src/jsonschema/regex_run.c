/*-------------------------------------------------------------------------
 *
 * jsonschema/regex_run.c
 *	  A compiled pattern (regex.c) run over a text's code points once,
 *	  holding the set of live states (each state at most once): the time is
 *	  the text's length times the automaton's size, whatever the pattern.
 *
 *	  Lookarounds, as in Barriere and Pit-Claudel's "Linear Matching of
 *	  JavaScript Regular Expressions" (PLDI 2024) and V8's linear engine:
 *	  with no backreferences, whether a lookaround holds at a position of the
 *	  text depends on that position alone. Before the match, innermost first,
 *	  one pass of each lookaround's automaton over the whole text (a
 *	  lookbehind's forward, a lookahead's, reversed, backward from the end)
 *	  sets one bit per position where its body matches up to (from) there;
 *	  the automata containing the lookaround read that bit as a zero-width
 *	  assertion. Time: the text's length times the states of all the
 *	  automata; memory: one bit per lookaround and position, bounded by
 *	  ECMA_MAX_LOOK_BYTES (54000 past it). Every pass is cancellable.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"

#include "json/util.h"
#include "jsonschema/regex_run.h"

static inline bool
ClassHas(const EClass *c, pg_wchar ch)
{
	int lo = 0;
	int hi = c->n - 1;

	if (ch < 128)
		return (c->ascii[ch >> 6] >> (ch & 63)) & 1;
	while (lo <= hi)
	{
		int mid = (lo + hi) / 2;

		if (ch < c->r[mid].lo)
			hi = mid - 1;
		else if (ch > c->r[mid].hi)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

typedef struct ERun
{
	const EcmaRegex *re;
	const pg_wchar *s;          /* the text's code points, or */
	const unsigned char *ascii; /* the text itself when it is ASCII */
	int len;
	uint32 *mark; /* the position + 1 each state was last added at */
	int *stack;
	uint64 *bits; /* per lookaround, whether it holds at 0..len */
	int words;    /* uint64 words per lookaround */
} ERun;

/* The code point at pos. */
static inline pg_wchar
CharAt(const ERun *r, int pos)
{
	return r->ascii ? r->ascii[pos] : r->s[pos];
}

static inline bool
IsWord(const ERun *r, int pos)
{
	pg_wchar c;

	if (pos < 0 || pos >= r->len)
		return false;
	c = CharAt(r, pos);
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
		   (c >= 'A' && c <= 'Z') || c == '_';
}

/* Whether the lookaround state in holds at pos (its bit, negated or not). */
static inline bool
LookHolds(const ERun *r, const EInst *in, int pos)
{
	bool bit = (r->bits[(int64) in->x * r->words + pos / 64] >> (pos % 64)) & 1;

	return bit != (bool) in->y;
}

/*
 * Add state pc and the states it reaches without reading to list (the
 * reading states only); true when the automaton accepts at pos. Constants
 * where it is inlined: all, go on past I_MATCH, adding every state (a
 * lookaround's pass), else stop there (the match is found); looks, the
 * automaton has lookaround states (without, the loop is the one it was
 * before lookarounds, its registers its own).
 */
static pg_attribute_always_inline bool
AddStateAll(ERun *r, int *list, int *nlist, int pc, int pos, const bool all,
			const bool looks)
{
	bool hit = false;
	int sp = 0;
	uint32 gen = (uint32) pos + 1;

	r->stack[sp++] = pc;
	while (sp > 0)
	{
		const EInst *in;

		pc = r->stack[--sp];
		if (r->mark[pc] == gen)
			continue;
		r->mark[pc] = gen;
		in = &r->re->prog[pc];
		switch (in->op)
		{
			case I_CLASS:
				list[(*nlist)++] = pc;
				break;
			case I_MATCH:
				if (!all)
					return true;
				hit = true;
				break;
			case I_JMP:
				r->stack[sp++] = in->x;
				break;
			case I_SPLIT:
				r->stack[sp++] = in->y;
				r->stack[sp++] = in->x;
				break;
			case I_BOL:
				if (pos == 0)
					r->stack[sp++] = pc + 1;
				break;
			case I_EOL:
				if (pos == r->len)
					r->stack[sp++] = pc + 1;
				break;
			case I_WORDB:
			case I_NWORDB:
				if ((IsWord(r, pos - 1) != IsWord(r, pos)) ==
					(in->op == I_WORDB))
					r->stack[sp++] = pc + 1;
				break;
			case I_LOOK:
				if (looks && LookHolds(r, in, pos))
					r->stack[sp++] = pc + 1;
				break;
		}
	}
	return hit;
}

/* The main automaton's, stopping at a match: without lookarounds, */
static pg_noinline bool
AddStatePlain(ERun *r, int *list, int *nlist, int pc, int pos)
{
	return AddStateAll(r, list, nlist, pc, pos, false, false);
}

/* and with. */
static pg_noinline bool
AddStateLooks(ERun *r, int *list, int *nlist, int pc, int pos)
{
	return AddStateAll(r, list, nlist, pc, pos, false, true);
}

static pg_attribute_always_inline bool
AddStateMain(ERun *r, int *list, int *nlist, int pc, int pos, const bool looks)
{
	return looks ? AddStateLooks(r, list, nlist, pc, pos)
				 : AddStatePlain(r, list, nlist, pc, pos);
}

/*
 * One lookaround's pass over the whole text: whether its body matches
 * from (lookahead) or up to (lookbehind) each position, into its bits. A
 * lookbehind's automaton starts at every position and reads forward: it
 * accepts at p when the body matches some text[j..p). A lookahead's,
 * reversed, starts at every position and reads backward: it accepts at p
 * when the body matches some text[p..j). The lookarounds inside the body
 * are those of lower index, whose bits are complete. O(len * states).
 */
static void
LookPass(ERun *r, int look, int *cur, int *nxt)
{
	const EcmaRegex *re = r->re;
	const ELook *l = &re->look[look];
	uint64 *bits = r->bits + (int64) look * r->words;
	int step = l->behind ? 1 : -1;
	int pos = l->behind ? 0 : r->len;
	int end = l->behind ? r->len : 0;
	int ncur = 0;

	memset(r->mark, 0, sizeof(uint32) * re->n);
	for (;;)
	{
		int nnxt = 0;
		bool hit;
		int k;
		pg_wchar c;

		if (AddStateAll(r, cur, &ncur, l->start, pos, true, true))
			bits[pos / 64] |= UINT64CONST(1) << (pos % 64);
		if (pos == end)
			break;
		if ((pos & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		c = CharAt(r, l->behind ? pos : pos - 1);
		pos += step;
		hit = false;
		for (k = 0; k < ncur; k++)
		{
			const EInst *in = &re->prog[cur[k]];

			if (ClassHas(in->cls, c))
				hit |= AddStateAll(r, nxt, &nnxt, cur[k] + 1, pos, true, true);
		}
		if (hit)
			bits[pos / 64] |= UINT64CONST(1) << (pos % 64);
		{
			int *t = cur;

			cur = nxt;
			nxt = t;
			ncur = nnxt;
		}
	}
	memset(r->mark, 0, sizeof(uint32) * re->n);
}

/*
 * Every lookaround's bits (none without lookarounds), innermost first; 54000
 * past ECMA_MAX_LOOK_BYTES.
 */
static void
LookAll(ERun *r, int *cur, int *nxt)
{
	const EcmaRegex *re = r->re;
	int k;

	r->bits = NULL;
	r->words = 0;
	if (re->nlook == 0)
		return;
	r->words = r->len / 64 + 1;
	if ((double) re->nlook * r->words * sizeof(uint64) > ECMA_MAX_LOOK_BYTES)
		ereport(
			ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("the pattern \"%s\" needs more than %d MB for its "
					"%d lookaround assertions over a text of %d characters",
					re->name, ECMA_MAX_LOOK_BYTES >> 20, re->nlook, r->len)));
	r->bits = palloc0(sizeof(uint64) * re->nlook * r->words);
	for (k = 0; k < re->nlook; k++)
		LookPass(r, k, cur, nxt);
}

/*
 * The main automaton over the text (r's lookaround bits set): whether it
 * matches somewhere. looks: a constant, whether it has lookaround states.
 */
static pg_attribute_always_inline bool
RegexRun(ERun *r, int *cur, int *nxt, const bool looks)
{
	const EcmaRegex *re = r->re;
	int ncur = 0;
	int pos;
	bool matched = false;

	for (pos = 0;; pos++)
	{
		int nnxt = 0;
		int k;
		pg_wchar c;

		if ((pos == 0 || !re->anchored) &&
			AddStateMain(r, cur, &ncur, 0, pos, looks))
		{
			matched = true;
			break;
		}
		if (pos == r->len || (ncur == 0 && re->anchored))
			break;
		if ((pos & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		c = CharAt(r, pos);
		for (k = 0; k < ncur; k++)
		{
			const EInst *in = &re->prog[cur[k]];

			if (ClassHas(in->cls, c) &&
				AddStateMain(r, nxt, &nnxt, cur[k] + 1, pos + 1, looks))
			{
				matched = true;
				break;
			}
		}
		if (matched)
			break;
		{
			int *t = cur;

			/* the next list becomes the current one */
			cur = nxt;
			nxt = t;
			ncur = nnxt;
		}
	}
	return matched;
}

/* Automata up to this size run on the stack. */
#define SMALL_STATES 128

bool
DocmodelRegexMatch(const EcmaRegex *re, const char *s, int len)
{
	pg_wchar stackbuf[256];
	int small[4 * SMALL_STATES + 2];
	uint32 small_mark[SMALL_STATES];
	bool big = re->n > SMALL_STATES;
	bool ascii = DocmodelIsAscii(s, len);
	pg_wchar *w = NULL;
	ERun r;
	int *cur = big ? palloc(sizeof(int) * re->n) : small;
	int *nxt = big ? palloc(sizeof(int) * re->n) : small + SMALL_STATES;
	bool matched;

	r.re = re;
	if (ascii)
	{
		/* every server encoding is ASCII's superset: no conversion */
		r.ascii = (const unsigned char *) s;
		r.s = NULL;
		r.len = len;
	}
	else
	{
		w = len < 256 ? stackbuf : palloc((len + 1) * sizeof(pg_wchar));
		r.ascii = NULL;
		r.s = w;
		r.len = pg_mb2wchar_with_len(s, w, len);
	}
	r.mark = big ? palloc(sizeof(uint32) * re->n) : small_mark;
	memset(r.mark, 0, sizeof(uint32) * re->n);
	r.stack =
		big ? palloc(sizeof(int) * (2 * re->n + 2)) : small + 2 * SMALL_STATES;
	LookAll(&r, cur, nxt);

	matched = re->nlook > 0 ? RegexRun(&r, cur, nxt, true)
							: RegexRun(&r, cur, nxt, false);
	if (w != NULL && w != stackbuf)
		pfree(w);
	if (r.bits != NULL)
		pfree(r.bits);
	if (big)
	{
		pfree(cur);
		pfree(nxt);
		pfree(r.mark);
		pfree(r.stack);
	}
	return matched;
}
