-- advise: the modeling advice measured on a collection (named to run after the tests that count collection ids)
\i test/sql/include/try.sql
SET client_min_messages = warning;

-- a clean collection: no finding
SELECT docmodel.create_collection('tidy', 'user') IS NOT NULL AS created;
INSERT INTO tidy (id, doc) SELECT 'user::' || i, jsonb_build_object('name', 'N' || i, 'age', i % 90,
    'tags', jsonb_build_array('a', 'b')) FROM generate_series(1, 200) i;
SELECT * FROM docmodel.advise('tidy');

-- a wasteful one: each finding once
SELECT docmodel.create_collection('waste', 'user', meta_style => 'underscore') IS NOT NULL AS created;
INSERT INTO waste (id, doc)
SELECT 'user::' || i, jsonb_build_object(
    'name', 'N' || i,
    'nickname', CASE WHEN i % 2 = 0 THEN NULL ELSE 'x' END,          -- null half the time
    'notes', '',                                                   -- always empty
    'created_at_timestamp_of_the_account', '2024-01-02T03:04:05Z', -- ISO date, long name
    'guid', '0f8fad5b-d9cb-469f-a165-70867728950e',                 -- dashed GUID
    'lastLogin', 5, 'login_count', 7,                               -- mixed naming
    'select', true,                                                 -- reserved word
    'self_key', 'user::' || i,                                      -- the key in the body
    'events', (SELECT jsonb_agg(jsonb_build_object('kind', 'click', 'n', j)) FROM generate_series(1, i % 60 + 1) j),
    'blob', CASE WHEN i % 50 = 0 THEN repeat('z', 3000) END)
FROM generate_series(1, 200) i;
-- documents of a second schema version; one without a type field (written with the trigger
-- off, as an import might be)
UPDATE waste SET doc = doc || '{"_schema": "2.0"}' WHERE id IN ('user::1', 'user::2');
ALTER TABLE waste DISABLE TRIGGER USER;
UPDATE waste SET doc = doc - '_type' WHERE id = 'user::3';
ALTER TABLE waste ENABLE TRIGGER USER;
SELECT "check", severity, path, detail, bytes_saved > 0 AS saves FROM docmodel.advise('waste')
ORDER BY "check", path;
-- bytes across the whole collection: a sample of 50 scales by 200 / 50
SELECT "check", path, bytes_saved FROM docmodel.advise('waste', 50) WHERE "check" IN ('dashed_guids', 'iso_dates')
ORDER BY 1;

-- a type other than the key's (a collection that does not check it)
SELECT docmodel.create_collection('loose', 'user', type_check => 'off') IS NOT NULL AS created;
INSERT INTO loose (id, doc) VALUES ('user::1', '{"_type": "admin"}'), ('user::2', '{}');
SELECT "check", detail FROM docmodel.advise('loose');

-- names N1QL must quote: the guides' region-number and sub-region
SELECT docmodel.create_collection('quoted') IS NOT NULL AS quoted;
INSERT INTO quoted (id, doc) VALUES ('c::1', '{"region-number": 1, "sub-region": "x", "2nd": true, "plain_name": 1, "dotted.name": 2}');
SELECT "check", severity, path, detail FROM docmodel.advise('quoted') WHERE "check" = 'quoted_name' ORDER BY path;

-- errors
SELECT pg_temp.try($$SELECT * FROM docmodel.advise('waste', 0)$$);
CREATE TABLE plain_t (id text);
SELECT pg_temp.try($$SELECT * FROM docmodel.advise('plain_t')$$);
CREATE ROLE advise_other;
GRANT USAGE ON SCHEMA docmodel TO advise_other;
SET ROLE advise_other;
SELECT pg_temp.try($$SELECT * FROM docmodel.advise('waste')$$);
RESET ROLE;
REVOKE ALL ON SCHEMA docmodel FROM advise_other;
DROP ROLE advise_other;
-- leave no collection behind for the tests after this one
SELECT docmodel.drop_collection(c) FROM unnest('{tidy,waste,loose,quoted}'::regclass[]) c;
DROP TABLE plain_t;
