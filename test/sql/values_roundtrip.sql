-- Every value docmodel writes is one jsonb reads back: after the write
-- paths that build numbers (copies' sums, aggregates sum/min/max, the
-- sub-document increment, counters, migration casts and to_epoch, mappings
-- of numeric, real and double precision columns) have been driven with
-- NaN, +-Infinity, -0 and numbers at numeric's and bigint's edges, every
-- jsonb column of every table in the database survives ::text::jsonb
-- unchanged. NaN and Infinity are refused (22003) where they would be a
-- number, and become the strings to_jsonb makes of them where a column is
-- mapped. TAP test 053_values_dump dumps and restores what this test made.
\i test/sql/include/try.sql
SET client_min_messages = warning;
\set VERBOSITY sqlstate
-- the copies' and aggregates' increments: a non-finite number is refused
CREATE TABLE rt_plain (id text PRIMARY KEY, doc jsonb);
SELECT pg_temp.try($$INSERT INTO rt_plain VALUES ('nan', docmodel._copy_add_at('{"a": 1}', '/a', 'NaN'))$$);
SELECT pg_temp.try($$INSERT INTO rt_plain VALUES ('inf', docmodel._copy_add_at('{"a": 1}', '/a', 'Infinity'))$$);
SELECT pg_temp.try($$INSERT INTO rt_plain VALUES ('-inf', docmodel._copy_add_at('{}', '/a', '-Infinity'))$$);
SELECT docmodel._copy_add_at('{"a": 1e300}', '/a', -1e300) AS zero,
       docmodel._copy_add_at('{"a": -0}', '/a', 0) AS negative_zero;
-- aggregates over numbers at the edges of numeric
SELECT docmodel.create_collection('rt_shelves') IS NOT NULL AS shelves,
       docmodel.create_collection('rt_items', revisions => 5) IS NOT NULL AS items;
SELECT docmodel.create_aggregate('rt_shelves', '/total', 'rt_items', '/shelf', 'sum:/w') IS NOT NULL AS sum,
       docmodel.create_aggregate('rt_shelves', '/least', 'rt_items', '/shelf', 'min:/w') IS NOT NULL AS min,
       docmodel.create_aggregate('rt_shelves', '/most', 'rt_items', '/shelf', 'max:/w') IS NOT NULL AS max,
       docmodel.create_copy('rt_items', '/shelf', 'rt_shelves', '{"label": "/label"}') IS NOT NULL AS copy;
INSERT INTO rt_shelves VALUES ('s1', '{"label": 1e-300}'), ('s2', '{"label": -0.0}');
INSERT INTO rt_items VALUES
  ('i1', '{"shelf": "s1", "w": 1e300}'),
  ('i2', '{"shelf": "s1", "w": -1e300}'),
  ('i3', '{"shelf": "s1", "w": 0.000000000000000000000000000000000000001}'),
  ('i4', '{"shelf": "s2", "w": -0}'),
  ('i5', '{"shelf": "s2", "w": "NaN"}'),
  ('i6', '{"shelf": "s2", "w": 9223372036854775807}');
UPDATE rt_items SET doc = jsonb_set(doc, '{w}', '1e-300') WHERE id = 'i2';
DELETE FROM rt_items WHERE id = 'i6';
SELECT id, (doc->>'total')::numeric = 1e300 + 1e-300 + 1e-39 AS total,
       (doc->>'least')::numeric = 1e-300 AS least, (doc->>'most')::numeric = 1e300 AS most,
       doc->'total' = '0' AS zero
FROM rt_shelves ORDER BY id;
SELECT id, doc->'shelf' AS shelf FROM rt_items WHERE id = 'i4';
-- the sub-document increment and counters stay within bigint (22003 past it)
INSERT INTO rt_items VALUES ('n1', '{"n": 9223372036854775806, "big": 1e30}');
SELECT docmodel.mutate_in('rt_items', 'n1', '[{"op": "increment", "path": "n"}]') -> 'results' AS increment;
SELECT pg_temp.try($$SELECT docmodel.mutate_in('rt_items', 'n1', '[{"op": "increment", "path": "n"}]')$$);
SELECT pg_temp.try($$SELECT docmodel.mutate_in('rt_items', 'n1', '[{"op": "increment", "path": "big"}]')$$);
SELECT docmodel.counter_create('rt_counter', 9223372036854775806);
SELECT docmodel.incr('rt_counter') AS last;
SELECT pg_temp.try($$SELECT docmodel.incr('rt_counter')$$);
-- migration casts refuse what is not a JSON number; to_epoch stays in bigint
SELECT docmodel.register_migration('rt_cast', '1', '2', steps => '[{"op": "cast", "path": "/n", "to": "number"}, {"op": "to_epoch", "path": "/t"}]') IS NOT NULL AS rule;
SELECT (m->>'n')::numeric = 1e300 AS n, m->'t' AS t, m->'_schema' AS schema
FROM docmodel.migrate('{"_type": "rt_cast", "_schema": "1", "n": "1e300", "t": "9999-12-31T23:59:59.999Z"}') AS m;
SELECT pg_temp.try($$SELECT docmodel.migrate('{"_type": "rt_cast", "_schema": "1", "n": "NaN"}')$$);
SELECT pg_temp.try($$SELECT docmodel.migrate('{"_type": "rt_cast", "_schema": "1", "n": "Infinity"}')$$);
SELECT pg_temp.try($$SELECT docmodel.migrate('{"_type": "rt_cast", "_schema": "1", "n": "-inf"}')$$);
-- mappings: NaN and Infinity of numeric, real and double precision columns
-- become the strings to_jsonb makes of them
CREATE TABLE rt_accounts (id integer PRIMARY KEY, bal numeric, f8 double precision, f4 real);
INSERT INTO rt_accounts VALUES (1, 'NaN', 'Infinity', '-Infinity'), (2, 1e300, 'NaN', 'NaN'), (3, -0.0, '-0', 1e-30);
SELECT key, doc - 'bal' AS doc, doc->'bal' = '1e300'::jsonb OR jsonb_typeof(doc->'bal') <> 'number' AS bal
FROM docmodel.denormalize('rt_accounts'::regclass) ORDER BY key;
SELECT docmodel.create_mapping('rt_accounts', 'rt_accounts');
SELECT docmodel.create_collection('rt_acc', revisions => 5) IS NOT NULL AS acc;
CALL docmodel.migrate_tables('rt_accounts', 'rt_acc');
SELECT docmodel.project_tables('rt_accounts', 'rt_acc');
UPDATE rt_accounts SET bal = '-Infinity', f8 = 'NaN' WHERE id = 3;
SELECT id, doc - '_created' - '_modified' - '_createdBy' - '_modifiedBy' - 'bal' AS doc, doc->'bal' AS bal FROM rt_acc WHERE id <> 'rt_accounts::2' ORDER BY id;

-- The property: every jsonb column of every table (docmodel's own, the
-- collections, their history) reads back what it holds.
CREATE FUNCTION pg_temp.roundtrip() RETURNS TABLE (tables bigint, values_checked bigint, failures bigint)
LANGUAGE plpgsql AS $$
DECLARE
    r record;
    n bigint;
    bad bigint;
BEGIN
    tables := 0; values_checked := 0; failures := 0;
    FOR r IN SELECT a.attrelid::regclass AS rel, a.attname
             FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
             WHERE c.relkind IN ('r', 'p') AND a.atttypid = 'jsonb'::regtype AND a.attnum > 0
               AND NOT a.attisdropped AND c.relnamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)
               AND c.relpersistence <> 't'
    LOOP
        EXECUTE format('SELECT count(%1$I), count(*) FILTER (WHERE %1$I::text::jsonb IS DISTINCT FROM %1$I) FROM %2$s',
                       r.attname, r.rel) INTO n, bad;
        tables := tables + 1;
        values_checked := values_checked + n;
        failures := failures + bad;
    END LOOP;
    RETURN NEXT;
END $$;
SELECT tables >= 8 AS tables, values_checked >= 15 AS values_checked, failures FROM pg_temp.roundtrip();
