-- The extension installs into its own schema, is not relocatable, and every
-- object it creates is labelled.
SELECT extname, extversion, extrelocatable, extnamespace::regnamespace
FROM pg_extension WHERE extname = 'docmodel';
-- Every function of the extension has a comment.
SELECT p.oid::regprocedure AS uncommented
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'docmodel'
WHERE obj_description(p.oid, 'pg_proc') IS NULL
ORDER BY p.oid::regprocedure::text;
-- Moving it is refused.
CREATE SCHEMA elsewhere;
ALTER EXTENSION docmodel SET SCHEMA elsewhere;
DROP SCHEMA elsewhere;
