-- migrate(doc, target, coll), validate(doc, coll) and
-- validation_errors(doc, coll) read a document's type and version where
-- its collection keeps them (create_collection's fields); the forms
-- without coll guess among the meta styles, which a collection whose type
-- field is a plain "type" defeats.
\i test/sql/include/try.sql
SET client_min_messages = warning;
SELECT docmodel.create_collection('ff_users', fields => '{"type": "type"}');
SELECT docmodel.register_migration('ffuser', '1', '2',
  '[{"op": "move", "from": "/name", "path": "/full_name"}]');
SELECT docmodel.register_schema('ffuser', '1', '{"required": ["name"]}');
SELECT docmodel.register_schema('ffuser', '2', '{"required": ["full_name"]}');
INSERT INTO ff_users (id, doc, cas) VALUES ('ffuser::1', '{"type": "ffuser", "_schema": "1", "name": "A"}', 0);
-- stored migrated (to 2) by the collection's trigger
SELECT doc->>'_schema' AS v, doc->>'full_name' AS full_name, doc ? 'name' AS has_name FROM ff_users;
-- read by the collection's fields: current, comes back as it is
SELECT docmodel.migrate(doc, NULL, 'ff_users') = doc AS unchanged FROM ff_users_documents;
SELECT docmodel.validate(doc, 'ff_users') FROM ff_users_documents;
SELECT * FROM docmodel.validation_errors((SELECT doc FROM ff_users_documents), 'ff_users');
-- a version 1 body, as an application would hold it: migrated by the
-- collection's fields, its version in _schema, no plain "schema" member
SELECT docmodel.migrate('{"type": "ffuser", "_schema": "1", "name": "B"}', NULL, 'ff_users');
SELECT docmodel.migrate('{"type": "ffuser", "_schema": "1", "name": "B"}', '1', 'ff_users');
SELECT docmodel.validate('{"type": "ffuser", "_schema": "2", "name": "B"}', 'ff_users');
SELECT * FROM docmodel.validation_errors('{"type": "ffuser", "_schema": "2", "name": "B"}', 'ff_users');
SELECT docmodel.validate('{"type": "ffuser", "_schema": "1", "name": "B"}', 'ff_users');
-- without a type where the collection keeps it: 22023
SELECT pg_temp.try($$SELECT docmodel.validate('{"_type": "ffuser"}', 'ff_users')$$);
-- not a collection: refused; NULL collection: NULL (validate) or any
-- meta style (migrate)
SELECT pg_temp.try($$SELECT docmodel.validate('{}', 'pg_class')$$);
SELECT docmodel.validate('{}', NULL);
SELECT docmodel.migrate('{"_type": "ffuser", "_schema": "1", "name": "C"}', NULL, NULL);
-- an xattrs collection's bodies carry no type: migrate returns them as
-- they are, validate refuses
SELECT docmodel.create_collection('ff_x', doc_type => 'ffuser', meta_style => 'xattrs');
SELECT docmodel.migrate('{"name": "D"}', NULL, 'ff_x');
SELECT pg_temp.try($$SELECT docmodel.validate('{"name": "D"}', 'ff_x')$$);
SELECT docmodel.drop_collection('ff_x');
SELECT docmodel.drop_collection('ff_users');
SELECT docmodel.drop_schema('ffuser', '1'), docmodel.drop_schema('ffuser', '2');
DELETE FROM docmodel.migration_rules WHERE doc_type = 'ffuser';
