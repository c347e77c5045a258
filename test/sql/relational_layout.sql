-- Mappings follow the layout of the collection they write into; an array
-- part without order_by is ordered by the child's primary key
\i test/sql/include/try.sql
SET client_min_messages = warning;
\set SHOW_CONTEXT never
CREATE SCHEMA rl;
SET search_path = rl, public;

-- rows stored out of key order, so that only an ORDER BY gives key order
CREATE TABLE brewery (id integer PRIMARY KEY, name text NOT NULL);
CREATE TABLE beer (id integer PRIMARY KEY, brewery_id integer NOT NULL REFERENCES brewery, name text NOT NULL);
CREATE TABLE award (id integer PRIMARY KEY, beer_id integer NOT NULL REFERENCES beer, title text NOT NULL);
INSERT INTO brewery VALUES (1, '21st Amendment'), (2, 'Anchor');
INSERT INTO beer VALUES (1167, 1, 'IPA'), (1001, 1, 'Amber'), (1100, 2, 'Steam'), (1050, 1, 'Lager');
INSERT INTO award VALUES (9, 1167, 'gold'), (3, 1167, 'silver'), (5, 1167, 'bronze');
UPDATE beer SET name = name WHERE id = 1001;   -- moved to the end of the heap

-- 1. map_embed_array without order_by: the arrays in the child's key order
SELECT docmodel.create_mapping('rl_breweries', 'brewery', 'brewery');
SELECT docmodel.map_embed_array('rl_breweries', 'beer', 'beers');
SELECT docmodel.map_exclude('rl_breweries', 'beer', 'brewery_id');
SELECT spec->'order_by' AS order_by FROM docmodel.mapping_parts WHERE mapping = 'rl_breweries';
SELECT key, doc FROM docmodel.denormalize('rl_breweries');
SELECT docmodel.create_collection('brewery_docs') IS NOT NULL AS created;
CALL docmodel.migrate_tables('rl_breweries', 'brewery_docs');
SELECT id, doc->'beers' AS beers FROM brewery_docs ORDER BY id;
SELECT docmodel.project_tables('rl_breweries', 'brewery_docs');
INSERT INTO beer VALUES (1002, 1, 'Pale');
SELECT id, doc->'beers' AS beers FROM brewery_docs WHERE id = 'brewery::1';
SELECT docmodel.stop_projection('rl_breweries');

-- 2. into a collection whose delimiter is _ (Couchbase's beer-sample keys):
-- keys and references written with it; the same for ':'
SELECT docmodel.create_mapping('rl_beers', 'beer', 'beer');
SELECT docmodel.map_reference('rl_beers', 'brewery', 'brewery');
SELECT docmodel.map_embed_array('rl_beers', 'award', 'awards');
SELECT docmodel.create_collection('beer_sample', 'beer', delimiter => '_') IS NOT NULL AS created;
CALL docmodel.migrate_tables('rl_beers', 'beer_sample');
SELECT id, doc->>'_type' AS type, doc->>'brewery' AS brewery, doc->'awards' AS awards
FROM beer_sample_documents ORDER BY id;
SELECT docmodel.project_tables('rl_beers', 'beer_sample');
INSERT INTO beer VALUES (1200, 2, 'Porter');
UPDATE beer SET id = 1201 WHERE id = 1200;          -- a key change moves the document
SELECT id, doc->>'brewery' AS brewery FROM beer_sample WHERE id LIKE 'beer_12%' ORDER BY id;
DELETE FROM beer WHERE id = 1201;
SELECT count(*) AS gone FROM beer_sample WHERE id LIKE 'beer_12%';
SELECT docmodel.stop_projection('rl_beers');
SELECT docmodel.create_collection('beer_colon', delimiter => ':') IS NOT NULL AS created;
CALL docmodel.migrate_tables('rl_beers', 'beer_colon');
SELECT id, doc->>'_type' AS type, doc->>'brewery' AS brewery FROM beer_colon_documents ORDER BY id LIMIT 2;
-- mapping_schema for that collection: references keyed with its delimiter
SELECT docmodel.mapping_schema('rl_beers', 'beer_sample') #> '{properties,brewery,pattern}' AS pattern,
       docmodel.mapping_schema('rl_beers') #> '{properties,brewery,pattern}' AS default_pattern;
SELECT bool_and(docmodel.schema_valid(docmodel.mapping_schema('rl_beers', 'beer_sample'), doc - '{_type,_ver,_created,_modified,_createdBy,_modifiedBy}'::text[])) AS valid
FROM beer_sample_documents;
-- denormalize(mapping) has no collection: keys with '::'
SELECT key, doc->>'brewery' AS brewery FROM docmodel.denormalize('rl_beers') LIMIT 1;

-- keys without a type (type_part 0): the primary key alone; the
-- collection's type must be the mapping's
SELECT docmodel.create_collection('beer_ids', 'beer', type_part => 0) IS NOT NULL AS created;
CALL docmodel.migrate_tables('rl_beers', 'beer_ids');
SELECT id, doc->>'_type' AS type, doc->>'brewery' AS brewery FROM beer_ids_documents ORDER BY id LIMIT 2;
SELECT docmodel.create_collection('brewery_ids', 'brewery', type_part => 0) IS NOT NULL AS created;
CALL docmodel.migrate_tables('rl_beers', 'brewery_ids');
-- a layout whose type is not the first key part
SELECT docmodel.create_collection('app_beers', delimiter => ':', type_part => 2) IS NOT NULL AS created;
CALL docmodel.migrate_tables('rl_beers', 'app_beers');
SELECT pg_temp.try($$SELECT docmodel.project_tables('rl_beers', 'app_beers')$$);

-- a table referring to itself: its references take the mapping's type
CREATE TABLE employees (id integer PRIMARY KEY, name text NOT NULL, manager_id integer REFERENCES employees);
INSERT INTO employees VALUES (1, 'Ann', NULL), (2, 'Bob', 1), (3, 'Cy', 2);
SELECT docmodel.create_mapping('rl_staff', 'employees', 'employee');
SELECT docmodel.map_reference('rl_staff', 'employees', 'manager');
SELECT key, doc->>'manager' AS manager FROM docmodel.denormalize('rl_staff');
SELECT docmodel.create_collection('staff_docs', 'employee') IS NOT NULL AS created;
CALL docmodel.migrate_tables('rl_staff', 'staff_docs');
SELECT id, doc->>'_type' AS type, doc->>'manager' AS manager FROM staff_docs_documents ORDER BY id;
-- the same without a mapping
SELECT key, doc->>'employees' AS manager FROM docmodel.denormalize('rl.employees'::regclass, 'employee', 0);

SELECT docmodel.stop_projection('rl_beers');
SELECT docmodel.drop_mapping(m) FROM unnest('{rl_breweries,rl_beers,rl_staff}'::text[]) m;
DROP SCHEMA rl CASCADE;
