-------------------------------------------------------------------------------
-- Schema validation (src/jsonschema/)
-------------------------------------------------------------------------------

-- JSON Schema 2020-12 (default), 2019-09 and draft-07 over any jsonb; compiled once per
-- backend (keyed by the schema's bytes), so usable in a CHECK constraint.
CREATE FUNCTION docmodel.schema_valid(schema jsonb, instance jsonb)
    RETURNS boolean
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'schema_valid';
COMMENT ON FUNCTION docmodel.schema_valid(jsonb, jsonb) IS
    'whether instance is valid against the JSON Schema (2020-12, or 2019-09 or draft-07 by $schema)';

CREATE FUNCTION docmodel.schema_errors(schema jsonb, instance jsonb)
    RETURNS TABLE(path text, schema_path text, message text)
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE ROWS 4
    AS 'MODULE_PATHNAME', 'schema_errors';
COMMENT ON FUNCTION docmodel.schema_errors(jsonb, jsonb) IS
    'every violation of the JSON Schema by instance: JSON Pointer into instance, JSON Pointer to the keyword, message';

-- JSON Schema's "basic" output format of the same validation (keywordLocation through
-- references, absoluteKeywordLocation, instanceLocation, error).
CREATE FUNCTION docmodel.schema_output(schema jsonb, instance jsonb)
    RETURNS jsonb
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'schema_output';
COMMENT ON FUNCTION docmodel.schema_output(jsonb, jsonb) IS
    'JSON Schema''s "basic" output: {"valid", "errors": [{"keywordLocation", "absoluteKeywordLocation", "instanceLocation", "error"}]}';

/*
 * Registered JSON Schemas, one per document type and version, with the mode
 * the collection trigger enforces it in. Written only by register_schema and
 * drop_schema (as the caller: only the extension's owner, or a role it
 * grants INSERT, UPDATE and DELETE, may). A statement trigger tells every
 * backend's copy (schema.c) when it changes.
 */
CREATE TABLE docmodel.schemas (
    doc_type      text NOT NULL,
    version       docmodel.version NOT NULL,
    schema        jsonb NOT NULL,
    mode          text NOT NULL DEFAULT 'strict'
                  CHECK (mode IN ('strict', 'moderate', 'warn', 'off')),
    registered_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    PRIMARY KEY (doc_type, version)
);
COMMENT ON TABLE docmodel.schemas IS
    'docmodel: registered JSON Schemas, one per document type and version, and how writes are held to them';
SELECT pg_catalog.pg_extension_config_dump('docmodel.schemas', '');
GRANT SELECT ON docmodel.schemas TO PUBLIC;

CREATE FUNCTION docmodel._schemas_changed() RETURNS trigger
    AS 'MODULE_PATHNAME', 'schema_schemas_changed'
    LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION docmodel._schemas_changed() IS
    'docmodel internal: invalidate every backend''s schema registry copy when docmodel.schemas changes';
CREATE TRIGGER schemas_changed
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON docmodel.schemas
    FOR EACH STATEMENT EXECUTE FUNCTION docmodel._schemas_changed();

CREATE FUNCTION docmodel.register_schema(doc_type text, version docmodel.version,
    schema jsonb, mode text DEFAULT 'strict') RETURNS void
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM docmodel._check_doc_type(doc_type);
    IF version IS NULL OR schema IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004',
            MESSAGE = 'version and schema are required',
            DETAIL = format('Type "%s".', doc_type);
    END IF;
    IF mode IS NULL OR mode NOT IN ('strict', 'moderate', 'warn', 'off') THEN
        RAISE EXCEPTION USING ERRCODE = CASE WHEN mode IS NULL THEN '22004' ELSE '22023' END,
            MESSAGE = format('invalid schema mode "%s"', mode),
            DETAIL = format('Type "%s", version %s.', doc_type, version),
            HINT = 'The modes are strict, moderate, warn and off.';
    END IF;
    -- compile it now: 22023 for a malformed schema, 0A000 for what is out of scope
    PERFORM docmodel.schema_valid(schema, 'null');
    INSERT INTO docmodel.schemas AS s (doc_type, version, schema, mode)
        VALUES (register_schema.doc_type, register_schema.version,
                register_schema.schema, register_schema.mode)
        ON CONFLICT ON CONSTRAINT schemas_pkey DO UPDATE
        SET schema = excluded.schema, mode = excluded.mode,
            registered_at = pg_catalog.now();
END
$$;
COMMENT ON FUNCTION docmodel.register_schema(text, docmodel.version, jsonb, text) IS
    'docmodel: register the JSON Schema of a document type at a version (again: replace it) and its mode: strict, moderate, warn or off';

CREATE FUNCTION docmodel.drop_schema(doc_type text, version docmodel.version)
    RETURNS boolean
LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH d AS (
        DELETE FROM docmodel.schemas s
         WHERE s.doc_type OPERATOR(pg_catalog.=) drop_schema.doc_type
           AND s.version OPERATOR(docmodel.=) drop_schema.version
        RETURNING 1)
    SELECT count(*) OPERATOR(pg_catalog.>) 0 FROM d
$$;
COMMENT ON FUNCTION docmodel.drop_schema(text, docmodel.version) IS
    'docmodel: drop the JSON Schema of a document type at a version; false when there was none';

CREATE FUNCTION docmodel.validate(doc jsonb) RETURNS boolean
    AS 'MODULE_PATHNAME', 'schema_validate'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.validate(jsonb) IS
    'docmodel: whether a document is valid against the schema of its type and version (true when none is registered)';

CREATE FUNCTION docmodel.validation_errors(doc jsonb)
    RETURNS TABLE(path text, schema_path text, message text)
    AS 'MODULE_PATHNAME', 'schema_validation_errors'
    LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 4;
COMMENT ON FUNCTION docmodel.validation_errors(jsonb) IS
    'docmodel: every violation of the schema of a document''s type and version: JSON Pointer into the document, to the keyword, message';

CREATE FUNCTION docmodel.validate(doc jsonb, coll regclass) RETURNS boolean
    AS 'MODULE_PATHNAME', 'schema_validate'
    LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION docmodel.validate(jsonb, regclass) IS
    'docmodel: validate() of a document of collection coll, its type and version read where coll keeps them (its fields)';

CREATE FUNCTION docmodel.validation_errors(doc jsonb, coll regclass)
    RETURNS TABLE(path text, schema_path text, message text)
    AS 'MODULE_PATHNAME', 'schema_validation_errors'
    LANGUAGE C STABLE STRICT PARALLEL RESTRICTED ROWS 4;
COMMENT ON FUNCTION docmodel.validation_errors(jsonb, regclass) IS
    'docmodel: validation_errors() of a document of collection coll, its type and version read where coll keeps them (its fields)';

-- migration_plan(coll, validate)'s check of one document (migrate.c)
CREATE FUNCTION docmodel._plan_error(doc jsonb, key text, coll regclass) RETURNS text
    AS 'MODULE_PATHNAME', 'migration_plan_error'
    LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION docmodel._plan_error(jsonb, text, regclass) IS
    'docmodel internal: the first schema violation ("path: message") of doc migrated in memory to its type''s current version, read by coll''s field names, or the error of a step that cannot apply to it; NULL when valid';

-- The dry run with validation: each document migrated in memory and checked
-- against the schema of its type at the target version.
CREATE FUNCTION docmodel.migration_plan(coll regclass, validate boolean)
    RETURNS TABLE(doc_type text, version docmodel.version, docs bigint,
        target docmodel.version, steps integer, invalid bigint, first_invalid text[])
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN QUERY EXECUTE format(
        'SELECT s.t, s.v, count(*), docmodel._migration_target(s.t, $2, true),
            docmodel._migration_steps(s.t, s.v, NULL, $2, true),
            CASE WHEN $1 THEN count(s.err) END,
            CASE WHEN $1 THEN (array_agg(s.id || '' '' || s.err ORDER BY s.id)
                FILTER (WHERE s.err IS NOT NULL))[1:3] END
        FROM (SELECT d.id, docmodel._doc_type(%2$s, $2) AS t,
                docmodel._doc_version(%2$s, $2) AS v,
                CASE WHEN $1 THEN docmodel._plan_error(%2$s, d.id, $2) END AS err
            FROM %1$s AS d) s
        GROUP BY 1, 2
        ORDER BY 1, 2', docmodel._rel_sql(coll), docmodel._document_sql(coll, 'd'))
    -- a collection's own field names (NULL for another table: any style)
    USING validate, (SELECT c.coll FROM docmodel.collection_config AS c
        WHERE c.coll = migration_plan.coll);
END
$$;
COMMENT ON FUNCTION docmodel.migration_plan(regclass, boolean) IS
    'docmodel: the dry run of migrate_collection; with validate, each document migrated in memory and checked against its target version''s schema: how many would fail, the first keys and paths';

/*
 * register_migration's check of a new rule against the JSON Schemas of its
 * two versions, under the type's compatibility mode (set_compatibility):
 * backward migrates documents of the from version up (the examples of the
 * from schema, and up to 100 stored documents of each collection the rule
 * applies to that the caller may read), forward takes documents of the to
 * version down, full does both; every result must be valid against the
 * schema of its version. The first that is not is 22023 naming the
 * document, the violation and the step that last writes its path.
 */
CREATE FUNCTION docmodel._migration_check_schemas(doc_type text, from_version docmodel.version,
    to_version docmodel.version, steps jsonb, scope integer, mode text) RETURNS void
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    t constant text := _migration_check_schemas.doc_type;
    dir record;
    c record;
    d record;
    bad record;
    samples jsonb;
    more jsonb;
    step_text text;
BEGIN
    IF NOT EXISTS (SELECT FROM docmodel.schemas s WHERE s.doc_type = t
            AND s.version OPERATOR(docmodel.=) from_version)
        OR NOT EXISTS (SELECT FROM docmodel.schemas s WHERE s.doc_type = t
            AND s.version OPERATOR(docmodel.=) to_version) THEN
        RETURN;
    END IF;
    FOR dir IN SELECT * FROM (VALUES ('up', from_version, to_version), ('down', to_version, from_version)) AS v(way, v_from, v_to)
        WHERE (v.way = 'up' AND mode IN ('backward', 'full')) OR (v.way = 'down' AND mode IN ('forward', 'full'))
    LOOP
        -- the samples: the examples of the schema of the version the rule
        -- starts from, then stored documents that will take it (older ones
        -- going up, newer ones coming down)
        SELECT coalesce(jsonb_agg(jsonb_build_object('key',
                format('example %s of the schema of %s', e.n, dir.v_from),
                'doc', jsonb_build_object('_type', t, '_schema', dir.v_from::text) || e.x) ORDER BY e.n), '[]')
        INTO samples
        FROM docmodel.schemas s,
            jsonb_array_elements(CASE WHEN jsonb_typeof(s.schema -> 'examples') = 'array'
                THEN s.schema -> 'examples' ELSE '[]' END) WITH ORDINALITY AS e(x, n)
        WHERE s.doc_type = t AND s.version OPERATOR(docmodel.=) dir.v_from
            AND jsonb_typeof(e.x) = 'object';
        FOR c IN SELECT cc.coll FROM docmodel.collection_config cc
            WHERE (scope = 0 OR cc.id = scope) AND NOT cc.meta_style = 'xattrs'
                AND has_table_privilege(cc.coll, 'SELECT')
            ORDER BY cc.id
        LOOP
            EXECUTE format('SELECT coalesce(jsonb_agg(jsonb_build_object(''key'', x.id, ''doc'', x.doc)), ''[]'')
                FROM (SELECT d.id, %2$s AS doc FROM %1$s AS d
                    WHERE docmodel._doc_type(%2$s, $1) OPERATOR(pg_catalog.=) $2
                        AND CASE WHEN $4 THEN docmodel._doc_version(%2$s, $1) IS NULL
                                OR docmodel._doc_version(%2$s, $1) OPERATOR(docmodel.<=) $3
                            ELSE docmodel._doc_version(%2$s, $1) OPERATOR(docmodel.>=) $3 END
                    ORDER BY d.id LIMIT 100) AS x', docmodel._rel_sql(c.coll), docmodel._document_sql(c.coll, 'd'))
            INTO more USING c.coll, t, dir.v_from, dir.way = 'up';
            samples := samples || more;
        END LOOP;
        FOR d IN SELECT x ->> 'key' AS key, x -> 'doc' AS doc FROM jsonb_array_elements(samples) AS x LOOP
            SELECT e.path, e.message INTO bad
            FROM docmodel.validation_errors(docmodel.migrate(d.doc, dir.v_to)) AS e LIMIT 1;
            CONTINUE WHEN NOT FOUND;
            -- the step that last reads or writes the path (or one around it)
            SELECT format('Step %s (%s) reads or writes "%s".', st.n, st.s ->> 'op', pp.p) INTO step_text
            FROM jsonb_array_elements(coalesce(steps, '[]')) WITH ORDINALITY AS st(s, n),
                LATERAL (SELECT y.x AS p FROM (VALUES (st.s ->> 'path'), (st.s ->> 'from'),
                        (CASE WHEN jsonb_typeof(st.s -> 'into') = 'string' THEN st.s ->> 'into' END)) AS y(x)
                    WHERE y.x IS NOT NULL
                    UNION ALL
                    SELECT jsonb_array_elements_text(CASE WHEN jsonb_typeof(st.s -> k.k) = 'array'
                        THEN st.s -> k.k ELSE '[]' END)
                    FROM (VALUES ('into'), ('paths')) AS k(k)) AS pp
            WHERE bad.path = '' OR bad.path = pp.p OR starts_with(bad.path, pp.p || '/')
                OR starts_with(pp.p, bad.path || '/')
            ORDER BY st.n DESC LIMIT 1;
            RAISE EXCEPTION USING ERRCODE = '22023',
                MESSAGE = format('the migration of type "%s" from %s to %s takes %s %s to a document the schema of %s refuses',
                    t, from_version, to_version, d.key, dir.way, dir.v_to),
                DETAIL = format('%s: %s. %s', CASE WHEN bad.path = '' THEN 'The document' ELSE bad.path END,
                    bad.message, coalesce(step_text, 'No step reads or writes that path.')),
                HINT = format('The type is %s compatible: fix the steps or the schema, or docmodel.set_compatibility(%L, ''none'').',
                    mode, t);
        END LOOP;
    END LOOP;
END
$$;
COMMENT ON FUNCTION docmodel._migration_check_schemas(text, docmodel.version, docmodel.version, jsonb, integer, text) IS
    'docmodel internal: check a new rule both ways against the JSON Schemas of its versions, as the compatibility mode says (register_migration)';
