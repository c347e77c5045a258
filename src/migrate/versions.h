/*-------------------------------------------------------------------------
 *
 * migrate/versions.h
 *	  The versions a session reads and writes at (versions.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_MIGRATE_VERSIONS_H
#define DOCMODEL_MIGRATE_VERSIONS_H

/*
 * The version the running call (get(..., as_version)) or the session
 * (docmodel.versions) reads documents of type (len bytes) at; NULL: the
 * current one.
 */
extern const char *DocmodelSessionVersion(const char *type, int len);

/*
 * Make every read of the running call give documents at version (NULL: the
 * session's versions, else current), whatever their type; returns the
 * previous one, to set back (also on error).
 */
extern const char *DocmodelReadAsSet(const char *version);

/* Define docmodel.versions (from _PG_init). */
extern void DocmodelVersionsInit(void);

#endif /* DOCMODEL_MIGRATE_VERSIONS_H */
