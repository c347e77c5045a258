-- Lookups limited to one document type, and lookup documents kept in a
-- collection of their own
\i test/sql/include/try.sql
SET client_min_messages = warning;

-- travel-sample's keys: airline_10, airport_1254; an airline and an
-- airport with the same ICAO code
SELECT docmodel.create_collection('travel', delimiter => '_') IS NOT NULL AS created;
INSERT INTO travel (id, doc) VALUES
    ('airline_10', '{"name": "40-Mile Air", "icao": "MLA"}'),
    ('airline_137', '{"name": "Air France", "icao": "AFR"}'),
    ('airport_1254', '{"airportname": "Calais Dunkerque", "icao": "LFAC"}'),
    ('airport_9999', '{"airportname": "Homonym", "icao": "MLA"}');
-- over every type the code is taken twice
SELECT pg_temp.try($$SELECT docmodel.create_lookup('travel', 'icao', '{icao}')$$);
-- airports only
SELECT docmodel.create_lookup('travel', 'icao', '{icao}', doc_type => 'airport');
SELECT id, doc->>'ref' AS ref FROM travel WHERE id LIKE 'icao\_%' ORDER BY id;
SELECT docmodel.get_by('travel', 'icao', 'MLA')->>'airportname' AS airport;
SELECT docmodel.get_by('travel', 'icao', 'AFR') AS airline_not_indexed;
-- the trigger keeps airports only
INSERT INTO travel (id, doc) VALUES ('airline_20', '{"name": "Other", "icao": "LFAC"}');
INSERT INTO travel (id, doc) VALUES ('airport_77', '{"airportname": "New", "icao": "NEW1"}');
SELECT pg_temp.try($$INSERT INTO travel (id, doc) VALUES ('airport_78', '{"icao": "NEW1"}')$$);
UPDATE travel SET doc = '{"airportname": "New", "icao": "NEW2"}' WHERE id = 'airport_77';
SELECT id, doc->>'ref' AS ref FROM travel WHERE id LIKE 'icao\_%' ORDER BY id;
SELECT docmodel.drop_lookup('travel', 'icao');

-- lookup documents in a collection of their own: none among the documents
SELECT docmodel.create_collection('travel_lookups', delimiter => ':') IS NOT NULL AS created;
SELECT docmodel.create_lookup('travel', 'airline_icao', '{icao}', doc_type => 'airline',
    lookup_coll => 'travel_lookups');
SELECT docmodel.create_lookup('travel', 'airport_icao', '{icao}', 'airport', 'travel_lookups');
SELECT id, doc->>'ref' AS ref FROM travel_lookups ORDER BY id;
SELECT count(*) AS lookup_docs_in_travel FROM travel WHERE doc ? 'ref';
SELECT docmodel.get_by('travel', 'airline_icao', 'MLA')->>'name' AS airline,
       docmodel.get_by('travel', 'airport_icao', 'MLA')->>'airportname' AS airport;
INSERT INTO travel (id, doc) VALUES ('airline_30', '{"name": "Third", "icao": "THD"}');
DELETE FROM travel WHERE id = 'airline_10';
SELECT id, doc->>'ref' AS ref FROM travel_lookups WHERE id LIKE 'airline%' ORDER BY id;
SELECT pg_temp.try($$INSERT INTO travel (id, doc) VALUES ('airline_31', '{"icao": "THD"}')$$);
SELECT docmodel._lookup_coll('travel', 'airline_icao'), docmodel._lookup_coll('travel', 'nope') IS NULL AS none;
SELECT docmodel.drop_lookup('travel', 'airline_icao');
SELECT id FROM travel_lookups ORDER BY id;

-- a collection per type (doc_type airport) can have a lookup whose
-- documents live elsewhere; beside its documents they are refused
SELECT docmodel.create_collection('airports', 'airport') IS NOT NULL AS created;
INSERT INTO airports (id, doc) VALUES ('airport::1', '{"faa": "CQF"}');
SELECT pg_temp.try($$SELECT docmodel.create_lookup('airports', 'faa', '{faa}')$$);
SELECT docmodel.create_lookup('airports', 'faa', '{faa}', lookup_coll => 'travel_lookups');
SELECT docmodel.get_by('airports', 'faa', 'CQF')->>'faa' AS faa;
-- a lookup collection must take documents of the lookup's type
SELECT pg_temp.try($$SELECT docmodel.create_lookup('travel', 'x', '{icao}', lookup_coll => 'airports')$$);
SELECT docmodel.create_collection('keyed_by_part_2', delimiter => ':', type_part => 2) IS NOT NULL AS created;
SELECT pg_temp.try($$SELECT docmodel.create_lookup('travel', 'x', '{icao}', lookup_coll => 'keyed_by_part_2')$$);
CREATE TABLE plain (id text PRIMARY KEY, doc jsonb);
SELECT pg_temp.try($$SELECT docmodel.create_lookup('travel', 'x', '{icao}', lookup_coll => 'plain')$$);
SELECT pg_temp.try($$SELECT docmodel.create_lookup('travel', 'x', '{icao}', doc_type => '')$$);

-- the lookup collection is written as the writer: INSERT and DELETE on it
CREATE ROLE lookup_writer;
GRANT SELECT, INSERT, UPDATE, DELETE ON airports TO lookup_writer;
SET ROLE lookup_writer;
SELECT pg_temp.try($$INSERT INTO airports (id, doc) VALUES ('airport::2', '{"faa": "XYZ"}')$$);
RESET ROLE;
GRANT SELECT, INSERT, DELETE ON travel_lookups TO lookup_writer;
SET ROLE lookup_writer;
SELECT pg_temp.try($$INSERT INTO airports (id, doc) VALUES ('airport::2', '{"faa": "XYZ"}')$$);
RESET ROLE;
-- dropped lookup collection: the trigger says so
SELECT docmodel.create_collection('gone_lookups') IS NOT NULL AS created;
SELECT docmodel.create_lookup('airports', 'gone', '{faa}', lookup_coll => 'gone_lookups');
DROP TABLE gone_lookups CASCADE;
SELECT pg_temp.try($$INSERT INTO airports (id, doc) VALUES ('airport::3', '{"faa": "GON"}')$$);
SELECT docmodel.drop_lookup('airports', 'gone');

-- without a lookup of that name, get_by reads lookup documents written by
-- hand in the collection itself
INSERT INTO travel (id, doc) VALUES ('email_ann@x.org', '{"ref": "airline_137"}');
SELECT docmodel.get_by('travel', 'email', 'ann@x.org')->>'name' AS by_hand;
SELECT docmodel.get_by('travel', 'email', 'nobody') IS NULL AS none;
SELECT pg_temp.try($$SELECT docmodel.get_by('plain', 'email', 'x')$$);
SELECT pg_temp.try($$SELECT docmodel.get_by(0, 'email', 'x')$$);
SELECT pg_temp.try($$SELECT docmodel._lookup_coll(0, 'email')$$);

DROP TABLE plain;
DROP TABLE airports, travel, travel_lookups, keyed_by_part_2 CASCADE;
REVOKE ALL ON SCHEMA public FROM lookup_writer;
DROP ROLE lookup_writer;
