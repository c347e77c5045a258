\echo
\echo '--- Schema versions -------------------------------------------------'
\echo 'Every document records its _schema version. docmodel.version compares them'
\echo 'the way people read them: part by part, as numbers.'
SET search_path = public, docmodel;
SELECT '1.10'::version > '1.9'   AS "1.10 > 1.9 (text would say no)",
       '1.10' > '1.9'            AS "as text",
       '2'::version = '2.0'      AS "2 = 2.0",
       '2.5.1'::version > '2.5'  AS "2.5.1 > 2.5";
\echo 'Sorting and max() over versions seen in a collection:'
SELECT string_agg(v::text, ' < ' ORDER BY v) AS sorted, max(v) AS newest
FROM unnest('{1.9,1.10,2.0,1.0,2.5.1,2.5}'::version[]) AS v;
\echo 'Bad version text is refused:'
\set ON_ERROR_STOP 0
SELECT '1..2'::version;
\set ON_ERROR_STOP 1
RESET search_path;
