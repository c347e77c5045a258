-- Forged history: the collection trigger fires only on the collection its
-- configuration names (or a Citus shard of it). A role that attaches
-- docmodel.collection_trigger(<another collection's id>) to a table of its
-- own is refused with 42809 before anything is read or written, so it can
-- neither prune nor forge the other collection's revisions.
\i test/sql/include/try.sql
SET client_min_messages = warning;
-- try() without the configuration id, which depends on the tests before.
CREATE FUNCTION pg_temp.try_id(sql text) RETURNS text LANGUAGE sql AS $$
  SELECT regexp_replace(pg_temp.try(sql), 'collection \d+', 'collection N') $$;

SELECT docmodel.create_collection('victim', revisions => 5);
INSERT INTO victim (id, doc, cas) VALUES ('user::1', '{"n": 1}', 0);
UPDATE victim SET doc = '{"n": 2}';
UPDATE victim SET doc = '{"n": 3}';
SELECT id, ver, op, doc->>'n' AS n FROM victim_revisions ORDER BY ver;
SELECT config_id AS victim_id FROM docmodel.collections
  WHERE collection = 'victim'::regclass \gset

-- An ordinary role with CREATE on public and nothing else.
CREATE ROLE forger;
GRANT CREATE ON SCHEMA public TO forger;
SET ROLE forger;
CREATE TABLE forged (id text COLLATE "C" PRIMARY KEY, doc jsonb NOT NULL,
  cas bigint NOT NULL, expires_at timestamptz);
CREATE TRIGGER a BEFORE INSERT OR UPDATE ON forged FOR EACH ROW
  EXECUTE FUNCTION docmodel.collection_trigger(:victim_id);
CREATE TRIGGER b AFTER UPDATE OR DELETE ON forged FOR EACH ROW
  EXECUTE FUNCTION docmodel.collection_trigger(:victim_id);
CREATE TRIGGER c BEFORE TRUNCATE ON forged FOR EACH STATEMENT
  EXECUTE FUNCTION docmodel.collection_trigger(:victim_id);
-- Every event is refused.
SELECT pg_temp.try_id($$INSERT INTO forged VALUES ('user::1', '{"n": 9}', 0)$$);
ALTER TABLE forged DISABLE TRIGGER a;
INSERT INTO forged VALUES ('user::1', '{"_ver": 7, "n": "forged"}', 0);
SELECT pg_temp.try_id($$UPDATE forged SET doc = '{"_ver": 8, "n": "forged"}'$$);
SELECT pg_temp.try_id($$DELETE FROM forged$$);
SELECT pg_temp.try_id($$TRUNCATE forged$$);
ALTER TABLE forged ENABLE TRIGGER a;
SELECT pg_temp.try_id($$UPDATE forged SET doc = '{"n": "forged"}'$$);
RESET ROLE;
-- The victim's history is as it was: no revision pruned, none forged.
SELECT id, ver, op, doc->>'n' AS n FROM victim_revisions ORDER BY ver;
-- The collection's own trigger still works.
UPDATE victim SET doc = '{"n": 4}';
SELECT id, ver, op, doc->>'n' AS n FROM victim_revisions ORDER BY ver;

-- Citus shards: a table named <collection>_<shardid> in the collection's
-- schema, listed in pg_dist_shard under the collection and owned by its
-- owner, is a shard (a stand-in catalog here, as Citus is not installed).
SET allow_system_table_mods = on;
CREATE TABLE pg_catalog.pg_dist_shard (logicalrelid regclass, shardid bigint, shardminvalue text);
RESET allow_system_table_mods;
INSERT INTO pg_catalog.pg_dist_shard VALUES ('victim', 102008, '0'), ('victim', 102009, '1'),
  ('victim_revisions', 102012, '0');
-- (a shard writes history to the history's shard of its hash range)
CREATE TABLE victim_revisions_102012 (LIKE victim_revisions INCLUDING ALL);
CREATE TABLE victim_102008 (LIKE victim INCLUDING ALL);
CREATE TRIGGER docmodel_collection BEFORE INSERT OR UPDATE ON victim_102008
  FOR EACH ROW EXECUTE FUNCTION docmodel.collection_trigger(:victim_id);
SELECT pg_temp.try_id($$INSERT INTO victim_102008 (id, doc, cas) VALUES ('user::5', '{}', 0)$$);
-- (the version the trigger stamped: in doc, or in the column ver for
-- meta_style columns; the shard has no documents view)
SELECT id, coalesce(s.doc->>'_ver', to_jsonb(s)->>'ver') AS ver FROM victim_102008 AS s;
-- Not listed, or in another schema, or owned by someone else: refused.
CREATE TABLE victim_102010 (LIKE victim INCLUDING ALL);
CREATE TRIGGER docmodel_collection BEFORE INSERT OR UPDATE ON victim_102010
  FOR EACH ROW EXECUTE FUNCTION docmodel.collection_trigger(:victim_id);
SELECT pg_temp.try_id($$INSERT INTO victim_102010 (id, doc, cas) VALUES ('user::5', '{}', 0)$$);
CREATE SCHEMA forged_schema;
CREATE TABLE forged_schema.victim_102009 (LIKE victim INCLUDING ALL);
CREATE TRIGGER docmodel_collection BEFORE INSERT OR UPDATE ON forged_schema.victim_102009
  FOR EACH ROW EXECUTE FUNCTION docmodel.collection_trigger(:victim_id);
SELECT pg_temp.try_id($$INSERT INTO forged_schema.victim_102009 (id, doc, cas) VALUES ('user::5', '{}', 0)$$);
DROP TABLE forged_schema.victim_102009;
SET ROLE forger;
CREATE TABLE victim_102009 (id text COLLATE "C" PRIMARY KEY, doc jsonb NOT NULL,
  cas bigint NOT NULL, expires_at timestamptz);
CREATE TRIGGER docmodel_collection BEFORE INSERT OR UPDATE ON victim_102009
  FOR EACH ROW EXECUTE FUNCTION docmodel.collection_trigger(:victim_id);
SELECT pg_temp.try_id($$INSERT INTO victim_102009 (id, doc, cas) VALUES ('user::5', '{}', 0)$$);
DROP TABLE victim_102009;
RESET ROLE;

DROP TABLE pg_catalog.pg_dist_shard;
DROP TABLE victim_102008, victim_102010, victim_revisions_102012, forged;
DROP SCHEMA forged_schema;
REVOKE CREATE ON SCHEMA public FROM forger;
DROP ROLE forger;
SELECT docmodel.drop_collection('victim');

-- On a Citus worker, _citus_apply (SECURITY DEFINER: it writes the
-- worker's copy of the configuration) checks by OID that the connected
-- role owns every table a configuration names: the collection and its
-- history table. Simulated in a database of its own with a stand-in
-- pg_dist_local_group (group 1: a worker); Citus connects with the
-- coordinator's session user, hence SESSION AUTHORIZATION.
\set orig_db :DBNAME
CREATE DATABASE docmodel_worker;
\c docmodel_worker
SET client_min_messages = warning;
CREATE EXTENSION docmodel;
\i test/sql/include/try.sql
SET allow_system_table_mods = on;
CREATE TABLE pg_catalog.pg_dist_local_group (groupid integer);
RESET allow_system_table_mods;
INSERT INTO pg_catalog.pg_dist_local_group VALUES (1);
SELECT docmodel.create_collection('victim', revisions => 5);
INSERT INTO victim (id, doc, cas) VALUES ('user::1', '{"n": 1}', 0);
UPDATE victim SET doc = '{"n": 2}';
CREATE ROLE worker_forger;
GRANT CREATE ON SCHEMA public TO worker_forger;
SET SESSION AUTHORIZATION worker_forger;
SELECT docmodel.create_collection('mine', revisions => 1);
-- The coordinator's message as it would be for mine, but naming victim's
-- history: refused, nothing changed.
-- (names qualified, as the coordinator sends them)
SELECT jsonb_agg(to_jsonb(c) || '{"coll": "public.mine", "revisions_table": "public.mine_revisions"}')
    AS mine_config
  FROM docmodel.collection_config c WHERE c.coll = 'mine'::regclass \gset
SELECT pg_temp.try(format($$SELECT docmodel._citus_apply(%L, '[]', '[]')$$,
  jsonb_set(:'mine_config', '{0,revisions_table}', '"public.victim_revisions"')));
SELECT revisions_table FROM docmodel.collection_config WHERE coll = 'mine'::regclass;
INSERT INTO mine (id, doc, cas) VALUES ('user::1', '{"n": "forged"}', 0);
UPDATE mine SET doc = '{"n": "forged again"}';
-- Its own history: accepted.
SELECT pg_temp.try(format($$SELECT docmodel._citus_apply(%L, '[]', '[]')$$,
  jsonb_set(:'mine_config', '{0,revisions}', '3')));
SELECT revisions, revisions_table FROM docmodel.collection_config WHERE coll = 'mine'::regclass;
RESET SESSION AUTHORIZATION;
-- victim's history is its own.
SELECT id, ver, op, doc->>'n' AS n FROM victim_revisions ORDER BY ver;
\c :orig_db
DROP DATABASE docmodel_worker;
DROP ROLE worker_forger;
