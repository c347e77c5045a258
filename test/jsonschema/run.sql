-- The JSON-Schema-Test-Suite's cases (loaded by run.sh into suite_file) through schema_valid.
CREATE FUNCTION pg_temp.run_case(dialect text, schema_json json, data_json json)
    RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    schema jsonb := schema_json::jsonb;
    data jsonb := data_json::jsonb;
BEGIN
    IF dialect = 'draft7' AND jsonb_typeof(schema) = 'object'
       AND NOT schema ? '$schema' THEN
        schema := schema || '{"$schema": "http://json-schema.org/draft-07/schema#"}';
    ELSIF dialect = 'draft2019-09' AND jsonb_typeof(schema) = 'object'
       AND NOT schema ? '$schema' THEN
        schema := schema || '{"$schema": "https://json-schema.org/draft/2019-09/schema"}';
    END IF;
    RETURN CASE WHEN docmodel.schema_valid(schema, data) THEN 'valid' ELSE 'invalid' END;
EXCEPTION
    WHEN feature_not_supported THEN RETURN 'out of scope: ' || SQLERRM;
    WHEN others THEN RETURN 'error ' || SQLSTATE || ': ' || SQLERRM;
END $$;

-- jsonb cannot hold the string escape \u0000 (nor can json's ->> read it): such cases are
-- counted as "not jsonb" and not run.
CREATE TABLE suite_case AS
SELECT f.dialect, f.file, g.ord AS gno, g.grp->>'description' AS grp,
       t.ord AS tno, t.t->>'description' AS test, (t.t->>'valid')::boolean AS expected,
       g.grp->'schema' AS schema, t.t->'data' AS data,
       strpos((g.grp->'schema')::text || (t.t->'data')::text, '\\u0000') > 0 AS nul
  FROM (SELECT dialect, file, replace(content::text, '\u0000', '\\u0000')::json AS content
          FROM suite_file) f,
       json_array_elements(f.content) WITH ORDINALITY AS g(grp, ord),
       json_array_elements(g.grp->'tests') WITH ORDINALITY AS t(t, ord);

ALTER TABLE suite_case ADD got text;
UPDATE suite_case SET got = CASE WHEN nul THEN 'not jsonb: \u0000'
                                 ELSE pg_temp.run_case(dialect, schema, data) END;
-- what docmodel does not support, each with its reason (README, "Schema validation"): a case
-- of these groups whose answer differs is counted "not supported", not failed
CREATE TABLE not_supported(file text, grp text, reason text);
INSERT INTO not_supported VALUES
  ('optional/content.json', '%',
   'contentMediaType, contentEncoding, contentSchema: annotations, not asserted');
ALTER TABLE suite_case ADD outcome text;
UPDATE suite_case SET outcome = CASE
    WHEN got LIKE 'out of scope:%' THEN 'out of scope'
    WHEN got LIKE 'not jsonb:%' THEN 'not jsonb'
    WHEN got <> CASE WHEN expected THEN 'valid' ELSE 'invalid' END
         AND EXISTS (SELECT FROM not_supported n WHERE n.file = suite_case.file
                                                 AND suite_case.grp LIKE n.grp)
         THEN 'not supported'
    WHEN file = 'format.json' AND test LIKE '%only an annotation by default%'
         AND schema->>'format' IN ('date-time', 'date', 'time', 'email', 'uuid', 'ipv4',
                                   'ipv6', 'uri', 'hostname', 'duration', 'idn-email',
                                   'idn-hostname', 'uri-reference', 'iri', 'iri-reference',
                                   'uri-template', 'json-pointer', 'relative-json-pointer',
                                   'regex')
         THEN 'asserted'
    WHEN got = CASE WHEN expected THEN 'valid' ELSE 'invalid' END THEN 'passed'
    ELSE 'failed' END;

\pset footer off
\echo Per keyword file (passed / failed / out of scope / asserted format):
SELECT dialect, file,
       count(*) FILTER (WHERE outcome = 'passed') AS passed,
       count(*) FILTER (WHERE outcome = 'failed') AS failed,
       count(*) FILTER (WHERE outcome = 'out of scope') AS out_of_scope,
       count(*) FILTER (WHERE outcome = 'not supported') AS not_supported,
       count(*) FILTER (WHERE outcome = 'asserted') AS asserted,
       count(*) FILTER (WHERE outcome = 'not jsonb') AS not_jsonb
  FROM suite_case GROUP BY dialect, file ORDER BY dialect, file;
\echo Per dialect:
SELECT dialect,
       count(*) FILTER (WHERE outcome = 'passed') AS passed,
       count(*) FILTER (WHERE outcome = 'failed') AS failed,
       count(*) FILTER (WHERE outcome = 'out of scope') AS out_of_scope,
       count(*) FILTER (WHERE outcome = 'not supported') AS not_supported,
       count(*) FILTER (WHERE outcome = 'asserted') AS asserted,
       count(*) FILTER (WHERE outcome = 'not jsonb') AS not_jsonb
  FROM suite_case GROUP BY dialect ORDER BY dialect;
\echo Out of scope, by reason:
SELECT dialect, regexp_replace(got, '"[^"]*"', '"…"', 'g') AS reason, count(*)
  FROM suite_case WHERE outcome = 'out of scope' GROUP BY 1, 2 ORDER BY 1, 2;
\echo Not supported, by reason:
SELECT s.dialect, n.reason, count(*)
  FROM suite_case s JOIN not_supported n ON n.file = s.file AND s.grp LIKE n.grp
 WHERE s.outcome = 'not supported' GROUP BY 1, 2 ORDER BY 1, 2;
\echo Failures:
SELECT dialect, file, grp, test, expected, got
  FROM suite_case WHERE outcome = 'failed' ORDER BY dialect, file, gno, tno;
SELECT 'FAILED CASES: ' || count(*) AS failed_cases FROM suite_case WHERE outcome = 'failed' \gset
\echo :failed_cases
