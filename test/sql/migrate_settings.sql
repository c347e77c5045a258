-- Migrations give the same document in every session:
-- to_epoch reads ISO 8601 only, a date-time without an offset being
-- UTC; from_epoch writes UTC text with milliseconds; cast and join write
-- numbers the same whatever TimeZone, DateStyle, IntervalStyle,
-- extra_float_digits or lc_numeric say. Anything else is 22007 naming the
-- key, step, op and path.
\set SHOW_CONTEXT never
\i test/sql/include/try.sql

SELECT docmodel.register_migration('evt', '1', '2', steps => '[
  {"op": "to_epoch", "path": "/local"},
  {"op": "to_epoch", "path": "/day", "unit": "s"},
  {"op": "to_epoch", "path": "/offset"},
  {"op": "from_epoch", "path": "/stamp"},
  {"op": "from_epoch", "path": "/secs", "unit": "s"},
  {"op": "cast", "path": "/price", "to": "string"},
  {"op": "cast", "path": "/ratio", "to": "number"},
  {"op": "cast", "path": "/flag", "to": "number"},
  {"op": "join", "paths": ["/qty", "/unit"], "into": "/amount"}]');

-- The same migration under several sessions' settings.
CREATE TEMP TABLE runs (settings text, doc jsonb);
CREATE FUNCTION pg_temp.run(tz text, ds text, ist text, efd text, lcn text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('TimeZone', tz, true), set_config('DateStyle', ds, true),
    set_config('IntervalStyle', ist, true), set_config('extra_float_digits', efd, true),
    set_config('lc_numeric', lcn, true);
  INSERT INTO runs
  SELECT format('%s / %s / %s / %s / %s', tz, ds, ist, efd, lcn),
    docmodel.migrate('{"_type": "evt", "_schema": "1",
      "local": "2024-01-02T03:04:05", "day": "2024-01-02", "offset": "2024-01-02T03:04:05.678-05:00",
      "stamp": 1704164645123, "secs": 1704164645.5, "price": 1234.5678901234567890,
      "ratio": " 0.1 ", "flag": true, "qty": 2.50, "unit": "kg"}');
END $$;
BEGIN;
SELECT pg_temp.run('UTC', 'ISO, MDY', 'postgres', '1', 'C');
SELECT pg_temp.run('America/New_York', 'SQL, DMY', 'sql_standard', '-15', 'C.utf8');
SELECT pg_temp.run('Asia/Kolkata', 'German, DMY', 'iso_8601', '3', 'C');
SELECT pg_temp.run('Pacific/Chatham', 'Postgres, YMD', 'postgres_verbose', '0', 'C.utf8');
COMMIT;
-- one document for all four sessions: 2024-01-02T03:04:05 is UTC, 1704164645
SELECT count(DISTINCT doc) AS distinct_docs FROM runs;
SELECT settings, doc - '_type' - '_schema' AS doc FROM runs ORDER BY settings;

\echo == what to_epoch reads (in a session far from UTC)
SET TimeZone = 'Asia/Kathmandu';
SET DateStyle = 'SQL, DMY';
SELECT docmodel.register_migration('iso', '1', '2', steps => '[{"op": "to_epoch", "path": "/t"}]');
SELECT t, docmodel.migrate(jsonb_build_object('_type', 'iso', '_schema', '1', 't', t))->'t' AS epoch_ms
FROM unnest(ARRAY[
  '2024-01-02',                        -- a date: midnight UTC
  '2024-01-02T03:04:05',               -- no offset: UTC
  '2024-01-02T03:04:05Z',
  '2024-01-02t03:04:05z',
  '2024-01-02 03:04:05',
  '2024-01-02T03:04',                  -- minutes only
  '2024-01-02T03:04:05.678',
  '2024-01-02T03:04:05,678',           -- ISO 8601's decimal comma
  '2024-01-02T03:04:05.6789999',       -- past microseconds: dropped
  '2024-01-02T03:04:05+05:30',
  '2024-01-02T03:04:05+0530',
  '2024-01-02T03:04:05-08',
  '2024-02-29T00:00:00Z',              -- leap day
  '1969-12-31T23:59:59.999Z',          -- before 1970: floored
  '0001-01-01',
  '9999-12-31T23:59:59.999Z']) AS t;

\echo == anything else: 22007, naming key, step, op and path
SELECT docmodel.create_collection('evts');
SELECT t, pg_temp.try(format($$SELECT docmodel.insert('evts', 'iso::1', %L)$$,
  jsonb_build_object('_schema', '1', 't', t))) AS outcome
FROM unnest(ARRAY[
  '01/02/2024', '02.01.2024', 'now', 'today', 'tomorrow', 'epoch', 'infinity',
  'Jan 2 2024', '2024-01-02 03:04:05 EST', '2024-01-02T03:04:05 America/New_York',
  '2024-1-2', '2024-01-02T3:04:05', '2024-02-30', '2023-02-29', '2024-13-01',
  '2024-01-02T24:00:00', '2024-01-02T03:60:00', '2024-01-02T03:04:60',
  '2024-01-02T03:04:05.', '2024-01-02T03:04:05+5', '2024-01-02T03:04:05+24:00',
  '2024-01-02Z', ' 2024-01-02', '2024-01-02 ', '20240102', '+12024-01-02', '']) AS t;
-- nothing was written
SELECT count(*) AS stored FROM evts;
-- inside a for_each the path names the element
SELECT docmodel.register_migration('log', '1', '2', steps => '[{"op": "for_each", "path": "/events", "steps": [{"op": "to_epoch", "path": "/at"}]}]');
SELECT pg_temp.try($$SELECT docmodel.insert('evts', 'log::1', '{"_schema": "1", "events": [{"at": "2024-01-02"}, {"at": "yesterday"}]}')$$);

\echo == from_epoch writes the same text in every session, years 0000 to 9999
SELECT docmodel.register_migration('ep', '1', '2', steps => '[{"op": "from_epoch", "path": "/t"}]');
SET TimeZone = 'America/Los_Angeles';
SET DateStyle = 'Postgres, MDY';
SET IntervalStyle = 'sql_standard';
SELECT t, docmodel.migrate(jsonb_build_object('_type', 'ep', '_schema', '1', 't', t))->'t' AS iso
FROM unnest(ARRAY[0, 1704164645123, -1, 1.5, 253402300799999, -62167219200000]::numeric[]) AS t;
SELECT pg_temp.try($$SELECT docmodel.migrate('{"_type": "ep", "_schema": "1", "t": 253402300800000}')$$);
SELECT pg_temp.try($$SELECT docmodel.migrate('{"_type": "ep", "_schema": "1", "t": -62167219200001}')$$);
SELECT pg_temp.try($$SELECT docmodel.migrate('{"_type": "ep", "_schema": "1", "t": 1e30}')$$);
RESET TimeZone;
RESET DateStyle;
RESET IntervalStyle;

SELECT docmodel.drop_collection('evts');
DELETE FROM docmodel.migration_rules WHERE doc_type IN ('evt', 'iso', 'log', 'ep');
