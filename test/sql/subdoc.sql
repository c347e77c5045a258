-- The sub-document API (src/collection/subdoc.c): lookup_in and mutate_in, every op,
-- every error, all or nothing, limits, locks, cas, expiry, store semantics,
-- privileges, migrations.
\i test/sql/include/try.sql
-- CAS values (clock-based) masked.
CREATE FUNCTION pg_temp.try_cas(sql text) RETURNS text LANGUAGE sql AS $$
  SELECT regexp_replace(pg_temp.try(sql), '\d{12,}', '<cas>', 'g')
$$;
SET docmodel.actor = 'subdoc';
SELECT docmodel.create_collection('subdoc', revisions => 5) IS NOT NULL AS created;
-- mutate_in's result with its cas masked.
CREATE FUNCTION pg_temp.mi(key text, specs jsonb) RETURNS jsonb LANGUAGE sql AS $$
  SELECT docmodel.mutate_in('subdoc', key, specs) - 'cas'
$$;
-- The stored body without the stamps.
CREATE FUNCTION pg_temp.body(key text) RETURNS jsonb LANGUAGE sql AS $$
  SELECT doc - '{_created,_modified,_ver}'::text[] FROM subdoc_documents WHERE id = key
$$;
SELECT docmodel.insert('subdoc', 'user::1', '{"name": "Ann", "logins": 0,
  "phones": [{"type": "home", "number": "555-1"}],
  "address": {"city": "Berlin", "zip": "10115", "lines": ["a", "b", "c"]},
  "tags": ["x", 1, true, null], "a.b": {"c[0]": 1}, "`q`": 2, "": {"": 3},
  "big": 9223372036854775807, "half": 1.5, "s": "str"}') > 0 AS inserted;

\echo == lookup_in: get, exists, count; Couchbase paths and JSON Pointers
SELECT jsonb_array_elements(docmodel.lookup_in('subdoc', 'user::1', '[
  {"op": "get", "path": "name"},
  {"op": "get", "path": "address.city"},
  {"op": "get", "path": "phones[0].number"},
  {"op": "get", "path": "address.lines[-1]"},
  {"op": "get", "path": "address.lines[1]"},
  {"op": "get", "path": "`a.b`.`c[0]`"},
  {"op": "get", "path": "```q```"},
  {"op": "get", "path": "/address/zip"},
  {"op": "get", "path": "/a.b/c[0]"},
  {"op": "get", "path": "//"},
  {"op": "get", "path": "phones"},
  {"op": "exists", "path": "address.zip"},
  {"op": "exists", "path": "address.nope"},
  {"op": "exists", "path": "tags[9]"},
  {"op": "count", "path": "address"},
  {"op": "count", "path": "tags"}]')) AS result;
-- get "" and count "" are the whole document.
SELECT (r.e->'value') - '{_created,_modified,_ver}'::text[] = pg_temp.body('user::1') AS get_root_is_doc
FROM jsonb_array_elements(docmodel.lookup_in('subdoc', 'user::1', '[{"op": "get", "path": ""}]')) AS r(e);
SELECT docmodel.lookup_in('subdoc', 'user::1', '[{"op": "count", "path": ""}]')->0->'value' AS members;
-- Per-spec errors: the call goes on.
SELECT jsonb_array_elements(docmodel.lookup_in('subdoc', 'user::1', '[
  {"op": "get", "path": "address.country"},
  {"op": "get", "path": "phones[3]"},
  {"op": "get", "path": "name.first"},
  {"op": "get", "path": "name[0]"},
  {"op": "get", "path": "phones.first"},
  {"op": "count", "path": "name"},
  {"op": "exists", "path": "name.first"},
  {"op": "get", "path": "name"},
  {"op": "count", "path": "address"},
  {"op": "get", "path": "address.lines[-1]"},
  {"op": "get", "path": "phones[-1].type"},
  {"op": "get", "path": "nope"},
  {"op": "count", "path": ""},
  {"op": "get", "path": "address.city"}]')) AS result;
-- An absent or expired document: NULL, as get().
SELECT docmodel.lookup_in('subdoc', 'user::404', '[{"op": "get", "path": "a"}]') IS NULL AS absent;
SELECT docmodel.insert('subdoc', 'gone::1', '{"a": 1}') > 0 AS inserted;
UPDATE subdoc SET expires_at = now() - interval '1 s' WHERE id = 'gone::1';
SELECT docmodel.lookup_in('subdoc', 'gone::1', '[{"op": "get", "path": "a"}]') IS NULL AS expired;

\echo == lookup_in: malformed calls are refused
SELECT pg_temp.try($$SELECT docmodel.lookup_in('subdoc', 'user::1', '{"op": "get"}')$$);
SELECT pg_temp.try($$SELECT docmodel.lookup_in('subdoc', 'user::1', '[]')$$);
SELECT pg_temp.try($$SELECT docmodel.lookup_in('subdoc', 'user::1', '[1]')$$);
SELECT pg_temp.try($$SELECT docmodel.lookup_in('subdoc', 'user::1', '[{"path": "a"}]')$$);
SELECT pg_temp.try($$SELECT docmodel.lookup_in('subdoc', 'user::1', '[{"op": "fetch", "path": "a"}]')$$);
SELECT pg_temp.try($$SELECT docmodel.lookup_in('subdoc', 'user::1', '[{"op": "get"}]')$$);
SELECT pg_temp.try($$SELECT docmodel.lookup_in('subdoc', 'user::1', '[{"op": "get", "path": "a", "flags": 1, "spec": 2}]')$$);
SELECT pg_temp.try($$SELECT docmodel.lookup_in('subdoc', 'user::1', '[{"op": "get", "path": "a", "value": 1}]')$$);
SELECT pg_temp.try($$SELECT docmodel.lookup_in('subdoc', 'user::1', '[{"op": "get", "path": "a", "create_path": true}]')$$);
SELECT pg_temp.try($$SELECT docmodel.lookup_in('subdoc', 'user::1', '[{"op": "upsert", "path": "a", "value": 1}]')$$);
SELECT pg_temp.try($$SELECT docmodel.lookup_in('subdoc', 'user::1', '[{"op": "get", "path": "a", "xattr": true}]')$$);
SELECT pg_temp.try($$SELECT docmodel.lookup_in('subdoc', 'user::1', '[{"op": "exists", "path": ""}]')$$);
-- PathInvalid: the path syntax.
SELECT p AS path, pg_temp.try(format($$SELECT docmodel.lookup_in('subdoc', 'user::1', '[{"op": "get", "path": %s}]')$$, to_jsonb(p)::text)) AS outcome
FROM unnest(ARRAY['a..b', '.a', 'a.', 'a[', 'a[x]', 'a[01]', 'a[-2]', 'a[0]b', '`a', 'a`b', 'a]', '`a`b', '/a~2']) AS p;

\echo == limits: 16 specs, 1024 bytes and 32 levels of path, 32 levels of value
SELECT jsonb_array_length(docmodel.lookup_in('subdoc', 'user::1',
  (SELECT jsonb_agg(jsonb_build_object('op', 'exists', 'path', 'name')) FROM generate_series(1, 16)))) AS sixteen;
SELECT pg_temp.try($$SELECT docmodel.lookup_in('subdoc', 'user::1',
  (SELECT jsonb_agg(jsonb_build_object('op', 'exists', 'path', 'name')) FROM generate_series(1, 17)))$$);
SELECT docmodel.lookup_in('subdoc', 'user::1',
  jsonb_build_array(jsonb_build_object('op', 'exists', 'path', repeat('a', 1024)))) AS path_1024;
SELECT pg_temp.try($$SELECT docmodel.lookup_in('subdoc', 'user::1',
  jsonb_build_array(jsonb_build_object('op', 'exists', 'path', repeat('a', 1025))))$$);
SELECT docmodel.lookup_in('subdoc', 'user::1',
  jsonb_build_array(jsonb_build_object('op', 'exists', 'path', 'a' || repeat('.a', 30)))) AS levels_31;
SELECT pg_temp.try($$SELECT docmodel.lookup_in('subdoc', 'user::1',
  jsonb_build_array(jsonb_build_object('op', 'exists', 'path', 'a' || repeat('.a', 31))))$$);
-- the document at most 32 levels deep: 31 nested arrays at "deep" (level 1)
SELECT pg_temp.mi('user::1', jsonb_build_array(jsonb_build_object('op', 'upsert', 'path', 'deep',
  'value', (repeat('[', 31) || repeat(']', 31))::jsonb))) AS value_31;
SELECT pg_temp.try($$SELECT docmodel.mutate_in('subdoc', 'user::1', jsonb_build_array(jsonb_build_object('op', 'upsert', 'path', 'deep',
  'value', (repeat('[', 32) || repeat(']', 32))::jsonb)))$$);
-- an element of "tags" is at level 2: 30 levels, not 31
SELECT pg_temp.try($$SELECT docmodel.mutate_in('subdoc', 'user::1', jsonb_build_array(jsonb_build_object('op', 'array_append', 'path', 'tags',
  'values', jsonb_build_array(1, (repeat('[', 31) || repeat(']', 31))::jsonb))))$$);
SELECT pg_temp.mi('user::1', '[{"op": "remove", "path": "deep"}]') AS removed;

\echo == mutate_in: every op
SELECT pg_temp.mi('user::1', '[
  {"op": "insert", "path": "email", "value": "ann@example.com"},
  {"op": "upsert", "path": "name", "value": "Ann Lee"},
  {"op": "replace", "path": "address.city", "value": "Hamburg"},
  {"op": "replace", "path": "phones[0].type", "value": "mobile"},
  {"op": "replace", "path": "address.lines[-1]", "value": "C"},
  {"op": "remove", "path": "address.lines[0]"},
  {"op": "remove", "path": "`a.b`"},
  {"op": "array_append", "path": "phones", "value": {"type": "work", "number": "555-2"}},
  {"op": "array_prepend", "path": "tags", "value": "first"},
  {"op": "array_insert", "path": "tags[2]", "value": "third"},
  {"op": "array_addunique", "path": "tags", "value": "new"},
  {"op": "increment", "path": "logins", "delta": 5},
  {"op": "decrement", "path": "logins", "delta": 2},
  {"op": "increment", "path": "visits"}]') AS results;
SELECT pg_temp.body('user::1') AS doc;
-- Several values at once, insert at the end, JSON Pointer paths.
SELECT pg_temp.mi('user::1', '[
  {"op": "array_append", "path": "/address/lines", "values": ["d", "e"]},
  {"op": "array_prepend", "path": "address.lines", "values": [0, 1]},
  {"op": "array_insert", "path": "address.lines[6]", "values": ["f"]},
  {"op": "array_insert", "path": "/address/lines/0", "value": -1},
  {"op": "decrement", "path": "/logins"}]') AS results;
SELECT pg_temp.body('user::1')->'address'->'lines' AS lines, pg_temp.body('user::1')->'logins' AS logins;
-- create_path makes the missing parents (objects) and the array.
SELECT pg_temp.mi('user::1', '[
  {"op": "upsert", "path": "prefs.ui.theme", "value": "dark", "create_path": true},
  {"op": "insert", "path": "prefs.ui.lang", "value": "de"},
  {"op": "array_append", "path": "prefs.recent.ids", "value": 7, "create_path": true},
  {"op": "array_addunique", "path": "prefs.seen", "value": "x", "create_path": true},
  {"op": "increment", "path": "stats.daily.count", "delta": 3, "create_path": true}]') AS results;
SELECT pg_temp.body('user::1')->'prefs' AS prefs, pg_temp.body('user::1')->'stats' AS stats;
-- Each mutate_in is one write: _ver up by one, one revision, a new cas.
SELECT doc->'_ver' AS ver_before, cas AS cas_before FROM subdoc_documents WHERE id = 'user::1' \gset
SELECT pg_temp.mi('user::1', '[{"op": "upsert", "path": "n", "value": 1}, {"op": "upsert", "path": "m", "value": 2}]') AS two_specs;
SELECT (doc->'_ver')::int - :ver_before AS ver_delta, cas > :cas_before AS cas_moved,
  (SELECT count(*) FROM docmodel.revisions('subdoc', 'user::1') r WHERE r.ver = :ver_before) AS revision_kept
FROM subdoc_documents WHERE id = 'user::1';
-- The returned cas is the stored one.
SELECT (docmodel.mutate_in('subdoc', 'user::1', '[{"op": "upsert", "path": "n", "value": 2}]')->>'cas')::bigint AS returned_cas \gset
SELECT cas = :returned_cas AS returned_is_stored FROM subdoc WHERE id = 'user::1';

\echo == mutate_in: per-spec errors (each raises; nothing is written)
SELECT doc AS doc_before, cas AS cas_before2 FROM subdoc_documents WHERE id = 'user::1' \gset
SELECT s AS spec, pg_temp.try(format($$SELECT docmodel.mutate_in('subdoc', 'user::1', '[{"op": "upsert", "path": "ok", "value": 1}, %s]')$$, s)) AS outcome
FROM unnest(ARRAY[
  '{"op": "insert", "path": "name", "value": 1}',
  '{"op": "insert", "path": "nope.x", "value": 1}',
  '{"op": "insert", "path": "phones[0]", "value": 1}',
  '{"op": "upsert", "path": "name.first", "value": 1}',
  '{"op": "replace", "path": "nope", "value": 1}',
  '{"op": "replace", "path": "phones[7]", "value": 1}',
  '{"op": "remove", "path": "address.nope"}',
  '{"op": "remove", "path": "tags[99]"}',
  '{"op": "array_append", "path": "name", "value": 1}',
  '{"op": "array_append", "path": "nope", "value": 1}',
  '{"op": "array_prepend", "path": "address", "value": 1}',
  '{"op": "array_insert", "path": "tags[99]", "value": 1}',
  '{"op": "array_insert", "path": "address[0]", "value": 1}',
  '{"op": "array_insert", "path": "tags", "value": 1}',
  '{"op": "array_insert", "path": "tags[-1]", "value": 1}',
  '{"op": "array_addunique", "path": "tags", "value": "x"}',
  '{"op": "array_addunique", "path": "phones", "value": "x"}',
  '{"op": "array_addunique", "path": "tags", "value": {"a": 1}}',
  '{"op": "array_addunique", "path": "tags", "values": ["y"]}',
  '{"op": "increment", "path": "name"}',
  '{"op": "increment", "path": "half"}',
  '{"op": "increment", "path": "big"}',
  '{"op": "decrement", "path": "big", "delta": -1}',
  '{"op": "increment", "path": "logins", "delta": 0}',
  '{"op": "increment", "path": "logins", "delta": 1.5}',
  '{"op": "increment", "path": "logins", "delta": "1"}',
  '{"op": "increment", "path": "logins", "delta": 9223372036854775808}',
  '{"op": "decrement", "path": "logins", "delta": -9223372036854775808}',
  '{"op": "increment", "path": "logins", "value": 1}',
  '{"op": "upsert", "path": "a", "value": 1, "delta": 1}',
  '{"op": "increment", "path": "tags[99]"}',
  '{"op": "increment", "path": "nope.count"}',
  '{"op": "upsert", "path": "a"}',
  '{"op": "upsert", "path": "a", "values": [1]}',
  '{"op": "array_append", "path": "tags", "value": 1, "values": [1]}',
  '{"op": "array_append", "path": "tags", "values": []}',
  '{"op": "array_append", "path": "tags", "values": 1}',
  '{"op": "replace", "path": "a", "value": 1, "create_path": true}',
  '{"op": "upsert", "path": "a", "value": 1, "create_path": 1}',
  '{"op": "upsert", "path": "a", "value": 1, "xattr": true}',
  '{"op": "upsert", "path": "a", "value": 1, "xattr": false, "extra": 1}',
  '{"op": "get", "path": "a"}',
  '{"op": "insert", "path": "", "value": {}}',
  '{"op": "remove", "path": ""}',
  '{"op": "upsert", "path": "a..b", "value": 1}'
]) AS s;
SELECT doc = :'doc_before'::jsonb AS doc_unchanged, cas = :cas_before2 AS cas_unchanged
FROM subdoc_documents WHERE id = 'user::1';
-- All or nothing: a failing 2nd spec leaves doc, _ver, cas and history as they were.
SELECT count(*) AS revisions_before FROM docmodel.revisions('subdoc', 'user::1') \gset
SELECT pg_temp.try($$SELECT docmodel.mutate_in('subdoc', 'user::1', '[
  {"op": "array_append", "path": "phones", "value": "kept?"},
  {"op": "array_insert", "path": "phones[7]", "value": 1}]')$$);
SELECT doc = :'doc_before'::jsonb AS doc_unchanged, doc->'_ver' = (:'doc_before'::jsonb)->'_ver' AS ver_unchanged,
  cas = :cas_before2 AS cas_unchanged,
  (SELECT count(*) FROM docmodel.revisions('subdoc', 'user::1')) = :revisions_before AS history_unchanged
FROM subdoc_documents WHERE id = 'user::1';
-- _mutate_in_apply called directly parses its own specs and raises the same way.
SELECT docmodel._mutate_in_apply('{"a": [1]}', '[{"op": "array_append", "path": "a", "value": 2}]', 'k::1') AS direct;
SELECT docmodel._mutate_in_apply(NULL, '[{"op": "increment", "path": "n"}]', 'k::1') AS from_null;
SELECT pg_temp.try($$SELECT docmodel._mutate_in_apply('{"a": 1}', '[{"op": "array_append", "path": "a", "value": 2}]', 'k::1')$$);

\echo == store semantics, cas, expiry, locks
SELECT pg_temp.try($$SELECT docmodel.mutate_in('subdoc', 'user::404', '[{"op": "upsert", "path": "a", "value": 1}]')$$);
SELECT pg_temp.try($$SELECT docmodel.mutate_in('subdoc', 'gone::1', '[{"op": "upsert", "path": "a", "value": 1}]')$$);
SELECT docmodel.mutate_in('subdoc', 'user::2', '[{"op": "upsert", "path": "a.b", "value": 1, "create_path": true}, {"op": "increment", "path": "n"}]',
  store_semantics => 'upsert') - 'cas' AS upsert_new;
SELECT docmodel.mutate_in('subdoc', 'user::2', '[{"op": "increment", "path": "n"}]', store_semantics => 'upsert') - 'cas' AS upsert_present;
SELECT pg_temp.body('user::2') AS doc;
SELECT docmodel.mutate_in('subdoc', 'gone::1', '[{"op": "upsert", "path": "b", "value": 2}]', store_semantics => 'upsert') - 'cas' AS upsert_over_expired;
SELECT pg_temp.body('gone::1') AS doc, (SELECT expires_at FROM subdoc WHERE id = 'gone::1') AS expires_at;
SELECT docmodel.mutate_in('subdoc', 'user::3', '[{"op": "insert", "path": "a", "value": 1}]', store_semantics => 'insert') - 'cas' AS insert_new;
SELECT pg_temp.try($$SELECT docmodel.mutate_in('subdoc', 'user::3', '[{"op": "insert", "path": "b", "value": 1}]', store_semantics => 'insert')$$);
SELECT pg_temp.try($$SELECT docmodel.mutate_in('subdoc', 'user::3', '[{"op": "insert", "path": "b", "value": 1}]', store_semantics => 'merge')$$);
SELECT pg_temp.try($$SELECT docmodel.mutate_in('subdoc', 'user::3', '[{"op": "insert", "path": "b", "value": 1}]', 5, store_semantics => 'upsert')$$);
SELECT pg_temp.try($$SELECT docmodel.mutate_in('subdoc', 'user::3', NULL)$$);
SELECT pg_temp.try($$SELECT docmodel.mutate_in('subdoc', 'user::3', '[{"op": "insert", "path": "b", "value": 1}]', store_semantics => NULL)$$);
-- cas: the current one passes, a stale one is refused (40001).
SELECT cas AS cas3 FROM subdoc WHERE id = 'user::3' \gset
SELECT (docmodel.mutate_in('subdoc', 'user::3', '[{"op": "upsert", "path": "c", "value": 1}]', :cas3)->>'cas')::bigint > :cas3 AS with_current_cas;
SELECT pg_temp.try_cas(format($$SELECT docmodel.mutate_in('subdoc', 'user::3', '[{"op": "upsert", "path": "d", "value": 1}]', %s)$$, :cas3));
SELECT pg_temp.body('user::3') AS doc;
-- expiry as replace takes it: a number of seconds, an interval; none clears
-- it; preserve_expiry keeps it.
SELECT docmodel.mutate_in('subdoc', 'user::3', '[{"op": "upsert", "path": "e", "value": 1}]', expiry => 60) ? 'cas' AS with_expiry;
SELECT expires_at - now() BETWEEN interval '59 s' AND interval '60 s' AS in_a_minute FROM subdoc WHERE id = 'user::3';
SELECT docmodel.mutate_in('subdoc', 'user::3', '[{"op": "upsert", "path": "e", "value": 2}]', preserve_expiry => true) ? 'cas' AS preserved;
SELECT expires_at - now() BETWEEN interval '59 s' AND interval '60 s' AS in_a_minute FROM subdoc WHERE id = 'user::3';
SELECT docmodel.mutate_in('subdoc', 'user::3', '[{"op": "upsert", "path": "e", "value": 3}]', expiry => interval '2 hours') ? 'cas' AS with_interval;
SELECT expires_at - now() BETWEEN interval '119 min' AND interval '120 min' AS in_two_hours FROM subdoc WHERE id = 'user::3';
SELECT docmodel.mutate_in('subdoc', 'user::3', '[{"op": "upsert", "path": "e", "value": 4}]') ? 'cas' AS without_expiry;
SELECT expires_at AS expires_at_cleared FROM subdoc WHERE id = 'user::3';
SELECT pg_temp.try($$SELECT docmodel.mutate_in('subdoc', 'user::3', '[{"op": "upsert", "path": "e", "value": 5}]', expiry => 60, preserve_expiry => true)$$);
SELECT pg_temp.try($$SELECT docmodel.mutate_in('subdoc', 'user::3', '[{"op": "upsert", "path": "e", "value": 5}]', expiry => -5)$$);
-- A locked document refuses mutate_in unless given the lock's cas (which unlocks it).
SELECT cas AS lock_cas FROM docmodel.get_and_lock('subdoc', 'user::3', 10) \gset
SELECT regexp_replace(pg_temp.try($$SELECT docmodel.mutate_in('subdoc', 'user::3', '[{"op": "upsert", "path": "f", "value": 1}]')$$), 'ends in .*', 'ends in ...') AS locked;
SELECT regexp_replace(pg_temp.try($$SELECT docmodel.mutate_in('subdoc', 'user::3', '[{"op": "upsert", "path": "f", "value": 1}]', 12345)$$), 'ends in .*', 'ends in ...') AS locked_other_cas;
SELECT docmodel.mutate_in('subdoc', 'user::3', '[{"op": "upsert", "path": "f", "value": 1}]', :lock_cas) ? 'cas' AS with_lock_cas;
SELECT locked_until IS NULL AS unlocked, doc->'f' AS f FROM subdoc WHERE id = 'user::3';

\echo == migrations: paths name the current version
SELECT docmodel.insert('subdoc', 'sdmig::1', '{"tel": "555-7", "n": 1}') > 0 AS inserted_before_rule;
SELECT docmodel.register_migration('sdmig', '1', '2', steps => '[{"op": "move", "from": "/tel", "path": "/phone"}]') IS NOT NULL AS registered;
SELECT docmodel.lookup_in('subdoc', 'sdmig::1', '[{"op": "get", "path": "phone"}, {"op": "exists", "path": "tel"}]') AS migrated_read;
SELECT docmodel.mutate_in('subdoc', 'sdmig::1', '[{"op": "replace", "path": "phone", "value": "555-8"}]') ? 'cas' AS migrated_write;
SELECT doc->'phone' AS phone, doc ? 'tel' AS has_tel, doc->'_schema' AS schema FROM subdoc_documents WHERE id = 'sdmig::1';
DELETE FROM docmodel.migration_rules WHERE doc_type = 'sdmig';

\echo == privileges: those of the caller (SELECT for lookup_in, UPDATE, INSERT for mutate_in)
CREATE ROLE subdoc_reader;
GRANT SELECT ON subdoc TO subdoc_reader;
SET ROLE subdoc_reader;
SELECT docmodel.lookup_in('subdoc', 'user::2', '[{"op": "get", "path": "n"}]') AS reader_reads;
SELECT pg_temp.try($$SELECT docmodel.mutate_in('subdoc', 'user::2', '[{"op": "increment", "path": "n"}]')$$);
RESET ROLE;
GRANT UPDATE ON subdoc TO subdoc_reader;
SET ROLE subdoc_reader;
SELECT docmodel.mutate_in('subdoc', 'user::2', '[{"op": "increment", "path": "n"}]') - 'cas' AS writer_updates;
SELECT pg_temp.try($$SELECT docmodel.mutate_in('subdoc', 'user::9', '[{"op": "increment", "path": "n"}]', store_semantics => 'insert')$$);
RESET ROLE;
REVOKE ALL ON subdoc FROM subdoc_reader;
SET ROLE subdoc_reader;
SELECT pg_temp.try($$SELECT docmodel.lookup_in('subdoc', 'user::2', '[{"op": "get", "path": "n"}]')$$);
SELECT pg_temp.try($$SELECT docmodel.get('subdoc', 'user::2')$$);
SELECT pg_temp.try($$SELECT docmodel.exists('subdoc', 'user::2')$$);
RESET ROLE;
-- Column privileges on what the read needs are enough, as for the SELECT:
-- id, doc, expires_at, and the stamp columns where the collection keeps its
-- management fields in them (meta_style columns, as
-- docmodel.default_meta_style may make it); not cas nor locked_until.
DO $$
BEGIN
  IF EXISTS (SELECT FROM pg_attribute
             WHERE attrelid = 'subdoc'::regclass AND attname = 'ver' AND NOT attisdropped) THEN
    GRANT SELECT (id, doc, expires_at, created_at, modified_at, ver, created_by, modified_by)
      ON subdoc TO subdoc_reader;
  ELSE
    GRANT SELECT (id, doc, expires_at) ON subdoc TO subdoc_reader;
  END IF;
END $$;
SET ROLE subdoc_reader;
SELECT docmodel.get('subdoc', 'user::2')->'n' AS column_grant_get,
       docmodel.exists('subdoc', 'user::2') AS column_grant_exists;
RESET ROLE;
REVOKE ALL ON subdoc FROM subdoc_reader;

\echo == reads by key: row-level security, expiry, writes of the same transaction
-- A policy hiding the row hides it from get, lookup_in and exists (as from a SELECT).
GRANT SELECT ON subdoc TO subdoc_reader;
CREATE POLICY subdoc_hide ON subdoc USING (id OPERATOR(pg_catalog.<>) 'user::2');
ALTER TABLE subdoc ENABLE ROW LEVEL SECURITY;
SET ROLE subdoc_reader;
SELECT docmodel.get('subdoc', 'user::2') IS NULL AS rls_get_null,
       docmodel.lookup_in('subdoc', 'user::2', '[{"op": "get", "path": "n"}]') IS NULL AS rls_lookup_null,
       docmodel.exists('subdoc', 'user::2') AS rls_exists,
       docmodel.get('subdoc', 'user::1') IS NOT NULL AS rls_other_visible;
RESET ROLE;
ALTER TABLE subdoc DISABLE ROW LEVEL SECURITY;
DROP POLICY subdoc_hide ON subdoc;
REVOKE ALL ON subdoc FROM subdoc_reader;
DROP ROLE subdoc_reader;
-- An expired document is absent.
SELECT docmodel.insert('subdoc', 'sdexp::1', '{"n": 1}') > 0 AS inserted;
UPDATE subdoc SET expires_at = now() - interval '1 second' WHERE id = 'sdexp::1';
SELECT docmodel.get('subdoc', 'sdexp::1') IS NULL AS expired_get_null,
       docmodel.lookup_in('subdoc', 'sdexp::1', '[{"op": "get", "path": "n"}]') IS NULL AS expired_lookup_null,
       docmodel.exists('subdoc', 'sdexp::1') AS expired_exists;
-- A document written earlier in the transaction is read as written.
BEGIN;
UPDATE subdoc SET doc = doc || '{"n": 77}' WHERE id = 'user::2';
SELECT docmodel.get('subdoc', 'user::2')->'n' AS own_update_get,
       docmodel.lookup_in('subdoc', 'user::2', '[{"op": "get", "path": "n"}]') AS own_update_lookup;
DELETE FROM subdoc WHERE id = 'user::2';
SELECT docmodel.get('subdoc', 'user::2') IS NULL AS own_delete_get_null,
       docmodel.exists('subdoc', 'user::2') AS own_delete_exists;
ROLLBACK;
-- A table inheriting from the collection: reads see its rows, as SELECT does.
SELECT docmodel.get('subdoc', 'user::1') IS NOT NULL AS read_before_child;
CREATE TABLE subdoc_child () INHERITS (subdoc);
INSERT INTO subdoc_child (id, doc, cas) VALUES ('child::1', '{"n": 5}', 1);
SELECT docmodel.get('subdoc', 'child::1') AS child_get,
       docmodel.lookup_in('subdoc', 'child::1', '[{"op": "get", "path": "n"}]') AS child_lookup,
       docmodel.exists('subdoc', 'child::1') AS child_exists;
DROP TABLE subdoc_child;
-- Not a collection.
CREATE TABLE subdoc_plain (id text PRIMARY KEY, doc jsonb);
SELECT pg_temp.try($$SELECT docmodel.lookup_in('subdoc_plain', 'a', '[{"op": "get", "path": "n"}]')$$);
SELECT pg_temp.try($$SELECT docmodel.mutate_in('subdoc_plain', 'a', '[{"op": "increment", "path": "n"}]')$$);
DROP TABLE subdoc_plain;

SELECT docmodel.drop_collection('subdoc');

\echo == mutate_in writes the row itself where that is exactly its UPDATE: the same triggers, checks and privileges
SELECT docmodel.create_collection('sd_direct', revisions => 3) IS NOT NULL AS created;
SELECT docmodel.insert('sd_direct', 'user::1', '{"email": "a@x", "phones": []}') > 0 AS inserted,
       docmodel.insert('sd_direct', 'user::2', '{"email": "b@x", "phones": []}') > 0 AS inserted2;
CREATE TABLE sd_direct_log (id text, phones integer, ver integer);
CREATE FUNCTION sd_direct_before() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN NEW.doc := NEW.doc || '{"seen_by_before": true}'; RETURN NEW; END $$;
-- (the version the trigger stamped: doc's _ver, or the column ver where the
-- collection has meta_style columns)
CREATE FUNCTION sd_direct_after() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN INSERT INTO sd_direct_log VALUES (NEW.id, jsonb_array_length(NEW.doc->'phones'),
  coalesce(NEW.doc->>'_ver', to_jsonb(NEW)->>'ver')::int);
RETURN NULL; END $$;
CREATE TRIGGER sd_before BEFORE UPDATE ON sd_direct FOR EACH ROW EXECUTE FUNCTION sd_direct_before();
CREATE TRIGGER sd_after AFTER UPDATE ON sd_direct FOR EACH ROW EXECUTE FUNCTION sd_direct_after();
SELECT docmodel.mutate_in('sd_direct', 'user::1', '[{"op": "array_append", "path": "phones", "value": "111"}]') ? 'cas' AS appended;
-- the BEFORE trigger changed the row, the AFTER trigger saw it, the history has it
SELECT doc->'phones' AS phones, doc->'seen_by_before' AS seen, doc->'_ver' AS ver FROM sd_direct_documents WHERE id = 'user::1';
SELECT * FROM sd_direct_log;
SELECT count(*) AS revisions FROM sd_direct_revisions WHERE id = 'user::1';
-- a CHECK constraint refuses, the unique index refuses: nothing changed
ALTER TABLE sd_direct ADD CONSTRAINT sd_few_phones CHECK (jsonb_array_length(doc->'phones') <= 1);
SELECT split_part(pg_temp.try($$SELECT docmodel.mutate_in('sd_direct', 'user::1', '[{"op": "array_append", "path": "phones", "value": "222"}]')$$), ' (', 1) AS refused;
CREATE UNIQUE INDEX sd_direct_email ON sd_direct ((doc->>'email'));
SELECT pg_temp.try($$SELECT docmodel.mutate_in('sd_direct', 'user::2', '[{"op": "upsert", "path": "email", "value": "a@x"}]')$$);
SELECT id, doc->'phones' AS phones, doc->>'email' AS email, doc->'_ver' AS ver FROM sd_direct_documents ORDER BY id;
-- a BEFORE trigger that returns NULL: the UPDATE does nothing, so the document is not found
CREATE FUNCTION sd_direct_skip() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN IF NEW.id = 'user::2' THEN RETURN NULL; END IF; RETURN NEW; END $$;
CREATE TRIGGER sd_skip BEFORE UPDATE ON sd_direct FOR EACH ROW EXECUTE FUNCTION sd_direct_skip();
SELECT pg_temp.try($$SELECT docmodel.mutate_in('sd_direct', 'user::2', '[{"op": "upsert", "path": "n", "value": 1}]')$$);
DROP TRIGGER sd_skip ON sd_direct;
-- a read-only transaction refuses the write
BEGIN READ ONLY;
SELECT pg_temp.try($$SELECT docmodel.mutate_in('sd_direct', 'user::2', '[{"op": "upsert", "path": "n", "value": 1}]')$$);
ROLLBACK;
-- privileges: SELECT alone is not enough; row-level security applies
CREATE ROLE sd_direct_user;
GRANT USAGE ON SCHEMA docmodel TO sd_direct_user;
GRANT SELECT ON sd_direct TO sd_direct_user;
SET ROLE sd_direct_user;
SELECT pg_temp.try($$SELECT docmodel.mutate_in('sd_direct', 'user::2', '[{"op": "upsert", "path": "n", "value": 1}]')$$);
RESET ROLE;
GRANT UPDATE, INSERT ON sd_direct, sd_direct_revisions, sd_direct_log TO sd_direct_user;
GRANT SELECT ON sd_direct_revisions, sd_direct_log TO sd_direct_user;
ALTER TABLE sd_direct ENABLE ROW LEVEL SECURITY;
CREATE POLICY sd_own ON sd_direct USING (id = 'user::2');
SET ROLE sd_direct_user;
SELECT pg_temp.try($$SELECT docmodel.mutate_in('sd_direct', 'user::1', '[{"op": "upsert", "path": "n", "value": 1}]')$$);
SELECT docmodel.mutate_in('sd_direct', 'user::2', '[{"op": "upsert", "path": "n", "value": 2}]') ? 'cas' AS own_row;
RESET ROLE;
SELECT id, doc->'n' AS n FROM sd_direct ORDER BY id;
DROP POLICY sd_own ON sd_direct;
REVOKE ALL ON sd_direct, sd_direct_revisions, sd_direct_log FROM sd_direct_user;
REVOKE USAGE ON SCHEMA docmodel FROM sd_direct_user;
DROP ROLE sd_direct_user;
SELECT docmodel.drop_collection('sd_direct');
DROP TABLE sd_direct_log;
DROP FUNCTION sd_direct_before(), sd_direct_after(), sd_direct_skip();
