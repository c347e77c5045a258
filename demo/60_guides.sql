\echo
\echo '--- From the guides ---------------------------------------------------'
\echo 'The key-design page: "You do not need prefixing to isolate document types"'
\echo 'when a collection holds one type. type_part => 0: keys carry no type, the'
\echo 'collection''s doc_type is every document''s. And Couchbase''s music sample'
\echo 'prefixes keys with the application: the type is the second part.'
SELECT docmodel.create_collection('users', doc_type => 'user', type_part => 0) AS collection;
INSERT INTO users (id, doc) VALUES ('123', '{"name": "Fred"}');
SELECT id, doc->>'_type' AS type FROM users;
SELECT docmodel.create_collection('couchmusic', delimiter => ':', type_part => 2,
  type_check => 'case_insensitive', fields => '{"type": "type", "schema": "version"}') AS collection;
INSERT INTO couchmusic (id, doc) VALUES ('couchmusic:userprofile:fredsmith79', '{"type": "userProfile", "firstName": "Fred"}');
SELECT id, docmodel.meta('couchmusic', id) - 'cas' - 'created' - 'modified' - 'createdBy' - 'modifiedBy' AS meta FROM couchmusic;
\echo 'The management fields can also live outside the body, as Couchbase keeps'
\echo 'meta(): the body is stored exactly as written, and may be any JSON value.'
SELECT docmodel.create_collection('session_state', meta_style => 'xattrs') AS collection;
INSERT INTO session_state (id, doc) VALUES ('session::abc', '"cart: 3 items"');
SELECT id, doc, meta->>'type' AS type FROM session_state;

\echo
\echo 'The modeling guides'' own examples, as they write them. First an export from'
\echo 'a document store: JSON lines whose documents carry their stamps (_ver 2,'
\echo '_created in epoch milliseconds, _schema "1.0"). Loaded as a staging table'
\echo '(psql''s copy command reads the same from a file), then one INSERT ... SELECT:'
\echo 'key_from_template builds each key as cbimport''s --generate-key does, and'
\echo 'docmodel.keep_stamps keeps the stamps the export carries.'
SELECT docmodel.create_collection('guide_users', doc_type => 'userprofile') AS collection;
CREATE TEMP TABLE staging (line jsonb);
INSERT INTO staging VALUES
  ('{"type": "userprofile", "id": 123, "_ver": 2, "_created": 1544759124000, "_schema": "1.0", "first_name": "Joe", "last_name": "Doe", "phone": "(555) 123-4567", "email": "", "born": 631152000}'),
  ('{"type": "userprofile", "id": 124, "_ver": 5, "_created": 1544759125000, "_schema": "1.0", "first_name": "Ann", "phone": "555.987.6543", "nickname": null, "born": "1994-07-02T22:30:00-05:00"}');
SET docmodel.keep_stamps = on;
INSERT INTO guide_users (id, doc)
SELECT docmodel.key_from_template(line, '%type%::%id%'), line - '{type,id}'::text[] FROM staging;
SET docmodel.keep_stamps = off;
SELECT id, doc->'_ver' AS ver, doc->'_created' AS created, doc->>'_schema' AS schema FROM guide_users ORDER BY id;

\echo
\echo 'The management guide''s setters, as migration steps. Its documents are'
\echo 'uneven (userprofile::124 has no last_name), so the rename says "missing": "skip";'
\echo 'empty values are not stored; the phone is normalised, then required to be'
\echo 'ten digits; the birth date, an epoch in seconds or ISO 8601, becomes a date.'
SELECT docmodel.register_migration('userprofile', '1.0', '2.0', steps => '[
  {"op": "move", "from": "/first_name", "path": "/firstName", "missing": "skip"},
  {"op": "move", "from": "/last_name", "path": "/lastName", "missing": "skip"},
  {"op": "drop_empty"},
  {"op": "replace_regex", "path": "/phone", "pattern": "[^0-9]", "with": ""},
  {"op": "require", "path": "/phone", "pattern": "^[0-9]{10}$", "message": "invalid phone number"},
  {"op": "format_date", "path": "/born", "format": "date", "unit": "s"}]');
CALL docmodel.migrate_collection('guide_users');
SELECT id, doc - '_created' - '_createdBy' - '_modified' - '_modifiedBy' AS doc FROM guide_users ORDER BY id;

\echo
\echo 'A login name changes (the guide''s user:jdoh -> user:jdoe). Keys are'
\echo 'immutable, so this is a move: rename_key does it in one statement, _ver'
\echo 'continues, _created stays, and the history follows the document.'
SELECT docmodel.create_collection('logins', delimiter => ':', revisions => 10) AS collection;
SELECT docmodel.insert('logins', 'user:jdoh', '{"name": "J. Doh"}') > 0 AS inserted;
SELECT docmodel.replace('logins', 'user:jdoh', '{"name": "J. Doe"}') > 0 AS replaced;
SELECT docmodel.rename_key('logins', 'user:jdoh', 'user:jdoe') > 0 AS renamed;
SELECT id, doc->'_ver' AS ver FROM logins;
SELECT id, ver, op FROM logins_revisions ORDER BY id, ver;

\echo
\echo 'Cosmos DB''s blog post: "the three most recent comments embedded on the post'
\echo 'itself" (mutate_in with "max": 3 trims the array in the same write), and'
\echo 'every comment also "grouped in to batches of 100 comments and stored in'
\echo 'separate documents" (bucket_append opens the next bucket when one is full).'
SELECT docmodel.create_collection('blog') AS collection;
SELECT docmodel.insert('blog', 'post::1', '{"title": "Modeling in PostgreSQL", "recentComments": []}') > 0 AS inserted;
SELECT count(docmodel.mutate_in('blog', 'post::1',
         jsonb_build_array(jsonb_build_object('op', 'array_append', 'path', 'recentComments',
                                              'value', 'comment ' || g, 'max', 3)))) AS comments
FROM generate_series(1, 5) g;
SELECT doc->'recentComments' AS recent FROM blog WHERE id = 'post::1';
SELECT docmodel.bucket_append('blog', 'post::1::comments', to_jsonb('comment ' || g), 100) AS bucket, count(*)
FROM generate_series(1, 250) g GROUP BY 1 ORDER BY 1;
