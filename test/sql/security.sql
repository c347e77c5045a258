-- The install script follows "Security Considerations for Extensions":
-- every object in schema docmodel, no SECURITY DEFINER, SQL-language and
-- PL/pgSQL functions with a pinned search_path, every function labelled.
CREATE TEMP VIEW security_members AS
SELECT p.oid, p.oid::regprocedure::text AS fn, p.pronamespace::regnamespace::text AS nsp,
       p.prosecdef, l.lanname, p.proconfig, p.provolatile, p.proparallel, p.proisstrict, p.prokind
FROM pg_proc p
JOIN pg_language l ON l.oid = p.prolang
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'docmodel';

-- No function outside schema docmodel, none SECURITY DEFINER but
-- _citus_apply (a Citus worker's copy of the catalogs; it checks the
-- connected role's rights itself, search_path pinned).
SELECT fn FROM security_members WHERE nsp <> 'docmodel' OR prosecdef;

-- SQL and PL/pgSQL functions pin search_path, but denormalize's two forms:
-- PostgreSQL inlines them into the caller's query (so that a LIMIT stops
-- the rows), which a SET clause would prevent; their bodies name every
-- function and type with its schema and hold no operator.
SELECT fn, lanname FROM security_members
WHERE lanname IN ('sql', 'plpgsql')
  AND NOT coalesce(proconfig::text LIKE '%search_path=%', false)
  AND fn NOT IN ('docmodel.denormalize(text)', 'docmodel.denormalize(regclass,text,integer)')
ORDER BY fn;

-- Relations, types and operators of the extension live in schema docmodel.
SELECT pg_describe_object(d.classid, d.objid, 0) AS outside
FROM pg_depend d
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'docmodel'
WHERE d.deptype = 'e'
  AND ((d.classid = 'pg_class'::regclass AND (SELECT relnamespace FROM pg_class WHERE oid = d.objid) <> 'docmodel'::regnamespace)
    OR (d.classid = 'pg_type'::regclass AND (SELECT typnamespace FROM pg_type WHERE oid = d.objid) <> 'docmodel'::regnamespace)
    OR (d.classid = 'pg_operator'::regclass AND (SELECT oprnamespace FROM pg_operator WHERE oid = d.objid) <> 'docmodel'::regnamespace));

-- Every function's labels, for review: volatility (i/s/v), parallel (s/r/u), strict, language.
SELECT fn, provolatile AS vol, proparallel AS par, proisstrict AS strict, lanname AS lang, prokind AS kind
FROM security_members ORDER BY fn;
