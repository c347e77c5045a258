-- The document API as drivers call it: parameters sent untyped (PREPARE
-- without types, as node-postgres, psycopg 3 and JDBC's setString send
-- them) or typed as drivers type them (integer, bigint, numeric,
-- timestamptz); the read that returns document, cas and version; the CAS
-- writes that report a mismatch without raising; the fields of the errors.
SET docmodel.actor = 'drv';
SELECT docmodel.create_collection('drv', revisions => 2) IS NOT NULL AS created;
CREATE FUNCTION pg_temp.fields(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    st text; sch text; tbl text; col text; con text; dt text; ctx text;
BEGIN
    EXECUTE sql;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, sch = SCHEMA_NAME,
        tbl = TABLE_NAME, col = COLUMN_NAME, con = CONSTRAINT_NAME,
        dt = PG_DATATYPE_NAME, ctx = PG_EXCEPTION_CONTEXT;
    RETURN pg_catalog.format('%s couchbase=%s schema=%s table=%s column=%s constraint=%s%s',
        st, dt, sch, tbl, col, con,
        CASE WHEN ctx ~ 'SQL statement "(INSERT|UPDATE|DELETE|WITH|SELECT [^d])'
             THEN ' internal statement in the context' ELSE '' END);
END
$$;

-- Untyped parameters: every function with an expiry or lock time.
PREPARE ins AS SELECT docmodel.insert($1, $2, $3, $4) > 0 AS ok;
EXECUTE ins('drv', 'user::1', '{"name": "Ann"}', '3600');
EXECUTE ins('drv', 'user::2', '{"name": "Bob"}', NULL);
EXECUTE ins('drv', 'user::3', '{"name": "Cy"}', '1 hour');
EXECUTE ins('drv', 'user::4', '{"name": "Di"}', '2099-01-01T00:00:00.000+00:00');
SELECT id, expires_at IS NOT NULL AS expires, expires_at = '2099-01-01 00:00:00+00' AS at_date
FROM drv ORDER BY id;
PREPARE ups AS SELECT docmodel.upsert($1, $2, $3, $4) > 0 AS ok;
EXECUTE ups('drv', 'user::5', '{"name": "Ed"}', '60');
PREPARE ups5 AS SELECT docmodel.upsert($1, $2, $3, $4, $5) > 0 AS ok;
EXECUTE ups5('drv', 'user::5', '{"name": "Ed"}', NULL, 'true');
SELECT expires_at IS NOT NULL AS kept FROM drv WHERE id = 'user::5';
PREPARE rep AS SELECT docmodel.replace($1, $2, $3, $4, $5) > 0 AS ok;
EXECUTE rep('drv', 'user::2', '{"name": "Bo"}', NULL, '120');
PREPARE tch AS SELECT docmodel.touch($1, $2, $3) > 0 AS ok;
EXECUTE tch('drv', 'user::2', '0');
PREPARE gat AS SELECT doc->>'name' AS name, cas > 0 AS cas FROM docmodel.get_and_touch($1, $2, $3);
EXECUTE gat('drv', 'user::2', '30');
PREPARE gal AS SELECT doc->>'name' AS name FROM docmodel.get_and_lock($1, $2, $3);
EXECUTE gal('drv', 'user::3', '5');
SELECT docmodel.unlock('drv', 'user::3', (SELECT cas FROM drv WHERE id = 'user::3')) > 0 AS unlocked;
PREPARE mut AS SELECT (docmodel.mutate_in($1, $2, $3, $4, $5)->>'cas')::bigint > 0 AS ok;
EXECUTE mut('drv', 'user::1', '[{"op": "increment", "path": "logins", "delta": 1}]', NULL, '600');
PREPARE mut3 AS SELECT (docmodel.mutate_in($1, $2, $3)->>'cas')::bigint > 0 AS ok;
EXECUTE mut3('drv', 'user::1', '[{"op": "increment", "path": "logins", "delta": 1}]');
PREPARE look AS SELECT docmodel.lookup_in($1, $2, $3) AS r;
EXECUTE look('drv', 'user::1', '[{"op": "get", "path": "logins"}]');

-- Typed as drivers type them: integer, bigint, numeric, timestamptz,
-- timestamp, date; a boolean is still refused.
SELECT docmodel.touch('drv', 'user::1', 60) > 0 AS int4,
       docmodel.touch('drv', 'user::1', 60::bigint) > 0 AS int8,
       docmodel.touch('drv', 'user::1', 60.0::numeric) > 0 AS numeric,
       docmodel.touch('drv', 'user::1', now() + interval '1 day') > 0 AS timestamptz,
       docmodel.touch('drv', 'user::1', '2099-01-01'::date) > 0 AS date;
SELECT expires_at = '2099-01-01 00:00:00'::timestamp::timestamptz AS at_date FROM drv WHERE id = 'user::1';
SELECT pg_temp.fields($$SELECT docmodel.touch('drv', 'user::1', true)$$);
SELECT pg_temp.fields($$SELECT docmodel.touch('drv', 'user::1', now() - interval '1 day')$$);
SELECT pg_temp.fields($$SELECT docmodel.get_and_lock('drv', 'user::1', now())$$);
-- Calls written before keep their function: interval, untyped literal, NULL.
SELECT docmodel.touch('drv', 'user::1', interval '1 hour') > 0 AS interval,
       docmodel.touch('drv', 'user::1', '1 hour') > 0 AS literal,
       docmodel.touch('drv', 'user::1', NULL) > 0 AS null;

-- get_with_cas: document, cas and _ver in one row; no row when absent.
SELECT g.doc->>'name' AS name, g.cas = d.cas AS cas, g.ver
FROM docmodel.get_with_cas('drv', 'user::2') AS g, drv AS d WHERE d.id = 'user::2';
SELECT count(*) AS absent FROM docmodel.get_with_cas('drv', 'user::404');
PREPARE gwc AS SELECT ver FROM docmodel.get_with_cas($1, $2);
EXECUTE gwc('drv', 'user::1');
SELECT count(*) AS null_coll FROM docmodel.get_with_cas(NULL, 'x');

-- replace_if_cas, remove_if_cas: NULL on a stale cas, nothing written, no
-- error; the new cas otherwise; DocumentNotFound and NULL cas still raise.
CREATE TEMP TABLE c AS SELECT cas FROM drv WHERE id = 'user::2';
PREPARE rif AS SELECT docmodel.replace_if_cas($1, $2, $3, $4) AS r;
SELECT docmodel.replace_if_cas('drv', 'user::2', '{"name": "B"}', (SELECT cas FROM c)) > (SELECT cas FROM c) AS written;
SELECT docmodel.replace_if_cas('drv', 'user::2', '{"name": "X"}', (SELECT cas FROM c)) IS NULL AS stale;
SELECT docmodel.get('drv', 'user::2')->>'name' AS name;
SELECT docmodel.replace_if_cas('drv', 'user::2', '{"name": "X"}', (SELECT cas FROM c), 60) IS NULL AS stale_expiry;
SELECT docmodel.remove_if_cas('drv', 'user::2', 1) IS NULL AS stale_remove, docmodel.exists('drv', 'user::2') AS still;
SELECT docmodel.remove_if_cas('drv', 'user::2', (SELECT cas FROM drv WHERE id = 'user::2')) > 0 AS removed;
SELECT pg_temp.fields($$SELECT docmodel.replace_if_cas('drv', 'user::404', '{}', 1)$$);
SELECT pg_temp.fields($$SELECT docmodel.replace_if_cas('drv', 'user::1', '{}', NULL)$$);
SELECT pg_temp.fields($$SELECT docmodel.remove_if_cas('drv', NULL, 1)$$);
BEGIN;
SELECT docmodel.replace_if_cas('drv', 'user::1', '{}', 1) IS NULL AS stale_in_transaction;
SELECT docmodel.get('drv', 'user::1')->>'name' AS transaction_goes_on;
COMMIT;

-- The fields of the errors: Couchbase's name in the data type name, the
-- collection's schema and table, the column and constraint.
SELECT pg_temp.fields($$SELECT docmodel.insert('drv', 'user::1', '{}')$$);
SELECT pg_temp.fields($$SELECT docmodel.replace('drv', 'user::404', '{}')$$);
SELECT pg_temp.fields($$SELECT docmodel.replace('drv', 'user::1', '{}', 1)$$);
SELECT pg_temp.fields($$SELECT docmodel.remove('drv', 'user::1', 1)$$);
SELECT docmodel.get_and_lock('drv', 'user::5') IS NOT NULL AS locked;
SELECT pg_temp.fields($$SELECT docmodel.upsert('drv', 'user::5', '{}')$$);
-- The context keeps a trigger's statements, not the key-value API's own.
CREATE FUNCTION pg_temp.refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.id = 'user::7' THEN
        EXECUTE 'SELECT 1 / 0';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER refuse BEFORE INSERT ON drv FOR EACH ROW EXECUTE FUNCTION pg_temp.refuse();
DO $$
DECLARE
    ctx text;
BEGIN
    PERFORM docmodel.insert('drv', 'user::7', '{}');
EXCEPTION WHEN division_by_zero THEN
    GET STACKED DIAGNOSTICS ctx = PG_EXCEPTION_CONTEXT;
    RAISE NOTICE '%', regexp_replace(ctx, 'pg_temp_\d+', 'pg_temp', 'g');
END
$$;
DROP TRIGGER refuse ON drv;
SELECT pg_temp.fields($$SELECT docmodel.mutate_in('drv', 'user::1', '[{"op": "replace", "path": "nope", "value": 1}]')$$);
SELECT pg_temp.fields($$SELECT docmodel.mutate_in('drv', 'user::1', '[{"op": "insert", "path": "logins", "value": 1}]')$$);
SELECT pg_temp.fields($$SELECT docmodel.mutate_in('drv', 'user::1', '[{"op": "bogus", "path": "a"}]')$$);
SELECT pg_temp.fields($$SELECT docmodel.mutate_in('drv', 'user::404', '[{"op": "upsert", "path": "a", "value": 1}]')$$);
SELECT pg_temp.fields($$SELECT docmodel.mutate_in('drv', 'user::1', '[{"op": "upsert", "path": "a", "value": 1}]', store_semantics => 'insert')$$);
SELECT docmodel.create_lookup('drv', 'email', ARRAY['email']) IS NULL AS lookup;
SELECT docmodel.upsert('drv', 'user::1', '{"name": "Ann", "email": "a@x"}') > 0 AS ok;
SELECT pg_temp.fields($$SELECT docmodel.upsert('drv', 'user::4', '{"name": "Di", "email": "a@x"}')$$);
SELECT docmodel.counter_create('drv_seq') IS NULL AS counter;
SELECT pg_temp.fields($$SELECT docmodel.counter_create('drv_seq')$$);
SELECT docmodel.counter_drop('drv_seq');
SELECT docmodel.drop_collection('drv');
