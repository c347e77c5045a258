\echo
\echo '--- Schema validation -------------------------------------------------'
\echo 'The modeling guides say every application checks the user 3.0 shape by hand.'
\echo 'Registered once, the database checks it on every write (after migrating):'
SELECT docmodel.create_collection('tour_people') AS collection;
SELECT docmodel.register_migration('user', '1.0', '2.0', steps => '[
  {"op": "split", "path": "/name", "into": ["/firstName", "/lastName"], "separator": " "}]');
SELECT docmodel.register_migration('user', '2.0', '3.0', steps => '[
  {"op": "wrap", "path": "/phone", "into": "/phones", "template": {"type": "other", "number": "$"}}]');
SELECT docmodel.register_schema('user', '3.0', '{
  "type": "object", "required": ["firstName", "lastName"],
  "properties": {
    "firstName": {"type": "string", "minLength": 1},
    "lastName": {"type": "string", "minLength": 1},
    "phones": {"type": "array", "maxItems": 3, "items": {
      "type": "object", "required": ["type", "number"],
      "properties": {"type": {"enum": ["home", "work", "mobile", "other"]},
                     "number": {"type": "string", "pattern": "^[0-9]{10}$"}}}}}}');
SELECT docmodel.insert('tour_people', 'user::1', '{"_schema": "3.0", "firstName": "Ada",
  "lastName": "Byron", "phones": [{"type": "home", "number": "0123456789"}]}') > 0 AS stored;

\echo 'A write with three mistakes is refused, every path named, nothing stored:'
\set ON_ERROR_STOP 0
\set SHOW_CONTEXT never
SELECT docmodel.insert('tour_people', 'user::2', '{"_schema": "3.0", "firstName": "Bo",
  "phones": [{"type": "fax", "number": "555-1234"}]}');
\set ON_ERROR_STOP 1
\echo 'The same list for any document, and for any jsonb and schema (a CHECK can use it):'
SELECT * FROM docmodel.validation_errors('{"_type": "user", "_schema": "3.0", "firstName": "Bo",
  "phones": [{"type": "fax", "number": "555-1234"}]}');
SELECT docmodel.schema_valid('{"type": "string", "format": "email"}', '"ada@example.com"') AS email_ok;

\echo
\echo 'A 2.0 document is migrated first, then validated: its "555-1234" phone'
\echo 'becomes a 3.0 phones item whose number breaks the pattern.'
\set ON_ERROR_STOP 0
SELECT docmodel.insert('tour_people', 'user::3', '{"_schema": "2.0", "firstName": "Cy",
  "lastName": "Ng", "phone": "555-1234"}');
\set ON_ERROR_STOP 1

\echo
\echo 'A broken migration rule is caught by the plan before a bulk run writes anything.'
\echo 'Older documents, loaded behind the trigger''s back (a plain table here):'
CREATE TABLE tour_old (id text COLLATE "C" PRIMARY KEY, doc jsonb NOT NULL);
INSERT INTO tour_old SELECT 'user::' || i, jsonb_build_object('_type', 'user', '_schema', '1.0',
  'name', 'Joe' || i || ' Smith', 'phone', lpad(i::text, 10, '0')) FROM generate_series(1, 1000) i;
\echo 'A rule 2.0 -> 3.0 that forgets the phone number:'
SELECT docmodel.register_migration('user', '2.0', '3.0', steps => '[
  {"op": "wrap", "path": "/phone", "into": "/phones", "template": {"type": "other"}}]');
SELECT * FROM docmodel.migration_plan('tour_old', validate => true);
\echo 'Fixed, the plan is clean and the bulk run goes through:'
SELECT docmodel.register_migration('user', '2.0', '3.0', steps => '[
  {"op": "wrap", "path": "/phone", "into": "/phones", "template": {"type": "other", "number": "$"}}]');
SELECT * FROM docmodel.migration_plan('tour_old', validate => true);
SET client_min_messages = warning;
CALL docmodel.migrate_collection('tour_old', batch_size => 500);
RESET client_min_messages;
SELECT count(*) FILTER (WHERE docmodel.validate(doc)) AS valid, count(*) AS docs FROM tour_old;

DROP TABLE tour_old;
SELECT docmodel.drop_collection('tour_people');
-- later chapters start without user schemas or migrations
SELECT docmodel.drop_schema('user', '3.0');
DELETE FROM docmodel.migration_rules WHERE doc_type = 'user';
