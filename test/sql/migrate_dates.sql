-- Dates beyond ISO 8601: to_epoch and format_date read a string by the
-- step's "input" template (PostgreSQL's to_timestamp templates), the same
-- in every session (TimeZone, DateStyle, lc_time): TM and TZ are refused,
-- a template without a zone reads UTC, the whole string must match.
\i test/sql/include/try.sql
SET client_min_messages = warning;

SELECT docmodel.register_migration('brew', '1', '2', steps => '[
  {"op": "to_epoch", "path": "/brewed", "input": "Mon DD, YYYY", "unit": "s"},
  {"op": "format_date", "path": "/updated", "input": "DD/MM/YYYY HH24:MI", "format": "date-time"},
  {"op": "format_date", "path": "/shipped", "input": "YYYY-MM-DD HH24:MI:SS TZH:TZM", "format": "date-time"},
  {"op": "format_date", "path": "/bottled", "input": "\"on\" DD.MM.YYYY"},
  {"op": "format_date", "path": "/epoch", "input": "YYYY", "unit": "s"},
  {"op": "to_epoch", "path": "/iso"}]');

\echo == the same document whatever the session says
CREATE TEMP TABLE seen (tz text, doc jsonb);
SET TimeZone = 'America/New_York';
SET DateStyle = 'SQL, DMY';
SET lc_time = 'C';
INSERT INTO seen SELECT current_setting('TimeZone'), docmodel.migrate('{"_type": "brew", "_schema": "1",
  "brewed": "Dec 14, 2018", "updated": "02/03/2024 10:30", "shipped": "2024-03-02 10:30:00 +05:30",
  "bottled": "on 14.12.2018", "epoch": 1544745600, "iso": "2018-12-14"}');
SET TimeZone = 'Asia/Tokyo';
SET DateStyle = 'ISO, MDY';
INSERT INTO seen SELECT current_setting('TimeZone'), docmodel.migrate('{"_type": "brew", "_schema": "1",
  "brewed": "Dec 14, 2018", "updated": "02/03/2024 10:30", "shipped": "2024-03-02 10:30:00 +05:30",
  "bottled": "on 14.12.2018", "epoch": 1544745600, "iso": "2018-12-14"}');
RESET TimeZone;
RESET DateStyle;
RESET lc_time;
SELECT tz, doc - '_type' - '_schema' AS doc FROM seen ORDER BY tz;
SELECT count(DISTINCT doc) AS one_result FROM seen;
-- 0.1.0 read "Dec 14, 2018" without a template; 0.2.0 without one refuses it
SELECT pg_temp.try($$SELECT docmodel.migrate('{"_type": "brew", "_schema": "1", "iso": "Dec 14, 2018"}')$$);

\echo == strings that do not match (22007), out of range (22008)
SELECT pg_temp.try($$SELECT docmodel.migrate('{"_type": "brew", "_schema": "1", "brewed": "Foo 14, 2018"}')$$);
SELECT pg_temp.try($$SELECT docmodel.migrate('{"_type": "brew", "_schema": "1", "brewed": "Dec 14, 2018 (approx.)"}')$$);
SELECT pg_temp.try($$SELECT docmodel.migrate('{"_type": "brew", "_schema": "1", "updated": "2024-03-02"}')$$);
SELECT pg_temp.try($$SELECT docmodel.migrate('{"_type": "brew", "_schema": "1", "shipped": "2024-03-02 10:30:00"}')$$);
SELECT pg_temp.try($$SELECT docmodel.migrate('{"_type": "brew", "_schema": "1", "brewed": 1544745600}')$$);
SELECT docmodel.register_migration('clock', '1', '2', steps => '[{"op": "to_epoch", "path": "/t", "input": "HH24:MI"}]');
SELECT pg_temp.try($$SELECT docmodel.migrate('{"_type": "clock", "_schema": "1", "t": "10:30"}')$$);
SELECT docmodel.register_migration('far', '1', '2', steps => '[{"op": "to_epoch", "path": "/t", "input": "YYYY-MM-DD"}]');
SELECT pg_temp.try($$SELECT docmodel.migrate('{"_type": "far", "_schema": "1", "t": "12345-01-01"}')$$);
SELECT docmodel.migrate('{"_type": "far", "_schema": "1", "t": "0001-01-01"}');

\echo == templates refused when registered (22023)
SELECT pg_temp.try($$SELECT docmodel.register_migration('bad', '1', '2', steps => '[{"op": "to_epoch", "path": "/t", "input": "TMMon DD, YYYY"}]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('bad', '1', '2', steps => '[{"op": "format_date", "path": "/t", "input": "tmmonth DD YYYY"}]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('bad', '1', '2', steps => '[{"op": "to_epoch", "path": "/t", "input": "YYYY-MM-DD HH24:MI TZ"}]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('bad', '1', '2', steps => '[{"op": "to_epoch", "path": "/t", "input": ""}]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_migration('bad', '1', '2', steps => '[{"op": "to_epoch", "path": "/t", "input": 5}]')$$);
SELECT pg_temp.try(format($$SELECT docmodel.register_migration('bad', '1', '2', steps => '[{"op": "to_epoch", "path": "/t", "input": "%s"}]')$$, repeat('Y', 101)));
SELECT pg_temp.try($$SELECT docmodel.register_migration('bad', '1', '2', steps => '[{"op": "from_epoch", "path": "/t", "input": "YYYY"}]')$$);
-- TM and TZ inside double quotes are literal text
SELECT docmodel.register_migration('quoted', '1', '2', steps => '[{"op": "to_epoch", "path": "/t", "input": "YYYY-MM-DD \"TM TZ\""}]');
SELECT docmodel.migrate('{"_type": "quoted", "_schema": "1", "t": "2018-12-14 TM TZ"}');

DELETE FROM docmodel.migration_rules WHERE doc_type IN ('brew', 'clock', 'far', 'quoted');
