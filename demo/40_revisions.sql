\echo
\echo '--- Revisions (PATTERNS.md 6) -----------------------------------------'
\echo 'A collection can keep the last N bodies of every document. The collection'
\echo 'trigger files the prior body as revision _ver on every real update and a'
\echo 'tombstone on delete, and prunes to N; plain UPDATE and DELETE are enough.'
SET client_min_messages = warning;
SELECT docmodel.create_collection('userprofile_history', revisions => 3) AS collection;
RESET client_min_messages;
SET docmodel.actor = 'signup-service';
INSERT INTO userprofile_history (id, doc, cas) VALUES
  ('userprofile::fredsmith79',
   '{"name": "Fred Smith", "email": "fred@example.com", "phones": ["555-0100"]}', 0);

\echo 'Fred edits his profile three times (different writers):'
SET docmodel.actor = 'profile-app';
UPDATE userprofile_history SET doc = doc || '{"email": "fred.smith@example.org"}'
 WHERE id = 'userprofile::fredsmith79';
UPDATE userprofile_history SET doc = jsonb_set(doc, '{phones}', doc->'phones' || '"555-0199"')
 WHERE id = 'userprofile::fredsmith79';
SET docmodel.actor = 'support-desk';
UPDATE userprofile_history SET doc = doc || '{"name": "Frederick Smith", "vip": true}'
 WHERE id = 'userprofile::fredsmith79';
\echo 'An update that changes nothing files no revision:'
UPDATE userprofile_history SET doc = doc WHERE id = 'userprofile::fredsmith79';
SELECT doc->'_ver' AS "_ver", doc->>'name' AS name, doc->>'email' AS email, doc->'phones' AS phones
FROM userprofile_history;

\echo 'Its revisions, newest first. Revision v is the body that had _ver v; op,'
\echo 'changed_by and changed_at say what ended it, who, and when:'
SELECT ver, revision_key, op, changed_by, doc->>'name' AS name, doc->>'email' AS email, doc->'phones' AS phones
FROM docmodel.revisions('userprofile_history', 'userprofile::fredsmith79');

\echo 'What changed from revision 1 to now, as an RFC 6902 patch (management fields left out):'
SELECT jsonb_pretty(docmodel.diff(
  docmodel.get_revision('userprofile_history', 'userprofile::fredsmith79', 1) - '{_ver,_modified,_modifiedBy}'::text[],
  (SELECT doc FROM userprofile_history WHERE id = 'userprofile::fredsmith79') - '{_ver,_modified,_modifiedBy}'::text[])) AS diff;
\echo 'docmodel.patch applies such a patch (a failing "test" op is an error):'
SELECT docmodel.patch('{"name": "Fred Smith", "phones": ["555-0100"]}',
  '[{"op": "replace", "path": "/name", "value": "Frederick Smith"},
    {"op": "add", "path": "/phones/-", "value": "555-0199"},
    {"op": "test", "path": "/phones/0", "value": "555-0100"}]') AS patched;

\echo 'Support restores revision 2 (the old name); the restore is itself a revision:'
SELECT docmodel.restore('userprofile_history', 'userprofile::fredsmith79', 2) > 0 AS restored;
SELECT doc->'_ver' AS "_ver", doc->>'name' AS name, doc->>'email' AS email, doc->'vip' AS vip
FROM userprofile_history;

\echo 'The limit at work: keep = 3, so after _ver 5 only revisions 2, 3 and 4 remain:'
SELECT ver, op, changed_by, doc->>'name' AS name
FROM docmodel.revisions('userprofile_history', 'userprofile::fredsmith79');

\echo 'A delete leaves a tombstone (the deleted body); restore brings the document back'
\echo 'and numbering continues after the tombstone:'
DELETE FROM userprofile_history WHERE id = 'userprofile::fredsmith79';
SELECT ver, op, changed_by FROM docmodel.revisions('userprofile_history', 'userprofile::fredsmith79');
SELECT docmodel.restore('userprofile_history', 'userprofile::fredsmith79', 5) > 0 AS restored;
SELECT doc->'_ver' AS "_ver", doc->>'name' AS name FROM userprofile_history;
RESET docmodel.actor;
