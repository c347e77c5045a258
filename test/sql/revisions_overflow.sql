-- A stored version past 2147483647 (a document restored with triggers off
-- may carry any _ver): no version follows it, so every write of the
-- document is refused (22003, naming the key and the stored version) and
-- nothing is written, not even a revision; no tombstone can be numbered
-- either, so the delete is refused too. Under meta_style 'columns' the
-- version is kept in a row whose ver is null (include/forge_ver.sql), which
-- that style reads and writes as the underscore style does.
\i test/sql/include/try.sql
\i test/sql/include/forge_ver.sql
SET docmodel.actor = 'tester';
SELECT docmodel.create_collection('integ_past', revisions => 2);
SELECT docmodel.insert('integ_past', 'user::2', '{"a": 1}') > 0 AS inserted;
SELECT pg_temp.forge_ver('integ_past', 'user::2', 3000000000);
SELECT pg_temp.try($$UPDATE integ_past SET doc = '{"a": 2}' WHERE id = 'user::2'$$);
SELECT pg_temp.try($$SELECT docmodel.replace('integ_past', 'user::2', '{"a": 2}')$$);
SELECT id, doc->'_ver' AS ver, doc->'a' AS a FROM integ_past_documents;
SELECT count(*) AS revisions FROM integ_past_revisions;
SELECT pg_temp.try($$SELECT docmodel.remove('integ_past', 'user::2')$$);
SELECT pg_temp.try($$DELETE FROM integ_past WHERE id = 'user::2'$$);
SELECT count(*) AS docs FROM integ_past WHERE id = 'user::2';
SELECT count(*) AS revisions FROM integ_past_revisions;
SELECT docmodel.drop_collection('integ_past');
