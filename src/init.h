/*-------------------------------------------------------------------------
 *
 * init.h
 *	  Module entry point (init.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_INIT_H
#define DOCMODEL_INIT_H

#include "fmgr.h"

extern void _PG_init(void);

#endif /* DOCMODEL_INIT_H */
