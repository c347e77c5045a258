/*-------------------------------------------------------------------------
 *
 * fuzz.h
 *	  The libFuzzer harnesses of make fuzz (README.md, "Finding what tests miss"): each one
 *	  takes the fuzzer's bytes and calls one docmodel parser with them.
 *	  They run inside a single-user backend (driver.c), so the parsers use
 *	  the real palloc, ereport and jsonb of the server.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_FUZZ_H
#define DOCMODEL_FUZZ_H

#include "utils/jsonb.h"

/*
 * A harness: raising an ERROR is the parser refusing the input (driver.c
 * catches it); an internal error (XX000), a crash or a failed FuzzCheck is
 * a finding.
 */
typedef void (*FuzzHarness)(const uint8 *data, size_t size);

extern void FuzzKey(const uint8 *data, size_t size);
extern void FuzzVersion(const uint8 *data, size_t size);
extern void FuzzPointer(const uint8 *data, size_t size);
extern void FuzzSteps(const uint8 *data, size_t size);
extern void FuzzPatch(const uint8 *data, size_t size);
extern void FuzzSubdocPath(const uint8 *data, size_t size);
extern void FuzzSchema(const uint8 *data, size_t size);
extern void FuzzMerge(const uint8 *data, size_t size);
extern void FuzzRegex(const uint8 *data, size_t size);

/* The input as a NUL-terminated palloc'd string, or NULL when it holds a NUL. */
extern char *FuzzCString(const uint8 *data, size_t size);

/* jsonb_in of a string (raises 22P02 on bad JSON, which ends the input). */
extern Jsonb *FuzzJsonb(const char *json);

/*
 * Call fn(arg) in its own subtransaction; return false when it raised an
 * ERROR (a refusal), true when it returned. For harnesses that make several
 * calls with one input.
 */
extern bool FuzzTry(void (*fn)(void *arg), void *arg);

/* A property that must hold: print what broke and abort (a finding). */
#define FuzzCheck(cond, ...)                                   \
	do                                                         \
	{                                                          \
		if (!(cond))                                           \
		{                                                      \
			fprintf(stderr, "fuzz check failed: %s: ", #cond); \
			fprintf(stderr, __VA_ARGS__);                      \
			fprintf(stderr, "\n");                             \
			abort();                                           \
		}                                                      \
	} while (0)

#endif /* DOCMODEL_FUZZ_H */
