-- Revisions of a collection with meta_style 'columns': the history keeps a
-- revision's body in doc and its stamps in the columns created_at,
-- modified_at, created_by, modified_by (ver is the revision's own), and
-- revisions(), get_revision(), restore() and diff() give exactly what they
-- give for the default style. Every step runs on a default collection (hd)
-- and a columns one (hc) in one transaction, so the stamps are the same.
\i test/sql/include/try.sql
SET docmodel.actor = 'tester';
SELECT docmodel.create_collection('hd', revisions => 3) IS NOT NULL AS hd;
SELECT docmodel.create_collection('hc', revisions => 3, meta_style => 'columns') IS NOT NULL AS hc;
-- the history table of hc has the stamp columns; hd's has not
SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod)
FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
WHERE c.relname IN ('hd_revisions', 'hc_revisions') AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY c.relname, a.attnum;

-- Run sql (%1$s: the collection) on both collections, in one transaction.
CREATE FUNCTION pg_temp.both(sql text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format(sql, 'hd');
  EXECUTE format(sql, 'hc');
END $$;
-- Every difference between the two collections' revisions of key, and
-- their documents as get() shows them: no row means identical.
CREATE FUNCTION pg_temp.differ(key text) RETURNS TABLE(side text, ver integer, op text, doc jsonb)
LANGUAGE sql AS $$
  (SELECT 'only hd', r.ver, r.op, r.doc FROM docmodel.revisions('hd', key) r
   EXCEPT SELECT 'only hd', r.ver, r.op, r.doc FROM docmodel.revisions('hc', key) r)
  UNION ALL
  (SELECT 'only hc', r.ver, r.op, r.doc FROM docmodel.revisions('hc', key) r
   EXCEPT SELECT 'only hc', r.ver, r.op, r.doc FROM docmodel.revisions('hd', key) r)
  UNION ALL
  SELECT 'revisions() row', d.ver, d.op, d.doc FROM docmodel.revisions('hd', key) d
  FULL JOIN docmodel.revisions('hc', key) c ON c.ver = d.ver
  WHERE d IS DISTINCT FROM c
  UNION ALL
  SELECT 'get_revision', d.ver, NULL, docmodel.get_revision('hd', key, d.ver)
  FROM docmodel.revisions('hd', key) d
  WHERE docmodel.get_revision('hd', key, d.ver) IS DISTINCT FROM docmodel.get_revision('hc', key, d.ver)
  UNION ALL
  SELECT 'get', NULL, NULL, docmodel.get('hd', key)
  WHERE docmodel.get('hd', key) IS DISTINCT FROM docmodel.get('hc', key) $$;
-- The revisions of hc, compactly (the body merged: _ver, _createdBy).
CREATE FUNCTION pg_temp.hist(key text) RETURNS TABLE(ver integer, revision_key text, op text, n jsonb, body_ver jsonb, created_by jsonb)
LANGUAGE sql AS $$
  SELECT r.ver, r.revision_key, r.op, r.doc->'n', r.doc->'_ver', r.doc->'_createdBy'
  FROM docmodel.revisions('hc', key) r $$;

SELECT pg_temp.both($$INSERT INTO %s (id, doc, cas) VALUES ('u::1', '{"name": "Joe", "n": 0}', 0)$$);
SELECT pg_temp.both($$UPDATE %s SET doc = doc || '{"n": 1}' WHERE id = 'u::1'$$);
SELECT pg_temp.both($$UPDATE %s SET doc = doc || '{"name": "Joe Smith"}' WHERE id = 'u::1'$$);
-- a no-op update files nothing
SELECT pg_temp.both($$UPDATE %s SET doc = doc WHERE id = 'u::1'$$);
SELECT * FROM pg_temp.hist('u::1');
SELECT * FROM pg_temp.differ('u::1');
-- the body alone in hc_revisions.doc, the stamps in its columns
SELECT r.ver, r.doc, r.created_at IS NOT NULL AS created_at, r.modified_at IS NOT NULL AS modified_at,
       (SELECT w.name FROM docmodel.writers w WHERE w.id = r.created_by) AS created_by,
       (SELECT w.name FROM docmodel.writers w WHERE w.id = r.modified_by) AS modified_by
FROM hc_revisions r ORDER BY r.ver;
-- the revision's stamps are those the document had at that version
SELECT r.ver, (docmodel.get_revision('hc', 'u::1', r.ver)->>'_modified')::bigint
              = floor(extract(epoch FROM r.modified_at) * 1000)::bigint AS modified_matches
FROM hc_revisions r ORDER BY r.ver;
-- diff of two revisions, and of a revision and the document
SELECT docmodel.diff(docmodel.get_revision('hd', 'u::1', 1), docmodel.get_revision('hd', 'u::1', 2))
     = docmodel.diff(docmodel.get_revision('hc', 'u::1', 1), docmodel.get_revision('hc', 'u::1', 2)) AS same_diff,
       docmodel.diff(docmodel.get_revision('hc', 'u::1', 1) - '{_ver,_modified}'::text[],
                     docmodel.get('hc', 'u::1') - '{_ver,_modified}'::text[]) AS diff;
-- a delete's tombstone, then restore after it (an insert) and restore over
-- the document (an update)
SELECT pg_temp.both($$DELETE FROM %s WHERE id = 'u::1'$$);
SELECT pg_temp.both($$SELECT docmodel.restore('%s', 'u::1', 1)$$);
SELECT pg_temp.both($$SELECT docmodel.restore('%s', 'u::1', 3)$$);
SELECT * FROM pg_temp.hist('u::1');
SELECT * FROM pg_temp.differ('u::1');
SELECT doc FROM hc WHERE id = 'u::1';
-- keep = 3: the window moves the same way
SELECT pg_temp.both($$UPDATE %s SET doc = doc || '{"n": 7}' WHERE id = 'u::1'$$);
SELECT * FROM pg_temp.hist('u::1');
SELECT * FROM pg_temp.differ('u::1');
-- rename_key carries the history (with its stamps) to the new key
SELECT pg_temp.both($$SELECT docmodel.rename_key('%s', 'u::1', 'u::2')$$);
SELECT * FROM pg_temp.hist('u::1');
SELECT * FROM pg_temp.hist('u::2');
SELECT * FROM pg_temp.differ('u::1');
SELECT * FROM pg_temp.differ('u::2');
-- TRUNCATE files every document as a 'truncate' revision
SELECT pg_temp.both($$INSERT INTO %s (id, doc, cas) VALUES ('u::3', '{"n": 3}', 0)$$);
SELECT pg_temp.both($$TRUNCATE %s$$);
SELECT * FROM pg_temp.hist('u::2');
SELECT * FROM pg_temp.hist('u::3');
SELECT * FROM pg_temp.differ('u::2');
SELECT * FROM pg_temp.differ('u::3');
-- expiry: a document written over after its expiry files op 'expire'
SELECT pg_temp.both($$INSERT INTO %s (id, doc, cas, expires_at) VALUES ('u::4', '{"n": 4}', 0, now() - interval '1 hour')$$);
SELECT pg_temp.both($$UPDATE %s SET doc = '{"n": 5}' WHERE id = 'u::4'$$);
SELECT * FROM pg_temp.hist('u::4');
SELECT * FROM pg_temp.differ('u::4');

-- What a revision costs: the columns style stores the body and 24 bytes of
-- stamps (timestamptz 8 + 8, integer 4 + 4: 24 to 32 bytes with alignment, by major) where the default style stores
-- the five fields in the jsonb (here over 100 bytes).
SELECT d.ver,
       pg_column_size(c.*) - pg_column_size(c.doc) - (pg_column_size(d.*) - pg_column_size(d.doc))
         BETWEEN 24 AND 32 AS columns_extra_24_to_32,
       pg_column_size(d.doc) - pg_column_size(c.doc) > 100 AS fields_in_jsonb_over_100,
       pg_column_size(c.*) < pg_column_size(d.*) - 70 AS columns_row_smaller
FROM hd_revisions d JOIN hc_revisions c USING (id, ver) WHERE d.id = 'u::2' ORDER BY d.ver;

-- set_revisions(0) then again: the table is used again, its columns kept
SELECT docmodel.set_revisions('hc', 0) = 'hc_revisions'::regclass AS off;
SELECT docmodel.set_revisions('hc', 3) = 'hc_revisions'::regclass AS on;
SELECT pg_temp.both($$INSERT INTO %s (id, doc, cas) VALUES ('u::5', '{"n": 5}', 0)$$);
SELECT pg_temp.both($$UPDATE %s SET doc = '{"n": 6}' WHERE id = 'u::5'$$);
SELECT * FROM pg_temp.differ('u::5');

-- _history_stamp_columns: only on the revisions table of a collection, by
-- its owner; merging is refused once the collection left meta_style columns
SELECT pg_temp.try($$SELECT docmodel._history_stamp_columns('hc', true)$$);
SELECT pg_temp.try($$SELECT docmodel._history_stamp_columns('hd_revisions', NULL)$$);
CREATE ROLE revcol_other;
SET ROLE revcol_other;
SELECT pg_temp.try($$SELECT docmodel._history_stamp_columns('hc_revisions', false)$$);
RESET ROLE;
DROP ROLE revcol_other;
-- added to hd's history: a default collection's revisions leave them null
-- and read as before
SELECT docmodel._history_stamp_columns('hd_revisions', true);
SELECT pg_temp.both($$UPDATE %s SET doc = '{"n": 7}' WHERE id = 'u::5'$$);
SELECT count(*) FROM hd_revisions WHERE num_nulls(created_at, modified_at, created_by, modified_by) <> 4;
SELECT pg_temp.try($$SELECT docmodel._history_stamp_columns('hd_revisions', false)$$);
SELECT * FROM pg_temp.differ('u::5');
-- merged back into doc and dropped (before a conversion away from columns):
-- the stored rows are then hd's exactly
SELECT docmodel._history_stamp_columns('hc_revisions', false);
SELECT count(*) AS hc_columns_left FROM pg_attribute
WHERE attrelid = 'hc_revisions'::regclass AND attname IN ('created_at', 'modified_at', 'created_by', 'modified_by') AND NOT attisdropped;
(SELECT id, ver, op, changed_at, changed_by, doc FROM hd_revisions
 EXCEPT SELECT id, ver, op, changed_at, changed_by, doc FROM hc_revisions)
UNION ALL
(SELECT id, ver, op, changed_at, changed_by, doc FROM hc_revisions
 EXCEPT SELECT id, ver, op, changed_at, changed_by, doc FROM hd_revisions);
-- a history of a columns collection without its stamp columns: writes refused (55000)
SELECT pg_temp.try($$UPDATE hc SET doc = '{"n": 8}' WHERE id = 'u::5'$$);
-- added again: rows filed before (full documents) read as they are
SELECT docmodel._history_stamp_columns('hc_revisions', true);
SELECT pg_temp.both($$UPDATE %s SET doc = '{"n": 8}' WHERE id = 'u::5'$$);
SELECT * FROM pg_temp.differ('u::5');
SELECT * FROM pg_temp.differ('u::2');

-- a column the user added to the history (the executor path): its
-- default, and the stamps still in their columns
ALTER TABLE hc_revisions ADD COLUMN note text DEFAULT 'added';
ALTER TABLE hd_revisions ADD COLUMN note text DEFAULT 'added';
SELECT pg_temp.both($$UPDATE %s SET doc = '{"n": 9}' WHERE id = 'u::5'$$);
SELECT pg_temp.both($$SELECT docmodel.rename_key('%s', 'u::5', 'u::6')$$);
SELECT id, ver, op, note, doc->'n' AS n, doc ? '_ver' AS full_document, num_nulls(created_at, modified_at, created_by, modified_by) AS null_stamps
FROM hc_revisions WHERE id IN ('u::5', 'u::6') ORDER BY id, ver;
SELECT * FROM pg_temp.differ('u::5');
SELECT * FROM pg_temp.differ('u::6');
-- a stamp column of the history of another type: writes refused (42804)
ALTER TABLE hc_revisions ALTER COLUMN created_by TYPE bigint;
SELECT pg_temp.try($$UPDATE hc SET doc = '{"n": 10}' WHERE id = 'u::6'$$);

SELECT docmodel.drop_collection('hd');
SELECT docmodel.drop_collection('hc');
