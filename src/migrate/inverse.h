/*-------------------------------------------------------------------------
 *
 * migrate/inverse.h
 *	  The way down of the step language (inverse.c): SQL-callable only
 *	  (_migration_inverse, read by register_migration and step_inverses);
 *	  nothing here is called from C.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_MIGRATE_INVERSE_H
#define DOCMODEL_MIGRATE_INVERSE_H

#endif /* DOCMODEL_MIGRATE_INVERSE_H */
