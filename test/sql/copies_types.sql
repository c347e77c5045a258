-- An aggregate of one document type: in beer-sample's one-bucket layout
-- (breweries and beers in one collection, typed from the body) the breweries
-- count their beers and no beer gets a count; the same with types in keys.
\i test/sql/include/try.sql
SET client_min_messages = warning;
SELECT docmodel.create_collection('ct_bucket', type_part => 0, delimiter => '-',
    types => ARRAY['beer', 'brewery'], fields => '{"type": "type"}') IS NOT NULL AS bucket;
INSERT INTO ct_bucket (id, doc) VALUES
    ('21st_amendment_brewery_cafe', '{"type": "brewery", "name": "21st Amendment"}'),
    ('3_fonteinen', '{"type": "brewery", "name": "3 Fonteinen"}'),
    ('21st_amendment_brewery_cafe-21a_ipa', '{"type": "beer", "brewery_id": "21st_amendment_brewery_cafe", "abv": 7.2}'),
    ('21st_amendment_brewery_cafe-watermelon', '{"type": "beer", "brewery_id": "21st_amendment_brewery_cafe", "abv": 5.1}'),
    ('3_fonteinen-oude_geuze', '{"type": "beer", "brewery_id": "3_fonteinen", "abv": 6.0}');
-- the first fill writes the breweries alone
SELECT docmodel.create_aggregate('ct_bucket', '/beer_count', 'ct_bucket', '/brewery_id', 'count',
    doc_type => 'brewery') AS filled;
SELECT docmodel.create_aggregate('ct_bucket', '/strongest', 'ct_bucket', '/brewery_id', 'max:/abv',
    doc_type => 'brewery') AS filled;
SELECT id, doc->'beer_count' AS beer_count, doc->'strongest' AS strongest FROM ct_bucket ORDER BY id;
SELECT doc_type FROM docmodel.copy_rules WHERE coll = 'ct_bucket'::regclass ORDER BY id;
-- writes keep them: a new beer, a beer moved, a new brewery, a beer deleted
INSERT INTO ct_bucket (id, doc) VALUES ('3_fonteinen-framboos', '{"type": "beer", "brewery_id": "3_fonteinen", "abv": 5.0}');
UPDATE ct_bucket SET doc = jsonb_set(doc, '{abv}', '9.9') WHERE id = '3_fonteinen-framboos';
UPDATE ct_bucket SET doc = jsonb_set(doc, '{brewery_id}', '"3_fonteinen"') WHERE id = '21st_amendment_brewery_cafe-watermelon';
INSERT INTO ct_bucket (id, doc) VALUES ('new_brewery', '{"type": "brewery", "name": "New"}'),
    ('new_brewery-first', '{"type": "beer", "brewery_id": "new_brewery", "abv": 4.0}');
DELETE FROM ct_bucket WHERE id = '21st_amendment_brewery_cafe-21a_ipa';
SELECT id, doc->'beer_count' AS beer_count, doc->'strongest' AS strongest FROM ct_bucket ORDER BY id;
-- a beer naming a beer as its brewery gives that beer no count
INSERT INTO ct_bucket (id, doc) VALUES ('odd-beer', '{"type": "beer", "brewery_id": "3_fonteinen-oude_geuze", "abv": 1}');
SELECT doc ? 'beer_count' AS counted FROM ct_bucket WHERE id = '3_fonteinen-oude_geuze';
-- refresh computes the same, and touches no beer
UPDATE ct_bucket SET doc = doc - 'beer_count' WHERE doc->>'type' = 'brewery';
SELECT docmodel.refresh_aggregate('ct_bucket', '/beer_count') AS refreshed;
SELECT count(*) FILTER (WHERE doc ? 'beer_count') AS counted, count(*) FILTER (WHERE doc->>'type' = 'brewery') AS breweries
FROM ct_bucket;
SELECT pg_temp.try($$SELECT docmodel.create_aggregate('ct_bucket', '/x', 'ct_bucket', '/brewery_id', doc_type => '')$$);

-- types in keys (travel-sample): airlines count their routes
SELECT docmodel.create_collection('ct_travel', delimiter => '_') IS NOT NULL AS travel;
INSERT INTO ct_travel (id, doc) VALUES ('airline_10', '{"name": "40-Mile Air"}'), ('airport_1254', '{"name": "Calais"}'),
    ('route_1', '{"airline": "airline_10"}'), ('route_2', '{"airline": "airline_10"}'), ('route_3', '{"airline": "airport_1254"}');
SELECT docmodel.create_aggregate('ct_travel', '/routes', 'ct_travel', '/airline', 'count', doc_type => 'airline') AS filled;
INSERT INTO ct_travel (id, doc) VALUES ('route_4', '{"airline": "airline_10"}');
SELECT id, doc->'routes' AS routes FROM ct_travel ORDER BY id;
SELECT docmodel.drop_collection('ct_travel'), docmodel.drop_collection('ct_bucket');
