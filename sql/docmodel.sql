/*
 * docmodel install script (the whole current version; copied to
 * docmodel--<version>.sql at build).
 *
 * Security (PostgreSQL's "Security Considerations for Extensions"): every
 * object is created in schema docmodel, which the extension creates and owns;
 * nothing is CREATE OR REPLACE; references are schema-qualified; SQL-language
 * and PL/pgSQL functions pin search_path; operators are written
 * OPERATOR(pg_catalog.=) where a user's search_path could hijack them.
 *
 * One section per concern, in dependency order; each section belongs to the
 * concern's source file named in its heading.
 */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION docmodel" to load this file. \quit

-------------------------------------------------------------------------------
-- Keys (src/key.c)
-------------------------------------------------------------------------------

-- (end of keys)


-------------------------------------------------------------------------------
-- Versions (src/version.c)
-------------------------------------------------------------------------------

-- (end of versions)


-------------------------------------------------------------------------------
-- Counters (src/counter.c)
-------------------------------------------------------------------------------

-- (end of counters)


-------------------------------------------------------------------------------
-- Migrations (src/migrate.c)
-------------------------------------------------------------------------------

-- (end of migrations)


-------------------------------------------------------------------------------
-- Collections and documents (src/collection.c, src/document.c, src/kv.c)
-------------------------------------------------------------------------------

-- (end of collections)


-------------------------------------------------------------------------------
-- Revisions (src/revision.c)
-------------------------------------------------------------------------------

-- (end of revisions)
