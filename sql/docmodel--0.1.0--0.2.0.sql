-- docmodel 0.1.0 -> 0.2.0 (ALTER EXTENSION docmodel UPDATE TO '0.2.0').
-- Every change to SQL objects since 0.1.0 goes both into sql/docmodel.sql (the fresh 0.2.0
-- install) and here; test/upgrade checks that both give the same objects.
\echo Use "ALTER EXTENSION docmodel UPDATE TO '0.2.0'" to load this file. \quit

-------------------------------------------------------------------------------
-- Issue 17 (1): tables whose columns were dropped or changed are refused
-- (55000, 42804) by the C paths and by the SQL functions reading history.
-------------------------------------------------------------------------------

CREATE FUNCTION docmodel._check_layout(rel regclass, layout text) RETURNS void
    LANGUAGE c STABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', '_check_layout';
COMMENT ON FUNCTION docmodel._check_layout(regclass, text) IS
    'internal: raise 55000 or 42804 when a table lacks a column of a docmodel layout (collection, history, documents)';

-- The history table of a collection, or an error naming why there is none.
CREATE OR REPLACE FUNCTION docmodel._revisions_table(coll regclass, OUT hist regclass, OUT delim text)
    LANGUAGE plpgsql STABLE PARALLEL SAFE STRICT
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    SELECT c.revisions_table, c.delimiter INTO hist, delim
        FROM docmodel.collection_config AS c
        WHERE c.coll OPERATOR(pg_catalog.=) $1;
    IF NOT FOUND THEN
        RAISE EXCEPTION '"%" is not a docmodel collection', $1
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Create collections with docmodel.create_collection().';
    END IF;
    IF hist IS NULL THEN
        RAISE EXCEPTION 'collection "%" keeps no revisions', $1
            USING ERRCODE = 'invalid_parameter_value',
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

CREATE OR REPLACE FUNCTION docmodel.restore(coll regclass, key text, ver integer) RETURNS bigint
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
        'RETURNING t.cas', $1)
        INTO newcas USING $2, body;
    RETURN newcas;
END
$$;
