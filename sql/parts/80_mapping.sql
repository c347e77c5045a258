-------------------------------------------------------------------------------
-- From tables to documents (0.2.0): mappings of relational tables into
-- documents. Set-up in SQL; the documents are built by one generated query
-- per mapping, which PostgreSQL runs as the caller.
-------------------------------------------------------------------------------

/*
 * A mapping: the root table whose rows become documents, and their type.
 * Its name is its owner's (the role that created it): two roles may each
 * have a mapping of the same name, and no role can take a name another
 * will want. Written only by _mapping_write (catalog.c), which checks the
 * caller and validates what it stores (_mapping_check); only members of
 * the owner role change a mapping.
 */
CREATE TABLE docmodel.mappings (
    name       text NOT NULL CHECK (name OPERATOR(pg_catalog.<>) ''),
    root       regclass NOT NULL,
    doc_type   text NOT NULL,
    owner      regrole NOT NULL,
    created_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    PRIMARY KEY (owner, name)
);
COMMENT ON TABLE docmodel.mappings IS
    'docmodel: mappings of relational tables into documents (name per owner, root table, document type)';
SELECT pg_catalog.pg_extension_config_dump('docmodel.mappings', '');
GRANT SELECT ON docmodel.mappings TO PUBLIC;

/*
 * The parts of a mapping: a table embedded (as an array, an object, or its
 * fields merged) or referenced (by key, or through a junction table) in the
 * documents of the table it sits under. spec holds the join columns (tables
 * by OID), as _mapping_check made it: see README, "From tables to
 * documents".
 */
CREATE TABLE docmodel.mapping_parts (
    mapping text NOT NULL,
    owner   regrole NOT NULL,
    under   regclass NOT NULL,
    field   text NOT NULL,
    tbl     regclass NOT NULL,
    spec    jsonb NOT NULL,
    added   timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
    PRIMARY KEY (owner, mapping, under, field),
    FOREIGN KEY (owner, mapping) REFERENCES docmodel.mappings (owner, name) ON DELETE CASCADE
);
COMMENT ON TABLE docmodel.mapping_parts IS
    'docmodel: the embedded and referenced tables of each mapping';
SELECT pg_catalog.pg_extension_config_dump('docmodel.mapping_parts', '');
GRANT SELECT ON docmodel.mapping_parts TO PUBLIC;

/* Columns of a mapped table renamed (new_name) or left out (NULL). */
CREATE TABLE docmodel.mapping_columns (
    mapping  text NOT NULL,
    owner    regrole NOT NULL,
    tbl      regclass NOT NULL,
    col      name NOT NULL,
    new_name text,
    PRIMARY KEY (owner, mapping, tbl, col),
    FOREIGN KEY (owner, mapping) REFERENCES docmodel.mappings (owner, name) ON DELETE CASCADE
);
COMMENT ON TABLE docmodel.mapping_columns IS
    'docmodel: columns of mapped tables renamed (new_name) or excluded (NULL)';
SELECT pg_catalog.pg_extension_config_dump('docmodel.mapping_columns', '');
GRANT SELECT ON docmodel.mapping_columns TO PUBLIC;

CREATE FUNCTION docmodel._mapping_write(op text, owner regrole, mapping text,
    tbl regclass, under regclass, field text, spec jsonb) RETURNS void
    AS 'MODULE_PATHNAME', 'mapping_write'
    LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION docmodel._mapping_write(text, regrole, text, regclass, regclass, text, jsonb) IS
    'docmodel internal: record a change of a mapping (create, part, column, drop, project, unproject), checking the caller belongs to the mapping''s owner role and may read the table, and storing only what _mapping_check validated';

/* The statement trigger of the mapping tables: every backend's generated
 * projection statements are made again (src/mapping/). */
CREATE FUNCTION docmodel._mappings_changed() RETURNS trigger
    AS 'MODULE_PATHNAME', 'mapping_mappings_changed'
    LANGUAGE C;
COMMENT ON FUNCTION docmodel._mappings_changed() IS
    'docmodel internal: statement trigger: invalidate every backend''s projection statements when a mapping table changes';
CREATE TRIGGER mappings_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
    ON docmodel.mappings FOR EACH STATEMENT EXECUTE FUNCTION docmodel._mappings_changed();
CREATE TRIGGER mappings_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
    ON docmodel.mapping_parts FOR EACH STATEMENT EXECUTE FUNCTION docmodel._mappings_changed();
CREATE TRIGGER mappings_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
    ON docmodel.mapping_columns FOR EACH STATEMENT EXECUTE FUNCTION docmodel._mappings_changed();

-- The owner of the mapping a name means to the current user: its own
-- mapping of that name, else the one of a role it is a member of (42704
-- without one, 42725 when several such roles have one).
CREATE FUNCTION docmodel._mapping_owner(mapping text) RETURNS regrole
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    me oid := (SELECT r.oid FROM pg_roles r WHERE r.rolname = current_user);
    o oid;
    n integer;
BEGIN
    IF mapping IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'mapping must not be null';
    END IF;
    SELECT m.owner INTO o FROM docmodel.mappings m WHERE m.owner = me AND m.name = mapping;
    IF FOUND THEN
        RETURN o;
    END IF;
    WITH RECURSIVE r(oid) AS (
        SELECT a.roleid FROM pg_auth_members a WHERE a.member = me
        UNION SELECT a.roleid FROM pg_auth_members a JOIN r ON a.member = r.oid)
    SELECT min(m.owner::oid), count(*) INTO o, n
    FROM docmodel.mappings m WHERE m.name = mapping AND m.owner IN (SELECT r.oid FROM r);
    IF n = 0 THEN
        RAISE EXCEPTION USING ERRCODE = '42704',
            MESSAGE = format('mapping "%s" does not exist', mapping),
            DETAIL = 'A mapping name is its owner''s: the current user and the roles it is a member of have none of that name.',
            HINT = 'Create it with docmodel.create_mapping().';
    ELSIF n > 1 THEN
        RAISE EXCEPTION USING ERRCODE = '42725',
            MESSAGE = format('mapping name "%s" is ambiguous', mapping),
            DETAIL = format('%s roles the current user is a member of have a mapping of that name.', n),
            HINT = 'SET ROLE to the owner of the mapping meant.';
    END IF;
    RETURN o;
END
$$;
COMMENT ON FUNCTION docmodel._mapping_owner(text) IS
    'docmodel internal: the owner of the mapping a name means to the current user (its own, else a role it belongs to)';

-- The schema-qualified, quoted name of a relation (42P01 when it is gone).
CREATE FUNCTION docmodel._rel_sql(rel oid) RETURNS text
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    res text;
BEGIN
    SELECT format('%I.%I', n.nspname, c.relname) INTO res
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = rel;
    IF res IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '42P01',
            MESSAGE = format('relation with OID %s does not exist', rel);
    END IF;
    RETURN res;
END
$$;
COMMENT ON FUNCTION docmodel._rel_sql(oid) IS
    'docmodel internal: a relation''s schema-qualified, quoted name for generated SQL';

-- The equality operator of generated SQL between values of types ltype
-- and rtype: the one of ltype's default btree operator class, named with
-- its schema (pg_catalog's = when there is none), so that no search_path
-- chooses it.
CREATE FUNCTION docmodel._eq_op(ltype oid, rtype oid) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce((SELECT format('OPERATOR(%I.=)', n.nspname)
        FROM pg_opclass c, pg_amop a, pg_operator o, pg_namespace n
        WHERE c.opcmethod = 403 AND c.opcdefault AND c.opcintype = ltype
          AND a.amopfamily = c.opcfamily AND a.amoplefttype = ltype
          AND a.amoprighttype = rtype AND a.amopstrategy = 3
          AND o.oid = a.amopopr AND o.oprname = '=' AND n.oid = o.oprnamespace
        LIMIT 1), 'OPERATOR(pg_catalog.=)')
$$;
COMMENT ON FUNCTION docmodel._eq_op(oid, oid) IS
    'docmodel internal: the schema-qualified equality operator generated SQL compares two types with';

-- The join condition la.lcols[i] = ra.rcols[i] AND ... of generated SQL
-- (lcols columns of ltbl, rcols of rtbl), every equality named with its
-- schema (_eq_op).
CREATE FUNCTION docmodel._join_sql(la text, ltbl oid, lcols jsonb, ra text, rtbl oid, rcols jsonb)
    RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT string_agg(format('%I.%I %s %I.%I', la, l.v,
        docmodel._eq_op((SELECT x.atttypid FROM pg_attribute x WHERE x.attrelid = ltbl AND x.attname = l.v),
                        (SELECT y.atttypid FROM pg_attribute y WHERE y.attrelid = rtbl AND y.attname = r.v)),
        ra, r.v), ' AND ' ORDER BY l.n)
    FROM jsonb_array_elements_text(lcols) WITH ORDINALITY l(v, n)
    JOIN jsonb_array_elements_text(rcols) WITH ORDINALITY r(v, n) USING (n)
$$;
COMMENT ON FUNCTION docmodel._join_sql(text, oid, jsonb, text, oid, jsonb) IS
    'docmodel internal: the join condition of generated SQL, every equality named with its schema';

-- The primary key columns of tbl, in key order (NULL when it has none).
CREATE FUNCTION docmodel._pk_columns(tbl regclass) RETURNS text[]
LANGUAGE sql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT array_agg(a.attname::text ORDER BY k.n)
    FROM pg_index i
    CROSS JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k(att, n)
    JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.att
    WHERE i.indrelid = tbl AND i.indisprimary
$$;
COMMENT ON FUNCTION docmodel._pk_columns(regclass) IS
    'docmodel internal: the primary key columns of a table, in key order';

-- The foreign keys from src to dst: each as its columns and the columns
-- they reference, in constraint order.
CREATE FUNCTION docmodel._fk_columns(src regclass, dst regclass)
    RETURNS TABLE(name name, cols text[], ref_cols text[])
LANGUAGE sql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT c.conname,
        array_agg(a.attname::text ORDER BY k.n),
        array_agg(b.attname::text ORDER BY k.n)
    FROM pg_constraint c
    CROSS JOIN LATERAL unnest(c.conkey, c.confkey) WITH ORDINALITY AS k(att, fatt, n)
    JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.att
    JOIN pg_attribute b ON b.attrelid = c.confrelid AND b.attnum = k.fatt
    WHERE c.contype = 'f' AND c.conrelid = src AND c.confrelid = dst
    GROUP BY c.oid, c.conname
    ORDER BY c.conname
$$;
COMMENT ON FUNCTION docmodel._fk_columns(regclass, regclass) IS
    'docmodel internal: the foreign keys from one table to another, with their columns';

-- Raise 22023 unless every name of cols is a column of tbl.
CREATE FUNCTION docmodel._check_columns(tbl regclass, cols text[], what text)
    RETURNS void
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c text;
BEGIN
    FOREACH c IN ARRAY coalesce(cols, '{}') LOOP
        IF NOT EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = tbl
                AND a.attname = c AND a.attnum > 0 AND NOT a.attisdropped) THEN
            RAISE EXCEPTION USING ERRCODE = '42703',
                MESSAGE = format('column "%s" of %s does not exist', c, what),
                DETAIL = format('Table %s has no column "%s".', tbl, c);
        END IF;
    END LOOP;
END
$$;
COMMENT ON FUNCTION docmodel._check_columns(regclass, text[], text) IS
    'docmodel internal: raise 42703 naming the first of cols that is not a column of tbl';

-- The join of a part: the columns of tbl and of under that match, from the
-- columns given (fk_columns: tbl's side when tbl references under, under's
-- side when under references tbl) or else from the one foreign key declared
-- between the two tables. child_side says which table holds the foreign key.
CREATE FUNCTION docmodel._part_join(mapping text, tbl regclass, under regclass,
    fk_columns text[], child_side text, OUT cols text[], OUT under_cols text[])
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    src regclass := CASE child_side WHEN 'tbl' THEN tbl ELSE under END;
    dst regclass := CASE child_side WHEN 'tbl' THEN under ELSE tbl END;
    n integer;
    fk_cols text[];
    ref_cols text[];
BEGIN
    IF fk_columns IS NOT NULL THEN
        -- a relationship the database does not declare: src's columns given,
        -- matched to dst's primary key in order
        ref_cols := docmodel._pk_columns(dst);
        IF ref_cols IS NULL OR cardinality(fk_columns) <> cardinality(ref_cols) THEN
            RAISE EXCEPTION USING ERRCODE = '22023',
                MESSAGE = format('fk_columns %s of mapping "%s" do not match the primary key of %s',
                    fk_columns, mapping, dst),
                DETAIL = format('%s has primary key %s; give one column of %s for each of its columns, in order.',
                    dst, coalesce(ref_cols::text, '(none)'), src);
        END IF;
        PERFORM docmodel._check_columns(src, fk_columns, src::text);
        fk_cols := fk_columns;
    ELSE
        SELECT count(*) INTO n FROM docmodel._fk_columns(src, dst);
        IF n <> 1 THEN
            RAISE EXCEPTION USING ERRCODE = '22023',
                MESSAGE = format('%s foreign keys from %s to %s in mapping "%s"',
                    CASE WHEN n = 0 THEN 'no' ELSE n::text END, src, dst, mapping),
                HINT = format('Give fk_columns: the columns of %s that hold the key of %s.', src, dst);
        END IF;
        SELECT f.cols, f.ref_cols INTO fk_cols, ref_cols FROM docmodel._fk_columns(src, dst) f;
    END IF;
    IF child_side = 'tbl' THEN
        cols := fk_cols; under_cols := ref_cols;
    ELSE
        cols := ref_cols; under_cols := fk_cols;
    END IF;
END
$$;
COMMENT ON FUNCTION docmodel._part_join(text, regclass, regclass, text[], text) IS
    'docmodel internal: the join columns of a mapped table and the table it sits under';

-- The mapping (owner, mapping), checked; the table a part sits under (the
-- root unless given), which must be the root or a table embedded in the
-- mapping.
CREATE FUNCTION docmodel._mapping_under(owner regrole, mapping text, under regclass)
    RETURNS regclass
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r regclass;
BEGIN
    SELECT m.root INTO r FROM docmodel.mappings m
    WHERE m.owner = _mapping_under.owner AND m.name = _mapping_under.mapping;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = '42704',
            MESSAGE = format('mapping "%s" does not exist', mapping),
            HINT = 'Create it with docmodel.create_mapping().';
    END IF;
    IF under IS NULL OR under = r THEN
        RETURN r;
    END IF;
    IF NOT EXISTS (SELECT FROM docmodel.mapping_parts p
            WHERE p.owner = _mapping_under.owner AND p.mapping = _mapping_under.mapping
              AND p.tbl = _mapping_under.under AND p.spec->>'kind' IN ('array', 'object', 'merge')) THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('%s is not embedded in mapping "%s"', under, mapping),
            DETAIL = 'A part sits under the root table or under a table embedded before it.';
    END IF;
    RETURN under;
END
$$;
COMMENT ON FUNCTION docmodel._mapping_under(regrole, text, regclass) IS
    'docmodel internal: the table a new part of a mapping sits under (42704 without the mapping)';

-- Raise 22023 unless tbl is embedded nowhere else in the mapping yet.
CREATE FUNCTION docmodel._mapping_embed_once(owner regrole, mapping text, tbl regclass, field text)
    RETURNS void
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF tbl = (SELECT m.root FROM docmodel.mappings m
              WHERE m.owner = _mapping_embed_once.owner AND m.name = _mapping_embed_once.mapping)
        OR EXISTS (SELECT FROM docmodel.mapping_parts p
            WHERE p.owner = _mapping_embed_once.owner AND p.mapping = _mapping_embed_once.mapping
              AND p.tbl = _mapping_embed_once.tbl AND p.field <> _mapping_embed_once.field
              AND p.spec->>'kind' IN ('array', 'object', 'merge')) THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('%s is already embedded in mapping "%s"', tbl, mapping),
            DETAIL = 'A table is embedded once per mapping; reference it by key elsewhere (map_reference).';
    END IF;
END
$$;
COMMENT ON FUNCTION docmodel._mapping_embed_once(regrole, text, regclass, text) IS
    'docmodel internal: refuse a table embedded twice in one mapping';

-- The column names of a part's spec member, checked: a non-empty array of
-- names of columns of tbl (of n of them, unless n is NULL).
CREATE FUNCTION docmodel._spec_columns(v jsonb, tbl regclass, n integer, what text)
    RETURNS text[]
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    cols text[];
BEGIN
    IF jsonb_typeof(v) IS DISTINCT FROM 'array' OR jsonb_array_length(v) = 0
            OR jsonb_array_length(v) > 32 OR (n IS NOT NULL AND jsonb_array_length(v) <> n)
            OR EXISTS (SELECT FROM jsonb_array_elements(v) e WHERE jsonb_typeof(e) <> 'string') THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('invalid columns %s of %s', v, what),
            DETAIL = format('They are an array of %s column names of %s.', coalesce(n::text, '1 to 32'), tbl);
    END IF;
    cols := ARRAY(SELECT jsonb_array_elements_text(v));
    PERFORM docmodel._check_columns(tbl, cols, what);
    RETURN cols;
END
$$;
COMMENT ON FUNCTION docmodel._spec_columns(jsonb, regclass, integer, text) IS
    'docmodel internal: the column names a part''s spec gives, checked to be columns of the table';

/*
 * The one validator of what _mapping_write stores: every write of a mapping
 * table passes through it, whoever calls _mapping_write, so a stored
 * mapping holds table OIDs, column names of those tables, key types, and
 * keywords only from fixed lists. Returns what is stored: the spec rebuilt
 * from the checked members only.
 */
CREATE FUNCTION docmodel._mapping_check(op text, owner regrole, mapping text,
    tbl regclass, under regclass, field text, spec jsonb) RETURNS jsonb
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    what text := format('%s in mapping "%s"', tbl, mapping);
    kind text := spec->>'kind';
    src regclass;
    u regclass;
    res jsonb;
    o jsonb;
    via oid;
BEGIN
    IF op IS NULL OR owner IS NULL OR mapping IS NULL OR mapping = '' THEN
        RAISE EXCEPTION USING ERRCODE = CASE WHEN op IS NULL OR owner IS NULL OR mapping IS NULL THEN '22004' ELSE '22023' END, MESSAGE = 'a mapping change needs an op, an owner and a name';
    END IF;
    CASE op
    WHEN 'create' THEN
        IF tbl IS NULL OR jsonb_typeof(spec->'doc_type') IS DISTINCT FROM 'string' THEN
            RAISE EXCEPTION USING ERRCODE = CASE WHEN tbl IS NULL OR spec IS NULL THEN '22004' ELSE '22023' END,
                MESSAGE = format('mapping "%s" needs a root table and a document type', mapping);
        END IF;
        IF docmodel._pk_columns(tbl) IS NULL THEN
            RAISE EXCEPTION USING ERRCODE = '22023',
                MESSAGE = format('table %s of mapping "%s" has no primary key', tbl, mapping),
                DETAIL = 'Document keys are made of the primary key (<type>::<key columns>).',
                HINT = 'Add a primary key to the table.';
        END IF;
        PERFORM docmodel.key(spec->>'doc_type', 'x');   -- 22023 for a type a key cannot start with
        IF EXISTS (SELECT FROM docmodel.mappings m WHERE m.owner = _mapping_check.owner AND m.name = mapping) THEN
            RAISE EXCEPTION USING ERRCODE = '42710',
                MESSAGE = format('mapping "%s" already exists', mapping);
        END IF;
        RETURN jsonb_build_object('doc_type', spec->>'doc_type');
    WHEN 'column' THEN
        PERFORM docmodel._mapping_under(owner, mapping, NULL);
        IF tbl IS NULL OR field IS NULL OR jsonb_typeof(spec) IS DISTINCT FROM 'object'
                OR coalesce(jsonb_typeof(spec->'name'), 'x') NOT IN ('string', 'null')
                OR spec->>'name' = '' THEN
            RAISE EXCEPTION USING ERRCODE = CASE WHEN tbl IS NULL OR field IS NULL OR spec IS NULL THEN '22004' ELSE '22023' END,
                MESSAGE = format('invalid column change of %s', what),
                DETAIL = 'A column change names a column of the table and its new name (a non-empty string, or null to leave it out).';
        END IF;
        PERFORM docmodel._check_columns(tbl, ARRAY[field], what);
        RETURN jsonb_build_object('name', spec->'name');
    WHEN 'drop', 'unproject' THEN
        PERFORM docmodel._mapping_under(owner, mapping, NULL);
        IF op = 'drop' AND EXISTS (SELECT FROM docmodel.projections p
                WHERE p.owner = _mapping_check.owner AND p.mapping = _mapping_check.mapping) THEN
            RAISE EXCEPTION USING ERRCODE = '2BP01',
                MESSAGE = format('cannot drop mapping "%s": it is projected', mapping),
                DETAIL = 'Its projection''s triggers would outlive it.',
                HINT = 'Stop the projection first (docmodel.stop_projection).';
        END IF;
        RETURN NULL;
    WHEN 'project' THEN
        PERFORM docmodel._mapping_under(owner, mapping, NULL);
        IF tbl IS NULL OR under IS NULL THEN
            RAISE EXCEPTION USING ERRCODE = '22004',
                MESSAGE = format('a projection of mapping "%s" needs a table and a collection', mapping);
        END IF;
        PERFORM docmodel._require_collection(under);
        IF NOT tbl::oid = ANY (docmodel._mapping_tables(docmodel._mapping_spec(owner, mapping))) THEN
            RAISE EXCEPTION USING ERRCODE = '22023',
                MESSAGE = format('%s is not a table of mapping "%s"', tbl, mapping);
        END IF;
        -- the projection's triggers on tbl, which its caller (a member of
        -- the owner role) has just created: only they run its statement
        IF jsonb_typeof(spec->'triggers') IS DISTINCT FROM 'array' OR jsonb_array_length(spec->'triggers') <> 3
                OR (SELECT count(DISTINCT g.oid) FROM pg_trigger g
                    WHERE g.oid::text IN (SELECT jsonb_array_elements_text(spec->'triggers'))
                      AND g.tgrelid = tbl AND g.tgfoid = 'docmodel._projection_trigger()'::regprocedure
                      AND g.tgname IN (SELECT docmodel._projection_trigger_name(owner, mapping) || x
                                       FROM unnest('{_i,_u,_d}'::text[]) x)
                      AND g.tgargs = convert_to(owner::oid::text, getdatabaseencoding()) || '\x00'::bytea
                          || convert_to(mapping, getdatabaseencoding()) || '\x00'::bytea) <> 3 THEN
            RAISE EXCEPTION USING ERRCODE = '22023',
                MESSAGE = format('invalid triggers %s of a projection of mapping "%s" on %s',
                    coalesce((spec->'triggers')::text, 'null'), mapping, tbl),
                DETAIL = 'A projection is recorded with the three triggers docmodel.project_tables created on the table.';
        END IF;
        RETURN jsonb_build_object('triggers', (SELECT jsonb_agg(x::bigint ORDER BY x::bigint)
            FROM jsonb_array_elements_text(spec->'triggers') x));
    WHEN 'part' THEN
        NULL;
    ELSE
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('unknown mapping change "%s"', op),
            DETAIL = 'The changes are create, part, column, drop, project and unproject.';
    END CASE;
    -- a part
    IF tbl IS NULL OR under IS NULL OR field IS NULL OR field = '' OR jsonb_typeof(spec) IS DISTINCT FROM 'object'
            OR kind IS NULL OR kind NOT IN ('array', 'object', 'merge', 'reference', 'references') THEN
        RAISE EXCEPTION USING ERRCODE = CASE WHEN tbl IS NULL OR under IS NULL OR field IS NULL OR spec IS NULL THEN '22004' ELSE '22023' END,
            MESSAGE = format('invalid part of %s', what),
            DETAIL = 'A part has a table, the table it sits under, a field name and a spec whose kind is array, object, merge, reference or references.';
    END IF;
    u := docmodel._mapping_under(owner, mapping, under);
    IF kind = 'references' THEN
        IF coalesce(jsonb_typeof(spec->'via'), 'x') NOT IN ('number', 'string') OR spec->>'via' !~ '^[0-9]{1,10}$'
                OR NOT EXISTS (SELECT FROM pg_class c WHERE c.oid::text = spec->>'via' AND c.relkind IN ('r', 'p', 'v', 'm', 'f')) THEN
            RAISE EXCEPTION USING ERRCODE = '22023',
                MESSAGE = format('invalid junction table %s of %s', spec->'via', what);
        END IF;
        via := (spec->>'via')::oid;
        IF NOT has_table_privilege(via, 'SELECT') THEN
            RAISE EXCEPTION USING ERRCODE = '42501',
                MESSAGE = format('permission denied for table %s', via::regclass),
                DETAIL = format('Mapping "%s" reads the table.', mapping);
        END IF;
        src := via;
    ELSE
        src := tbl;
    END IF;
    res := jsonb_build_object('kind', kind,
        'cols', to_jsonb(docmodel._spec_columns(spec->'cols', src, NULL, what)));
    res := res || jsonb_build_object('under_cols',
        to_jsonb(docmodel._spec_columns(spec->'under_cols', u, jsonb_array_length(spec->'cols'), what)));
    IF kind IN ('array', 'object', 'merge') THEN
        PERFORM docmodel._mapping_embed_once(owner, mapping, tbl, field);
    END IF;
    IF kind = 'array' THEN
        IF coalesce(jsonb_typeof(spec->'order_by'), 'null') NOT IN ('array', 'null')
                OR jsonb_array_length(CASE jsonb_typeof(spec->'order_by') WHEN 'array' THEN spec->'order_by' ELSE '[]' END) > 32 THEN
            RAISE EXCEPTION USING ERRCODE = '22023',
                MESSAGE = format('invalid order_by %s of %s', spec->'order_by', what);
        END IF;
        FOR o IN SELECT x FROM jsonb_array_elements(CASE jsonb_typeof(spec->'order_by') WHEN 'array' THEN spec->'order_by' ELSE '[]' END) x LOOP
            IF jsonb_typeof(o) IS DISTINCT FROM 'array' OR jsonb_array_length(o) <> 3
                    OR jsonb_typeof(o->0) <> 'string'
                    OR o->1 NOT IN ('""', '"ASC"', '"DESC"')
                    OR o->2 NOT IN ('""', '"NULLS FIRST"', '"NULLS LAST"') THEN
                RAISE EXCEPTION USING ERRCODE = '22023',
                    MESSAGE = format('invalid order_by item %s of %s', o, what),
                    DETAIL = 'An item is [column, "" or "ASC" or "DESC", "" or "NULLS FIRST" or "NULLS LAST"].';
            END IF;
            PERFORM docmodel._check_columns(tbl, ARRAY[o->>0], what);
        END LOOP;
        IF coalesce(jsonb_typeof(spec->'max_items'), 'null') NOT IN ('number', 'null')
                OR (jsonb_typeof(spec->'max_items') = 'number'
                    AND NOT (spec->>'max_items' ~ '^[0-9]{1,10}$' AND (spec->>'max_items')::bigint BETWEEN 1 AND 2147483647)) THEN
            RAISE EXCEPTION USING ERRCODE = '22023',
                MESSAGE = format('invalid max_items %s of %s', spec->'max_items', what),
                DETAIL = 'max_items is at least 1 (NULL: no limit).';
        END IF;
        res := res || jsonb_build_object('order_by', CASE jsonb_typeof(spec->'order_by') WHEN 'array' THEN spec->'order_by' END,
            'max_items', CASE jsonb_typeof(spec->'max_items') WHEN 'number' THEN (spec->>'max_items')::integer END);
    ELSIF kind IN ('reference', 'references') THEN
        IF jsonb_typeof(spec->'type') IS DISTINCT FROM 'string' THEN
            RAISE EXCEPTION USING ERRCODE = '22023',
                MESSAGE = format('the reference of %s needs a type', what);
        END IF;
        PERFORM docmodel.key(spec->>'type', 'x');
        res := res || jsonb_build_object('type', spec->>'type');
        IF kind = 'references' THEN
            res := res || jsonb_build_object('via', via::bigint,
                'key_cols', to_jsonb(docmodel._spec_columns(spec->'key_cols', via::regclass,
                    cardinality(docmodel._pk_columns(tbl)), what)));
        END IF;
    END IF;
    RETURN res;
END
$$;
COMMENT ON FUNCTION docmodel._mapping_check(text, regrole, text, regclass, regclass, text, jsonb) IS
    'docmodel internal: the one validator of a change of a mapping; returns what _mapping_write stores (22023 for anything else)';

CREATE FUNCTION docmodel.create_mapping(name text, root regclass, doc_type text DEFAULT NULL)
    RETURNS void
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF name IS NULL OR name = '' OR root IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = CASE WHEN name IS NULL OR root IS NULL THEN '22004' ELSE '22023' END,
            MESSAGE = 'a mapping needs a name and a root table';
    END IF;
    PERFORM docmodel._mapping_write('create', (SELECT r.oid FROM pg_roles r WHERE r.rolname = current_user)::regrole,
        name, root, NULL, NULL, jsonb_build_object('doc_type',
            coalesce(doc_type, (SELECT c.relname::text FROM pg_class c WHERE c.oid = root))));
END
$$;
COMMENT ON FUNCTION docmodel.create_mapping(text, regclass, text) IS
    'docmodel: a new mapping of the current user whose documents are the rows of root, keyed <doc_type>::<primary key> (doc_type: the table''s name unless given)';

CREATE FUNCTION docmodel.drop_mapping(name text) RETURNS boolean
LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    o regrole;
BEGIN
    BEGIN
        o := docmodel._mapping_owner(name);
    EXCEPTION WHEN undefined_object THEN
        RETURN false;
    END;
    PERFORM docmodel._mapping_write('drop', o, name, NULL, NULL, NULL, NULL);
    RETURN true;
END
$$;
COMMENT ON FUNCTION docmodel.drop_mapping(text) IS
    'docmodel: drop a mapping and its parts (2BP01 while it is projected); false when there was none';

-- Order items "col [ASC|DESC] [NULLS FIRST|LAST]", each column checked.
CREATE FUNCTION docmodel._order_items(tbl regclass, order_by text, what text)
    RETURNS jsonb
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    item text;
    m text[];
    res jsonb := '[]';
BEGIN
    IF order_by IS NULL THEN
        RETURN NULL;
    END IF;
    FOREACH item IN ARRAY regexp_split_to_array(btrim(order_by), '\s*,\s*') LOOP
        m := regexp_match(item, '^([A-Za-z_][A-Za-z0-9_$]*|"(?:[^"]|"")+")(\s+(?:asc|desc))?(\s+nulls\s+(?:first|last))?$', 'i');
        IF m IS NULL THEN
            RAISE EXCEPTION USING ERRCODE = '22023',
                MESSAGE = format('invalid order_by "%s" of %s', order_by, what),
                DETAIL = format('"%s" is not a column with an optional ASC or DESC and NULLS FIRST or LAST.', item);
        END IF;
        IF left(m[1], 1) = '"' THEN
            m[1] := replace(substr(m[1], 2, length(m[1]) - 2), '""', '"');
        ELSE
            m[1] := lower(m[1]);
        END IF;
        PERFORM docmodel._check_columns(tbl, ARRAY[m[1]], what);
        res := res || jsonb_build_array(jsonb_build_array(m[1],
            upper(btrim(coalesce(m[2], ''))), upper(regexp_replace(btrim(coalesce(m[3], '')), '\s+', ' ', 'g'))));
    END LOOP;
    RETURN res;
END
$$;
COMMENT ON FUNCTION docmodel._order_items(regclass, text, text) IS
    'docmodel internal: an order_by list parsed into checked columns and directions';

-- Where a new part of a mapping goes: the owner of the mapping the name
-- means to the current user, the table the part sits under
-- (_mapping_under) and its field (by default the name of tbl).
CREATE FUNCTION docmodel._part_place(mapping text, tbl regclass, field text, under regclass,
    OUT owner regrole, OUT parent regclass, OUT name text)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    owner := docmodel._mapping_owner(mapping);
    parent := docmodel._mapping_under(owner, mapping, under);
    name := coalesce(field, (SELECT c.relname::text FROM pg_catalog.pg_class c
                             WHERE c.oid OPERATOR(pg_catalog.=) tbl));
END
$$;
COMMENT ON FUNCTION docmodel._part_place(text, regclass, text, regclass) IS
    'docmodel internal: the owner, the table it sits under and the field name of a new part of a mapping';

CREATE FUNCTION docmodel.map_embed_array(mapping text, child regclass,
    field text DEFAULT NULL, fk_columns text[] DEFAULT NULL,
    order_by text DEFAULT NULL, max_items integer DEFAULT NULL,
    under regclass DEFAULT NULL) RETURNS void
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    p record := docmodel._part_place(mapping, child, field, under);
    j record;
BEGIN
    j := docmodel._part_join(mapping, child, p.parent, fk_columns, 'tbl');
    PERFORM docmodel._mapping_write('part', p.owner, mapping, child, p.parent, p.name, jsonb_build_object(
        'kind', 'array', 'cols', j.cols, 'under_cols', j.under_cols,
        'order_by', docmodel._order_items(child, order_by, format('%s in mapping "%s"', child, mapping)),
        'max_items', max_items));
END
$$;
COMMENT ON FUNCTION docmodel.map_embed_array(text, regclass, text, text[], text, integer, regclass) IS
    'docmodel: embed the rows of child that reference a document''s row (the root''s, or under''s) as an array field (ordered, limited)';

CREATE FUNCTION docmodel.map_embed_object(mapping text, parent regclass,
    field text DEFAULT NULL, merge boolean DEFAULT false,
    fk_columns text[] DEFAULT NULL, under regclass DEFAULT NULL) RETURNS void
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    p record := docmodel._part_place(mapping, parent, field, under);
    side text := 'under';
    j record;
BEGIN
    PERFORM docmodel._mapping_embed_once(p.owner, mapping, parent, p.name);
    -- many:1 (under holds the key of parent), or 1:1 the other way round
    IF fk_columns IS NULL AND NOT EXISTS (SELECT FROM docmodel._fk_columns(p.parent, parent))
            AND EXISTS (SELECT FROM docmodel._fk_columns(parent, p.parent)) THEN
        side := 'tbl';
    END IF;
    j := docmodel._part_join(mapping, parent, p.parent, fk_columns, side);
    PERFORM docmodel._mapping_write('part', p.owner, mapping, parent, p.parent, p.name, jsonb_build_object(
        'kind', CASE WHEN merge THEN 'merge' ELSE 'object' END,
        'cols', j.cols, 'under_cols', j.under_cols));
END
$$;
COMMENT ON FUNCTION docmodel.map_embed_object(text, regclass, text, boolean, text[], regclass) IS
    'docmodel: embed the row of parent a document''s row refers to (or the one row referring to it) as an object field, or merge its fields';

CREATE FUNCTION docmodel.map_reference(mapping text, target regclass,
    field text DEFAULT NULL, fk_columns text[] DEFAULT NULL,
    via regclass DEFAULT NULL, target_type text DEFAULT NULL,
    under regclass DEFAULT NULL) RETURNS void
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    p record := docmodel._part_place(mapping, target, field, under);
    -- the target's type: the mapping's own for its root table (a table
    -- referring to itself), else the table's name
    t text := coalesce(target_type,
        (SELECT m.doc_type FROM docmodel.mappings m WHERE m.owner = p.owner AND m.name = map_reference.mapping AND m.root = target),
        (SELECT c.relname::text FROM pg_class c WHERE c.oid = target));
    j record;
    k record;
BEGIN
    PERFORM docmodel.key(t, 'x');
    IF via IS NULL THEN
        -- many:1: the document's row holds the target's key
        j := docmodel._part_join(mapping, target, p.parent, fk_columns, 'under');
        PERFORM docmodel._mapping_write('part', p.owner, mapping, target, p.parent, p.name, jsonb_build_object(
            'kind', 'reference', 'type', t, 'cols', j.cols, 'under_cols', j.under_cols));
    ELSE
        -- many:many: the junction's rows referring to the document's row
        -- give the targets' keys
        j := docmodel._part_join(mapping, via, p.parent, NULL, 'tbl');
        k := docmodel._part_join(mapping, via, target, fk_columns, 'tbl');
        PERFORM docmodel._mapping_write('part', p.owner, mapping, target, p.parent, p.name, jsonb_build_object(
            'kind', 'references', 'type', t, 'via', via::oid,
            'cols', j.cols, 'under_cols', j.under_cols, 'key_cols', k.cols));
    END IF;
END
$$;
COMMENT ON FUNCTION docmodel.map_reference(text, regclass, text, text[], regclass, text, regclass) IS
    'docmodel: a field holding the document key of the target row (<type>::<key>), or through a junction table (via) an array of them';

-- The owner of the mapping the name means to the current user, once col
-- is checked to be a column of tbl (map_rename, map_exclude).
CREATE FUNCTION docmodel._mapping_column_owner(mapping text, tbl regclass, col name)
    RETURNS regrole
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    o regrole := docmodel._mapping_owner(mapping);
BEGIN
    PERFORM docmodel._check_columns(tbl, ARRAY[col::text],
        pg_catalog.format('%s in mapping "%s"', tbl, mapping));
    RETURN o;
END
$$;
COMMENT ON FUNCTION docmodel._mapping_column_owner(text, regclass, name) IS
    'docmodel internal: the owner of a mapping, once a column a change names is checked to be one of the table';

CREATE FUNCTION docmodel.map_rename(mapping text, tbl regclass, col name, new_name text)
    RETURNS void
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    o regrole := docmodel._mapping_column_owner(mapping, tbl, col);
BEGIN
    IF new_name IS NULL OR new_name = '' THEN
        RAISE EXCEPTION USING ERRCODE = CASE WHEN new_name IS NULL THEN '22004' ELSE '22023' END,
            MESSAGE = format('invalid new name for column "%s" of %s in mapping "%s"', col, tbl, mapping),
            HINT = 'To leave a column out, use docmodel.map_exclude().';
    END IF;
    PERFORM docmodel._mapping_write('column', o, mapping, tbl, NULL, col,
        jsonb_build_object('name', new_name));
END
$$;
COMMENT ON FUNCTION docmodel.map_rename(text, regclass, name, text) IS
    'docmodel: the field name a column of a mapped table takes in the documents';

CREATE FUNCTION docmodel.map_exclude(mapping text, tbl regclass, col name)
    RETURNS void
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM docmodel._mapping_write('column', docmodel._mapping_column_owner(mapping, tbl, col),
        mapping, tbl, NULL, col, jsonb_build_object('name', NULL));
END
$$;
COMMENT ON FUNCTION docmodel.map_exclude(text, regclass, name) IS
    'docmodel: leave a column of a mapped table out of the documents';

-- The whole description of mapping (owner, mapping) (root, type, parts,
-- columns) as jsonb, tables as OIDs: what the generators read.
CREATE FUNCTION docmodel._mapping_spec(owner regrole, mapping text) RETURNS jsonb
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    res jsonb;
BEGIN
    PERFORM docmodel._mapping_under(owner, mapping, NULL);
    SELECT jsonb_build_object('name', m.name, 'owner', m.owner::oid, 'root', m.root::oid, 'type', m.doc_type,
        'parts', coalesce((SELECT jsonb_agg(p.spec || jsonb_build_object('tbl', p.tbl::oid,
                'under', p.under::oid, 'field', p.field) ORDER BY p.added)
            FROM docmodel.mapping_parts p WHERE p.owner = m.owner AND p.mapping = m.name), '[]'),
        'columns', coalesce((SELECT jsonb_object_agg(c.tbl::oid || '.' || c.col, c.new_name)
            FROM docmodel.mapping_columns c WHERE c.owner = m.owner AND c.mapping = m.name), '{}'))
    INTO res
    FROM docmodel.mappings m WHERE m.owner = _mapping_spec.owner AND m.name = _mapping_spec.mapping;
    RETURN res;
END
$$;
COMMENT ON FUNCTION docmodel._mapping_spec(regrole, text) IS
    'docmodel internal: a mapping''s root, type, parts and column names as one jsonb';

-- The tables a mapping's documents are made of: the root, the embedded
-- tables and the junction tables (not the tables referenced by key).
CREATE FUNCTION docmodel._mapping_tables(spec jsonb) RETURNS oid[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT array_agg(DISTINCT x) FROM (
        SELECT (spec->>'root')::oid AS x
        UNION ALL SELECT (p->>'tbl')::oid FROM jsonb_array_elements(spec->'parts') p
         WHERE p->>'kind' IN ('array', 'object', 'merge')
        UNION ALL SELECT (p->>'via')::oid FROM jsonb_array_elements(spec->'parts') p
         WHERE p->>'kind' = 'references') s
$$;
COMMENT ON FUNCTION docmodel._mapping_tables(jsonb) IS
    'docmodel internal: the tables whose rows a mapping''s documents are made of';

-- The SQL expression of a document key of type doc_type made of the key
-- column expressions cols, as the layout spec carries (_mapping_layout:
-- delimiter, type_part; '::' and the type first without one). A reference
-- (ref) always names its type: it may point into another collection.
CREATE FUNCTION docmodel._mapping_key_sql(spec jsonb, doc_type text, cols text, ref boolean)
    RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE
        WHEN coalesce(spec->>'delimiter', '::') = '::' AND (ref OR coalesce(spec->>'type_part', '1') <> '0') THEN
            format('docmodel.key(%L::pg_catalog.text, %s)', doc_type, cols)
        WHEN ref OR coalesce(spec->>'type_part', '1') <> '0' THEN
            format('docmodel.key_with(%L::pg_catalog.text, %L::pg_catalog.text, %s)', spec->>'delimiter', doc_type, cols)
        ELSE format('docmodel.key_with(%L::pg_catalog.text, %s)', coalesce(spec->>'delimiter', '::'), cols)
    END
$$;
COMMENT ON FUNCTION docmodel._mapping_key_sql(jsonb, text, text, boolean) IS
    'docmodel internal: the SQL expression of a document key of generated SQL, with the layout''s delimiter and type part';

-- A mapping's spec with the key layout of collection coll: its delimiter,
-- and whether keys carry the type (type_part 1) or not (type_part 0, the
-- collection's one type then being the mapping's); 22023 for a layout
-- whose type is not the key's first part.
CREATE FUNCTION docmodel._mapping_layout(spec jsonb, coll regclass) RETURNS jsonb
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c record;
BEGIN
    PERFORM docmodel._require_collection(coll);
    SELECT x.delimiter, x.type_part, x.doc_type INTO c
    FROM docmodel.collection_config x WHERE x.coll = _mapping_layout.coll;
    IF c.type_part > 1 THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('mapping "%s" cannot write into collection %s, whose keys hold the type in part %s',
                spec->>'name', coll, c.type_part),
            DETAIL = 'A mapping''s keys are <type><delimiter><primary key>, or the primary key alone (type_part 0).';
    END IF;
    IF c.type_part = 0 AND c.doc_type IS DISTINCT FROM spec->>'type' THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('mapping "%s" makes documents of type "%s", collection %s holds type "%s"',
                spec->>'name', spec->>'type', coll, c.doc_type),
            DETAIL = 'Its keys carry no type (type_part 0): every document is of the collection''s type.';
    END IF;
    RETURN spec || jsonb_build_object('delimiter', c.delimiter, 'type_part', c.type_part);
END
$$;
COMMENT ON FUNCTION docmodel._mapping_layout(jsonb, regclass) IS
    'docmodel internal: a mapping''s spec with the key layout (delimiter, type part) of the collection it writes into';

-- The spec of the mapping a name means to the current user; with the key
-- layout of coll when given (references keyed as migrate_tables writes
-- them into coll).
CREATE FUNCTION docmodel._mapping_spec_named(mapping text, coll regclass DEFAULT NULL)
    RETURNS jsonb
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    spec jsonb := docmodel._mapping_spec(docmodel._mapping_owner(mapping), mapping);
BEGIN
    IF coll IS NOT NULL THEN
        spec := docmodel._mapping_layout(spec, coll);
    END IF;
    RETURN spec;
END
$$;
COMMENT ON FUNCTION docmodel._mapping_spec_named(text, regclass) IS
    'docmodel internal: the spec of the mapping a name means to the current user, with the key layout of coll when given';

-- The pairs (name, value) of jsonb_build_object for the columns of a row of
-- tbl (alias a): in column order, renamed, less those excluded.
CREATE FUNCTION docmodel._mapping_column_pairs(spec jsonb, tbl oid, a text) RETURNS text[]
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(array_agg(format('%L::pg_catalog.text, %I.%I',
               CASE WHEN (spec->'columns') ? (tbl || '.' || c.attname)
                    THEN spec->'columns'->>(tbl || '.' || c.attname) ELSE c.attname::text END,
               a, c.attname) ORDER BY c.attnum), '{}')
    FROM pg_attribute c
    WHERE c.attrelid = tbl AND c.attnum > 0 AND NOT c.attisdropped
      AND NOT ((spec->'columns') ? (tbl || '.' || c.attname)
               AND spec->'columns'->>(tbl || '.' || c.attname) IS NULL)
$$;
COMMENT ON FUNCTION docmodel._mapping_column_pairs(jsonb, oid, text) IS
    'docmodel internal: the name and value pairs of generated SQL for the columns of a mapped table''s row (renamed, less those excluded)';

-- The pair of jsonb_build_object of a reference part p of a row (alias a):
-- the target's key made of the row's columns, NULL when one is.
CREATE FUNCTION docmodel._mapping_reference_pair(spec jsonb, p jsonb, a text) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT format('%L::pg_catalog.text, CASE WHEN %s THEN NULL ELSE %s END', p->>'field',
        string_agg(format('%I.%I IS NULL', a, x.u), ' OR ' ORDER BY x.n),
        docmodel._mapping_key_sql(spec, p->>'type', string_agg(format('%I.%I', a, x.u), ', ' ORDER BY x.n), true))
    FROM jsonb_array_elements_text(p->'under_cols') WITH ORDINALITY x(u, n)
$$;
COMMENT ON FUNCTION docmodel._mapping_reference_pair(jsonb, jsonb, text) IS
    'docmodel internal: the name and value pair of generated SQL for a reference part: the target''s key, NULL when a key column is';

-- The document expression of generated SQL from its pairs and the merged
-- parts' expressions (each starting with ||): the row's own fields win over
-- merged ones; jsonb_build_object takes at most 100 arguments, 50 pairs a
-- call.
CREATE FUNCTION docmodel._mapping_object_sql(pairs text[], merges text) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    res text := '';
BEGIN
    FOR i IN 1 .. greatest(cardinality(pairs), 1) BY 50 LOOP
        res := res || CASE WHEN i > 1 THEN ' OPERATOR(pg_catalog.||) ' ELSE '' END
            || format('pg_catalog.jsonb_build_object(%s)', array_to_string(pairs[i : i + 49], ', '));
    END LOOP;
    RETURN CASE WHEN merges = '' THEN res
        ELSE format('(%s%s OPERATOR(pg_catalog.||) %s)', '''{}''::pg_catalog.jsonb', merges, res) END;
END
$$;
COMMENT ON FUNCTION docmodel._mapping_object_sql(text[], text) IS
    'docmodel internal: the document expression of generated SQL from its name and value pairs and merged parts';

-- An array part's ORDER BY list over alias b, from its order_by (column,
-- direction, nulls: the directions a fixed list of keywords); NULL when
-- there is none.
CREATE FUNCTION docmodel._order_by_sql(b text, order_by jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT string_agg(format('%I.%I%s%s', b, o->>0,
            CASE o->>1 WHEN '' THEN '' WHEN 'ASC' THEN ' ASC' WHEN 'DESC' THEN ' DESC' END,
            CASE o->>2 WHEN '' THEN '' WHEN 'NULLS FIRST' THEN ' NULLS FIRST' WHEN 'NULLS LAST' THEN ' NULLS LAST' END),
        ', ' ORDER BY n)
    FROM jsonb_array_elements(CASE jsonb_typeof(order_by) WHEN 'array' THEN order_by ELSE '[]' END)
        WITH ORDINALITY o(o, n)
$$;
COMMENT ON FUNCTION docmodel._order_by_sql(text, jsonb) IS
    'docmodel internal: the ORDER BY list of an array part of a mapping over an alias (NULL without order_by)';

-- The SQL expression of the document of a row of tbl (alias a): its columns
-- (renamed, less those excluded), the parts under tbl, merges last. Every
-- name is quoted (%I), every value a literal (%L), every keyword from a
-- fixed list, every function and operator named with its schema.
CREATE FUNCTION docmodel._mapping_doc_sql(spec jsonb, tbl oid, a text, depth integer)
    RETURNS text
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    pairs text[] := '{}';
    merges text := '';
    p jsonb;
    b text := 't' || depth;
    src oid;
    src_sql text;
    cond text;
    keyparts text;
    ord text;
    sub text;
BEGIN
    IF depth > 32 THEN
        RAISE EXCEPTION USING ERRCODE = '54001',
            MESSAGE = format('mapping "%s" nests more than 32 levels', spec->>'name');
    END IF;
    pairs := docmodel._mapping_column_pairs(spec, tbl, a);
    FOR p IN SELECT x FROM jsonb_array_elements(spec->'parts') x
            WHERE (x->>'under')::oid = tbl LOOP
        src := CASE WHEN p->>'kind' = 'references' THEN (p->>'via')::oid ELSE (p->>'tbl')::oid END;
        src_sql := docmodel._rel_sql(src);
        cond := docmodel._join_sql(b, src, p->'cols', a, tbl, p->'under_cols');
        CASE p->>'kind'
        WHEN 'array' THEN
            ord := docmodel._order_by_sql(b, p->'order_by');
            -- without order_by: the child's primary key, so that a document
            -- is the same whichever plan or physical order made it
            IF ord IS NULL THEN
                SELECT string_agg(format('%I.%I', b, c), ', ' ORDER BY n) INTO ord
                FROM unnest(docmodel._pk_columns((p->>'tbl')::oid)) WITH ORDINALITY u(c, n);
            END IF;
            sub := format('pg_catalog.to_jsonb(ARRAY(SELECT %s FROM %s AS %I WHERE %s%s%s))',
                docmodel._mapping_doc_sql(spec, (p->>'tbl')::oid, b, depth + 1), src_sql, b, cond,
                CASE WHEN ord IS NOT NULL THEN ' ORDER BY ' || ord ELSE '' END,
                CASE WHEN jsonb_typeof(p->'max_items') = 'number'
                     THEN ' LIMIT ' || (p->>'max_items')::integer ELSE '' END);
            pairs := pairs || format('%L::pg_catalog.text, %s', p->>'field', sub);
        WHEN 'object' THEN
            pairs := pairs || format('%L::pg_catalog.text, (SELECT %s FROM %s AS %I WHERE %s LIMIT 1)', p->>'field',
                docmodel._mapping_doc_sql(spec, (p->>'tbl')::oid, b, depth + 1), src_sql, b, cond);
        WHEN 'merge' THEN
            merges := merges || format(' OPERATOR(pg_catalog.||) coalesce((SELECT %s FROM %s AS %I WHERE %s LIMIT 1), ''{}''::pg_catalog.jsonb)',
                docmodel._mapping_doc_sql(spec, (p->>'tbl')::oid, b, depth + 1), src_sql, b, cond);
        WHEN 'reference' THEN
            pairs := pairs || docmodel._mapping_reference_pair(spec, p, a);
        WHEN 'references' THEN
            SELECT string_agg(format('%I.%I', b, k), ', ') INTO keyparts
            FROM jsonb_array_elements_text(p->'key_cols') k;
            pairs := pairs || format('%L::pg_catalog.text, pg_catalog.to_jsonb(ARRAY(SELECT %s FROM %s AS %I WHERE %s ORDER BY 1))',
                p->>'field', docmodel._mapping_key_sql(spec, p->>'type', keyparts, true), src_sql, b, cond);
        ELSE
            RAISE EXCEPTION USING ERRCODE = '22023',
                MESSAGE = format('invalid part kind "%s" in mapping "%s"', p->>'kind', spec->>'name');
        END CASE;
    END LOOP;
    RETURN docmodel._mapping_object_sql(pairs, merges);
END
$$;
COMMENT ON FUNCTION docmodel._mapping_doc_sql(jsonb, oid, text, integer) IS
    'docmodel internal: the SQL expression building the document of a row of a mapped table';

-- The query of a mapping's documents: key, doc and the root's primary key
-- columns (k1, k2, ...), in no particular order.
CREATE FUNCTION docmodel._mapping_sql(spec jsonb) RETURNS text
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    root oid := (spec->>'root')::oid;
    pk text[] := docmodel._pk_columns(root);
BEGIN
    IF pk IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('table %s of mapping "%s" has no primary key', root::regclass, spec->>'name');
    END IF;
    RETURN format('SELECT %s AS key, %s AS doc, %s FROM %s AS t0',
        docmodel._mapping_key_sql(spec, spec->>'type',
            (SELECT string_agg(format('t0.%I', c), ', ' ORDER BY n) FROM unnest(pk) WITH ORDINALITY u(c, n)), false),
        docmodel._mapping_doc_sql(spec, root, 't0', 1),
        (SELECT string_agg(format('t0.%I AS k%s', c, n), ', ' ORDER BY n) FROM unnest(pk) WITH ORDINALITY u(c, n)),
        docmodel._rel_sql(root));
END
$$;
COMMENT ON FUNCTION docmodel._mapping_sql(jsonb) IS
    'docmodel internal: the query of a mapping''s documents (key, doc, the root''s key columns k1, k2, ...)';

-- Whether the columns cols (names) of tbl hold each value at most once:
-- a unique index, immediate and not partial, on some of them.
CREATE FUNCTION docmodel._unique_columns(tbl oid, cols jsonb) RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT EXISTS (SELECT FROM pg_index i
        WHERE i.indrelid = tbl AND i.indisunique AND i.indimmediate AND i.indpred IS NULL
          AND i.indexprs IS NULL AND i.indnkeyatts > 0
          AND (SELECT bool_and(a.attname::text IN (SELECT jsonb_array_elements_text(cols)))
               FROM unnest((i.indkey::int2[])[0 : i.indnkeyatts - 1]) k(att)
               JOIN pg_attribute a ON a.attrelid = tbl AND a.attnum = k.att))
$$;
COMMENT ON FUNCTION docmodel._unique_columns(oid, jsonb) IS
    'docmodel internal: whether a unique index (immediate, not partial) covers some of the given columns of a table';

-- The set-based form of _mapping_doc_sql: the document of a row of tbl
-- (alias a) as an expression (doc) over a and the joins (joins) that go
-- after a in its FROM list: for each part under tbl reading another table
-- (arrays, objects, merges, junctions), a LEFT JOIN to that table read
-- once and grouped by its join columns (j1, j2, ...) into one value (v)
-- per row of tbl, parts under it joined the same way inside, bottom-up.
-- The documents are _mapping_doc_sql's: arrays in the same order (order_by,
-- else the child's primary key) and cut at max_items, an object or merge
-- one row (any one, as LIMIT 1 takes, when the join columns are not
-- unique), junction keys sorted.
CREATE FUNCTION docmodel._mapping_set_doc_sql(spec jsonb, tbl oid, a text, depth integer,
    OUT doc text, OUT joins text)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    pairs text[] := '{}';
    merges text := '';
    p jsonb;
    b text := 't' || depth;
    j text;
    np integer := 0;
    src oid;
    src_sql text;
    on_sql text;
    grp text;
    keyparts text;
    ord text;
    child record;
    from_sql text;
BEGIN
    IF depth > 32 THEN
        RAISE EXCEPTION USING ERRCODE = '54001',
            MESSAGE = format('mapping "%s" nests more than 32 levels', spec->>'name');
    END IF;
    joins := '';
    pairs := docmodel._mapping_column_pairs(spec, tbl, a);
    FOR p IN SELECT x FROM jsonb_array_elements(spec->'parts') x
            WHERE (x->>'under')::oid = tbl LOOP
        IF p->>'kind' = 'reference' THEN
            pairs := pairs || docmodel._mapping_reference_pair(spec, p, a);
            CONTINUE;
        ELSIF p->>'kind' NOT IN ('array', 'object', 'merge', 'references') THEN
            RAISE EXCEPTION USING ERRCODE = '22023',
                MESSAGE = format('invalid part kind "%s" in mapping "%s"', p->>'kind', spec->>'name');
        END IF;
        np := np + 1;
        j := format('j%s_%s', depth, np);
        src := CASE WHEN p->>'kind' = 'references' THEN (p->>'via')::oid ELSE (p->>'tbl')::oid END;
        src_sql := docmodel._rel_sql(src);
        -- the join columns of src as j1, j2, ..., matched to tbl's
        SELECT string_agg(format('%I.%I', b, c.v), ', ' ORDER BY c.n),
               string_agg(format('%I.%I AS j%s', b, c.v, c.n), ', ' ORDER BY c.n),
               string_agg(format('%I.j%s %s %I.%I', j, c.n,
                   docmodel._eq_op((SELECT x.atttypid FROM pg_attribute x WHERE x.attrelid = src AND x.attname = c.v),
                                   (SELECT y.atttypid FROM pg_attribute y WHERE y.attrelid = tbl AND y.attname = u.v)),
                   a, u.v), ' AND ' ORDER BY c.n)
            INTO grp, keyparts, on_sql
        FROM jsonb_array_elements_text(p->'cols') WITH ORDINALITY c(v, n)
        JOIN jsonb_array_elements_text(p->'under_cols') WITH ORDINALITY u(v, n) USING (n);
        CASE p->>'kind'
        WHEN 'array' THEN
            ord := docmodel._order_by_sql(b, p->'order_by');
            -- without order_by: the child's primary key, as _mapping_doc_sql
            IF ord IS NULL THEN
                SELECT string_agg(format('%I.%I', b, c), ', ' ORDER BY n) INTO ord
                FROM unnest(docmodel._pk_columns(src)) WITH ORDINALITY u(c, n);
            END IF;
            child := docmodel._mapping_set_doc_sql(spec, src, b, depth + 1);
            from_sql := format('%s AS %I', src_sql, b);
            IF jsonb_typeof(p->'max_items') = 'number' THEN
                -- the first max_items rows of each group, in the array's order
                from_sql := format('(SELECT %1$I.*, pg_catalog.row_number() OVER (PARTITION BY %2$s%3$s) AS %4$I FROM %5$s AS %1$I) AS %1$I',
                    b, grp, CASE WHEN ord IS NOT NULL THEN ' ORDER BY ' || ord ELSE '' END, '_docmodel_rn' || depth, src_sql);
            END IF;
            joins := joins || format(' LEFT JOIN (SELECT %s, pg_catalog.jsonb_agg(%s%s) AS v FROM %s%s%s GROUP BY %s) AS %I ON %s',
                keyparts, child.doc, CASE WHEN ord IS NOT NULL THEN ' ORDER BY ' || ord ELSE '' END,
                from_sql, child.joins,
                CASE WHEN jsonb_typeof(p->'max_items') = 'number'
                     THEN format(' WHERE %I.%I OPERATOR(pg_catalog.<=) %s', b, '_docmodel_rn' || depth, (p->>'max_items')::integer) ELSE '' END,
                grp, j, on_sql);
            pairs := pairs || format('%L::pg_catalog.text, coalesce(%I.v, ''[]''::pg_catalog.jsonb)', p->>'field', j);
        WHEN 'object', 'merge' THEN
            child := docmodel._mapping_set_doc_sql(spec, src, b, depth + 1);
            -- one row of src per row of tbl: any one (as LIMIT 1) unless its
            -- join columns are unique
            IF docmodel._unique_columns(src, p->'cols') THEN
                joins := joins || format(' LEFT JOIN (SELECT %s, %s AS v FROM %s AS %I%s) AS %I ON %s',
                    keyparts, child.doc, src_sql, b, child.joins, j, on_sql);
            ELSE
                joins := joins || format(' LEFT JOIN (SELECT DISTINCT ON (%s) %s, %s AS v FROM %s AS %I%s) AS %I ON %s',
                    grp, keyparts, child.doc, src_sql, b, child.joins, j, on_sql);
            END IF;
            IF p->>'kind' = 'object' THEN
                pairs := pairs || format('%L::pg_catalog.text, %I.v', p->>'field', j);
            ELSE
                merges := merges || format(' OPERATOR(pg_catalog.||) coalesce(%I.v, ''{}''::pg_catalog.jsonb)', j);
            END IF;
        WHEN 'references' THEN
            SELECT string_agg(format('%I.%I', b, k), ', ') INTO ord
            FROM jsonb_array_elements_text(p->'key_cols') k;
            ord := docmodel._mapping_key_sql(spec, p->>'type', ord, true);
            joins := joins || format(' LEFT JOIN (SELECT %s, pg_catalog.jsonb_agg(%s ORDER BY %s) AS v FROM %s AS %I GROUP BY %s) AS %I ON %s',
                keyparts, ord, ord, src_sql, b, grp, j, on_sql);
            pairs := pairs || format('%L::pg_catalog.text, coalesce(%I.v, ''[]''::pg_catalog.jsonb)', p->>'field', j);
        END CASE;
    END LOOP;
    doc := docmodel._mapping_object_sql(pairs, merges);
END
$$;
COMMENT ON FUNCTION docmodel._mapping_set_doc_sql(jsonb, oid, text, integer) IS
    'docmodel internal: the set-based form of a mapped table''s documents: the expression and the joins (each other table read once, grouped by its join columns) that go after the table in a FROM list';

-- The query denormalize runs: every document of the mapping spec (key,
-- doc) in primary key order, each table read once (_mapping_set_doc_sql).
CREATE FUNCTION docmodel._mapping_set_sql(spec jsonb) RETURNS text
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    root oid := (spec->>'root')::oid;
    pk text[] := docmodel._pk_columns(root);
    d record;
BEGIN
    IF pk IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('table %s of mapping "%s" has no primary key', root::regclass, spec->>'name');
    END IF;
    d := docmodel._mapping_set_doc_sql(spec, root, 't0', 1);
    RETURN format('SELECT %s AS key, %s AS doc FROM %s AS t0%s ORDER BY %s',
        docmodel._mapping_key_sql(spec, spec->>'type',
            (SELECT string_agg(format('t0.%I', c), ', ' ORDER BY n) FROM unnest(pk) WITH ORDINALITY u(c, n)), false),
        d.doc, docmodel._rel_sql(root), d.joins,
        (SELECT string_agg(format('t0.%I', c), ', ' ORDER BY n) FROM unnest(pk) WITH ORDINALITY u(c, n)));
END
$$;
COMMENT ON FUNCTION docmodel._mapping_set_sql(jsonb) IS
    'docmodel internal: the set-based query of a mapping''s documents (key, doc), in primary key order: what denormalize runs';

-- The query of denormalize: of the mapping a name means to the current
-- user (by_mapping), or of denormalize(root, doc_type, depth); and the
-- relations it may reach (the mapping's tables: _denormalize_rows refuses
-- a plan that reaches another, a name renamed or replaced meanwhile).
CREATE FUNCTION docmodel._denormalize_sql(by_mapping boolean, mapping text, root regclass,
    doc_type text, depth integer, OUT sql text, OUT rels oid[])
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    spec jsonb;
BEGIN
    IF by_mapping THEN
        spec := docmodel._mapping_spec_named(mapping);
    ELSE
        spec := docmodel._auto_spec(root, doc_type, depth);
        PERFORM docmodel.key(spec->>'type', 'x');
    END IF;
    sql := docmodel._mapping_set_sql(spec);
    rels := docmodel._mapping_tables(spec);
END
$$;
COMMENT ON FUNCTION docmodel._denormalize_sql(boolean, text, regclass, text, integer) IS
    'docmodel internal: the query denormalize reads, of a mapping (by_mapping) or of the foreign keys around root, and the relations it may reach';

-- The rows of denormalize, one per call from a cursor on _denormalize_sql
-- (src/mapping/denormalize.c): in a target list, where PostgreSQL asks for
-- them one at a time, a LIMIT stops it.
CREATE FUNCTION docmodel._denormalize_rows(by_mapping boolean, mapping text, root regclass,
    doc_type text, depth integer) RETURNS TABLE(key text, doc jsonb)
    AS 'MODULE_PATHNAME', 'mapping_denormalize_rows'
    LANGUAGE C STABLE PARALLEL RESTRICTED ROWS 1000;
COMMENT ON FUNCTION docmodel._denormalize_rows(boolean, text, regclass, text, integer) IS
    'docmodel internal: the documents of denormalize, streamed from a cursor on the set-based query of a mapping (by_mapping) or of the foreign keys around root';

-- denormalize is an SQL function of one SELECT, without SET options, so
-- that PostgreSQL inlines it into the calling query: _denormalize_rows
-- then runs in that query's target list and a LIMIT stops it.
CREATE FUNCTION docmodel.denormalize(mapping text) RETURNS TABLE(key text, doc jsonb)
LANGUAGE sql STABLE PARALLEL RESTRICTED
AS $$
    SELECT (d.r).key, (d.r).doc
    FROM (SELECT docmodel._denormalize_rows(true, mapping, NULL::pg_catalog.regclass,
                                            NULL::pg_catalog.text, NULL::pg_catalog.int4) AS r) AS d
$$;
COMMENT ON FUNCTION docmodel.denormalize(text) IS
    'docmodel: the documents a mapping makes of its tables, in primary key order, read as the caller';

-- The spec of denormalize(root, doc_type, depth): tables referring to a
-- table embedded as arrays (depth levels), tables it refers to as key
-- references; every table once.
CREATE FUNCTION docmodel._auto_spec(root regclass, doc_type text, depth integer)
    RETURNS jsonb
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    parts jsonb := '[]';
    seen oid[] := ARRAY[root::oid];
    level oid[] := ARRAY[root::oid];
    next oid[];
    t oid;
    r record;
    d integer;
BEGIN
    IF depth IS NULL OR depth < 0 OR depth > 32 THEN
        RAISE EXCEPTION USING ERRCODE = CASE WHEN depth IS NULL THEN '22004' ELSE '22023' END,
            MESSAGE = format('invalid depth %s of denormalize(%s)', depth, root),
            DETAIL = 'depth is 0 (no arrays) to 32.';
    END IF;
    FOR d IN 0 .. depth LOOP
        next := '{}';
        FOREACH t IN ARRAY level LOOP
            -- what t refers to: key references, named after the table (or
            -- the key column when two keys reach one table)
            -- (a partitioned table is one table: the keys declared on it or
            -- on its partitions, each column list once, to the top-most
            -- parent of what they reach)
            FOR r IN SELECT x.dst, x.cols, x.ref_cols, count(*) OVER (PARTITION BY x.dst) AS n
                FROM (SELECT DISTINCT ON (coalesce(pg_partition_root(c.confrelid), c.confrelid), f.cols)
                        coalesce(pg_partition_root(c.confrelid), c.confrelid)::oid AS dst, f.cols, f.ref_cols, c.conname
                    FROM pg_constraint c
                    CROSS JOIN LATERAL docmodel._fk_columns(c.conrelid, c.confrelid) f
                    WHERE c.contype = 'f' AND c.conparentid = 0 AND f.name = c.conname
                      AND coalesce(pg_partition_root(c.conrelid), c.conrelid) = t
                    ORDER BY coalesce(pg_partition_root(c.confrelid), c.confrelid), f.cols, c.conname) x
                WHERE NOT (d > 0 AND x.dst = ANY (seen))
                ORDER BY x.conname LOOP
                parts := parts || jsonb_build_object('kind', 'reference', 'tbl', r.dst, 'under', t,
                    'field', CASE WHEN r.n = 1 THEN (SELECT relname FROM pg_class WHERE oid = r.dst)::text
                                  ELSE regexp_replace(r.cols[1], '_id$', '') END,
                    'type', CASE WHEN r.dst = root AND doc_type IS NOT NULL THEN doc_type
                                 ELSE (SELECT relname FROM pg_class WHERE oid = r.dst)::text END,
                    'cols', r.ref_cols, 'under_cols', r.cols);
            END LOOP;
            EXIT WHEN d = depth;
            -- who refers to t: embedded arrays
            FOR r IN SELECT DISTINCT ON (1) coalesce(pg_partition_root(c.conrelid), c.conrelid)::oid AS src,
                    f.cols, f.ref_cols
                FROM pg_constraint c
                CROSS JOIN LATERAL docmodel._fk_columns(c.conrelid, c.confrelid) f
                WHERE c.contype = 'f' AND c.conparentid = 0 AND f.name = c.conname
                  AND coalesce(pg_partition_root(c.confrelid), c.confrelid) = t
                  AND NOT coalesce(pg_partition_root(c.conrelid), c.conrelid) = ANY (seen)
                ORDER BY 1, c.conname LOOP
                seen := seen || r.src;
                next := next || r.src;
                parts := parts || jsonb_build_object('kind', 'array', 'tbl', r.src, 'under', t,
                    'field', (SELECT relname FROM pg_class WHERE oid = r.src)::text,
                    'cols', r.cols, 'under_cols', r.ref_cols, 'order_by',
                    (SELECT jsonb_agg(jsonb_build_array(c2, '', '')) FROM unnest(docmodel._pk_columns(r.src)) c2));
            END LOOP;
        END LOOP;
        level := next;
    END LOOP;
    RETURN jsonb_build_object('name', root::text, 'root', root::oid,
        'type', coalesce(doc_type, (SELECT relname FROM pg_class WHERE oid = root)::text),
        'parts', parts, 'columns', '{}'::jsonb);
END
$$;
COMMENT ON FUNCTION docmodel._auto_spec(regclass, text, integer) IS
    'docmodel internal: the mapping denormalize(root, doc_type, depth) follows, from the declared foreign keys';

CREATE FUNCTION docmodel.denormalize(root regclass, doc_type text DEFAULT NULL,
    depth integer DEFAULT 1) RETURNS TABLE(key text, doc jsonb)
LANGUAGE sql STABLE PARALLEL RESTRICTED
AS $$
    SELECT (d.r).key, (d.r).doc
    FROM (SELECT docmodel._denormalize_rows(false, NULL::pg_catalog.text, root, doc_type, depth) AS r) AS d
$$;
COMMENT ON FUNCTION docmodel.denormalize(regclass, text, integer) IS
    'docmodel: each row of root as a document keyed <type>::<primary key>, with the rows referring to it embedded as arrays (depth levels) and the rows it refers to as key references';

-- The JSON Schema of the documents of rows of tbl under a mapping.
CREATE FUNCTION docmodel._mapping_schema_of(spec jsonb, tbl oid, depth integer)
    RETURNS jsonb
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    props jsonb := '{}';
    req text[] := '{}';
    col record;
    p jsonb;
    s jsonb;
    name text;
    pattern text;
BEGIN
    IF depth > 32 THEN
        RAISE EXCEPTION USING ERRCODE = '54001',
            MESSAGE = format('mapping "%s" nests more than 32 levels', spec->>'name');
    END IF;
    FOR col IN SELECT a.attname, a.attnotnull, a.atttypid, a.atttypmod
        FROM pg_attribute a
        WHERE a.attrelid = tbl AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY a.attnum LOOP
        name := col.attname;
        IF (spec->'columns') ? (tbl || '.' || col.attname) THEN
            name := spec->'columns'->>(tbl || '.' || col.attname);
            CONTINUE WHEN name IS NULL;
        END IF;
        s := docmodel._json_column_schema(col.atttypid, col.atttypmod);
        IF NOT col.attnotnull AND s ? 'type' THEN
            s := jsonb_set(s, '{type}', jsonb_build_array(s->'type', 'null'));
            IF s ? 'enum' THEN
                s := jsonb_set(s, '{enum}', (s->'enum') || 'null'::jsonb);
            END IF;
        END IF;
        props := props || jsonb_build_object(name, s);
        req := req || name;
    END LOOP;
    FOR p IN SELECT x FROM jsonb_array_elements(spec->'parts') x
            WHERE (x->>'under')::oid = tbl LOOP
        pattern := '^' || regexp_replace(p->>'type' || coalesce(spec->>'delimiter', '::'),
            '([.^$*+?()\[\]{}|\\])', '\\\1', 'g');
        CASE p->>'kind'
        WHEN 'array' THEN
            s := jsonb_build_object('type', 'array',
                'items', docmodel._mapping_schema_of(spec, (p->>'tbl')::oid, depth + 1));
            IF p->'max_items' <> 'null' THEN
                s := s || jsonb_build_object('maxItems', p->'max_items');
            END IF;
        WHEN 'object' THEN
            s := jsonb_build_object('anyOf', jsonb_build_array(
                docmodel._mapping_schema_of(spec, (p->>'tbl')::oid, depth + 1),
                jsonb_build_object('type', 'null')));
        WHEN 'merge' THEN
            -- its fields, present when the row is there
            props := docmodel._mapping_schema_of(spec, (p->>'tbl')::oid, depth + 1)->'properties' || props;
            CONTINUE;
        WHEN 'reference' THEN
            s := jsonb_build_object('type', jsonb_build_array('string', 'null'), 'pattern', pattern);
        WHEN 'references' THEN
            s := jsonb_build_object('type', 'array',
                'items', jsonb_build_object('type', 'string', 'pattern', pattern));
        END CASE;
        props := props || jsonb_build_object(p->>'field', s);
        req := req || (p->>'field');
    END LOOP;
    RETURN jsonb_build_object('type', 'object', 'properties', props, 'required', to_jsonb(req));
END
$$;
COMMENT ON FUNCTION docmodel._mapping_schema_of(jsonb, oid, integer) IS
    'docmodel internal: the JSON Schema of the documents of a mapped table''s rows';

-- The JSON Schema of a PostgreSQL type's values as jsonb writes them.
CREATE FUNCTION docmodel._json_type_schema(typname name, typmod integer)
    RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE
        WHEN typname IN ('int2', 'int4', 'int8') THEN '{"type": "integer"}'
        WHEN typname IN ('numeric', 'float4', 'float8') THEN '{"type": "number"}'
        WHEN typname = 'bool' THEN '{"type": "boolean"}'
        WHEN typname IN ('varchar', 'bpchar') AND typmod > 4 THEN
            jsonb_build_object('type', 'string', 'maxLength', typmod - 4)
        WHEN typname = 'uuid' THEN '{"type": "string", "format": "uuid"}'
        WHEN typname = 'date' THEN '{"type": "string", "format": "date"}'
        WHEN typname = 'timestamptz' THEN '{"type": "string", "format": "date-time"}'
        WHEN typname IN ('json', 'jsonb') THEN '{}'
        ELSE '{"type": "string"}'
    END::jsonb
$$;
COMMENT ON FUNCTION docmodel._json_type_schema(name, integer) IS
    'docmodel internal: the JSON Schema of a type''s values in jsonb (integer, number, boolean, string with its format)';

-- The JSON Schema of a column's values in jsonb: a domain as its base type
-- (with the domain's typmod when it sets one), an enum as its labels, an
-- array as items of its element type.
CREATE FUNCTION docmodel._json_column_schema(typ oid, typmod integer)
    RETURNS jsonb
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    t record;
BEGIN
    -- a domain's chain of base types is finite (no cycles): at most as long
    -- as pg_type, bounded here all the same
    FOR i IN 1 .. 64 LOOP
        SELECT y.typname, y.typtype, y.typbasetype, y.typtypmod, y.typelem, y.typcategory
            INTO t FROM pg_type AS y WHERE y.oid OPERATOR(pg_catalog.=) typ;
        EXIT WHEN NOT FOUND OR t.typtype OPERATOR(pg_catalog.<>) 'd';
        typ := t.typbasetype;
        IF t.typtypmod OPERATOR(pg_catalog.<>) -1 THEN
            typmod := t.typtypmod;
        END IF;
    END LOOP;
    IF t IS NULL THEN
        RETURN '{}';
    END IF;
    IF t.typcategory OPERATOR(pg_catalog.=) 'A' AND t.typelem OPERATOR(pg_catalog.<>) 0 THEN
        RETURN jsonb_build_object('type', 'array',
            'items', docmodel._json_column_schema(t.typelem, typmod));
    END IF;
    IF t.typtype OPERATOR(pg_catalog.=) 'e' THEN
        RETURN jsonb_build_object('type', 'string', 'enum',
            (SELECT jsonb_agg(e.enumlabel ORDER BY e.enumsortorder) FROM pg_enum AS e
             WHERE e.enumtypid OPERATOR(pg_catalog.=) typ));
    END IF;
    RETURN docmodel._json_type_schema(t.typname,
        CASE WHEN t.typname IN ('varchar', 'bpchar') THEN typmod END);
END
$$;
COMMENT ON FUNCTION docmodel._json_column_schema(oid, integer) IS
    'docmodel internal: the JSON Schema of a column type''s values in jsonb (domains as their base type, enums as their labels, arrays as items)';

CREATE FUNCTION docmodel.mapping_schema(mapping text, coll regclass DEFAULT NULL) RETURNS jsonb
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    spec jsonb := docmodel._mapping_spec_named(mapping, coll);
BEGIN
    RETURN jsonb_build_object('$schema', 'https://json-schema.org/draft/2020-12/schema',
        'title', format('%s documents of mapping %s', spec->>'type', mapping))
        || docmodel._mapping_schema_of(spec, (spec->>'root')::oid, 1);
END
$$;
COMMENT ON FUNCTION docmodel.mapping_schema(text, regclass) IS
    'docmodel: a JSON Schema (2020-12) of the documents a mapping makes, from the column types and NOT NULLs, ready for register_schema (references keyed with the delimiter of coll, when given)';

-- The configuration id of coll; 42809 unless it is a docmodel collection
-- (DocmodelRequireCollection, the one place that says so).
CREATE FUNCTION docmodel._require_collection(coll regclass) RETURNS integer
LANGUAGE c STABLE PARALLEL SAFE
AS 'MODULE_PATHNAME', 'collection_require_collection';
COMMENT ON FUNCTION docmodel._require_collection(regclass) IS
    'docmodel internal: the configuration id of a docmodel collection; raise 42809 when the table is not one';

-- The batch statement of migrate_tables: the next $2 documents of the
-- mapping after root key $1 (a jsonb array; NULL: from the start) upserted
-- into coll; their count and the last root key and document key. Made
-- from the mapping for every batch: no statement is carried from call to
-- call.
CREATE FUNCTION docmodel._migrate_tables_sql(spec jsonb, coll regclass) RETURNS text
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    root oid := (spec->>'root')::oid;
    keys text;
    after_expr text;
BEGIN
    SELECT string_agg('q.k' || i, ', ' ORDER BY i),
           string_agg(format('($1 OPERATOR(pg_catalog.->>) %s)::%s', i - 1, format_type(a.atttypid, a.atttypmod)), ', ' ORDER BY i)
      INTO keys, after_expr
      FROM unnest(docmodel._pk_columns(root)) WITH ORDINALITY u(c, i)
      JOIN pg_attribute a ON a.attrelid = root AND a.attname = u.c;
    RETURN format(
        'WITH b AS (SELECT q.key, q.doc, pg_catalog.jsonb_build_array(%1$s) AS pk, pg_catalog.row_number() OVER (ORDER BY %1$s) AS rn
                    FROM (%2$s) q WHERE $1 IS NULL OR (%1$s) > (%3$s) ORDER BY %1$s LIMIT $2),
              w AS (INSERT INTO %4$s AS c (id, doc) SELECT b.key, b.doc FROM b
                    ON CONFLICT (id) DO UPDATE SET doc = excluded.doc)
         SELECT pg_catalog.count(*), (pg_catalog.array_agg(b.pk ORDER BY b.rn DESC))[1],
                (pg_catalog.array_agg(b.key ORDER BY b.rn DESC))[1] FROM b',
        keys, docmodel._mapping_sql(docmodel._mapping_layout(spec, coll)), after_expr, docmodel._rel_sql(coll));
END
$$;
COMMENT ON FUNCTION docmodel._migrate_tables_sql(jsonb, regclass) IS
    'docmodel internal: the batch statement of migrate_tables, made from the mapping';

-- migrate_tables' start: the run recorded (resuming after the last batch of
-- an unfinished run of the same mapping into coll), the arguments checked;
-- returns the state _migrate_tables_batch carries from batch to batch.
CREATE FUNCTION docmodel._migrate_tables_start(mapping text, coll regclass,
    batch_size integer) RETURNS jsonb
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    spec jsonb := docmodel._mapping_spec_named(mapping);
    root oid := (spec->>'root')::oid;
    status text;
    after jsonb;
    done bigint;
    total bigint;
    run bigint;
BEGIN
    IF batch_size IS NULL OR batch_size < 1 THEN
        RAISE EXCEPTION USING ERRCODE = CASE WHEN batch_size IS NULL THEN '22004' ELSE '22023' END,
            MESSAGE = format('invalid batch_size %s of migrate_tables("%s")', batch_size, mapping);
    END IF;
    PERFORM docmodel._require_collection(coll);
    SELECT r.status, r.targets->'after', r.docs_done INTO status, after, done
      FROM docmodel.migration_run r
     WHERE r.coll = _migrate_tables_start.coll AND r.targets->>'mapping' = mapping
       AND r.targets->>'owner' = spec->>'owner'
     ORDER BY r.run_id DESC LIMIT 1;
    IF status IS DISTINCT FROM 'running' AND status IS DISTINCT FROM 'failed' OR after = 'null' THEN
        after := NULL;
        done := 0;
    END IF;
    EXECUTE format('SELECT pg_catalog.count(*) FROM %s', docmodel._rel_sql(root)) INTO total;
    run := docmodel._migration_run_new(coll, spec->>'type', NULL,
        jsonb_build_object('mapping', mapping, 'owner', spec->'owner', 'after', after));
    -- the total from the start, so that a run failing in its first batch
    -- says how much it had to do
    PERFORM docmodel._migration_run_set(run, 'running', NULL, done, total,
        jsonb_build_object('mapping', mapping, 'owner', spec->'owner', 'after', after), NULL);
    RETURN jsonb_build_object('mapping', mapping, 'owner', spec->'owner', 'coll', coll::oid, 'batch', batch_size,
        'after', after, 'done', done, 'total', total, 'run', run);
END
$$;
COMMENT ON FUNCTION docmodel._migrate_tables_start(text, regclass, integer) IS
    'docmodel internal: record a run of migrate_tables (resuming an unfinished one) and check its arguments';

-- One batch of migrate_tables: the next documents upserted into the
-- collection, the run's progress recorded; NULL after the last.
CREATE FUNCTION docmodel._migrate_tables_batch(state jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    coll oid := (state->>'coll')::oid;
    spec jsonb := docmodel._mapping_spec_named(state->>'mapping');
    n bigint;
    after jsonb;
    last_key text;
    done bigint;
    more boolean;
    err_state text;
    err_msg text;
    err_detail text;
    err_hint text;
    err_context text;
BEGIN
    IF spec->'owner' IS DISTINCT FROM state->'owner' OR jsonb_typeof(state->'batch') IS DISTINCT FROM 'number'
            OR jsonb_typeof(state->'run') IS DISTINCT FROM 'number' THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('invalid state of a run of migrate_tables("%s")', state->>'mapping');
    END IF;
    PERFORM docmodel._require_collection(coll);
    IF NOT pg_try_advisory_xact_lock(1835496052,
            (coll::int8 - CASE WHEN coll::int8 >= 2147483648 THEN 4294967296 ELSE 0 END)::int4) THEN
        RAISE EXCEPTION USING ERRCODE = '55P03',
            MESSAGE = format('a bulk run on collection %s is in progress', coll::regclass);
    END IF;
    BEGIN
        EXECUTE docmodel._migrate_tables_sql(spec, coll) INTO n, after, last_key
            USING CASE WHEN state->'after' <> 'null' THEN state->'after' END, (state->>'batch')::integer;
    EXCEPTION WHEN OTHERS THEN
        -- the batch is rolled back; the run records why (migrate_tables
        -- commits that, then raises the error)
        GET STACKED DIAGNOSTICS err_state = RETURNED_SQLSTATE, err_msg = MESSAGE_TEXT,
            err_detail = PG_EXCEPTION_DETAIL, err_hint = PG_EXCEPTION_HINT,
            err_context = PG_EXCEPTION_CONTEXT;
        PERFORM docmodel._migration_run_set((state->>'run')::bigint, 'failed',
            (SELECT r.last_key FROM docmodel.migration_run r WHERE r.run_id = (state->>'run')::bigint),
            (state->>'done')::bigint, (state->>'total')::bigint,
            jsonb_build_object('mapping', state->>'mapping', 'owner', state->'owner', 'after', state->'after'),
            format('%s: %s', err_state, err_msg));
        RETURN jsonb_build_object('error', jsonb_build_object('state', err_state,
            'message', err_msg, 'detail', err_detail, 'hint', err_hint,
            'context', err_context));
    END;
    done := (state->>'done')::bigint + n;
    more := n = (state->>'batch')::integer;
    PERFORM docmodel._migration_run_set((state->>'run')::bigint, CASE WHEN more THEN 'running' ELSE 'done' END,
        coalesce(last_key, (SELECT r.last_key FROM docmodel.migration_run r WHERE r.run_id = (state->>'run')::bigint)),
        done, (state->>'total')::bigint,
        jsonb_build_object('mapping', state->>'mapping', 'owner', state->'owner', 'after', after), NULL);
    RETURN CASE WHEN more THEN state || jsonb_build_object('after', after, 'done', done) END;
END
$$;
COMMENT ON FUNCTION docmodel._migrate_tables_batch(jsonb) IS
    'docmodel internal: one batch of migrate_tables; the next state, NULL after the last batch, {"error": ...} when the batch failed (recorded in the run)';

CREATE PROCEDURE docmodel.migrate_tables(mapping text, coll regclass,
    batch_size integer DEFAULT 1000)
    AS 'MODULE_PATHNAME', 'migration_migrate_tables'
    LANGUAGE C;
COMMENT ON PROCEDURE docmodel.migrate_tables(text, regclass, integer) IS
    'docmodel: copy the documents of a mapping into a collection (through its trigger), committing batch by batch in primary key order, resumable; see docmodel.migration_runs';

-- Values between tables and documents (src/mapping/)
CREATE FUNCTION docmodel.is_missing(doc jsonb, VARIADIC path text[]) RETURNS boolean
    AS 'MODULE_PATHNAME', 'mapping_is_missing'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.is_missing(jsonb, text[]) IS
    'docmodel: N1QL''s MISSING: the path (member names and array indexes) is not in the document';
CREATE FUNCTION docmodel.is_null(doc jsonb, VARIADIC path text[]) RETURNS boolean
    AS 'MODULE_PATHNAME', 'mapping_is_null'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.is_null(jsonb, text[]) IS
    'docmodel: N1QL''s NULL: the path holds JSON null';
CREATE FUNCTION docmodel.is_valued(doc jsonb, VARIADIC path text[]) RETURNS boolean
    AS 'MODULE_PATHNAME', 'mapping_is_valued'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.is_valued(jsonb, text[]) IS
    'docmodel: N1QL''s valued: the path holds a value other than null';
CREATE FUNCTION docmodel.to_epoch(ts timestamptz, unit text DEFAULT 'ms') RETURNS bigint
    AS 'MODULE_PATHNAME', 'mapping_to_epoch'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.to_epoch(timestamptz, text) IS
    'docmodel: whole units (ns, us, ms, s, min, h, day) since 1970-01-01 UTC, rounded down';
CREATE FUNCTION docmodel.from_epoch(n bigint, unit text DEFAULT 'ms') RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'mapping_from_epoch'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.from_epoch(bigint, text) IS
    'docmodel: the time n units (ns, us, ms, s, min, h, day) after 1970-01-01 UTC';
CREATE FUNCTION docmodel.compact(doc jsonb, options jsonb DEFAULT '{}') RETURNS jsonb
    AS 'MODULE_PATHNAME', 'mapping_compact'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.compact(jsonb, jsonb) IS
    'docmodel: a document made smaller as options say: null and empty members dropped (default), members at their default value dropped, ISO 8601 dates as epoch numbers, GUIDs without dashes';

-- References between documents (keys held in a field)
-- The key of a value embed() meets: a string is a whole key, a number the
-- id part of a key of type key_type (or the collection's doc_type); with
-- key_type given, a string is an id too.
CREATE FUNCTION docmodel._embed_key(v jsonb, coll regclass, key_type text, path text[])
    RETURNS text
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    cfg record;
    t text;
BEGIN
    IF jsonb_typeof(v) = 'string' AND key_type IS NULL THEN
        RETURN v #>> '{}';
    END IF;
    SELECT c.doc_type, c.delimiter, c.type_part INTO cfg FROM docmodel.collection_config c WHERE c.coll = _embed_key.coll;
    -- keys that carry no type (type_part 0): the id is the whole key
    IF cfg.type_part = 0 THEN
        RETURN v #>> '{}';
    END IF;
    IF cfg.type_part > 1 THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('path %s of the document holds the id %s, not a key', path, v),
            DETAIL = format('Collection %s takes the type from part %s of its keys: an id alone does not say the parts before it.', coll, cfg.type_part),
            HINT = 'Store whole keys at the path.';
    END IF;
    t := coalesce(key_type, cfg.doc_type);
    IF t IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('path %s of the document holds the number %s, not a key', path, v),
            DETAIL = format('Collection %s has no doc_type to make a key of it.', coll),
            HINT = 'Give key_type: the type of the keys the numbers are the ids of.';
    END IF;
    RETURN docmodel.key_with(cfg.delimiter, t, v #>> '{}');
END
$$;
COMMENT ON FUNCTION docmodel._embed_key(jsonb, regclass, text, text[]) IS
    'docmodel internal: the document key a value at an embed() path names (a key, or an id of key_type)';

-- embed() below one step of its path: v with what path reaches in it
-- (each element of an array for a * step) replaced by the documents it
-- names (or their summary: the members fields lists).
CREATE FUNCTION docmodel._embed_at(v jsonb, rest text[], coll regclass, key_type text,
    fields text[], path text[]) RETURNS jsonb
LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    step text := rest[1];
    d jsonb;
BEGIN
    IF v IS NULL OR jsonb_typeof(v) = 'null' THEN
        RETURN v;
    END IF;
    IF cardinality(rest) = 0 THEN
        IF jsonb_typeof(v) IN ('string', 'number') THEN
            d := docmodel.get(coll, docmodel._embed_key(v, coll, key_type, path));
            IF fields IS NOT NULL AND jsonb_typeof(d) = 'object' THEN
                d := coalesce((SELECT jsonb_object_agg(f, d -> f) FROM unnest(fields) f WHERE d ? f), '{}');
            END IF;
            RETURN coalesce(d, 'null');
        END IF;
        IF jsonb_typeof(v) <> 'array' OR EXISTS (SELECT FROM jsonb_array_elements(v) e
                WHERE jsonb_typeof(e) NOT IN ('string', 'number', 'null')) THEN
            RAISE EXCEPTION USING ERRCODE = '22023',
                MESSAGE = format('path %s of the document holds %s, not a key or an array of keys',
                    path, jsonb_typeof(v));
        END IF;
        RETURN coalesce((SELECT jsonb_agg(docmodel._embed_at(e, '{}', coll, key_type, fields, path) ORDER BY n)
            FROM jsonb_array_elements(v) WITH ORDINALITY x(e, n)), '[]');
    END IF;
    IF step IS NULL THEN
        RETURN v;
    END IF;
    IF jsonb_typeof(v) = 'array' AND step = '*' THEN
        RETURN coalesce((SELECT jsonb_agg(docmodel._embed_at(e, rest[2:], coll, key_type, fields, path) ORDER BY n)
            FROM jsonb_array_elements(v) WITH ORDINALITY x(e, n)), '[]');
    END IF;
    IF jsonb_typeof(v) = 'object' AND v ? step
            OR jsonb_typeof(v) = 'array' AND step ~ '^-?[0-9]{1,9}$' AND v -> step::integer IS NOT NULL THEN
        RETURN jsonb_set(v, ARRAY[step], docmodel._embed_at(v #> ARRAY[step], rest[2:], coll, key_type, fields, path));
    END IF;
    RETURN v;   -- the path is absent
END
$$;
COMMENT ON FUNCTION docmodel._embed_at(jsonb, text[], regclass, text, text[], text[]) IS
    'docmodel internal: embed() below one step of its path (* for every element of an array)';

CREATE FUNCTION docmodel.embed(doc jsonb, path text[], coll regclass,
    key_type text DEFAULT NULL, fields text[] DEFAULT NULL) RETURNS jsonb
LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF doc IS NULL OR path IS NULL OR coll IS NULL OR cardinality(path) = 0 THEN
        RETURN doc;
    END IF;
    PERFORM docmodel._require_collection(coll);
    RETURN docmodel._embed_at(doc, path, coll, key_type, fields, path);
END
$$;
COMMENT ON FUNCTION docmodel.embed(jsonb, text[], regclass, text, text[]) IS
    'docmodel: the document with the keys at path (* for every element of an array; numbers as ids of key_type) replaced by the documents of coll they name, or their members fields, read as get() reads them (null where none)';

CREATE FUNCTION docmodel.dangling_refs(coll regclass, path text[], target regclass)
    RETURNS TABLE(key text, ref text)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM docmodel._require_collection(target);
    -- the documents as every style shows them (with their stamps)
    RETURN QUERY EXECUTE format(
        'SELECT d.id, r.ref FROM %1$s AS d
           CROSS JOIN LATERAL (SELECT %3$s OPERATOR(pg_catalog.#>) $1 AS v) AS x
           CROSS JOIN LATERAL pg_catalog.jsonb_array_elements_text(CASE pg_catalog.jsonb_typeof(x.v)
               WHEN ''array'' THEN x.v WHEN ''string'' THEN pg_catalog.jsonb_build_array(x.v)
               ELSE ''[]''::pg_catalog.jsonb END) AS r(ref)
          WHERE (d.expires_at IS NULL OR d.expires_at OPERATOR(pg_catalog.>) pg_catalog.now())
            AND NOT EXISTS (SELECT FROM %2$s AS t WHERE t.id OPERATOR(pg_catalog.=) r.ref
                            AND (t.expires_at IS NULL OR t.expires_at OPERATOR(pg_catalog.>) pg_catalog.now()))
          ORDER BY 1, 2', docmodel._rel_sql(coll), docmodel._rel_sql(target),
        docmodel._document_sql(coll, 'd'))
    USING path;
END
$$;
COMMENT ON FUNCTION docmodel.dangling_refs(regclass, text[], regclass) IS
    'docmodel: the keys at path in the documents of coll that name no live document of target';

/*
 * Live projections: each table a projected mapping reads, and the
 * collection it is projected onto. No statement is stored: the trigger
 * makes its statement from the mapping (_projection_sql) and keeps it for
 * the backend until a mapping table, a table it reads or a schema changes.
 * Written only by _mapping_write.
 */
CREATE TABLE docmodel.projections (
    mapping  text NOT NULL,
    owner    regrole NOT NULL,
    tbl      regclass NOT NULL,
    coll     regclass NOT NULL,
    triggers oid[] NOT NULL,
    PRIMARY KEY (owner, mapping, tbl),
    FOREIGN KEY (owner, mapping) REFERENCES docmodel.mappings (owner, name) ON DELETE CASCADE
);
COMMENT ON TABLE docmodel.projections IS
    'docmodel: the tables of each projected mapping, the collection it is projected onto and the triggers project_tables created';
SELECT pg_catalog.pg_extension_config_dump('docmodel.projections', '');
GRANT SELECT ON docmodel.projections TO PUBLIC;
CREATE TRIGGER mappings_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
    ON docmodel.projections FOR EACH STATEMENT EXECUTE FUNCTION docmodel._mappings_changed();

-- The root keys (k1, k2, ...) of the documents rows of tbl in transition
-- table src feed: joined up the mapping's chain of parts to the root.
CREATE FUNCTION docmodel._projection_roots(spec jsonb, tbl oid, src text) RETURNS text
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    root oid := (spec->>'root')::oid;
    cur oid := tbl;
    prev text := 'c';
    from_sql text := format('%I AS c', src);
    p jsonb;
    i integer := 0;
BEGIN
    WHILE cur <> root LOOP
        SELECT x INTO p FROM jsonb_array_elements(spec->'parts') x
        WHERE (x->>'kind' IN ('array', 'object', 'merge') AND (x->>'tbl')::oid = cur)
           OR (x->>'kind' = 'references' AND (x->>'via')::oid = cur)
        LIMIT 1;
        IF p IS NULL OR i >= 32 THEN
            RETURN NULL;   -- not a table the documents are made of
        END IF;
        i := i + 1;
        from_sql := from_sql || format(' JOIN %s AS %I ON %s', docmodel._rel_sql((p->>'under')::oid), 'u' || i,
            docmodel._join_sql('u' || i, (p->>'under')::oid, p->'under_cols', prev, cur, p->'cols'));
        prev := 'u' || i;
        cur := (p->>'under')::oid;
    END LOOP;
    RETURN format('SELECT %s FROM %s',
        (SELECT string_agg(format('%I.%I AS k%s', prev, c, n), ', ' ORDER BY n)
         FROM unnest(docmodel._pk_columns(root)) WITH ORDINALITY u(c, n)), from_sql);
END
$$;
COMMENT ON FUNCTION docmodel._projection_roots(jsonb, oid, text) IS
    'docmodel internal: the query of the root keys a transition table''s rows of a mapped table feed';

-- The statement trigger tgoid of projection (owner, mapping) on tbl runs
-- for event (insert, update, delete), made from the mapping: the documents
-- of the root keys affected rewritten through the collection (upserted, or
-- deleted when their root row is gone); and the relations it may reach
-- (the mapping's tables, the tables it references by key, the collection).
-- sql is NULL unless tbl is a table of a projection of the mapping and
-- tgoid one of the triggers project_tables created for it.
CREATE FUNCTION docmodel._projection_sql(owner regrole, mapping text, tbl oid, event text,
    tgoid oid, OUT sql text, OUT rels oid[])
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    srcs text[] := CASE event WHEN 'insert' THEN '{new_rows}' WHEN 'update' THEN '{old_rows,new_rows}'
                              WHEN 'delete' THEN '{old_rows}' END;
    coll oid;
    spec jsonb;
    pk text[];
    eq text;
BEGIN
    IF srcs IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = format('invalid projection event "%s"', event);
    END IF;
    SELECT p.coll INTO coll FROM docmodel.projections p
    WHERE p.owner = _projection_sql.owner AND p.mapping = _projection_sql.mapping AND p.tbl = _projection_sql.tbl
      AND _projection_sql.tgoid = ANY (p.triggers);
    IF NOT FOUND THEN
        RETURN;
    END IF;
    spec := docmodel._mapping_layout(docmodel._mapping_spec(owner, mapping), coll);
    IF NOT tbl = ANY (docmodel._mapping_tables(spec)) THEN
        RETURN;
    END IF;
    pk := docmodel._pk_columns((spec->>'root')::oid);
    eq := (SELECT string_agg(format('a.k%s %s q.k%s', n, docmodel._eq_op(x.atttypid, x.atttypid), n), ' AND ' ORDER BY n)
           FROM unnest(pk) WITH ORDINALITY u(c, n)
           JOIN pg_attribute x ON x.attrelid = (spec->>'root')::oid AND x.attname = u.c);
    sql := format(
        'WITH a AS (%1$s),
              d AS (SELECT q.key, q.doc FROM (%2$s) AS q WHERE EXISTS (SELECT FROM a WHERE %3$s)),
              up AS (INSERT INTO %4$s AS c (id, doc) SELECT d.key, d.doc FROM d
                     ON CONFLICT (id) DO UPDATE SET doc = excluded.doc RETURNING 1)
         DELETE FROM %4$s AS c
          WHERE EXISTS (SELECT FROM a WHERE c.id OPERATOR(pg_catalog.=) %5$s)
            AND NOT EXISTS (SELECT FROM d WHERE d.key OPERATOR(pg_catalog.=) c.id)',
        (SELECT string_agg(docmodel._projection_roots(spec, tbl, s), ' UNION ') FROM unnest(srcs) s),
        docmodel._mapping_sql(spec), eq, docmodel._rel_sql(coll),
        docmodel._mapping_key_sql(spec, spec->>'type',
            (SELECT string_agg('a.k' || i, ', ' ORDER BY i) FROM generate_series(1, cardinality(pk)) i), false));
    rels := docmodel._mapping_tables(spec) || coll
        || coalesce((SELECT array_agg((p->>'tbl')::oid) FROM jsonb_array_elements(spec->'parts') p
                     WHERE p->>'kind' IN ('reference', 'references')), '{}');
END
$$;
COMMENT ON FUNCTION docmodel._projection_sql(regrole, text, oid, text, oid) IS
    'docmodel internal: the statement a projection trigger runs for one event of one table, made from the mapping, and the relations it may reach';

CREATE FUNCTION docmodel._projection_trigger() RETURNS trigger
    AS 'MODULE_PATHNAME', 'mapping_projection_trigger'
    LANGUAGE C;
COMMENT ON FUNCTION docmodel._projection_trigger() IS
    'docmodel internal: the statement trigger of a projected table: rewrites the documents its changed rows feed';

-- The name of a projection's triggers: per owner and mapping.
CREATE FUNCTION docmodel._projection_trigger_name(owner regrole, mapping text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT 'docmodel_projection_' OPERATOR(pg_catalog.||)
        pg_catalog.left(pg_catalog.md5(owner::oid::text OPERATOR(pg_catalog.||) '/' OPERATOR(pg_catalog.||) mapping), 12)
$$;
COMMENT ON FUNCTION docmodel._projection_trigger_name(regrole, text) IS
    'docmodel internal: the name of the triggers of a projection of a mapping';

CREATE FUNCTION docmodel.project_tables(mapping text, coll regclass) RETURNS void
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    o regrole := docmodel._mapping_owner(mapping);
    spec jsonb := docmodel._mapping_spec(o, mapping);
    t oid;
    name text := docmodel._projection_trigger_name(o, mapping);
BEGIN
    PERFORM docmodel._require_collection(coll);
    PERFORM docmodel._mapping_layout(spec, coll);   -- keys the collection can hold
    -- its triggers' statements read transition tables, which Citus cannot
    -- send to the workers
    IF docmodel._citus_distributed(coll) THEN
        RAISE EXCEPTION USING ERRCODE = '0A000',
            MESSAGE = format('cannot project mapping "%s" onto distributed collection %s', mapping, coll),
            HINT = 'Load it with docmodel.migrate_tables() instead, which works on a distributed collection.';
    END IF;
    PERFORM docmodel.stop_projection(mapping);
    FOREACH t IN ARRAY docmodel._mapping_tables(spec) LOOP
        -- as the caller: creating triggers takes the table's TRIGGER
        -- privilege; the arguments name the mapping by owner and name
        EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %s REFERENCING NEW TABLE AS new_rows
            FOR EACH STATEMENT EXECUTE FUNCTION docmodel._projection_trigger(%L, %L)',
            name || '_i', docmodel._rel_sql(t), o::oid, mapping);
        EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %s REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
            FOR EACH STATEMENT EXECUTE FUNCTION docmodel._projection_trigger(%L, %L)',
            name || '_u', docmodel._rel_sql(t), o::oid, mapping);
        EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %s REFERENCING OLD TABLE AS old_rows
            FOR EACH STATEMENT EXECUTE FUNCTION docmodel._projection_trigger(%L, %L)',
            name || '_d', docmodel._rel_sql(t), o::oid, mapping);
        PERFORM docmodel._mapping_write('project', o, mapping, t::regclass, coll, NULL,
            jsonb_build_object('triggers', (SELECT jsonb_agg(g.oid::bigint) FROM pg_trigger g
                WHERE g.tgrelid = t AND g.tgname IN (name || '_i', name || '_u', name || '_d'))));
    END LOOP;
END
$$;
COMMENT ON FUNCTION docmodel.project_tables(text, regclass) IS
    'docmodel: keep a collection in step with a mapping''s tables: triggers on every table the documents are made of rewrite exactly the documents a change touches, in the same transaction';

CREATE FUNCTION docmodel.stop_projection(mapping text) RETURNS boolean
LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    o regrole := docmodel._mapping_owner(mapping);
    t oid;
    name text := docmodel._projection_trigger_name(o, mapping);
    found_any boolean := false;
BEGIN
    FOR t IN SELECT p.tbl FROM docmodel.projections p
            WHERE p.owner = o AND p.mapping = stop_projection.mapping LOOP
        -- a table dropped since took its triggers with it
        IF EXISTS (SELECT FROM pg_class c WHERE c.oid = t) THEN
            EXECUTE format('DROP TRIGGER IF EXISTS %I ON %s', name || '_i', docmodel._rel_sql(t));
            EXECUTE format('DROP TRIGGER IF EXISTS %I ON %s', name || '_u', docmodel._rel_sql(t));
            EXECUTE format('DROP TRIGGER IF EXISTS %I ON %s', name || '_d', docmodel._rel_sql(t));
        END IF;
        found_any := true;
    END LOOP;
    IF found_any THEN
        PERFORM docmodel._mapping_write('unproject', o, mapping, NULL, NULL, NULL, NULL);
    END IF;
    RETURN found_any;
END
$$;
COMMENT ON FUNCTION docmodel.stop_projection(text) IS
    'docmodel: drop a mapping''s projection triggers; false when it had none';

CREATE FUNCTION docmodel.advise(coll regclass, sample integer DEFAULT 10000)
    RETURNS TABLE("check" text, severity text, path text, detail text, bytes_saved bigint)
    AS 'MODULE_PATHNAME', 'mapping_advise'
    LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION docmodel.advise(regclass, integer) IS
    'docmodel: modeling advice measured on a sample of a collection''s documents: each finding with its path, plain words and the bytes it would save across the collection';

-- Lookups: documents <lookup_type><delimiter><value> -> {"ref": key} kept
-- by a row trigger per lookup (src/mapping/)
CREATE FUNCTION docmodel._lookup_trigger() RETURNS trigger
    AS 'MODULE_PATHNAME', 'mapping_lookup_trigger'
    LANGUAGE C;
COMMENT ON FUNCTION docmodel._lookup_trigger() IS
    'docmodel internal: the row trigger of a lookup: writes, moves and deletes the lookup documents of a collection''s documents (23505 for a value another document holds)';

CREATE FUNCTION docmodel.create_lookup(coll regclass, lookup_type text, path text[],
    doc_type text DEFAULT NULL, lookup_coll regclass DEFAULT NULL)
    RETURNS bigint
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    lc regclass := coalesce(lookup_coll, coll);
    -- the documents as every style shows them (with their stamps: the
    -- trigger reads a stamp path so too)
    docexpr text := docmodel._document_sql(coll, 'd');
    c record;
    l record;
    type_sql text;
    dup record;
    n bigint;
BEGIN
    PERFORM docmodel._require_collection(coll);
    PERFORM docmodel._require_collection(lc);
    SELECT x.delimiter, x.doc_type, x.type_part INTO c FROM docmodel.collection_config x WHERE x.coll = create_lookup.coll;
    SELECT x.delimiter, x.doc_type, x.type_part INTO l FROM docmodel.collection_config x WHERE x.coll = lc;
    PERFORM docmodel.key_with(l.delimiter, lookup_type, 'x');
    IF doc_type IS NOT NULL THEN
        PERFORM docmodel.key_with(c.delimiter, doc_type, 'x');
    END IF;
    -- its trigger would write other keys' shards from a shard
    IF docmodel._citus_distributed(coll) OR docmodel._citus_distributed(lc) THEN
        RAISE EXCEPTION USING ERRCODE = '0A000',
            MESSAGE = format('cannot create a lookup on distributed collection %s',
                CASE WHEN docmodel._citus_distributed(coll) THEN coll ELSE lc END),
            DETAIL = 'A lookup document lives under its own key, on another shard than the document it indexes; the shards cannot write it.',
            HINT = 'Keep a collection with lookups on the coordinator, or index the value with a secondary index.';
    END IF;
    -- lookup documents live beside the documents, as Couchbase keeps them,
    -- or in a collection of their own: either must accept their type
    IF l.doc_type IS NOT NULL AND l.doc_type <> lookup_type OR l.type_part <> 1 THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = CASE WHEN l.type_part <> 1
                THEN format('collection %s does not key documents by type first, as lookup documents of type "%s" are keyed', lc, lookup_type)
                ELSE format('collection %s holds only documents of type "%s", not lookup documents of type "%s"',
                    lc, l.doc_type, lookup_type) END,
            HINT = 'Keep the lookup documents in a collection of their own (lookup_coll), created without doc_type or with the lookup type.';
    END IF;
    IF path IS NULL OR cardinality(path) = 0 THEN
        RAISE EXCEPTION USING ERRCODE = CASE WHEN path IS NULL THEN '22004' ELSE '22023' END,
            MESSAGE = format('lookup "%s" on %s needs a path', lookup_type, coll);
    END IF;
    -- the documents it indexes: of doc_type (the type their key gives under
    -- the collection's layout) when given; never the lookup documents
    -- beside them
    type_sql := docmodel._type_filter_sql(coll, 'd', doc_type)
        || CASE WHEN lc = coll THEN ' AND NOT pg_catalog.starts_with(d.id, $2 OPERATOR(pg_catalog.||) $3)' ELSE '' END;
    -- the documents there already: one value, one document
    EXECUTE format('SELECT %3$s OPERATOR(pg_catalog.#>>) $1 AS v, (pg_catalog.array_agg(d.id ORDER BY d.id))[1:2] AS keys
        FROM %1$s AS d WHERE pg_catalog.jsonb_typeof(%3$s OPERATOR(pg_catalog.#>) $1) IN (''string'', ''number'', ''boolean'')
          AND %2$s
        GROUP BY 1 HAVING pg_catalog.count(*) > 1 ORDER BY 1 LIMIT 1', docmodel._rel_sql(coll), type_sql, docexpr)
        INTO dup USING path, lookup_type, l.delimiter;
    IF dup.v IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = '23505',
            MESSAGE = format('value "%s" of lookup "%s" is taken', dup.v, lookup_type),
            DETAIL = format('Documents "%s" and "%s" both hold it.', dup.keys[1], dup.keys[2]);
    END IF;
    -- as the caller: a trigger takes the collection's TRIGGER privilege
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE ON %s
        FOR EACH ROW EXECUTE FUNCTION docmodel._lookup_trigger(%L, %L, %L, %L, %L)',
        'docmodel_lookup_' || lookup_type, docmodel._rel_sql(coll), lookup_type, path::text, l.delimiter,
        lc::oid, coalesce(doc_type, ''));
    -- index what is there; a lookup document already there for another
    -- document is a taken value
    EXECUTE format('INSERT INTO %1$s AS l (id, doc)
        SELECT $2 OPERATOR(pg_catalog.||) $3 OPERATOR(pg_catalog.||) (%4$s OPERATOR(pg_catalog.#>>) $1),
            pg_catalog.jsonb_build_object(''ref'', d.id) FROM %2$s AS d
        WHERE pg_catalog.jsonb_typeof(%4$s OPERATOR(pg_catalog.#>) $1) IN (''string'', ''number'', ''boolean'')
          AND %3$s
        ON CONFLICT (id) DO NOTHING', docmodel._rel_sql(lc), docmodel._rel_sql(coll), type_sql, docexpr)
        USING path, lookup_type, l.delimiter;
    GET DIAGNOSTICS n = ROW_COUNT;
    EXECUTE format('SELECT d.id, l.doc OPERATOR(pg_catalog.->>) ''ref'' AS ref FROM %1$s AS d JOIN %2$s AS l
            ON l.id OPERATOR(pg_catalog.=) ($2 OPERATOR(pg_catalog.||) $3 OPERATOR(pg_catalog.||) (%4$s OPERATOR(pg_catalog.#>>) $1))
        WHERE pg_catalog.jsonb_typeof(%4$s OPERATOR(pg_catalog.#>) $1) IN (''string'', ''number'', ''boolean'')
          AND %3$s AND l.doc OPERATOR(pg_catalog.->>) ''ref'' IS DISTINCT FROM d.id LIMIT 1',
        docmodel._rel_sql(coll), docmodel._rel_sql(lc), type_sql, docexpr)
        INTO dup USING path, lookup_type, l.delimiter;
    IF dup IS NOT NULL AND dup.id IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = '23505',
            MESSAGE = format('a lookup document of lookup "%s" names another document than "%s"', lookup_type, dup.id),
            DETAIL = format('It names "%s".', dup.ref);
    END IF;
    RETURN n;
END
$$;
COMMENT ON FUNCTION docmodel.create_lookup(regclass, text, text[], text, regclass) IS
    'docmodel: keep lookup documents <lookup_type><delimiter><value> -> {"ref": key} for the value at path of the documents of coll (of doc_type only, when given), in coll or in lookup_coll; returns how many documents were indexed';

CREATE FUNCTION docmodel._lookup_coll(coll regclass, lookup_type text) RETURNS regclass
    AS 'MODULE_PATHNAME', 'mapping_lookup_coll'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel._lookup_coll(regclass, text) IS
    'docmodel internal: the collection holding the lookup documents of a lookup of coll (as its trigger names it); NULL without that lookup';

CREATE FUNCTION docmodel.drop_lookup(coll regclass, lookup_type text) RETURNS boolean
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    lc regclass;
BEGIN
    PERFORM docmodel._require_collection(coll);
    lc := docmodel._lookup_coll(coll, lookup_type);
    IF lc IS NULL THEN
        RETURN false;
    END IF;
    EXECUTE format('DROP TRIGGER %I ON %s', 'docmodel_lookup_' || lookup_type, docmodel._rel_sql(coll));
    -- a lookup collection dropped since took its lookup documents with it
    IF EXISTS (SELECT FROM pg_class r WHERE r.oid = lc)
            AND EXISTS (SELECT FROM docmodel.collection_config c WHERE c.coll = lc) THEN
        EXECUTE format('DELETE FROM %s AS d WHERE pg_catalog.starts_with(d.id, $1 OPERATOR(pg_catalog.||) $2)
            AND d.doc OPERATOR(pg_catalog.?) ''ref''', docmodel._rel_sql(lc))
            USING lookup_type, (SELECT c.delimiter FROM docmodel.collection_config c WHERE c.coll = lc);
    END IF;
    RETURN true;
END
$$;
COMMENT ON FUNCTION docmodel.drop_lookup(regclass, text) IS
    'docmodel: stop keeping a lookup and delete its lookup documents; false when there was none';

CREATE FUNCTION docmodel.get_by(coll regclass, lookup_type text, value text) RETURNS jsonb
    AS 'MODULE_PATHNAME', 'mapping_get_by'
    LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION docmodel.get_by(regclass, text, text) IS
    'docmodel: the document a lookup value names (NULL when none), both read as get() reads them, the lookup document from the lookup''s collection';

