-- Tour chapter: collections. The user-profile
-- example: documents keyed user::<id>, stamped by the collection's trigger,
-- written with compare-and-swap, and session documents that expire.
\echo
\echo '== Collections ===================================================='
\echo 'A collection is an ordinary table (id, doc, cas, expires_at) with one C trigger.'
SELECT docmodel.create_collection('profiles', doc_type => 'user');
\d profiles
SET docmodel.actor = 'signup-service';

\echo 'Insert a profile: the trigger stamps _type (from the key), _created/_modified'
\echo '(epoch ms), _createdBy/_modifiedBy (docmodel.actor, else session_user), _ver.'
SELECT docmodel.insert('profiles', docmodel.key('user', 'fredsmith79'),
       '{"name": "Fred Smith", "email": "fred@example.com"}') AS cas;
SELECT id, jsonb_pretty(doc) AS doc FROM profiles;

\echo 'Plain SQL gets the same promises: UPDATE bumps _ver and keeps _created.'
SET docmodel.actor = 'profile-editor';
UPDATE profiles SET doc = doc || '{"city": "Berlin"}' WHERE id = 'user::fredsmith79';
SELECT doc->'_ver' AS ver, doc->>'_createdBy' AS created_by, doc->>'_modifiedBy' AS modified_by,
       doc->'_created' = doc->'_modified' AS "created = modified?" FROM profiles;

\echo 'Compare-and-swap: read the document and its cas, write back only if unchanged.'
CREATE TEMP TABLE tour_read AS
SELECT key, doc, cas FROM docmodel.get_multi('profiles', ARRAY['user::fredsmith79']);
\echo 'Someone else saves first (a new cas)...'
SELECT docmodel.upsert('profiles', 'user::fredsmith79',
       (SELECT doc FROM tour_read) || '{"city": "Hamburg"}') > (SELECT cas FROM tour_read) AS "new cas is larger";
\echo '...so our replace with the cas we read is refused (40001), and nothing of it is stored:'
\set ON_ERROR_STOP 0
SELECT docmodel.replace('profiles', 'user::fredsmith79',
       (SELECT doc FROM tour_read) || '{"city": "Munich"}', (SELECT cas FROM tour_read));
\set ON_ERROR_STOP 1
SELECT doc->>'city' AS city, doc->'_ver' AS ver FROM profiles;

\echo 'The trigger refuses what a collection must not hold:'
\set ON_ERROR_STOP 0
INSERT INTO profiles VALUES ('user::x', '{"_type": "order"}');
INSERT INTO profiles VALUES ('order::1', '{}');
INSERT INTO profiles VALUES ('user::x', '["not", "an", "object"]');
SELECT docmodel.insert('profiles', 'user::fredsmith79', '{}');
\set ON_ERROR_STOP 1

\echo 'Sessions expire: an expired document is absent to get, replace and insert.'
SELECT docmodel.create_collection('sessions', doc_type => 'session', time_unit => 's');
SELECT docmodel.insert('sessions', 'session::a1', '{"user": "user::fredsmith79"}',
       expiry => interval '30 minutes') > 0 AS inserted;
SELECT docmodel.get('sessions', 'session::a1') ->> 'user' AS "user (live)",
       round(extract(epoch FROM expires_at - now()) / 60) AS minutes_left FROM sessions;
\echo 'touch extends it (only cas changes, not _ver):'
SELECT docmodel.touch('sessions', 'session::a1', interval '2 hours') > 0 AS touched;
SELECT round(extract(epoch FROM expires_at - now()) / 60) AS minutes_left, doc->'_ver' AS ver FROM sessions;
\echo '(as if two hours had passed)'
UPDATE sessions SET expires_at = now() - interval '1 second';
SELECT docmodel.get('sessions', 'session::a1') AS "get after expiry";
SELECT docmodel.purge_expired('sessions') AS purged;

\echo 'Couchbase expiry numbers: seconds up to 30 days, a Unix time above; a collection'
\echo 'with max_ttl gives every write that expiry at most (here 1 hour).'
SELECT docmodel.create_collection('carts', max_ttl => 3600);
SELECT docmodel.insert('carts', 'cart::1', '{"items": []}', 600) > 0 AS "for 600 s",
       docmodel.insert('carts', 'cart::2', '{"items": []}') > 0 AS "no expiry given";
SELECT id, round(extract(epoch FROM expires_at - now())) AS seconds_left FROM carts ORDER BY id;

\echo 'A lock that makes a second writer fail: get_and_lock hands out the lock''s cas;'
\echo 'until unlock (or 15 s) every write without it is refused, plain UPDATE included.'
CREATE TEMP TABLE my_lock AS SELECT cas FROM docmodel.get_and_lock('carts', 'cart::1');
SELECT doc->'items' AS items, cas AS "cas others see" FROM docmodel.get_multi('carts', '{cart::1}');
\set ON_ERROR_STOP 0
SELECT docmodel.replace('carts', 'cart::1', '{"items": ["someone else''s pen"]}');
UPDATE carts SET doc = '{"items": ["someone else''s pen"]}' WHERE id = 'cart::1';
\set ON_ERROR_STOP 1
\echo 'The holder writes with the lock''s cas, which also unlocks:'
SELECT docmodel.replace('carts', 'cart::1', '{"items": ["book"]}', (SELECT cas FROM my_lock)) > 0 AS replaced;
SELECT doc->'items' AS items, doc->'_ver' AS ver, locked_until IS NULL AS unlocked FROM carts WHERE id = 'cart::1';

\echo 'Other organisations keep management fields under "meta" or without underscores:'
SELECT docmodel.create_collection('mobile_profiles', meta_style => 'plain', time_unit => 'iso');
INSERT INTO mobile_profiles VALUES ('user::anna', '{"name": "Anna"}');
SELECT doc - '{created,modified}'::text[] AS doc, doc->>'created' ~ '^\d{4}-' AS "created is ISO-8601"
FROM mobile_profiles;
SELECT collection, doc_type, meta_style, time_unit, delimiter FROM docmodel.collections;

RESET docmodel.actor;
SELECT docmodel.drop_collection(c) FROM unnest('{profiles,sessions,mobile_profiles,carts}'::regclass[]) AS c;
