-- From tables to documents: mappings, denormalize
\i test/sql/include/try.sql
SET client_min_messages = warning;

-- The Cosmos DB example: a person with contact details and addresses in
-- four tables
CREATE TABLE person (id integer PRIMARY KEY, first_name text NOT NULL, last_name text NOT NULL,
    born date, secret text);
CREATE TABLE contact_detail_type (id integer PRIMARY KEY, name text NOT NULL);
CREATE TABLE contact_detail (id integer PRIMARY KEY, person_id integer NOT NULL REFERENCES person,
    type_id integer REFERENCES contact_detail_type, value text NOT NULL);
CREATE TABLE address (id integer PRIMARY KEY, person_id integer NOT NULL REFERENCES person,
    street text, city text NOT NULL, since date);
-- 1:1: the person's details keyed by the person
CREATE TABLE person_details (person_id integer PRIMARY KEY REFERENCES person, shoe_size numeric);
INSERT INTO person VALUES (1, 'Thomas', 'Andersen', '1980-05-01', 's1'), (2, 'Ann', 'Lee', NULL, 's2'),
    (3, 'No', 'Children', NULL, NULL);
INSERT INTO contact_detail_type VALUES (1, 'email'), (2, 'phone');
INSERT INTO contact_detail VALUES (10, 1, 1, 'thomas@andersen.com'), (11, 1, 2, '+1 555 555-5555'),
    (12, 2, 1, 'ann@lee.org'), (13, 1, NULL, 'pager 42');
INSERT INTO address VALUES (20, 1, '1 Main St', 'Seattle', '2020-01-01'),
    (21, 1, '2 Side St', 'Portland', '2015-01-01'), (22, 1, '3 Old Rd', 'Boston', '2010-01-01'),
    (23, 2, NULL, 'Berlin', NULL);
INSERT INTO person_details VALUES (1, 44.5);

SELECT docmodel.create_mapping('people', 'person', 'person');
-- 1:many sorted and limited: the two latest addresses
SELECT docmodel.map_embed_array('people', 'address', 'addresses', order_by => 'since DESC NULLS LAST, id', max_items => 2);
SELECT docmodel.map_embed_array('people', 'contact_detail', 'contacts', order_by => 'id');
-- many:1 embedded (nested under the contact detail) and merged
SELECT docmodel.map_embed_object('people', 'contact_detail_type', 'kind', under => 'contact_detail');
-- 1:1 the other way round (person_details refers to person), merged into the person
SELECT docmodel.map_embed_object('people', 'person_details', merge => true);
-- renames and exclusions
SELECT docmodel.map_rename('people', 'person', 'first_name', 'firstName');
SELECT docmodel.map_rename('people', 'person', 'last_name', 'lastName');
SELECT docmodel.map_exclude('people', 'person', 'secret');
SELECT docmodel.map_exclude('people', 'address', 'person_id');
SELECT docmodel.map_exclude('people', 'contact_detail', 'person_id');
SELECT docmodel.map_exclude('people', 'contact_detail', 'type_id');
SELECT docmodel.map_exclude('people', 'person_details', 'person_id');
SELECT key, jsonb_pretty(doc) FROM docmodel.denormalize('people');

-- the mapping is data
SELECT name, root, doc_type, owner = current_user::regrole AS mine FROM docmodel.mappings;
SELECT under, field, tbl, spec->>'kind' AS kind, spec->'cols' AS cols, spec->'under_cols' AS under_cols
FROM docmodel.mapping_parts ORDER BY added;
SELECT tbl, col, new_name FROM docmodel.mapping_columns ORDER BY tbl::text, col;

-- many:1 referenced, many:many through a junction, composite keys
CREATE TABLE brewery (id integer PRIMARY KEY, name text NOT NULL);
CREATE TABLE beer (id integer PRIMARY KEY, name text NOT NULL, brewery_id integer REFERENCES brewery);
CREATE TABLE style (code text PRIMARY KEY);
CREATE TABLE beer_style (beer_id integer REFERENCES beer, style_code text REFERENCES style,
    PRIMARY KEY (beer_id, style_code));
INSERT INTO brewery VALUES (1, 'Anchor'), (2, 'Bell''s');
INSERT INTO beer VALUES (100, 'Liberty Ale', 1), (101, 'Two Hearted', 2), (102, 'Homebrew', NULL);
INSERT INTO style VALUES ('ipa'), ('ale'), ('lager');
INSERT INTO beer_style VALUES (100, 'ale'), (100, 'ipa'), (101, 'ipa');
SELECT docmodel.create_mapping('beers', 'beer');
SELECT docmodel.map_reference('beers', 'brewery', 'brewery');
SELECT docmodel.map_reference('beers', 'style', 'styles', via => 'beer_style');
SELECT key, doc FROM docmodel.denormalize('beers');

-- composite primary key: more key parts
CREATE TABLE student (id integer PRIMARY KEY, name text);
CREATE TABLE course (id integer PRIMARY KEY, title text);
CREATE TABLE enrollment (student_id integer REFERENCES student, course_id integer REFERENCES course,
    grade text, PRIMARY KEY (student_id, course_id));
INSERT INTO student VALUES (123, 'Kim');
INSERT INTO course VALUES (987, 'Databases'), (988, 'Compilers');
INSERT INTO enrollment VALUES (123, 987, 'A'), (123, 988, NULL);
SELECT docmodel.create_mapping('enrollments', 'enrollment');
SELECT docmodel.map_embed_object('enrollments', 'course', 'course');
SELECT docmodel.map_reference('enrollments', 'student', 'student');
SELECT key, doc FROM docmodel.denormalize('enrollments');

-- undeclared relationships: fk_columns given by hand
CREATE TABLE orders (id integer PRIMARY KEY, customer_no integer, total numeric);
CREATE TABLE customer (no integer PRIMARY KEY, name text);
CREATE TABLE order_line (order_id integer, line integer, item text, PRIMARY KEY (order_id, line));
INSERT INTO customer VALUES (7, 'ACME');
INSERT INTO orders VALUES (1, 7, 9.5), (2, NULL, 1);
INSERT INTO order_line VALUES (1, 1, 'bolt'), (1, 2, 'nut'), (2, 1, 'gear');
SELECT pg_temp.try($$SELECT docmodel.map_embed_array('x', 'order_line')$$);
SELECT docmodel.create_mapping('orders', 'orders', 'order');
SELECT pg_temp.try($$SELECT docmodel.map_embed_array('orders', 'order_line')$$);
SELECT docmodel.map_embed_array('orders', 'order_line', 'lines', fk_columns => '{order_id}', order_by => 'line');
SELECT docmodel.map_embed_object('orders', 'customer', 'customer', fk_columns => '{customer_no}');
SELECT key, doc FROM docmodel.denormalize('orders');

-- the whole foreign key graph: denormalize(root, doc_type, depth)
SELECT key, doc FROM docmodel.denormalize('brewery'::regclass);
SELECT key, doc FROM docmodel.denormalize('person'::regclass, 'person', 0) WHERE key = 'person::1';
SELECT key, jsonb_pretty(doc) FROM docmodel.denormalize('contact_detail_type'::regclass, depth => 2) WHERE key = 'contact_detail_type::1';

-- errors
SELECT pg_temp.try($$SELECT docmodel.create_mapping('people', 'person')$$);
CREATE TABLE nokey (a integer);
SELECT pg_temp.try($$SELECT docmodel.create_mapping('nk', 'nokey')$$);
SELECT pg_temp.try($$SELECT docmodel.create_mapping('bad type', 'person', 'a::b')$$);
SELECT pg_temp.try($$SELECT docmodel.map_embed_array('people', 'address', 'again')$$);
SELECT pg_temp.try($$SELECT docmodel.map_embed_array('people', 'brewery', 'x', under => 'beer')$$);
SELECT pg_temp.try($$SELECT docmodel.map_embed_array('people', 'order_line', 'l', fk_columns => '{order_id, line}')$$);
SELECT pg_temp.try($$SELECT docmodel.map_embed_array('people', 'order_line', 'l', fk_columns => '{nope}')$$);
SELECT pg_temp.try($$SELECT docmodel.map_embed_array('people', 'order_line', 'l', fk_columns => '{order_id}', order_by => 'line; DROP TABLE person')$$);
SELECT pg_temp.try($$SELECT docmodel.map_embed_array('people', 'order_line', 'l', fk_columns => '{order_id}', order_by => 'nope')$$);
SELECT pg_temp.try($$SELECT docmodel.map_embed_array('people', 'order_line', 'l', fk_columns => '{order_id}', max_items => 0)$$);
SELECT pg_temp.try($$SELECT docmodel.map_rename('people', 'person', 'nope', 'x')$$);
SELECT pg_temp.try($$SELECT docmodel.map_rename('people', 'person', 'born', '')$$);
SELECT pg_temp.try($$SELECT * FROM docmodel.denormalize('nope')$$);
SELECT pg_temp.try($$SELECT * FROM docmodel.denormalize('person'::regclass, depth => 33)$$);

-- privileges: a mapping is its owner's; reading goes through the caller's rights
CREATE ROLE rel_other;
GRANT USAGE ON SCHEMA docmodel TO rel_other;
SET ROLE rel_other;
SELECT pg_temp.try($$SELECT docmodel.map_exclude('people', 'person', 'born')$$);
SELECT pg_temp.try($$SELECT docmodel.drop_mapping('people')$$);
SELECT pg_temp.try($$SELECT docmodel.create_mapping('mine', 'person')$$);
SELECT pg_temp.try($$SELECT * FROM docmodel.denormalize('people')$$);
SELECT pg_temp.try($$INSERT INTO docmodel.mappings VALUES ('x', 'person', 'x', 'rel_other')$$);
SELECT pg_temp.try($$SELECT docmodel._mapping_write('part', (SELECT owner FROM docmodel.mappings WHERE name = 'people'), 'people', 'person', 'person', 'x', '{}')$$);
RESET ROLE;
GRANT SELECT ON person TO rel_other;
SET ROLE rel_other;
SELECT docmodel.create_mapping('mine', 'person');
SELECT key, doc FROM docmodel.denormalize('mine') LIMIT 1;
RESET ROLE;
-- names are per owner: the superuser has no mapping "mine"
SELECT pg_temp.try($$SELECT docmodel.map_exclude('mine', 'person', 'born')$$);
SET ROLE rel_other;
SELECT docmodel.drop_mapping('mine'), docmodel.drop_mapping('mine');
RESET ROLE;
REVOKE ALL ON person FROM rel_other;
REVOKE ALL ON SCHEMA docmodel FROM rel_other;
DROP ROLE rel_other;

-- mapping_schema: a JSON Schema every document of the mapping satisfies
SELECT jsonb_pretty(docmodel.mapping_schema('beers'));
SELECT count(*) AS docs, bool_and(docmodel.schema_valid(docmodel.mapping_schema(m), d.doc)) AS all_valid
FROM unnest('{people,beers,enrollments,orders}'::text[]) m, docmodel.denormalize(m) d;
-- and refuses what breaks it
SELECT docmodel.schema_valid(docmodel.mapping_schema('people'), doc - 'lastName') AS without_name,
       docmodel.schema_valid(docmodel.mapping_schema('people'), jsonb_set(doc, '{addresses}', (doc->'addresses') || (doc->'addresses'))) AS three_addresses,
       docmodel.schema_valid(docmodel.mapping_schema('beers'), '{"id": 1, "name": "x", "brewery_id": null, "brewery": "style::1", "styles": []}') AS wrong_ref
FROM docmodel.denormalize('people') WHERE key = 'person::1';

-- migrate_tables: into a collection, through its trigger, batched and resumable
SELECT docmodel.create_collection('persons', 'person') IS NOT NULL AS created;
CALL docmodel.migrate_tables('people', 'persons', batch_size => 2);
SELECT id, doc->>'_type' AS type, doc->>'_ver' AS ver, doc->'lastName' AS name,
       jsonb_array_length(doc->'addresses') AS addresses
FROM persons_documents ORDER BY id;
SELECT doc_type, status, last_key, docs_done, docs_total FROM docmodel.migration_runs
WHERE coll = 'persons'::regclass ORDER BY run_id;
-- again: every document written again through the trigger; those unchanged keep their _ver
CALL docmodel.migrate_tables('people', 'persons');
SELECT id, doc->>'_ver' AS ver FROM persons_documents ORDER BY id;
-- a run that stops halfway resumes after its last batch: a schema refuses person 3
SELECT docmodel.register_schema('person', '1.0', docmodel.mapping_schema('people') || '{"properties": {"lastName": {"not": {"const": "Children"}}}}');
INSERT INTO person SELECT i, 'P' || i, 'L' || i FROM generate_series(4, 7) i;
UPDATE person SET born = '1981-01-01' WHERE id = 1;
\set SHOW_CONTEXT never
CALL docmodel.migrate_tables('people', 'persons', batch_size => 2);
\set SHOW_CONTEXT errors
SELECT id, doc->>'_ver' AS ver FROM persons_documents ORDER BY id;
SELECT docmodel.drop_schema('person', '1.0');
UPDATE person SET last_name = 'Kids' WHERE id = 3;
CALL docmodel.migrate_tables('people', 'persons', batch_size => 2);
SELECT status, last_key, docs_done, docs_total FROM docmodel.migration_runs
WHERE coll = 'persons'::regclass ORDER BY run_id;
SELECT id, doc->>'lastName' AS name FROM persons ORDER BY id;
-- errors
-- (inside a function or a transaction block: it commits)
SELECT pg_temp.try($$CALL docmodel.migrate_tables('people', 'persons')$$);
-- (its first step, which checks the arguments, called directly for the SQLSTATEs)
SELECT pg_temp.try($$SELECT docmodel._migrate_tables_start('people', 'persons', 0)$$);
SELECT pg_temp.try($$SELECT docmodel._migrate_tables_start('people', 'person', 10)$$);
SELECT pg_temp.try($$SELECT docmodel._migrate_tables_start('nope', 'persons', 10)$$);
CREATE ROLE rel_writer;
GRANT USAGE ON SCHEMA docmodel TO rel_writer;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO rel_writer;
SET ROLE rel_writer;
SELECT docmodel.create_mapping('people_w', 'person');
SELECT pg_temp.try($$SELECT docmodel._migrate_tables_start('people_w', 'persons', 10)$$);
SELECT docmodel.drop_mapping('people_w');
RESET ROLE;
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM rel_writer;
REVOKE ALL ON SCHEMA docmodel FROM rel_writer;
DROP ROLE rel_writer;
-- a document over 20 MiB is refused by its key
CREATE TABLE big (id integer PRIMARY KEY, body text);
INSERT INTO big VALUES (1, 'small'), (2, repeat('x', 21 * 1024 * 1024));
SELECT docmodel.create_mapping('bigs', 'big');
SELECT docmodel.create_collection('bigc', 'big') IS NOT NULL AS created;
-- (a batch that fails returns its error, recorded in the run, which
-- migrate_tables commits and then raises)
SELECT s->'error'->>'state' AS state, s->'error'->>'message' AS message
FROM docmodel._migrate_tables_batch(docmodel._migrate_tables_start('bigs', 'bigc', 10)) AS s;
\set SHOW_CONTEXT never
CALL docmodel.migrate_tables('bigs', 'bigc');
\set SHOW_CONTEXT errors
SELECT count(*) FROM bigc;
-- the failed runs say why, how far, and which mapping
SELECT mapping, status, docs_done, docs_total, error FROM docmodel.migration_runs
WHERE coll = 'bigc'::regclass ORDER BY run_id;

-- embed and dangling_refs: the beers' keys resolved against collections
SELECT docmodel.create_collection('breweries', 'brewery') IS NOT NULL AS created;
SELECT docmodel.create_collection('beer_docs', 'beer') IS NOT NULL AS created;
SELECT docmodel.create_mapping('brewery_docs', 'brewery');
CALL docmodel.migrate_tables('brewery_docs', 'breweries');
CALL docmodel.migrate_tables('beers', 'beer_docs');
SELECT id, docmodel.embed(doc, '{brewery}', 'breweries')->'brewery'->>'name' AS brewery
FROM beer_docs ORDER BY id;
SELECT jsonb_path_query_array(docmodel.embed('{"b": ["brewery::2", "brewery::9", null]}', '{b}', 'breweries'), '$.b[*].name') AS names,
       jsonb_array_length(docmodel.embed('{"b": ["brewery::2", "brewery::9", null]}', '{b}', 'breweries')->'b') AS n,
       docmodel.embed('{"b": ["brewery::2", "brewery::9", null]}', '{b}', 'breweries')->'b'->1 AS missing;
SELECT docmodel.embed('{"b": ["brewery::2"]}', '{b}', 'breweries') #>> '{b,0,name}' AS name,
       docmodel.embed('{"x": 1}', '{b}', 'breweries') AS no_path;
SELECT pg_temp.try($$SELECT docmodel.embed('{"b": {}}', '{b}', 'breweries')$$);
SELECT docmodel.remove('breweries', 'brewery::2') > 0 AS removed;
SELECT * FROM docmodel.dangling_refs('beer_docs', '{brewery}', 'breweries');
SELECT * FROM docmodel.dangling_refs('beer_docs', '{styles}', 'breweries');
-- a stamp is read as every style shows it: the beers' type names no brewery
SELECT * FROM docmodel.dangling_refs('beer_docs', '{_type}', 'breweries');
SELECT pg_temp.try($$SELECT * FROM docmodel.dangling_refs('beer_docs', '{brewery}', 'brewery')$$);

-- live projection: the collection kept in step with the tables
SELECT docmodel.project_tables('people', 'persons');
SELECT tbl, coll FROM docmodel.projections WHERE mapping = 'people' ORDER BY tbl::text;
CREATE VIEW projection_diff AS
SELECT coalesce(d.key, p.id) AS key, d.doc IS NULL AS extra, p.doc IS NULL AS absent
FROM docmodel.denormalize('people') d
FULL JOIN persons p ON p.id = d.key
WHERE d.doc IS DISTINCT FROM p.doc - '{_type,_ver,_created,_modified,_createdBy,_modifiedBy}'::text[];
SELECT * FROM projection_diff;
CREATE TEMP TABLE vers AS SELECT id, doc->>'_ver' AS ver FROM persons_documents;
-- a contact detail inserted shows up in its person's document at once; no other is rewritten
INSERT INTO contact_detail VALUES (14, 2, 2, '+49 30 1234');
SELECT p.id, v.ver AS before, p.doc->>'_ver' AS after, p.doc #> '{contacts,-1,value}' AS last_contact
FROM persons_documents p JOIN vers v USING (id) ORDER BY p.id;
-- an address moved to another person: both documents; a type renamed two levels down
UPDATE address SET person_id = 2 WHERE id = 20;
UPDATE contact_detail_type SET name = 'e-mail' WHERE id = 1;
SELECT id, jsonb_path_query_array(doc, '$.addresses[*].city') AS cities,
       jsonb_path_query_array(doc, '$.contacts[*].kind.name') AS kinds
FROM persons ORDER BY id;
-- a person and its rows deleted: its document too; a key change
DELETE FROM address WHERE person_id = 3;
DELETE FROM person WHERE id = 3;
UPDATE person SET id = 30 WHERE id = 4;
SELECT * FROM projection_diff;
SELECT count(*) FROM persons;
-- 1,000 random changes to every mapped table, then compared with denormalize
SELECT setseed(0.13);
DO $$
DECLARE
    i integer;
    r double precision;
    pid integer;
BEGIN
    FOR i IN 1 .. 1000 LOOP
        r := random();
        IF r < 0.25 THEN
            INSERT INTO address VALUES (1000 + i, (SELECT id FROM person ORDER BY random() LIMIT 1),
                NULL, 'City ' || i, DATE '2000-01-01' + (random() * 8000)::integer);
        ELSIF r < 0.40 THEN
            UPDATE address SET since = since + 1, person_id = (SELECT id FROM person ORDER BY random() LIMIT 1)
            WHERE id = (SELECT id FROM address ORDER BY random() LIMIT 1);
        ELSIF r < 0.50 THEN
            DELETE FROM address WHERE id = (SELECT id FROM address ORDER BY random() LIMIT 1);
        ELSIF r < 0.65 THEN
            INSERT INTO contact_detail VALUES (1000 + i, (SELECT id FROM person ORDER BY random() LIMIT 1),
                CASE WHEN random() < 0.8 THEN 1 + (random() < 0.5)::integer END, 'c' || i);
        ELSIF r < 0.72 THEN
            DELETE FROM contact_detail WHERE id = (SELECT id FROM contact_detail ORDER BY random() LIMIT 1);
        ELSIF r < 0.80 THEN
            INSERT INTO person VALUES (1000 + i, 'F' || i, 'L' || i, NULL, NULL);
        ELSIF r < 0.88 THEN
            UPDATE person SET last_name = last_name || '.' WHERE id = (SELECT id FROM person ORDER BY random() LIMIT 1);
        ELSIF r < 0.93 THEN
            INSERT INTO person_details SELECT id, i FROM person ORDER BY random() LIMIT 1
            ON CONFLICT (person_id) DO UPDATE SET shoe_size = excluded.shoe_size;
        ELSIF r < 0.96 THEN
            UPDATE contact_detail_type SET name = name || '+' WHERE id = 1 + (random() < 0.5)::integer;
        ELSE
            SELECT id INTO pid FROM person p WHERE NOT EXISTS (SELECT FROM address a WHERE a.person_id = p.id)
                AND NOT EXISTS (SELECT FROM contact_detail c WHERE c.person_id = p.id) ORDER BY random() LIMIT 1;
            DELETE FROM person_details WHERE person_id = pid;
            DELETE FROM person WHERE id = pid;
        END IF;
    END LOOP;
END
$$;
-- (how many survive depends on the rows random() picks, which differ between majors)
SELECT count(*) = (SELECT count(*) FROM persons) AS one_document_each FROM person;
SELECT * FROM projection_diff;
-- a rolled back change leaves the documents as they were
BEGIN;
INSERT INTO address VALUES (99999, 1, NULL, 'Rollback', NULL);
ROLLBACK;
SELECT * FROM projection_diff;
-- stop: the tables' changes no longer reach the collection
SELECT docmodel.stop_projection('people'), docmodel.stop_projection('people');
UPDATE person SET last_name = 'Changed' WHERE id = 1;
SELECT key, absent, extra FROM projection_diff;
SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'docmodel_projection_%';
-- errors
SELECT pg_temp.try($$SELECT docmodel.project_tables('people', 'person')$$);
SELECT pg_temp.try($$SELECT docmodel.project_tables('nope', 'persons')$$);
CREATE TABLE elsewhere (id integer);
CREATE TRIGGER t AFTER INSERT ON elsewhere REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION docmodel._projection_trigger('people');
SELECT pg_temp.try($$INSERT INTO elsewhere VALUES (1)$$);
DROP TRIGGER t ON elsewhere;
DO $$ BEGIN
EXECUTE (SELECT format('CREATE TRIGGER t AFTER INSERT ON elsewhere REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION docmodel._projection_trigger(%L, %L)', owner::oid, name)
    FROM docmodel.mappings WHERE name = 'people');
END $$;
SELECT pg_temp.try($$INSERT INTO elsewhere VALUES (1)$$);

\echo == clean up (later tests reuse some of these names)
DROP TRIGGER t ON elsewhere;
DROP VIEW projection_diff;
SELECT count(*) AS mappings_dropped FROM (SELECT docmodel.drop_mapping(name) FROM docmodel.mappings ORDER BY name) AS d;
SELECT count(*) AS collections_dropped
  FROM (SELECT docmodel.drop_collection(c) FROM unnest('{persons,bigc,breweries,beer_docs}'::regclass[]) AS c) AS d;
DROP TABLE address, beer_style, beer, big, brewery, contact_detail, contact_detail_type, enrollment,
    course, student, customer, order_line, orders, person_details, person, style, nokey, elsewhere;
