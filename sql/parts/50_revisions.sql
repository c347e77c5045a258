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

-------------------------------------------------------------------------------
-- Queries over history: as of a time, changes, blame, path history.
--
-- A version of a key is a row of its history or its current row. Version v
-- ends at its revision's changed_at, with the revision's op (the current
-- document never ends). It begins at the changed_at of revision v - 1 when
-- that revision is an 'update' or 'expire' (v replaced it in that write);
-- otherwise (a first insert, an insert after a delete, truncate or rename,
-- or v - 1 pruned) v was inserted, and begins at its modified stamp (the
-- start of the collection's time unit it names), never before the end of
-- the version before it. A version is the document at time T when it began
-- at or before T and ended after T; the current document only while it is
-- not expired at T.
-------------------------------------------------------------------------------

CREATE FUNCTION docmodel._revision_stamps(coll regclass, doc jsonb,
    OUT ver integer, OUT written timestamptz, OUT writer text)
    LANGUAGE c STABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'history_stamps';
COMMENT ON FUNCTION docmodel._revision_stamps(regclass, jsonb) IS
    'internal: the version, modified time (the start of its time unit) and modifier that a document''s stamps give, NULL where it has none';

-- 22004 naming the argument when it is NULL.
CREATE FUNCTION docmodel._history_arg(name text, value anyelement) RETURNS void
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF value IS NULL THEN
        RAISE EXCEPTION 'argument "%" must not be NULL', name
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
END
$$;
COMMENT ON FUNCTION docmodel._history_arg(text, anyelement) IS
    'internal: raise 22004 naming the argument when it is NULL';

-- The SQL of every version of a collection's documents (of key $1 when
-- one_key), as columns id, ver, doc, began, began_op ('insert' or
-- 'update'), began_by, ended ('infinity': current), ended_op (NULL:
-- current), ended_by, expires_at (the current document's), prev_doc (of
-- version ver - 1 when this one replaced it).
CREATE FUNCTION docmodel._versions_sql(coll regclass, hist regclass, one_key boolean)
    RETURNS text
    LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    style text;
    live_stamps text;
    hist_stamps text;
    live_ver text;
BEGIN
    SELECT c.meta_style INTO style FROM docmodel.collection_config AS c
        WHERE c.coll OPERATOR(pg_catalog.=) $1;
    IF style OPERATOR(pg_catalog.=) 'xattrs' THEN
        live_stamps := 'c.meta';
        hist_stamps := 'NULL::jsonb';
    ELSE
        live_stamps := docmodel._document_sql($1, 'c');
        hist_stamps := docmodel._document_sql($1, 'r');
    END IF;
    IF style OPERATOR(pg_catalog.=) 'columns' THEN
        live_ver := 'c.ver';
    ELSE
        live_ver := pg_catalog.format('(docmodel._revision_stamps(%L::pg_catalog.regclass, %s)).ver',
                                      $1::oid, live_stamps);
    END IF;
    RETURN pg_catalog.format(
        'SELECT v.id, v.ver, v.doc, '
        'CASE WHEN v.replaced THEN v.prev_at ELSE GREATEST(v.prev_at, '
        '(docmodel._revision_stamps(%1$L::pg_catalog.regclass, v.stamps)).written) END AS began, '
        'CASE WHEN v.replaced THEN ''update'' ELSE ''insert'' END AS began_op, '
        'CASE WHEN v.replaced THEN v.prev_by ELSE '
        '(docmodel._revision_stamps(%1$L::pg_catalog.regclass, v.stamps)).writer END AS began_by, '
        'v.ended, v.ended_op, v.ended_by, v.expires_at, '
        'CASE WHEN v.replaced THEN v.prev_doc END AS prev_doc '
        'FROM (SELECT h.*, '
        'COALESCE(pg_catalog.lag(h.ver) OVER w OPERATOR(pg_catalog.=) (h.ver OPERATOR(pg_catalog.-) 1) '
        'AND (pg_catalog.lag(h.ended_op) OVER w OPERATOR(pg_catalog.=) ANY (''{update,expire}''::text[])), false) AS replaced, '
        'pg_catalog.lag(h.ended) OVER w AS prev_at, pg_catalog.lag(h.ended_by) OVER w AS prev_by, '
        'pg_catalog.lag(h.doc) OVER w AS prev_doc '
        'FROM (SELECT r.id, r.ver, %2$s AS doc, %3$s AS stamps, r.changed_at AS ended, '
        'r.op AS ended_op, r.changed_by AS ended_by, NULL::timestamptz AS expires_at '
        'FROM %4$s AS r %6$s '
        'UNION ALL SELECT c.id, %7$s, %5$s, %8$s, ''infinity''::timestamptz, NULL, NULL, c.expires_at '
        'FROM %9$s AS c %10$s) AS h '
        'WINDOW w AS (PARTITION BY h.id ORDER BY h.ver)) AS v',
        $1::oid, docmodel._document_sql($1, 'r'), hist_stamps, docmodel._rel_sql($2),
        docmodel._document_sql($1, 'c'),
        CASE WHEN one_key THEN 'WHERE r.id OPERATOR(pg_catalog.=) $1' ELSE '' END,
        live_ver, live_stamps, docmodel._rel_sql($1),
        CASE WHEN one_key THEN 'WHERE c.id OPERATOR(pg_catalog.=) $1' ELSE '' END);
END
$$;
COMMENT ON FUNCTION docmodel._versions_sql(regclass, regclass, boolean) IS
    'internal: the SQL of every version of a collection''s documents (of key $1 when one_key), with when and how each began and ended';

CREATE FUNCTION docmodel.get(coll regclass, key text, as_of timestamptz) RETURNS jsonb
    LANGUAGE plpgsql STABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    t record;
    body jsonb;
BEGIN
    PERFORM docmodel._history_arg('coll', $1);
    PERFORM docmodel._history_arg('as_of', $3);
    t := docmodel._revisions_table($1);
    IF $2 IS NULL THEN
        RETURN NULL;
    END IF;
    EXECUTE pg_catalog.format('SELECT x.doc FROM (%s) AS x '
        'WHERE COALESCE(x.began, ''-infinity'') OPERATOR(pg_catalog.<=) $2 '
        'AND x.ended OPERATOR(pg_catalog.>) $2 '
        'AND (x.expires_at IS NULL OR x.expires_at OPERATOR(pg_catalog.>) $2) '
        'ORDER BY x.ver DESC LIMIT 1', docmodel._versions_sql($1, t.hist, true))
        INTO body USING $2, $3;
    RETURN body;
END
$$;
COMMENT ON FUNCTION docmodel.get(regclass, text, timestamptz) IS
    'the document with this key as it was at time as_of (from its history), NULL when it did not exist then';

CREATE FUNCTION docmodel.collection_as_of(coll regclass, as_of timestamptz)
    RETURNS TABLE(id text, doc jsonb)
    LANGUAGE plpgsql STABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    t record;
BEGIN
    PERFORM docmodel._history_arg('coll', $1);
    PERFORM docmodel._history_arg('as_of', $2);
    t := docmodel._revisions_table($1);
    RETURN QUERY EXECUTE pg_catalog.format('SELECT DISTINCT ON (x.id) x.id, x.doc FROM (%s) AS x '
        'WHERE COALESCE(x.began, ''-infinity'') OPERATOR(pg_catalog.<=) $1 '
        'AND x.ended OPERATOR(pg_catalog.>) $1 '
        'AND (x.expires_at IS NULL OR x.expires_at OPERATOR(pg_catalog.>) $1) '
        'ORDER BY x.id, x.ver DESC', docmodel._versions_sql($1, t.hist, false))
        USING $2;
END
$$;
COMMENT ON FUNCTION docmodel.collection_as_of(regclass, timestamptz) IS
    'every document of a collection that existed at time as_of, as it was then';

CREATE FUNCTION docmodel.changes(coll regclass, key text,
    since timestamptz DEFAULT NULL, until timestamptz DEFAULT NULL)
    RETURNS TABLE(ver integer, changed_at timestamptz, changed_by text, op text, patch jsonb)
    LANGUAGE plpgsql STABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    t record;
BEGIN
    PERFORM docmodel._history_arg('coll', $1);
    t := docmodel._revisions_table($1);
    IF $2 IS NULL THEN
        RETURN;
    END IF;
    -- Each version's beginning (its patch against the version it replaced,
    -- or an add of the whole document), then the delete, truncate or rename
    -- that ended it (no patch: nothing is left).
    RETURN QUERY EXECUTE pg_catalog.format('WITH x AS MATERIALIZED (%s) SELECT e.ver, e.at, e.who, e.op, e.patch FROM ('
        'SELECT x.ver, 0 AS n, x.began AS at, x.began_by AS who, x.began_op AS op, '
        'CASE WHEN x.began_op OPERATOR(pg_catalog.=) ''update'' THEN docmodel.diff(x.prev_doc, x.doc) '
        'ELSE pg_catalog.jsonb_build_array(pg_catalog.jsonb_build_object(''op'', ''add'', ''path'', '''', ''value'', x.doc)) END AS patch '
        'FROM x '
        'UNION ALL SELECT x.ver, 1, x.ended, x.ended_by, x.ended_op, NULL '
        'FROM x WHERE x.ended_op OPERATOR(pg_catalog.<>) ALL (''{update,expire}''::text[])) AS e '
        'WHERE ($2 IS NULL OR e.at OPERATOR(pg_catalog.>=) $2) AND ($3 IS NULL OR e.at OPERATOR(pg_catalog.<) $3) '
        'ORDER BY e.ver, e.n', docmodel._versions_sql($1, t.hist, true))
        USING $2, $3, $4;
END
$$;
COMMENT ON FUNCTION docmodel.changes(regclass, text, timestamptz, timestamptz) IS
    'the changes of a document in order: the RFC 6902 patch of each version against the one it replaced (an insert: an add of the whole document), and each delete, truncate or rename; since inclusive, until exclusive';

-- Every JSON Pointer of a document (its root '' too) with the text[] path
-- the #> operator takes and the value there.
CREATE FUNCTION docmodel._pointers(doc jsonb)
    RETURNS TABLE(pointer text, path text[], value jsonb)
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    BEGIN ATOMIC
    WITH RECURSIVE p(pointer, path, value) AS (
        SELECT ''::text, '{}'::text[], doc
        UNION ALL
        SELECT p.pointer OPERATOR(pg_catalog.||) '/' OPERATOR(pg_catalog.||)
                   pg_catalog.replace(pg_catalog.replace(e.k, '~', '~0'), '/', '~1'),
               p.path OPERATOR(pg_catalog.||) e.k, e.v
        FROM p, LATERAL (
            SELECT o.key AS k, o.value AS v
                FROM pg_catalog.jsonb_each(CASE WHEN pg_catalog.jsonb_typeof(p.value) OPERATOR(pg_catalog.=) 'object' THEN p.value END) AS o
            UNION ALL
            SELECT (a.n OPERATOR(pg_catalog.-) 1)::text, a.v
                FROM pg_catalog.jsonb_array_elements(CASE WHEN pg_catalog.jsonb_typeof(p.value) OPERATOR(pg_catalog.=) 'array' THEN p.value END)
                     WITH ORDINALITY AS a(v, n)) AS e
    )
    SELECT p.pointer, p.path, p.value FROM p;
    END;
COMMENT ON FUNCTION docmodel._pointers(jsonb) IS
    'internal: every JSON Pointer of a document with its #> path and value';

CREATE FUNCTION docmodel.blame(coll regclass, key text)
    RETURNS TABLE(path text, ver integer, changed_at timestamptz, changed_by text)
    LANGUAGE plpgsql STABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    t record;
BEGIN
    PERFORM docmodel._history_arg('coll', $1);
    t := docmodel._revisions_table($1);
    IF $2 IS NULL THEN
        RETURN;
    END IF;
    -- The versions the current document descends from by updates (back to
    -- its insert); for each pointer of it, the oldest of them after the
    -- last one whose value there differs.
    RETURN QUERY EXECUTE pg_catalog.format('WITH v AS MATERIALIZED (%s), '
        'cur AS (SELECT * FROM v WHERE v.ended_op IS NULL), '
        'chain AS (SELECT v.* FROM v, cur WHERE v.ver OPERATOR(pg_catalog.<=) cur.ver '
        'AND v.ver OPERATOR(pg_catalog.>=) (SELECT pg_catalog.max(i.ver) FROM v AS i '
        'WHERE i.began_op OPERATOR(pg_catalog.=) ''insert'' AND i.ver OPERATOR(pg_catalog.<=) cur.ver)) '
        'SELECT p.pointer, b.ver, b.began, b.began_by '
        'FROM cur, docmodel._pointers(cur.doc) AS p, LATERAL ('
        'SELECT c.ver, c.began, c.began_by FROM chain AS c '
        'WHERE c.ver OPERATOR(pg_catalog.>) COALESCE((SELECT pg_catalog.max(d.ver) FROM chain AS d '
        'WHERE (d.doc OPERATOR(pg_catalog.#>) p.path) IS DISTINCT FROM p.value), -1) '
        'ORDER BY c.ver LIMIT 1) AS b '
        'WHERE p.pointer OPERATOR(pg_catalog.<>) '''' ORDER BY p.pointer',
        docmodel._versions_sql($1, t.hist, true))
        USING $2;
END
$$;
COMMENT ON FUNCTION docmodel.blame(regclass, text) IS
    'for each JSON Pointer of the current document, the version that last set its value there, when and by whom';

-- (end of revisions)

