\echo
\echo '--- A Couchbase bucket as it is ------------------------------------------'
\echo 'A slice of Couchbase''s beer-sample and travel-sample buckets (test/data/),'
\echo 'with their own keys: 21st_amendment_brewery_cafe-21a_ipa, airline_10. The'
\echo 'keys carry no type; the body does ("type": "beer"), and one bucket holds'
\echo 'several types. type_part => 0 with types reads each document''s type from'
\echo 'its type field and refuses a write without one or with another type.'
SELECT docmodel.create_collection('beer_sample', type_part => 0,
  types => ARRAY['beer', 'brewery'], fields => '{"type": "type"}') AS collection;
CREATE TEMP TABLE bucket_slice (id text, doc jsonb);
\copy bucket_slice FROM 'test/data/beer-sample.tsv'
\copy bucket_slice FROM 'test/data/travel-sample.tsv'
INSERT INTO beer_sample SELECT id, doc, 0 FROM bucket_slice WHERE doc->>'type' IN ('beer', 'brewery');
SELECT id, doc->>'type' AS type, doc->>'name' AS name FROM beer_sample ORDER BY id;
\echo 'An airline written to it would be refused (23514: document type "airline" is'
\echo 'not a type of collection "beer_sample").'
\echo 'Migrations find the type there too: a rule for beers leaves breweries alone,'
\echo 'registered inactive first and checked with migration_plan, then switched on.'
SELECT docmodel.register_migration('beer', '1', '2', steps => '[
  {"op": "move", "from": "/abv", "path": "/alcohol"}]', coll => 'beer_sample', active => false);
UPDATE beer_sample SET doc = doc || '{"_schema": "1"}';
SELECT doc_type, version, docs, target, steps FROM docmodel.migration_plan('beer_sample');
SELECT docmodel.set_migration_active('beer', '1', true, 'beer_sample');
SELECT docmodel.get('beer_sample', '21st_amendment_brewery_cafe-21a_ipa')->'alcohol' AS alcohol;
\echo 'Keys for new documents, in the bucket''s own spelling (delimiter -):'
SELECT docmodel.create_collection('beer_keys', type_part => 0, types => ARRAY['beer'], delimiter => '-') AS collection;
SELECT docmodel.next_key_in('beer_keys', 'beer', 'anchor_brewing') AS key;
