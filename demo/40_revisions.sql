\echo
\echo '--- Revisions ----------------------------------------------------------'
\echo 'The user profile again, in a collection that keeps the last 3 bodies of every'
\echo 'document. The collection trigger files the prior body as revision _ver on every'
\echo 'real update and a tombstone on delete, and prunes to 3: plain SQL is enough.'
SET client_min_messages = warning;
SELECT docmodel.create_collection('profiles', doc_type => 'user', revisions => 3) AS collection;
RESET client_min_messages;
SET docmodel.actor = 'signup-service';
INSERT INTO profiles (id, doc, cas) VALUES
  ('user::fredsmith79',
   '{"name": "Fred Smith", "email": "fred@example.com", "phones": ["555-0100"]}', 0);

\echo 'Fred edits his profile three times (different writers):'
SET docmodel.actor = 'profile-app';
UPDATE profiles SET doc = doc || '{"email": "fred.smith@example.org"}'
 WHERE id = 'user::fredsmith79';
UPDATE profiles SET doc = jsonb_set(doc, '{phones}', doc->'phones' || '"555-0199"')
 WHERE id = 'user::fredsmith79';
SET docmodel.actor = 'support-desk';
UPDATE profiles SET doc = doc || '{"name": "Frederick Smith", "vip": true}'
 WHERE id = 'user::fredsmith79';
\echo 'An update that changes nothing files no revision:'
UPDATE profiles SET doc = doc WHERE id = 'user::fredsmith79';
SELECT doc->'_ver' AS "_ver", doc->>'name' AS name, doc->>'email' AS email, doc->'phones' AS phones
FROM profiles;

\echo 'Its revisions, newest first. Revision v is the body that had _ver v; op,'
\echo 'changed_by and changed_at say what ended it, who, and when:'
SELECT ver, revision_key, op, changed_by, doc->>'name' AS name, doc->>'email' AS email, doc->'phones' AS phones
FROM docmodel.revisions('profiles', 'user::fredsmith79');

\echo 'What changed from revision 1 to now, as an RFC 6902 patch (management fields left out):'
SELECT jsonb_pretty(docmodel.diff(
  docmodel.get_revision('profiles', 'user::fredsmith79', 1) - '{_ver,_modified,_modifiedBy}'::text[],
  (SELECT doc FROM profiles WHERE id = 'user::fredsmith79') - '{_ver,_modified,_modifiedBy}'::text[])) AS diff;
\echo 'docmodel.patch applies such a patch (a failing "test" op is an error):'
SELECT docmodel.patch('{"name": "Fred Smith", "phones": ["555-0100"]}',
  '[{"op": "replace", "path": "/name", "value": "Frederick Smith"},
    {"op": "add", "path": "/phones/-", "value": "555-0199"},
    {"op": "test", "path": "/phones/0", "value": "555-0100"}]') AS patched;

\echo 'Support restores revision 2 (the old name); the restore is itself a revision:'
SELECT docmodel.restore('profiles', 'user::fredsmith79', 2) > 0 AS restored;
SELECT doc->'_ver' AS "_ver", doc->>'name' AS name, doc->>'email' AS email, doc->'vip' AS vip
FROM profiles;

\echo 'The limit at work: keep = 3, so after _ver 5 only revisions 2, 3 and 4 remain:'
SELECT ver, op, changed_by, doc->>'name' AS name
FROM docmodel.revisions('profiles', 'user::fredsmith79');

\echo 'A delete leaves a tombstone (the deleted body); restore brings the document back'
\echo 'and numbering continues after the tombstone:'
DELETE FROM profiles WHERE id = 'user::fredsmith79';
SELECT ver, op, changed_by FROM docmodel.revisions('profiles', 'user::fredsmith79');
SELECT docmodel.restore('profiles', 'user::fredsmith79', 5) > 0 AS restored;
SELECT doc->'_ver' AS "_ver", doc->>'name' AS name FROM profiles;
RESET docmodel.actor;
SELECT docmodel.drop_collection('profiles');
