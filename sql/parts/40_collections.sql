-------------------------------------------------------------------------------
-- Collections and documents (src/collection/)
-------------------------------------------------------------------------------


-- Non-superusers call docmodel's functions (their table privileges apply).
GRANT USAGE ON SCHEMA docmodel TO PUBLIC;

CREATE SEQUENCE docmodel.collection_config_id_seq AS integer;

-- One row per collection. The id is the argument of the collection's
-- trigger, so the trigger finds its configuration without the relation's
-- name or OID (which differ on Citus shards). Readable by everyone (the
-- trigger of any writer reads it); written only by the _config_* functions
-- below, which check that the caller owns the collection; changes
-- invalidate every backend's cache.
CREATE TABLE docmodel.collection_config (
    id integer PRIMARY KEY
        DEFAULT pg_catalog.nextval('docmodel.collection_config_id_seq'),
    coll regclass NOT NULL UNIQUE,
    doc_type text,
    meta_style text NOT NULL DEFAULT 'underscore'
        CONSTRAINT collection_config_meta_style_check
        CHECK (meta_style IN ('underscore', 'meta', 'plain', 'xattrs')),
    time_unit text NOT NULL DEFAULT 'ms'
        CHECK (time_unit IN ('ms', 's', 'min', 'h', 'day', 'iso')),
    delimiter text NOT NULL DEFAULT '::',
    revisions integer NOT NULL DEFAULT 0 CHECK (revisions >= 0),
    revisions_table regclass,
    max_ttl integer NOT NULL DEFAULT 0 CHECK (max_ttl >= 0),
    type_part integer NOT NULL DEFAULT 1 CHECK (type_part >= 0),
    type_check text NOT NULL DEFAULT 'exact'
        CHECK (type_check IN ('exact', 'case_insensitive', 'off')),
    fields jsonb,
    types text[],
    CONSTRAINT collection_config_types_check CHECK (CASE WHEN types IS NULL
        THEN type_part <> 0 OR doc_type IS NOT NULL
        ELSE type_part = 0 AND doc_type IS NULL AND cardinality(types) > 0
            AND array_position(types, NULL) IS NULL AND '' <> ALL (types) END)
);
ALTER SEQUENCE docmodel.collection_config_id_seq
    OWNED BY docmodel.collection_config.id;
SELECT pg_catalog.pg_extension_config_dump('docmodel.collection_config', '');
SELECT pg_catalog.pg_extension_config_dump('docmodel.collection_config_id_seq', '');
GRANT SELECT ON docmodel.collection_config TO PUBLIC;
COMMENT ON TABLE docmodel.collection_config IS
    'docmodel collections: one row per collection, its trigger''s argument is id';

CREATE FUNCTION docmodel._collection_config_changed() RETURNS trigger
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'collection_config_changed';
COMMENT ON FUNCTION docmodel._collection_config_changed() IS
    'internal: invalidate every backend''s collection configuration cache';
CREATE TRIGGER collection_config_changed
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON docmodel.collection_config
    FOR EACH STATEMENT EXECUTE FUNCTION docmodel._collection_config_changed();

-- The only writers of docmodel.collection_config (src/catalog.c): each
-- checks that the caller owns the collection (42501 otherwise, as ALTER
-- TABLE), then writes as the table's owner.
CREATE FUNCTION docmodel._config_create(coll regclass, doc_type text,
    meta_style text, time_unit text, delimiter text)
    RETURNS integer
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'catalog_config_create';
COMMENT ON FUNCTION docmodel._config_create(regclass, text, text, text, text) IS
    'internal: record a new collection the caller owns and return its id';

CREATE FUNCTION docmodel._config_set_revisions(coll regclass, revisions integer,
    revisions_table regclass)
    RETURNS void
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'catalog_config_set_revisions';
COMMENT ON FUNCTION docmodel._config_set_revisions(regclass, integer, regclass) IS
    'internal: set the history of a collection; the caller owns the collection and the history table';

CREATE FUNCTION docmodel._config_adopt_history(hist regclass)
    RETURNS boolean
    LANGUAGE c VOLATILE STRICT PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'catalog_config_adopt_history';
COMMENT ON FUNCTION docmodel._config_adopt_history(regclass) IS
    'internal: forget dropped collections whose history is hist (the caller owns it); false when there are none';

CREATE FUNCTION docmodel._config_drop(coll regclass)
    RETURNS void
    LANGUAGE c VOLATILE STRICT PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'catalog_config_drop';
COMMENT ON FUNCTION docmodel._config_drop(regclass) IS
    'internal: forget a collection the caller owns';

CREATE FUNCTION docmodel._config_set_max_ttl(coll regclass, max_ttl integer)
    RETURNS void
    LANGUAGE c VOLATILE STRICT PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'catalog_config_set_max_ttl';
COMMENT ON FUNCTION docmodel._config_set_max_ttl(regclass, integer) IS
    'internal: set the max_ttl (seconds) of a collection the caller owns';

CREATE FUNCTION docmodel._config_set_layout(coll regclass, type_part integer,
    type_check text, fields jsonb, types text[])
    RETURNS void
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'catalog_config_set_layout';
COMMENT ON FUNCTION docmodel._config_set_layout(regclass, integer, text, jsonb, text[]) IS
    'internal: set the key layout, field names and body types of a collection the caller owns';

CREATE FUNCTION docmodel._check_collection_options(name text, doc_type text,
    revisions integer, meta_style text, time_unit text, delimiter text)
    RETURNS void
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'collection_check_collection_options';
COMMENT ON FUNCTION docmodel._check_collection_options(text, text, integer, text, text, text) IS
    'internal: raise 22023 for a bad option of create_collection';

CREATE FUNCTION docmodel._check_layout(rel regclass, layout text) RETURNS void
    LANGUAGE c STABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'collection_check_layout';
COMMENT ON FUNCTION docmodel._check_layout(regclass, text) IS
    'internal: raise 55000 or 42804 when a table lacks a column of a docmodel layout (collection, history, documents)';

CREATE FUNCTION docmodel.collection_trigger() RETURNS trigger
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'collection_trigger';
COMMENT ON FUNCTION docmodel.collection_trigger() IS
    'the collection trigger: checks keys and types, stamps management fields, sets cas';

-- create_collection is C: it resolves an unqualified name against the
-- caller's search_path (a pinned search_path would hide it), then calls
-- _create_collection with the schema spelled out.
CREATE FUNCTION docmodel._create_collection(schema_name text, table_name text,
    doc_type text, revisions integer, meta_style text, time_unit text,
    delimiter text)
    RETURNS regclass
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    qname text := pg_catalog.quote_ident(schema_name) OPERATOR(pg_catalog.||) '.'
        OPERATOR(pg_catalog.||) pg_catalog.quote_ident(table_name);
    rel regclass;
    cid integer;
BEGIN
    EXECUTE pg_catalog.format('CREATE TABLE %s (id text COLLATE "C" PRIMARY KEY, '
        'doc jsonb NOT NULL, cas bigint NOT NULL, expires_at timestamptz, '
        'locked_until timestamptz)', qname);
    rel := qname::regclass;
    EXECUTE pg_catalog.format('CREATE INDEX ON %s (expires_at) '
        'WHERE expires_at IS NOT NULL', rel);
    -- A plain DROP TABLE of an earlier collection leaves its row; should
    -- the new table reuse that OID, the row is stale (_config_create
    -- replaces it).
    cid := docmodel._config_create(rel, doc_type, meta_style, time_unit, delimiter);
    EXECUTE pg_catalog.format('CREATE TRIGGER docmodel_collection '
        'BEFORE INSERT OR UPDATE ON %s FOR EACH ROW '
        'EXECUTE FUNCTION docmodel.collection_trigger(%s)', rel, cid);
    -- Locks: a DELETE of a locked row is checked; others pay nothing.
    EXECUTE pg_catalog.format('CREATE TRIGGER docmodel_lock '
        'BEFORE DELETE ON %s FOR EACH ROW WHEN (OLD.locked_until IS NOT NULL) '
        'EXECUTE FUNCTION docmodel.collection_trigger(%s)', rel, cid);
    IF revisions OPERATOR(pg_catalog.>) 0 THEN
        PERFORM docmodel.set_revisions(rel, revisions);
    END IF;
    RETURN rel;
END
$$;
COMMENT ON FUNCTION docmodel._create_collection(text, text, text, integer, text, text, text) IS
    'internal: create_collection once the schema is resolved';

CREATE FUNCTION docmodel.create_collection(name text, doc_type text DEFAULT NULL,
    revisions integer DEFAULT 0, meta_style text DEFAULT 'underscore',
    time_unit text DEFAULT 'ms', delimiter text DEFAULT '::',
    max_ttl integer DEFAULT NULL, type_part integer DEFAULT 1,
    type_check text DEFAULT 'exact', fields jsonb DEFAULT NULL,
    types text[] DEFAULT NULL)
    RETURNS regclass
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'collection_create_collection';
COMMENT ON FUNCTION docmodel.create_collection(text, text, integer, text, text, text, integer, integer, text, jsonb, text[]) IS
    'create a collection table (id, doc, cas, expires_at, locked_until; meta for xattrs) with its trigger; max_ttl (seconds) is the default expiry and its bound; type_part, type_check and fields set the key layout and field names; types (with type_part 0) the types read from the body''s type field';

-- The history table recorded for a collection (NULL: none); 42809 unless
-- coll is a collection.
CREATE FUNCTION docmodel._collection_history(coll regclass) RETURNS regclass
    LANGUAGE plpgsql STABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    PERFORM docmodel._require_collection($1);
    RETURN (SELECT c.revisions_table FROM docmodel.collection_config AS c
            WHERE c.coll OPERATOR(pg_catalog.=) $1);
END
$$;
COMMENT ON FUNCTION docmodel._collection_history(regclass) IS
    'docmodel internal: the history table recorded for a collection (NULL when it keeps none); 42809 when the table is not a collection';

CREATE FUNCTION docmodel.drop_collection(coll regclass) RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    hist regclass := docmodel._collection_history($1);
BEGIN
    -- The owner's alone (42501), then the collection before its history, in
    -- the order its writers lock them: a transaction that read the
    -- collection and then writes it finishes first, instead of deadlocking
    -- on the history table.
    PERFORM docmodel._config_drop($1);
    -- the copy and aggregate rules it writes or feeds, their triggers
    PERFORM docmodel._drop_copy_rules_of($1);
    EXECUTE pg_catalog.format('LOCK TABLE %s IN ACCESS EXCLUSIVE MODE', $1);
    IF hist IS NOT NULL THEN
        EXECUTE pg_catalog.format('DROP TABLE %s', hist);
    END IF;
    EXECUTE pg_catalog.format('DROP TABLE %s', $1);
END
$$;
COMMENT ON FUNCTION docmodel.drop_collection(regclass) IS
    'drop a collection, its revisions table and its configuration';

CREATE VIEW docmodel.collections AS
    SELECT c.coll AS collection, c.doc_type, c.revisions, c.meta_style,
           c.time_unit, c.delimiter, c.revisions_table, c.id AS config_id,
           c.max_ttl, c.type_part, c.type_check, c.fields, c.types
    FROM docmodel.collection_config AS c
    WHERE EXISTS (SELECT FROM pg_catalog.pg_class AS r
                  WHERE r.oid OPERATOR(pg_catalog.=) c.coll);
GRANT SELECT ON docmodel.collections TO PUBLIC;
COMMENT ON VIEW docmodel.collections IS
    'every docmodel collection and its options';

-- Key-value API (src/collection/kv.c). Each runs as the caller: table privileges apply.
CREATE FUNCTION docmodel.get(coll regclass, key text) RETURNS jsonb
    LANGUAGE c STABLE STRICT PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'kv_get';
COMMENT ON FUNCTION docmodel.get(regclass, text) IS
    'the document with this key, NULL when absent or expired';

CREATE FUNCTION docmodel.meta(coll regclass, key text) RETURNS jsonb
    LANGUAGE c STABLE STRICT PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'kv_meta';
COMMENT ON FUNCTION docmodel.meta(regclass, text) IS
    'Couchbase''s meta(): id, cas, expiration and the management fields of the document with this key, whatever the meta style; NULL when absent or expired';

CREATE FUNCTION docmodel.get_multi(coll regclass, keys text[])
    RETURNS TABLE (key text, doc jsonb, cas bigint)
    LANGUAGE c STABLE STRICT PARALLEL RESTRICTED ROWS 10
    AS 'MODULE_PATHNAME', 'kv_get_multi';
COMMENT ON FUNCTION docmodel.get_multi(regclass, text[]) IS
    'the present documents of these keys, in the order asked';

-- An expiry is "any": an interval, a number of seconds (Couchbase's: over
-- 30 days a Unix time, 0 none), or an untyped literal of either, so that
-- every call written for the interval parameters keeps working; overloads
-- on interval and bigint would make untyped literals and NULL ambiguous.
CREATE FUNCTION docmodel.exists(coll regclass, key text) RETURNS boolean
    LANGUAGE c STABLE STRICT PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'kv_exists';
COMMENT ON FUNCTION docmodel.exists(regclass, text) IS
    'whether a live (not expired) document has this key';

CREATE FUNCTION docmodel.insert(coll regclass, key text, doc jsonb,
    expiry "any" DEFAULT NULL) RETURNS bigint
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'kv_insert';
COMMENT ON FUNCTION docmodel.insert(regclass, text, jsonb, "any") IS
    'insert a new document and return its cas; 23505 when the key exists';

CREATE FUNCTION docmodel.upsert(coll regclass, key text, doc jsonb,
    expiry "any" DEFAULT NULL, preserve_expiry boolean DEFAULT false) RETURNS bigint
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'kv_upsert';
COMMENT ON FUNCTION docmodel.upsert(regclass, text, jsonb, "any", boolean) IS
    'insert or replace a document and return its new cas';

CREATE FUNCTION docmodel.replace(coll regclass, key text, doc jsonb,
    cas bigint DEFAULT NULL, expiry "any" DEFAULT NULL,
    preserve_expiry boolean DEFAULT false) RETURNS bigint
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'kv_replace';
COMMENT ON FUNCTION docmodel.replace(regclass, text, jsonb, bigint, "any", boolean) IS
    'replace a present document (only at this cas when given) and return its new cas';

CREATE FUNCTION docmodel.remove(coll regclass, key text, cas bigint DEFAULT NULL)
    RETURNS bigint
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'kv_remove';
COMMENT ON FUNCTION docmodel.remove(regclass, text, bigint) IS
    'delete a present document (only at this cas when given); returns the cas it had';

CREATE FUNCTION docmodel.touch(coll regclass, key text, expiry "any")
    RETURNS bigint
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'kv_touch';
COMMENT ON FUNCTION docmodel.touch(regclass, text, "any") IS
    'set (or clear with NULL) a present document''s expiry; returns its new cas';

CREATE FUNCTION docmodel.get_and_touch(coll regclass, key text, expiry "any",
    OUT doc jsonb, OUT cas bigint)
    RETURNS record
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'kv_get_and_touch';
COMMENT ON FUNCTION docmodel.get_and_touch(regclass, text, "any") IS
    'set (or clear with NULL) a present document''s expiry and return it with its new cas';

CREATE FUNCTION docmodel.get_and_lock(coll regclass, key text,
    lock_time "any" DEFAULT NULL, OUT doc jsonb, OUT cas bigint)
    RETURNS record
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'kv_get_and_lock';
COMMENT ON FUNCTION docmodel.get_and_lock(regclass, text, "any") IS
    'lock a present document for lock_time (15 s by default, 30 s at most) and return it with the lock''s cas; 55P03 when locked';

CREATE FUNCTION docmodel.unlock(coll regclass, key text, cas bigint)
    RETURNS bigint
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'kv_unlock';
COMMENT ON FUNCTION docmodel.unlock(regclass, text, bigint) IS
    'end the lock of a document, given the lock''s cas; returns its new cas';

CREATE FUNCTION docmodel.purge_expired(coll regclass) RETURNS bigint
    LANGUAGE c VOLATILE STRICT PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'kv_purge_expired';
COMMENT ON FUNCTION docmodel.purge_expired(regclass) IS
    'delete the expired documents of a collection and return how many';

-- Sub-document API (src/collection/subdoc.c): Couchbase's lookup_in and mutate_in.
-- Both run as the caller: lookup_in needs SELECT on the collection,
-- mutate_in SELECT and UPDATE (and INSERT for store_semantics upsert and
-- insert).
CREATE FUNCTION docmodel.lookup_in(coll regclass, key text, specs jsonb)
    RETURNS jsonb
    LANGUAGE c STABLE STRICT PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'subdoc_lookup_in';
COMMENT ON FUNCTION docmodel.lookup_in(regclass, text, jsonb) IS
    'read paths of a document (specs get, exists, count): one result per spec, NULL when the document is absent or expired';

CREATE FUNCTION docmodel.mutate_in(coll regclass, key text, specs jsonb,
    cas bigint DEFAULT NULL, expiry "any" DEFAULT NULL,
    store_semantics text DEFAULT 'replace',
    preserve_expiry boolean DEFAULT false) RETURNS jsonb
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'subdoc_mutate_in';
COMMENT ON FUNCTION docmodel.mutate_in(regclass, text, jsonb, bigint, "any", text, boolean) IS
    'change paths of a document (specs insert, upsert, replace, remove, array_*, increment, decrement), all or nothing; returns the new cas and per-spec results';

CREATE FUNCTION docmodel._mutate_in_apply(doc jsonb, specs jsonb, key text)
    RETURNS jsonb
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'subdoc_mutate_in_apply';
COMMENT ON FUNCTION docmodel._mutate_in_apply(jsonb, jsonb, text) IS
    'internal: doc (NULL: {}) migrated, with the mutate_in specs applied (the new doc of mutate_in''s statement)';

-- The guides' operations (src/collection/ops.c): rename_key and bucket_append. Both
-- run as the caller: rename_key needs INSERT and DELETE on the collection
-- (and SELECT, UPDATE for its statement), bucket_append INSERT and UPDATE
-- (and SELECT).
CREATE FUNCTION docmodel.rename_key(coll regclass, old_key text, new_key text,
    cas bigint DEFAULT NULL) RETURNS bigint
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'collection_rename_key';
COMMENT ON FUNCTION docmodel.rename_key(regclass, text, text, bigint) IS
    'move a document to a new key in one step: _ver continues, _created kept, history carried (the old key''s ends with op rename); returns the new cas';

CREATE FUNCTION docmodel._key_exists_error(coll regclass, key text)
    RETURNS bigint
    LANGUAGE c VOLATILE STRICT PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'key_exists_error';
COMMENT ON FUNCTION docmodel._key_exists_error(regclass, text) IS
    'internal: raise DocumentExists (23505) for key (rename_key''s statement)';

CREATE FUNCTION docmodel.bucket_append(coll regclass, prefix text, value jsonb,
    size integer DEFAULT 100) RETURNS text
    LANGUAGE c VOLATILE PARALLEL UNSAFE
    AS 'MODULE_PATHNAME', 'collection_bucket_append';
COMMENT ON FUNCTION docmodel.bucket_append(regclass, text, jsonb, integer) IS
    'append value to the items of the current bucket document <prefix>::<n>, opening <prefix>::<n+1> when it holds size items; returns the key written';

-- (end of collections)


