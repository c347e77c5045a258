-- A hostile search_path: a schema listed before pg_catalog holds look-alikes
-- of the operators and functions docmodel uses (=, <>, <, <=, >, +, -, ||,
-- ->, ->> for its types; now, clock_timestamp, jsonb_set, coalesce, format,
-- ...), each recording its call. Every docmodel function and the collection
-- trigger run under that search_path; none of the look-alikes is called.
\set SHOW_CONTEXT never
SET client_min_messages = warning;
CREATE SCHEMA hostile;
CREATE TABLE hostile.calls (called text);

-- Functions: name, arguments, result, what the real one does.
DO $$
DECLARE
    f record;
BEGIN
    FOR f IN SELECT * FROM (VALUES
        ('now', '', 'timestamptz', 'pg_catalog.now()'),
        ('clock_timestamp', '', 'timestamptz', 'pg_catalog.clock_timestamp()'),
        ('statement_timestamp', '', 'timestamptz', 'pg_catalog.statement_timestamp()'),
        ('jsonb_set', 'a jsonb, b text[], c jsonb, d boolean DEFAULT true', 'jsonb', 'pg_catalog.jsonb_set(a, b, c, d)'),
        ('coalesce', 'a text, b text', 'text', 'COALESCE(a, b)'),
        ('nullif', 'a text, b text', 'text', 'NULLIF(a, b)'),
        ('format', 'a text', 'text', 'pg_catalog.format(a)'),
        ('format', 'a text, b text', 'text', 'pg_catalog.format(a, b)'),
        ('quote_ident', 'a text', 'text', 'pg_catalog.quote_ident(a)'),
        ('to_regclass', 'a text', 'regclass', 'pg_catalog.to_regclass(a)'),
        ('to_regprocedure', 'a text', 'regprocedure', 'pg_catalog.to_regprocedure(a)'),
        ('octet_length', 'a text', 'integer', 'pg_catalog.octet_length(a)'),
        ('length', 'a text', 'integer', 'pg_catalog.length(a)'),
        ('substr', 'a text, b integer, c integer', 'text', 'pg_catalog.substr(a, b, c)'),
        ('encode', 'a bytea, b text', 'text', 'pg_catalog.encode(a, b)'),
        ('sha256', 'a bytea', 'bytea', 'pg_catalog.sha256(a)'),
        ('convert_to', 'a text, b name', 'bytea', 'pg_catalog.convert_to(a, b)'),
        ('unnest', 'a text[]', 'SETOF text', 'NULL'),
        ('pg_has_role', 'a oid, b text', 'boolean', 'pg_catalog.pg_has_role(a, b)'),
        ('pg_try_advisory_lock', 'a integer, b integer', 'boolean', 'pg_catalog.pg_try_advisory_lock(a, b)'),
        ('pg_advisory_unlock', 'a integer, b integer', 'boolean', 'pg_catalog.pg_advisory_unlock(a, b)'),
        ('pg_backend_pid', '', 'integer', 'pg_catalog.pg_backend_pid()'),
        ('jsonb_build_object', 'a text, b jsonb', 'jsonb', 'pg_catalog.jsonb_build_object(a, b)'),
        ('jsonb_typeof', 'a jsonb', 'text', 'pg_catalog.jsonb_typeof(a)'),
        ('count', 'a text', 'bigint', '0')
    ) AS v(name, args, ret, body)
    LOOP
        EXECUTE format('CREATE FUNCTION hostile.%I(%s) RETURNS %s LANGUAGE plpgsql '
            'SET search_path = pg_catalog AS %L', f.name, f.args, f.ret,
            format('BEGIN INSERT INTO hostile.calls VALUES (%L); %s END',
                f.name || '(' || f.args || ')',
                CASE WHEN f.ret LIKE 'SETOF%' THEN 'RETURN;' ELSE 'RETURN ' || f.body || ';' END));
    END LOOP;
END
$$;

-- Operators: operator, left and right type, the function of the real one.
DO $$
DECLARE
    o record;
    n integer := 0;
BEGIN
    FOR o IN SELECT * FROM (VALUES
        ('=', 'text', 'text', 'texteq'), ('<>', 'text', 'text', 'textne'),
        ('<', 'text', 'text', 'text_lt'), ('>', 'text', 'text', 'text_gt'),
        ('<=', 'text', 'text', 'text_le'), ('>=', 'text', 'text', 'text_ge'),
        ('||', 'text', 'text', 'textcat'), ('||', 'text', 'anynonarray', 'textanycat'),
        ('~~', 'text', 'text', 'textlike'),
        ('=', 'name', 'name', 'nameeq'), ('=', 'name', 'text', 'nameeqtext'),
        ('=', 'jsonb', 'jsonb', 'jsonb_eq'), ('<>', 'jsonb', 'jsonb', 'jsonb_ne'),
        ('||', 'jsonb', 'jsonb', 'jsonb_concat'), ('-', 'jsonb', 'text', 'jsonb_delete'),
        ('->', 'jsonb', 'text', 'jsonb_object_field'), ('->>', 'jsonb', 'text', 'jsonb_object_field_text'),
        ('->', 'jsonb', 'integer', 'jsonb_array_element'), ('?', 'jsonb', 'text', 'jsonb_exists'),
        ('=', 'bigint', 'bigint', 'int8eq'), ('<>', 'bigint', 'bigint', 'int8ne'),
        ('<', 'bigint', 'bigint', 'int8lt'), ('>', 'bigint', 'bigint', 'int8gt'),
        ('<=', 'bigint', 'bigint', 'int8le'), ('>=', 'bigint', 'bigint', 'int8ge'),
        ('+', 'bigint', 'bigint', 'int8pl'), ('-', 'bigint', 'bigint', 'int8mi'),
        ('*', 'bigint', 'bigint', 'int8mul'), ('/', 'bigint', 'bigint', 'int8div'),
        ('=', 'integer', 'integer', 'int4eq'), ('<>', 'integer', 'integer', 'int4ne'),
        ('<', 'integer', 'integer', 'int4lt'), ('>', 'integer', 'integer', 'int4gt'),
        ('<=', 'integer', 'integer', 'int4le'), ('>=', 'integer', 'integer', 'int4ge'),
        ('+', 'integer', 'integer', 'int4pl'), ('-', 'integer', 'integer', 'int4mi'),
        ('=', 'oid', 'oid', 'oideq'), ('<>', 'oid', 'oid', 'oidne'),
        ('=', '"char"', '"char"', 'chareq'), ('=', 'boolean', 'boolean', 'booleq'),
        ('+', 'timestamptz', 'interval', 'timestamptz_pl_interval'),
        ('-', 'timestamptz', 'timestamptz', 'timestamptz_mi'),
        ('<=', 'timestamptz', 'timestamptz', 'timestamptz_le'),
        ('>', 'timestamptz', 'timestamptz', 'timestamptz_gt'),
        ('=', 'anyarray', 'anyarray', 'array_eq')
    ) AS v(op, l, r, fn)
    LOOP
        n := n + 1;
        EXECUTE format('CREATE FUNCTION hostile.op%s(a %s, b %s) RETURNS %s LANGUAGE plpgsql '
            'SET search_path = pg_catalog AS %L', n, o.l, o.r,
            (SELECT p.oprresult::regtype::text FROM pg_operator p
             WHERE p.oprname = o.op AND p.oprleft = o.l::regtype AND p.oprright = o.r::regtype
               AND p.oprnamespace = 'pg_catalog'::regnamespace),
            format('BEGIN INSERT INTO hostile.calls VALUES (%L); RETURN pg_catalog.%s(a, b); END',
                o.l || ' ' || o.op || ' ' || o.r, o.fn));
        EXECUTE format('CREATE OPERATOR hostile.%s (LEFTARG = %s, RIGHTARG = %s, FUNCTION = hostile.op%s)',
            o.op, o.l, o.r, n);
    END LOOP;
END
$$;
-- the rules' own function (the user's code docmodel is meant to call)
CREATE FUNCTION public.hp_up(d jsonb) RETURNS jsonb LANGUAGE sql
    AS $$ SELECT pg_catalog.jsonb_set(d, '{up}', 'true') $$;
SELECT docmodel.register_migration('hp', '1', '2',
    steps => '[{"op": "split", "path": "/name", "into": ["/first", "/last"], "separator": " "}]');
SELECT docmodel.register_migration('hp', '2', '3', fn => 'public.hp_up(jsonb)');
DELETE FROM hostile.calls;

\echo == everything below runs with the hostile schema first
SET search_path = hostile, pg_catalog, public;
SELECT docmodel.key('hp', 1), docmodel.key_with(':', 'hp', 1), docmodel.key_parts('hp::1'),
       docmodel.key_type('hp::1'), docmodel.key_id('hp::1'), docmodel.key_parent('hp::a::1'),
       docmodel.key_is_valid('hp::1'), docmodel.revision_key('hp::1', 2);
SELECT docmodel.uuid_key('hp') IS NOT NULL AS uuid_key;
SELECT '1.10'::docmodel.version::text, docmodel.version_cmp('1.10', '1.9'),
       docmodel.max(v), docmodel.min(v)
FROM pg_catalog.unnest('{1.9,1.10}'::docmodel.version[]) AS v;
-- counters
SELECT docmodel.counter_create('count::hp', 10);
SELECT docmodel.incr('count::hp'), docmodel.incr('count::hp', 5),
       docmodel.incr('count::hp_new', 1, 100), docmodel.counter_value('count::hp'),
       docmodel.counter_advance('count::hp', 50);
SELECT docmodel.counter_create('count::hp_gapless', 0, true);
SELECT docmodel.incr('count::hp_gapless'), docmodel.counter_advance('count::hp_gapless', 5);
SELECT docmodel.next_id('hp'), docmodel.next_key('hp', 'org'), docmodel.next_id('hp');
SELECT count(*) AS counter_keys FROM docmodel.counter_keys('hp');
SELECT name, value, gapless FROM docmodel.counters
WHERE name OPERATOR(pg_catalog.~~) 'count::%hp%' ORDER BY 1;
SELECT docmodel.counter_drop('count::hp'), docmodel.counter_drop('count::hp_new'),
       docmodel.counter_drop('count::hp_gapless'), docmodel.counter_drop('count::org::hp');
-- collections, the trigger, key-value API, revisions
SELECT docmodel.create_collection('hp_docs', revisions => 2);
SELECT docmodel.create_collection('hp_typed', 'hp', 0, 'meta', 'iso', ':');
-- (hp_docs has the default style: underscore, or columns where
-- docmodel.default_meta_style says so)
SELECT collection, doc_type, revisions,
       CASE WHEN meta_style OPERATOR(pg_catalog.=) 'underscore'
              OR meta_style OPERATOR(pg_catalog.=) 'columns' THEN 'default style'
            ELSE meta_style END AS meta_style
FROM docmodel.collections
WHERE collection::text OPERATOR(pg_catalog.~~) 'hp%' ORDER BY collection::text;
SELECT docmodel.insert('hp_docs', 'hp::1', '{"name": "Ann Lee", "_schema": "1"}') > 0 AS inserted;
SELECT docmodel.upsert('hp_docs', 'hp::1', '{"name": "Ann Lee", "_schema": "2", "first": "Ann"}') > 0 AS upserted;
SELECT docmodel.replace('hp_docs', 'hp::1', '{"first": "Ann", "_schema": "3"}') > 0 AS replaced;
SELECT docmodel.touch('hp_docs', 'hp::1', '1 hour') > 0 AS touched;
SELECT docmodel.insert('hp_docs', 'hp::2', '{"name": "Bo Ek", "_schema": "1"}', '1 day') > 0 AS inserted;
SELECT docmodel.insert('hp_typed', 'hp:1', '{"a": 1}') > 0 AS typed;
INSERT INTO hp_docs (id, doc, cas) VALUES ('hp::3', '{"name": "Cy Do", "_schema": "1"}', 0);
UPDATE hp_docs SET doc = '{"name": "Cy Do", "x": 1, "_schema": "1"}' WHERE id OPERATOR(pg_catalog.=) 'hp::3';
UPDATE hp_typed SET doc = '{"a": 2}' WHERE id OPERATOR(pg_catalog.=) 'hp:1';
DELETE FROM hp_docs WHERE id OPERATOR(pg_catalog.=) 'hp::3';
INSERT INTO hp_docs (id, doc, cas) VALUES ('hp::4', '{"name": "Di Fa", "_schema": "1"}', 0)
    ON CONFLICT (id) DO UPDATE SET doc = excluded.doc;
SELECT docmodel.get('hp_docs', 'hp::1') #> '{first}' AS first;
SELECT key, doc #> '{_schema}' AS schema FROM docmodel.get_multi('hp_docs', '{hp::1,hp::2,hp::9}');
SELECT ver, op FROM docmodel.revisions('hp_docs', 'hp::1');
SELECT docmodel.get_revision('hp_docs', 'hp::1', 1) #> '{name}' AS rev1;
SELECT docmodel.restore('hp_docs', 'hp::3', 2) > 0 AS restored;
SELECT docmodel.remove('hp_docs', 'hp::2') > 0 AS removed;
SELECT docmodel.purge_expired('hp_docs');
SELECT docmodel.set_revisions('hp_docs', 1);
SELECT docmodel.diff('{"a": 1, "b": [1, 2]}', '{"a": 2, "b": [1]}');
SELECT docmodel.patch('{"a": 1}', '[{"op": "add", "path": "/b", "value": 2}, {"op": "test", "path": "/a", "value": 1}]');
-- migrations
SELECT docmodel.current_version('hp');
SELECT docmodel.migrate('{"_type": "hp", "_schema": "1", "name": "Ed Gu"}');
SELECT docmodel.migrate('{"_type": "hp", "_schema": "1", "name": "Ed Gu"}', '2');
SELECT docmodel.register_migration('hp', '3', '4', steps => '[{"op": "default", "path": "/four", "value": 4}]');
SELECT docmodel.register_migration('hp', '3', '4', steps => '[{"op": "default", "path": "/four", "value": 4}]');
SELECT * FROM docmodel.migration_plan('hp_docs');
CALL docmodel.migrate_collection('hp_docs', batch_size => 1);
CALL docmodel.migrate_collection('hp_docs', 'hp', '4');
SELECT coll, doc_type, status, docs_done, docs_total FROM docmodel.migration_runs
WHERE coll::oid OPERATOR(pg_catalog.=) 'hp_docs'::regclass::oid ORDER BY run_id;
SELECT id, doc #> '{_schema}' AS schema, doc #> '{up}' AS up FROM hp_docs ORDER BY id;
-- sub-documents
SELECT docmodel.lookup_in('hp_docs', 'hp::1', '[{"op": "get", "path": "four"}]') #> '{0,value}' AS looked_up;
SELECT docmodel.mutate_in('hp_docs', 'hp::1', '[{"op": "increment", "path": "four"}]') #> '{results,0,value}' AS incremented;
SELECT docmodel.mutate_in('hp_docs', 'hp::6', '[{"op": "upsert", "path": "a", "value": 1}]', store_semantics => 'upsert') #> '{results}' AS upserted;
TRUNCATE hp_docs;
SELECT docmodel.drop_collection('hp_docs');
SELECT docmodel.drop_collection('hp_typed');
RESET search_path;

\echo == no look-alike was called
SELECT called, count(*) FROM hostile.calls GROUP BY 1 ORDER BY 1;
-- (the look-alikes work: called directly, they record)
SET search_path = hostile, pg_catalog, public;
SELECT 'a'::text = 'a'::text AS direct_call;
RESET search_path;
SELECT called FROM hostile.calls;

DELETE FROM docmodel.migration_rules WHERE doc_type = 'hp';
DELETE FROM docmodel.migration_run r WHERE NOT EXISTS (SELECT FROM pg_class c WHERE c.oid = r.coll);
DROP FUNCTION public.hp_up(jsonb);
DROP SCHEMA hostile CASCADE;
