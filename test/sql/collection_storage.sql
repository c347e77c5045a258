-- What the underscore style, the default meta style, stores in a collection's
-- table itself: the table's columns, the document in doc as the trigger stamps
-- it, the 20 MiB limit counted with those stamps, and the NOT NULL error that
-- lists the table's columns. Not in test/columns_tests: with
-- docmodel.default_meta_style = columns the table has five more columns and
-- doc holds only the body (the stamps are in typed columns), which is the very
-- storage this test shows. The same behaviour read through the documents view,
-- for either style: collection.
\i test/sql/include/try.sql
-- A document with its time stamps replaced by whether they equal now() in ms
-- (so the output does not depend on the clock).
CREATE FUNCTION pg_temp.stamped(doc jsonb) RETURNS jsonb
LANGUAGE sql AS $$
  WITH t(v) AS (SELECT to_jsonb(floor(extract(epoch FROM now()) * 1000)::bigint))
  SELECT doc
    || CASE WHEN doc ? '_created' THEN jsonb_build_object('_created', doc->'_created' = v) ELSE '{}' END
    || CASE WHEN doc ? '_modified' THEN jsonb_build_object('_modified', doc->'_modified' = v) ELSE '{}' END
  FROM t
$$;
SET docmodel.actor = 'tester';

-- create_collection makes an ordinary table with its trigger: id, doc, cas,
-- expires_at, locked_until, nothing else (what \d shows, queried so that the
-- configuration id the triggers name, which depends on the tests run before,
-- is shown as whether it is the collection's).
SELECT docmodel.create_collection('collection_storage_users', doc_type => 'user');
SELECT a.attname AS column, pg_catalog.format_type(a.atttypid, a.atttypmod) AS type,
       co.collname AS collation, a.attnotnull AS not_null, a.atthasdef AS has_default
FROM pg_attribute a LEFT JOIN pg_collation co ON co.oid = a.attcollation AND a.attcollation <> 100
WHERE a.attrelid = 'collection_storage_users'::regclass AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum;
SELECT pg_get_indexdef(indexrelid) AS index FROM pg_index
WHERE indrelid = 'collection_storage_users'::regclass ORDER BY 1;
SELECT regexp_replace(pg_get_triggerdef(t.oid), 'collection_trigger\(''\d+''\)',
                      'collection_trigger(''N'')') AS trigger,
       substring(pg_get_triggerdef(t.oid) FROM 'collection_trigger\(''(\d+)''\)')::integer
         = (SELECT c.id FROM docmodel.collection_config c WHERE c.coll = t.tgrelid) AS names_its_configuration
FROM pg_trigger t WHERE t.tgrelid = 'collection_storage_users'::regclass ORDER BY t.tgname;
SELECT collection, meta_style FROM docmodel.collections
WHERE collection = 'collection_storage_users'::regclass;

-- The trigger stamps the management fields into the stored doc itself, which
-- is the document the view shows.
BEGIN;
INSERT INTO collection_storage_users (id, doc) VALUES ('user::1', '{"name": "Ann"}');
SELECT pg_temp.stamped(doc) FROM collection_storage_users WHERE id = 'user::1';
SET LOCAL docmodel.actor = 'editor';
UPDATE collection_storage_users
  SET doc = '{"name": "Bob", "_ver": 42, "_created": 1, "_createdBy": "x", "_type": "user"}'
  WHERE id = 'user::1';
SELECT pg_temp.stamped(doc) FROM collection_storage_users WHERE id = 'user::1';
SELECT t.doc = v.doc AS same_as_view
FROM collection_storage_users t JOIN collection_storage_users_documents v USING (id);
COMMIT;

-- doc is NOT NULL; the failing row lists the table's five columns.
SELECT pg_temp.try($$INSERT INTO collection_storage_users VALUES ('user::9', NULL)$$);
-- The 20 MiB limit counts the stored document, stamps included: a body just
-- under the limit that the stamps push over is refused.
SELECT pg_temp.try($$INSERT INTO collection_storage_users VALUES ('user::9', jsonb_build_object('big', repeat('x', 20 * 1024 * 1024 - 20)))$$);
SELECT count(*) AS nothing_stored FROM collection_storage_users WHERE id LIKE 'user::9%';

SELECT docmodel.drop_collection('collection_storage_users');
SELECT count(*) AS left_over FROM docmodel.collections WHERE collection::text LIKE 'collection_storage%';
SELECT to_regclass('collection_storage_users') AS gone;
