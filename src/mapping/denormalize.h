/*-------------------------------------------------------------------------
 *
 * mapping/denormalize.h
 *	  Reading a whole mapping as a stream (denormalize.c): SQL-callable only
 *	  (_denormalize_rows, read by the inlined denormalize functions);
 *	  nothing here is called from C.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_MAPPING_DENORMALIZE_H
#define DOCMODEL_MAPPING_DENORMALIZE_H

#endif /* DOCMODEL_MAPPING_DENORMALIZE_H */
