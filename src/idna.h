/*-------------------------------------------------------------------------
 *
 * idna.h
 *	  RFC 5892's rules on a U-label, as far as idn-hostname checks them
 *	  (idna.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_IDNA_H
#define DOCMODEL_IDNA_H

#include "mb/pg_wchar.h"

/* Tell whether the label cp[0..n) (code points) keeps the rules idna.c checks. */
extern bool DocmodelIdnaLabelValid(const pg_wchar *cp, int n);

#endif /* DOCMODEL_IDNA_H */
