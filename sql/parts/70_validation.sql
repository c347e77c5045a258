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


