-- The key-design page's own examples, as written:
-- keys whose first part is not the type (type_part, type_check), the
-- management fields as each team spells them (fields), and the fields kept
-- outside the body (meta_style 'xattrs', meta()).
\i test/sql/include/try.sql
SET client_min_messages = warning;

-- Volatile stamps (times, cas, writer) hidden, the rest shown.
CREATE FUNCTION pg_temp.shown(d jsonb) RETURNS jsonb LANGUAGE sql AS $$
  SELECT CASE WHEN jsonb_typeof(d) = 'object' THEN
    (SELECT coalesce(jsonb_object_agg(k, CASE
        WHEN k IN ('created', 'modified', 'createdAt', 'modifiedAt', '_created',
                   '_modified', 'cas', 'ts') THEN '"*"'::jsonb
        WHEN k IN ('createdBy', 'modifiedBy', '_createdBy', '_modifiedBy', 'by')
          THEN '"*"'::jsonb
        ELSE pg_temp.shown(v) END), '{}')
     FROM jsonb_each(d) AS e(k, v))
  ELSE d END
$$;

-------------------------------------------------------------------------------
-- 1. "You do not need prefixing to isolate document types": 123 in users.
-------------------------------------------------------------------------------
-- Before: a typed collection refuses 123 (type "123"), and the default
-- layout still does.
SELECT docmodel.create_collection('users_prefixed', doc_type => 'user') IS NOT NULL AS created;
SELECT pg_temp.try($$INSERT INTO users_prefixed (id, doc) VALUES ('123', '{"name": "Fred"}')$$);

SELECT docmodel.create_collection('users', doc_type => 'user', type_part => 0) IS NOT NULL AS created;
INSERT INTO users (id, doc) VALUES ('123', '{"name": "Fred"}');
SELECT id, pg_temp.shown(doc) FROM users_documents;
-- the body's type must still be the collection's
SELECT pg_temp.try($$INSERT INTO users (id, doc) VALUES ('124', '{"_type": "admin"}')$$);
SELECT docmodel.get('users', '123') ->> '_type' AS type;

-- 123::987 in studentEnrollment: the key is the student and the course.
SELECT docmodel.create_collection('"studentEnrollment"', doc_type => 'enrollment',
                                  type_part => 0) IS NOT NULL AS created;
INSERT INTO "studentEnrollment" (id, doc) VALUES ('123::987', '{"grade": "A"}');
SELECT id, pg_temp.shown(doc) FROM "studentEnrollment_documents";

-- Option errors.
SELECT pg_temp.try($$SELECT docmodel.create_collection('bad1', type_part => 0)$$);
SELECT pg_temp.try($$SELECT docmodel.create_collection('bad2', type_part => -1)$$);
SELECT pg_temp.try($$SELECT docmodel.create_collection('bad3', type_part => NULL)$$);
SELECT pg_temp.try($$SELECT docmodel.create_collection('bad4', type_check => 'loose')$$);
SELECT pg_temp.try($$SELECT docmodel.create_collection('bad5', type_check => NULL)$$);
SELECT pg_temp.try($$SELECT docmodel.create_collection('bad6', meta_style => 'attrs')$$);
SELECT count(*) AS bad_tables FROM pg_class WHERE relname LIKE 'bad_';

-------------------------------------------------------------------------------
-- App-prefixed keys: couchmusic:userprofile:fredsmith79, type in part 2.
-------------------------------------------------------------------------------
SELECT docmodel.create_collection('couchmusic', delimiter => ':', type_part => 2,
                                  meta_style => 'plain') IS NOT NULL AS created;
INSERT INTO couchmusic (id, doc)
  VALUES ('couchmusic:userprofile:fredsmith79', '{"firstName": "Fred"}');
SELECT id, pg_temp.shown(doc) FROM couchmusic_documents;
-- a key without part 2
SELECT pg_temp.try($$INSERT INTO couchmusic (id, doc) VALUES ('fredsmith79', '{}')$$);
-- the body's type is checked against part 2, not part 1
SELECT pg_temp.try($$INSERT INTO couchmusic (id, doc)
  VALUES ('couchmusic:userprofile:jdoe', '{"type": "couchmusic"}')$$);
SELECT docmodel.upsert('couchmusic', 'couchmusic:track:t1', '{"title": "So What"}') > 0 AS upserted;
SELECT docmodel.get('couchmusic', 'couchmusic:track:t1') ->> 'type' AS type;
-- with a doc_type, part 2 must be it
SELECT docmodel.create_collection('couchmusic_users', delimiter => ':', type_part => 2,
                                  doc_type => 'userprofile') IS NOT NULL AS created;
SELECT pg_temp.try($$INSERT INTO couchmusic_users (id, doc) VALUES ('couchmusic:track:t1', '{}')$$);
SELECT pg_temp.try($$INSERT INTO couchmusic_users (id, doc) VALUES ('couchmusic:userprofile:fredsmith79', '{}')$$);

-------------------------------------------------------------------------------
-- userprofile:fredsmith79 with "type": "userProfile" (case differs).
-------------------------------------------------------------------------------
SELECT docmodel.create_collection('profiles_exact', delimiter => ':',
                                  meta_style => 'plain') IS NOT NULL AS created;
SELECT pg_temp.try($$INSERT INTO profiles_exact (id, doc)
  VALUES ('userprofile:fredsmith79', '{"type": "userProfile", "firstName": "Fred"}')$$);
SELECT docmodel.create_collection('profiles', delimiter => ':', meta_style => 'plain',
                                  type_check => 'case_insensitive') IS NOT NULL AS created;
INSERT INTO profiles (id, doc)
  VALUES ('userprofile:fredsmith79', '{"type": "userProfile", "firstName": "Fred"}');
-- without a type field, the key's spelling is stamped
INSERT INTO profiles (id, doc) VALUES ('userprofile:jdoe', '{"firstName": "John"}');
SELECT id, pg_temp.shown(doc) FROM profiles_documents ORDER BY id;
-- case_insensitive still refuses another type
SELECT pg_temp.try($$INSERT INTO profiles (id, doc)
  VALUES ('userprofile:x', '{"type": "userSettings"}')$$);
-- type_check off: the body's type is kept, whatever the key
SELECT docmodel.create_collection('profiles_off', delimiter => ':', meta_style => 'plain',
                                  type_check => 'off') IS NOT NULL AS created;
INSERT INTO profiles_off (id, doc) VALUES ('userprofile:x', '{"type": "userSettings"}');
INSERT INTO profiles_off (id, doc) VALUES ('userprofile:y', '{}');
SELECT id, doc ->> 'type' AS type FROM profiles_off ORDER BY id;
-- migrations find the rules of the stamped type (the body's spelling)
SELECT docmodel.register_migration('userProfile', '1', '2',
  '[{"op": "move", "from": "/firstName", "path": "/first_name"}]');
INSERT INTO profiles (id, doc)
  VALUES ('userprofile:old', '{"type": "userProfile", "schema": "1", "firstName": "Old"}');
SELECT id, pg_temp.shown(doc) FROM profiles_documents WHERE id = 'userprofile:old';
-- so does get() of a document stored before the rule
SELECT docmodel.get('profiles', 'userprofile:fredsmith79') -> 'first_name' AS migrated;

-------------------------------------------------------------------------------
-- 2. Field names as each team spells them: docType, _class, JSON Pointers.
-------------------------------------------------------------------------------
SELECT docmodel.create_collection('hotels', fields =>
  '{"type": "docType", "schema": "version", "created": "createdAt",
    "modified": "modifiedAt", "ver": "rev"}') IS NOT NULL AS created;
INSERT INTO hotels (id, doc) VALUES ('hotel::1', '{"name": "Le Grand"}');
UPDATE hotels SET doc = doc || '{"stars": 4}' WHERE id = 'hotel::1';
SELECT id, pg_temp.shown(doc) FROM hotels_documents;
-- the renamed type field is checked against the key
SELECT pg_temp.try($$INSERT INTO hotels (id, doc) VALUES ('hotel::2', '{"docType": "airline"}')$$);
-- a field with the old name is the application's own
INSERT INTO hotels (id, doc) VALUES ('hotel::3', '{"_type": "mine", "_ver": 7, "name": "Inn"}');
SELECT pg_temp.shown(doc) FROM hotels_documents WHERE id = 'hotel::3';
-- migrations read and write the renamed schema field
SELECT docmodel.register_migration('hotel', '1', '2',
  '[{"op": "move", "from": "/name", "path": "/title"}]');
-- get() and get_multi() migrate a hotel stored before the rule, by its fields
SELECT docmodel.get('hotels', 'hotel::1') -> 'title' AS title,
       docmodel.get('hotels', 'hotel::1') -> 'version' AS version;
SELECT key, doc -> 'title' AS title FROM docmodel.get_multi('hotels', ARRAY['hotel::1']);
-- migration_plan and migrate_collection read the renamed fields (AUTO would
-- take hotel::3's own "_type": "mine" for its type)
SELECT * FROM docmodel.migration_plan('hotels');
CALL docmodel.migrate_collection('hotels');
SELECT id, doc -> 'title' AS title, doc -> 'version' AS version, doc -> '_type' AS own_type
  FROM hotels_documents ORDER BY id;
SELECT * FROM docmodel.migration_plan('hotels');
INSERT INTO hotels (id, doc) VALUES ('hotel::4', '{"name": "Old", "version": "1"}');
SELECT pg_temp.shown(doc) FROM hotels_documents WHERE id = 'hotel::4';
-- a no-op update keeps rev
UPDATE hotels SET doc = doc WHERE id = 'hotel::4';
UPDATE hotels SET doc = doc - 'modifiedAt' WHERE id = 'hotel::4';
SELECT doc -> 'rev' AS rev FROM hotels_documents WHERE id = 'hotel::4';
-- a write reads the renamed schema field too
SELECT pg_temp.try($$UPDATE hotels SET doc = jsonb_set(doc, '{version}', '"1"')
  WHERE id = 'hotel::3'$$);

-- Spring Data's _class, in the underscore preset otherwise
SELECT docmodel.create_collection('spring', fields => '{"type": "_class"}') IS NOT NULL AS created;
INSERT INTO spring (id, doc) VALUES ('person::1', '{"firstname": "Ada"}');
SELECT pg_temp.shown(doc) FROM spring_documents;

-- JSON Pointers: every field in the object "/meta" of the plain style's names
SELECT docmodel.create_collection('pointed', meta_style => 'plain', fields =>
  '{"type": "/meta/type", "created": "/meta/createdAt"}') IS NOT NULL AS created;
INSERT INTO pointed (id, doc) VALUES ('post::1', '{"title": "Hello"}');
SELECT pg_temp.shown(doc) FROM pointed_documents;
-- and at the root, by pointer, in the meta style
SELECT docmodel.create_collection('rooted', meta_style => 'meta', fields =>
  '{"type": "/kind"}') IS NOT NULL AS created;
INSERT INTO rooted (id, doc) VALUES ('post::1', '{"title": "Hello"}');
SELECT pg_temp.shown(doc) FROM rooted_documents;
-- revisions keep numbering by the renamed ver
SELECT docmodel.set_revisions('hotels', 5) IS NOT NULL AS kept;
UPDATE hotels SET doc = doc || '{"stars": 5}' WHERE id = 'hotel::1';
SELECT ver, op, doc -> 'stars' AS stars FROM docmodel.revisions('hotels', 'hotel::1');

-- fields errors: 22023 naming the member
SELECT pg_temp.try($$SELECT docmodel.create_collection('badf', fields => '["type"]')$$);
SELECT pg_temp.try($$SELECT docmodel.create_collection('badf', fields => '{"kind": "docType"}')$$);
SELECT pg_temp.try($$SELECT docmodel.create_collection('badf', fields => '{"id": "key"}')$$);
SELECT pg_temp.try($$SELECT docmodel.create_collection('badf', fields => '{"cas": "version"}')$$);
SELECT pg_temp.try($$SELECT docmodel.create_collection('badf', fields => '{"type": 1}')$$);
SELECT pg_temp.try($$SELECT docmodel.create_collection('badf', fields => '{"type": ""}')$$);
SELECT pg_temp.try($$SELECT docmodel.create_collection('badf', fields => '{"type": "/a~2"}')$$);
SELECT pg_temp.try($$SELECT docmodel.create_collection('badf', fields => '{"type": "/a/b/c"}')$$);
SELECT pg_temp.try($$SELECT docmodel.create_collection('badf', fields => '{"type": "/"}')$$);
SELECT pg_temp.try($$SELECT docmodel.create_collection('badf',
  fields => '{"type": "/meta/type", "ver": "/info/ver"}')$$);
SELECT pg_temp.try($$SELECT docmodel.create_collection('badf',
  fields => '{"created": "ts", "modified": "ts"}')$$);
SELECT pg_temp.try($$SELECT docmodel.create_collection('badf', fields => '{"ver": "_type"}')$$);
SELECT pg_temp.try($$SELECT docmodel.create_collection('badf', fields => '{"type": "/meta/meta"}')$$);
SELECT pg_temp.try(format($$SELECT docmodel.create_collection('badf', fields => '{"type": "%s"}')$$,
                          repeat('x', 64)));
SELECT count(*) AS badf FROM pg_class WHERE relname = 'badf';

-------------------------------------------------------------------------------
-- meta_style 'xattrs': the body as written, any JSON value; meta() reads
-- the fields.
-------------------------------------------------------------------------------
SELECT docmodel.create_collection('sessions', meta_style => 'xattrs', revisions => 3)
  IS NOT NULL AS created;
SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute
  WHERE attrelid = 'sessions'::regclass AND attnum > 0 ORDER BY attnum;
-- the guide's session state: a string, and an array
INSERT INTO sessions (id, doc) VALUES ('session::a1', '"eyJ1c2VyIjoiZnJlZCJ9"');
INSERT INTO sessions (id, doc) VALUES ('session::a2', '["cart", "checkout"]');
INSERT INTO sessions (id, doc) VALUES ('session::a3', '{"user": "fred"}');
SELECT id, doc, pg_temp.shown(meta) FROM sessions ORDER BY id;
SELECT docmodel.get('sessions', 'session::a1') AS body;
SELECT pg_temp.shown(docmodel.meta('sessions', 'session::a2')) AS meta;
-- an update: the body replaced as written, ver on, created kept
UPDATE sessions SET doc = '["cart", "checkout", "paid"]' WHERE id = 'session::a2';
SELECT doc, meta -> 'ver' AS ver, meta -> 'created' = (SELECT meta -> 'created' FROM sessions
  WHERE id = 'session::a2') AS created_kept FROM sessions WHERE id = 'session::a2';
-- history keeps bodies; its columns keep ver, when and who
SELECT ver, op, doc FROM docmodel.revisions('sessions', 'session::a2');
-- meta cannot be forged by an UPDATE
UPDATE sessions SET meta = '{"ver": 99}' WHERE id = 'session::a2';
SELECT meta -> 'ver' AS ver FROM sessions WHERE id = 'session::a2';
UPDATE sessions SET meta = '{"ver": 99}', doc = '"x"' WHERE id = 'session::a1';
SELECT doc, meta -> 'ver' AS ver FROM sessions WHERE id = 'session::a1';
-- the type is still the key's
SELECT docmodel.create_collection('xsessions', meta_style => 'xattrs', doc_type => 'session')
  IS NOT NULL AS created;
SELECT pg_temp.try($$INSERT INTO xsessions (id, doc) VALUES ('cart::1', '1')$$);
-- the KV API and expiry
SELECT docmodel.upsert('xsessions', 'session::k', '"v1"', 3600) > 0 AS upserted;
SELECT docmodel.get('xsessions', 'session::k') AS body;
-- reads return the body as stored, never migrated (it carries no version)
INSERT INTO xsessions (id, doc) VALUES ('session::m', '{"type": "user", "_schema": "0"}');
SELECT docmodel.get('xsessions', 'session::m') AS body;
SELECT doc FROM docmodel.get_multi('xsessions', ARRAY['session::m']);
-- nor by mutate_in, though the body looks like a document of a type with rules
SELECT docmodel.register_migration('user', '0', '1', '[{"op": "add", "path": "/migrated", "value": true}]');
SELECT docmodel.mutate_in('xsessions', 'session::m', '[{"op": "upsert", "path": "x", "value": 1}]') ? 'cas' AS mutated;
SELECT doc FROM xsessions WHERE id = 'session::m';
SELECT docmodel.lookup_in('xsessions', 'session::m', '[{"op": "get", "path": "_schema"}]') -> 0 AS schema;
DELETE FROM docmodel.migration_rules WHERE doc_type = 'user';
SELECT (m ->> 'expiration')::bigint > extract(epoch FROM now()) AS expires,
       m ->> 'type' AS type, m -> 'ver' AS ver, m ->> 'id' AS id,
       (m ->> 'cas')::bigint = (SELECT cas FROM xsessions WHERE id = 'session::k') AS cas
  FROM docmodel.meta('xsessions', 'session::k') AS m;
SELECT docmodel.meta('xsessions', 'session::none') IS NULL AS absent;
-- renamed fields in xattrs' meta
SELECT docmodel.create_collection('xrenamed', meta_style => 'xattrs',
  fields => '{"type": "docType"}') IS NOT NULL AS created;
INSERT INTO xrenamed (id, doc) VALUES ('event::1', '[1, 2]');
SELECT doc, meta ? 'docType' AS renamed FROM xrenamed;
-- a migration registered for the type stamps the current schema in meta
SELECT docmodel.register_migration('event', '1', '2', '[]');
INSERT INTO xrenamed (id, doc) VALUES ('event::2', '{"a": 1}');
SELECT doc, meta -> 'schema' AS schema FROM xrenamed WHERE id = 'event::2';

-- meta() whatever the style: underscore, meta, renamed
SELECT pg_temp.shown(docmodel.meta('users', '123')) AS users_meta;
SELECT pg_temp.shown(docmodel.meta('hotels', 'hotel::1')) AS hotels_meta;
SELECT pg_temp.shown(docmodel.meta('pointed', 'post::1')) AS pointed_meta;

-- meta() runs as the caller: SELECT on the collection, row-level security
CREATE ROLE guides_reader;
SET ROLE guides_reader;
SELECT pg_temp.try($$SELECT docmodel.meta('sessions', 'session::a1')$$);
SELECT pg_temp.try($$SELECT docmodel.create_collection('guides_forged', meta_style => 'xattrs')$$);
RESET ROLE;
GRANT SELECT ON sessions TO guides_reader;
ALTER TABLE sessions ENABLE ROW LEVEL SECURITY;
CREATE POLICY only_a2 ON sessions FOR SELECT TO guides_reader USING (id = 'session::a2');
SET ROLE guides_reader;
SELECT docmodel.meta('sessions', 'session::a1') IS NULL AS hidden,
       docmodel.meta('sessions', 'session::a2') ->> 'type' AS shown;
RESET ROLE;

-- the meta column of an xattrs collection must stay
ALTER TABLE xsessions ALTER COLUMN meta TYPE json;
SELECT pg_temp.try($$INSERT INTO xsessions (id, doc) VALUES ('session::z', '1')$$);
ALTER TABLE xsessions DROP COLUMN meta;
SELECT pg_temp.try($$INSERT INTO xsessions (id, doc) VALUES ('session::z', '1')$$);
-- another collection may have a column of that name, anywhere
SELECT docmodel.create_collection('with_meta') IS NOT NULL AS created;
ALTER TABLE with_meta ADD COLUMN note text, ADD COLUMN meta text;
INSERT INTO with_meta (id, doc, meta) VALUES ('note::1', '{}', 'mine');
SELECT id, w.meta, d.doc ->> '_type' AS type FROM with_meta w JOIN with_meta_documents d USING (id);
SELECT docmodel.drop_collection('with_meta');

-- the options are shown (users and hotels, made without meta_style, have the
-- default style: underscore, or columns where docmodel.default_meta_style says so)
SELECT collection,
       CASE WHEN meta_style IN ('underscore', 'columns') THEN 'default style' ELSE meta_style END
         AS meta_style,
       type_part, type_check, fields FROM docmodel.collections
  WHERE collection::text IN ('users', 'couchmusic', 'profiles', 'hotels', 'sessions')
  ORDER BY collection::text;

-- Leave nothing behind for the suites after this one.
DELETE FROM docmodel.migration_rules WHERE doc_type IN ('userProfile', 'hotel', 'event');
-- (and the run ids the migrate suite counts from)
DELETE FROM docmodel.migration_run WHERE coll = 'hotels'::regclass;
SELECT setval(pg_get_serial_sequence('docmodel.migration_run', 'run_id'), 1, false) AS run_ids;
SELECT count(*) AS dropped FROM (
  SELECT docmodel.drop_collection(c) FROM unnest(ARRAY['users_prefixed', 'users',
    '"studentEnrollment"', 'couchmusic', 'couchmusic_users', 'profiles_exact', 'profiles',
    'profiles_off', 'hotels', 'spring', 'pointed', 'rooted', 'sessions', 'xsessions',
    'xrenamed']::regclass[]) AS c) AS d;
DROP ROLE guides_reader;
