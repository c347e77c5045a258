-- Who may do what (README "Security"), tried with two ordinary roles: alice
-- owns a collection, bob only has CREATE on the same schema. docmodel's own
-- tables are written only by docmodel's functions, which check the caller:
-- owner of the collection for its configuration, UPDATE on it for its
-- migration runs. Migration functions are pinned: they cannot be dropped,
-- and a rule calls the function it was given, whatever takes its name.
\set SHOW_CONTEXT never
\i test/sql/include/try.sql
SET client_min_messages = warning;

CREATE ROLE regress_dm_alice NOLOGIN;
CREATE ROLE regress_dm_bob NOLOGIN;
CREATE SCHEMA dm_priv;
GRANT USAGE, CREATE ON SCHEMA dm_priv TO regress_dm_alice, regress_dm_bob;

\echo == nobody but the owner writes the tables of docmodel directly
SELECT t.rel, p.priv,
       has_table_privilege('regress_dm_bob', t.rel, p.priv) AS bob_has
FROM unnest(ARRAY['docmodel.collection_config', 'docmodel.migration_run',
                  'docmodel.migration_rules']) AS t(rel),
     unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE']) AS p(priv)
ORDER BY 1, 2;
SELECT has_sequence_privilege('regress_dm_bob', 'docmodel.collection_config_id_seq', 'USAGE')
    AS bob_uses_config_seq;

\echo == creating a collection takes CREATE on the schema, nothing more
SET ROLE regress_dm_alice;
SELECT docmodel.create_collection('dm_priv.a_users', revisions => 2);
SELECT docmodel.insert('dm_priv.a_users', 'acct::1', '{"name": "Ann", "_schema": "1"}') > 0 AS written;
SELECT docmodel.upsert('dm_priv.a_users', 'acct::1', '{"name": "Ann B", "_schema": "1"}') > 0 AS written;
SELECT docmodel.insert('dm_priv.a_users', 'acct::2', '{"name": "Al", "_schema": "1"}') > 0 AS written;
SELECT ver, op, doc->>'name' AS name FROM docmodel.revisions('dm_priv.a_users', 'acct::1');
RESET ROLE;
-- no CREATE on the schema: refused as CREATE TABLE is
SET ROLE regress_dm_bob;
SELECT pg_temp.try($$SELECT docmodel.create_collection('public.b_nowhere')$$);
SELECT docmodel.create_collection('dm_priv.b_docs');
CREATE TABLE dm_priv.b_table (id text, ver integer, op text, changed_at timestamptz,
                              changed_by text, doc jsonb, PRIMARY KEY (id, ver));
RESET ROLE;

\echo == bob cannot change the configuration of alice
SET ROLE regress_dm_bob;
SELECT pg_temp.try($$UPDATE docmodel.collection_config SET revisions = 0
                     WHERE coll = 'dm_priv.a_users'::regclass$$);
SELECT pg_temp.try($$UPDATE docmodel.collection_config SET revisions_table = 'dm_priv.b_table'
                     WHERE coll = 'dm_priv.a_users'::regclass$$);
SELECT pg_temp.try($$DELETE FROM docmodel.collection_config WHERE coll = 'dm_priv.a_users'::regclass$$);
SELECT pg_temp.try($$INSERT INTO docmodel.collection_config (coll) VALUES ('dm_priv.b_table')$$);
SELECT pg_temp.try($$SELECT docmodel.set_revisions('dm_priv.a_users', 0)$$);
SELECT pg_temp.try($$SELECT docmodel.drop_collection('dm_priv.a_users')$$);
SELECT pg_temp.try($$SELECT docmodel._config_set_revisions('dm_priv.a_users', 5, 'dm_priv.b_table')$$);
SELECT pg_temp.try($$SELECT docmodel._config_set_revisions('dm_priv.a_users', 0, NULL)$$);
SELECT pg_temp.try($$SELECT docmodel._config_create('dm_priv.a_users', NULL, 'underscore', 'ms', '::')$$);
SELECT pg_temp.try($$SELECT docmodel._config_drop('dm_priv.a_users')$$);
-- nor point his own collection's history at alice's history table
SELECT pg_temp.try($$SELECT docmodel._config_set_revisions('dm_priv.b_docs', 5, 'dm_priv.a_users_revisions')$$);
-- his own collection is his to configure
SELECT docmodel.set_revisions('dm_priv.b_docs', 3) AS b_history;
RESET ROLE;
SELECT collection, revisions, revisions_table FROM docmodel.collections
WHERE collection::text LIKE 'dm_priv.%' ORDER BY collection::text;
SET ROLE regress_dm_alice;
SELECT docmodel.upsert('dm_priv.a_users', 'acct::1', '{"name": "Ann C", "_schema": "1"}') > 0 AS written;
SELECT ver, op, doc->>'name' AS name FROM docmodel.revisions('dm_priv.a_users', 'acct::1');
RESET ROLE;

\echo == the history of a dropped collection is taken over only by its owner
CREATE TABLE dm_priv.gone (id text COLLATE "C" PRIMARY KEY, doc jsonb NOT NULL,
                           cas bigint NOT NULL, expires_at timestamptz);
ALTER TABLE dm_priv.gone OWNER TO regress_dm_alice;
SET ROLE regress_dm_alice;
DROP TABLE dm_priv.gone;
SELECT docmodel.create_collection('dm_priv.gone', revisions => 1) IS NOT NULL AS created;
DROP TABLE dm_priv.gone CASCADE;
RESET ROLE;
SET ROLE regress_dm_bob;
SELECT pg_temp.try($$SELECT docmodel._config_adopt_history('dm_priv.gone_revisions')$$);
SELECT docmodel._config_adopt_history('dm_priv.b_table') AS nothing_to_adopt;
RESET ROLE;

\echo == migration runs: written by docmodel only, for whoever may update the collection
SELECT docmodel.register_migration('acct', '1', '2',
    steps => '[{"op": "default", "path": "/migrated", "value": true}]');
SET ROLE regress_dm_alice;
SET client_min_messages = warning;
CALL docmodel.migrate_collection('dm_priv.a_users', batch_size => 1);
SELECT coll, doc_type, status, docs_done, docs_total FROM docmodel.migration_runs
WHERE coll = 'dm_priv.a_users'::regclass;
SELECT id, doc->>'migrated' AS migrated FROM dm_priv.a_users ORDER BY id;
RESET ROLE;
SELECT max(run_id) AS alice_run FROM docmodel.migration_run
WHERE coll = 'dm_priv.a_users'::regclass \gset
SET ROLE regress_dm_bob;
SELECT pg_temp.try($$UPDATE docmodel.migration_run SET status = 'running'
                     WHERE coll = 'dm_priv.a_users'::regclass$$);
SELECT pg_temp.try($$UPDATE docmodel.migration_run SET coll = 'dm_priv.b_docs'
                     WHERE coll = 'dm_priv.a_users'::regclass$$);
SELECT pg_temp.try($$INSERT INTO docmodel.migration_run (coll, targets)
                     VALUES ('dm_priv.a_users', '{}')$$);
SELECT pg_temp.try($$DELETE FROM docmodel.migration_run$$);
SELECT pg_temp.try(format('SELECT docmodel._migration_run_set(%s, %L, NULL, 0, 0, NULL, NULL)',
                          :alice_run, 'running'));
SELECT pg_temp.try($$SELECT docmodel._migration_run_new('dm_priv.a_users', NULL, NULL, '{}')$$);
SELECT pg_temp.try(format('SELECT * FROM docmodel._migration_batch(%s, 10)', :alice_run));
SELECT pg_temp.try($$SELECT docmodel._migration_start('dm_priv.a_users', NULL, NULL, 10)$$);
-- no lock left behind by the refused start
SELECT count(*) AS advisory_locks FROM pg_locks
WHERE locktype = 'advisory' AND pid = pg_backend_pid();
RESET ROLE;
SELECT coll, status, docs_done, docs_total FROM docmodel.migration_runs
WHERE coll = 'dm_priv.a_users'::regclass;

-- with UPDATE on the collection bob may run, resume and see its migration
GRANT SELECT, UPDATE ON dm_priv.a_users TO regress_dm_bob;
SELECT docmodel.register_migration('acct', '2', '3',
    steps => '[{"op": "default", "path": "/three", "value": 3}]');
SET ROLE regress_dm_bob;
SELECT docmodel._migration_start('dm_priv.a_users', NULL, NULL, 10) AS bob_run \gset
SELECT docmodel._migration_unlock(:bob_run);
SELECT status, docs_done, docs_total FROM docmodel.migration_runs WHERE run_id = :bob_run;
CALL docmodel.migrate_collection('dm_priv.a_users', batch_size => 1);
SELECT run_id = :bob_run AS same_run, status, docs_done, docs_total
FROM docmodel.migration_runs WHERE coll = 'dm_priv.a_users'::regclass
ORDER BY run_id DESC LIMIT 1;
RESET ROLE;
SELECT id, doc->>'three' AS three FROM dm_priv.a_users ORDER BY id;

\echo == migration functions are pinned
CREATE FUNCTION dm_priv.up(d jsonb) RETURNS jsonb LANGUAGE sql
    AS $$ SELECT d || '{"by": "the registered function"}' $$;
SELECT docmodel.register_migration('pinned', '1', '2', fn => 'dm_priv.up(jsonb)');
SELECT docmodel.migrate('{"_type": "pinned", "_schema": "1"}');
SELECT pg_describe_object(classid, objid, objsubid) AS pin,
       pg_describe_object(refclassid, refobjid, refobjsubid) AS pinned
FROM pg_depend
WHERE refclassid = 'pg_proc'::regclass AND refobjid = 'dm_priv.up(jsonb)'::regprocedure;
-- DROP fails as it would under a view
SELECT pg_temp.try($$DROP FUNCTION dm_priv.up(jsonb)$$);
-- another function taking its name is not called: the rule calls the OID
ALTER FUNCTION dm_priv.up(jsonb) RENAME TO up_renamed;
CREATE FUNCTION dm_priv.up(d jsonb) RETURNS jsonb LANGUAGE sql
    AS $$ SELECT d || '{"by": "an impostor"}' $$;
SELECT docmodel.migrate('{"_type": "pinned", "_schema": "1"}');
SELECT fn FROM docmodel.migration_rules WHERE doc_type = 'pinned';
-- DROP ... CASCADE drops the pin; the rule stays and fails (42883), and
-- never looks the name up again
SET client_min_messages = notice;
DROP FUNCTION dm_priv.up_renamed(jsonb) CASCADE;
SET client_min_messages = warning;
SELECT pg_temp.try($$SELECT docmodel.migrate('{"_type": "pinned", "_schema": "1"}')$$);
CREATE FUNCTION dm_priv.up_renamed(d jsonb) RETURNS jsonb LANGUAGE sql
    AS $$ SELECT d || '{"by": "a later function"}' $$;
SELECT pg_temp.try($$SELECT docmodel.migrate('{"_type": "pinned", "_schema": "1"}')$$);
-- registered again, the rule pins the new function
SELECT docmodel.register_migration('pinned', '1', '2', fn => 'dm_priv.up(jsonb)');
SELECT docmodel.migrate('{"_type": "pinned", "_schema": "1"}');
-- replaced by steps, the rule lets the function go
SELECT docmodel.register_migration('pinned', '1', '2', steps => '[]');
DROP FUNCTION dm_priv.up(jsonb);
DROP FUNCTION dm_priv.up_renamed(jsonb);
SELECT count(*) AS pins_left FROM pg_proc
WHERE pronamespace = 'docmodel'::regnamespace AND proname LIKE '\_migration\_fn\_%'
  AND proname <> '_migration_fn_name';

\echo == a collection given to another owner gives it its view and history too
SET ROLE regress_dm_alice;
SELECT docmodel.create_collection('dm_priv.handed', revisions => 3) IS NOT NULL AS created;
INSERT INTO dm_priv.handed (id, doc) VALUES ('doc::1', '{"n": 1}');
RESET ROLE;
ALTER TABLE dm_priv.handed OWNER TO regress_dm_bob;
SELECT c.relname, pg_get_userbyid(c.relowner) AS owner FROM pg_class AS c
 WHERE c.oid IN ('dm_priv.handed'::regclass, 'dm_priv.handed_documents'::regclass,
                 'dm_priv.handed_revisions'::regclass) ORDER BY 1;
SET ROLE regress_dm_bob;
UPDATE dm_priv.handed SET doc = '{"n": 2}';
SELECT ver, op FROM docmodel.revisions('dm_priv.handed', 'doc::1') ORDER BY ver;
SELECT docmodel.set_revisions('dm_priv.handed', 5) IS NOT NULL AS set_by_new_owner;
SELECT docmodel.drop_collection('dm_priv.handed');
RESET ROLE;
-- other ALTER TABLEs of a collection and of other tables change no owner
SET ROLE regress_dm_alice;
SELECT docmodel.create_collection('dm_priv.kept') IS NOT NULL AS created;
RESET ROLE;
ALTER TABLE dm_priv.kept ADD COLUMN note text;
CREATE TABLE dm_priv.plain_t (a int);
ALTER TABLE dm_priv.plain_t OWNER TO regress_dm_bob;
SELECT pg_get_userbyid(relowner) AS view_owner FROM pg_class WHERE oid = 'dm_priv.kept_documents'::regclass;
-- a part a third role owns stays with it, with a WARNING; the table's owner changes
CREATE ROLE regress_dm_carol NOLOGIN;
ALTER VIEW dm_priv.kept_documents OWNER TO regress_dm_carol;
GRANT regress_dm_bob TO regress_dm_alice;
SET ROLE regress_dm_alice;
ALTER TABLE dm_priv.kept OWNER TO regress_dm_bob;
RESET ROLE;
SELECT c.relname, pg_get_userbyid(c.relowner) AS owner FROM pg_class AS c
 WHERE c.oid IN ('dm_priv.kept'::regclass, 'dm_priv.kept_documents'::regclass) ORDER BY 1;
REVOKE regress_dm_bob FROM regress_dm_alice;
-- an ALTER TABLE that changes no owner leaves a part given away on purpose alone,
-- even when a superuser runs it
ALTER TABLE dm_priv.kept ADD COLUMN note2 text;
SELECT pg_get_userbyid(relowner) AS view_owner FROM pg_class WHERE oid = 'dm_priv.kept_documents'::regclass;
-- nor may a role make a command the predicate reads (pg_ddl_command has no input)
SELECT pg_temp.try($$SELECT docmodel._ddl_changes_owner('0'::pg_ddl_command)$$);
SELECT docmodel._ddl_changes_owner(NULL) IS NULL AS strict;
SELECT docmodel._ddl_old_schema(NULL) IS NULL AS strict;
SELECT docmodel.drop_collection('dm_priv.kept');

\echo == a collection moved to another schema takes its view and history along
CREATE SCHEMA dm_moved;
CREATE SCHEMA dm_archive;
SELECT docmodel.create_collection('dm_priv.moving', revisions => 2) IS NOT NULL AS created;
INSERT INTO dm_priv.moving (id, doc) VALUES ('doc::1', '{"n": 1}');
UPDATE dm_priv.moving SET doc = '{"n": 2}';
ALTER TABLE dm_priv.moving SET SCHEMA dm_moved;
SELECT c.relname, c.relnamespace::regnamespace AS schema FROM pg_class AS c
 WHERE c.relname LIKE 'moving%' AND c.relkind IN ('r', 'v') ORDER BY 1;
SELECT ver, op, doc->'n' AS n FROM docmodel.revisions('dm_moved.moving', 'doc::1');
SELECT doc->'n' AS n, doc->'_ver' AS ver FROM dm_moved.moving_documents;
-- a history kept in another schema on purpose stays there; a name the new schema holds
-- keeps the view where it was, with a WARNING; other ALTER TABLEs move nothing
ALTER TABLE dm_moved.moving_revisions SET SCHEMA dm_archive;
CREATE TABLE dm_priv.moving_documents (x int);
ALTER TABLE dm_moved.moving ADD COLUMN note text;
ALTER TABLE dm_moved.moving SET SCHEMA dm_priv;
SELECT c.relname, c.relnamespace::regnamespace AS schema, c.relkind FROM pg_class AS c
 WHERE c.relname LIKE 'moving%' AND c.relkind IN ('r', 'v') ORDER BY 1, 2;
SELECT count(*) AS revisions FROM docmodel.revisions('dm_priv.moving', 'doc::1');
SELECT docmodel.drop_collection('dm_priv.moving');
DROP TABLE dm_priv.moving_documents;
DROP SCHEMA dm_moved, dm_archive;
DROP ROLE regress_dm_carol;
DROP TABLE dm_priv.plain_t;

\echo == clean up
DELETE FROM docmodel.migration_rules WHERE doc_type IN ('acct', 'pinned');
SELECT docmodel.drop_collection('dm_priv.a_users');
SELECT docmodel.drop_collection('dm_priv.b_docs');
DROP SCHEMA dm_priv CASCADE;
DROP ROLE regress_dm_alice;
DROP ROLE regress_dm_bob;
