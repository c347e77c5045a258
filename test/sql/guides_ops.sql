-- The modeling guides' operations as the guides write them:
-- imports that keep their stamps (docmodel.keep_stamps,
-- key_from_template, uuid_key's delimiter), key renames (rename_key) and
-- bounded arrays and buckets (mutate_in's "max", bucket_append); every
-- error with its SQLSTATE and message, and the privileges.
\i test/sql/include/try.sql
CREATE FUNCTION pg_temp.try_cas(sql text) RETURNS text LANGUAGE sql AS $$
  SELECT regexp_replace(regexp_replace(pg_temp.try(sql), '\d{12,}', '<cas>', 'g'),
                        'ends in .*', 'ends in ...)')
$$;
SET docmodel.actor = 'importer';

\echo == keep_stamps: the user::123 export keeps _ver 2, _created and _schema "1.0"
SELECT docmodel.create_collection('users', revisions => 5) IS NOT NULL AS created;
SHOW docmodel.keep_stamps;
-- without the setting: _ver 1, _created now (what the guide warns of)
INSERT INTO users (id, doc, cas) VALUES ('user::123', '{"_type": "user",
  "_ver": 2, "_created": 1544759124000, "_schema": "1.0", "name": "Ann"}', 0);
SELECT doc->'_ver' AS ver, doc->'_created' = '1544759124000' AS created_kept,
       doc->'_schema' AS schema FROM users_documents;
DELETE FROM users;
TRUNCATE users_revisions;
SET docmodel.keep_stamps = on;
INSERT INTO users (id, doc, cas) VALUES ('user::123', '{"_type": "user",
  "_ver": 2, "_created": 1544759124000, "_schema": "1.0", "name": "Ann"}', 0);
-- kept: _ver, _created, _schema; filled: _createdBy, _modified, _modifiedBy
SELECT doc->'_ver' AS ver, doc->'_created' AS created, doc->'_schema' AS schema,
       doc->>'_createdBy' AS created_by, doc ? '_modified' AS modified_filled,
       cas > 0 AS new_cas FROM users_documents;
-- an export carrying every stamp keeps them all
INSERT INTO users (id, doc, cas) VALUES ('user::124', '{"_ver": 7,
  "_created": 1544759124000, "_createdBy": "couchbase", "_modified": 1544759999000,
  "_modifiedBy": "app", "name": "Bob"}', 0);
SELECT doc - 'name' AS stamps FROM users_documents WHERE id = 'user::124';
-- the next ordinary write continues from the kept _ver; revision 7 is the imported body
SET docmodel.keep_stamps = off;
UPDATE users SET doc = doc || '{"name": "Bob B."}' WHERE id = 'user::124';
SELECT doc->'_ver' AS ver, doc->'_created' AS created, doc->>'_modifiedBy' AS modified_by
  FROM users_documents WHERE id = 'user::124';
SELECT ver, op, doc->>'name' AS name FROM docmodel.revisions('users', 'user::124');
SET docmodel.keep_stamps = on;
-- an update keeping a newer _ver (a second import of a newer export)
UPDATE users SET doc = '{"_ver": 9, "_created": 1544759124000, "name": "Bob C."}' WHERE id = 'user::124';
SELECT doc->'_ver' AS ver FROM users_documents WHERE id = 'user::124';
-- the same export loaded again changes nothing (a no-op write)
UPDATE users SET doc = '{"_ver": 9, "_created": 1544759124000, "_createdBy": "couchbase", "name": "Bob C."}' WHERE id = 'user::124';
SELECT doc->'_ver' AS ver FROM users_documents WHERE id = 'user::124';

\echo == keep_stamps errors: a version going back, a version that is not a whole number
SELECT pg_temp.try($$UPDATE users SET doc = '{"_ver": 3, "name": "older"}' WHERE id = 'user::124'$$);
SELECT pg_temp.try($$INSERT INTO users (id, doc, cas) VALUES ('user::125', '{"_ver": "1.0"}', 0)$$);
SELECT pg_temp.try($$INSERT INTO users (id, doc, cas) VALUES ('user::125', '{"_ver": 0}', 0)$$);
SELECT pg_temp.try($$INSERT INTO users (id, doc, cas) VALUES ('user::125', '{"_ver": 1.5}', 0)$$);
-- a key whose history is ahead: a deleted user::124 is at revision 9
DELETE FROM users WHERE id = 'user::124';
SELECT pg_temp.try($$INSERT INTO users (id, doc, cas) VALUES ('user::124', '{"_ver": 4}', 0)$$);
SELECT pg_temp.try($$INSERT INTO users (id, doc, cas) VALUES ('user::124', '{"_ver": 12}', 0)$$);
SELECT doc->'_ver' AS ver FROM users_documents WHERE id = 'user::124';

\echo == keep_stamps in the meta and plain styles
SELECT docmodel.create_collection('meta_users', meta_style => 'meta') IS NOT NULL AS created;
INSERT INTO meta_users (id, doc, cas) VALUES ('user::1', '{"meta": {"ver": 4, "created": 1544759124000, "source": "cb"}, "name": "Ann"}', 0);
SELECT doc->'meta'->'ver' AS ver, doc->'meta'->'created' AS created, doc->'meta'->>'source' AS source FROM meta_users;
SELECT docmodel.create_collection('tracks', meta_style => 'plain') IS NOT NULL AS created;
-- a track whose own "ver" is its version text cannot keep it as the document version
SELECT pg_temp.try($$INSERT INTO tracks (id, doc, cas) VALUES ('track::1', '{"ver": "1.0", "title": "Song"}', 0)$$);
INSERT INTO tracks (id, doc, cas) VALUES ('track::2', '{"ver": 3, "created": 1544759124000, "title": "Song"}', 0);
SELECT doc->'ver' AS ver, doc->'created' AS created FROM tracks;
-- the decision is per statement: within one transaction, an owner that
-- gives the collection away cannot keep stamps in its next statement
CREATE ROLE guides_owner2;
GRANT CREATE ON SCHEMA public TO guides_owner2;
SET ROLE guides_owner2;
SELECT docmodel.create_collection('handed') IS NOT NULL AS created;
RESET ROLE;
BEGIN;
SET LOCAL ROLE guides_owner2;
SELECT pg_temp.try($$INSERT INTO handed (id, doc, cas) VALUES ('user::1', '{"_ver": 3}', 0)$$);
RESET ROLE;
ALTER TABLE handed OWNER TO CURRENT_USER;
GRANT SELECT, INSERT ON handed TO guides_owner2;
SET LOCAL ROLE guides_owner2;
SELECT pg_temp.try($$INSERT INTO handed (id, doc, cas) VALUES ('user::2', '{"_ver": 3}', 0)$$);
ROLLBACK;
REVOKE CREATE ON SCHEMA public FROM guides_owner2;

\echo == keep_stamps is for the owner and superusers: others get 42501, checked once per statement
CREATE ROLE guides_writer;
GRANT SELECT, INSERT, UPDATE, DELETE ON users TO guides_writer;
SET ROLE guides_writer;
SET docmodel.keep_stamps = on;
SELECT pg_temp.try($$INSERT INTO users (id, doc, cas) VALUES ('user::200', '{"_ver": 5}', 0)$$);
SELECT pg_temp.try($$INSERT INTO users (id, doc, cas) SELECT 'user::' || g, '{}', 0 FROM generate_series(300, 302) g$$);
SET docmodel.keep_stamps = off;
SELECT pg_temp.try($$INSERT INTO users (id, doc, cas) VALUES ('user::200', '{"_ver": 5}', 0)$$);
SELECT docmodel.get('users', 'user::200')->'_ver' AS ver_stamped;
RESET ROLE;
-- an owner that is not a superuser may
CREATE ROLE guides_owner;
GRANT CREATE ON SCHEMA public TO guides_owner;
SET ROLE guides_owner;
SELECT docmodel.create_collection('owned') IS NOT NULL AS created;
SET docmodel.keep_stamps = on;
INSERT INTO owned (id, doc, cas) VALUES ('user::1', '{"_ver": 5}', 0);
SELECT doc->'_ver' AS ver_kept FROM owned_documents;
RESET ROLE;
REVOKE CREATE ON SCHEMA public FROM guides_owner;
SET docmodel.keep_stamps = on;

\echo == a worked import: JSON lines into a staging table, one INSERT ... SELECT
CREATE TEMP TABLE staging (line jsonb);
INSERT INTO staging VALUES
  ('{"type": "user", "id": 501, "name": "Cy", "_ver": 3, "_created": 1544759124000}'),
  ('{"type": "user", "id": 502, "name": "Di", "address": {"city": "Oslo"}}');
INSERT INTO users (id, doc, cas)
  SELECT docmodel.key_from_template(line, '%type%::%id%'), line - '{type,id}'::text[], 0
  FROM staging;
SELECT id, doc->'_ver' AS ver, doc->>'name' AS name FROM users_documents WHERE id LIKE 'user::50_' ORDER BY id;
-- and back out as JSON lines, the key folded into the document
SELECT ((doc - '{_created,_modified}'::text[]) || jsonb_build_object('id', docmodel.key_id(id)))::text AS line
  FROM users_documents WHERE id LIKE 'user::50_' ORDER BY id;
SET docmodel.keep_stamps = off;

\echo == key_from_template: the --generate-key syntax of cbimport
SELECT docmodel.key_from_template('{"type": "user", "id": 123}', '%type%::%id%');
SELECT docmodel.key_from_template('{"name": "fred", "address": {"zip": "10115"}}', 'key::%name%::%address.zip%');
SELECT docmodel.key_from_template('{"ok": true, "n": 1.50}', '%ok%-%n%-100%%');
SELECT docmodel.key_from_template('{}', 'user::#UUID#') ~ '^user::[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$' AS uuid;
-- #MONO_INCR# counts from 1 within each statement
SELECT docmodel.key_from_template(jsonb_build_object('name', n), '%name%::#MONO_INCR#')
  FROM unnest('{a,b,c}'::text[]) AS n;
SELECT docmodel.key_from_template('{"name": "d"}', '%name%::#MONO_INCR#');
SELECT docmodel.key_from_template('{"a": 1}', '#UUID##MONO_INCR#') ~ '-[0-9a-f]{12}1$' AS adjacent;
SELECT docmodel.key_from_template('{"a": 1}', 'a#b#%a%');
SELECT pg_temp.try($$SELECT docmodel.key_from_template('{"type": "user"}', '%type%::%id%')$$);
SELECT pg_temp.try($$SELECT docmodel.key_from_template('{"a": {"b": 1}}', '%a.c%')$$);
SELECT pg_temp.try($$SELECT docmodel.key_from_template('{"a": {"b": 1}}', '%a%')$$);
SELECT pg_temp.try($$SELECT docmodel.key_from_template('{"a": null}', '%a%')$$);
SELECT pg_temp.try($$SELECT docmodel.key_from_template('{"a": 1}', 'user::%a')$$);
SELECT pg_temp.try($$SELECT docmodel.key_from_template('{"a": 1}', '')$$);
SELECT pg_temp.try($$SELECT docmodel.key_from_template('[1]', '%a%')$$);
SELECT pg_temp.try($$SELECT docmodel.key_from_template('{"a": 1}', '%a..b%')$$);
SELECT pg_temp.try($$SELECT docmodel.key_from_template(jsonb_build_object('a', repeat('x', 251)), '%a%')$$);

\echo == uuid_key with the delimiter of the guide (user:23ad6bac...)
SELECT docmodel.uuid_key('user', ':') ~ '^user:[0-9a-f]{32}$' AS colon;
SELECT docmodel.uuid_key('user') ~ '^user::[0-9a-f]{32}$' AS default_delimiter;
SELECT pg_temp.try($$SELECT docmodel.uuid_key('user', 'x')$$);
SELECT pg_temp.try($$SELECT docmodel.uuid_key('user:', ':')$$) ~ '^22023: invalid key' AS merged;

\echo == rename_key: the login rename user:jdoh -> user:jdoe
SELECT docmodel.create_collection('logins', revisions => 10, delimiter => ':') IS NOT NULL AS created;
SET docmodel.actor = 'signup';
SELECT docmodel.insert('logins', 'user:jdoh', '{"name": "John Doe"}') > 0 AS inserted;
SET docmodel.actor = 'app';
UPDATE logins SET doc = doc || '{"email": "jd@example.com"}' WHERE id = 'user:jdoh';
UPDATE logins SET doc = doc || '{"plan": "pro"}' WHERE id = 'user:jdoh';
CREATE TEMP TABLE before AS SELECT doc, cas FROM logins_documents WHERE id = 'user:jdoh';
SELECT docmodel.rename_key('logins', 'user:jdoh', 'user:jdoe') > (SELECT cas FROM before) AS new_cas;
SELECT id, doc->'_ver' AS ver, doc->'_created' = (SELECT doc->'_created' FROM before) AS created_kept,
       doc->>'_createdBy' AS created_by, doc->>'_modifiedBy' AS modified_by,
       doc - '{_ver,_created,_modified,_createdBy,_modifiedBy}'::text[] AS body
  FROM logins_documents;
-- the new key's history goes on from the old one's; the old one ends with op rename
SELECT ver, op, doc->>'plan' AS plan FROM docmodel.revisions('logins', 'user:jdoe');
SELECT ver, op FROM docmodel.revisions('logins', 'user:jdoh');
-- the old key, inserted again, numbers after its rename revision
SELECT docmodel.insert('logins', 'user:jdoh', '{"name": "Another J."}') > 0 AS reinserted;
SELECT doc->'_ver' AS ver FROM logins_documents WHERE id = 'user:jdoh';
SELECT docmodel.remove('logins', 'user:jdoh') > 0 AS removed;

\echo == rename_key errors: 23505, P0002, 40001, 55P03, 22023
SELECT docmodel.insert('logins', 'user:other', '{}') > 0 AS inserted;
SELECT pg_temp.try($$SELECT docmodel.rename_key('logins', 'user:jdoe', 'user:other')$$);
-- a key with history (user:jdoh was removed) is taken too
SELECT pg_temp.try($$SELECT docmodel.rename_key('logins', 'user:jdoe', 'user:jdoh')$$);
SELECT pg_temp.try($$SELECT docmodel.rename_key('logins', 'user:nobody', 'user:x')$$);
SELECT pg_temp.try_cas($$SELECT docmodel.rename_key('logins', 'user:jdoe', 'user:x', 1)$$);
SELECT pg_temp.try($$SELECT docmodel.rename_key('logins', 'user:jdoe', 'user:jdoe')$$);
SELECT pg_temp.try($$SELECT docmodel.rename_key('logins', 'user:jdoe', 'user::x')$$);
SELECT pg_temp.try($$SELECT docmodel.rename_key('logins', 'user:jdoe', 'order:1')$$);
SELECT pg_temp.try($$SELECT docmodel.rename_key('logins', 'user:jdoe', NULL)$$);
-- nothing moved
SELECT id, doc->'_ver' AS ver FROM logins_documents ORDER BY id;
-- a locked document moves only with the lock's cas
CREATE TEMP TABLE held AS SELECT cas FROM docmodel.get_and_lock('logins', 'user:jdoe', 10);
SELECT pg_temp.try_cas($$SELECT docmodel.rename_key('logins', 'user:jdoe', 'user:john')$$);
SELECT pg_temp.try_cas($$SELECT docmodel.rename_key('logins', 'user:jdoe', 'user:john', 5)$$);
SELECT docmodel.rename_key('logins', 'user:jdoe', 'user:john', (SELECT cas FROM held)) > 0 AS renamed;
SELECT id, doc->'_ver' AS ver, locked_until IS NULL AS unlocked FROM logins_documents ORDER BY id;
-- an expired document is absent
SELECT docmodel.insert('logins', 'user:gone', '{}') > 0 AS inserted;
UPDATE logins SET expires_at = now() - interval '1 hour' WHERE id = 'user:gone';
SELECT pg_temp.try($$SELECT docmodel.rename_key('logins', 'user:gone', 'user:back')$$);
-- with history, an expired document at the new key would be filed as its
-- revision: the key is taken (purge_expired frees it)
SELECT pg_temp.try($$SELECT docmodel.rename_key('logins', 'user:john', 'user:gone')$$);
SELECT docmodel.purge_expired('logins');
DELETE FROM logins_revisions WHERE id = 'user:gone';
SELECT docmodel.rename_key('logins', 'user:john', 'user:gone') > 0 AS renamed;
SELECT id, doc->'_ver' AS ver FROM logins_documents ORDER BY id;

\echo == rename_key privileges: INSERT and DELETE, as the writes it makes
GRANT SELECT, INSERT, UPDATE ON logins TO guides_writer;
SET ROLE guides_writer;
SELECT pg_temp.try($$SELECT docmodel.rename_key('logins', 'user:other', 'user:other2')$$);
RESET ROLE;
GRANT DELETE ON logins TO guides_writer;
SET ROLE guides_writer;
SELECT docmodel.rename_key('logins', 'user:other', 'user:other2') > 0 AS renamed_by_writer;
RESET ROLE;
-- without history, the version still continues
SELECT docmodel.create_collection('plain_logins', delimiter => ':') IS NOT NULL AS created;
SELECT docmodel.insert('plain_logins', 'user:a', '{}') > 0 AS inserted;
UPDATE plain_logins SET doc = '{"x": 1}';
SELECT docmodel.rename_key('plain_logins', 'user:a', 'user:b') > 0 AS renamed;
SELECT id, doc->'_ver' AS ver FROM plain_logins_documents;
-- without history, an expired document at the new key is written over; the expiry moves along
SELECT docmodel.insert('plain_logins', 'user:c', '{}', expiry => 3600) > 0 AS inserted;
SELECT docmodel.insert('plain_logins', 'user:d', '{}') > 0 AS inserted;
UPDATE plain_logins SET expires_at = now() - interval '1 hour' WHERE id = 'user:d';
SELECT docmodel.rename_key('plain_logins', 'user:c', 'user:d') > 0 AS over_expired;
SELECT id, doc->'_ver' AS ver, expires_at > now() AS expiry_kept FROM plain_logins_documents ORDER BY id;

\echo == "max": the post keeps its 3 most recent comments (Cosmos DB)
SELECT docmodel.create_collection('posts') IS NOT NULL AS created;
SELECT docmodel.insert('posts', 'post::1', '{"title": "Hello", "recentComments": []}') > 0 AS inserted;
SELECT docmodel.mutate_in('posts', 'post::1', format('[{"op": "array_append", "path": "recentComments", "value": {"id": %s}, "max": 3}]', g)::jsonb) ? 'cas'
  FROM generate_series(1, 5) g;
SELECT doc->'recentComments' AS recent, doc->'_ver' AS ver FROM posts_documents;
-- prepend keeps the first max (the newest at the front)
SELECT docmodel.mutate_in('posts', 'post::1', '[{"op": "array_prepend", "path": "recentComments", "values": [{"id": 7}, {"id": 6}], "max": 3}]') ? 'cas';
SELECT doc->'recentComments' AS recent FROM posts;
SELECT docmodel.mutate_in('posts', 'post::1', '[{"op": "array_append", "path": "tags", "values": [1, 2, 3, 4], "max": 2, "create_path": true}]') ? 'cas';
SELECT doc->'tags' AS tags FROM posts;
SELECT pg_temp.try($$SELECT docmodel.mutate_in('posts', 'post::1', '[{"op": "array_append", "path": "tags", "value": 1, "max": 0}]')$$);
SELECT pg_temp.try($$SELECT docmodel.mutate_in('posts', 'post::1', '[{"op": "array_append", "path": "tags", "value": 1, "max": 2.5}]')$$);
SELECT pg_temp.try($$SELECT docmodel.mutate_in('posts', 'post::1', '[{"op": "array_append", "path": "tags", "value": 1, "max": "3"}]')$$);
SELECT pg_temp.try($$SELECT docmodel.mutate_in('posts', 'post::1', '[{"op": "upsert", "path": "tags", "value": 1, "max": 3}]')$$);

\echo == bucket_append: the rest in buckets of 100 comments
SELECT docmodel.create_collection('comments') IS NOT NULL AS created;
SELECT docmodel.bucket_append('comments', 'post::1::comments', jsonb_build_object('id', g)) AS key, count(*)
  FROM generate_series(1, 250) g GROUP BY 1 ORDER BY 1;
SELECT id, jsonb_array_length(doc->'items') AS items, doc->'items'->0 AS first, doc->'_ver' AS ver
  FROM comments_documents ORDER BY id;
-- another size; an array value is one item
SELECT docmodel.bucket_append('comments', 'post::2::comments', '[1, 2]', size => 2);
SELECT docmodel.bucket_append('comments', 'post::2::comments', '"b"', size => 2);
SELECT docmodel.bucket_append('comments', 'post::2::comments', '"c"', size => 2);
SELECT id, doc->'items' AS items FROM comments WHERE id LIKE 'post::2::%' ORDER BY id;
-- a new session (no hint) finds the current bucket by the highest number
\c
\i test/sql/include/try.sql
SELECT docmodel.bucket_append('comments', 'post::1::comments', '{"id": 251}');
SELECT docmodel.bucket_append('comments', 'post::1::comments', '{"id": 252}', size => 51);
SELECT pg_temp.try($$SELECT docmodel.bucket_append('comments', 'post::1::comments', '{}', 0)$$);
SELECT pg_temp.try($$SELECT docmodel.bucket_append('comments', 'post::', '{}')$$);
SELECT pg_temp.try($$SELECT docmodel.bucket_append('comments', 'post::1', NULL)$$);
SELECT pg_temp.try($$SELECT docmodel.bucket_append('comments', 'post::1', '{}', NULL)$$);
-- a bucket whose items is not an array (written by hand) is refused
INSERT INTO comments (id, doc, cas) VALUES ('post::9::comments::1', '{"items": 5}', 0);
SELECT pg_temp.try($$SELECT docmodel.bucket_append('comments', 'post::9::comments', '{}')$$);
-- a locked bucket is refused as any write
CREATE TEMP TABLE held_bucket AS SELECT cas FROM docmodel.get_and_lock('comments', 'post::2::comments::2', 10);
SELECT regexp_replace(pg_temp.try($$SELECT docmodel.bucket_append('comments', 'post::2::comments', '"d"', 2)$$), 'ends in .*', 'ends in ...)');
-- privileges: INSERT and UPDATE on the collection
CREATE ROLE guides_reader;
GRANT SELECT ON comments TO guides_reader;
SET ROLE guides_reader;
SELECT pg_temp.try($$SELECT docmodel.bucket_append('comments', 'post::1::comments', '{}')$$);
RESET ROLE;
DROP OWNED BY guides_reader, guides_writer, guides_owner, guides_owner2;
DROP ROLE guides_reader, guides_writer, guides_owner, guides_owner2;
