-------------------------------------------------------------------------------
-- Scale-out on Citus (src/citus/citus.c)
-------------------------------------------------------------------------------

-- Every node has its own docmodel catalogs; the coordinator's rows are the
-- truth. The statement triggers of docmodel.collection_config and
-- docmodel.migration_rules (and distribute_collection) send each worker with
-- metadata one call of _citus_apply, in the coordinator's transaction
-- (two-phase commit), carrying the configuration of the distributed
-- collections by name (OIDs differ per node) and the migration rules.
CREATE FUNCTION docmodel._citus_push() RETURNS void
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'citus_push';
COMMENT ON FUNCTION docmodel._citus_push() IS
    'internal: send the coordinator''s collection configuration and migration rules to the Citus workers, in this transaction';

-- Runs on a worker. A row or rule it would change needs, of the role Citus
-- connected as, what changing it on the coordinator needs: membership in
-- the collection's owner role, INSERT and DELETE on the rules.
CREATE FUNCTION docmodel._citus_apply(config jsonb, rules jsonb, schemas jsonb,
    write_rules jsonb DEFAULT '[]') RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    c jsonb;
    rel regclass;
    hist regclass;
    ids integer[] := '{}';
    cur record;
BEGIN
    IF pg_catalog.to_regclass('pg_catalog.pg_dist_local_group') IS NULL THEN
        RAISE EXCEPTION 'docmodel._citus_apply runs on Citus workers only'
            USING ERRCODE = 'feature_not_supported';
    END IF;
    IF EXISTS (SELECT FROM pg_catalog.pg_dist_local_group AS g
               WHERE g.groupid OPERATOR(pg_catalog.=) 0) THEN
        RAISE EXCEPTION 'docmodel._citus_apply runs on Citus workers only'
            USING ERRCODE = 'feature_not_supported';
    END IF;
    FOR c IN SELECT e FROM pg_catalog.jsonb_array_elements(config) AS e LOOP
        rel := pg_catalog.to_regclass(c OPERATOR(pg_catalog.->>) 'coll');
        CONTINUE WHEN rel IS NULL;  -- not on this node
        hist := pg_catalog.to_regclass(c OPERATOR(pg_catalog.->>) 'revisions_table');
        ids := ids OPERATOR(pg_catalog.||) (c OPERATOR(pg_catalog.->>) 'id')::integer;
        SELECT k.* INTO cur FROM docmodel.collection_config AS k
            WHERE k.id OPERATOR(pg_catalog.=) (c OPERATOR(pg_catalog.->>) 'id')::integer;
        CONTINUE WHEN FOUND AND cur.coll OPERATOR(pg_catalog.=) rel
            AND cur.doc_type IS NOT DISTINCT FROM (c OPERATOR(pg_catalog.->>) 'doc_type')
            AND cur.meta_style OPERATOR(pg_catalog.=) (c OPERATOR(pg_catalog.->>) 'meta_style')
            AND cur.time_unit OPERATOR(pg_catalog.=) (c OPERATOR(pg_catalog.->>) 'time_unit')
            AND cur.delimiter OPERATOR(pg_catalog.=) (c OPERATOR(pg_catalog.->>) 'delimiter')
            AND cur.revisions OPERATOR(pg_catalog.=) (c OPERATOR(pg_catalog.->>) 'revisions')::integer
            AND cur.revisions_table IS NOT DISTINCT FROM hist
            AND cur.max_ttl OPERATOR(pg_catalog.=) (c OPERATOR(pg_catalog.->>) 'max_ttl')::integer
            AND cur.type_part OPERATOR(pg_catalog.=) (c OPERATOR(pg_catalog.->>) 'type_part')::integer
            AND cur.type_check OPERATOR(pg_catalog.=) (c OPERATOR(pg_catalog.->>) 'type_check')
            AND cur.fields IS NOT DISTINCT FROM NULLIF(c OPERATOR(pg_catalog.->) 'fields', 'null'::jsonb)
            AND cur.types IS NOT DISTINCT FROM (SELECT pg_catalog.array_agg(t.e ORDER BY t.o)
                FROM pg_catalog.jsonb_array_elements_text(NULLIF(c OPERATOR(pg_catalog.->) 'types', 'null'::jsonb))
                WITH ORDINALITY AS t(e, o));
        -- The history table it names too, by OID: the trigger writes and
        -- prunes revisions there without further checks.
        IF hist IS NOT NULL
           AND NOT pg_catalog.pg_has_role(SESSION_USER, (SELECT r.relowner FROM pg_catalog.pg_class AS r
                                          WHERE r.oid OPERATOR(pg_catalog.=) hist), 'USAGE') THEN
            RAISE EXCEPTION 'must be owner of table %', hist
                USING ERRCODE = 'insufficient_privilege',
                      DETAIL = pg_catalog.format('Collection %s names it as its revisions table.', rel);
        END IF;
        -- the row it replaces too (same id or same table)
        IF NOT pg_catalog.pg_has_role(SESSION_USER, (SELECT r.relowner FROM pg_catalog.pg_class AS r
                                       WHERE r.oid OPERATOR(pg_catalog.=) rel), 'USAGE')
           OR EXISTS (SELECT FROM docmodel.collection_config AS k
                      JOIN pg_catalog.pg_class AS r ON r.oid OPERATOR(pg_catalog.=) k.coll
                      WHERE k.id OPERATOR(pg_catalog.=) (c OPERATOR(pg_catalog.->>) 'id')::integer
                        AND NOT pg_catalog.pg_has_role(SESSION_USER, r.relowner, 'USAGE')) THEN
            RAISE EXCEPTION 'must be owner of table %', rel
                USING ERRCODE = 'insufficient_privilege',
                      DETAIL = 'Changing the configuration of a collection takes its ownership.';
        END IF;
        DELETE FROM docmodel.collection_config AS k
            WHERE k.id OPERATOR(pg_catalog.=) (c OPERATOR(pg_catalog.->>) 'id')::integer
               OR k.coll OPERATOR(pg_catalog.=) rel;
        INSERT INTO docmodel.collection_config (id, coll, doc_type, meta_style, time_unit,
                delimiter, revisions, revisions_table, max_ttl, type_part, type_check, fields, types)
            VALUES ((c OPERATOR(pg_catalog.->>) 'id')::integer, rel,
                (c OPERATOR(pg_catalog.->>) 'doc_type'), (c OPERATOR(pg_catalog.->>) 'meta_style'),
                (c OPERATOR(pg_catalog.->>) 'time_unit'), (c OPERATOR(pg_catalog.->>) 'delimiter'),
                (c OPERATOR(pg_catalog.->>) 'revisions')::integer, hist,
                (c OPERATOR(pg_catalog.->>) 'max_ttl')::integer,
                (c OPERATOR(pg_catalog.->>) 'type_part')::integer,
                (c OPERATOR(pg_catalog.->>) 'type_check'),
                NULLIF(c OPERATOR(pg_catalog.->) 'fields', 'null'::jsonb),
                (SELECT pg_catalog.array_agg(t.e ORDER BY t.o)
                FROM pg_catalog.jsonb_array_elements_text(NULLIF(c OPERATOR(pg_catalog.->) 'types', 'null'::jsonb))
                WITH ORDINALITY AS t(e, o)));
    END LOOP;
    -- Distributed collections the coordinator no longer lists, and those
    -- whose table is gone here (undistributed since).
    FOR cur IN SELECT k.id, k.coll FROM docmodel.collection_config AS k
               WHERE NOT k.id OPERATOR(pg_catalog.=) ANY (ids)
                 AND (docmodel._citus_distributed(k.coll)
                      OR NOT EXISTS (SELECT FROM pg_catalog.pg_class AS r
                                     WHERE r.oid OPERATOR(pg_catalog.=) k.coll)) LOOP
        IF NOT pg_catalog.pg_has_role(SESSION_USER, (SELECT r.relowner FROM pg_catalog.pg_class AS r
                                       WHERE r.oid OPERATOR(pg_catalog.=) cur.coll), 'USAGE') THEN
            RAISE EXCEPTION 'must be owner of table %', cur.coll
                USING ERRCODE = 'insufficient_privilege',
                      DETAIL = 'Changing the configuration of a collection takes its ownership.';
        END IF;
        DELETE FROM docmodel.collection_config AS k WHERE k.id OPERATOR(pg_catalog.=) cur.id;
    END LOOP;
    -- Rules by steps only (a rule's function is the coordinator's).
    IF (SELECT COALESCE(pg_catalog.jsonb_agg(pg_catalog.to_jsonb(m)
                ORDER BY m.doc_type, m.collection_id, m.from_version), '[]')
        FROM docmodel.migration_rules AS m) IS DISTINCT FROM rules THEN
        IF NOT pg_catalog.has_table_privilege(SESSION_USER, 'docmodel.migration_rules',
                                              'INSERT, DELETE') THEN
            RAISE EXCEPTION 'permission denied for table migration_rules'
                USING ERRCODE = 'insufficient_privilege';
        END IF;
        -- Without the rules' triggers: functions pinned here are Citus's to
        -- drop (from the coordinator), not this node's.
        PERFORM pg_catalog.set_config('session_replication_role', 'replica', true);
        DELETE FROM docmodel.migration_rules;
        INSERT INTO docmodel.migration_rules
            SELECT * FROM pg_catalog.jsonb_populate_recordset(NULL::docmodel.migration_rules, rules);
        PERFORM pg_catalog.set_config('session_replication_role', 'origin', true);
        -- An empty INSERT fires the statement trigger that tells every
        -- backend's migration cache.
        INSERT INTO docmodel.migration_rules SELECT * FROM docmodel.migration_rules WHERE false;
    END IF;
    -- The registered schemas the shards' triggers validate writes with
    -- (their statement trigger tells every backend).
    IF (SELECT COALESCE(pg_catalog.jsonb_agg(pg_catalog.to_jsonb(s)
                ORDER BY s.doc_type, s.version), '[]')
        FROM docmodel.schemas AS s) IS DISTINCT FROM schemas THEN
        IF NOT pg_catalog.has_table_privilege(SESSION_USER, 'docmodel.schemas',
                                              'INSERT, DELETE') THEN
            RAISE EXCEPTION 'permission denied for table schemas'
                USING ERRCODE = 'insufficient_privilege';
        END IF;
        DELETE FROM docmodel.schemas;
        INSERT INTO docmodel.schemas
            SELECT * FROM pg_catalog.jsonb_populate_recordset(NULL::docmodel.schemas, schemas);
    END IF;
    -- The write rules the shards' triggers apply (their statement trigger
    -- tells every backend).
    IF (SELECT COALESCE(pg_catalog.jsonb_agg(pg_catalog.to_jsonb(w)
                ORDER BY w.doc_type, w.collection_id), '[]')
        FROM docmodel.write_rules AS w) IS DISTINCT FROM write_rules THEN
        IF NOT pg_catalog.has_table_privilege(SESSION_USER, 'docmodel.write_rules',
                                              'INSERT, DELETE') THEN
            RAISE EXCEPTION 'permission denied for table write_rules'
                USING ERRCODE = 'insufficient_privilege';
        END IF;
        DELETE FROM docmodel.write_rules;
        INSERT INTO docmodel.write_rules
            SELECT * FROM pg_catalog.jsonb_populate_recordset(NULL::docmodel.write_rules, write_rules);
    END IF;
END
$$;
REVOKE ALL ON FUNCTION docmodel._citus_apply(jsonb, jsonb, jsonb, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION docmodel._citus_apply(jsonb, jsonb, jsonb, jsonb) TO PUBLIC;
COMMENT ON FUNCTION docmodel._citus_apply(jsonb, jsonb, jsonb, jsonb) IS
    'internal: on a Citus worker, take the coordinator''s configuration of distributed collections and its migration rules';

-- The checks both functions below share: Citus is there, this is the
-- coordinator, coll is a collection the caller owns. Returns its history.
CREATE FUNCTION docmodel._citus_collection(coll regclass, what text) RETURNS regclass
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    hist regclass;
BEGIN
    IF pg_catalog.to_regclass('pg_catalog.pg_dist_partition') IS NULL THEN
        RAISE EXCEPTION 'cannot %: Citus is not installed', what
            USING ERRCODE = 'feature_not_supported',
                  DETAIL = pg_catalog.format('Collection "%s" stays on this server.', coll),
                  HINT = 'Install Citus, add it to shared_preload_libraries and CREATE EXTENSION citus on every node (README, "Scale-out").';
    END IF;
    hist := docmodel._collection_history($1);
    IF NOT pg_catalog.pg_has_role((SELECT r.relowner FROM pg_catalog.pg_class AS r
                                   WHERE r.oid OPERATOR(pg_catalog.=) coll), 'USAGE') THEN
        RAISE EXCEPTION 'must be owner of table %', coll
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = 'Changing the configuration of a collection takes its ownership.';
    END IF;
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_dist_local_group AS g
                   WHERE g.groupid OPERATOR(pg_catalog.=) 0) THEN
        RAISE EXCEPTION 'cannot % on a Citus worker', what
            USING ERRCODE = 'feature_not_supported',
                  HINT = 'Call it on the coordinator.';
    END IF;
    IF hist IS NOT NULL AND NOT EXISTS (SELECT FROM pg_catalog.pg_class AS r
                                        WHERE r.oid OPERATOR(pg_catalog.=) hist) THEN
        hist := NULL;
    END IF;
    RETURN hist;
END
$$;
COMMENT ON FUNCTION docmodel._citus_collection(regclass, text) IS
    'internal: check that Citus is installed, this is its coordinator and the caller owns collection coll; return its revisions table';

CREATE FUNCTION docmodel.distribute_collection(coll regclass, shard_count integer DEFAULT NULL)
    RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    SET client_min_messages = warning  -- (Citus's notices of its copy)
    AS $$
DECLARE
    hist regclass := docmodel._citus_collection(coll, 'distribute a collection');
    cid integer;
    fn text;
    tg name;
    off name[] := '{}';
BEGIN
    IF shard_count IS NOT NULL AND shard_count OPERATOR(pg_catalog.<) 1 THEN
        RAISE EXCEPTION 'invalid shard count: %', shard_count
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Give a positive number of shards, or NULL for citus.shard_count.';
    END IF;
    -- meta_style 'columns': writer ids are this node's (docmodel.writers)
    -- and a shard moves between nodes, so the shards keep the writers'
    -- names in the body and their columns null (the trigger writes them so
    -- there); the rows and revisions already here are converted before
    -- they are copied.
    SELECT c.id INTO cid FROM docmodel.collection_config AS c
        WHERE c.coll OPERATOR(pg_catalog.=) $1
          AND c.meta_style OPERATOR(pg_catalog.=) 'columns';
    -- A rule's function is this node's; the workers would not find it.
    SELECT pg_catalog.format('type "%s" from %s', m.doc_type, m.from_version) INTO fn
        FROM docmodel.migration_rules AS m WHERE m.fn IS NOT NULL OR m.down_fn IS NOT NULL LIMIT 1;
    IF fn IS NOT NULL THEN
        RAISE EXCEPTION 'cannot distribute collection "%": a migration rule calls a function', coll
            USING ERRCODE = 'feature_not_supported',
                  DETAIL = pg_catalog.format('The rule of %s runs a function, which the workers do not have.', fn),
                  HINT = 'Register the migration with steps instead.';
    END IF;
    -- Lookups and projections write across shards or read transition
    -- tables: neither can run on the shards.
    SELECT g.tgname INTO tg FROM pg_catalog.pg_trigger AS g
        WHERE g.tgrelid OPERATOR(pg_catalog.=) coll
          AND g.tgname OPERATOR(pg_catalog.~~) 'docmodel\_lookup\_%' LIMIT 1;
    IF tg IS NOT NULL THEN
        RAISE EXCEPTION 'cannot distribute collection "%": it has a lookup', coll
            USING ERRCODE = 'feature_not_supported',
                  DETAIL = pg_catalog.format('Lookup trigger %s writes documents under other keys, which live on other shards.', tg),
                  HINT = 'Drop the lookup (docmodel.drop_lookup) first; index the value with a secondary index instead.';
    END IF;
    SELECT p.mapping INTO fn FROM docmodel.projections AS p
        WHERE p.coll OPERATOR(pg_catalog.=) distribute_collection.coll LIMIT 1;
    IF fn IS NOT NULL THEN
        RAISE EXCEPTION 'cannot distribute collection "%": mapping "%" is projected onto it', coll, fn
            USING ERRCODE = 'feature_not_supported',
                  DETAIL = 'The projection''s triggers read transition tables, which Citus cannot send to the workers.',
                  HINT = 'Stop the projection (docmodel.stop_projection) first; load with docmodel.migrate_tables().';
    END IF;
    -- The collection's triggers go onto its shards.
    PERFORM pg_catalog.set_config('citus.enable_unsafe_triggers', 'on', true);
    IF NOT docmodel._citus_distributed(coll) THEN
        -- The documents already there are copied into the shards as they
        -- are: docmodel's triggers are off for the copy (this transaction
        -- holds the table), so that nothing is stamped, checked or recorded
        -- again, and on again after it, on the shards too.
        FOR tg IN SELECT g.tgname FROM pg_catalog.pg_trigger AS g
                  WHERE g.tgrelid OPERATOR(pg_catalog.=) coll AND NOT g.tgisinternal
                    AND g.tgenabled OPERATOR(pg_catalog.<>) 'D'
                    AND g.tgname OPERATOR(pg_catalog.~~) 'docmodel\_%' LOOP
            EXECUTE pg_catalog.format('ALTER TABLE %s DISABLE TRIGGER %I', docmodel._rel_sql(coll), tg);
            off := off OPERATOR(pg_catalog.||) tg;
        END LOOP;
        IF cid IS NOT NULL THEN
            EXECUTE pg_catalog.format('UPDATE %s AS c SET doc = docmodel._writers_in_body(%s, '
                'c.id, c.doc, c.created_by, c.modified_by), created_by = NULL, modified_by = NULL '
                'WHERE c.ver IS NOT NULL AND (c.created_by IS NOT NULL OR c.modified_by IS NOT NULL)',
                docmodel._rel_sql(coll), cid);
        END IF;
        PERFORM pg_catalog.create_distributed_table(coll, 'id', shard_count => shard_count);
        -- (the copied rows would stay on the coordinator's disk, unseen)
        PERFORM pg_catalog.truncate_local_data_after_distributing_table(coll);
        FOREACH tg IN ARRAY off LOOP
            EXECUTE pg_catalog.format('ALTER TABLE %s ENABLE TRIGGER %I', docmodel._rel_sql(coll), tg);
        END LOOP;
    END IF;
    -- History next to its document: the same shards of the key space.
    IF hist IS NOT NULL AND NOT docmodel._citus_distributed(hist) THEN
        IF cid IS NOT NULL THEN
            EXECUTE pg_catalog.format('UPDATE %s AS r SET doc = docmodel._writers_in_body(%s, '
                'r.id, r.doc, r.created_by, r.modified_by), created_by = NULL, modified_by = NULL '
                'WHERE r.doc IS NOT NULL AND (r.created_by IS NOT NULL OR r.modified_by IS NOT NULL)',
                docmodel._rel_sql(hist), cid);
        END IF;
        PERFORM pg_catalog.create_distributed_table(hist, 'id', colocate_with => coll::text);
        PERFORM pg_catalog.truncate_local_data_after_distributing_table(hist);
    END IF;
    PERFORM docmodel._citus_push();
END
$$;
COMMENT ON FUNCTION docmodel.distribute_collection(regclass, integer) IS
    'hash-distribute a collection on id over the Citus workers, its revisions table colocated (Citus coordinator only)';

CREATE FUNCTION docmodel.undistribute_collection(coll regclass) RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    hist regclass := docmodel._citus_collection(coll, 'undistribute a collection');
    name text := coll::text;
    hname text := hist::text;
    cfg record;
    cid integer;
    t record;
BEGIN
    IF NOT docmodel._citus_distributed(coll) THEN
        RAISE EXCEPTION 'collection "%" is not distributed', coll
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = 'Distribute it with docmodel.distribute_collection().';
    END IF;
    SELECT c.* INTO cfg FROM docmodel.collection_config AS c
        WHERE c.coll OPERATOR(pg_catalog.=) $1;
    PERFORM pg_catalog.set_config('citus.enable_unsafe_triggers', 'on', true);
    -- Citus copies each table into a new one (new OIDs, same names).
    IF hist IS NOT NULL AND docmodel._citus_distributed(hist) THEN
        PERFORM pg_catalog.undistribute_table(hist);
    END IF;
    PERFORM pg_catalog.undistribute_table(coll);
    coll := name::regclass;
    hist := pg_catalog.to_regclass(hname);
    -- The new table gets a configuration of its own (the old row names the
    -- dropped table), and its triggers name it.
    cid := docmodel._config_create(coll, cfg.doc_type, cfg.meta_style, cfg.time_unit, cfg.delimiter);
    IF hist IS NOT NULL THEN
        PERFORM docmodel._config_set_revisions(coll, cfg.revisions, hist);
    END IF;
    IF cfg.max_ttl OPERATOR(pg_catalog.>) 0 THEN
        PERFORM docmodel._config_set_max_ttl(coll, cfg.max_ttl);
    END IF;
    PERFORM docmodel._config_set_layout(coll, cfg.type_part, cfg.type_check, cfg.fields, cfg.types);
    -- the documents view Citus made anew with the table
    PERFORM docmodel._documents_view(coll);
    FOR t IN SELECT g.tgname, pg_catalog.pg_get_triggerdef(g.oid) AS def
             FROM pg_catalog.pg_trigger AS g
             WHERE g.tgrelid OPERATOR(pg_catalog.=) coll
               AND g.tgfoid OPERATOR(pg_catalog.=) 'docmodel.collection_trigger()'::pg_catalog.regprocedure LOOP
        EXECUTE pg_catalog.format('DROP TRIGGER %I ON %s', t.tgname, docmodel._rel_sql(coll));
        EXECUTE pg_catalog.replace(t.def, pg_catalog.format('collection_trigger(''%s'')', cfg.id),
                                   pg_catalog.format('collection_trigger(''%s'')', cid));
    END LOOP;
    PERFORM docmodel._citus_push();
END
$$;
COMMENT ON FUNCTION docmodel.undistribute_collection(regclass) IS
    'bring a distributed collection and its revisions table back onto the coordinator (Citus coordinator only)';

-- Whether coll is a Citus table (false without Citus).
CREATE FUNCTION docmodel._citus_distributed(coll regclass) RETURNS boolean
    LANGUAGE plpgsql STABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF pg_catalog.to_regclass('pg_catalog.pg_dist_partition') IS NULL THEN
        RETURN false;  -- (a separate test: the query below needs Citus)
    END IF;
    RETURN EXISTS (SELECT FROM pg_catalog.pg_dist_partition AS p
                   WHERE p.logicalrelid OPERATOR(pg_catalog.=) coll);
END
$$;
COMMENT ON FUNCTION docmodel._citus_distributed(regclass) IS
    'internal: whether a table is distributed by Citus (false without Citus)';

-- One batch of migrate_collection on a distributed collection: Citus
-- refuses the batch's UPDATE through the coordinator (_migrate_doc is
-- STABLE and reads the row), so every shard runs its own batch on its
-- worker, all at once: up to batch_size of its outdated documents, its
-- part committing there (migrating is idempotent: the next batch, or a
-- rerun, finds those documents done). n: documents migrated (NULL when
-- coll is not distributed); pending: outdated before the batch; finished:
-- no shard has any left. cfg: the collection, whose field names the
-- workers know by its name (NULL for another table).
CREATE FUNCTION docmodel._citus_migrate_batch(coll regclass, doc_type text,
    target docmodel.version, batch_size integer, cfg regclass,
    OUT n bigint, OUT pending bigint, OUT finished boolean)
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    q text;
    s record;
    -- the document: for meta_style 'columns', the body with its stamps
    -- (_document by the configuration id, which the workers share)
    d text := docmodel._document_sql(coll, 's');
BEGIN
    IF NOT docmodel._citus_distributed(coll) THEN
        RETURN;
    END IF;
    -- A shard whose statistics say it holds at most batch_size documents
    -- migrates all its outdated ones in one UPDATE (as fast as the
    -- hand-written one); a larger one picks batch_size of them first.
    q := pg_catalog.format('WITH small AS (SELECT c.reltuples OPERATOR(pg_catalog.>=) 0 '
        'AND c.reltuples OPERATOR(pg_catalog.<=) %4$s AS yes FROM pg_catalog.pg_class AS c '
        'WHERE c.oid OPERATOR(pg_catalog.=) %%1$L::pg_catalog.regclass), '
        'w AS (UPDATE %%1$s AS s SET doc = docmodel._migrate_doc(%5$s, %2$L::docmodel.version, s.id, %3$L::pg_catalog.regclass) '
        'WHERE (SELECT yes FROM small) AND docmodel._migration_pending(%5$s, %1$L::text, %2$L::docmodel.version, %3$L::pg_catalog.regclass) RETURNING 1), '
        'p AS MATERIALIZED (SELECT s.id FROM %%1$s AS s WHERE NOT (SELECT yes FROM small) '
        'AND docmodel._migration_pending(%5$s, %1$L::text, %2$L::docmodel.version, %3$L::pg_catalog.regclass)), '
        'u AS (UPDATE %%1$s AS s SET doc = docmodel._migrate_doc(%5$s, %2$L::docmodel.version, s.id, %3$L::pg_catalog.regclass) '
        'FROM (SELECT id FROM p LIMIT %4$s) AS b WHERE s.id OPERATOR(pg_catalog.=) b.id RETURNING 1), '
        'n AS (SELECT (SELECT pg_catalog.count(*) FROM w) AS w, (SELECT pg_catalog.count(*) FROM u) AS u, '
        '(SELECT pg_catalog.count(*) FROM p) AS p) '
        'SELECT (n.w OPERATOR(pg_catalog.+) n.u)::pg_catalog.text OPERATOR(pg_catalog.||) '' '' '
        'OPERATOR(pg_catalog.||) (n.w OPERATOR(pg_catalog.+) n.p)::pg_catalog.text FROM n',
        doc_type, target, cfg::pg_catalog.text, batch_size, d);
    n := 0;
    pending := 0;
    finished := true;
    FOR s IN SELECT * FROM pg_catalog.run_command_on_shards(coll, q) LOOP
        IF NOT s.success THEN
            RAISE EXCEPTION '%', pg_catalog.regexp_replace(s.result, '^ERROR:  ', '')
                USING ERRCODE = 'data_exception',
                      DETAIL = pg_catalog.format('Shard %s of collection "%s".', s.shardid, coll);
        END IF;
        n := n OPERATOR(pg_catalog.+) pg_catalog.split_part(s.result, ' ', 1)::bigint;
        pending := pending OPERATOR(pg_catalog.+) pg_catalog.split_part(s.result, ' ', 2)::bigint;
        IF pg_catalog.split_part(s.result, ' ', 2)::bigint OPERATOR(pg_catalog.>) batch_size THEN
            finished := false;
        END IF;
    END LOOP;
END
$$;
COMMENT ON FUNCTION docmodel._citus_migrate_batch(regclass, text, docmodel.version, integer, regclass) IS
    'internal: migrate one batch of a run on every shard of a distributed collection at once (n NULL when it is not distributed)';

-- (end of scale-out on Citus)


