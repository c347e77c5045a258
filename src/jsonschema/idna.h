/*-------------------------------------------------------------------------
 *
 * jsonschema/idna.h
 *	  Host names and IDNA2008 host names (hostname, idn-hostname), RFC
 *	  5892's rules on a U-label, Punycode (RFC 3492) (idna.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_IDNA_H
#define DOCMODEL_IDNA_H

#include "mb/pg_wchar.h"

/* Tell whether the label cp[0..n) (code points) keeps the rules idna.c checks. */
extern bool DocmodelIdnaLabelValid(const pg_wchar *cp, int n);

/* Tell whether s[0..len) is a hostname (idn: an idn-hostname). */
extern bool DocmodelIdnaHostnameValid(const char *s, int len, bool idn);

extern bool DocmodelIdnaPunycodeDecode(const char *s, int len, pg_wchar *out,
									   int max, int *nout);
extern int DocmodelIdnaPunycodeEncode(const pg_wchar *cp, int n, char *out,
									  int max);

#endif /* DOCMODEL_IDNA_H */
