-------------------------------------------------------------------------------
-- Revisions (src/history/revision.c)
-------------------------------------------------------------------------------

CREATE FUNCTION docmodel.diff(a jsonb, b jsonb) RETURNS jsonb
    AS 'MODULE_PATHNAME', 'json_diff'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.diff(jsonb, jsonb) IS
    'RFC 6902 JSON Patch turning a into b (objects member by member, arrays position by position)';

CREATE FUNCTION docmodel.patch(doc jsonb, patch jsonb) RETURNS jsonb
    AS 'MODULE_PATHNAME', 'json_patch'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.patch(jsonb, jsonb) IS
    'Apply an RFC 6902 JSON Patch to doc; an operation that cannot apply (or a failing test) is an error';

-- The one way docmodel names a table it derives from a collection.
CREATE FUNCTION docmodel._derived_name(nsp regnamespace, base text, label text)
    RETURNS name
    LANGUAGE c STABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'collection_derived_name';
COMMENT ON FUNCTION docmodel._derived_name(regnamespace, text, text) IS
    'internal: a free name base_label in nsp, base cut to fit NAMEDATALEN, a number added to label when taken';

-- meta_style 'columns': the history table keeps the stamps of a revision
-- in the columns created_at, modified_at, created_by, modified_by (its own
-- ver is the revision's _ver) and doc its body, as the collection does.
-- add: the columns are added where missing; rows already there (full
-- documents) are left as they are, and read so (the four columns null).
-- Not add: each row's stamps go back into its doc (while the collection
-- still has meta_style 'columns', else 55000), and the columns are dropped.
CREATE FUNCTION docmodel._history_stamp_columns(hist regclass, add boolean) RETURNS void
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    cfg docmodel.collection_config;
    owner_id oid;
    adds text;
BEGIN
    SELECT * INTO cfg FROM docmodel.collection_config AS c
        WHERE c.revisions_table OPERATOR(pg_catalog.=) $1
          AND EXISTS (SELECT FROM pg_catalog.pg_class AS r
                      WHERE r.oid OPERATOR(pg_catalog.=) c.coll);
    IF cfg.id IS NULL THEN
        RAISE EXCEPTION '"%" is not the revisions table of a docmodel collection', $1
            USING ERRCODE = 'wrong_object_type',
                  HINT = 'docmodel.collections lists each collection''s revisions_table.';
    END IF;
    SELECT r.relowner INTO owner_id FROM pg_catalog.pg_class AS r
        WHERE r.oid OPERATOR(pg_catalog.=) $1;
    IF NOT pg_catalog.pg_has_role(owner_id, 'USAGE') THEN
        RAISE EXCEPTION 'must be owner of table %', $1
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = 'Changing the layout of a revisions table takes its ownership.';
    END IF;
    IF add THEN
        -- the ones missing (a column of that name but another type stays,
        -- and the history writer refuses it: 42804)
        SELECT pg_catalog.string_agg(pg_catalog.format('ADD COLUMN %I %s', n.col, n.typ), ', '
                                     ORDER BY n.ord)
            INTO adds
            FROM (VALUES (1, 'created_at', 'timestamptz'), (2, 'modified_at', 'timestamptz'),
                         (3, 'created_by', 'integer'), (4, 'modified_by', 'integer')) AS n(ord, col, typ)
            WHERE NOT EXISTS (SELECT FROM pg_catalog.pg_attribute AS a
                              WHERE a.attrelid OPERATOR(pg_catalog.=) $1 AND NOT a.attisdropped
                                AND a.attname OPERATOR(pg_catalog.=) n.col);
        IF adds IS NOT NULL THEN
            EXECUTE pg_catalog.format('ALTER TABLE %s %s', docmodel._rel_sql($1), adds);
        END IF;
        RETURN;
    END IF;
    IF (SELECT pg_catalog.count(*) FROM pg_catalog.pg_attribute AS a
        WHERE a.attrelid OPERATOR(pg_catalog.=) $1 AND NOT a.attisdropped
          AND a.attname OPERATOR(pg_catalog.=) ANY ('{created_at,modified_at,created_by,modified_by}'::name[]))
       OPERATOR(pg_catalog.<>) 4 THEN
        RETURN;
    END IF;
    IF cfg.meta_style OPERATOR(pg_catalog.<>) 'columns' THEN
        RAISE EXCEPTION 'cannot merge the stamp columns of revisions table "%"', $1
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = pg_catalog.format('Collection %s does not have meta_style ''columns'', whose stamps they hold.', cfg.coll),
                  HINT = 'Merge them before the collection''s meta_style changes.';
    END IF;
    EXECUTE pg_catalog.format('UPDATE %s AS r SET doc = %s '
        'WHERE pg_catalog.num_nulls(r.created_at, r.modified_at, r.created_by, r.modified_by) '
        'OPERATOR(pg_catalog.<) 4', docmodel._rel_sql($1), docmodel._document_sql(cfg.coll, 'r'));
    EXECUTE pg_catalog.format('ALTER TABLE %s DROP COLUMN created_at, DROP COLUMN modified_at, '
        'DROP COLUMN created_by, DROP COLUMN modified_by', docmodel._rel_sql($1));
END
$$;
COMMENT ON FUNCTION docmodel._history_stamp_columns(regclass, boolean) IS
    'internal: add the stamp columns to the revisions table of a collection (meta_style columns), or merge them into doc and drop them';

CREATE FUNCTION docmodel.set_revisions(coll regclass, keep integer)
    RETURNS regclass
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    cid integer;
    hist regclass;
    nspid oid;
    nspname name;
    base name;
    owner name;
    owner_id oid;
    histname name;
    distributed boolean := false;
BEGIN
    IF keep IS NULL OR keep OPERATOR(pg_catalog.<) 0 THEN
        RAISE EXCEPTION 'invalid number of revisions to keep: %', coalesce(keep::text, 'NULL')
            USING ERRCODE = CASE WHEN keep IS NULL THEN '22004' ELSE '22023' END,
                  DETAIL = pg_catalog.format('Collection "%s" was given keep => %s.', $1, coalesce(keep::text, 'NULL')),
                  HINT = 'Give the number of revisions to keep per document, 0 to turn history off.';
    END IF;
    -- Configuration is the owner's, as ALTER TABLE is (_config_set_revisions
    -- checks it too); one set_revisions at a time per collection.
    SELECT r.relname, r.relowner INTO base, owner_id
        FROM pg_catalog.pg_class AS r WHERE r.oid OPERATOR(pg_catalog.=) $1;
    IF NOT pg_catalog.pg_has_role(owner_id, 'USAGE') THEN
        RAISE EXCEPTION 'must be owner of table %', base
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = 'Changing the configuration of a collection takes its ownership.';
    END IF;
    EXECUTE pg_catalog.format('LOCK TABLE %s IN SHARE ROW EXCLUSIVE MODE', docmodel._rel_sql($1));
    PERFORM docmodel._require_collection($1);
    SELECT c.id, c.revisions_table INTO cid, hist
        FROM docmodel.collection_config AS c
        WHERE c.coll OPERATOR(pg_catalog.=) $1;
    -- A history table the user dropped is forgotten (and made again below).
    IF hist IS NOT NULL AND NOT EXISTS (SELECT FROM pg_catalog.pg_class AS r
                                        WHERE r.oid OPERATOR(pg_catalog.=) hist) THEN
        hist := NULL;
    END IF;
    -- On Citus, the history of a distributed collection is distributed
    -- with it (colocated, below) and its trigger goes onto every shard.
    IF keep OPERATOR(pg_catalog.>) 0 AND docmodel._citus_distributed($1) THEN
        distributed := true;
        PERFORM pg_catalog.set_config('citus.enable_unsafe_triggers', 'on', true);
    END IF;
    IF keep OPERATOR(pg_catalog.>) 0 AND hist IS NULL THEN
        SELECT r.relnamespace, n.nspname, r.relname, pg_catalog.pg_get_userbyid(r.relowner)
            INTO nspid, nspname, base, owner
            FROM pg_catalog.pg_class AS r
            JOIN pg_catalog.pg_namespace AS n ON n.oid OPERATOR(pg_catalog.=) r.relnamespace
            WHERE r.oid OPERATOR(pg_catalog.=) $1;
        -- The history a plain DROP TABLE of a collection of this name left
        -- behind is taken over (its numbering continues): <name>_revisions,
        -- uncut, named by the configuration of a dropped table.
        SELECT h.oid INTO hist FROM pg_catalog.pg_class AS h
            WHERE h.relnamespace OPERATOR(pg_catalog.=) nspid
              AND h.relname OPERATOR(pg_catalog.=) (base::text OPERATOR(pg_catalog.||) '_revisions');
        IF hist IS NOT NULL THEN
            IF NOT docmodel._config_adopt_history(hist) THEN
                hist := NULL;
            END IF;
        END IF;
        IF hist IS NULL THEN
            -- A free name that fits: <name>_revisions, the name cut to fit,
            -- a number added when taken.
            histname := docmodel._derived_name(nspid::regnamespace, base, 'revisions');
            EXECUTE pg_catalog.format('CREATE TABLE %I.%I (id text COLLATE "C" NOT NULL, '
                'ver integer NOT NULL, op text NOT NULL, changed_at timestamptz NOT NULL, '
                'changed_by text, doc jsonb, PRIMARY KEY (id, ver))',
                nspname, histname);
            SELECT h.oid INTO hist FROM pg_catalog.pg_class AS h
                WHERE h.relnamespace OPERATOR(pg_catalog.=) nspid
                  AND h.relname OPERATOR(pg_catalog.=) histname;
            IF owner OPERATOR(pg_catalog.<>) CURRENT_USER THEN
                EXECUTE pg_catalog.format('ALTER TABLE %s OWNER TO %I', docmodel._rel_sql(hist), owner);
            END IF;
            EXECUTE pg_catalog.format('COMMENT ON TABLE %s IS %L', docmodel._rel_sql(hist),
                pg_catalog.format('docmodel revisions of collection %s', $1));
        END IF;
    END IF;
    -- (before the configuration names it to the workers)
    IF distributed AND NOT docmodel._citus_distributed(hist) THEN
        PERFORM pg_catalog.create_distributed_table(hist, 'id', colocate_with => $1::text);
        PERFORM pg_catalog.truncate_local_data_after_distributing_table(hist);
    END IF;
    PERFORM docmodel._config_set_revisions($1, keep, hist);
    -- meta_style 'columns': the stamps of a revision in columns, as the
    -- collection keeps them (also in a table taken over or used again).
    IF hist IS NOT NULL AND EXISTS (SELECT FROM docmodel.collection_config AS c
                                    WHERE c.id OPERATOR(pg_catalog.=) cid
                                      AND c.meta_style OPERATOR(pg_catalog.=) 'columns') THEN
        PERFORM docmodel._history_stamp_columns(hist, true);
    END IF;
    IF EXISTS (SELECT FROM pg_catalog.pg_trigger AS g WHERE g.tgrelid OPERATOR(pg_catalog.=) $1
               AND g.tgname OPERATOR(pg_catalog.=) 'docmodel_revisions') THEN
        EXECUTE pg_catalog.format('DROP TRIGGER docmodel_revisions ON %s', docmodel._rel_sql($1));
    END IF;
    IF EXISTS (SELECT FROM pg_catalog.pg_trigger AS g WHERE g.tgrelid OPERATOR(pg_catalog.=) $1
               AND g.tgname OPERATOR(pg_catalog.=) 'docmodel_revisions_truncate') THEN
        EXECUTE pg_catalog.format('DROP TRIGGER docmodel_revisions_truncate ON %s', docmodel._rel_sql($1));
    END IF;
    IF keep OPERATOR(pg_catalog.>) 0 THEN
        EXECUTE pg_catalog.format('CREATE TRIGGER docmodel_revisions '
            'AFTER INSERT OR UPDATE OR DELETE ON %s FOR EACH ROW '
            'EXECUTE FUNCTION docmodel.collection_trigger(%s)', docmodel._rel_sql($1), cid);
        EXECUTE pg_catalog.format('CREATE TRIGGER docmodel_revisions_truncate '
            'BEFORE TRUNCATE ON %s FOR EACH STATEMENT '
            'EXECUTE FUNCTION docmodel.collection_trigger(%s)', docmodel._rel_sql($1), cid);
        -- Keep at most keep revisions per key from now on.
        EXECUTE pg_catalog.format('DELETE FROM %1$s AS r USING '
            '(SELECT h.id, pg_catalog.max(h.ver) AS newest FROM %1$s AS h GROUP BY h.id) AS n '
            'WHERE r.id OPERATOR(pg_catalog.=) n.id '
            'AND r.ver OPERATOR(pg_catalog.<=) (n.newest OPERATOR(pg_catalog.-) $1)', docmodel._rel_sql(hist))
            USING keep;
    END IF;
    RETURN hist;
END
$$;
COMMENT ON FUNCTION docmodel.set_revisions(regclass, integer) IS
    'keep the last keep revisions of every document of a collection (0 = off; the history table is kept)';

-- The history table of a collection, or an error naming why there is none.
CREATE FUNCTION docmodel._revisions_table(coll regclass, OUT hist regclass, OUT delim text)
    LANGUAGE plpgsql STABLE PARALLEL SAFE STRICT
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    PERFORM docmodel._require_collection($1);
    SELECT c.revisions_table, c.delimiter INTO hist, delim
        FROM docmodel.collection_config AS c
        WHERE c.coll OPERATOR(pg_catalog.=) $1;
    IF hist IS NULL THEN
        RAISE EXCEPTION 'collection "%" keeps no revisions', $1
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = 'Turn history on with docmodel.set_revisions(coll, keep).';
    END IF;
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_class AS r WHERE r.oid OPERATOR(pg_catalog.=) hist) THEN
        RAISE EXCEPTION 'the revisions table of collection "%" does not exist', $1
            USING ERRCODE = 'undefined_table',
                  HINT = 'Call docmodel.set_revisions() to create a new one.';
    END IF;
    PERFORM docmodel._check_layout(hist, 'history');
END
$$;
COMMENT ON FUNCTION docmodel._revisions_table(regclass) IS
    'internal: the revisions table and key delimiter of a collection';

CREATE FUNCTION docmodel.revisions(coll regclass, key text)
    RETURNS TABLE(ver integer, revision_key text, op text, changed_at timestamptz,
                  changed_by text, doc jsonb)
    LANGUAGE plpgsql STABLE PARALLEL SAFE STRICT
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    t record;
BEGIN
    t := docmodel._revisions_table($1);
    -- meta_style 'columns': the body merged with the revision's stamp
    -- columns (its ver the _ver), as get() merges a document's; a row
    -- whose four stamp columns are null (filed before the collection took
    -- that style) as it is.
    RETURN QUERY EXECUTE pg_catalog.format('SELECT r.ver, r.id OPERATOR(pg_catalog.||) $2 '
        'OPERATOR(pg_catalog.||) ''v'' OPERATOR(pg_catalog.||) $2 OPERATOR(pg_catalog.||) r.ver::text, '
        'r.op, r.changed_at, r.changed_by, %s FROM %s AS r '
        'WHERE r.id OPERATOR(pg_catalog.=) $1 ORDER BY r.ver DESC',
        docmodel._document_sql($1, 'r'), docmodel._rel_sql(t.hist))
        USING $2, t.delim;
END
$$;
COMMENT ON FUNCTION docmodel.revisions(regclass, text) IS
    'the stored revisions of a document, newest first (also after it was deleted)';

CREATE FUNCTION docmodel.get_revision(coll regclass, key text, ver integer) RETURNS jsonb
    LANGUAGE plpgsql STABLE PARALLEL SAFE STRICT
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    t record;
    body jsonb;
BEGIN
    t := docmodel._revisions_table($1);
    -- meta_style 'columns': merged as revisions() merges it
    EXECUTE pg_catalog.format('SELECT %s FROM %s AS r WHERE r.id OPERATOR(pg_catalog.=) $1 '
        'AND r.ver OPERATOR(pg_catalog.=) $2',
        docmodel._document_sql($1, 'r'), docmodel._rel_sql(t.hist))
        INTO body USING $2, $3;
    RETURN body;
END
$$;
COMMENT ON FUNCTION docmodel.get_revision(regclass, text, integer) IS
    'the body of revision ver of a document, NULL when there is none';

CREATE FUNCTION docmodel.restore(coll regclass, key text, ver integer) RETURNS bigint
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE STRICT
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    body jsonb;
    newcas bigint;
BEGIN
    PERFORM docmodel._check_layout($1, 'collection');
    body := docmodel.get_revision($1, $2, $3);
    IF body IS NULL THEN
        RAISE EXCEPTION 'revision % of document "%" does not exist', $3, $2
            USING ERRCODE = 'no_data_found',
                  DETAIL = pg_catalog.format('Collection %s has no revision %s of key "%s".', $1, $3, $2),
                  HINT = 'docmodel.revisions(coll, key) lists the stored revisions.';
    END IF;
    -- An insert after a delete, else an update; the trigger numbers and
    -- stamps it, and the update files the current body as a revision.
    EXECUTE pg_catalog.format('INSERT INTO %s AS t (id, doc, cas) VALUES ($1, $2, 0) '
        'ON CONFLICT (id) DO UPDATE SET doc = excluded.doc, expires_at = NULL '
        'RETURNING t.cas', docmodel._rel_sql($1))
        INTO newcas USING $2, body;
    RETURN newcas;
END
$$;
COMMENT ON FUNCTION docmodel.restore(regclass, text, integer) IS
    'write revision ver of a document back as its current body (a new revision; works after a delete); returns the new CAS';

-- (end of revisions)

