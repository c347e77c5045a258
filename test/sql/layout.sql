-- Altered layouts: a collection or history table whose columns were dropped,
-- renamed or changed in type is refused by every docmodel function and by
-- the trigger, with 55000 (missing column) or 42804 (wrong type) naming the
-- table and the column; never a crash, never a wrong key.
\i test/sql/include/try.sql
SET client_min_messages = warning;

-- Every call docmodel offers on collection t (and its history, when kept),
-- each run on its own (a failed one changes nothing).
CREATE FUNCTION pg_temp.calls(t text, history boolean)
RETURNS TABLE(call text, outcome text) LANGUAGE plpgsql AS $$
DECLARE
  c text[];
  calls text[] := ARRAY[
    ['get', 'SELECT docmodel.get(%L, ''user::1'')'],
    ['get_multi', 'SELECT * FROM docmodel.get_multi(%L, ARRAY[''user::1''])'],
    ['insert', 'SELECT docmodel.insert(%L, ''user::2'', ''{}'')'],
    ['upsert', 'SELECT docmodel.upsert(%L, ''user::1'', ''{"a": 2}'')'],
    ['replace', 'SELECT docmodel.replace(%L, ''user::1'', ''{"a": 3}'')'],
    ['touch', 'SELECT docmodel.touch(%L, ''user::1'', ''1 hour'')'],
    ['remove', 'SELECT docmodel.remove(%L, ''user::1'')'],
    ['purge_expired', 'SELECT docmodel.purge_expired(%L)'],
    ['INSERT', 'INSERT INTO %s (extra) VALUES (1)'],
    ['UPDATE', 'UPDATE %s SET extra = 2'],
    ['DELETE', 'DELETE FROM %s'],
    ['TRUNCATE', 'TRUNCATE %s']];
  hcalls text[] := ARRAY[
    ['revisions', 'SELECT * FROM docmodel.revisions(%L, ''user::1'')'],
    ['get_revision', 'SELECT docmodel.get_revision(%L, ''user::1'', 1)'],
    ['restore', 'SELECT docmodel.restore(%L, ''user::1'', 1)']];
BEGIN
  IF history THEN
    calls := calls || hcalls;
  END IF;
  FOREACH c SLICE 1 IN ARRAY calls LOOP
    call := c[1];
    outcome := pg_temp.try(format(c[2], t));
    RETURN NEXT;
  END LOOP;
END $$;

-- A fresh collection "lay" (history kept when keep > 0) with user::1 at
-- _ver 2 (so with history it has revision 1), used once through every cache
-- (so a verdict cached before the ALTER must be dropped), then altered.
CREATE FUNCTION pg_temp.altered(alter_sql text, keep integer)
RETURNS TABLE(call text, outcome text) LANGUAGE plpgsql AS $$
BEGIN
  PERFORM docmodel.drop_collection(c.collection)
    FROM docmodel.collections c WHERE c.collection::text = 'lay';
  PERFORM docmodel.create_collection('lay', revisions => keep);
  ALTER TABLE lay ADD COLUMN extra integer;
  PERFORM docmodel.insert('lay', 'user::1', '{"a": 1}');
  PERFORM docmodel.upsert('lay', 'user::1', '{"a": 1, "b": 1}');
  PERFORM docmodel.get('lay', 'user::1');
  PERFORM * FROM docmodel.get_multi('lay', ARRAY['user::1']);
  IF keep > 0 THEN
    PERFORM * FROM docmodel.revisions('lay', 'user::1');
  END IF;
  -- the documents view reads the columns the ALTER changes
  DROP VIEW lay_documents;
  EXECUTE alter_sql;
  RETURN QUERY SELECT * FROM pg_temp.calls('lay', keep > 0);
END $$;

-- Unaltered (an added column is fine): everything works.
SELECT * FROM pg_temp.altered('SELECT 1', 10);

-- The collection's columns, without history.
SELECT * FROM pg_temp.altered('ALTER TABLE lay ALTER doc TYPE json USING doc::json', 0);
SELECT * FROM pg_temp.altered('ALTER TABLE lay ALTER id TYPE integer USING 1', 0);
SELECT * FROM pg_temp.altered('ALTER TABLE lay ALTER id TYPE name', 0);
SELECT * FROM pg_temp.altered('ALTER TABLE lay ALTER cas TYPE integer USING 0', 0);
SELECT * FROM pg_temp.altered('ALTER TABLE lay ALTER expires_at TYPE timestamp', 0);
SELECT * FROM pg_temp.altered('ALTER TABLE lay DROP COLUMN expires_at', 0);
SELECT * FROM pg_temp.altered('ALTER TABLE lay DROP COLUMN cas', 0);
SELECT * FROM pg_temp.altered('ALTER TABLE lay DROP COLUMN doc', 0);
SELECT * FROM pg_temp.altered('ALTER TABLE lay DROP COLUMN id', 0);
SELECT * FROM pg_temp.altered('ALTER TABLE lay RENAME doc TO body', 0);
-- Dropped and added again: the column exists, but not where the trigger
-- reads it.
SELECT * FROM pg_temp.altered('ALTER TABLE lay DROP COLUMN expires_at, ADD COLUMN expires_at timestamptz', 0);

-- The same with history (the AFTER and TRUNCATE events, revisions, restore).
SELECT * FROM pg_temp.altered('ALTER TABLE lay ALTER doc TYPE json USING doc::json', 2);
SELECT * FROM pg_temp.altered('ALTER TABLE lay ALTER id TYPE integer USING 1', 2);
SELECT * FROM pg_temp.altered('ALTER TABLE lay ALTER id TYPE name', 2);
SELECT * FROM pg_temp.altered('ALTER TABLE lay ALTER cas TYPE integer USING 0', 2);
SELECT * FROM pg_temp.altered('ALTER TABLE lay DROP COLUMN expires_at', 2);
SELECT * FROM pg_temp.altered('ALTER TABLE lay DROP COLUMN doc', 2);
-- No tombstone was filed under a corrupted key by any of them.
SELECT id, ver, op FROM lay_revisions ORDER BY id, ver;

-- The history table's columns.
SELECT * FROM pg_temp.altered('ALTER TABLE lay_revisions ALTER ver TYPE bigint', 2);
SELECT * FROM pg_temp.altered('ALTER TABLE lay_revisions ALTER id TYPE name', 2);
SELECT * FROM pg_temp.altered('ALTER TABLE lay_revisions ALTER doc TYPE json USING doc::json', 2);
SELECT * FROM pg_temp.altered('ALTER TABLE lay_revisions ALTER changed_at TYPE timestamp', 2);
SELECT * FROM pg_temp.altered('ALTER TABLE lay_revisions DROP COLUMN op', 2);
SELECT * FROM pg_temp.altered('ALTER TABLE lay_revisions DROP COLUMN changed_by', 2);

-- Changed back, the collection works again (the verdict is not kept past
-- the ALTER either way).
SELECT * FROM pg_temp.altered('ALTER TABLE lay ALTER doc TYPE json USING doc::json', 2) LIMIT 1;
ALTER TABLE lay ALTER doc TYPE jsonb USING doc::jsonb;
SELECT docmodel.get('lay', 'user::1') ->> 'b' AS b;
UPDATE lay SET doc = doc || '{"c": 1}';
SELECT ver, op FROM docmodel.revisions('lay', 'user::1');

-- migrate_collection (a procedure that commits: called here, not in try).
ALTER TABLE lay ALTER doc TYPE json USING doc::json;
\set VERBOSITY terse
CALL docmodel.migrate_collection('lay');
\echo :LAST_ERROR_SQLSTATE
ALTER TABLE lay DROP COLUMN id;
CALL docmodel.migrate_collection('lay');
\echo :LAST_ERROR_SQLSTATE
\set VERBOSITY default
SELECT docmodel.drop_collection('lay');
