-- Mappings, projections and lookups under attack (README "Security"):
-- mallory may read alice's tables and call every function, internal ones
-- too. No SQL she gives is stored or run, a name she takes is only hers,
-- a projection's trigger runs only the statement docmodel makes from its
-- owner's mapping, a look-alike function or operator on the writer's
-- search_path is never called, and a renamed schema redirects nothing.
\set SHOW_CONTEXT never
\i test/sql/include/try.sql
SET client_min_messages = warning;

CREATE ROLE regress_sm_alice NOLOGIN;
CREATE ROLE regress_sm_mallory NOLOGIN;
CREATE SCHEMA sm;
GRANT USAGE, CREATE ON SCHEMA sm TO regress_sm_alice, regress_sm_mallory;
SET ROLE regress_sm_alice;
CREATE TABLE sm.person (id integer PRIMARY KEY, name text NOT NULL);
CREATE TABLE sm.address (id integer PRIMARY KEY, person_id integer NOT NULL REFERENCES sm.person,
    city text NOT NULL);
INSERT INTO sm.person VALUES (1, 'Ann'), (2, 'Bo');
INSERT INTO sm.address VALUES (10, 1, 'Oslo'), (11, 1, 'Rome'), (12, 2, 'Lima');
GRANT SELECT ON sm.person, sm.address TO regress_sm_mallory;
SELECT docmodel.create_mapping('people', 'sm.person');
SELECT docmodel.map_embed_array('people', 'sm.address', 'addresses', order_by => 'city DESC', max_items => 5);
SELECT docmodel.create_collection('sm.people_docs', 'person') IS NOT NULL AS created;
RESET ROLE;

\echo == a part spec given to _mapping_write directly is checked as map_embed_array checks it
SET ROLE regress_sm_mallory;
CREATE FUNCTION sm.steal(t text) RETURNS text LANGUAGE sql AS $$ SELECT t $$;
SELECT docmodel.create_mapping('mine', 'sm.person');
SELECT pg_temp.try($q$SELECT docmodel._mapping_write('part', 'regress_sm_mallory', 'mine', 'sm.address', 'sm.person', 'a',
    '{"kind": "array", "cols": ["person_id"], "under_cols": ["id"], "order_by": [["city", "ASC, sm.steal(''x'')", ""]]}')$q$);
SELECT pg_temp.try($q$SELECT docmodel._mapping_write('part', 'regress_sm_mallory', 'mine', 'sm.address', 'sm.person', 'a',
    '{"kind": "array", "cols": ["person_id"], "under_cols": ["id"], "order_by": [["city", "", "NULLS LAST, sm.steal(''x'')"]]}')$q$);
SELECT pg_temp.try($q$SELECT docmodel._mapping_write('part', 'regress_sm_mallory', 'mine', 'sm.address', 'sm.person', 'a',
    '{"kind": "array", "cols": ["person_id"], "under_cols": ["id"], "max_items": "1) UNION SELECT sm.steal(''x'') --"}')$q$);
SELECT pg_temp.try($q$SELECT docmodel._mapping_write('part', 'regress_sm_mallory', 'mine', 'sm.address', 'sm.person', 'a',
    '{"kind": "array", "cols": ["person_id) OR sm.steal(''x'') IS NOT NULL OR (true"], "under_cols": ["id"]}')$q$);
SELECT pg_temp.try($q$SELECT docmodel._mapping_write('part', 'regress_sm_mallory', 'mine', 'sm.address', 'sm.person', 'a',
    '{"kind": "sql", "cols": ["person_id"], "under_cols": ["id"]}')$q$);
-- a key type is a value: stored, and written into generated SQL as a literal
SELECT pg_temp.try($q$SELECT docmodel._mapping_write('part', 'regress_sm_mallory', 'mine', 'sm.address', 'sm.person', 'a',
    '{"kind": "reference", "type": "x'' || sm.steal(''x'') || ''", "cols": ["id"], "under_cols": ["id"]}')$q$);
SELECT doc->>'a' AS a FROM docmodel.denormalize('mine') LIMIT 1;
SELECT pg_temp.try($q$SELECT docmodel._mapping_write('create', 'regress_sm_mallory', 'evil', 'sm.person', NULL, NULL,
    '{"doc_type": "a::b"}')$q$);
-- what is stored is what the validator rebuilt: unknown members are dropped
SELECT docmodel._mapping_write('part', 'regress_sm_mallory', 'mine', 'sm.address', 'sm.person', 'a',
    '{"kind": "array", "cols": ["person_id"], "under_cols": ["id"], "order_by": [["city", "DESC", ""]], "sql": "sm.steal(1)"}');
SELECT field, spec FROM docmodel.mapping_parts WHERE mapping = 'mine' AND owner = 'regress_sm_mallory'::regrole;
-- nor may she change alice's mapping
SELECT pg_temp.try($q$SELECT docmodel._mapping_write('part', 'regress_sm_alice', 'people', 'sm.address', 'sm.person', 'x',
    '{"kind": "array", "cols": ["person_id"], "under_cols": ["id"]}')$q$);
SELECT pg_temp.try($q$SELECT docmodel._mapping_write('create', 'regress_sm_alice', 'hers', 'sm.person', NULL, NULL,
    '{"doc_type": "p"}')$q$);
RESET ROLE;

\echo == mapping names are per owner: the people of mallory are hers only
SET ROLE regress_sm_mallory;
SELECT docmodel.create_mapping('people', 'sm.address', 'addr');
SELECT key FROM docmodel.denormalize('people') ORDER BY 1 LIMIT 1;
RESET ROLE;
SET ROLE regress_sm_alice;
SELECT key, doc FROM docmodel.denormalize('people');
RESET ROLE;
SELECT name, owner, doc_type FROM docmodel.mappings WHERE owner::text LIKE 'regress_sm_%' ORDER BY 1, 2::text;
-- a member of the owner role reaches the mapping; a second role's mapping
-- of the same name makes the name ambiguous
CREATE ROLE regress_sm_member NOLOGIN IN ROLE regress_sm_alice;
SET ROLE regress_sm_member;
SELECT count(*) AS docs FROM docmodel.denormalize('people');
RESET ROLE;
GRANT regress_sm_mallory TO regress_sm_member;
SET ROLE regress_sm_member;
SELECT pg_temp.try($$SELECT count(*) FROM docmodel.denormalize('people')$$);
RESET ROLE;
DROP ROLE regress_sm_member;

\echo == projections: no statement stored; the trigger makes it from the mapping of its owner
SET ROLE regress_sm_alice;
SELECT docmodel.project_tables('people', 'sm.people_docs');
RESET ROLE;
SELECT attname FROM pg_attribute WHERE attrelid = 'docmodel.projections'::regclass AND attnum > 0 ORDER BY attnum;
SELECT mapping, owner, tbl, coll FROM docmodel.projections WHERE owner::text LIKE 'regress_sm_%' ORDER BY tbl::text;
-- a mapping with live triggers is not dropped
SET ROLE regress_sm_alice;
SELECT pg_temp.try($$SELECT docmodel.drop_mapping('people')$$);
RESET ROLE;
-- mallory's own mapping "people" over the same table, projected by hand
-- into her collection through _mapping_write, is not what alice's
-- triggers run
SET ROLE regress_sm_mallory;
SELECT docmodel.create_collection('sm.loot', 'addr') IS NOT NULL AS created;
SELECT pg_temp.try($q$SELECT docmodel._mapping_write('project', 'regress_sm_mallory', 'people', 'sm.person', 'sm.loot', NULL,
    '{"insert": "SELECT sm.steal(''x'')"}')$q$);
SELECT pg_temp.try($q$SELECT docmodel._mapping_write('project', 'regress_sm_mallory', 'people', 'sm.address', 'sm.loot', NULL,
    '{"insert": "SELECT sm.steal(''x'')"}')$q$);
SELECT pg_temp.try($q$SELECT docmodel._mapping_write('project', 'regress_sm_alice', 'people', 'sm.address', 'sm.loot', NULL, NULL)$q$);
RESET ROLE;
SET ROLE regress_sm_alice;
INSERT INTO sm.address VALUES (13, 2, 'Baku');
SELECT id, doc->'addresses' AS addresses FROM sm.people_docs ORDER BY id;
RESET ROLE;
SELECT count(*) AS loot FROM sm.loot;
-- a projection runs only through the triggers project_tables created:
-- one another role with TRIGGER on the table adds, naming the mapping, is refused
SET ROLE regress_sm_alice;
GRANT TRIGGER ON sm.address TO regress_sm_mallory;
RESET ROLE;
SET ROLE regress_sm_mallory;
DO $$ BEGIN
EXECUTE format('CREATE TRIGGER copycat AFTER INSERT ON sm.address REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION docmodel._projection_trigger(%L, %L)', 'regress_sm_alice'::regrole::oid, 'people');
END $$;
RESET ROLE;
SET ROLE regress_sm_alice;
SELECT pg_temp.try($$INSERT INTO sm.address VALUES (99, 2, 'Nowhere')$$);
DROP TRIGGER copycat ON sm.address;
REVOKE TRIGGER ON sm.address FROM regress_sm_mallory;
RESET ROLE;
SELECT triggers = ARRAY(SELECT g.oid FROM pg_trigger g WHERE g.tgrelid = p.tbl AND g.tgname LIKE 'docmodel_projection_%' ORDER BY g.oid) AS own_triggers
FROM docmodel.projections p WHERE owner = 'regress_sm_alice'::regrole ORDER BY tbl::text;

\echo == the search_path of the writer reaches no look-alike function or operator
CREATE SCHEMA sm_evil;
GRANT USAGE ON SCHEMA sm_evil TO PUBLIC;
CREATE FUNCTION sm_evil.jsonb_build_object(text, integer, text, text, text, jsonb) RETURNS jsonb
    LANGUAGE sql AS $$ SELECT '{"hijacked": "jsonb_build_object"}'::jsonb $$;
CREATE FUNCTION sm_evil.jsonb_build_object(text, integer, text, integer, text, text) RETURNS jsonb
    LANGUAGE sql AS $$ SELECT '{"hijacked": "jsonb_build_object"}'::jsonb $$;
CREATE FUNCTION sm_evil.to_jsonb(jsonb[]) RETURNS jsonb
    LANGUAGE sql AS $$ SELECT '["hijacked: to_jsonb"]'::jsonb $$;
CREATE FUNCTION sm_evil.int_eq(integer, integer) RETURNS boolean
    LANGUAGE sql AS $$ SELECT true $$;
CREATE OPERATOR sm_evil.= (LEFTARG = integer, RIGHTARG = integer, FUNCTION = sm_evil.int_eq);
SET ROLE regress_sm_alice;
SET search_path = sm_evil, pg_catalog, public;
INSERT INTO sm.address VALUES (14, 1, 'Kyiv');
UPDATE sm.person SET name = 'Ann B' WHERE id OPERATOR(pg_catalog.=) 1;
RESET search_path;
SELECT id, doc->>'name' AS name, doc->'addresses' AS addresses, doc ? 'hijacked' AS hijacked
FROM sm.people_docs ORDER BY id;
SELECT d.key FROM docmodel.denormalize('people') d JOIN sm.people_docs p ON p.id = d.key
WHERE d.doc IS DISTINCT FROM p.doc - '{_type,_ver,_created,_modified,_createdBy,_modifiedBy}'::text[];
RESET ROLE;

\echo == a renamed schema: projection and lookup triggers write where they wrote, never into an impostor
SET ROLE regress_sm_alice;
SELECT docmodel.create_collection('sm.customers') IS NOT NULL AS created;
SELECT docmodel.create_lookup('sm.customers', 'ref', '{no}');
SELECT docmodel.insert('sm.customers', 'user::1', '{"no": 1}') > 0 AS written;
INSERT INTO sm.address VALUES (15, 2, 'Cali');
RESET ROLE;
ALTER SCHEMA sm RENAME TO sm_old;
CREATE SCHEMA sm;
GRANT USAGE ON SCHEMA sm TO PUBLIC;
GRANT CREATE ON SCHEMA sm TO regress_sm_mallory;
CREATE TABLE sm.customers (LIKE sm_old.customers INCLUDING ALL);
CREATE TABLE sm.people_docs (LIKE sm_old.people_docs INCLUDING ALL);
ALTER TABLE sm.customers OWNER TO regress_sm_mallory;
ALTER TABLE sm.people_docs OWNER TO regress_sm_mallory;
SET ROLE regress_sm_mallory;
GRANT INSERT, SELECT, UPDATE, DELETE ON sm.customers, sm.people_docs TO PUBLIC;
RESET ROLE;
DISCARD ALL;
\i test/sql/include/try.sql
SET client_min_messages = warning;
SET ROLE regress_sm_alice;
SELECT docmodel.insert('sm_old.customers', 'user::2', '{"no": 2}') > 0 AS written;
INSERT INTO sm_old.address VALUES (16, 2, 'Quito');
RESET ROLE;
SELECT id, doc->>'ref' AS ref FROM sm_old.customers WHERE id LIKE 'ref::%' ORDER BY id;
SELECT id FROM sm_old.people_docs ORDER BY id;
SELECT jsonb_array_length(doc->'addresses') AS addresses FROM sm_old.people_docs WHERE id = 'person::2';
SELECT count(*) AS impostor_rows FROM sm.customers;
SELECT count(*) AS impostor_rows FROM sm.people_docs;

\echo == internal functions: NULL arguments are 22004, odd ones 22023, never an internal error
SELECT pg_temp.try($$SELECT docmodel._mapping_write(NULL, NULL, NULL, NULL, NULL, NULL, NULL)$$);
SELECT pg_temp.try($$SELECT docmodel._mapping_write('part', NULL, 'people', NULL, NULL, NULL, NULL)$$);
SELECT pg_temp.try($$SELECT docmodel._mapping_write('nonsense', 'regress_sm_alice', 'people', NULL, NULL, NULL, NULL)$$);
SELECT pg_temp.try($$SELECT docmodel._mapping_write('part', 'regress_sm_alice', 'people', 'sm_old.address', NULL, NULL, NULL)$$);
SELECT pg_temp.try($$SELECT docmodel._mapping_write('column', 'regress_sm_alice', 'people', 'sm_old.address', NULL, 'city', '{"name": 5}')$$);
SELECT pg_temp.try($$SELECT docmodel._config_create(NULL, NULL, NULL, NULL, NULL)$$);
SELECT pg_temp.try($$SELECT docmodel._config_set_revisions(NULL, NULL, NULL)$$);
SELECT pg_temp.try($$SELECT docmodel._config_set_max_ttl('sm_old.customers', -1)$$);
SELECT pg_temp.try($$SELECT docmodel._config_set_layout(NULL, NULL, NULL, NULL, NULL)$$);
SELECT pg_temp.try($$SELECT docmodel._config_drop(NULL)$$);
SELECT pg_temp.try($$SELECT docmodel._config_adopt_history(NULL)$$);
SELECT pg_temp.try($$SELECT docmodel._migration_run_new(NULL, NULL, NULL, NULL)$$);
SELECT pg_temp.try($$SELECT docmodel._migration_run_set(NULL, NULL, NULL, NULL, NULL, NULL, NULL)$$);
-- the state of a migrate_tables run carries no statement
SET ROLE regress_sm_alice;
SELECT pg_temp.try($$SELECT docmodel._migrate_tables_batch('{"mapping": "people", "sql": "SELECT 1"}')$$);
RESET ROLE;

\echo == clean up
SET ROLE regress_sm_alice;
SELECT docmodel.stop_projection('people');
SELECT docmodel.drop_mapping('people');
SELECT docmodel.drop_lookup('sm_old.customers', 'ref');
SELECT docmodel.drop_collection('sm_old.customers');
SELECT docmodel.drop_collection('sm_old.people_docs');
RESET ROLE;
SET ROLE regress_sm_mallory;
SELECT docmodel.stop_projection('people');
SELECT docmodel.drop_mapping('people'), docmodel.drop_mapping('mine');
SELECT docmodel.drop_collection('sm_old.loot');
RESET ROLE;
SELECT count(*) AS mappings_left FROM docmodel.mappings
WHERE owner IN ('regress_sm_alice'::regrole, 'regress_sm_mallory'::regrole);
DROP SCHEMA sm CASCADE;
DROP SCHEMA sm_old CASCADE;
DROP SCHEMA sm_evil CASCADE;
DROP OWNED BY regress_sm_alice, regress_sm_mallory;
DROP ROLE regress_sm_alice;
DROP ROLE regress_sm_mallory;
-- The quoting helper of generated SQL: an OID that names no relation.
SELECT docmodel._rel_sql(0);
SELECT docmodel._rel_sql('pg_catalog.pg_class'::regclass) AS quoted;
