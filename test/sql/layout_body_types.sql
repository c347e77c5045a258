-- A Couchbase bucket as it is: keys without a type part
-- (21st_amendment_brewery_cafe-21a_ipa, airline_10), the type in the body
-- ("type": "beer"), several types in one collection. create_collection's
-- types (with type_part 0) reads each document's type from its body's type
-- field and refuses a write without one or with a type not listed; every
-- concern after the trigger (get, migrations on read and write,
-- migration_plan, migrate_collection, validation, advise) finds the type
-- there. Data: test/data/ (a slice of beer-sample and travel-sample).
\i test/sql/include/try.sql
SET client_min_messages = warning;

CREATE TEMP TABLE raw (id text, doc jsonb);
\copy raw FROM 'test/data/beer-sample.tsv'
\copy raw FROM 'test/data/travel-sample.tsv'

\echo == without types the whole key is taken for the type
SELECT docmodel.create_collection('bucket0') IS NOT NULL;
INSERT INTO bucket0 SELECT id, doc, 0 FROM raw WHERE id = 'airline_10';
SELECT doc->>'_type' AS stamped_type, doc->>'type' AS body_type FROM bucket0_documents;
SELECT pg_temp.try($$SELECT docmodel.create_collection('bucket1', type_part => 0)$$);
SELECT docmodel.drop_collection('bucket0');

\echo == bad types
SELECT pg_temp.try($$SELECT docmodel.create_collection('b', types => ARRAY['beer'])$$);
SELECT pg_temp.try($$SELECT docmodel.create_collection('b', type_part => 0, doc_type => 'beer', types => ARRAY['beer'])$$);
SELECT pg_temp.try($$SELECT docmodel.create_collection('b', type_part => 0, types => '{}')$$);
SELECT pg_temp.try($$SELECT docmodel.create_collection('b', type_part => 0, types => ARRAY['beer', NULL])$$);
SELECT pg_temp.try($$SELECT docmodel.create_collection('b', type_part => 0, types => ARRAY['beer', ''])$$);
SELECT pg_temp.try($$SELECT docmodel.create_collection('b', type_part => 0, types => ARRAY[['a'], ['b']])$$);
SELECT pg_temp.try($$SELECT docmodel.create_collection('b', type_part => 0, types => ARRAY[repeat('x', 251)])$$);
SELECT pg_temp.try($$SELECT docmodel.create_collection('b', type_part => 0, types => ARRAY['beer'], meta_style => 'xattrs')$$);
SELECT to_regclass('b') IS NULL AS nothing_created;

\echo == beer-sample: breweries and beers in one collection, the type field "type"
SELECT docmodel.create_collection('beer_sample', type_part => 0,
  types => ARRAY['beer', 'brewery'], fields => '{"type": "type"}') IS NOT NULL;
SELECT collection, type_part, doc_type, types FROM docmodel.collections
WHERE collection = 'beer_sample'::regclass;
INSERT INTO beer_sample SELECT id, doc, 0 FROM raw WHERE doc->>'type' IN ('beer', 'brewery');
SELECT doc->>'type' AS type, count(*) AS docs, min(id) AS first_key, bool_and(doc->>'_ver' = '1') AS ver_1,
       bool_or(doc ? '_type') AS any__type
FROM beer_sample_documents GROUP BY 1 ORDER BY 1;
SELECT id, doc->>'type' AS type, doc->>'name' AS name FROM beer_sample
WHERE id LIKE '21st_amendment_brewery_cafe%' ORDER BY id LIMIT 4;
SELECT docmodel.get('beer_sample', '21st_amendment_brewery_cafe-21a_ipa')->>'abv' AS abv;
SELECT docmodel.meta('beer_sample', '21st_amendment_brewery_cafe')->>'type' AS meta_type;

\echo == refused: no type, a type not a string or empty, a type the collection does not hold
SELECT pg_temp.try($$SELECT docmodel.upsert('beer_sample', 'anchor_brewing', '{"name": "Anchor"}')$$);
SELECT pg_temp.try($$SELECT docmodel.upsert('beer_sample', 'anchor_brewing', '{"name": "Anchor", "type": 1}')$$);
SELECT pg_temp.try($$SELECT docmodel.upsert('beer_sample', 'anchor_brewing', '{"name": "Anchor", "type": ""}')$$);
SELECT pg_temp.try($$SELECT docmodel.upsert('beer_sample', 'airline_10', '{"name": "40-Mile Air", "type": "airline"}')$$);
SELECT pg_temp.try($$SELECT docmodel.upsert('beer_sample', 'anchor_brewing', '{"name": "Anchor", "type": "Brewery"}')$$);
-- an update that drops the type, or changes it to another allowed one
SELECT pg_temp.try($$UPDATE beer_sample SET doc = doc - 'type' WHERE id = '21st_amendment_brewery_cafe-potrero_esb'$$);
SELECT pg_temp.try($$SELECT docmodel.mutate_in('beer_sample', '21st_amendment_brewery_cafe-potrero_esb', '[{"op": "upsert", "path": "type", "value": "brewery"}]')$$);
SELECT doc->>'type' FROM beer_sample WHERE id = '21st_amendment_brewery_cafe-potrero_esb';
UPDATE beer_sample SET doc = doc || '{"type": "beer"}' WHERE id = '21st_amendment_brewery_cafe-potrero_esb';
-- a key that would have no type part anywhere is fine: the key is only a key
SELECT docmodel.insert('beer_sample', 'anchor_brewing', '{"name": "Anchor Brewing", "type": "brewery"}') > 0 AS inserted;

\echo == migrations look rules up under the type in the body: beer 1 -> 2 renames abv, breweries untouched
UPDATE beer_sample SET doc = doc || '{"_schema": "1"}';
SELECT docmodel.register_migration('beer', '1', '2', steps => '[{"op": "move", "from": "/abv", "path": "/alcohol"}]');
-- on read
SELECT docmodel.get('beer_sample', '21st_amendment_brewery_cafe-21a_ipa') - 'description' - '_created' - '_modified' - '_createdBy' - '_modifiedBy' AS beer;
SELECT docmodel.get('beer_sample', '21st_amendment_brewery_cafe')->>'_schema' AS brewery_schema;
-- the dry run and its validation
SELECT docmodel.register_schema('beer', '2', '{"required": ["alcohol", "brewery_id"]}');
SELECT doc_type, version, docs, target, steps FROM docmodel.migration_plan('beer_sample') ORDER BY 1, 2;
SELECT doc_type, version, docs, invalid FROM docmodel.migration_plan('beer_sample', validate => true) ORDER BY 1, 2;
-- validation of a stored document by its collection
SELECT docmodel.validate(docmodel.get('beer_sample', '21st_amendment_brewery_cafe-north_star_red'), 'beer_sample');
-- on write: a beer at version 1 is migrated before it is stored, and validated at 2
SELECT docmodel.upsert('beer_sample', 'anchor_brewing-liberty_ale', '{"name": "Liberty Ale", "type": "beer", "_schema": "1", "abv": 6.0, "brewery_id": "anchor_brewing"}') > 0 AS written;
SELECT doc->>'alcohol' AS alcohol, doc->>'_schema' AS schema FROM beer_sample_documents WHERE id = 'anchor_brewing-liberty_ale';
SELECT pg_temp.try($$SELECT docmodel.upsert('beer_sample', 'anchor_brewing-steam', '{"name": "Steam", "type": "beer", "_schema": "2"}')$$);
-- in bulk
CALL docmodel.migrate_collection('beer_sample');
SELECT doc->>'type' AS type, doc->>'_schema' AS schema, doc ? 'alcohol' AS alcohol, count(*) AS docs
FROM beer_sample_documents GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;
SELECT doc_type, version, docs, target, steps FROM docmodel.migration_plan('beer_sample') ORDER BY 1, 2;
-- advise finds nothing mistyped
SELECT "check", detail FROM docmodel.advise('beer_sample') WHERE "check" IN ('type_missing', 'type_mismatch');

\echo == travel-sample: airlines and airports, plain meta style, case_insensitive
SELECT docmodel.create_collection('travel_sample', meta_style => 'plain', type_part => 0,
  types => ARRAY['airline', 'airport'], type_check => 'case_insensitive') IS NOT NULL;
INSERT INTO travel_sample SELECT id, doc, 0 FROM raw WHERE doc->>'type' IN ('airline', 'airport');
SELECT id, doc->>'type' AS type, doc->>'ver' AS ver FROM travel_sample ORDER BY id;
SELECT docmodel.upsert('travel_sample', 'airline_1191', '{"id": 1191, "name": "Air Austral", "type": "Airline"}') > 0 AS folded;
SELECT doc->>'type' FROM travel_sample WHERE id = 'airline_1191';
SELECT pg_temp.try($$SELECT docmodel.upsert('travel_sample', 'hotel_10025', '{"type": "hotel"}')$$);
-- type_check off: any type, but one there is
SELECT docmodel.create_collection('anything', type_part => 0, types => ARRAY['x'], type_check => 'off') IS NOT NULL;
SELECT docmodel.upsert('anything', 'k', '{"_type": "whatever"}') > 0 AS any_type;
SELECT pg_temp.try($$SELECT docmodel.upsert('anything', 'k2', '{}')$$);

\echo == the configuration refuses an inconsistent layout, whoever writes it
SELECT split_part(pg_temp.try($$SELECT docmodel._config_set_layout('anything', 0, 'exact', NULL, NULL)$$), ' (', 1) AS refused;
SELECT split_part(pg_temp.try($$SELECT docmodel._config_set_layout('anything', 1, 'exact', NULL, ARRAY['x'])$$), ' (', 1) AS refused;
SELECT split_part(pg_temp.try($$SELECT docmodel._config_set_layout('anything', 0, 'exact', NULL, ARRAY[NULL])$$), ' (', 1) AS refused;

-- the bulk runs this test made, gone (later tests count the runs)
DELETE FROM docmodel.migration_run WHERE coll IN ('beer_sample'::regclass);
SELECT setval(pg_get_serial_sequence('docmodel.migration_run', 'run_id'),
  COALESCE((SELECT max(run_id) FROM docmodel.migration_run), 0) + 1, false) > 0 AS run_ids_reset;
SELECT docmodel.drop_collection('beer_sample');
SELECT docmodel.drop_collection('travel_sample');
SELECT docmodel.drop_collection('anything');
DELETE FROM docmodel.schemas WHERE doc_type = 'beer';
DELETE FROM docmodel.migration_rules WHERE doc_type = 'beer';
