-- Tour chapter: sub-documents (Couchbase's lookup_in / mutate_in). The user
-- profile's phone list edited in place, and a counter field inside the
-- document incremented, without reading and writing the whole document.
\echo
\echo '== Sub-documents ================================================='
SELECT docmodel.create_collection('profiles', doc_type => 'user');
SELECT docmodel.insert('profiles', 'user::fredsmith79',
       '{"name": "Fred Smith", "logins": 0, "phones": [{"type": "home", "number": "555-0101"}],
         "address": {"city": "Berlin"}}') > 0 AS inserted;

\echo 'lookup_in reads paths (Couchbase syntax a.b[0].c, or a JSON Pointer); one result per spec:'
SELECT jsonb_pretty(docmodel.lookup_in('profiles', 'user::fredsmith79', '[
  {"op": "get", "path": "phones[0].number"},
  {"op": "get", "path": "/address/city"},
  {"op": "exists", "path": "email"},
  {"op": "count", "path": "phones"},
  {"op": "get", "path": "address.zip"}]')) AS results;

\echo 'mutate_in edits the phone list and counts a login, all in one write:'
SELECT jsonb_pretty(docmodel.mutate_in('profiles', 'user::fredsmith79', '[
  {"op": "array_append", "path": "phones", "value": {"type": "work", "number": "555-0199"}},
  {"op": "replace", "path": "phones[0].number", "value": "555-0102"},
  {"op": "increment", "path": "logins"},
  {"op": "upsert", "path": "prefs.theme", "value": "dark", "create_path": true}]') - 'cas') AS results;
SELECT doc->'phones' AS phones, doc->'logins' AS logins, doc->'prefs' AS prefs, doc->'_ver' AS ver
FROM profiles;

\echo 'All or nothing: the second spec fails (no phones[7]), so the first is not kept either:'
\set ON_ERROR_STOP 0
SELECT docmodel.mutate_in('profiles', 'user::fredsmith79', '[
  {"op": "array_append", "path": "phones", "value": {"type": "fax", "number": "555-0000"}},
  {"op": "array_insert", "path": "phones[7]", "value": {"type": "other"}}]');
\set ON_ERROR_STOP 1
SELECT jsonb_array_length(doc->'phones') AS phones, doc->'_ver' AS ver FROM profiles;

\echo 'array_addunique adds a tag only once (the second time: PathExists, 22030):'
SELECT docmodel.mutate_in('profiles', 'user::fredsmith79',
       '[{"op": "array_addunique", "path": "tags", "value": "vip", "create_path": true}]') ? 'cas' AS added;
\set ON_ERROR_STOP 0
SELECT docmodel.mutate_in('profiles', 'user::fredsmith79',
       '[{"op": "array_addunique", "path": "tags", "value": "vip"}]');
\set ON_ERROR_STOP 1

SELECT docmodel.drop_collection('profiles');
