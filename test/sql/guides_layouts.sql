-- What the guides' layouts answered wrongly without an error: a numeric
-- reference embedded from a collection whose keys carry no type, a lookup
-- of one type in a body-typed collection (travel-sample's layout), and a
-- format_date write rule with an input template written twice; and a key
-- whose type prefix the body's type contradicts in a body-typed collection.
\i test/sql/include/try.sql
SET client_min_messages = warning;

\echo == embed follows the layout of the target: keys without a type are the id alone
-- the Cosmos DB article's stocks, keyed by their id (type_part 0)
SELECT docmodel.create_collection('gl_stocks', doc_type => 'stock', type_part => 0) IS NOT NULL AS stocks;
INSERT INTO gl_stocks (id, doc) VALUES ('1', '{"symbol": "zaza", "open": 1}'), ('2', '{"symbol": "xcxc", "open": 2}');
SELECT docmodel.embed('{"stockId": 1}', '{stockId}', 'gl_stocks', fields => '{symbol}') AS by_number,
       docmodel.embed('{"stockId": "2"}', '{stockId}', 'gl_stocks', fields => '{symbol}') AS by_key,
       docmodel.embed('{"stocks": [1, 2, 3]}', '{stocks}', 'gl_stocks', fields => '{symbol}') AS array_of_ids;
-- keys with their type first still get it
SELECT docmodel.create_collection('gl_typed_stocks', doc_type => 'stock', delimiter => '_') IS NOT NULL AS typed;
INSERT INTO gl_typed_stocks (id, doc) VALUES ('stock_1', '{"symbol": "zaza"}');
SELECT docmodel.embed('{"stockId": 1}', '{stockId}', 'gl_typed_stocks', fields => '{symbol}') AS typed_key;
-- the type in a later key part: an id cannot give the parts before it
SELECT docmodel.create_collection('gl_tenant_stocks', type_part => 2) IS NOT NULL AS tenant;
SELECT pg_temp.try($$SELECT docmodel.embed('{"stockId": 1}', '{stockId}', 'gl_tenant_stocks', key_type => 'stock')$$);

\echo == a lookup of one type in a body-typed collection indexes that type
-- travel-sample: keys airline_10, airport_1254; the type in the body's "type"
SELECT docmodel.create_collection('gl_travel', type_part => 0, delimiter => '_',
    types => ARRAY['airline', 'airport', 'lookup'], fields => '{"type": "type"}') IS NOT NULL AS travel;
SELECT docmodel.create_collection('gl_travel_lookups', delimiter => '_') IS NOT NULL AS lookups;
INSERT INTO gl_travel (id, doc) VALUES
    ('airline_10', '{"type": "airline", "name": "40-Mile Air", "icao": "MLA"}'),
    ('airline_137', '{"type": "airline", "name": "Air France", "icao": "AFR"}'),
    ('airport_1254', '{"type": "airport", "airportname": "Calais Dunkerque", "icao": "MLA"}');
SELECT docmodel.create_lookup('gl_travel', 'airline', '{icao}', doc_type => 'airline',
    lookup_coll => 'gl_travel_lookups') AS indexed;
SELECT id, doc->>'ref' AS ref FROM gl_travel_lookups ORDER BY id;
SELECT docmodel.get_by('gl_travel', 'airline', 'MLA')->>'name' AS mla,
       docmodel.get_by('gl_travel', 'airline', 'AFR')->>'name' AS afr;
-- the trigger keeps airlines only, by the type each version of a body says
INSERT INTO gl_travel (id, doc) VALUES ('airline_20', '{"type": "airline", "name": "Other", "icao": "OTH"}'),
    ('airport_77', '{"type": "airport", "airportname": "New", "icao": "NEW"}');
UPDATE gl_travel SET doc = '{"type": "airport", "airportname": "Was an airline", "icao": "AFR"}' WHERE id = 'airline_137';
SELECT id, doc->>'ref' AS ref FROM gl_travel_lookups ORDER BY id;
-- lookup documents beside the documents need keys with their type first
SELECT pg_temp.try($$SELECT docmodel.create_lookup('gl_travel', 'lookup', '{icao}', doc_type => 'airport')$$);

\echo == a key that starts with a type of a body-typed collection names that type
-- beer-sample's layout typed from the body: beer_My_Brew typed brewery was stored
SELECT docmodel.create_collection('gl_beers', type_part => 0, delimiter => '_',
    types => ARRAY['beer', 'brewery'], fields => '{"type": "type"}') IS NOT NULL AS beers;
SELECT pg_temp.try($$INSERT INTO gl_beers VALUES ('beer_My_Brew', '{"type": "brewery", "name": "My Brew"}')$$);
INSERT INTO gl_beers VALUES ('beer_Hoptimus_Prime', '{"type": "beer"}'),
    ('21st_amendment_brewery_cafe', '{"type": "brewery"}'), ('brewery_x', '{"type": "brewery"}');
SELECT pg_temp.try($$UPDATE gl_beers SET doc = '{"type": "brewery"}' WHERE id = 'beer_Hoptimus_Prime'$$);
SELECT pg_temp.try($$SELECT docmodel.upsert('gl_beers', 'brewery_y', '{"type": "beer"}')$$);
SELECT id, doc->>'type' AS type FROM gl_beers ORDER BY id;
-- with type_check off the body's type is not checked against anything
SELECT docmodel.create_collection('gl_loose', type_part => 0, delimiter => '_', type_check => 'off',
    types => ARRAY['beer'], fields => '{"type": "type"}') IS NOT NULL AS loose;
INSERT INTO gl_loose VALUES ('beer_1', '{"type": "brewery"}');
SELECT id, doc->>'type' AS type FROM gl_loose;

\echo == a format_date write rule with an input template accepts its own output
SELECT docmodel.create_collection('gl_events') IS NOT NULL AS events;
SELECT docmodel.register_write_rule('gevent', '[{"op": "format_date", "path": "/when",
    "input": "DD/MM/YYYY", "format": "date", "missing": "skip"}]', 'gl_events');
INSERT INTO gl_events (id, doc) VALUES ('gevent::1', '{"when": "14/12/2018"}');
UPDATE gl_events SET doc = doc || '{"seen": true}' WHERE id = 'gevent::1';
SELECT docmodel.mutate_in('gl_events', 'gevent::1', '[{"op": "upsert", "path": "n", "value": 1}]') IS NOT NULL AS mutated;
UPDATE gl_events SET doc = jsonb_set(doc, '{when}', '"01/02/2019"') WHERE id = 'gevent::1';
SELECT id, doc->>'when' AS "when", doc->>'_ver' AS ver FROM gl_events;
-- a value that is neither the template's nor ISO 8601 is still refused
SELECT pg_temp.try($$UPDATE gl_events SET doc = jsonb_set(doc, '{when}', '"Dec 14 2018"')$$);
SELECT docmodel.drop_write_rule('gevent', 'gl_events');
SELECT docmodel.drop_collection(c) FROM unnest(ARRAY['gl_loose', 'gl_beers', 'gl_events', 'gl_travel', 'gl_travel_lookups',
    'gl_tenant_stocks', 'gl_typed_stocks', 'gl_stocks']) AS c;
