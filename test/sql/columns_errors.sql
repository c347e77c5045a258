-- meta_style 'columns': the errors a user can meet that the other styles do
-- not have, each with its SQLSTATE and message, and writes through the
-- documents view. Not in test/columns_tests: it makes its collections with
-- an explicit meta_style.
\i test/sql/include/try.sql
SET docmodel.actor = 'tester';
SELECT docmodel.create_collection('ce', meta_style => 'columns') IS NOT NULL AS created;
SELECT docmodel.create_collection('ce_iso', meta_style => 'columns', time_unit => 'iso') IS NOT NULL AS created_iso;

\echo == keep_stamps: a kept stamp the columns cannot give back unchanged is refused (22023)
SET docmodel.keep_stamps = on;
SELECT pg_temp.try($$INSERT INTO ce (id, doc) VALUES ('ce::1', '{"_created": "yesterday"}')$$);
SELECT pg_temp.try($$INSERT INTO ce (id, doc) VALUES ('ce::1', '{"_created": 1.5}')$$);
SELECT pg_temp.try($$INSERT INTO ce (id, doc) VALUES ('ce::1', '{"_modifiedBy": 7}')$$);
SELECT pg_temp.try($$INSERT INTO ce_iso (id, doc) VALUES ('ce_iso::1', '{"_created": "2024-01-31T12:00:00Z"}')$$);
-- what the columns can hold is kept exactly
SELECT pg_temp.try($$INSERT INTO ce (id, doc) VALUES ('ce::2', '{"_created": 1700000000000, "_createdBy": "importer", "_ver": 3}')$$);
SELECT pg_temp.try($$INSERT INTO ce_iso (id, doc) VALUES ('ce_iso::2', '{"_created": "2024-01-31T12:00:00.000Z"}')$$);
RESET docmodel.keep_stamps;
SELECT doc->'_created' AS created, doc->'_createdBy' AS created_by, doc->'_ver' AS ver
FROM ce_documents WHERE id = 'ce::2';
SELECT doc->'_created' AS created FROM ce_iso_documents WHERE id = 'ce_iso::2';
SELECT count(*) AS nothing_else_stored FROM ce WHERE id = 'ce::1';

\echo == a writer name of 128 bytes or more is refused (22023)
SET docmodel.actor = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
SELECT pg_temp.try($$INSERT INTO ce (id, doc) VALUES ('ce::3', '{}')$$);
SET docmodel.actor = 'tester';

\echo == writes through the documents view return the document as the other styles show it
INSERT INTO ce_documents (id, doc) VALUES ('ce::4', '{"n": 1}')
RETURNING id, doc->'n' AS n, doc->'_ver' AS ver, doc->>'_type' AS type, doc->>'_createdBy' AS by;
UPDATE ce_documents SET doc = doc || '{"n": 2}' WHERE id = 'ce::4'
RETURNING doc->'n' AS n, doc->'_ver' AS ver;
SELECT doc AS body, ver FROM ce WHERE id = 'ce::4';
DELETE FROM ce_documents WHERE id = 'ce::4' RETURNING id;
SELECT count(*) AS gone FROM ce WHERE id = 'ce::4';
-- the key cannot change through the view either
INSERT INTO ce_documents (id, doc) VALUES ('ce::5', '{}');
SELECT pg_temp.try($$UPDATE ce_documents SET id = 'ce::6' WHERE id = 'ce::5'$$);

\echo == a stamp column dropped or retyped: writes and reads stop with 55000 or 42804
DROP VIEW ce_documents;
ALTER TABLE ce ALTER COLUMN ver TYPE bigint;
SELECT pg_temp.try($$INSERT INTO ce (id, doc) VALUES ('ce::7', '{}')$$);
ALTER TABLE ce ALTER COLUMN ver TYPE integer;
ALTER TABLE ce DROP COLUMN modified_by;
SELECT pg_temp.try($$INSERT INTO ce (id, doc) VALUES ('ce::7', '{}')$$);
SELECT pg_temp.try($$SELECT docmodel.get('ce', 'ce::5')$$);

\echo == the view trigger fired as it was not made to be (39P01)
CREATE TABLE ce_forged (id text, doc jsonb, cas bigint, expires_at timestamptz, locked_until timestamptz);
CREATE TRIGGER forged BEFORE INSERT ON ce_forged FOR EACH ROW EXECUTE FUNCTION docmodel._documents_trigger('1');
SELECT pg_temp.try($$INSERT INTO ce_forged (id, doc) VALUES ('x', '{}')$$);
DROP TABLE ce_forged;

SELECT docmodel.drop_collection('ce');
SELECT docmodel.drop_collection('ce_iso');
