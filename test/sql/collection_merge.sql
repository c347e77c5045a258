-- MERGE into a collection: its WHEN clauses insert, update and delete as
-- INSERT, UPDATE and DELETE do (the collection's trigger stamps and checks,
-- history records), in every meta style (this test runs a second time with
-- meta_style 'columns').
\i test/sql/include/try.sql
SET client_min_messages = warning;

SELECT docmodel.create_collection('merged', revisions => 5) IS NOT NULL AS created;
INSERT INTO merged (id, doc) VALUES ('item::1', '{"n": 1}'), ('item::2', '{"n": 2}');
CREATE TEMP TABLE incoming (id text, doc jsonb, gone boolean);
INSERT INTO incoming VALUES ('item::1', '{"n": 10}', false), ('item::2', NULL, true),
                            ('item::3', '{"n": 3}', false);

MERGE INTO merged AS t USING incoming AS s ON t.id = s.id
  WHEN MATCHED AND s.gone THEN DELETE
  WHEN MATCHED THEN UPDATE SET doc = s.doc
  WHEN NOT MATCHED THEN INSERT (id, doc) VALUES (s.id, s.doc);
-- as get shows them: the body with the stamps, in every style
SELECT id, docmodel.get('merged', id) - '_created' - '_modified' AS doc FROM merged ORDER BY id;
SELECT k.key, r.ver, r.op, r.doc->'n' AS n
  FROM unnest('{item::1,item::2,item::3}'::text[]) AS k(key), LATERAL docmodel.revisions('merged', k.key) AS r
 ORDER BY 1, 2;

-- the trigger's checks hold in MERGE too: a key with an empty part, a document that is not an object
SELECT pg_temp.try($$MERGE INTO merged AS t USING (VALUES ('item::', '{}'::jsonb)) AS s(id, doc) ON t.id = s.id
  WHEN NOT MATCHED THEN INSERT (id, doc) VALUES (s.id, s.doc)$$);
SELECT pg_temp.try($$MERGE INTO merged AS t USING (VALUES ('item::1', '[1]'::jsonb)) AS s(id, doc) ON t.id = s.id
  WHEN MATCHED THEN UPDATE SET doc = s.doc$$);
SELECT count(*) AS docs, max(docmodel.meta('merged', id)->>'ver') AS max_ver FROM merged;

SELECT docmodel.drop_collection('merged');
