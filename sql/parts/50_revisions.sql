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

CREATE FUNCTION docmodel._config_set_keep_for(coll regclass, keep_for interval)
    RETURNS void
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'catalog_config_set_keep_for';
COMMENT ON FUNCTION docmodel._config_set_keep_for(regclass, interval) IS
    'internal: set how long a collection keeps revisions whatever their number; the caller owns the collection';

CREATE FUNCTION docmodel.set_revisions(coll regclass, keep integer, keep_for interval DEFAULT NULL)
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
    IF keep_for OPERATOR(pg_catalog.<) '0'::interval THEN
        RAISE EXCEPTION 'invalid time to keep revisions: %', keep_for
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = pg_catalog.format('Collection "%s" was given keep_for => %s.', $1, keep_for),
                  HINT = 'Give how long a revision is kept whatever its number, or NULL for none.';
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
    PERFORM docmodel._config_set_keep_for($1, keep_for);
    -- meta_style 'columns': the stamps of a revision in columns, as the
    -- collection keeps them (also in a table taken over or used again).
    IF hist IS NOT NULL AND EXISTS (SELECT FROM docmodel.collection_config AS c
                                    WHERE c.id OPERATOR(pg_catalog.=) cid
                                      AND c.meta_style OPERATOR(pg_catalog.=) 'columns') THEN
        PERFORM docmodel._history_stamp_columns(hist, true);
    END IF;
    -- The path index of path_history, where set_path_index gave the table
    -- one before (a table taken over or used again keeps its own).
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
        -- Keep at most keep revisions per key from now on, and those younger
        -- than keep_for.
        EXECUTE pg_catalog.format('DELETE FROM %1$s AS r USING '
            '(SELECT h.id, pg_catalog.max(h.ver) AS newest FROM %1$s AS h GROUP BY h.id) AS n '
            'WHERE r.id OPERATOR(pg_catalog.=) n.id '
            'AND r.ver OPERATOR(pg_catalog.<=) (n.newest OPERATOR(pg_catalog.-) $1) '
            'AND ($2 IS NULL OR r.changed_at OPERATOR(pg_catalog.<) (pg_catalog.now() OPERATOR(pg_catalog.-) $2))',
            docmodel._rel_sql(hist))
            USING keep, keep_for;
    END IF;
    RETURN hist;
END
$$;
COMMENT ON FUNCTION docmodel.set_revisions(regclass, integer, interval) IS
    'keep the last keep revisions of every document of a collection, and with keep_for every revision younger than that (0 = off; the history table is kept)';

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
-- the version before it. The document at time T is the oldest version
-- that ended after T, when it had begun by T; the current document only
-- while it is not expired at T (_as_of_sql).
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
        RAISE EXCEPTION '% must not be null', name
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

-- The SQL of the documents of a collection as of time $2 (of key $1 when
-- one_key): of each key, the oldest version that ended after $2 (a
-- revision whose changed_at is later, else the current document), when it
-- had begun by then: the revision before it, which ended by $2, is the
-- update it replaced, or its stamp is not later than $2 (an inserted
-- version begins at its stamp); the current document only while not
-- expired at $2. Columns id, doc.
CREATE FUNCTION docmodel._as_of_sql(coll regclass, hist regclass, one_key boolean)
    RETURNS text
    LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    style text;
    live_stamps text;
    hist_stamps text;
    stamps text;
    live_ver text;
BEGIN
    SELECT c.meta_style INTO style FROM docmodel.collection_config AS c
        WHERE c.coll OPERATOR(pg_catalog.=) $1;
    -- the stamps are in the document but for xattrs (its meta column; a
    -- revision's are not kept)
    IF style OPERATOR(pg_catalog.=) 'xattrs' THEN
        live_stamps := 'c.meta';
        hist_stamps := 'NULL::jsonb';
        stamps := 'v.stamps';
    ELSE
        live_stamps := 'NULL::jsonb';
        hist_stamps := 'NULL::jsonb';
        stamps := 'v.doc';
    END IF;
    -- the current document's version, asked only of a candidate whose
    -- stamp is later than the time
    IF style OPERATOR(pg_catalog.=) 'columns' THEN
        live_ver := 'c.ver';
    ELSE
        live_ver := 'NULL::integer';
    END IF;
    RETURN pg_catalog.format(
        'SELECT v.id, v.doc FROM (SELECT DISTINCT ON (x.id) x.* FROM ('
        'SELECT r.id, r.ver AS ord, r.ver, %2$s AS doc, %3$s AS stamps, NULL::timestamptz AS expires_at '
        'FROM %4$s AS r WHERE r.changed_at OPERATOR(pg_catalog.>) $2 %6$s '
        'UNION ALL SELECT c.id, 2147483647, %7$s, %5$s, %8$s, c.expires_at FROM %9$s AS c %10$s) AS x '
        'ORDER BY x.id, x.ord) AS v '
        'WHERE (v.expires_at IS NULL OR v.expires_at OPERATOR(pg_catalog.>) $2) '
        'AND (COALESCE((docmodel._revision_stamps(%1$L::pg_catalog.regclass, %11$s)).written, '
        '''-infinity'') OPERATOR(pg_catalog.<=) $2 '
        'OR EXISTS (SELECT FROM %4$s AS p WHERE p.id OPERATOR(pg_catalog.=) v.id '
        'AND p.ver OPERATOR(pg_catalog.=) (COALESCE(v.ver, '
        '(docmodel._revision_stamps(%1$L::pg_catalog.regclass, %11$s)).ver) OPERATOR(pg_catalog.-) 1) '
        'AND p.op OPERATOR(pg_catalog.=) ANY (''{update,expire}''::text[])))',
        $1::oid, docmodel._document_sql($1, 'r'), hist_stamps, docmodel._rel_sql($2),
        docmodel._document_sql($1, 'c'),
        CASE WHEN one_key THEN 'AND r.id OPERATOR(pg_catalog.=) $1' ELSE '' END,
        live_ver, live_stamps, docmodel._rel_sql($1),
        CASE WHEN one_key THEN 'WHERE c.id OPERATOR(pg_catalog.=) $1' ELSE '' END,
        stamps);
END
$$;
COMMENT ON FUNCTION docmodel._as_of_sql(regclass, regclass, boolean) IS
    'internal: the SQL of a collection''s documents (of key $1 when one_key) as of time $2';

-- get(coll, key, as_of)'s statement for its plan cache: the checks of
-- _revisions_table, the history table and the statement.
CREATE FUNCTION docmodel._get_as_of_sql(coll regclass, OUT hist regclass, OUT sql text)
    LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    hist := (docmodel._revisions_table($1)).hist;
    sql := docmodel._as_of_sql($1, hist, true);
END
$$;
COMMENT ON FUNCTION docmodel._get_as_of_sql(regclass) IS
    'internal: the revisions table of a collection (checked as _revisions_table checks it) and the statement of get(coll, key, as_of)';

CREATE FUNCTION docmodel.get(coll regclass, key text, as_of timestamptz) RETURNS jsonb
    LANGUAGE c STABLE PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'history_get_as_of';
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
    RETURN QUERY EXECUTE docmodel._as_of_sql($1, t.hist, false) USING NULL::text, $2;
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
    SET search_path = pg_catalog, pg_temp
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

-- The text[] path of the #> operator for JSON Pointer ptr (RFC 6901); 22023
-- for one that is not.
CREATE FUNCTION docmodel._pointer_path(ptr text) RETURNS text[]
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF ptr OPERATOR(pg_catalog.=) '' THEN
        RETURN '{}';
    END IF;
    IF pg_catalog.left(ptr, 1) OPERATOR(pg_catalog.<>) '/'
       OR ptr OPERATOR(pg_catalog.~) '~([^01]|$)' THEN
        RAISE EXCEPTION 'invalid JSON Pointer: "%"', ptr
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'A JSON Pointer is empty or starts with "/"; "~" is escaped as "~0", "/" as "~1".';
    END IF;
    RETURN ARRAY(SELECT pg_catalog.replace(pg_catalog.replace(t.tok, '~1', '/'), '~0', '~')
                 FROM pg_catalog.regexp_split_to_table(pg_catalog.substr(ptr, 2), '/')
                      WITH ORDINALITY AS t(tok, n)
                 ORDER BY t.n);
END
$$;
COMMENT ON FUNCTION docmodel._pointer_path(text) IS
    'internal: the #> path of a JSON Pointer; 22023 for text that is not one';

CREATE FUNCTION docmodel._diff_keys(a jsonb, b jsonb) RETURNS text[]
    AS 'MODULE_PATHNAME', 'json_diff_keys'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION docmodel._diff_keys(jsonb, jsonb) IS
    'internal: the path index keys of the change from a to b (NULL: the whole document): "=" and each pointer diff(a, b) touches, "<" and each ancestor of one';

-- The keys of path_history's index that find a change touching pointer
-- ptr: one at ptr or at an ancestor ("=" and each prefix), or below it
-- ("<" ptr).
CREATE FUNCTION docmodel._pointer_keys(ptr text) RETURNS text[]
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    BEGIN ATOMIC
    SELECT ARRAY['<' OPERATOR(pg_catalog.||) ptr, '=' OPERATOR(pg_catalog.||) ptr]
        OPERATOR(pg_catalog.||) ARRAY(
            SELECT '=' OPERATOR(pg_catalog.||) pg_catalog.left(ptr, p.i::integer OPERATOR(pg_catalog.-) 1)
            FROM pg_catalog.generate_series(1, pg_catalog.length(ptr)) AS p(i)
            WHERE pg_catalog.substr(ptr, p.i::integer, 1) OPERATOR(pg_catalog.=) '/');
    END;
COMMENT ON FUNCTION docmodel._pointer_keys(text) IS
    'internal: the keys of the path index that find a change at, above or below a JSON Pointer';

-- The column paths of a history table and its GIN index: added where
-- missing (the collection trigger fills it for every revision from then
-- on), and filled for the revisions already there from the version after
-- each.
CREATE FUNCTION docmodel._history_paths(coll regclass, hist regclass) RETURNS void
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF NOT EXISTS (SELECT FROM docmodel.collection_config AS c
                   WHERE c.coll OPERATOR(pg_catalog.=) $1
                     AND c.revisions_table OPERATOR(pg_catalog.=) $2) THEN
        RAISE EXCEPTION '"%" is not the revisions table of collection "%"', $2, $1
            USING ERRCODE = 'wrong_object_type';
    END IF;
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_class AS r WHERE r.oid OPERATOR(pg_catalog.=) $2
                   AND pg_catalog.pg_has_role(r.relowner, 'USAGE')) THEN
        RAISE EXCEPTION 'must be owner of table %', $2
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF EXISTS (SELECT FROM pg_catalog.pg_attribute AS a
               WHERE a.attrelid OPERATOR(pg_catalog.=) $2 AND NOT a.attisdropped
                 AND a.attname OPERATOR(pg_catalog.=) 'paths') THEN
        RETURN;
    END IF;
    EXECUTE pg_catalog.format('ALTER TABLE %s ADD COLUMN paths text[]', docmodel._rel_sql($2));
    EXECUTE pg_catalog.format('UPDATE %1$s AS r SET paths = docmodel._diff_keys(r.doc, '
        'CASE WHEN r.op OPERATOR(pg_catalog.=) ANY (''{update,expire}''::text[]) THEN '
        'CASE WHEN EXISTS (SELECT FROM %1$s AS n WHERE n.id OPERATOR(pg_catalog.=) r.id '
        'AND n.ver OPERATOR(pg_catalog.>) r.ver) '
        'THEN (SELECT n.doc FROM %1$s AS n WHERE n.id OPERATOR(pg_catalog.=) r.id '
        'AND n.ver OPERATOR(pg_catalog.=) (r.ver OPERATOR(pg_catalog.+) 1)) '
        'ELSE (SELECT c.doc FROM %2$s AS c WHERE c.id OPERATOR(pg_catalog.=) r.id) END END)',
        docmodel._rel_sql($2), docmodel._rel_sql($1));
    EXECUTE pg_catalog.format('CREATE INDEX ON %s USING gin (paths)', docmodel._rel_sql($2));
END
$$;
COMMENT ON FUNCTION docmodel._history_paths(regclass, regclass) IS
    'internal: give a collection''s revisions table its column paths (filled) and the GIN index path_history reads';

-- The path index is the collection owner's choice: it costs every write of
-- a document with history a diff and an index entry.
CREATE FUNCTION docmodel.set_path_index(coll regclass, enabled boolean) RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    t record;
BEGIN
    PERFORM docmodel._history_arg('coll', $1);
    PERFORM docmodel._history_arg('enabled', $2);
    t := docmodel._revisions_table($1);
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_class AS r WHERE r.oid OPERATOR(pg_catalog.=) $1
                   AND pg_catalog.pg_has_role(r.relowner, 'USAGE')) THEN
        RAISE EXCEPTION 'must be owner of table %', $1
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = 'Changing the configuration of a collection takes its ownership.';
    END IF;
    IF enabled THEN
        PERFORM docmodel._history_paths($1, t.hist);
    ELSIF EXISTS (SELECT FROM pg_catalog.pg_attribute AS a
                  WHERE a.attrelid OPERATOR(pg_catalog.=) t.hist AND NOT a.attisdropped
                    AND a.attname OPERATOR(pg_catalog.=) 'paths') THEN
        EXECUTE pg_catalog.format('ALTER TABLE %s DROP COLUMN paths', docmodel._rel_sql(t.hist));
    END IF;
END
$$;
COMMENT ON FUNCTION docmodel.set_path_index(regclass, boolean) IS
    'give a collection''s revisions the path index path_history reads (each revision''s changed pointers, written by the trigger), or drop it';

CREATE FUNCTION docmodel.path_history(coll regclass, path text,
    since timestamptz DEFAULT NULL, until timestamptz DEFAULT NULL)
    RETURNS TABLE(id text, ver integer, changed_at timestamptz, changed_by text,
                  old jsonb, new jsonb)
    LANGUAGE plpgsql STABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    t record;
    p text[];
BEGIN
    PERFORM docmodel._history_arg('coll', $1);
    PERFORM docmodel._history_arg('path', $2);
    t := docmodel._revisions_table($1);
    p := docmodel._pointer_path($2);
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_attribute AS a
                   WHERE a.attrelid OPERATOR(pg_catalog.=) t.hist AND NOT a.attisdropped
                     AND a.attname OPERATOR(pg_catalog.=) 'paths'
                     AND a.atttypid OPERATOR(pg_catalog.=) 'text[]'::regtype) THEN
        RAISE EXCEPTION 'revisions table "%" has no path index', t.hist
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = 'docmodel.set_path_index(coll, true) adds it.';
    END IF;
    -- The revisions whose change touched the path (found by the index),
    -- with the value there before and after it.
    RETURN QUERY EXECUTE pg_catalog.format('SELECT x.id, x.ver, x.changed_at, x.changed_by, x.old, x.new FROM ('
        'SELECT r.id, r.ver, r.changed_at, r.changed_by, %3$s OPERATOR(pg_catalog.#>) $1 AS old, '
        'CASE WHEN r.op OPERATOR(pg_catalog.=) ANY (''{update,expire}''::text[]) THEN '
        '(CASE WHEN EXISTS (SELECT FROM %1$s AS n WHERE n.id OPERATOR(pg_catalog.=) r.id '
        'AND n.ver OPERATOR(pg_catalog.=) (r.ver OPERATOR(pg_catalog.+) 1)) '
        'THEN (SELECT %4$s FROM %1$s AS n WHERE n.id OPERATOR(pg_catalog.=) r.id '
        'AND n.ver OPERATOR(pg_catalog.=) (r.ver OPERATOR(pg_catalog.+) 1)) '
        'ELSE (SELECT %5$s FROM %2$s AS c WHERE c.id OPERATOR(pg_catalog.=) r.id) END) '
        'OPERATOR(pg_catalog.#>) $1 END AS new '
        'FROM %1$s AS r '
        'WHERE r.paths OPERATOR(pg_catalog.&&) $2 '
        'AND ($3 IS NULL OR r.changed_at OPERATOR(pg_catalog.>=) $3) '
        'AND ($4 IS NULL OR r.changed_at OPERATOR(pg_catalog.<) $4)) AS x '
        'WHERE x.old IS DISTINCT FROM x.new ORDER BY x.changed_at, x.id, x.ver',
        docmodel._rel_sql(t.hist), docmodel._rel_sql($1), docmodel._document_sql($1, 'r'),
        docmodel._document_sql($1, 'n'), docmodel._document_sql($1, 'c'))
        USING p, docmodel._pointer_keys($2), $3, $4;
END
$$;
COMMENT ON FUNCTION docmodel.path_history(regclass, text, timestamptz, timestamptz) IS
    'every revision of a collection whose change touched a JSON Pointer (or a path under it), with the value there before and after; found by the revisions'' path index';

-- Erasures (erase_path): which path of which document was erased from a
-- collection and its history, when and by whom; never the value. Written
-- only by _record_erasure, read through erasures().
CREATE TABLE docmodel.erasures (
    coll regclass NOT NULL,
    id text COLLATE "C" NOT NULL,
    path text NOT NULL,
    erased_at timestamptz NOT NULL,
    erased_by text NOT NULL
);
CREATE INDEX erasures_coll_idx ON docmodel.erasures (coll, id);
SELECT pg_catalog.pg_extension_config_dump('docmodel.erasures', '');
-- Each role sees the erasures of the collections it may read.
GRANT SELECT ON docmodel.erasures TO PUBLIC;
ALTER TABLE docmodel.erasures ENABLE ROW LEVEL SECURITY;
CREATE POLICY erasures_readable ON docmodel.erasures FOR SELECT
    USING (pg_catalog.has_table_privilege(coll, 'SELECT'));
COMMENT ON TABLE docmodel.erasures IS
    'docmodel erasures: the paths erase_path removed from a document and its history (never the value)';

CREATE FUNCTION docmodel._record_erasure(coll regclass, key text, path text) RETURNS void
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'catalog_record_erasure';
COMMENT ON FUNCTION docmodel._record_erasure(regclass, text, text) IS
    'internal: record that path was erased from a document of a collection the caller owns';

CREATE FUNCTION docmodel.erase_path(coll regclass, key text, path text) RETURNS bigint
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    p text[];
    hist regclass;
    n bigint;
    m bigint := 0;
BEGIN
    PERFORM docmodel._history_arg('coll', $1);
    PERFORM docmodel._history_arg('key', $2);
    PERFORM docmodel._history_arg('path', $3);
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_class AS r WHERE r.oid OPERATOR(pg_catalog.=) $1
                   AND pg_catalog.pg_has_role(r.relowner, 'USAGE')) THEN
        RAISE EXCEPTION 'must be owner of table %', $1
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = 'Erasing a path from a document and its history takes the collection''s ownership.';
    END IF;
    PERFORM docmodel._require_collection($1);
    p := docmodel._pointer_path($3);
    IF pg_catalog.cardinality(p) OPERATOR(pg_catalog.=) 0 THEN
        RAISE EXCEPTION 'cannot erase the whole document "%"', $2
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Delete the document, and its revisions from the revisions table.';
    END IF;
    -- The current document: an update like any other (its trigger files the
    -- body it replaces, erased below with the others).
    EXECUTE pg_catalog.format('UPDATE %s AS c SET doc = c.doc OPERATOR(pg_catalog.#-) $2 '
        'WHERE c.id OPERATOR(pg_catalog.=) $1 '
        'AND pg_catalog.jsonb_typeof(c.doc) OPERATOR(pg_catalog.=) ANY (''{object,array}''::text[]) '
        'AND (c.doc OPERATOR(pg_catalog.#>) $2) IS NOT NULL', docmodel._rel_sql($1))
        USING $2, p;
    GET DIAGNOSTICS n = ROW_COUNT;
    -- Every revision of it, and the keys of its path index below the path.
    SELECT c.revisions_table INTO hist FROM docmodel.collection_config AS c
        WHERE c.coll OPERATOR(pg_catalog.=) $1
          AND EXISTS (SELECT FROM pg_catalog.pg_class AS r
                      WHERE r.oid OPERATOR(pg_catalog.=) c.revisions_table);
    IF hist IS NOT NULL THEN
        EXECUTE pg_catalog.format('UPDATE %s AS r SET doc = r.doc OPERATOR(pg_catalog.#-) $2 '
            'WHERE r.id OPERATOR(pg_catalog.=) $1 '
            'AND pg_catalog.jsonb_typeof(r.doc) OPERATOR(pg_catalog.=) ANY (''{object,array}''::text[]) '
            'AND (r.doc OPERATOR(pg_catalog.#>) $2) IS NOT NULL', docmodel._rel_sql(hist))
            USING $2, p;
        GET DIAGNOSTICS m = ROW_COUNT;
        IF EXISTS (SELECT FROM pg_catalog.pg_attribute AS a
                   WHERE a.attrelid OPERATOR(pg_catalog.=) hist AND NOT a.attisdropped
                     AND a.attname OPERATOR(pg_catalog.=) 'paths') THEN
            EXECUTE pg_catalog.format('UPDATE %s AS r SET paths = ARRAY(SELECT k FROM '
                'pg_catalog.unnest(r.paths) AS k WHERE NOT pg_catalog.starts_with(pg_catalog.substr(k, 2), $2)) '
                'WHERE r.id OPERATOR(pg_catalog.=) $1 AND EXISTS (SELECT FROM pg_catalog.unnest(r.paths) AS k '
                'WHERE pg_catalog.starts_with(pg_catalog.substr(k, 2), $2))', docmodel._rel_sql(hist))
                USING $2, $3 OPERATOR(pg_catalog.||) '/';
        END IF;
    END IF;
    PERFORM docmodel._record_erasure($1, $2, $3);
    RETURN n OPERATOR(pg_catalog.+) m;
END
$$;
COMMENT ON FUNCTION docmodel.erase_path(regclass, text, text) IS
    'remove the value at a JSON Pointer from a document and from every revision of it, and record the erasure (who, when, the path); returns how many versions held it';

CREATE FUNCTION docmodel.erasures(coll regclass)
    RETURNS TABLE(id text, path text, erased_at timestamptz, erased_by text)
    LANGUAGE plpgsql STABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    PERFORM docmodel._history_arg('coll', $1);
    IF NOT pg_catalog.has_table_privilege($1, 'SELECT') THEN
        RAISE EXCEPTION 'permission denied for table %', $1
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = 'The erasures of a collection are for those who may read it.';
    END IF;
    RETURN QUERY SELECT e.id, e.path, e.erased_at, e.erased_by FROM docmodel.erasures AS e
        WHERE e.coll OPERATOR(pg_catalog.=) $1 ORDER BY e.erased_at, e.id, e.path;
END
$$;
COMMENT ON FUNCTION docmodel.erasures(regclass) IS
    'the erasures (erase_path) of a collection: key, path, when and by whom';

-- (end of revisions)

