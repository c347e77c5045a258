/*-------------------------------------------------------------------------
 *
 * jsonschema/regex_run.h
 *	  The automaton regex.c compiles a pattern to, and its run over a text:
 *	  states over code point sets, the main automaton first, then one of
 *	  each lookaround (regex_run.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_ECMA_REGEX_RUN_H
#define DOCMODEL_ECMA_REGEX_RUN_H

#include "mb/pg_wchar.h"

/* A set of code points: a bitmap of ASCII and sorted disjoint ranges. */
typedef struct ERange
{
	pg_wchar lo;
	pg_wchar hi;
} ERange;

typedef struct EClass
{
	uint64 ascii[2];
	int n;
	int cap;
	ERange *r; /* every range, ASCII included */
} EClass;

typedef enum EOp
{
	I_CLASS,
	I_SPLIT,
	I_JMP,
	I_MATCH,
	I_BOL,
	I_EOL,
	I_WORDB,
	I_NWORDB,
	I_LOOK /* x: the lookaround's index, y: 1 when negated */
} EOp;

typedef struct EInst
{
	EOp op;
	int x;
	int y;
	const EClass *cls;
} EInst;

/*
 * A lookaround's own automaton, in the same program: a lookbehind's body as
 * written, run forward; a lookahead's body reversed, run backward from the
 * end of the text.
 */
typedef struct ELook
{
	int start; /* its first state; it ends at its own I_MATCH */
	bool behind;
} ELook;

struct EcmaRegex
{
	int n;
	EInst *prog;
	bool anchored; /* every match starts at 0 */
	int nlook;     /* lookarounds, innermost first */
	ELook *look;
	char *name; /* the pattern's start, for a message */
};

typedef struct EcmaRegex EcmaRegex;

/*
 * The bound of a match's lookaround bits (one per lookaround and position of
 * the text): past it the match is refused (54000).
 */
#define ECMA_MAX_LOOK_BYTES (128 * 1024 * 1024)

/*
 * Tell whether re matches anywhere in s (len bytes); 54000 when its
 * lookarounds would need more than ECMA_MAX_LOOK_BYTES over s.
 */
extern bool DocmodelRegexMatch(const EcmaRegex *re, const char *s, int len);

#endif /* DOCMODEL_ECMA_REGEX_RUN_H */
