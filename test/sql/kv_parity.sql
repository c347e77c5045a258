-- Couchbase API parity: exists, get_and_touch, expiry numbers,
-- preserve_expiry, max_ttl, get_and_lock / unlock and every write path
-- refusing a locked document, decrement. Each error with its SQLSTATE.
\i test/sql/include/try.sql
-- CAS values (clock-based) and the lock's remaining time masked.
CREATE FUNCTION pg_temp.t(sql text) RETURNS text LANGUAGE sql AS $$
  SELECT regexp_replace(regexp_replace(pg_temp.try(sql), '\d{12,}', '<cas>', 'g'),
    'ends in [0-9.]+ s, at [^)]*', 'ends in <n> s, at <time>', 'g')
$$;
CREATE TEMP TABLE cas (step text PRIMARY KEY, cas bigint);
SET docmodel.actor = 'kv';
SELECT docmodel.create_collection('kvp', revisions => 3) IS NOT NULL AS created;
SELECT docmodel.insert('kvp', 'user::1', '{"name": "Ann"}') > 0 AS inserted;

-- exists: present, absent, expired.
SELECT docmodel.exists('kvp', 'user::1') AS present, docmodel.exists('kvp', 'user::404') AS absent;
INSERT INTO kvp (id, doc, expires_at) VALUES ('user::old', '{}', now() - interval '1 second');
SELECT docmodel.exists('kvp', 'user::old') AS expired_exists;

-- Expiry as Couchbase reads it: seconds up to 30 days, a Unix time above,
-- 0 for none; an interval and untyped literals of either still work.
BEGIN;
SELECT docmodel.upsert('kvp', 'session::1', '{}', 3600) > 0 AS int_seconds;
SELECT expires_at = now() + interval '1 hour' AS in_an_hour FROM kvp WHERE id = 'session::1';
SELECT docmodel.upsert('kvp', 'session::1', '{}', '7200') > 0 AS untyped_seconds;
SELECT expires_at = now() + interval '2 hours' AS in_two_hours FROM kvp WHERE id = 'session::1';
SELECT docmodel.upsert('kvp', 'session::1', '{}', 2592000::bigint) > 0 AS thirty_days;
SELECT expires_at = now() + interval '30 days' AS in_thirty_days FROM kvp WHERE id = 'session::1';
SELECT docmodel.upsert('kvp', 'session::1', '{}',
  (extract(epoch FROM date_trunc('second', now())) + 86400)::bigint) > 0 AS unix_time;
SELECT expires_at = date_trunc('second', now()) + interval '1 day' AS at_unix_time FROM kvp WHERE id = 'session::1';
SELECT docmodel.upsert('kvp', 'session::1', '{}', '90 minutes') > 0 AS untyped_interval;
SELECT expires_at = now() + interval '90 minutes' AS in_ninety_minutes FROM kvp WHERE id = 'session::1';
SELECT docmodel.touch('kvp', 'session::1', 0) > 0 AS zero_is_none;
SELECT expires_at IS NULL AS no_expiry FROM kvp WHERE id = 'session::1';
COMMIT;
SELECT pg_temp.t($$SELECT docmodel.insert('kvp', 'session::2', '{}', 2592001)$$);
SELECT pg_temp.t($$SELECT docmodel.insert('kvp', 'session::2', '{}', -5)$$);
SELECT pg_temp.t($$SELECT docmodel.insert('kvp', 'session::2', '{}', '-5')$$);
SELECT pg_temp.t($$SELECT docmodel.insert('kvp', 'session::2', '{}', true)$$);
SELECT pg_temp.t($$SELECT docmodel.insert('kvp', 'session::2', '{}', 'soon')$$);
SELECT docmodel.exists('kvp', 'session::2') AS nothing_written;

-- preserve_expiry keeps the stored expiry; without it upsert and replace clear it.
BEGIN;
SELECT docmodel.touch('kvp', 'session::1', 600) > 0 AS touched;
SELECT docmodel.upsert('kvp', 'session::1', '{"n": 1}', preserve_expiry => true) > 0 AS upsert_preserving;
SELECT expires_at = now() + interval '10 minutes' AS kept FROM kvp WHERE id = 'session::1';
SELECT docmodel.replace('kvp', 'session::1', '{"n": 2}', preserve_expiry => true) > 0 AS replace_preserving;
SELECT expires_at = now() + interval '10 minutes' AS kept FROM kvp WHERE id = 'session::1';
SELECT docmodel.replace('kvp', 'session::1', '{"n": 3}') > 0 AS replace_clearing;
SELECT expires_at IS NULL AS cleared FROM kvp WHERE id = 'session::1';
-- preserve_expiry on a new document: no expiry to keep.
SELECT docmodel.upsert('kvp', 'session::3', '{}', preserve_expiry => true) > 0 AS upsert_new;
SELECT expires_at IS NULL AS none FROM kvp WHERE id = 'session::3';
COMMIT;
SELECT pg_temp.t($$SELECT docmodel.upsert('kvp', 'session::1', '{}', 60, preserve_expiry => true)$$);
SELECT pg_temp.t($$SELECT docmodel.replace('kvp', 'session::1', '{}', expiry => 60, preserve_expiry => true)$$);

-- get_and_touch: the document and its new cas, the expiry set.
BEGIN;
CREATE TEMP TABLE touched AS SELECT * FROM docmodel.get_and_touch('kvp', 'session::1', 60);
SELECT t.doc->>'n' AS n, t.cas = k.cas AS cas_is_stored, k.expires_at = now() + interval '1 minute' AS touched
FROM touched AS t, kvp AS k WHERE k.id = 'session::1';
COMMIT;
SELECT pg_temp.t($$SELECT docmodel.get_and_touch('kvp', 'user::404', 60)$$);
SELECT pg_temp.t($$SELECT docmodel.get_and_touch('kvp', 'user::old', 60)$$);

-- get_and_lock: the document and the lock's cas (the stored one); _ver and
-- history stay; other readers see cas -1.
SELECT doc->'_ver' AS ver_before, (SELECT count(*) FROM kvp_revisions) AS revisions_before FROM kvp_documents WHERE id = 'user::1';
INSERT INTO cas SELECT 'lock', cas FROM docmodel.get_and_lock('kvp', 'user::1');
SELECT c.cas = k.cas AS lock_cas_is_stored, k.doc->'_ver' AS ver, (SELECT count(*) FROM kvp_revisions) AS revisions,
       k.locked_until BETWEEN clock_timestamp() + interval '14 seconds' AND clock_timestamp() + interval '15 seconds' AS for_15_s
FROM cas c, kvp_documents k WHERE c.step = 'lock' AND k.id = 'user::1';
SELECT cas AS cas_seen_by_get_multi FROM docmodel.get_multi('kvp', '{user::1}');
SELECT docmodel.get('kvp', 'user::1')->>'name' AS get_still_reads;
SELECT docmodel.exists('kvp', 'user::1') AS locked_exists;

-- Every write without the lock's cas is refused (55P03), nothing changes.
SELECT pg_temp.t($$SELECT docmodel.get_and_lock('kvp', 'user::1')$$) AS second_lock;
SELECT pg_temp.t($$SELECT docmodel.replace('kvp', 'user::1', '{"name": "Bob"}')$$) AS replace;
SELECT pg_temp.t($$SELECT docmodel.replace('kvp', 'user::1', '{"name": "Bob"}', 42)$$) AS replace_other_cas;
SELECT pg_temp.t($$SELECT docmodel.upsert('kvp', 'user::1', '{"name": "Bob"}')$$) AS upsert;
SELECT pg_temp.t($$SELECT docmodel.insert('kvp', 'user::1', '{"name": "Bob"}')$$) AS insert;
SELECT pg_temp.t($$SELECT docmodel.touch('kvp', 'user::1', 60)$$) AS touch;
SELECT pg_temp.t($$SELECT docmodel.get_and_touch('kvp', 'user::1', 60)$$) AS get_and_touch;
SELECT pg_temp.t($$SELECT docmodel.remove('kvp', 'user::1')$$) AS remove;
SELECT pg_temp.t($$SELECT docmodel.remove('kvp', 'user::1', 42)$$) AS remove_other_cas;
SELECT pg_temp.t($$UPDATE kvp SET doc = '{"name": "Bob"}' WHERE id = 'user::1'$$) AS plain_update;
SELECT pg_temp.t($$UPDATE kvp SET doc = doc WHERE id = 'user::1'$$) AS untouched_update;
SELECT pg_temp.t($$UPDATE kvp SET expires_at = now() + interval '1 hour' WHERE id = 'user::1'$$) AS expiry_update;
SELECT pg_temp.t($$UPDATE kvp SET locked_until = NULL WHERE id = 'user::1'$$) AS unlock_by_update;
SELECT pg_temp.t($$UPDATE kvp SET doc = '{"name": "Bob"}', cas = 42 WHERE id = 'user::1'$$) AS update_other_cas;
SELECT pg_temp.t($$INSERT INTO kvp (id, doc) VALUES ('user::1', '{"name": "Bob"}')
  ON CONFLICT (id) DO UPDATE SET doc = EXCLUDED.doc$$) AS on_conflict;
SELECT pg_temp.t($$DELETE FROM kvp WHERE id = 'user::1'$$) AS plain_delete;
SELECT doc->>'name' AS name, doc->'_ver' AS ver, cas = (SELECT cas FROM cas WHERE step = 'lock') AS same_cas,
       locked_until IS NOT NULL AS still_locked
FROM kvp_documents WHERE id = 'user::1';

-- unlock: a wrong cas is a CAS mismatch; the lock's cas unlocks (a new cas).
SELECT pg_temp.t($$SELECT docmodel.unlock('kvp', 'user::1', 42)$$) AS unlock_other_cas;
SELECT docmodel.unlock('kvp', 'user::1', (SELECT cas FROM cas WHERE step = 'lock'))
  > (SELECT cas FROM cas WHERE step = 'lock') AS unlocked;
SELECT locked_until IS NULL AS no_lock, doc->'_ver' AS ver, (SELECT count(*) FROM kvp_revisions) AS revisions FROM kvp_documents WHERE id = 'user::1';
SELECT pg_temp.t($$SELECT docmodel.unlock('kvp', 'user::1', 42)$$) AS unlock_unlocked;
SELECT pg_temp.t($$SELECT docmodel.unlock('kvp', 'user::404', 42)$$) AS unlock_absent;
SELECT pg_temp.t($$SELECT docmodel.get_and_lock('kvp', 'user::404')$$) AS lock_absent;
SELECT pg_temp.t($$SELECT docmodel.get_and_lock('kvp', 'user::old')$$) AS lock_expired;
SELECT pg_temp.t($$SELECT docmodel.unlock('kvp', 'user::1', NULL)$$) AS unlock_null_cas;

-- A write carrying the lock's cas goes through and unlocks: replace, a plain
-- UPDATE assigning cas, remove.
DELETE FROM cas WHERE step = 'lock';
INSERT INTO cas SELECT 'lock', cas FROM docmodel.get_and_lock('kvp', 'user::1', 5);
SELECT docmodel.replace('kvp', 'user::1', '{"name": "Ann2"}', (SELECT cas FROM cas WHERE step = 'lock')) > 0 AS replaced_with_lock_cas;
SELECT doc->>'name' AS name, doc->'_ver' AS ver, locked_until IS NULL AS unlocked FROM kvp_documents WHERE id = 'user::1';
DELETE FROM cas WHERE step = 'lock';
INSERT INTO cas SELECT 'lock', cas FROM docmodel.get_and_lock('kvp', 'user::1', '10 seconds');
UPDATE kvp SET doc = '{"name": "Ann3"}', cas = (SELECT cas FROM cas WHERE step = 'lock') WHERE id = 'user::1';
SELECT doc->>'name' AS name, doc->'_ver' AS ver, locked_until IS NULL AS unlocked,
       cas > (SELECT cas FROM cas WHERE step = 'lock') AS new_cas FROM kvp_documents WHERE id = 'user::1';
SELECT docmodel.upsert('kvp', 'user::2', '{"name": "Cy"}') > 0 AS upserted;
DELETE FROM cas WHERE step = 'lock';
INSERT INTO cas SELECT 'lock', cas FROM docmodel.get_and_lock('kvp', 'user::2', interval '3 seconds');
SELECT docmodel.remove('kvp', 'user::2', (SELECT cas FROM cas WHERE step = 'lock'))
  = (SELECT cas FROM cas WHERE step = 'lock') AS removed_with_lock_cas;
SELECT op FROM kvp_revisions WHERE id = 'user::2' ORDER BY ver;

-- A lock ends by itself: then any write goes through and clears it.
DELETE FROM cas WHERE step = 'lock';
INSERT INTO cas SELECT 'lock', cas FROM docmodel.get_and_lock('kvp', 'user::1', 1);
SELECT pg_temp.t($$UPDATE kvp SET doc = '{"name": "early"}' WHERE id = 'user::1'$$) AS before_the_end;
SELECT pg_sleep(1.1);
SELECT cas = (SELECT cas FROM cas WHERE step = 'lock') AS get_multi_shows_cas FROM docmodel.get_multi('kvp', '{user::1}');
UPDATE kvp SET doc = '{"name": "late"}' WHERE id = 'user::1';
SELECT doc->>'name' AS name, locked_until IS NULL AS lock_cleared FROM kvp WHERE id = 'user::1';
SELECT pg_temp.t($$SELECT docmodel.unlock('kvp', 'user::1', (SELECT cas FROM kvp WHERE id = 'user::1'))$$) AS unlock_ended;
-- An expired document's lock holds nothing: an insert takes the key. (A
-- write with the lock's cas may set expires_at and locked_until together.)
DELETE FROM cas WHERE step = 'lock';
INSERT INTO cas SELECT 'lock', cas FROM docmodel.get_and_lock('kvp', 'user::1', 30);
UPDATE kvp SET expires_at = now() - interval '1 second', cas = (SELECT cas FROM cas WHERE step = 'lock'),
  locked_until = clock_timestamp() + interval '30 seconds' WHERE id = 'user::1';
SELECT locked_until IS NOT NULL AS lock_kept, docmodel.exists('kvp', 'user::1') AS exists FROM kvp WHERE id = 'user::1';
SELECT docmodel.insert('kvp', 'user::1', '{"name": "new"}') > 0 AS inserted_over_expired;
SELECT doc->>'name' AS name, doc->'_ver' AS ver, locked_until IS NULL AS lock_cleared FROM kvp_documents WHERE id = 'user::1';

-- Lock times: 15 s by default, more than 0 and at most 30 s.
SELECT pg_temp.t($$SELECT docmodel.get_and_lock('kvp', 'user::2', 31)$$);
SELECT pg_temp.t($$SELECT docmodel.get_and_lock('kvp', 'user::2', 0)$$);
SELECT pg_temp.t($$SELECT docmodel.get_and_lock('kvp', 'user::2', interval '1 minute')$$);
SELECT pg_temp.t($$SELECT docmodel.get_and_lock('kvp', 'user::2', 1.5)$$);

-- max_ttl: the default expiry and its bound, on every write path.
SELECT docmodel.create_collection('kvp_ttl', max_ttl => 60) IS NOT NULL AS created;
SELECT collection, max_ttl FROM docmodel.collections WHERE collection::text LIKE 'kvp%' ORDER BY 1;
BEGIN;
SELECT docmodel.insert('kvp_ttl', 'a::1', '{}') > 0 AS no_expiry_given;
SELECT docmodel.insert('kvp_ttl', 'a::2', '{}', 3600) > 0 AS longer;
SELECT docmodel.insert('kvp_ttl', 'a::3', '{}', 10) > 0 AS shorter;
INSERT INTO kvp_ttl (id, doc) VALUES ('a::4', '{}');
SELECT id, expires_at - now() AS expires_in FROM kvp_ttl ORDER BY id;
SELECT docmodel.touch('kvp_ttl', 'a::3', NULL) > 0 AS touched_to_none;
SELECT expires_at - now() AS expires_in FROM kvp_ttl WHERE id = 'a::3';
COMMIT;
SELECT pg_temp.t($$SELECT docmodel.create_collection('kvp_bad', max_ttl => -1)$$);

-- decrement: never below 0; initial creates; absent without initial is P0002.
SELECT docmodel.counter_create('kvp_count', 5);
SELECT docmodel.decrement('kvp_count') AS four, docmodel.decrement('kvp_count', 3) AS one,
       docmodel.decrement('kvp_count', 10) AS zero, docmodel.decrement('kvp_count') AS still_zero;
SELECT docmodel.incr('kvp_count') AS up_again;
SELECT docmodel.decrement('kvp_new', 1, 7) AS created_at_initial;
SELECT docmodel.counter_value('kvp_new') AS value, docmodel.decrement('kvp_new', 2) AS then_five;
SELECT pg_temp.t($$SELECT docmodel.decrement('kvp_none')$$);
SELECT pg_temp.t($$SELECT docmodel.decrement('kvp_count', -1)$$);
SELECT pg_temp.t($$SELECT docmodel.decrement('kvp_none', 1, -1)$$);
SELECT docmodel.counter_create('kvp_gapless', 3, gapless => true);
SELECT docmodel.decrement('kvp_gapless', 2) AS one, docmodel.decrement('kvp_gapless', 2) AS zero;

-- get_and_touch and get_and_lock return the document migrated, as get does
-- (the stored one stays as it is).
SELECT docmodel.insert('kvp', 'kvpm::1', '{"_schema": "1.0", "a": 1}') > 0 AS old_document;
SELECT docmodel.register_migration('kvpm', '1.0', '2.0', steps => '[{"op": "add", "path": "/b", "value": 2}]');
SELECT doc->>'_schema' AS schema, doc->'b' AS b, cas > 0 AS has_cas FROM docmodel.get_and_touch('kvp', 'kvpm::1', 60);
SELECT doc->>'_schema' AS schema, doc->'b' AS b, cas > 0 AS has_cas FROM docmodel.get_and_lock('kvp', 'kvpm::1');
SELECT doc->>'_schema' AS stored_schema, doc->'b' AS stored_b FROM kvp_documents WHERE id = 'kvpm::1';
DELETE FROM docmodel.migration_rules WHERE doc_type = 'kvpm';

SELECT docmodel.drop_collection(c) FROM unnest('{kvp,kvp_ttl}'::regclass[]) AS c;
SELECT docmodel.counter_drop(n) FROM unnest('{kvp_count,kvp_new,kvp_gapless}'::text[]) AS n;
