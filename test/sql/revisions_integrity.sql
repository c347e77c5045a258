-- Revisions at the edges: the last version, long collection
-- names, history tables with columns and constraints of their own.
\i test/sql/include/try.sql
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
\i test/sql/include/forge_ver.sql

-- 1. Versions end at 2147483647: the next write is refused (22003, naming
-- the key), nothing is written, not even a revision. (A stored version past
-- 2147483647: revisions_overflow.)
SELECT docmodel.create_collection('integ_last');
SELECT docmodel.create_collection('integ_last_hist', revisions => 2);
SELECT docmodel.insert('integ_last', 'user::1', '{"a": 1}') > 0 AS inserted;
SELECT docmodel.insert('integ_last_hist', 'user::1', '{"a": 1}') > 0 AS inserted;
-- A document restored with triggers off may carry any _ver.
SELECT pg_temp.forge_ver('integ_last', 'user::1', 2147483647);
SELECT pg_temp.forge_ver('integ_last_hist', 'user::1', 2147483647);
SELECT pg_temp.try($$SELECT docmodel.replace('integ_last', 'user::1', '{"a": 2}')$$);
SELECT pg_temp.try($$UPDATE integ_last SET doc = '{"a": 2}'$$);
SELECT pg_temp.try($$SELECT docmodel.upsert('integ_last_hist', 'user::1', '{"a": 2}')$$);
SELECT id, doc->'_ver' AS ver, doc->'a' AS a FROM integ_last_documents UNION ALL
SELECT id, doc->'_ver', doc->'a' FROM integ_last_hist_documents ORDER BY 1, 2;
SELECT count(*) AS revisions FROM integ_last_hist_revisions;
-- Deleted at the last version: the tombstone is kept, and a new document of
-- the key, which would continue after it, is refused.
SELECT docmodel.remove('integ_last_hist', 'user::1') > 0 AS removed;
SELECT ver, op FROM docmodel.revisions('integ_last_hist', 'user::1');
SELECT pg_temp.try($$SELECT docmodel.insert('integ_last_hist', 'user::1', '{"a": 3}')$$);
SELECT count(*) AS docs FROM integ_last_hist WHERE id = 'user::1';
-- One below the last: the write works and takes the last version.
SELECT pg_temp.forge_ver('integ_last', 'user::1', 2147483646);
UPDATE integ_last SET doc = '{"a": 6}';
SELECT doc->'_ver' AS ver, doc->'a' AS a FROM integ_last_documents;

-- 2. Long names: a history table's name is the collection's cut to fit
-- NAMEDATALEN with "_revisions" kept whole, and a number when that is taken
-- (as PostgreSQL names indexes). The configuration records the real name.
SELECT docmodel.create_collection(repeat('l', 60) || 'one', revisions => 2);
SELECT docmodel.create_collection(repeat('l', 60) || 'two', revisions => 2);
SELECT docmodel.create_collection(repeat('é', 31) || 'x', revisions => 2);
SELECT octet_length(c.relname) AS coll_bytes, h.relname AS revisions_table,
       octet_length(h.relname) AS bytes
  FROM docmodel.collections AS d
  JOIN pg_class AS c ON c.oid = d.collection JOIN pg_class AS h ON h.oid = d.revisions_table
  WHERE c.relname ~ '^(lll|ééé)' ORDER BY h.relname;
SELECT docmodel.insert(repeat('l', 60) || 'one', 'user::1', '{"n": 1}') > 0 AS inserted;
SELECT docmodel.replace(repeat('l', 60) || 'one', 'user::1', '{"n": 2}') > 0 AS replaced;
SELECT docmodel.insert(repeat('l', 60) || 'two', 'user::1', '{"n": 1}') > 0 AS inserted;
SELECT docmodel.remove(repeat('l', 60) || 'two', 'user::1') > 0 AS removed;
SELECT ver, op FROM docmodel.revisions(repeat('l', 60) || 'one', 'user::1');
SELECT ver, op FROM docmodel.revisions(repeat('l', 60) || 'two', 'user::1');
-- The helper alone: short names are left whole, a taken name gets a number.
CREATE SCHEMA integ_names;
SELECT docmodel._derived_name('integ_names', 'orders', 'revisions');
CREATE TABLE integ_names.orders_revisions ();
CREATE TABLE integ_names.orders_revisions1 ();
SELECT docmodel._derived_name('integ_names', 'orders', 'revisions');
SELECT docmodel._derived_name('integ_names', repeat('x', 63), 'revisions');
DROP SCHEMA integ_names CASCADE;
SELECT docmodel.drop_collection(repeat('l', 60) || 'one');
SELECT docmodel.drop_collection(repeat('l', 60) || 'two');
SELECT docmodel.drop_collection(repeat('é', 31) || 'x');
SELECT count(*) AS left_over FROM pg_class WHERE relname LIKE 'lll%' OR relname LIKE 'éé%';

-- 3. Columns and constraints a user adds to a history table hold for the
-- revisions docmodel writes, as for an INSERT: defaults fill added columns
-- (NULL without one), generated columns are computed, NOT NULL and CHECK
-- constraints refuse a revision that breaks them (23502, 23514) and with it
-- the write of the document.
SELECT docmodel.create_collection('integ_cols', revisions => 5);
ALTER TABLE integ_cols_revisions ADD COLUMN tenant text NOT NULL DEFAULT 'acme',
  ADD COLUMN note text,
  ADD COLUMN serial bigint GENERATED ALWAYS AS IDENTITY,
  ADD COLUMN op_len integer GENERATED ALWAYS AS (length(op)) STORED,
  ADD CONSTRAINT integ_cols_op CHECK (op IN ('update', 'delete', 'expire', 'truncate'));
SELECT docmodel.insert('integ_cols', 'user::1', '{"n": 1}') > 0 AS inserted;
SELECT docmodel.replace('integ_cols', 'user::1', '{"n": 2}') > 0 AS replaced;
SELECT docmodel.remove('integ_cols', 'user::1') > 0 AS removed;
SELECT docmodel.insert('integ_cols', 'user::2', '{"n": 1}') > 0 AS inserted;
TRUNCATE integ_cols;
SELECT id, ver, op, tenant, note, serial, op_len FROM integ_cols_revisions ORDER BY serial;
-- A CHECK the revision breaks refuses the write; nothing changes.
SELECT docmodel.insert('integ_cols', 'user::3', '{"n": 1}') > 0 AS inserted;
ALTER TABLE integ_cols_revisions ADD CONSTRAINT integ_cols_no_delete CHECK (op <> 'delete') NOT VALID;
SELECT pg_temp.try_msg($$SELECT docmodel.remove('integ_cols', 'user::3')$$);
SELECT pg_temp.try_msg($$DELETE FROM integ_cols$$);
ALTER TABLE integ_cols_revisions DROP CONSTRAINT integ_cols_no_delete;
-- A NOT NULL column without a default: refused, nothing changes.
ALTER TABLE integ_cols_revisions ALTER COLUMN tenant DROP DEFAULT;
SELECT pg_temp.try_msg($$SELECT docmodel.replace('integ_cols', 'user::3', '{"n": 2}')$$);
SELECT id, doc->'_ver' AS ver, doc->'n' AS n FROM integ_cols_documents;
SELECT count(*) AS revisions_of_3 FROM integ_cols_revisions WHERE id = 'user::3';
-- With a default again, writes go on.
ALTER TABLE integ_cols_revisions ALTER COLUMN tenant SET DEFAULT 'beta';
SELECT docmodel.replace('integ_cols', 'user::3', '{"n": 2}') > 0 AS replaced;
SELECT id, ver, op, tenant FROM integ_cols_revisions WHERE id = 'user::3';
-- A foreign key would need a trigger: refused (55000), nothing changes.
CREATE TABLE integ_tenants (name text PRIMARY KEY);
INSERT INTO integ_tenants VALUES ('acme'), ('beta');
ALTER TABLE integ_cols_revisions ADD CONSTRAINT integ_cols_tenant FOREIGN KEY (tenant) REFERENCES integ_tenants;
SELECT pg_temp.try($$SELECT docmodel.replace('integ_cols', 'user::3', '{"n": 3}')$$);
ALTER TABLE integ_cols_revisions DROP CONSTRAINT integ_cols_tenant;
DROP TABLE integ_tenants;
-- A deferrable unique constraint is checked at once.
ALTER TABLE integ_cols_revisions ADD CONSTRAINT integ_cols_one_per_tenant UNIQUE (id, op, tenant) DEFERRABLE INITIALLY DEFERRED;
SELECT pg_temp.try($$SELECT docmodel.replace('integ_cols', 'user::3', '{"n": 3}')$$);
ALTER TABLE integ_cols_revisions DROP CONSTRAINT integ_cols_one_per_tenant;
SELECT id, doc->'_ver' AS ver, doc->'n' AS n FROM integ_cols_documents;
-- No column holds NULL where its table says NOT NULL.
SELECT count(*) AS null_tenants FROM integ_cols_revisions WHERE tenant IS NULL;

SELECT docmodel.drop_collection('integ_cols');
SELECT docmodel.drop_collection('integ_last');
SELECT docmodel.drop_collection('integ_last_hist');
RESET docmodel.actor;
