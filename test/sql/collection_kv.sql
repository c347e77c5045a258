-- The key-value API: get, get_multi, insert, upsert, replace, remove, touch,
-- purge_expired; CAS, expiry, privileges, renames.
\i test/sql/include/try.sql
-- The same, with CAS values (clock-based) masked.
CREATE FUNCTION pg_temp.try_cas(sql text) RETURNS text LANGUAGE sql AS $$
  SELECT regexp_replace(pg_temp.try(sql), '\d{12,}', '<cas>', 'g')
$$;
SET docmodel.actor = 'kv';
SELECT docmodel.create_collection('collection_kv') IS NOT NULL AS created;

-- insert returns the new cas (the stored one); a second insert is refused.
CREATE TEMP TABLE collection_cas (step text, cas bigint);
INSERT INTO collection_cas SELECT 'insert', docmodel.insert('collection_kv', 'user::1', '{"name": "Ann"}');
SELECT c.cas = k.cas AS returned_is_stored FROM collection_cas c, collection_kv k WHERE k.id = 'user::1';
SELECT docmodel.get('collection_kv', 'user::1') - '{_created,_modified}'::text[] AS doc;
SELECT pg_temp.try($$SELECT docmodel.insert('collection_kv', 'user::1', '{"name": "Bob"}')$$);
SELECT docmodel.get('collection_kv', 'user::1')->>'name' AS name_unchanged;

-- upsert inserts or replaces.
SELECT docmodel.upsert('collection_kv', 'user::2', '{"name": "Cy"}') > 0 AS upsert_new;
SELECT docmodel.upsert('collection_kv', 'user::2', '{"name": "Cy2"}') > 0 AS upsert_existing;
SELECT docmodel.get('collection_kv', 'user::2') - '{_created,_modified}'::text[] AS doc;

-- replace: without cas, with the current cas, with a stale cas.
SELECT docmodel.replace('collection_kv', 'user::1', '{"name": "Ann2"}') > 0 AS replaced;
INSERT INTO collection_cas SELECT 'current', cas FROM collection_kv WHERE id = 'user::1';
SELECT docmodel.replace('collection_kv', 'user::1', '{"name": "Ann3"}',
  (SELECT cas FROM collection_cas WHERE step = 'current')) > (SELECT cas FROM collection_cas WHERE step = 'current') AS replaced_with_cas;
SELECT pg_temp.try_cas($$SELECT docmodel.replace('collection_kv', 'user::1', '{"name": "stale"}',
  (SELECT cas FROM collection_cas WHERE step = 'current'))$$);
SELECT docmodel.get('collection_kv', 'user::1') ->> 'name' AS name, docmodel.get('collection_kv', 'user::1') -> '_ver' AS ver;
SELECT pg_temp.try($$SELECT docmodel.replace('collection_kv', 'user::404', '{}')$$);
SELECT pg_temp.try($$SELECT docmodel.replace('collection_kv', 'user::404', '{}', 123)$$);

-- get_multi: the present ones, in the order asked; get of an absent key is NULL.
SELECT key, doc->>'name' AS name, cas > 0 AS has_cas
FROM docmodel.get_multi('collection_kv', ARRAY['user::2', 'user::404', 'user::1', 'user::2']);
SELECT docmodel.get('collection_kv', 'user::404') IS NULL AS absent;

-- remove: stale cas refused, absent refused, then removed (returns the cas it had).
SELECT pg_temp.try_cas($$SELECT docmodel.remove('collection_kv', 'user::2', 1)$$);
INSERT INTO collection_cas SELECT 'before remove', cas FROM collection_kv WHERE id = 'user::2';
SELECT docmodel.remove('collection_kv', 'user::2', (SELECT cas FROM collection_cas WHERE step = 'before remove'))
  = (SELECT cas FROM collection_cas WHERE step = 'before remove') AS removed;
SELECT pg_temp.try($$SELECT docmodel.remove('collection_kv', 'user::2')$$);
SELECT docmodel.get('collection_kv', 'user::2') IS NULL AS gone;

-- Bad arguments.
SELECT pg_temp.try($$SELECT docmodel.insert('collection_kv', NULL, '{}')$$);
SELECT pg_temp.try($$SELECT docmodel.upsert('collection_kv', 'user::5', NULL)$$);
SELECT pg_temp.try($$SELECT docmodel.upsert(NULL, 'user::5', '{}')$$);
SELECT pg_temp.try($$SELECT docmodel.insert('collection_kv', 'user::', '{}')$$);
SELECT pg_temp.try($$SELECT docmodel.insert('collection_kv', 'user::5', '{}', interval '-1 second')$$);
SELECT pg_temp.try($$SELECT docmodel.touch('collection_kv', 'user::1', interval '0')$$);
SELECT docmodel.get('collection_kv', NULL) IS NULL AS get_null_key;

-- Expiry: an expired document is absent everywhere, and insert replaces it.
BEGIN;
SELECT docmodel.insert('collection_kv', 'session::1', '{"user": "user::1"}', interval '1 hour') > 0 AS inserted;
SELECT expires_at = now() + interval '1 hour' AS expires_in_an_hour FROM collection_kv WHERE id = 'session::1';
SELECT docmodel.touch('collection_kv', 'session::1', interval '2 hours') > 0 AS touched;
SELECT expires_at = now() + interval '2 hours' AS expires_in_two_hours,
       doc->'_ver' AS ver_unchanged_by_touch FROM collection_kv_documents WHERE id = 'session::1';
COMMIT;
SELECT docmodel.touch('collection_kv', 'session::1', NULL) > 0 AS expiry_cleared;
SELECT expires_at IS NULL AS no_expiry FROM collection_kv WHERE id = 'session::1';
-- Let it expire (a plain UPDATE of expires_at, as if time had passed).
UPDATE collection_kv SET doc = doc || '{"n": 2}', expires_at = now() - interval '1 second' WHERE id = 'session::1';
SELECT docmodel.get('collection_kv', 'session::1') IS NULL AS get_absent;
SELECT count(*) AS get_multi_absent FROM docmodel.get_multi('collection_kv', '{session::1}');
SELECT pg_temp.try($$SELECT docmodel.replace('collection_kv', 'session::1', '{}')$$);
SELECT pg_temp.try($$SELECT docmodel.remove('collection_kv', 'session::1')$$);
SELECT pg_temp.try($$SELECT docmodel.touch('collection_kv', 'session::1', interval '1 hour')$$);
INSERT INTO collection_cas SELECT 'expired', cas FROM collection_kv WHERE id = 'session::1';
SELECT docmodel.insert('collection_kv', 'session::1', '{"user": "user::9"}', interval '1 hour')
  > (SELECT cas FROM collection_cas WHERE step = 'expired') AS inserted_over_expired;
SELECT doc - '{_created,_modified}'::text[] AS fresh_document FROM collection_kv_documents WHERE id = 'session::1';
-- purge_expired deletes expired documents only.
INSERT INTO collection_kv (id, doc, expires_at) VALUES
  ('session::2', '{}', now() - interval '1 minute'), ('session::3', '{}', now() - interval '1 day');
SELECT docmodel.purge_expired('collection_kv') AS purged;
SELECT docmodel.purge_expired('collection_kv') AS purged_again;
SELECT id FROM collection_kv ORDER BY id;

-- Privileges: a role with SELECT only can get but not write.
CREATE ROLE collection_reader;
GRANT SELECT ON collection_kv TO collection_reader;
SET ROLE collection_reader;
SELECT docmodel.get('collection_kv', 'user::1') ->> 'name' AS reader_gets;
SELECT count(*) AS reader_get_multi FROM docmodel.get_multi('collection_kv', '{user::1}');
SELECT pg_temp.try($$SELECT docmodel.upsert('collection_kv', 'user::1', '{}')$$);
SELECT pg_temp.try($$SELECT docmodel.insert('collection_kv', 'user::7', '{}')$$);
SELECT pg_temp.try($$SELECT docmodel.replace('collection_kv', 'user::1', '{}')$$);
SELECT pg_temp.try($$SELECT docmodel.remove('collection_kv', 'user::1')$$);
SELECT pg_temp.try($$SELECT docmodel.touch('collection_kv', 'user::1', NULL)$$);
SELECT pg_temp.try($$SELECT docmodel.purge_expired('collection_kv')$$);
RESET ROLE;
-- A role that may write gets its own name stamped (no actor set).
CREATE ROLE collection_writer;
GRANT SELECT, INSERT, UPDATE, DELETE ON collection_kv TO collection_writer;
RESET docmodel.actor;
SET SESSION AUTHORIZATION collection_writer;
SELECT docmodel.upsert('collection_kv', 'user::8', '{}') > 0 AS writer_upserts;
SELECT docmodel.get('collection_kv', 'user::8')->>'_createdBy' AS created_by;
RESET SESSION AUTHORIZATION;
SET docmodel.actor = 'kv';
REVOKE ALL ON collection_kv FROM collection_reader, collection_writer;
DROP ROLE collection_reader;
DROP ROLE collection_writer;

-- Renames: the functions follow the table, a new table under the old name
-- is not written to.
ALTER TABLE collection_kv RENAME TO collection_kv2;
CREATE TABLE collection_kv (id text PRIMARY KEY, doc jsonb, cas bigint, expires_at timestamptz);
SELECT docmodel.get('collection_kv2', 'user::1') ->> 'name' AS after_rename;
SELECT docmodel.upsert('collection_kv2', 'user::1', '{"name": "renamed"}') > 0 AS upsert_after_rename;
SELECT count(*) AS old_name_untouched FROM collection_kv;
INSERT INTO collection_kv2 VALUES ('user::20', '{}');
SELECT docmodel.get('collection_kv2', 'user::20')->'_type' AS trigger_after_rename;
DROP TABLE collection_kv;
CREATE SCHEMA collection_elsewhere;
ALTER TABLE collection_kv2 SET SCHEMA collection_elsewhere;
SELECT docmodel.get('collection_elsewhere.collection_kv2', 'user::1') ->> 'name' AS after_move;
SELECT docmodel.replace('collection_elsewhere.collection_kv2', 'user::1', '{"name": "moved"}') > 0 AS replace_after_move;
SELECT collection FROM docmodel.collections;

-- drop_collection drops table and configuration.
SELECT docmodel.drop_collection('collection_elsewhere.collection_kv2');
DROP SCHEMA collection_elsewhere;
SELECT count(*) AS collections_left FROM docmodel.collections;
