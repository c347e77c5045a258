-- Revisions: history kept by the collection trigger (README, "Revisions").
\i test/sql/include/try.sql
-- The revisions of a key, compactly: ver, op, the body's n and _ver.
CREATE FUNCTION pg_temp.hist(coll regclass, key text) RETURNS TABLE(ver integer, revision_key text, op text, n jsonb, body_ver jsonb)
LANGUAGE sql AS $$
  SELECT r.ver, r.revision_key, r.op, r.doc->'n', coalesce(r.doc->'_ver', r.doc->'ver', r.doc->'meta'->'ver')
  FROM docmodel.revisions(coll, key) r $$;
-- The same without the detail, for errors whose detail holds stamped values.
CREATE FUNCTION pg_temp.try_msg(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE st text; msg text;
BEGIN
  EXECUTE sql;
  RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
  RETURN st || ': ' || msg;
END $$;
SET docmodel.actor = 'tester';

-- keep = 3 over 10 writes (insert + 9 updates): revisions 7, 8, 9 and _ver 10.
SELECT docmodel.create_collection('revisions_users', revisions => 3);
SELECT collection, revisions, revisions_table FROM docmodel.collections WHERE collection = 'revisions_users'::regclass;
INSERT INTO revisions_users (id, doc, cas) VALUES ('user::1', '{"n": 0}', 0);
DO $$ BEGIN
  FOR i IN 1..9 LOOP
    UPDATE revisions_users SET doc = jsonb_set(doc, '{n}', to_jsonb(i)) WHERE id = 'user::1';
  END LOOP;
END $$;
SELECT doc->'_ver' AS ver, doc->'n' AS n FROM revisions_users_documents;
SELECT * FROM pg_temp.hist('revisions_users', 'user::1');
SELECT ver, op, changed_by, changed_at <= now() AS changed_at_set FROM docmodel.revisions('revisions_users', 'user::1');
SELECT docmodel.get_revision('revisions_users', 'user::1', 8)->'n' AS n_of_8,
       docmodel.get_revision('revisions_users', 'user::1', 2) AS pruned,
       docmodel.get_revision('revisions_users', 'user::nobody', 1) AS absent;
SELECT count(*) AS rows_in_history FROM revisions_users_revisions;

-- A no-op update writes no revision and keeps the document, _ver included
-- (so there is no gap in the numbering): the same body, or one where only
-- restamped fields differ. cas still moves on.
CREATE TEMP TABLE revisions_before_noop AS SELECT doc, cas FROM revisions_users_documents;
UPDATE revisions_users SET doc = doc;
UPDATE revisions_users SET doc = doc - '_modified' - '_modifiedBy';
UPDATE revisions_users SET doc = doc || '{"_ver": 99}';
UPDATE revisions_users SET expires_at = NULL;
SELECT u.doc = b.doc AS doc_kept, u.cas > b.cas AS cas_grew, u.doc->'_ver' AS ver
FROM revisions_users_documents u, revisions_before_noop b;
DROP TABLE revisions_before_noop;
SELECT ver FROM docmodel.revisions('revisions_users', 'user::1');

-- A write that does not happen leaves no revision: an update cancelled by a
-- later BEFORE trigger, and one that fails afterwards.
CREATE FUNCTION revisions_cancel() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN IF NEW.doc->>'cancel' = 'yes' THEN RETURN NULL; END IF; RETURN NEW; END $$;
CREATE TRIGGER zz_cancel BEFORE UPDATE ON revisions_users FOR EACH ROW EXECUTE FUNCTION revisions_cancel();
UPDATE revisions_users SET doc = doc || '{"cancel": "yes"}';
ALTER TABLE revisions_users ADD CONSTRAINT revisions_no_bad CHECK (doc->>'n' IS DISTINCT FROM 'bad');
SELECT pg_temp.try_msg($q$UPDATE revisions_users SET doc = doc || '{"n": "bad"}'$q$);
CREATE FUNCTION revisions_fail_after() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN IF NEW.doc->>'n' = 'late' THEN RAISE EXCEPTION 'late failure' USING ERRCODE = 'raise_exception'; END IF; RETURN NULL; END $$;
CREATE TRIGGER zz_fail AFTER UPDATE ON revisions_users FOR EACH ROW EXECUTE FUNCTION revisions_fail_after();
SELECT pg_temp.try($q$UPDATE revisions_users SET doc = doc || '{"n": "late"}'$q$);
SELECT doc->'_ver' AS ver, doc->'n' AS n FROM revisions_users_documents;
SELECT ver FROM docmodel.revisions('revisions_users', 'user::1');
DROP TRIGGER zz_cancel ON revisions_users;
DROP TRIGGER zz_fail ON revisions_users;
ALTER TABLE revisions_users DROP CONSTRAINT revisions_no_bad;

-- DELETE writes a tombstone (the deleted body, op 'delete'); restore brings it
-- back and numbering continues after the tombstone.
UPDATE revisions_users SET doc = jsonb_set(doc, '{n}', '10') WHERE id = 'user::1';
DELETE FROM revisions_users WHERE id = 'user::1';
SELECT * FROM pg_temp.hist('revisions_users', 'user::1');
SELECT docmodel.restore('revisions_users', 'user::1', 11) AS restored_cas \gset
SELECT cas = :restored_cas AS returns_new_cas, doc->'_ver' AS ver, doc->'n' AS n FROM revisions_users_documents;
SELECT * FROM pg_temp.hist('revisions_users', 'user::1');
-- Restoring a live document is an update: the current body becomes a revision.
SELECT docmodel.restore('revisions_users', 'user::1', 10) > 0 AS restored;
SELECT doc->'_ver' AS ver, doc->'n' AS n FROM revisions_users_documents;
SELECT * FROM pg_temp.hist('revisions_users', 'user::1');
-- A plain re-insert after a delete continues the numbering too.
DELETE FROM revisions_users;
INSERT INTO revisions_users (id, doc, cas) VALUES ('user::1', '{"n": "again"}', 0);
SELECT doc->'_ver' AS ver, doc->'n' AS n FROM revisions_users_documents;
SELECT ver, op FROM docmodel.revisions('revisions_users', 'user::1');

-- Several rows in one statement: one revision each.
INSERT INTO revisions_users (id, doc, cas) SELECT 'user::' || i, '{"n": 0}', 0 FROM generate_series(2, 4) i;
UPDATE revisions_users SET doc = doc || '{"bulk": true}';
SELECT id, array_agg(ver ORDER BY ver) AS vers FROM revisions_users_revisions WHERE id <> 'user::1' GROUP BY id ORDER BY id;

-- Renames do not matter: the trigger finds the history by OID.
ALTER TABLE revisions_users RENAME TO revisions_people;
ALTER TABLE revisions_users_revisions RENAME TO revisions_people_history;
UPDATE revisions_people SET doc = doc || '{"renamed": true}' WHERE id = 'user::2';
SELECT ver, op FROM docmodel.revisions('revisions_people', 'user::2');
SELECT revisions_table FROM docmodel.collections WHERE collection = 'revisions_people'::regclass;

-- An expired document written over: its body is filed as op 'expire', and the
-- new document's _ver continues after it.
UPDATE revisions_people SET expires_at = now() - interval '1 hour' WHERE id = 'user::3';
-- (the documents view keeps the name it was made with, revisions_users_documents)
SELECT doc->'_ver' AS ver_before FROM revisions_users_documents WHERE id = 'user::3';
UPDATE revisions_people SET doc = '{"n": "fresh"}', expires_at = NULL WHERE id = 'user::3';
SELECT doc->'_ver' AS ver_after FROM revisions_users_documents WHERE id = 'user::3';
SELECT * FROM pg_temp.hist('revisions_people', 'user::3');

-- An index of the user's own on the history table: still written (general path).
CREATE INDEX revisions_people_history_op ON revisions_people_history (op);
UPDATE revisions_people SET doc = doc || '{"indexed": true}' WHERE id = 'user::4';
SELECT ver, op FROM docmodel.revisions('revisions_people', 'user::4');
SET enable_seqscan = off;
SELECT count(*) AS via_user_index FROM revisions_people_history WHERE op = 'update';
RESET enable_seqscan;
DROP INDEX revisions_people_history_op;

-- TRUNCATE keeps history and files every document as a 'truncate' revision.
TRUNCATE revisions_people;
SELECT id, ver, op FROM revisions_people_history WHERE op = 'truncate' ORDER BY id;
INSERT INTO revisions_people (id, doc, cas) VALUES ('user::2', '{"n": "after truncate"}', 0);
SELECT doc->'_ver' AS continues FROM revisions_users_documents WHERE id = 'user::2';

-- Lowering keep prunes at once; 0 turns history off but keeps the table, and
-- numbering still continues after it.
SELECT docmodel.set_revisions('revisions_people', 1);
SELECT id, array_agg(ver ORDER BY ver) AS vers FROM revisions_people_history GROUP BY id ORDER BY id;
SELECT docmodel.set_revisions('revisions_people', 0);
SELECT tgname FROM pg_trigger WHERE tgrelid = 'revisions_people'::regclass AND NOT tgisinternal ORDER BY 1;
UPDATE revisions_people SET doc = doc || '{"off": true}';
DELETE FROM revisions_people;
INSERT INTO revisions_people (id, doc, cas) VALUES ('user::1', '{"n": "while off"}', 0);
SELECT doc->'_ver' AS ver FROM revisions_users_documents;
SELECT count(*) AS history_rows FROM revisions_people_history;
SELECT docmodel.set_revisions('revisions_people', 2);
SELECT tgname FROM pg_trigger WHERE tgrelid = 'revisions_people'::regclass AND NOT tgisinternal ORDER BY 1;

-- The other meta styles number the same way.
SELECT docmodel.create_collection('revisions_meta', meta_style => 'meta', revisions => 2);
SELECT docmodel.create_collection('revisions_plain', meta_style => 'plain', revisions => 2);
INSERT INTO revisions_meta (id, doc, cas) VALUES ('user::m', '{"n": 0}', 0);
INSERT INTO revisions_plain (id, doc, cas) VALUES ('user::p', '{"n": 0}', 0);
UPDATE revisions_meta SET doc = doc || '{"n": 1}';
UPDATE revisions_meta SET doc = doc || '{"n": 2}';
UPDATE revisions_meta SET doc = doc || '{"n": 3}';
UPDATE revisions_meta SET doc = doc;
UPDATE revisions_meta SET doc = doc #- '{meta,modified}';
UPDATE revisions_plain SET doc = doc || '{"n": 1}';
UPDATE revisions_plain SET doc = doc || '{"n": 2}';
UPDATE revisions_plain SET doc = doc - 'modified';
SELECT doc->'meta'->'ver' AS meta_ver FROM revisions_meta_documents;
SELECT * FROM pg_temp.hist('revisions_meta', 'user::m');
SELECT doc->'ver' AS plain_ver FROM revisions_plain_documents;
SELECT * FROM pg_temp.hist('revisions_plain', 'user::p');

-- The key-value functions keep history the same way (touch and a replace with
-- the same body file none; insert after remove continues the numbering).
SELECT docmodel.create_collection('revisions_kv', revisions => 5);
SELECT docmodel.insert('revisions_kv', 'user::k', '{"n": 1}') > 0 AS inserted;
SELECT docmodel.upsert('revisions_kv', 'user::k', '{"n": 2}') > 0 AS upserted;
SELECT docmodel.replace('revisions_kv', 'user::k', '{"n": 3}') > 0 AS replaced;
SELECT docmodel.touch('revisions_kv', 'user::k', interval '1 hour') > 0 AS touched;
SELECT docmodel.replace('revisions_kv', 'user::k', '{"n": 3}') > 0 AS same_body;
SELECT docmodel.remove('revisions_kv', 'user::k') > 0 AS removed;
SELECT docmodel.insert('revisions_kv', 'user::k', '{"n": 4}') > 0 AS reinserted;
SELECT docmodel.get('revisions_kv', 'user::k')->'_ver' AS ver;
SELECT * FROM pg_temp.hist('revisions_kv', 'user::k');
SELECT docmodel.drop_collection('revisions_kv');

-- diff between two revisions.
SELECT docmodel.diff(docmodel.get_revision('revisions_meta', 'user::m', 2) - 'meta',
                     docmodel.get_revision('revisions_meta', 'user::m', 3) - 'meta') AS diff_2_3;

-- Errors.
CREATE TABLE revisions_plain_table (id text PRIMARY KEY, doc jsonb);
SELECT pg_temp.try($q$SELECT docmodel.set_revisions('revisions_meta', -1)$q$);
SELECT pg_temp.try($q$SELECT docmodel.set_revisions('revisions_meta', NULL)$q$);
SELECT pg_temp.try($q$SELECT docmodel.set_revisions('revisions_plain_table', 3)$q$);
SELECT pg_temp.try($q$SELECT docmodel.create_collection('revisions_bad', revisions => -2)$q$);
SELECT pg_temp.try($q$SELECT * FROM docmodel.revisions('revisions_plain_table', 'user::1')$q$);
SELECT docmodel.create_collection('revisions_none');
SELECT pg_temp.try($q$SELECT * FROM docmodel.revisions('revisions_none', 'user::1')$q$);
SELECT pg_temp.try($q$SELECT docmodel.get_revision('revisions_none', 'user::1', 1)$q$);
SELECT pg_temp.try($q$SELECT docmodel.restore('revisions_meta', 'user::m', 99)$q$);
SELECT pg_temp.try($q$SELECT docmodel.restore('revisions_meta', 'user::nobody', 1)$q$);
SELECT docmodel.restore('revisions_meta', 'user::m', NULL) IS NULL AS strict;
-- The history table dropped behind docmodel's back: writes say so; set_revisions makes a new one.
DROP TABLE revisions_plain_revisions;
SELECT pg_temp.try($q$UPDATE revisions_plain SET doc = doc || '{"n": 9}'$q$);
SELECT pg_temp.try($q$SELECT * FROM docmodel.revisions('revisions_plain', 'user::p')$q$);
SELECT docmodel.set_revisions('revisions_plain', 2);
UPDATE revisions_plain SET doc = doc || '{"n": 9}';
SELECT * FROM pg_temp.hist('revisions_plain', 'user::p');
-- A history table of the wrong shape is refused.
SELECT docmodel.set_revisions('revisions_none', 1);
INSERT INTO revisions_none (id, doc, cas) VALUES ('user::x', '{}', 0);
ALTER TABLE revisions_none_revisions DROP CONSTRAINT revisions_none_revisions_pkey;
SELECT pg_temp.try($q$UPDATE revisions_none SET doc = '{"a": 1}'$q$);
SELECT pg_temp.try($q$INSERT INTO revisions_none (id, doc, cas) VALUES ('user::y', '{}', 0)$q$);
-- Privileges: reading history needs SELECT on the history table; writing the
-- collection needs none on it.
CREATE ROLE revisions_writer;
GRANT SELECT, UPDATE ON revisions_meta TO revisions_writer;
SET ROLE revisions_writer;
UPDATE revisions_meta SET doc = doc || '{"n": "by writer"}';
SELECT pg_temp.try($q$SELECT * FROM docmodel.revisions('revisions_meta', 'user::m')$q$);
RESET ROLE;
SELECT ver, changed_by FROM docmodel.revisions('revisions_meta', 'user::m');
REVOKE ALL ON revisions_meta FROM revisions_writer;
DROP ROLE revisions_writer;

-- A plain DROP TABLE of a collection leaves its history behind; creating the
-- collection again takes it over, and numbering continues after it. When
-- another table holds the name, the history table gets the next free one.
SELECT docmodel.create_collection('revisions_again', revisions => 2);
INSERT INTO revisions_again (id, doc, cas) VALUES ('user::a', '{"n": 1}', 0);
UPDATE revisions_again SET doc = '{"n": 2}';
DROP TABLE revisions_again CASCADE;
SELECT docmodel.create_collection('revisions_again', revisions => 2);
INSERT INTO revisions_again (id, doc, cas) VALUES ('user::a', '{"n": 3}', 0);
UPDATE revisions_again SET doc = '{"n": 4}';
SELECT doc->'_ver' AS ver, doc->'n' AS n FROM revisions_again_documents;
SELECT ver, op, doc->'n' AS n FROM docmodel.revisions('revisions_again', 'user::a');
SELECT count(*) AS configs_naming_it FROM docmodel.collection_config
  WHERE revisions_table = 'revisions_again_revisions'::regclass;
CREATE TABLE revisions_taken_revisions (a integer);
SELECT docmodel.create_collection('revisions_taken', revisions => 1);
SELECT revisions_table FROM docmodel.collections WHERE collection = 'revisions_taken'::regclass;
SELECT docmodel.drop_collection('revisions_taken');
SELECT to_regclass('revisions_taken_revisions1') IS NULL AS dropped;
DROP TABLE revisions_taken_revisions;

-- drop_collection drops the history table too.
SELECT docmodel.drop_collection('revisions_again');
SELECT docmodel.drop_collection('revisions_people');
SELECT docmodel.drop_collection('revisions_meta');
SELECT docmodel.drop_collection('revisions_plain');
SELECT docmodel.drop_collection('revisions_none');
DROP TABLE revisions_plain_table;
SELECT count(*) AS left_over FROM pg_class WHERE relname LIKE 'revisions\_%' AND relkind = 'r';
DROP FUNCTION revisions_cancel(), revisions_fail_after();
RESET docmodel.actor;
