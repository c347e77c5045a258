-- docmodel 0.1.0 -> 0.2.0 (ALTER EXTENSION docmodel UPDATE TO '0.2.0').
-- Every change to SQL objects since 0.1.0 goes both into sql/docmodel.sql (the fresh 0.2.0
-- install) and here; test/upgrade checks that both give the same objects.
\echo Use "ALTER EXTENSION docmodel UPDATE TO '0.2.0'" to load this file. \quit

-------------------------------------------------------------------------------
-- Issue 18, revisions integrity: derived table names that fit NAMEDATALEN
-- (_derived_name, used by set_revisions), set_revisions taking a free name
-- instead of refusing a taken one, drop_collection locking the collection
-- before its history table.
-------------------------------------------------------------------------------

CREATE FUNCTION docmodel._derived_name(nsp regnamespace, base text, label text)
    RETURNS name
    LANGUAGE c STABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', '_derived_name';
COMMENT ON FUNCTION docmodel._derived_name(regnamespace, text, text) IS
    'internal: a free name base_label in nsp, base cut to fit NAMEDATALEN, a number added to label when taken';

CREATE OR REPLACE FUNCTION docmodel.set_revisions(coll regclass, keep integer)
    RETURNS regclass
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    cid integer;
    hist regclass;
    nspid oid;
    base name;
    owner name;
    histname name;
BEGIN
    IF keep IS NULL OR keep OPERATOR(pg_catalog.<) 0 THEN
        RAISE EXCEPTION 'invalid number of revisions to keep: %', coalesce(keep::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = pg_catalog.format('Collection "%s" was given keep => %s.', $1, coalesce(keep::text, 'NULL')),
                  HINT = 'Give the number of revisions to keep per document, 0 to turn history off.';
    END IF;
    SELECT c.id, c.revisions_table INTO cid, hist
        FROM docmodel.collection_config AS c
        WHERE c.coll OPERATOR(pg_catalog.=) $1 FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION '"%" is not a docmodel collection', $1
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Create collections with docmodel.create_collection().';
    END IF;
    -- A history table the user dropped is forgotten (and made again below).
    IF hist IS NOT NULL AND NOT EXISTS (SELECT FROM pg_catalog.pg_class AS r
                                        WHERE r.oid OPERATOR(pg_catalog.=) hist) THEN
        hist := NULL;
    END IF;
    IF keep OPERATOR(pg_catalog.>) 0 AND hist IS NULL THEN
        SELECT r.relnamespace, r.relname, pg_catalog.pg_get_userbyid(r.relowner)
            INTO nspid, base, owner
            FROM pg_catalog.pg_class AS r
            WHERE r.oid OPERATOR(pg_catalog.=) $1;
        -- The history a plain DROP TABLE of a collection of this name left
        -- behind is taken over (its numbering continues): <name>_revisions,
        -- uncut, named by the configuration of a dropped table.
        SELECT h.oid INTO hist FROM pg_catalog.pg_class AS h
            WHERE h.relnamespace OPERATOR(pg_catalog.=) nspid
              AND h.relname OPERATOR(pg_catalog.=) (base::text OPERATOR(pg_catalog.||) '_revisions');
        IF hist IS NOT NULL THEN
            DELETE FROM docmodel.collection_config AS c
                WHERE c.revisions_table OPERATOR(pg_catalog.=) hist
                  AND NOT EXISTS (SELECT FROM pg_catalog.pg_class AS r
                                  WHERE r.oid OPERATOR(pg_catalog.=) c.coll);
            IF NOT FOUND THEN
                hist := NULL;
            END IF;
        END IF;
        IF hist IS NULL THEN
            -- A free name that fits: <name>_revisions, the name cut to fit,
            -- a number added when taken.
            histname := docmodel._derived_name(nspid::regnamespace, base, 'revisions');
            EXECUTE pg_catalog.format('CREATE TABLE %s.%I (id text COLLATE "C" NOT NULL, '
                'ver integer NOT NULL, op text NOT NULL, changed_at timestamptz NOT NULL, '
                'changed_by text, doc jsonb, PRIMARY KEY (id, ver))',
                nspid::regnamespace, histname);
            SELECT h.oid INTO hist FROM pg_catalog.pg_class AS h
                WHERE h.relnamespace OPERATOR(pg_catalog.=) nspid
                  AND h.relname OPERATOR(pg_catalog.=) histname;
            IF owner OPERATOR(pg_catalog.<>) CURRENT_USER THEN
                EXECUTE pg_catalog.format('ALTER TABLE %s OWNER TO %I', hist, owner);
            END IF;
            EXECUTE pg_catalog.format('COMMENT ON TABLE %s IS %L', hist,
                pg_catalog.format('docmodel revisions of collection %s', $1));
        END IF;
    END IF;
    UPDATE docmodel.collection_config AS c
        SET revisions = keep, revisions_table = hist
        WHERE c.id OPERATOR(pg_catalog.=) cid;
    IF EXISTS (SELECT FROM pg_catalog.pg_trigger AS g WHERE g.tgrelid OPERATOR(pg_catalog.=) $1
               AND g.tgname OPERATOR(pg_catalog.=) 'docmodel_revisions') THEN
        EXECUTE pg_catalog.format('DROP TRIGGER docmodel_revisions ON %s', $1);
    END IF;
    IF EXISTS (SELECT FROM pg_catalog.pg_trigger AS g WHERE g.tgrelid OPERATOR(pg_catalog.=) $1
               AND g.tgname OPERATOR(pg_catalog.=) 'docmodel_revisions_truncate') THEN
        EXECUTE pg_catalog.format('DROP TRIGGER docmodel_revisions_truncate ON %s', $1);
    END IF;
    IF keep OPERATOR(pg_catalog.>) 0 THEN
        EXECUTE pg_catalog.format('CREATE TRIGGER docmodel_revisions '
            'AFTER UPDATE OR DELETE ON %s FOR EACH ROW '
            'EXECUTE FUNCTION docmodel.collection_trigger(%s)', $1, cid);
        EXECUTE pg_catalog.format('CREATE TRIGGER docmodel_revisions_truncate '
            'BEFORE TRUNCATE ON %s FOR EACH STATEMENT '
            'EXECUTE FUNCTION docmodel.collection_trigger(%s)', $1, cid);
        -- Keep at most keep revisions per key from now on.
        EXECUTE pg_catalog.format('DELETE FROM %1$s AS r USING '
            '(SELECT h.id, pg_catalog.max(h.ver) AS newest FROM %1$s AS h GROUP BY h.id) AS n '
            'WHERE r.id OPERATOR(pg_catalog.=) n.id '
            'AND r.ver OPERATOR(pg_catalog.<=) (n.newest OPERATOR(pg_catalog.-) $1)', hist)
            USING keep;
    END IF;
    RETURN hist;
END
$$;

CREATE OR REPLACE FUNCTION docmodel.drop_collection(coll regclass) RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    hist regclass;
BEGIN
    IF NOT EXISTS (SELECT FROM docmodel.collection_config AS c
                   WHERE c.coll OPERATOR(pg_catalog.=) $1) THEN
        RAISE EXCEPTION '"%" is not a docmodel collection', $1
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Drop a plain table with DROP TABLE.';
    END IF;
    -- The collection before its history, in the order its writers lock
    -- them: a transaction that read the collection and then writes it
    -- finishes first, instead of deadlocking on the history table.
    EXECUTE pg_catalog.format('LOCK TABLE %s IN ACCESS EXCLUSIVE MODE', $1);
    DELETE FROM docmodel.collection_config AS c
        WHERE c.coll OPERATOR(pg_catalog.=) $1
        RETURNING c.revisions_table INTO hist;
    IF hist IS NOT NULL THEN
        EXECUTE pg_catalog.format('DROP TABLE %s', hist);
    END IF;
    EXECUTE pg_catalog.format('DROP TABLE %s', $1);
END
$$;
