-- Collections: create/drop, the trigger's stamping in every meta style and
-- time unit, and the same result from INSERT, UPDATE, ON CONFLICT, COPY and
-- the key-value functions. Documents are read whole through the view
-- <collection>_documents (or docmodel.get), so the output is the same whether
-- a collection made without meta_style has the underscore style or, with
-- docmodel.default_meta_style, columns (make test runs it both ways); what the
-- underscore style stores in the table itself is shown by collection_storage.
\i test/sql/include/try.sql
-- A document with its time stamps replaced by whether they equal now() in
-- the collection's unit (so the output does not depend on the clock).
CREATE FUNCTION pg_temp.stamped(doc jsonb, unit text DEFAULT 'ms') RETURNS jsonb
LANGUAGE sql AS $$
  WITH t(v) AS (SELECT CASE unit
      WHEN 'ms' THEN to_jsonb(floor(extract(epoch FROM now()) * 1000)::bigint)
      WHEN 's' THEN to_jsonb(floor(extract(epoch FROM now()))::bigint)
      WHEN 'min' THEN to_jsonb(floor(extract(epoch FROM now()) / 60)::bigint)
      WHEN 'h' THEN to_jsonb(floor(extract(epoch FROM now()) / 3600)::bigint)
      WHEN 'day' THEN to_jsonb(floor(extract(epoch FROM now()) / 86400)::bigint)
      WHEN 'iso' THEN to_jsonb(to_char(now() AT TIME ZONE 'UTC',
                                       'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) END)
  SELECT CASE
    WHEN doc ? 'meta' THEN
      jsonb_set(doc, '{meta}', (doc->'meta')
        || CASE WHEN doc->'meta' ? 'created' THEN jsonb_build_object('created', doc->'meta'->'created' = v) ELSE '{}' END
        || CASE WHEN doc->'meta' ? 'modified' THEN jsonb_build_object('modified', doc->'meta'->'modified' = v) ELSE '{}' END)
    WHEN doc ? '_modified' THEN doc
        || CASE WHEN doc ? '_created' THEN jsonb_build_object('_created', doc->'_created' = v) ELSE '{}' END
        || jsonb_build_object('_modified', doc->'_modified' = v)
    ELSE doc
        || CASE WHEN doc ? 'created' THEN jsonb_build_object('created', doc->'created' = v) ELSE '{}' END
        || jsonb_build_object('modified', doc->'modified' = v)
  END FROM t
$$;
SET docmodel.actor = 'tester';

-- create_collection makes an ordinary table with its trigger (its columns:
-- collection_storage), listed in the view; the default style is underscore, or
-- columns where docmodel.default_meta_style says so.
SELECT docmodel.create_collection('collection_users', doc_type => 'user');
SELECT collection, doc_type, revisions,
       CASE WHEN meta_style IN ('underscore', 'columns') THEN 'default style' ELSE meta_style END
         AS meta_style,
       time_unit, delimiter, revisions_table
FROM docmodel.collections ORDER BY config_id;
SELECT c.relkind, c.relname FROM pg_class c
WHERE c.oid IN ('collection_users'::regclass, 'collection_users_documents'::regclass)
ORDER BY c.relname;
SELECT tgname FROM pg_trigger WHERE tgrelid = 'collection_users'::regclass ORDER BY tgname;

-- The same stamped result from INSERT, INSERT ... ON CONFLICT, COPY and the
-- key-value functions (one transaction, so now() is the same for all).
BEGIN;
INSERT INTO collection_users (id, doc) VALUES ('user::1', '{"name": "Ann"}');
INSERT INTO collection_users (id, doc) VALUES ('user::2', '{"name": "Ann"}')
  ON CONFLICT (id) DO UPDATE SET doc = EXCLUDED.doc;
COPY collection_users (id, doc) FROM STDIN;
user::3	{"name": "Ann"}
\.
SELECT docmodel.insert('collection_users', 'user::4', '{"name": "Ann"}') > 0 AS insert;
SELECT docmodel.upsert('collection_users', 'user::5', '{"name": "Ann"}') > 0 AS upsert;
SELECT count(DISTINCT doc) AS distinct_docs, count(DISTINCT cas) AS distinct_cas
FROM collection_users_documents;
SELECT pg_temp.stamped(doc) FROM collection_users_documents WHERE id = 'user::1';
-- Updates alike: UPDATE, ON CONFLICT DO UPDATE, upsert, replace. The body's
-- management fields are ignored: _created/_createdBy are kept, _ver counts on.
SET LOCAL docmodel.actor = 'editor';
UPDATE collection_users SET doc = '{"name": "Bob", "_ver": 42, "_created": 1, "_createdBy": "x", "_type": "user"}'
  WHERE id = 'user::1';
INSERT INTO collection_users (id, doc) VALUES ('user::2', '{"name": "Bob", "_ver": 42, "_created": 1, "_createdBy": "x"}')
  ON CONFLICT (id) DO UPDATE SET doc = EXCLUDED.doc;
SELECT docmodel.upsert('collection_users', 'user::3', '{"name": "Bob", "_ver": 42, "_created": 1, "_createdBy": "x"}') > 0 AS upsert;
SELECT docmodel.replace('collection_users', 'user::4', '{"name": "Bob", "_ver": 42, "_created": 1, "_createdBy": "x"}') > 0 AS replace;
SELECT docmodel.replace('collection_users', 'user::5', '{"name": "Bob", "_ver": 42, "_created": 1, "_createdBy": "x"}',
  (SELECT cas FROM collection_users_documents WHERE id = 'user::5')) > 0 AS replace_with_cas;
SELECT count(DISTINCT doc) AS distinct_docs FROM collection_users_documents;
SELECT pg_temp.stamped(doc) FROM collection_users_documents WHERE id = 'user::1';
COMMIT;

-- Every write gives a new, larger cas; _ver counts from the stored row.
CREATE TEMP TABLE collection_before AS SELECT id, cas, doc FROM collection_users_documents;
UPDATE collection_users SET doc = doc || '{"n": 1}';
UPDATE collection_users SET doc = doc || '{"n": 2}';
SELECT u.id, u.cas > b.cas AS cas_grew, u.doc->'_ver' AS ver, u.doc->'n' AS n,
       u.doc->'_created' = b.doc->'_created' AS created_kept
FROM collection_users_documents u JOIN collection_before b USING (id) ORDER BY id;
-- An update that leaves doc alone (an expiry change) only changes cas.
UPDATE collection_users SET expires_at = now() + interval '1 day' WHERE id = 'user::1';
SELECT u.cas > b.cas AS cas_grew, u.doc->'_ver' AS ver
FROM collection_users_documents u JOIN collection_before b USING (id) WHERE id = 'user::1';
UPDATE collection_users SET expires_at = NULL WHERE id = 'user::1';
-- So does one that would change nothing but the restamped fields (_ver,
-- _modified, _modifiedBy): the stored document stays as it is, _ver included.
CREATE TEMP TABLE collection_before_noop AS SELECT id, cas, doc FROM collection_users_documents;
UPDATE collection_users SET doc = doc - '_modified' WHERE id = 'user::1';
UPDATE collection_users SET doc = doc || '{"_ver": 42, "_modifiedBy": "x"}' WHERE id = 'user::2';
UPDATE collection_users SET doc = doc || '{"_created": 1}' WHERE id = 'user::3';
SELECT u.id, u.cas > b.cas AS cas_grew, u.doc = b.doc AS doc_kept, u.doc->'_ver' AS ver
FROM collection_users_documents u JOIN collection_before_noop b USING (id)
WHERE id IN ('user::1', 'user::2', 'user::3') ORDER BY id;
DROP TABLE collection_before_noop;

-- The stored document is valid jsonb for any body: many keys (past the
-- 32-entry offset stride), numbers, nested containers, booleans, nulls,
-- unicode; it reads back equal to its own text form.
SELECT docmodel.create_collection('collection_shapes');
INSERT INTO collection_shapes
SELECT 'shape::' || n, (SELECT jsonb_object_agg('k' || i, CASE i % 6
    WHEN 0 THEN to_jsonb(i * 1.5) WHEN 1 THEN to_jsonb('s' || repeat('x', i))
    WHEN 2 THEN jsonb_build_object('a', i, 'b', jsonb_build_array(1, 'two', NULL, true))
    WHEN 3 THEN to_jsonb(i % 2 = 0) WHEN 4 THEN 'null'::jsonb ELSE to_jsonb('ü€' || i) END)
  FROM generate_series(1, n) AS i)
FROM unnest(ARRAY[1, 5, 31, 32, 33, 70]) AS n;
INSERT INTO collection_shapes VALUES ('shape::0', '{}');
UPDATE collection_shapes SET doc = doc || '{"extra": [1, {"z": 2.25}]}' WHERE id IN ('shape::33', 'shape::0');
SELECT id, doc = (doc::text)::jsonb AS reads_back, (SELECT count(*) FROM jsonb_each(doc)) AS keys,
       doc->'k33' AS k33, doc->'k32'->'b'->1 AS nested, doc->'extra' AS extra, doc->'_ver' AS ver
FROM collection_shapes_documents ORDER BY length(id), id;
SELECT docmodel.drop_collection('collection_shapes');

-- _type is set from the key's first part; a body may carry the same one.
SELECT docmodel.create_collection('collection_any');
INSERT INTO collection_any VALUES ('order::7', '{}'), ('order::8', '{"_type": "order"}'),
  ('config', '{}');
SELECT id, doc->'_type' AS type FROM collection_any_documents ORDER BY id;
-- Another delimiter.
SELECT docmodel.create_collection('collection_colon', delimiter => ':');
INSERT INTO collection_colon VALUES ('user:1:a', '{}');
SELECT id, doc->'_type' AS type FROM collection_colon_documents;
SELECT pg_temp.try($$INSERT INTO collection_colon VALUES ('user::1', '{}')$$);

-- Meta styles: the default (above), meta, plain. Other keys of "meta" are kept.
SELECT docmodel.create_collection('collection_meta', meta_style => 'meta');
SELECT docmodel.create_collection('collection_plain', meta_style => 'plain');
BEGIN;
INSERT INTO collection_meta VALUES ('user::1', '{"name": "Ann", "meta": {"tags": ["a"]}}');
SELECT pg_temp.stamped(doc) FROM collection_meta_documents;
INSERT INTO collection_plain VALUES ('user::1', '{"name": "Ann", "_keep": 1}');
SELECT pg_temp.stamped(doc) FROM collection_plain_documents;
COMMIT;
CREATE TEMP TABLE collection_saved AS
  SELECT 'meta' AS style, doc->'meta'->'created' AS created FROM collection_meta_documents
  UNION ALL SELECT 'plain', doc->'created' FROM collection_plain_documents;
BEGIN;
UPDATE collection_meta SET doc = '{"name": "Bob", "meta": {"type": "user", "ver": 9}}';
SELECT pg_temp.stamped(doc #- '{meta,created}') AS doc,
       doc->'meta'->'created' = (SELECT created FROM collection_saved WHERE style = 'meta') AS created_kept
FROM collection_meta_documents;
UPDATE collection_plain SET doc = doc || '{"name": "Bob", "ver": 9}';
SELECT pg_temp.stamped(doc - 'created') AS doc,
       doc->'created' = (SELECT created FROM collection_saved WHERE style = 'plain') AS created_kept
FROM collection_plain_documents;
COMMIT;

-- Time units.
SELECT docmodel.create_collection('collection_t_' || u, time_unit => u)
FROM unnest(ARRAY['ms', 's', 'min', 'h', 'day', 'iso']) AS u;
BEGIN;
INSERT INTO collection_t_ms VALUES ('t::1', '{}');
INSERT INTO collection_t_s VALUES ('t::1', '{}');
INSERT INTO collection_t_min VALUES ('t::1', '{}');
INSERT INTO collection_t_h VALUES ('t::1', '{}');
INSERT INTO collection_t_day VALUES ('t::1', '{}');
INSERT INTO collection_t_iso VALUES ('t::1', '{}');
SELECT 'ms' AS unit, pg_temp.stamped(doc, 'ms') AS stamped FROM collection_t_ms_documents
UNION ALL SELECT 's', pg_temp.stamped(doc, 's') FROM collection_t_s_documents
UNION ALL SELECT 'min', pg_temp.stamped(doc, 'min') FROM collection_t_min_documents
UNION ALL SELECT 'h', pg_temp.stamped(doc, 'h') FROM collection_t_h_documents
UNION ALL SELECT 'day', pg_temp.stamped(doc, 'day') FROM collection_t_day_documents
UNION ALL SELECT 'iso', pg_temp.stamped(doc, 'iso') FROM collection_t_iso_documents;
COMMIT;
SELECT jsonb_typeof(doc->'_modified') AS ms_type FROM collection_t_ms_documents;
SELECT doc->>'_modified' ~ '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$' AS iso_format FROM collection_t_iso_documents;

-- Without docmodel.actor, session_user is stamped.
RESET docmodel.actor;
INSERT INTO collection_t_ms VALUES ('t::2', '{}');
SELECT doc->>'_createdBy' = session_user AS created_by_session_user,
       doc->>'_modifiedBy' = session_user AS modified_by_session_user
FROM collection_t_ms_documents WHERE id = 't::2';
-- A role renamed since it last wrote is stamped by its new name.
CREATE ROLE collection_renamed;
GRANT ALL ON collection_t_ms TO collection_renamed;
SET SESSION AUTHORIZATION collection_renamed;
INSERT INTO collection_t_ms VALUES ('t::3', '{}');
RESET SESSION AUTHORIZATION;
ALTER ROLE collection_renamed RENAME TO collection_renamed2;
SET SESSION AUTHORIZATION collection_renamed2;
UPDATE collection_t_ms SET doc = '{"n": 1}' WHERE id = 't::3';
RESET SESSION AUTHORIZATION;
SELECT doc->>'_createdBy' AS created_by, doc->>'_modifiedBy' AS modified_by
FROM collection_t_ms_documents WHERE id = 't::3';
DELETE FROM collection_t_ms WHERE id = 't::3';
REVOKE ALL ON collection_t_ms FROM collection_renamed2;
DROP ROLE collection_renamed2;
SET docmodel.actor = 'tester';

-- Errors of the trigger, for plain SQL and the functions alike.
SELECT pg_temp.try($$INSERT INTO collection_users VALUES ('user::', '{}')$$);
SELECT pg_temp.try($$INSERT INTO collection_users VALUES ('user::a' || chr(1), '{}')$$);
SELECT pg_temp.try($$INSERT INTO collection_users VALUES ('user::' || repeat('x', 250), '{}')$$);
SELECT pg_temp.try($$INSERT INTO collection_users VALUES (NULL, '{}')$$);
-- (The failing row the error lists has the table's columns, which differ by
-- style: shown whole by collection_storage.)
SELECT regexp_replace(pg_temp.try($$INSERT INTO collection_users VALUES ('user::9', NULL)$$),
                      ' \(Failing row contains .*\)$', '') AS try;
SELECT pg_temp.try($$INSERT INTO collection_users VALUES ('user::9', '[1, 2]')$$);
SELECT pg_temp.try($$INSERT INTO collection_users VALUES ('user::9', '"text"')$$);
SELECT pg_temp.try($$SELECT docmodel.upsert('collection_users', 'user::9', '42')$$);
SELECT pg_temp.try($$INSERT INTO collection_users VALUES ('user::9', '{"_type": "order"}')$$);
SELECT pg_temp.try($$INSERT INTO collection_users VALUES ('user::9', '{"_type": 1}')$$);
SELECT pg_temp.try($$INSERT INTO collection_users VALUES ('order::9', '{}')$$);
SELECT pg_temp.try($$SELECT docmodel.insert('collection_users', 'order::9', '{}')$$);
SELECT pg_temp.try($$INSERT INTO collection_meta VALUES ('user::9', '{"meta": {"type": "order"}}')$$);
SELECT pg_temp.try($$INSERT INTO collection_plain VALUES ('user::9', '{"type": "order"}')$$);
SELECT pg_temp.try($$INSERT INTO collection_meta VALUES ('user::9', '{"meta": 1}')$$);
SELECT pg_temp.try($$UPDATE collection_users SET id = 'user::99' WHERE id = 'user::1'$$);
SELECT pg_temp.try($$INSERT INTO collection_users VALUES ('user::9', jsonb_build_object('big', repeat('x', 21 * 1024 * 1024)))$$);
SELECT pg_temp.try($$SELECT docmodel.upsert('collection_users', 'user::9', jsonb_build_object('big', repeat('x', 21 * 1024 * 1024)))$$);
-- (Just under the limit, where the stamps the table's doc holds push it
-- over: collection_storage.)
SELECT count(*) AS nothing_stored FROM collection_users_documents WHERE id LIKE 'user::9%';

-- Errors of create_collection and drop_collection.
SELECT pg_temp.try($$SELECT docmodel.create_collection('collection_x', meta_style => 'camel')$$);
SELECT pg_temp.try($$SELECT docmodel.create_collection('collection_x', time_unit => 'week')$$);
SELECT pg_temp.try($$SELECT docmodel.create_collection('collection_x', delimiter => 'x')$$);
SELECT pg_temp.try($$SELECT docmodel.create_collection('collection_x', delimiter => '')$$);
SELECT pg_temp.try($$SELECT docmodel.create_collection('collection_x', doc_type => 'a::b')$$);
SELECT pg_temp.try($$SELECT docmodel.create_collection('collection_x', doc_type => '')$$);
SELECT pg_temp.try($$SELECT docmodel.create_collection('collection_x', revisions => -1)$$);
SELECT pg_temp.try($$SELECT docmodel.create_collection('')$$);
SELECT pg_temp.try($$SELECT docmodel.create_collection('a.b.c')$$);
SELECT pg_temp.try($$SELECT docmodel.create_collection('collection_users')$$);
CREATE TABLE collection_plain_table (id text);
SELECT pg_temp.try($$SELECT docmodel.drop_collection('collection_plain_table')$$);
SELECT pg_temp.try($$SELECT docmodel.get('collection_plain_table', 'a')$$);
SELECT pg_temp.try($$SELECT docmodel.upsert('collection_plain_table', 'a', '{}')$$);
DROP TABLE collection_plain_table;
SELECT collection FROM docmodel.collections WHERE collection::text LIKE 'collection_x%';

-- Schema-qualified and quoted names.
CREATE SCHEMA collection_s;
SELECT docmodel.create_collection('collection_s."Mixed Case"');
INSERT INTO collection_s."Mixed Case" VALUES ('a::1', '{}');
SELECT docmodel.get('collection_s."Mixed Case"', 'a::1')->'_ver' AS ver;
SELECT docmodel.drop_collection('collection_s."Mixed Case"');
-- An unqualified name is created in the caller's current schema.
SET search_path = collection_s, public;
SELECT docmodel.create_collection('in_s');
RESET search_path;
SELECT collection FROM docmodel.collections WHERE collection::text LIKE '%in_s';
SELECT docmodel.drop_collection('collection_s.in_s');
DROP SCHEMA collection_s;

-- A change of the configuration reaches the trigger (the cache is invalidated).
-- An underscore collection whatever the default style: editing meta_style in
-- the configuration moves no stamps, and underscore keeps them in doc.
SELECT docmodel.create_collection('collection_cfg', meta_style => 'underscore');
INSERT INTO collection_cfg VALUES ('c::1', '{}');
UPDATE docmodel.collection_config SET time_unit = 'iso', meta_style = 'plain'
WHERE coll = 'collection_cfg'::regclass;
INSERT INTO collection_cfg VALUES ('c::2', '{}');
SELECT id, jsonb_typeof(doc->'_modified') AS underscore_modified, jsonb_typeof(doc->'modified') AS plain_modified
FROM collection_cfg_documents ORDER BY id;
-- Without its configuration row, the trigger refuses to guess.
DELETE FROM docmodel.collection_config WHERE coll = 'collection_cfg'::regclass;
SELECT regexp_replace(pg_temp.try($$INSERT INTO collection_cfg VALUES ('c::3', '{}')$$),
                      '(collection|configuration) \d+', '\1 N', 'g') AS try;
DROP TABLE collection_cfg CASCADE;

-- drop_collection drops the table and its configuration.
SELECT docmodel.drop_collection(c) FROM unnest(ARRAY['collection_any', 'collection_colon',
  'collection_meta', 'collection_plain', 'collection_t_ms', 'collection_t_s', 'collection_t_min',
  'collection_t_h', 'collection_t_day', 'collection_t_iso', 'collection_users']::regclass[]) AS c;
SELECT count(*) AS left_over FROM docmodel.collections;
SELECT to_regclass('collection_users') AS gone;
