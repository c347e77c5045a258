/*-------------------------------------------------------------------------
 *
 * collection/create.h
 *	  create_collection()'s helpers (create.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_COLLECTION_CREATE_H
#define DOCMODEL_COLLECTION_CREATE_H

#include "postgres.h"

/* A free name in namespace nsp for a table derived from base (label: what it is). */
extern char *DocmodelDerivedName(Oid nsp, const char *base, const char *label);

#endif /* DOCMODEL_COLLECTION_CREATE_H */
