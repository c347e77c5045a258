-------------------------------------------------------------------------------
-- Migrations (src/migrate/migrate.c)
-------------------------------------------------------------------------------

/*
 * The registry: one row per rule, doc_type from_version -> to_version, by
 * declarative steps or by a jsonb -> jsonb function (fn: its qualified
 * signature when registered, for messages; the function itself is pinned
 * by OID, see _migration_pin below: pg_upgrade refuses regprocedure
 * columns). A type's rules
 * form one chain (register_migration keeps it so), so every registered
 * version reaches the newest. A statement trigger tells every backend's
 * cache (migrate.c) when the registry changes.
 */
CREATE TABLE docmodel.migration_rules (
    doc_type      text NOT NULL,
    from_version  docmodel.version NOT NULL,
    to_version    docmodel.version NOT NULL,
    steps         jsonb,
    fn            text,
    registered_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    collection_id integer NOT NULL DEFAULT 0,
    active        boolean NOT NULL DEFAULT true,
    down_steps    jsonb,
    down_fn       text,
    reversible    boolean NOT NULL DEFAULT false,
    lossless      boolean NOT NULL DEFAULT false,
    PRIMARY KEY (doc_type, collection_id, from_version),
    CHECK ((steps IS NULL) <> (fn IS NULL)),
    CHECK (from_version OPERATOR(docmodel.<) to_version)
);
COMMENT ON TABLE docmodel.migration_rules IS
    'docmodel: registered schema migrations, one chain of rules per document type and scope (collection_id 0: global)';
SELECT pg_catalog.pg_extension_config_dump('docmodel.migration_rules', '');
-- Every role that reads or writes documents reads the rules (migrate on read
-- and write); registering them takes the owner's rights.
GRANT SELECT ON docmodel.migration_rules TO PUBLIC;

CREATE FUNCTION docmodel._migration_rules_changed() RETURNS trigger
    AS 'MODULE_PATHNAME', 'migration_rules_changed'
    LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION docmodel._migration_rules_changed() IS
    'docmodel internal: invalidate every backend''s migration cache when the registry changes';
CREATE TRIGGER migration_rules_changed
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON docmodel.migration_rules
    FOR EACH STATEMENT EXECUTE FUNCTION docmodel._migration_rules_changed();

/*
 * Bulk runs of migrate_collection. status is queued (start_migration's,
 * until its worker takes it), running, done, failed or cancelled; the view shows a running row whose run holds no lock (its
 * session crashed or was terminated) as interrupted. Not dumped: it is the
 * state of this cluster's runs, not configuration.
 */
CREATE TABLE docmodel.migration_run (
    run_id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    coll        regclass NOT NULL,
    doc_type    text,
    target      docmodel.version,
    targets     jsonb NOT NULL,
    started_at  timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
    finished_at timestamptz,
    last_key    text,
    docs_done   bigint NOT NULL DEFAULT 0,
    docs_total  bigint,
    status      text NOT NULL DEFAULT 'running'
        CHECK (status IN ('queued', 'running', 'done', 'failed', 'cancelled')),
    error       text
);
COMMENT ON TABLE docmodel.migration_run IS
    'docmodel: state of migrate_collection runs (read docmodel.migration_runs)';

CREATE VIEW docmodel.migration_runs AS
SELECT r.run_id, r.coll, r.doc_type, r.target, r.started_at, r.finished_at,
    r.last_key, r.docs_done, r.docs_total,
    CASE WHEN r.status OPERATOR(pg_catalog.=) 'running' AND NOT EXISTS (
            SELECT FROM pg_catalog.pg_locks l
            WHERE l.locktype OPERATOR(pg_catalog.=) 'advisory'
                AND l.classid OPERATOR(pg_catalog.=) 1835496052::pg_catalog.oid
                AND l.objid OPERATOR(pg_catalog.=) r.coll::pg_catalog.oid
                AND l.objsubid OPERATOR(pg_catalog.=) 2 AND l.granted)
        THEN 'interrupted' ELSE r.status END AS status,
    r.error,
    r.targets OPERATOR(pg_catalog.->>) 'mapping' AS mapping
FROM docmodel.migration_run r;
-- Everyone may read the runs; they are written only by
-- _migration_run_new() and _migration_run_set(), which check UPDATE on the
-- run's collection: whoever may update a collection may run its migration.
GRANT SELECT ON docmodel.migration_run TO PUBLIC;
GRANT SELECT ON docmodel.migration_runs TO PUBLIC;
COMMENT ON VIEW docmodel.migration_runs IS
    'docmodel: every migrate_collection and migrate_tables run: collection, type, target, progress (last key, docs), status, error, the mapping of a migrate_tables run';

CREATE FUNCTION docmodel._migration_run_new(coll regclass, doc_type text,
    target text, targets jsonb) RETURNS bigint
    AS 'MODULE_PATHNAME', 'migration_run_new'
    LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION docmodel._migration_run_new(regclass, text, text, jsonb) IS
    'docmodel internal: record a new run of migrate_collection (42501 without UPDATE on coll)';

CREATE FUNCTION docmodel._migration_run_set(run bigint, status text, last_key text,
    docs_done bigint, docs_total bigint, targets jsonb, error text) RETURNS void
    AS 'MODULE_PATHNAME', 'migration_run_set'
    LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION docmodel._migration_run_set(bigint, text, text, bigint, bigint, jsonb, text) IS
    'docmodel internal: record the state of a run of migrate_collection (42501 without UPDATE on its collection)';

/*
 * A rule's function is pinned by a function docmodel creates per rule in
 * its schema, whose SQL-standard body calls it: the body's dependency makes
 * DROP FUNCTION of the rule's function fail (2BP01) as a view would, and
 * names the function's OID, which is what the rule calls (the text in
 * migration_rules.fn is only for messages). DROP FUNCTION ... CASCADE drops
 * the pin: the rule stays and fails with 42883 until registered again.
 * Such functions are dumped by pg_dump like any other.
 */
CREATE FUNCTION docmodel._migration_fn_name(doc_type text, from_version docmodel.version,
    collection_id integer, down boolean DEFAULT false)
    RETURNS text
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    RETURN CASE WHEN down THEN '_migration_down_' ELSE '_migration_fn_' END
        OPERATOR(pg_catalog.||) pg_catalog.substr(pg_catalog.encode(
        pg_catalog.sha256(pg_catalog.convert_to(doc_type OPERATOR(pg_catalog.||) ' '
            OPERATOR(pg_catalog.||) docmodel.version_text(from_version)
            OPERATOR(pg_catalog.||) CASE WHEN collection_id OPERATOR(pg_catalog.=) 0 THEN ''
                ELSE ' ' OPERATOR(pg_catalog.||) collection_id END, 'UTF8')),
        'hex'), 1, 40);
COMMENT ON FUNCTION docmodel._migration_fn_name(text, docmodel.version, integer, boolean) IS
    'docmodel internal: name of the function pinning the function of a type''s rule from a version (of a collection, collection_id, or global: 0), or (down) its down function';

CREATE FUNCTION docmodel._migration_fn(doc_type text, from_version docmodel.version,
    collection_id integer, down boolean DEFAULT false)
    RETURNS oid
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    BEGIN ATOMIC
    SELECT d.refobjid FROM pg_catalog.pg_depend AS d
    WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_proc'::pg_catalog.regclass
        AND d.objid OPERATOR(pg_catalog.=) pg_catalog.to_regprocedure(pg_catalog.format(
            'docmodel.%I(pg_catalog.jsonb)', docmodel._migration_fn_name(doc_type, from_version,
                collection_id, down)))
        AND d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_proc'::pg_catalog.regclass
        AND d.deptype OPERATOR(pg_catalog.=) 'n';
    END;
COMMENT ON FUNCTION docmodel._migration_fn(text, docmodel.version, integer, boolean) IS
    'docmodel internal: the OID of the function a type''s rule from a version calls (down: its way down; NULL when not pinned)';

CREATE FUNCTION docmodel._migration_pin(doc_type text, from_version docmodel.version,
    to_version docmodel.version, fn regprocedure, collection_id integer,
    down boolean DEFAULT false) RETURNS void
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    name text := docmodel._migration_fn_name(doc_type, from_version, collection_id, down);
    what text := CASE WHEN down THEN 'down function' ELSE 'function' END;
    p record;
BEGIN
    IF to_regprocedure(format('docmodel.%I(jsonb)', name)) IS NOT NULL THEN
        EXECUTE format('DROP FUNCTION docmodel.%I(jsonb)', name);
    END IF;
    IF fn IS NULL THEN
        RETURN;
    END IF;
    SELECT pr.proname, n.nspname INTO p
    FROM pg_proc pr JOIN pg_namespace n ON n.oid = pr.pronamespace
    WHERE pr.oid = fn;
    EXECUTE format('CREATE FUNCTION docmodel.%I(doc jsonb) RETURNS jsonb LANGUAGE sql '
        'BEGIN ATOMIC SELECT %I.%I(doc); END', name, p.nspname, p.proname);
    IF docmodel._migration_fn(doc_type, from_version, collection_id, down) IS DISTINCT FROM fn::oid THEN
        RAISE EXCEPTION USING ERRCODE = '42725',
            MESSAGE = format('migration function %s cannot be called unambiguously by its name', fn),
            DETAIL = format('Type "%s", migration %s to %s.', doc_type, from_version, to_version);
    END IF;
    EXECUTE format('COMMENT ON FUNCTION docmodel.%I(jsonb) IS %L', name,
        format('docmodel: pins %s, the %s of the migration of type "%s" from %s to %s',
            fn, what, doc_type, from_version, to_version));
END
$$;
COMMENT ON FUNCTION docmodel._migration_pin(text, docmodel.version, docmodel.version, regprocedure, integer, boolean) IS
    'docmodel internal: pin the function of a rule, or (down) its down function (or unpin, with fn NULL), so that it cannot be dropped and is called by its OID';

-- Rules deleted (or changed) directly let their functions go.
CREATE FUNCTION docmodel._migration_unpin_orphans() RETURNS trigger
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    f record;
BEGIN
    FOR f IN SELECT p.oid::regprocedure AS pin FROM pg_proc p
        WHERE p.pronamespace = 'docmodel'::regnamespace
            AND (p.proname LIKE '\_migration\_fn\_%' OR p.proname LIKE '\_migration\_down\_%')
            AND p.pronargs = 1
            AND p.proname NOT IN (SELECT docmodel._migration_fn_name(r.doc_type, r.from_version,
                r.collection_id)
                FROM docmodel.migration_rules r
                UNION ALL
                SELECT docmodel._migration_fn_name(r.doc_type, r.from_version,
                    r.collection_id, true)
                FROM docmodel.migration_rules r WHERE r.down_fn IS NOT NULL)
    LOOP
        EXECUTE format('DROP FUNCTION %s', f.pin);
    END LOOP;
    RETURN NULL;
END
$$;
COMMENT ON FUNCTION docmodel._migration_unpin_orphans() IS
    'docmodel internal: statement trigger: drop the pins of functions no rule calls any more';
CREATE TRIGGER migration_rules_unpin
    AFTER UPDATE OR DELETE OR TRUNCATE ON docmodel.migration_rules
    FOR EACH STATEMENT EXECUTE FUNCTION docmodel._migration_unpin_orphans();

CREATE FUNCTION docmodel._check_migration_steps(steps jsonb) RETURNS void
    AS 'MODULE_PATHNAME', 'migration_check_steps'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel._check_migration_steps(jsonb) IS
    'docmodel internal: raise 22023 naming the step index and op when a steps array is not well formed';

-- The document type a registration names: 22004 when NULL, 22023 unless 1
-- to 250 bytes long (register_migration, register_write_rule,
-- register_schema).
CREATE FUNCTION docmodel._check_doc_type(doc_type text) RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF doc_type IS NULL OR doc_type OPERATOR(pg_catalog.=) ''
            OR pg_catalog.octet_length(doc_type) OPERATOR(pg_catalog.>) 250 THEN
        RAISE EXCEPTION USING ERRCODE = CASE WHEN doc_type IS NULL THEN '22004' ELSE '22023' END,
            MESSAGE = pg_catalog.format('invalid document type "%s"', doc_type),
            DETAIL = 'A document type is 1 to 250 bytes long.';
    END IF;
END
$$;
COMMENT ON FUNCTION docmodel._check_doc_type(text) IS
    'docmodel internal: raise 22004 for a NULL document type, 22023 for one that is empty or longer than 250 bytes';

CREATE FUNCTION docmodel._migration_inverse(steps jsonb) RETURNS jsonb
    AS 'MODULE_PATHNAME', 'migration_inverse'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel._migration_inverse(jsonb) IS
    'docmodel internal: the way down of a steps array: {"down": steps or null (one-way), "lossless", "steps": each step''s inverse}';

CREATE FUNCTION docmodel.step_inverses(steps jsonb)
    RETURNS TABLE(step integer, op text, inverse jsonb, lossless boolean, drops text)
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    BEGIN ATOMIC
    SELECT (e OPERATOR(pg_catalog.->>) 'step')::pg_catalog.int4,
        e OPERATOR(pg_catalog.->>) 'op',
        CASE WHEN pg_catalog.jsonb_typeof(e OPERATOR(pg_catalog.->) 'inverse')
            OPERATOR(pg_catalog.=) 'null' THEN NULL ELSE e OPERATOR(pg_catalog.->) 'inverse' END,
        (e OPERATOR(pg_catalog.->>) 'lossless')::pg_catalog.bool,
        e OPERATOR(pg_catalog.->>) 'drops'
    FROM pg_catalog.jsonb_array_elements(
        docmodel._migration_inverse(steps) OPERATOR(pg_catalog.->) 'steps') AS e;
    END;
COMMENT ON FUNCTION docmodel.step_inverses(jsonb) IS
    'docmodel: each step''s way down (NULL: one-way), whether it is lossless, and what it drops';

/*
 * Compatibility modes, as a schema registry checks them: backward (the
 * default: every rule goes up), forward and full (every rule also goes
 * down), none. Kept by pg_dump.
 */
CREATE TABLE docmodel.compatibility (
    doc_type      text NOT NULL,
    collection_id integer NOT NULL DEFAULT 0,
    mode          text NOT NULL CHECK (mode IN ('backward', 'forward', 'full', 'none')),
    PRIMARY KEY (doc_type, collection_id)
);
COMMENT ON TABLE docmodel.compatibility IS
    'docmodel: the compatibility mode register_migration checks a type''s rules against (collection_id 0: global)';
SELECT pg_catalog.pg_extension_config_dump('docmodel.compatibility', '');
GRANT SELECT ON docmodel.compatibility TO PUBLIC;

CREATE FUNCTION docmodel.set_compatibility(doc_type text, mode text, coll regclass DEFAULT NULL)
    RETURNS void
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    scope integer := 0;
    r record;
BEGIN
    PERFORM docmodel._check_doc_type(doc_type);
    IF mode IS NULL OR mode NOT IN ('backward', 'forward', 'full', 'none') THEN
        RAISE EXCEPTION USING ERRCODE = CASE WHEN mode IS NULL THEN '22004' ELSE '22023' END,
            MESSAGE = format('compatibility mode of type "%s" must be backward, forward, full or none, not %s',
                doc_type, coalesce(quote_literal(mode), 'NULL'));
    END IF;
    IF coll IS NOT NULL THEN
        scope := docmodel._require_collection(coll);
    END IF;
    LOCK TABLE docmodel.migration_rules IN SHARE ROW EXCLUSIVE MODE;
    IF mode IN ('forward', 'full') THEN
        SELECT m.from_version, m.to_version INTO r FROM docmodel.migration_rules m
        WHERE m.doc_type = set_compatibility.doc_type AND m.collection_id = scope
            AND NOT m.reversible
        ORDER BY m.from_version LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION USING ERRCODE = '22023',
                MESSAGE = format('type "%s" cannot be %s compatible: its migration from %s to %s is one-way',
                    doc_type, mode, r.from_version, r.to_version),
                HINT = 'Register that rule again with steps that have inverses or with down_fn.';
        END IF;
    END IF;
    INSERT INTO docmodel.compatibility AS c (doc_type, collection_id, mode)
    VALUES (doc_type, scope, mode)
    ON CONFLICT ON CONSTRAINT compatibility_pkey DO UPDATE SET mode = excluded.mode;
END
$$;
COMMENT ON FUNCTION docmodel.set_compatibility(text, text, regclass) IS
    'docmodel: the compatibility mode of a type (backward, forward, full, none), globally or in one collection, checked by register_migration';

CREATE FUNCTION docmodel.register_migration(doc_type text,
    from_version docmodel.version, to_version docmodel.version,
    steps jsonb DEFAULT NULL, fn regprocedure DEFAULT NULL,
    coll regclass DEFAULT NULL, active boolean DEFAULT true,
    down_fn regprocedure DEFAULT NULL) RETURNS void
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn_text text;
    down_text text;
    new_down jsonb;
    is_lossless boolean := false;
    compat text;
    compat_set boolean;
    inv jsonb;
    p record;
    same record;
    first_from docmodel.version;
    last_to docmodel.version;
    scope integer := 0;
    place text := '';
BEGIN
    PERFORM docmodel._check_doc_type(doc_type);
    IF from_version IS NULL OR to_version IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004',
            MESSAGE = 'from_version and to_version are required',
            DETAIL = format('Type "%s".', doc_type);
    END IF;
    IF active IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004',
            MESSAGE = 'active must be true or false',
            DETAIL = format('Type "%s", migration %s to %s.', doc_type, from_version, to_version);
    END IF;
    -- A rule of one collection: it replaces the type's global chain there.
    IF coll IS NOT NULL THEN
        scope := docmodel._require_collection(coll);
        place := format(' in collection %s', coll);
    END IF;
    IF (steps IS NULL) = (fn IS NULL) THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = 'give exactly one of steps and fn',
            DETAIL = format('Type "%s", migration %s to %s.', doc_type, from_version, to_version),
            HINT = 'steps => ''[{"op": ...}]'' for declarative steps, fn => ''my_step(jsonb)'' for a function.';
    END IF;
    IF NOT from_version OPERATOR(docmodel.<) to_version THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('a migration must go to a newer version, not from %s to %s', from_version, to_version),
            DETAIL = format('Type "%s".', doc_type);
    END IF;
    IF steps IS NOT NULL THEN
        PERFORM docmodel._check_migration_steps(steps);
    ELSE
        SELECT pr.pronargs, pr.proargtypes, pr.prorettype, pr.prokind, pr.proretset,
            pr.proname, n.nspname
        INTO p
        FROM pg_proc pr JOIN pg_namespace n ON n.oid = pr.pronamespace
        WHERE pr.oid = fn;
        IF p.prokind <> 'f' OR p.pronargs <> 1 OR p.proargtypes[0] <> 'jsonb'::regtype
            OR p.prorettype <> 'jsonb'::regtype OR p.proretset THEN
            RAISE EXCEPTION USING ERRCODE = '22023',
                MESSAGE = format('migration function %s must take jsonb and return jsonb', fn),
                DETAIL = format('Type "%s", migration %s to %s.', doc_type, from_version, to_version);
        END IF;
        fn_text := format('%I.%I(jsonb)', p.nspname, p.proname);
    END IF;
    -- The way down: down_fn, else the steps' inverses (NULL: one-way).
    IF down_fn IS NOT NULL THEN
        SELECT pr.pronargs, pr.proargtypes, pr.prorettype, pr.prokind, pr.proretset,
            pr.proname, n.nspname
        INTO p
        FROM pg_proc pr JOIN pg_namespace n ON n.oid = pr.pronamespace
        WHERE pr.oid = down_fn;
        IF p.prokind <> 'f' OR p.pronargs <> 1 OR p.proargtypes[0] <> 'jsonb'::regtype
            OR p.prorettype <> 'jsonb'::regtype OR p.proretset THEN
            RAISE EXCEPTION USING ERRCODE = '22023',
                MESSAGE = format('migration function %s must take jsonb and return jsonb', down_fn),
                DETAIL = format('Type "%s", migration %s down to %s.', doc_type, to_version, from_version);
        END IF;
        down_text := format('%I.%I(jsonb)', p.nspname, p.proname);
    ELSIF steps IS NOT NULL THEN
        inv := docmodel._migration_inverse(steps);
        new_down := nullif(inv -> 'down', 'null'::jsonb);
        is_lossless := (inv ->> 'lossless')::boolean;
    END IF;
    -- The compatibility mode: forward and full need a way down.
    compat := (SELECT c.mode FROM docmodel.compatibility c
        WHERE c.doc_type = register_migration.doc_type AND c.collection_id = scope);
    compat_set := compat IS NOT NULL;
    compat := coalesce(compat, 'backward');
    IF compat IN ('forward', 'full') AND new_down IS NULL AND down_text IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('the migration of type "%s" from %s to %s is one-way, and the type is %s compatible%s',
                doc_type, from_version, to_version, compat, place),
            DETAIL = coalesce((SELECT format('Step %s (%s): %s.', i.step, i.op, i.drops)
                FROM docmodel.step_inverses(steps) i WHERE i.inverse IS NULL
                ORDER BY i.step LIMIT 1), 'A function rule goes down only with down_fn.'),
            HINT = 'Give steps that have inverses, or down_fn; or set_compatibility(type, ''backward'').';
    END IF;

    -- One registration at a time, so two cannot fork the chain.
    LOCK TABLE docmodel.migration_rules IN SHARE ROW EXCLUSIVE MODE;
    SELECT r.from_version, r.to_version INTO same FROM docmodel.migration_rules r
    WHERE r.doc_type = register_migration.doc_type AND r.collection_id = scope
        AND r.from_version OPERATOR(docmodel.=) register_migration.from_version;
    IF FOUND THEN
        IF same.to_version OPERATOR(docmodel.=) register_migration.to_version THEN
            -- The same rule registered again replaces its steps (a fix).
            UPDATE docmodel.migration_rules r
            SET steps = register_migration.steps, fn = fn_text, registered_at = now(),
                active = register_migration.active,
                down_steps = new_down, down_fn = down_text,
                reversible = new_down IS NOT NULL OR down_text IS NOT NULL,
                lossless = is_lossless
            WHERE r.doc_type = register_migration.doc_type AND r.collection_id = scope
                AND r.from_version OPERATOR(docmodel.=) register_migration.from_version;
            PERFORM docmodel._migration_pin(doc_type, same.from_version, same.to_version, fn, scope);
            PERFORM docmodel._migration_pin(doc_type, same.from_version, same.to_version,
                down_fn, scope, true);
            IF register_migration.active AND compat_set THEN
                PERFORM docmodel._migration_check_schemas(doc_type, from_version, to_version,
                    steps, scope, compat);
            END IF;
            RETURN;
        END IF;
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('type "%s" already has a migration from version %s%s', doc_type, from_version, place),
            DETAIL = format('It goes to version %s.', same.to_version),
            HINT = 'Register the same from and to versions again to replace its steps.';
    END IF;
    SELECT r.from_version INTO first_from FROM docmodel.migration_rules r
    WHERE r.doc_type = register_migration.doc_type AND r.collection_id = scope
    ORDER BY r.from_version LIMIT 1;
    SELECT r.to_version INTO last_to FROM docmodel.migration_rules r
    WHERE r.doc_type = register_migration.doc_type AND r.collection_id = scope
    ORDER BY r.to_version DESC LIMIT 1;
    IF first_from IS NOT NULL
        AND NOT from_version OPERATOR(docmodel.=) last_to
        AND NOT to_version OPERATOR(docmodel.=) first_from THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('a migration of type "%s" from %s to %s would not extend its chain%s',
                doc_type, from_version, to_version, place),
            DETAIL = format('Type "%s" goes from version %s to %s%s.', doc_type, first_from, last_to, place),
            HINT = format('A new migration starts at %s or ends at %s.', last_to, first_from);
    END IF;
    INSERT INTO docmodel.migration_rules (doc_type, from_version, to_version, steps, fn,
        collection_id, active, down_steps, down_fn, reversible, lossless)
    VALUES (doc_type, from_version, to_version, steps, fn_text, scope, register_migration.active,
        new_down, down_text, new_down IS NOT NULL OR down_text IS NOT NULL, is_lossless);
    PERFORM docmodel._migration_pin(doc_type, from_version, to_version, fn, scope);
    PERFORM docmodel._migration_pin(doc_type, from_version, to_version, down_fn, scope, true);
    -- with a compatibility mode set: both ways against the versions' schemas
    IF register_migration.active AND compat_set THEN
        PERFORM docmodel._migration_check_schemas(doc_type, from_version, to_version,
            steps, scope, compat);
    END IF;
END
$$;
COMMENT ON FUNCTION docmodel.register_migration(text, docmodel.version, docmodel.version, jsonb, regprocedure, regclass, boolean, regprocedure) IS
    'docmodel: register the migration of a document type from one version to the next, by steps or by a jsonb -> jsonb function, with its way down (derived from the steps, or down_fn); of every collection (coll NULL) or of one, active now or not';

-- The collection_id of the rules of coll: 0 (every collection) for NULL,
-- else the id of the collection (42809 unless coll is one).
CREATE FUNCTION docmodel._rule_scope(coll regclass) RETURNS integer
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN CASE WHEN coll IS NULL THEN 0 ELSE docmodel._require_collection(coll) END;
END
$$;
COMMENT ON FUNCTION docmodel._rule_scope(regclass) IS
    'docmodel internal: the collection_id of the migration and write rules of coll (0 for NULL: every collection)';

CREATE FUNCTION docmodel.set_migration_active(doc_type text,
    from_version docmodel.version, active boolean, coll regclass DEFAULT NULL) RETURNS void
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    scope docmodel.migration_rules.collection_id%TYPE;
BEGIN
    IF active IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'active must be true or false';
    END IF;
    scope := docmodel._rule_scope(coll);
    UPDATE docmodel.migration_rules r SET active = set_migration_active.active
    WHERE r.doc_type = set_migration_active.doc_type AND r.collection_id = scope
        AND r.from_version OPERATOR(docmodel.=) set_migration_active.from_version;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = '42704',
            MESSAGE = format('type "%s" has no migration from version %s%s', doc_type, from_version,
                CASE WHEN coll IS NULL THEN '' ELSE format(' in collection %s', coll) END),
            HINT = 'Register it with docmodel.register_migration().';
    END IF;
END
$$;
COMMENT ON FUNCTION docmodel.set_migration_active(text, docmodel.version, boolean, regclass) IS
    'docmodel: switch a registered migration on or off (of every collection, coll NULL, or of one)';

CREATE FUNCTION docmodel.current_version(doc_type text, coll regclass) RETURNS docmodel.version
    AS 'MODULE_PATHNAME', 'migration_current_version'
    LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION docmodel.current_version(text, regclass) IS
    'docmodel: the newest version of a document type in collection coll, by its own active migrations, else the global ones (NULL without migrations)';

CREATE FUNCTION docmodel._migration_target(doc_type text, coll regclass, planned boolean)
    RETURNS docmodel.version
    AS 'MODULE_PATHNAME', 'migration_current_version'
    LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION docmodel._migration_target(text, regclass, boolean) IS
    'docmodel internal: current_version(doc_type, coll), counting inactive migrations too when planned';

CREATE FUNCTION docmodel._migration_steps(doc_type text, version docmodel.version,
    target docmodel.version, coll regclass, planned boolean)
    RETURNS integer
    AS 'MODULE_PATHNAME', 'migration_steps'
    LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION docmodel._migration_steps(text, docmodel.version, docmodel.version, regclass, boolean) IS
    'docmodel internal: _migration_steps by the rules of collection coll (else the global ones), inactive ones too when planned';

/*
 * Write rules: per document type (global, collection_id 0, or of one
 * collection), setter steps the collection trigger applies to every write
 * after migrate-on-write (src/migrate/migrate.c caches them with the migration
 * rules; the same statement trigger tells every backend).
 */
CREATE TABLE docmodel.write_rules (
    doc_type      text NOT NULL,
    collection_id integer NOT NULL DEFAULT 0,
    steps         jsonb NOT NULL,
    registered_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    PRIMARY KEY (doc_type, collection_id)
);
COMMENT ON TABLE docmodel.write_rules IS
    'docmodel: setter steps applied to every write of a document type (collection_id 0: every collection)';
SELECT pg_catalog.pg_extension_config_dump('docmodel.write_rules', '');
GRANT SELECT ON docmodel.write_rules TO PUBLIC;
CREATE TRIGGER write_rules_changed
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON docmodel.write_rules
    FOR EACH STATEMENT EXECUTE FUNCTION docmodel._migration_rules_changed();

CREATE FUNCTION docmodel._check_write_rule_steps(steps jsonb) RETURNS void
    AS 'MODULE_PATHNAME', 'migration_check_write_rule_steps'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel._check_write_rule_steps(jsonb) IS
    'docmodel internal: raise 22023 when a steps array is not well formed or holds a step a write rule may not (not a setter)';

CREATE FUNCTION docmodel.register_write_rule(doc_type text, steps jsonb,
    coll regclass DEFAULT NULL) RETURNS void
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    scope docmodel.write_rules.collection_id%TYPE;
BEGIN
    PERFORM docmodel._check_doc_type(doc_type);
    IF steps IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'steps are required',
            DETAIL = format('Type "%s".', doc_type);
    END IF;
    scope := docmodel._rule_scope(coll);
    PERFORM docmodel._check_write_rule_steps(steps);
    INSERT INTO docmodel.write_rules AS w (doc_type, collection_id, steps)
    VALUES (doc_type, scope, steps)
    ON CONFLICT ON CONSTRAINT write_rules_pkey
    DO UPDATE SET steps = excluded.steps, registered_at = now();
END
$$;
COMMENT ON FUNCTION docmodel.register_write_rule(text, jsonb, regclass) IS
    'docmodel: register (again: replace) the setter steps every write of a document type runs, of every collection (coll NULL) or of one';

CREATE FUNCTION docmodel.drop_write_rule(doc_type text, coll regclass DEFAULT NULL)
    RETURNS boolean
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    scope docmodel.write_rules.collection_id%TYPE := docmodel._rule_scope(coll);
BEGIN
    DELETE FROM docmodel.write_rules AS w
    WHERE w.doc_type = drop_write_rule.doc_type AND w.collection_id = scope;
    RETURN FOUND;
END
$$;
COMMENT ON FUNCTION docmodel.drop_write_rule(text, regclass) IS
    'docmodel: drop the write rule of a document type (of every collection, coll NULL, or of one); false when there is none';

CREATE FUNCTION docmodel.current_version(doc_type text) RETURNS docmodel.version
    AS 'MODULE_PATHNAME', 'migration_current_version'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.current_version(text) IS
    'docmodel: the newest version of a document type that its migrations reach (NULL without migrations)';

CREATE FUNCTION docmodel.migrate(doc jsonb, target docmodel.version DEFAULT NULL)
    RETURNS jsonb
    AS 'MODULE_PATHNAME', 'migration_migrate'
    LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.migrate(jsonb, docmodel.version) IS
    'docmodel: migrate a document to target (default: its type''s current version); a document already there comes back as it is';

CREATE FUNCTION docmodel._migrate_doc(doc jsonb, target docmodel.version, key text)
    RETURNS jsonb
    AS 'MODULE_PATHNAME', 'migration_migrate_doc'
    LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION docmodel._migrate_doc(jsonb, docmodel.version, text) IS
    'docmodel internal: migrate() whose errors name the document''s key, refusing (23514) a result its schema finds invalid';

CREATE FUNCTION docmodel._migration_pending(doc jsonb, doc_type text, target docmodel.version)
    RETURNS boolean
    AS 'MODULE_PATHNAME', 'migration_pending'
    LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION docmodel._migration_pending(jsonb, text, docmodel.version) IS
    'docmodel internal: would migrate() change this document (of this type, to this target)?';

CREATE FUNCTION docmodel._migration_steps(doc_type text, version docmodel.version, target docmodel.version)
    RETURNS integer
    AS 'MODULE_PATHNAME', 'migration_steps'
    LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION docmodel._migration_steps(text, docmodel.version, docmodel.version) IS
    'docmodel internal: how many steps take a document of a type from version (NULL: oldest) to target (NULL: current)';

CREATE FUNCTION docmodel._doc_type(doc jsonb) RETURNS text
    AS 'MODULE_PATHNAME', 'migration_doc_type'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel._doc_type(jsonb) IS
    'docmodel internal: a document''s type field (_type, meta.type or type)';

CREATE FUNCTION docmodel._doc_version(doc jsonb) RETURNS docmodel.version
    AS 'MODULE_PATHNAME', 'migration_doc_version'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel._doc_version(jsonb) IS
    'docmodel internal: a document''s schema version field (_schema, meta.schema or schema)';

CREATE FUNCTION docmodel._migrate_doc(doc jsonb, target docmodel.version, key text, coll regclass)
    RETURNS jsonb
    AS 'MODULE_PATHNAME', 'migration_migrate_doc'
    LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION docmodel._migrate_doc(jsonb, docmodel.version, text, regclass) IS
    'docmodel internal: _migrate_doc of a document of collection coll, by its field names (NULL: any meta style)';

CREATE FUNCTION docmodel.migrate(doc jsonb, target docmodel.version, coll regclass)
    RETURNS jsonb
    AS 'MODULE_PATHNAME', 'migration_migrate'
    LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION docmodel.migrate(jsonb, docmodel.version, regclass) IS
    'docmodel: migrate() of a document of collection coll, its type and version read where coll keeps them (its fields); target NULL: the current version';

CREATE FUNCTION docmodel._migration_pending(doc jsonb, doc_type text, target docmodel.version, coll regclass)
    RETURNS boolean
    AS 'MODULE_PATHNAME', 'migration_pending'
    LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION docmodel._migration_pending(jsonb, text, docmodel.version, regclass) IS
    'docmodel internal: _migration_pending of a document of collection coll, by its field names (NULL: any meta style)';

CREATE FUNCTION docmodel._doc_type(doc jsonb, coll regclass) RETURNS text
    AS 'MODULE_PATHNAME', 'migration_doc_type'
    LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION docmodel._doc_type(jsonb, regclass) IS
    'docmodel internal: a document''s type field in collection coll''s field names (NULL: any meta style)';

CREATE FUNCTION docmodel._doc_version(doc jsonb, coll regclass) RETURNS docmodel.version
    AS 'MODULE_PATHNAME', 'migration_doc_version'
    LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION docmodel._doc_version(jsonb, regclass) IS
    'docmodel internal: a document''s schema version field in collection coll''s field names (NULL: any meta style)';

CREATE FUNCTION docmodel.migration_plan(coll regclass)
    RETURNS TABLE(doc_type text, version docmodel.version, docs bigint,
        target docmodel.version, steps integer)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- a collection's own field names (NULL for another table: any style)
    RETURN QUERY EXECUTE format(
        'SELECT s.t, s.v, s.n, docmodel._migration_target(s.t, $1, true),
            docmodel._migration_steps(s.t, s.v, NULL, $1, true)
        FROM (SELECT docmodel._doc_type(%2$s, $1) AS t,
                docmodel._doc_version(%2$s, $1) AS v, count(*) AS n
            FROM %1$s AS d GROUP BY 1, 2) s
        ORDER BY 1, 2', docmodel._rel_sql(coll), docmodel._document_sql(coll, 'd'))
    USING (SELECT c.coll FROM docmodel.collection_config AS c
        WHERE c.coll = migration_plan.coll);
END
$$;
COMMENT ON FUNCTION docmodel.migration_plan(regclass) IS
    'docmodel: the dry run of migrate_collection: documents per type and version, the target and the steps each needs';

CREATE FUNCTION docmodel._migration_kept(doc jsonb, target docmodel.version, coll regclass)
    RETURNS jsonb
    AS 'MODULE_PATHNAME', 'migration_kept'
    LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION docmodel._migration_kept(jsonb, docmodel.version, regclass) IS
    'docmodel internal: what taking a document of collection coll down to target would keep of it (NULL: nothing)';

CREATE FUNCTION docmodel._migration_plan_to(coll regclass, tgt docmodel.version)
    RETURNS TABLE(doc_type text, version docmodel.version, docs bigint,
        target docmodel.version, steps integer, lossy bigint)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF tgt IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'target is required',
            HINT = 'migration_plan(coll) plans to the current versions.';
    END IF;
    -- the types whose chain holds target; lossy: the documents whose way
    -- down would keep something
    RETURN QUERY EXECUTE format(
        'SELECT s.t, s.v, s.n, $2, docmodel._migration_steps(s.t, s.v, $2, $1, true), s.l
        FROM (SELECT docmodel._doc_type(%2$s, $1) AS t,
                docmodel._doc_version(%2$s, $1) AS v, count(*) AS n,
                count(*) FILTER (WHERE docmodel._migration_kept(%2$s, $2, $1) IS NOT NULL) AS l
            FROM %1$s AS d GROUP BY 1, 2) s
        WHERE EXISTS (SELECT FROM docmodel.migration_rules AS m
                WHERE m.doc_type OPERATOR(pg_catalog.=) s.t
                    AND (m.from_version OPERATOR(docmodel.=) $2
                        OR m.to_version OPERATOR(docmodel.=) $2))
        ORDER BY 1, 2', docmodel._rel_sql(coll), docmodel._document_sql(coll, 'd'))
    USING (SELECT c.coll FROM docmodel.collection_config AS c
        WHERE c.coll = _migration_plan_to.coll), tgt;
END
$$;
COMMENT ON FUNCTION docmodel._migration_plan_to(regclass, docmodel.version) IS
    'docmodel internal: migration_plan(coll, target)';

CREATE FUNCTION docmodel.migration_plan(coll regclass, target docmodel.version)
    RETURNS TABLE(doc_type text, version docmodel.version, docs bigint,
        target docmodel.version, steps integer, lossy bigint)
    LANGUAGE sql STABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    BEGIN ATOMIC
    SELECT p.doc_type, p.version, p.docs, p.target, p.steps, p.lossy
    FROM docmodel._migration_plan_to($1, $2) AS p;
    END;
COMMENT ON FUNCTION docmodel.migration_plan(regclass, docmodel.version) IS
    'docmodel: the dry run of migrate_collection to a target, up or down: documents per type and version, the steps each needs, and how many a way down would keep something of';

/*
 * The bulk run: CALL migrate_collection() is a C procedure (migrate.c) that
 * commits after each batch; the SQL work is in the three functions below
 * (search_path pinned; a procedure with SET could not commit). The lock is
 * a session advisory lock (1835496052, coll oid): a crashed session drops it
 * with its connection.
 */
/*
 * The arguments of a bulk run (migrate_collection, start_migration,
 * migrate_documents), checked: returns the collection when coll is one
 * (for its field names and rules), NULL for another table.
 */
CREATE FUNCTION docmodel._migration_check(coll regclass, doc_type text,
    target docmodel.version, batch_size integer) RETURNS regclass
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    cfg regclass := (SELECT c.coll FROM docmodel.collection_config AS c
        WHERE c.coll = _migration_check.coll);
BEGIN
    IF batch_size IS NULL OR batch_size < 1 THEN
        RAISE EXCEPTION USING ERRCODE = CASE WHEN batch_size IS NULL THEN '22004' ELSE '22023' END,
            MESSAGE = format('batch_size must be at least 1, not %s', batch_size);
    END IF;
    IF coll IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'coll is required';
    END IF;
    IF target IS NOT NULL AND doc_type IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = 'a target version needs a doc_type',
            HINT = 'CALL docmodel.migrate_collection(coll, ''user'', ''2.0'').';
    END IF;
    IF doc_type IS NOT NULL THEN
        IF docmodel._migration_target(doc_type, cfg, true) IS NULL THEN
            RAISE EXCEPTION USING ERRCODE = '42704',
                MESSAGE = format('type "%s" has no migrations', doc_type),
                HINT = 'Register one with docmodel.register_migration().';
        END IF;
        -- raises 42704 when no chain reaches target (either way)
        PERFORM docmodel._migration_steps(doc_type, NULL, target, cfg, true);
        -- A collection's writes take a document to the current version:
        -- a target below it holds only once the rule above is switched off.
        IF cfg IS NOT NULL AND target IS NOT NULL
            AND target OPERATOR(docmodel.<) docmodel.current_version(doc_type, cfg) THEN
            RAISE EXCEPTION USING ERRCODE = '55000',
                MESSAGE = format('version %s of type "%s" is below its current version %s in %s',
                    target, doc_type, docmodel.current_version(doc_type, cfg), coll),
                DETAIL = 'Every write of the collection migrates a document to the current version.',
                HINT = format('To roll back, switch the rule from %s off first: docmodel.set_migration_active(%L, %L, false%s).',
                    target, doc_type, target::text,
                    CASE WHEN EXISTS (SELECT FROM docmodel.migration_rules m
                        WHERE m.doc_type = _migration_check.doc_type
                            AND m.collection_id = (SELECT c.id FROM docmodel.collection_config c
                                WHERE c.coll = cfg))
                    THEN format(', %L', coll::text) ELSE '' END);
        END IF;
    END IF;
    IF (SELECT count(*) FROM pg_attribute a
        WHERE a.attrelid = coll AND NOT a.attisdropped
            AND ((a.attname = 'id' AND a.atttypid = 'text'::regtype)
                OR (a.attname = 'doc' AND a.atttypid = 'jsonb'::regtype))) <> 2 THEN
        RAISE EXCEPTION USING ERRCODE = '42809',
            MESSAGE = format('%s has no columns id text and doc jsonb', coll),
            HINT = 'migrate_collection works on collections, and on any table with those two columns.';
    END IF;

    RETURN cfg;
END
$$;
COMMENT ON FUNCTION docmodel._migration_check(regclass, text, docmodel.version, integer) IS
    'docmodel internal: check the arguments of a bulk run; the collection (NULL for another table)';

CREATE FUNCTION docmodel._migration_start(coll regclass, doc_type text,
    target docmodel.version, batch_size integer) RETURNS bigint
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    k1 constant integer := 1835496052;
    k2 integer;
    run bigint;
    last text;
    done bigint;
    remaining bigint;
    cur_targets jsonb;
    old record;
    -- a collection's own field names and rules (NULL for another table)
    cfg regclass := (SELECT c.coll FROM docmodel.collection_config AS c
        WHERE c.coll = _migration_start.coll);
BEGIN
    cfg := docmodel._migration_check(coll, doc_type, target, batch_size);
    k2 := (coll::oid::int8 - CASE WHEN coll::oid::int8 >= 2147483648 THEN 4294967296 ELSE 0 END)::int4;
    -- A call of this session that was interrupted outside its error handling
    -- may have left the lock held: take it over rather than stack it.
    IF EXISTS (SELECT FROM pg_locks l
            WHERE l.locktype = 'advisory' AND l.classid = k1::oid AND l.objid = coll::oid
                AND l.objsubid = 2 AND l.pid = pg_backend_pid() AND l.granted) THEN
        NULL;
    ELSIF NOT pg_try_advisory_lock(k1, k2) THEN
        RAISE EXCEPTION USING ERRCODE = '55P03',
            MESSAGE = format('a migration of %s is already running', coll),
            HINT = 'Wait for it to finish (see docmodel.migration_runs), then call again.';
    END IF;

    BEGIN
        SELECT jsonb_object_agg(t.d, docmodel.current_version(t.d, cfg)::text) INTO cur_targets
        FROM (SELECT DISTINCT r.doc_type AS d FROM docmodel.migration_rules r) t;
        cur_targets := coalesce(cur_targets, '{}'::jsonb);

        -- Resume the unfinished run with the same arguments, if there is one.
        SELECT r.run_id, r.last_key, r.docs_done, r.targets INTO old
        FROM docmodel.migration_run r
        WHERE r.coll = _migration_start.coll
            AND r.doc_type IS NOT DISTINCT FROM _migration_start.doc_type
            AND ((r.target IS NULL AND _migration_start.target IS NULL)
                OR r.target OPERATOR(docmodel.=) _migration_start.target)
            AND r.status <> 'done'
        ORDER BY r.run_id DESC LIMIT 1;
        IF FOUND THEN
            run := old.run_id;
            done := old.docs_done;
            -- Rules changed since: documents before last_key may be behind.
            IF old.targets = cur_targets THEN
                last := old.last_key;
            END IF;
            RAISE NOTICE 'resuming run % of % after key %', run, coll,
                coalesce(quote_literal(last), '(start)');
        ELSE
            run := docmodel._migration_run_new(coll, doc_type, target::text, cur_targets);
            done := 0;
        END IF;
        IF docmodel._citus_distributed(coll) THEN
            remaining := 0;  -- counted by the first batch, on the shards
        ELSE
            -- a collection's own field names (NULL for another table: any style)
            EXECUTE format('SELECT count(*) FROM %1$s AS d
                WHERE ($1 IS NULL OR id > $1) AND docmodel._migration_pending(%2$s, $2, $3, $4)',
                docmodel._rel_sql(coll), docmodel._document_sql(coll, 'd'))
            INTO remaining USING last, doc_type, target, cfg;
        END IF;
        PERFORM docmodel._migration_run_set(run, 'running', last, done, done + remaining,
            cur_targets, NULL);
    EXCEPTION WHEN query_canceled OR others THEN
        PERFORM pg_advisory_unlock(k1, k2);
        RAISE;
    END;
    RETURN run;
END
$$;
COMMENT ON FUNCTION docmodel._migration_start(regclass, text, docmodel.version, integer) IS
    'docmodel internal: check the arguments of migrate_collection, take its lock, start or resume its run';

CREATE FUNCTION docmodel._migration_batch(run bigint, batch_size integer,
    OUT n bigint, OUT done bigint, OUT total bigint,
    OUT err_state text, OUT err_message text, OUT err_detail text, OUT err_hint text,
    OUT err_context text)
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r docmodel.migration_run;
    cfg regclass;
    batch_end text;
    pending bigint;
    finished boolean;
    ctx text;
    -- the document: for meta_style 'columns', the body with its stamps
    docexpr text;
BEGIN
    SELECT * INTO STRICT r FROM docmodel.migration_run m WHERE m.run_id = run;
    -- a collection's own field names (NULL for another table: any style)
    cfg := (SELECT c.coll FROM docmodel.collection_config AS c WHERE c.coll = r.coll);
    docexpr := docmodel._document_sql(r.coll, 'd');
    done := r.docs_done;
    total := r.docs_total;
    BEGIN
        -- On Citus, a batch per shard, all at once (n NULL: not distributed)
        SELECT c.n, c.pending, c.finished INTO n, pending, finished
        FROM docmodel._citus_migrate_batch(r.coll, r.doc_type, r.target, batch_size, cfg) AS c;
        IF n IS NOT NULL THEN
            done := done + n;
            total := done + pending - n;
            PERFORM docmodel._migration_run_set(run, CASE WHEN finished THEN 'done' ELSE r.status END,
                NULL, done, total, NULL, r.error);
            n := CASE WHEN finished THEN 0 ELSE greatest(n, 1) END;
            RETURN;
        END IF;
        EXECUTE format('SELECT max(id), count(*)
            FROM (SELECT id FROM %1$s AS d
                WHERE ($1 IS NULL OR id > $1) AND docmodel._migration_pending(%2$s, $2, $3, $5)
                ORDER BY id LIMIT $4) b', docmodel._rel_sql(r.coll), docexpr)
        INTO batch_end, n USING r.last_key, r.doc_type, r.target, batch_size, cfg;
        IF n = 0 THEN
            PERFORM docmodel._migration_run_set(run, 'done', r.last_key, done, done,
                NULL, r.error);
            total := done;
            RETURN;
        END IF;
        EXECUTE format('UPDATE %1$s AS d SET doc = docmodel._migrate_doc(%2$s, $3, id, $5)
            WHERE ($1 IS NULL OR id > $1) AND id <= $4
                AND docmodel._migration_pending(%2$s, $2, $3, $5)', docmodel._rel_sql(r.coll), docexpr)
        USING r.last_key, r.doc_type, r.target, batch_end, cfg;
        GET DIAGNOSTICS n = ROW_COUNT;
        done := done + n;
        PERFORM docmodel._migration_run_set(run, r.status, batch_end, done,
            r.docs_total, NULL, r.error);
        -- n = 0 means finished: a batch whose documents were all migrated
        -- meanwhile by their writers still counts as progress
        n := greatest(n, 1);
    EXCEPTION WHEN query_canceled OR others THEN
        -- The batch rolled back; record why, keep what committed.
        GET STACKED DIAGNOSTICS err_state = RETURNED_SQLSTATE, err_message = MESSAGE_TEXT,
            err_detail = PG_EXCEPTION_DETAIL, err_hint = PG_EXCEPTION_HINT,
            ctx = PG_EXCEPTION_CONTEXT;
        -- where in the migration: the lines of docmodel's error context
        SELECT string_agg(l, E'\n') INTO err_context
        FROM regexp_split_to_table(ctx, E'\n') AS l
        WHERE l LIKE 'migration %';
        PERFORM docmodel._migration_run_set(run,
            CASE WHEN err_state = '57014' THEN 'cancelled' ELSE 'failed' END,
            r.last_key, r.docs_done, r.docs_total, NULL,
            err_message || coalesce(' (' || nullif(err_detail, '') || ')', '')
                || coalesce('; ' || err_context, ''));
        n := 0;
    END;
END
$$;
COMMENT ON FUNCTION docmodel._migration_batch(bigint, integer) IS
    'docmodel internal: migrate the next batch of a run (n = 0: finished, or failed with err_state, err_message and where in the migration, err_context)';

CREATE FUNCTION docmodel._migration_unlock(run bigint) RETURNS boolean
LANGUAGE sql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_advisory_unlock(1835496052,
        (r.coll::oid::int8 - CASE WHEN r.coll::oid::int8 >= 2147483648 THEN 4294967296 ELSE 0 END)::int4)
    FROM docmodel.migration_run r WHERE r.run_id = run
$$;
COMMENT ON FUNCTION docmodel._migration_unlock(bigint) IS
    'docmodel internal: release the lock of a run of migrate_collection';

CREATE PROCEDURE docmodel.migrate_collection(coll regclass, doc_type text DEFAULT NULL,
    target docmodel.version DEFAULT NULL, batch_size integer DEFAULT 5000)
    AS 'MODULE_PATHNAME', 'migration_migrate_collection'
    LANGUAGE C;
COMMENT ON PROCEDURE docmodel.migrate_collection(regclass, text, docmodel.version, integer) IS
    'docmodel: migrate every outdated document of a collection, committing batch by batch in key order, resumable; see docmodel.migration_runs';

/*
 * A bulk run started from inside a transaction (a migration tool's): the
 * run is recorded queued in the caller's transaction, and a dynamic
 * background worker (no shared_preload_libraries needed), connected as the
 * caller, waits for that transaction to end, then runs it as
 * migrate_collection would, batch by batch; if the caller's transaction
 * rolls back, the worker finds no run and stops.
 */
CREATE FUNCTION docmodel._migration_launch(run bigint, batch_size integer) RETURNS void
    AS 'MODULE_PATHNAME', 'migration_launch'
    LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION docmodel._migration_launch(bigint, integer) IS
    'docmodel internal: start the background worker that runs a queued migration run as the caller, once the caller''s transaction ends';

CREATE FUNCTION docmodel.start_migration(coll regclass, doc_type text DEFAULT NULL,
    target docmodel.version DEFAULT NULL, batch_size integer DEFAULT 5000) RETURNS bigint
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    cfg regclass := docmodel._migration_check(coll, doc_type, target, batch_size);
    cur_targets jsonb;
    run bigint;
BEGIN
    SELECT jsonb_object_agg(t.d, docmodel.current_version(t.d, cfg)::text) INTO cur_targets
    FROM (SELECT DISTINCT r.doc_type AS d FROM docmodel.migration_rules r) t;
    run := docmodel._migration_run_new(coll, doc_type, target::text, coalesce(cur_targets, '{}'));
    PERFORM docmodel._migration_run_set(run, 'queued', NULL, 0, NULL, NULL, NULL);
    PERFORM docmodel._migration_launch(run, batch_size);
    RETURN run;
END
$$;
COMMENT ON FUNCTION docmodel.start_migration(regclass, text, docmodel.version, integer) IS
    'docmodel: migrate_collection from inside a transaction: the run is queued with the caller''s transaction and run by a background worker as the caller once it commits; returns the run id (see wait_migration, migration_runs)';

CREATE FUNCTION docmodel.wait_migration(run bigint, timeout interval DEFAULT NULL) RETURNS text
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    st text;
    mine boolean;
    deadline timestamptz := clock_timestamp() + timeout;
BEGIN
    IF run IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'run is required';
    END IF;
    SELECT r.xmin::text::bigint = txid_current_if_assigned() % 4294967296 INTO mine
    FROM docmodel.migration_run r WHERE r.run_id = wait_migration.run;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = '42704',
            MESSAGE = format('migration run %s does not exist', run);
    END IF;
    IF mine THEN
        RAISE EXCEPTION USING ERRCODE = '25000',
            MESSAGE = format('migration run %s starts when this transaction commits', run),
            HINT = 'Call wait_migration after the transaction that called start_migration.';
    END IF;
    LOOP
        SELECT m.status INTO st FROM docmodel.migration_runs m WHERE m.run_id = wait_migration.run;
        EXIT WHEN st NOT IN ('queued', 'running') OR clock_timestamp() >= deadline;
        PERFORM pg_sleep(0.05);
    END LOOP;
    RETURN st;
END
$$;
COMMENT ON FUNCTION docmodel.wait_migration(bigint, interval) IS
    'docmodel: wait until a run (of start_migration, migrate_collection or migrate_tables) is no longer queued or running, at most timeout; returns its status';

CREATE FUNCTION docmodel.migrate_documents(coll regclass, doc_type text DEFAULT NULL,
    target docmodel.version DEFAULT NULL) RETURNS bigint
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    cfg regclass := docmodel._migration_check(coll, doc_type, target, 1);
    docexpr text := docmodel._document_sql(coll, 'd');
    n bigint;
BEGIN
    EXECUTE format('UPDATE %1$s AS d SET doc = docmodel._migrate_doc(%2$s, $2, id, $3)
        WHERE docmodel._migration_pending(%2$s, $1, $2, $3)', docmodel._rel_sql(coll), docexpr)
    USING doc_type, target, cfg;
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n;
END
$$;
COMMENT ON FUNCTION docmodel.migrate_documents(regclass, text, docmodel.version) IS
    'docmodel: migrate every outdated document of a collection in one statement of the caller''s transaction (small collections, migration tools); returns how many';

CREATE FUNCTION docmodel.drop_migration(doc_type text, from_version docmodel.version,
    coll regclass DEFAULT NULL) RETURNS boolean
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    scope integer := 0;
    first_from docmodel.version;
    last_from docmodel.version;
BEGIN
    PERFORM docmodel._check_doc_type(doc_type);
    IF from_version IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'from_version is required',
            DETAIL = format('Type "%s".', doc_type);
    END IF;
    IF coll IS NOT NULL THEN
        scope := docmodel._require_collection(coll);
    END IF;
    LOCK TABLE docmodel.migration_rules IN SHARE ROW EXCLUSIVE MODE;
    SELECT r.from_version INTO first_from FROM docmodel.migration_rules r
    WHERE r.doc_type = drop_migration.doc_type AND r.collection_id = scope
    ORDER BY r.from_version LIMIT 1;
    SELECT r.from_version INTO last_from FROM docmodel.migration_rules r
    WHERE r.doc_type = drop_migration.doc_type AND r.collection_id = scope
    ORDER BY r.from_version DESC LIMIT 1;
    IF NOT EXISTS (SELECT FROM docmodel.migration_rules r
        WHERE r.doc_type = drop_migration.doc_type AND r.collection_id = scope
            AND r.from_version OPERATOR(docmodel.=) drop_migration.from_version) THEN
        RETURN false;
    END IF;
    IF NOT from_version OPERATOR(docmodel.=) first_from
        AND NOT from_version OPERATOR(docmodel.=) last_from THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('dropping the migration of type "%s" from %s would break its chain%s',
                doc_type, from_version,
                CASE WHEN coll IS NULL THEN '' ELSE format(' in collection %s', coll) END),
            HINT = 'Drop the chain''s first or last rule.';
    END IF;
    DELETE FROM docmodel.migration_rules r
    WHERE r.doc_type = drop_migration.doc_type AND r.collection_id = scope
        AND r.from_version OPERATOR(docmodel.=) drop_migration.from_version;
    RETURN true;
END
$$;
COMMENT ON FUNCTION docmodel.drop_migration(text, docmodel.version, regclass) IS
    'docmodel: drop the rule of a type from a version (the first or last of its chain), globally or of one collection; false when there is none';

-- (end of migrations)


