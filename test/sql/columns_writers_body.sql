-- meta_style 'columns' with the writers as names in the body and the writer
-- columns null: how the shards of a distributed collection keep them on
-- Citus (distribute_collection converts the rows so with
-- _writers_in_body, docmodel's triggers off), and how its rows come back
-- with undistribute_collection. Reads show the same documents as with ids;
-- a write on a node that is not a shard takes the names into the columns
-- again, keeping the creator. (The Citus suite, test/citus, runs the rest.)
\i test/sql/include/try.sql
SET docmodel.actor = 'ann';
SELECT docmodel.create_collection('wb', revisions => 3, meta_style => 'columns') IS NOT NULL AS created;
SELECT docmodel.create_collection('wb_fields', meta_style => 'columns',
  fields => '{"createdBy": "author", "modifiedBy": "editor"}') IS NOT NULL AS created;
INSERT INTO wb (id, doc) VALUES ('wb::1', '{"n": 1}'), ('wb::2', '{"n": 2}'), ('wb::3', '{"n": 3}');
INSERT INTO wb_fields (id, doc) VALUES ('wb_fields::1', '{"n": 1}');
SET docmodel.actor = 'ben';
UPDATE wb SET doc = '{"n": 10}' WHERE id = 'wb::1';
UPDATE wb_fields SET doc = '{"n": 10}' WHERE id = 'wb_fields::1';
CREATE TEMP TABLE wb_before AS
SELECT id, docmodel.get('wb', id) AS doc FROM wb
UNION ALL SELECT id, docmodel.get('wb_fields', id) FROM wb_fields
UNION ALL SELECT id || ' rev ' || r.ver, r.doc FROM wb, docmodel.revisions('wb', wb.id) r;
SELECT id, doc->>'_createdBy' AS created_by, doc->>'_modifiedBy' AS modified_by,
       doc->>'author' AS author, doc->>'editor' AS editor FROM wb_before ORDER BY id;

-- The conversion of distribute_collection: names into the body, columns null.
ALTER TABLE wb DISABLE TRIGGER USER;
ALTER TABLE wb_fields DISABLE TRIGGER USER;
UPDATE wb AS c SET doc = docmodel._writers_in_body(
    (SELECT id FROM docmodel.collection_config WHERE coll = 'wb'::regclass),
    c.id, c.doc, c.created_by, c.modified_by), created_by = NULL, modified_by = NULL;
UPDATE wb_revisions AS r SET doc = docmodel._writers_in_body(
    (SELECT id FROM docmodel.collection_config WHERE coll = 'wb'::regclass),
    r.id, r.doc, r.created_by, r.modified_by), created_by = NULL, modified_by = NULL;
UPDATE wb_fields AS c SET doc = docmodel._writers_in_body(
    (SELECT id FROM docmodel.collection_config WHERE coll = 'wb_fields'::regclass),
    c.id, c.doc, c.created_by, c.modified_by), created_by = NULL, modified_by = NULL;
ALTER TABLE wb ENABLE TRIGGER USER;
ALTER TABLE wb_fields ENABLE TRIGGER USER;
SELECT id, created_by, modified_by, doc, ver FROM wb ORDER BY id;
SELECT id, ver, created_by, modified_by, doc FROM wb_revisions ORDER BY id, ver;
SELECT id, created_by, modified_by, doc FROM wb_fields;
-- Every read is as before.
SELECT b.id, b.doc AS was, n.doc AS now FROM wb_before b FULL JOIN (
  SELECT id, docmodel.get('wb', id) AS doc FROM wb
  UNION ALL SELECT id, docmodel.get('wb_fields', id) FROM wb_fields
  UNION ALL SELECT id || ' rev ' || r.ver, r.doc FROM wb, docmodel.revisions('wb', wb.id) r) n USING (id)
WHERE b.doc IS DISTINCT FROM n.doc;
SELECT count(*) AS same FROM wb_before b JOIN wb_documents d USING (id) WHERE b.doc = d.doc;
SELECT docmodel.meta('wb', 'wb::1') - '{cas,created,modified}'::text[] AS meta;

-- Writes here: the creator kept, the names back into the columns; the same
-- body again changes nothing but the form (its _ver stays).
SET docmodel.actor = 'cy';
SELECT docmodel.upsert('wb', 'wb::1', '{"n": 11}') > 0 AS updated;
SELECT docmodel.mutate_in('wb_fields', 'wb_fields::1', '[{"op": "upsert", "path": "m", "value": 1}]')->'cas' IS NOT NULL AS mutated;
SELECT docmodel.upsert('wb', 'wb::2', '{"n": 2}') > 0 AS same_body;
SELECT c.id, c.doc, w1.name AS created_by, w2.name AS modified_by, c.ver
FROM (SELECT id, doc, created_by, modified_by, ver FROM wb UNION ALL
      SELECT id, doc, created_by, modified_by, ver FROM wb_fields) c
LEFT JOIN docmodel.writers w1 ON w1.id = c.created_by LEFT JOIN docmodel.writers w2 ON w2.id = c.modified_by
ORDER BY c.id;
SELECT id, doc->>'_createdBy' AS created_by, doc->>'_modifiedBy' AS modified_by, doc->'_ver' AS ver
FROM wb_documents ORDER BY id;
SELECT ver, doc->>'_createdBy' AS created_by, doc->>'_modifiedBy' AS modified_by, doc->'n' AS n
FROM docmodel.revisions('wb', 'wb::1') ORDER BY ver;

-- _writers_in_body with odd arguments: NULL for a NULL doc, the doc as it
-- is for another style or a non-object, a null or unknown id leaves the
-- body's own field, 42704 for an id no collection has.
SELECT docmodel.create_collection('wb_plain', meta_style => 'underscore') IS NOT NULL AS created;
WITH c AS (SELECT id FROM docmodel.collection_config WHERE coll = 'wb'::regclass),
     p AS (SELECT id FROM docmodel.collection_config WHERE coll = 'wb_plain'::regclass)
SELECT docmodel._writers_in_body((SELECT id FROM c), 'wb::9', NULL, 1, 1) AS null_doc,
       docmodel._writers_in_body((SELECT id FROM c), 'wb::9', '[1]', 1, 1) AS array_doc,
       docmodel._writers_in_body((SELECT id FROM p), 'wb_plain::9', '{"a": 1}', 1, 1) AS plain,
       docmodel._writers_in_body((SELECT id FROM c), 'wb::9', '{"a": 1, "_createdBy": "x"}', NULL, -1) AS kept;
SELECT pg_temp.try($$SELECT docmodel._writers_in_body(-5, 'wb::9', '{}', 1, 1)$$);
SELECT pg_temp.try($$SELECT docmodel._writers_in_body(NULL, 'wb::9', '{}', 1, 1)$$);
RESET docmodel.actor;
SELECT docmodel.drop_collection('wb');
SELECT docmodel.drop_collection('wb_fields');
SELECT docmodel.drop_collection('wb_plain');
