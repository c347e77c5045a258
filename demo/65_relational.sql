\echo
\echo '--- From tables to documents ------------------------------------------'
\echo 'The Cosmos DB example: a person, contact details and addresses in four tables.'
CREATE TABLE tour_person (id integer PRIMARY KEY, first_name text NOT NULL, last_name text NOT NULL);
CREATE TABLE tour_contact_type (id integer PRIMARY KEY, name text NOT NULL);
CREATE TABLE tour_contact (id integer PRIMARY KEY, person_id integer NOT NULL REFERENCES tour_person,
    type_id integer REFERENCES tour_contact_type, value text NOT NULL);
CREATE TABLE tour_address (id integer PRIMARY KEY, person_id integer NOT NULL REFERENCES tour_person,
    city text NOT NULL, since date);
INSERT INTO tour_person VALUES (1, 'Thomas', 'Andersen'), (2, 'Ann', 'Lee');
INSERT INTO tour_contact_type VALUES (1, 'email'), (2, 'phone');
INSERT INTO tour_contact VALUES (10, 1, 1, 'thomas@andersen.com'), (11, 1, 2, '+1 555 555-5555');
INSERT INTO tour_address VALUES (20, 1, 'Seattle', '2020-01-01'), (21, 1, 'Boston', '2010-01-01'),
    (22, 2, 'Berlin', NULL);

\echo 'A mapping, as data: addresses newest first, contacts with their type embedded.'
SELECT docmodel.create_mapping('tour_people_map', 'tour_person', 'person');
SELECT docmodel.map_embed_array('tour_people_map', 'tour_address', 'addresses', order_by => 'since DESC NULLS LAST');
SELECT docmodel.map_embed_array('tour_people_map', 'tour_contact', 'contacts', order_by => 'id');
SELECT docmodel.map_embed_object('tour_people_map', 'tour_contact_type', 'type', under => 'tour_contact');
SELECT docmodel.map_rename('tour_people_map', 'tour_person', 'first_name', 'firstName');
SELECT docmodel.map_rename('tour_people_map', 'tour_person', 'last_name', 'lastName');
SELECT docmodel.map_exclude('tour_people_map', t, c)
FROM (VALUES ('tour_address'::regclass, 'person_id'::name), ('tour_contact', 'person_id'),
             ('tour_contact', 'type_id')) AS x(t, c);
SELECT key, jsonb_pretty(doc) FROM docmodel.denormalize('tour_people_map') WHERE key = 'person::1';

\echo 'Copied into a collection (through its trigger), then kept in step with the tables:'
SELECT docmodel.create_collection('tour_persons', 'person') IS NOT NULL AS created;
CALL docmodel.migrate_tables('tour_people_map', 'tour_persons');
SELECT docmodel.project_tables('tour_people_map', 'tour_persons');
INSERT INTO tour_contact VALUES (12, 2, 1, 'ann@lee.org');
\echo 'A contact detail inserted into its table is in Ann''s document at once (and only hers changed):'
SELECT id, doc->>'_ver' AS ver, doc->'contacts' AS contacts FROM tour_persons ORDER BY id;
SELECT docmodel.stop_projection('tour_people_map');

\echo 'References: beers hold their brewery''s key; embed resolves it, dangling_refs finds broken ones.'
SELECT docmodel.create_collection('tour_breweries', 'brewery') IS NOT NULL AS created;
SELECT docmodel.insert('tour_breweries', 'brewery::1', '{"name": "Anchor"}') > 0 AS stored;
SELECT docmodel.embed('{"name": "Liberty Ale", "brewery": "brewery::1"}', '{brewery}', 'tour_breweries')
    #> '{brewery,name}' AS brewery_name;

\echo 'N1QL''s states, epochs and compact:'
SELECT docmodel.is_missing('{"a": null}', 'a') AS missing, docmodel.is_null('{"a": null}', 'a') AS is_null,
       docmodel.to_epoch('2024-01-02T03:04:05Z', 's') AS epoch_s;
SELECT docmodel.compact('{"a": null, "tags": [], "at": "2024-01-02", "id": "0f8fad5b-d9cb-469f-a165-70867728950e"}',
    '{"dates": "s", "guids": true}') AS compacted;

\echo 'A lookup by customer number: lookup documents kept beside the documents.'
SELECT docmodel.create_collection('tour_customers') IS NOT NULL AS created;
SELECT docmodel.insert('tour_customers', 'user::mmustermann@domain.com',
    '{"name": "Max Mustermann", "customer_no": 12345}') > 0 AS stored;
SELECT docmodel.create_lookup('tour_customers', 'customer_ref', '{customer_no}') AS indexed;
SELECT id, doc->>'ref' AS ref FROM tour_customers WHERE id LIKE 'customer_ref::%';
SELECT docmodel.get_by('tour_customers', 'customer_ref', '12345')->>'name' AS customer;

\echo 'advise on a wasteful collection, with the bytes each change would save:'
SELECT docmodel.create_collection('tour_waste', 'event') IS NOT NULL AS created;
INSERT INTO tour_waste (id, doc)
SELECT 'event::' || i, jsonb_build_object('occurred_at_timestamp_utc', '2024-01-02T03:04:05Z',
    'session_guid', '0f8fad5b-d9cb-469f-a165-70867728950e', 'comment', NULL, 'tags', '[]'::jsonb)
FROM generate_series(1, 1000) i;
SELECT "check", path, bytes_saved FROM docmodel.advise('tour_waste') ORDER BY bytes_saved DESC, path;
