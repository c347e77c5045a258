/*
 * docmodel install script, first part: the schema. The build joins the files
 * of sql/parts/ in name order into docmodel--<version>.sql, and takes the
 * upgrade's objects from them (scripts/sqlbuild.pl).
 *
 * Security (PostgreSQL's "Security Considerations for Extensions"): every
 * object is created in schema docmodel, which the extension creates and owns;
 * nothing is CREATE OR REPLACE; references are schema-qualified; SQL-language
 * and PL/pgSQL functions pin search_path; operators are written
 * OPERATOR(pg_catalog.=) where a user's search_path could hijack them.
 *
 * One file per concern, in dependency order; each names the C source it
 * belongs to in its heading.
 */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION docmodel" to load this file. \quit

-------------------------------------------------------------------------------
-- The schema (CVE-2022-2625 class; "Security Considerations for Extensions")
-------------------------------------------------------------------------------

-- CREATE EXTENSION installs into an existing schema docmodel. Whoever owns
-- it, or may create objects in it, could plant objects that every role then
-- runs (a docmodel.key(text, integer) resolves before the variadic one). So
-- an existing schema is accepted only when it is empty, owned by the
-- installing role or a superuser, and no other role may create in it: the
-- schema pg_dump writes before CREATE EXTENSION is such a schema.
DO $$
DECLARE
    nsp pg_catalog.oid;
    owner pg_catalog.oid;
    obj text;
BEGIN
    SELECT n.oid, n.nspowner INTO nsp, owner FROM pg_catalog.pg_namespace AS n
        WHERE n.nspname OPERATOR(pg_catalog.=) 'docmodel';
    IF NOT (owner OPERATOR(pg_catalog.=) (SELECT r.oid FROM pg_catalog.pg_roles AS r
                                          WHERE r.rolname OPERATOR(pg_catalog.=) CURRENT_USER)
            OR (SELECT r.rolsuper FROM pg_catalog.pg_roles AS r
                WHERE r.oid OPERATOR(pg_catalog.=) owner)) THEN
        RAISE EXCEPTION 'cannot install docmodel into the existing schema "docmodel"'
            USING ERRCODE = 'duplicate_schema',
                  DETAIL = pg_catalog.format('The schema is owned by role "%s", which is neither the installing role nor a superuser.',
                      pg_catalog.pg_get_userbyid(owner)),
                  HINT = 'Drop or rename that schema, then run CREATE EXTENSION docmodel again.';
    END IF;
    IF EXISTS (SELECT FROM pg_catalog.aclexplode((SELECT n.nspacl FROM pg_catalog.pg_namespace AS n
                                                  WHERE n.oid OPERATOR(pg_catalog.=) nsp)) AS a
               WHERE a.privilege_type OPERATOR(pg_catalog.=) 'CREATE'
                 AND a.grantee OPERATOR(pg_catalog.<>) owner) THEN
        RAISE EXCEPTION 'cannot install docmodel into the existing schema "docmodel"'
            USING ERRCODE = 'duplicate_schema',
                  DETAIL = 'Roles other than its owner may create objects in it.',
                  HINT = 'Drop or rename that schema, then run CREATE EXTENSION docmodel again.';
    END IF;
    SELECT o.d INTO obj FROM (
        SELECT pg_catalog.pg_describe_object('pg_catalog.pg_class'::pg_catalog.regclass, c.oid, 0) AS d
            FROM pg_catalog.pg_class AS c WHERE c.relnamespace OPERATOR(pg_catalog.=) nsp
        UNION ALL SELECT pg_catalog.pg_describe_object('pg_catalog.pg_proc'::pg_catalog.regclass, p.oid, 0)
            FROM pg_catalog.pg_proc AS p WHERE p.pronamespace OPERATOR(pg_catalog.=) nsp
        UNION ALL SELECT pg_catalog.pg_describe_object('pg_catalog.pg_type'::pg_catalog.regclass, t.oid, 0)
            FROM pg_catalog.pg_type AS t WHERE t.typnamespace OPERATOR(pg_catalog.=) nsp
        UNION ALL SELECT pg_catalog.pg_describe_object('pg_catalog.pg_operator'::pg_catalog.regclass, p.oid, 0)
            FROM pg_catalog.pg_operator AS p WHERE p.oprnamespace OPERATOR(pg_catalog.=) nsp
        UNION ALL SELECT pg_catalog.pg_describe_object('pg_catalog.pg_opfamily'::pg_catalog.regclass, f.oid, 0)
            FROM pg_catalog.pg_opfamily AS f WHERE f.opfnamespace OPERATOR(pg_catalog.=) nsp
        UNION ALL SELECT pg_catalog.pg_describe_object('pg_catalog.pg_collation'::pg_catalog.regclass, c.oid, 0)
            FROM pg_catalog.pg_collation AS c WHERE c.collnamespace OPERATOR(pg_catalog.=) nsp
        UNION ALL SELECT pg_catalog.pg_describe_object('pg_catalog.pg_conversion'::pg_catalog.regclass, c.oid, 0)
            FROM pg_catalog.pg_conversion AS c WHERE c.connamespace OPERATOR(pg_catalog.=) nsp
        UNION ALL SELECT pg_catalog.pg_describe_object('pg_catalog.pg_ts_config'::pg_catalog.regclass, c.oid, 0)
            FROM pg_catalog.pg_ts_config AS c WHERE c.cfgnamespace OPERATOR(pg_catalog.=) nsp
        UNION ALL SELECT pg_catalog.pg_describe_object('pg_catalog.pg_ts_dict'::pg_catalog.regclass, c.oid, 0)
            FROM pg_catalog.pg_ts_dict AS c WHERE c.dictnamespace OPERATOR(pg_catalog.=) nsp
        UNION ALL SELECT pg_catalog.pg_describe_object('pg_catalog.pg_statistic_ext'::pg_catalog.regclass, c.oid, 0)
            FROM pg_catalog.pg_statistic_ext AS c WHERE c.stxnamespace OPERATOR(pg_catalog.=) nsp
        UNION ALL SELECT pg_catalog.pg_describe_object('pg_catalog.pg_extension'::pg_catalog.regclass, e.oid, 0)
            FROM pg_catalog.pg_extension AS e WHERE e.extnamespace OPERATOR(pg_catalog.=) nsp
              AND e.extname OPERATOR(pg_catalog.<>) 'docmodel') AS o
        LIMIT 1;
    IF obj IS NOT NULL THEN
        RAISE EXCEPTION 'cannot install docmodel into the existing schema "docmodel"'
            USING ERRCODE = 'duplicate_schema',
                  DETAIL = pg_catalog.format('The schema already holds %s.', obj),
                  HINT = 'Drop or rename that schema, then run CREATE EXTENSION docmodel again.';
    END IF;
END
$$;

