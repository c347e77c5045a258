-- Copies and aggregates (src/copy/copy.c): denormalized copies of source
-- documents' members kept in step in the documents that refer to them, and
-- aggregates of the referring documents kept in the documents they refer
-- to, declared once as rules (docmodel.copy_rules) and kept by row triggers.
CREATE FUNCTION docmodel.ref_keys(doc jsonb, path text) RETURNS text[]
    AS 'MODULE_PATHNAME', 'copy_ref_keys'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.ref_keys(jsonb, text) IS
    'docmodel: the distinct keys (strings and numbers) doc holds at path, a JSON Pointer with * for every element of an array, sorted; the expression of the copy and aggregate rules'' GIN indexes';

CREATE FUNCTION docmodel.copy_values(source_doc jsonb, fields jsonb) RETURNS jsonb
    AS 'MODULE_PATHNAME', 'copy_values'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel.copy_values(jsonb, jsonb) IS
    'docmodel: the members a copy rule with these fields copies from source_doc';

CREATE FUNCTION docmodel._copy_put(doc jsonb, path text, ref text, key text, vals jsonb, how text)
    RETURNS jsonb
    AS 'MODULE_PATHNAME', 'copy_put'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel._copy_put(jsonb, text, text, text, jsonb, text) IS
    'docmodel internal: doc with the members of vals set, removed or nulled (how) in every object at path whose member ref holds key';

CREATE FUNCTION docmodel._copy_put_at(doc jsonb, path text, value jsonb) RETURNS jsonb
    AS 'MODULE_PATHNAME', 'copy_put_at'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel._copy_put_at(jsonb, text, jsonb) IS
    'docmodel internal: doc with value at path, the objects on the way made when missing';

CREATE FUNCTION docmodel._copy_add_at(doc jsonb, path text, delta numeric) RETURNS jsonb
    AS 'MODULE_PATHNAME', 'copy_add_at'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION docmodel._copy_add_at(jsonb, text, numeric) IS
    'docmodel internal: doc with the number at path increased by delta (anything else there counts as 0)';

/*
 * The rules. kind copy: each document of coll holds at path (a JSON
 * Pointer, * for every element of an array) objects whose member ref is
 * the key of a document of source; fields (member -> pointer, or array of
 * pointers and strings joined) are copied from it. kind aggregate: each
 * document of coll holds at path the aggregate agg of the documents of
 * source whose references at pointer ref (* allowed) hold its key;
 * doc_type (aggregates): only the documents of coll of that type hold it;
 * frozen_when (copies): a document whose value at one of its pointers is
 * one of the values listed keeps the copies it holds.
 * Written only by _copy_rule_write (catalog.c), which checks the caller
 * owns the collections.
 */
CREATE TABLE docmodel.copy_rules (
    id         serial PRIMARY KEY,
    coll       regclass NOT NULL,
    path       text NOT NULL CHECK (path OPERATOR(pg_catalog.~~) '/%'),
    source     regclass NOT NULL,
    kind       text NOT NULL CHECK (kind OPERATOR(pg_catalog.=) ANY (ARRAY['copy', 'aggregate'])),
    ref        text NOT NULL CHECK (ref OPERATOR(pg_catalog.<>) ''),
    fields     jsonb CHECK ((kind OPERATOR(pg_catalog.=) 'copy') OPERATOR(pg_catalog.=)
                   (pg_catalog.jsonb_typeof(fields) IS NOT DISTINCT FROM 'object')),
    agg        text CHECK ((kind OPERATOR(pg_catalog.=) 'aggregate') OPERATOR(pg_catalog.=)
                   (agg OPERATOR(pg_catalog.~) '^(count|keys|(sum|min|max):/.*)$')),
    on_missing text CHECK (on_missing OPERATOR(pg_catalog.=) ANY (ARRAY['keep', 'null', 'remove', 'refuse'])),
    mode       text NOT NULL DEFAULT 'sync' CHECK (mode OPERATOR(pg_catalog.=) ANY (ARRAY['sync', 'deferred'])
                   AND (mode OPERATOR(pg_catalog.=) 'sync' OR kind OPERATOR(pg_catalog.=) 'copy')),
    created_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    doc_type   text CHECK (doc_type OPERATOR(pg_catalog.<>) ''),
    frozen_when jsonb CHECK (pg_catalog.jsonb_typeof(frozen_when) OPERATOR(pg_catalog.=) 'object'),
    UNIQUE (coll, path)
);
COMMENT ON TABLE docmodel.copy_rules IS
    'docmodel: the copy and aggregate rules: the documents of coll hold at path copies of, or an aggregate over, documents of source';
SELECT pg_catalog.pg_extension_config_dump('docmodel.copy_rules', '');
SELECT pg_catalog.pg_extension_config_dump('docmodel.copy_rules_id_seq', '');
GRANT SELECT ON docmodel.copy_rules TO PUBLIC;

CREATE FUNCTION docmodel._copy_rule_write(op text, coll regclass, path text,
    source regclass, kind text, ref text, fields jsonb, agg text,
    on_missing text, mode text, doc_type text DEFAULT NULL, frozen_when jsonb DEFAULT NULL) RETURNS integer
    AS 'MODULE_PATHNAME', 'copy_rule_write'
    LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION docmodel._copy_rule_write(text, regclass, text, regclass, text, text, jsonb, text, text, text, text, jsonb) IS
    'docmodel internal: record (create) or forget (drop) a copy or aggregate rule, checking the caller owns the collections';

CREATE FUNCTION docmodel._copy_rules_changed() RETURNS trigger
    AS 'MODULE_PATHNAME', 'copy_rules_changed'
    LANGUAGE C;
COMMENT ON FUNCTION docmodel._copy_rules_changed() IS
    'docmodel internal: statement trigger: invalidate every backend''s copy and aggregate statements when a rule changes';
CREATE TRIGGER copy_rules_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
    ON docmodel.copy_rules FOR EACH STATEMENT EXECUTE FUNCTION docmodel._copy_rules_changed();

CREATE FUNCTION docmodel._copy_source_trigger() RETURNS trigger
    AS 'MODULE_PATHNAME', 'copy_source_trigger'
    LANGUAGE C;
COMMENT ON FUNCTION docmodel._copy_source_trigger() IS
    'docmodel internal: the row trigger of a copy rule on its source collection: rewrites the copies in the documents referring to a written document';
CREATE FUNCTION docmodel._copy_fill_trigger() RETURNS trigger
    AS 'MODULE_PATHNAME', 'copy_fill_trigger'
    LANGUAGE C;
COMMENT ON FUNCTION docmodel._copy_fill_trigger() IS
    'docmodel internal: the row trigger of a copy rule on the referring collection: fills a written document''s copies from their sources';
CREATE FUNCTION docmodel._aggregate_trigger() RETURNS trigger
    AS 'MODULE_PATHNAME', 'copy_aggregate_trigger'
    LANGUAGE C;
COMMENT ON FUNCTION docmodel._aggregate_trigger() IS
    'docmodel internal: the row triggers of an aggregate rule: computes again the aggregates of the documents a written document refers to (AFTER), and a new document''s own (BEFORE INSERT)';

-- The aggregate expression of agg over the referring documents (alias b)
-- of collection source: a pointer reads the document as every style shows
-- it (_document_sql: with its stamps for meta_style 'columns'); a NULL
-- source reads the bodies (b.doc).
-- The member names and indexes of a JSON Pointer ('/a/b~1c' -> {a,b/c}),
-- as #> and #>> take them.
CREATE FUNCTION docmodel._pointer_tokens(ptr text) RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT ARRAY(SELECT pg_catalog.replace(pg_catalog.replace(t.t, '~1', '/'), '~0', '~')
        FROM pg_catalog.unnest(pg_catalog.string_to_array(pg_catalog.substr($1, 2), '/')) WITH ORDINALITY AS t(t, n)
        ORDER BY t.n)
$$;
COMMENT ON FUNCTION docmodel._pointer_tokens(text) IS
    'docmodel internal: the tokens of a JSON Pointer, as #> and #>> take a path';

CREATE FUNCTION docmodel._aggregate_expr(agg text, source regclass) RETURNS text
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ptr text;
    num text;
    doc text := COALESCE(docmodel._document_sql(source, 'b'), 'b.doc');
BEGIN
    IF agg OPERATOR(pg_catalog.=) 'count' THEN
        RETURN 'pg_catalog.to_jsonb(pg_catalog.count(*))';
    ELSIF agg OPERATOR(pg_catalog.=) 'keys' THEN
        RETURN 'pg_catalog.to_jsonb(COALESCE(pg_catalog.array_agg(b.id ORDER BY b.id), ''{}''::pg_catalog.text[]))';
    ELSIF agg OPERATOR(pg_catalog.~) '^(sum|min|max):/' THEN
        ptr := pg_catalog.substr(agg, 5);
        PERFORM docmodel.ref_keys('{}', ptr);
        num := pg_catalog.format('CASE WHEN pg_catalog.jsonb_typeof(%2$s OPERATOR(pg_catalog.#>) %1$L::pg_catalog.text[]) '
            'OPERATOR(pg_catalog.=) ''number'' THEN (%2$s OPERATOR(pg_catalog.#>>) %1$L::pg_catalog.text[])::pg_catalog.numeric END',
            docmodel._pointer_tokens(ptr)::text, doc);
        IF pg_catalog.left(agg, 3) OPERATOR(pg_catalog.=) 'sum' THEN
            RETURN pg_catalog.format('pg_catalog.to_jsonb(COALESCE(pg_catalog.sum(%s), 0::pg_catalog.numeric))', num);
        END IF;
        -- the function's name from a fixed list, never the rule's text
        RETURN pg_catalog.format('COALESCE(pg_catalog.to_jsonb(%s(%s)), ''null''::pg_catalog.jsonb)',
            CASE pg_catalog.left(agg, 3) WHEN 'min' THEN 'pg_catalog.min' ELSE 'pg_catalog.max' END, num);
    END IF;
    RAISE EXCEPTION USING ERRCODE = '22023',
        MESSAGE = pg_catalog.format('unknown aggregate "%s"', agg),
        HINT = 'The aggregates are count, keys, sum:/pointer, min:/pointer and max:/pointer.';
END
$$;
COMMENT ON FUNCTION docmodel._aggregate_expr(text, regclass) IS
    'docmodel internal: the SQL expression of an aggregate rule''s aggregate over the referring documents of a collection (with their stamps)';

-- The expression index on the references at refpath of coll: made when
-- missing (make), dropped when no rule uses it any more (not make).
CREATE FUNCTION docmodel._copy_index(coll regclass, refpath text, make boolean) RETURNS void
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    name text := pg_catalog.left((SELECT c.relname FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) coll), 40)
        OPERATOR(pg_catalog.||) '_ref_' OPERATOR(pg_catalog.||) pg_catalog.left(pg_catalog.md5(refpath), 8);
BEGIN
    IF make THEN
        IF EXISTS (SELECT FROM pg_catalog.pg_class i JOIN pg_catalog.pg_class c
                   ON c.relnamespace OPERATOR(pg_catalog.=) i.relnamespace
                   WHERE c.oid OPERATOR(pg_catalog.=) coll AND i.relname OPERATOR(pg_catalog.=) name) THEN
            RETURN;  -- another rule's, on the same references
        END IF;
        -- without a pending list: every write of a rule looks up through it
        EXECUTE pg_catalog.format('CREATE INDEX %I ON %s USING gin (docmodel.ref_keys(doc, %L)) '
            'WITH (fastupdate = off)',
            name, docmodel._rel_sql(coll), refpath);
    ELSIF NOT EXISTS (SELECT FROM docmodel.copy_rules r
            WHERE (r.kind OPERATOR(pg_catalog.=) 'copy' AND r.coll OPERATOR(pg_catalog.=) _copy_index.coll
                   AND r.path OPERATOR(pg_catalog.||) '/' OPERATOR(pg_catalog.||)
                       pg_catalog.replace(pg_catalog.replace(r.ref, '~', '~0'), '/', '~1') OPERATOR(pg_catalog.=) refpath)
               OR (r.kind OPERATOR(pg_catalog.=) 'aggregate' AND r.source OPERATOR(pg_catalog.=) _copy_index.coll
                   AND r.ref OPERATOR(pg_catalog.=) refpath)) THEN
        EXECUTE pg_catalog.format('DROP INDEX IF EXISTS %I.%I',
            (SELECT n.nspname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
             WHERE c.oid OPERATOR(pg_catalog.=) coll), name);
    END IF;
END
$$;
COMMENT ON FUNCTION docmodel._copy_index(regclass, text, boolean) IS
    'docmodel internal: make, or drop when unused, the GIN index on docmodel.ref_keys(doc, refpath) of a collection';

CREATE FUNCTION docmodel._copy_check(coll regclass, path text, source_coll regclass, mode text)
    RETURNS void
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM docmodel._require_collection(coll);
    PERFORM docmodel._require_collection(source_coll);
    IF path IS NULL OR mode IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'path and mode must not be null';
    END IF;
    PERFORM docmodel.ref_keys('{}', path);
    IF NOT mode OPERATOR(pg_catalog.=) ANY (ARRAY['sync', 'deferred']) THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = pg_catalog.format('invalid mode "%s"', mode),
            HINT = 'mode is sync (kept in the writing transaction) or deferred (copies only: queued, applied by apply_copies).';
    END IF;
    IF docmodel._citus_distributed(coll) OR docmodel._citus_distributed(source_coll) THEN
        RAISE EXCEPTION USING ERRCODE = '0A000',
            MESSAGE = pg_catalog.format('cannot keep copies between %s and %s: one is distributed', coll, source_coll),
            DETAIL = 'The triggers of a rule write documents on other shards than the written one.';
    END IF;
END
$$;
COMMENT ON FUNCTION docmodel._copy_check(regclass, text, regclass, text) IS
    'docmodel internal: the checks create_copy and create_aggregate share';

-- Whether the rules of kind already carry what is written to collection
-- src into collection dst, directly or through other collections (a rule
-- writes its coll from its source): a new rule from dst into src would
-- close a cycle.
CREATE FUNCTION docmodel._rules_flow(kind text, src regclass, dst regclass) RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH RECURSIVE down(rel) AS (
        SELECT r.coll FROM docmodel.copy_rules r
        WHERE r.kind OPERATOR(pg_catalog.=) $1 AND r.source OPERATOR(pg_catalog.=) $2
        UNION
        SELECT r.coll FROM docmodel.copy_rules r JOIN down ON r.source OPERATOR(pg_catalog.=) down.rel
        WHERE r.kind OPERATOR(pg_catalog.=) $1)
    SELECT EXISTS (SELECT FROM down WHERE down.rel OPERATOR(pg_catalog.=) $3)
$$;
COMMENT ON FUNCTION docmodel._rules_flow(text, regclass, regclass) IS
    'docmodel internal: whether the rules of a kind carry writes of one collection into another, through others or not';

-- The SQL of "the document <alias>.doc keeps its copies" for a copy
-- rule's frozen_when (an object: JSON Pointer -> array of JSON values; a
-- document whose value at one of the pointers is one of its values is
-- frozen); 'false' for NULL; 22023 for anything else. Generated for the
-- rule's statements: pointers and values quoted, operators qualified.
CREATE FUNCTION docmodel._frozen_sql(frozen_when jsonb, alias text) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    m record;
    parts text[] := '{}';
BEGIN
    IF frozen_when IS NULL THEN
        RETURN 'false';
    END IF;
    IF alias IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'alias must not be null';
    END IF;
    IF pg_catalog.jsonb_typeof(frozen_when) OPERATOR(pg_catalog.<>) 'object' THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'frozen_when must be an object',
            HINT = 'frozen_when maps JSON Pointers to the values that freeze a document: {"/status": ["shipped"]}.';
    END IF;
    FOR m IN SELECT e.key, e.value FROM pg_catalog.jsonb_each(frozen_when) AS e ORDER BY e.key LOOP
        IF m.key OPERATOR(pg_catalog.!~) '^/' OR m.key OPERATOR(pg_catalog.~) '(^|/)\*(/|$)'
           OR pg_catalog.jsonb_typeof(m.value) OPERATOR(pg_catalog.<>) 'array'
           OR pg_catalog.jsonb_array_length(m.value) OPERATOR(pg_catalog.=) 0
           OR EXISTS (SELECT FROM pg_catalog.jsonb_array_elements(m.value) AS v(v)
                      WHERE pg_catalog.jsonb_typeof(v.v) OPERATOR(pg_catalog.=) ANY (ARRAY['object', 'array'])) THEN
            RAISE EXCEPTION USING ERRCODE = '22023',
                MESSAGE = pg_catalog.format('frozen_when member "%s" is not a JSON Pointer to a list of values', m.key),
                HINT = 'Each member is a pointer to one member ("/status", no *) and a non-empty array of strings, numbers, booleans or null.';
        END IF;
        PERFORM docmodel.ref_keys('{}', m.key);
        parts := parts OPERATOR(pg_catalog.||) pg_catalog.format(
            '(%I.doc OPERATOR(pg_catalog.#>) %L::pg_catalog.text[]) OPERATOR(pg_catalog.=) ANY (%L::pg_catalog.jsonb[])',
            alias,
            docmodel._pointer_tokens(m.key)::text,
            ARRAY(SELECT v.v FROM pg_catalog.jsonb_array_elements(m.value) AS v(v))::text);
    END LOOP;
    RETURN '(' OPERATOR(pg_catalog.||) pg_catalog.array_to_string(parts, ' OR ') OPERATOR(pg_catalog.||) ')';
END
$$;
COMMENT ON FUNCTION docmodel._frozen_sql(jsonb, text) IS
    'docmodel internal: the SQL condition that a document keeps its copies under a copy rule''s frozen_when (22023 for a bad one)';

CREATE FUNCTION docmodel.create_copy(coll regclass, path text, source_coll regclass, fields jsonb,
    ref text DEFAULT 'id', on_missing text DEFAULT 'keep', mode text DEFAULT 'sync',
    frozen_when jsonb DEFAULT NULL)
    RETURNS bigint
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    id integer;
    refpath text;
    n bigint;
BEGIN
    PERFORM docmodel._copy_check(coll, path, source_coll, mode);
    IF fields IS NULL OR ref IS NULL OR ref OPERATOR(pg_catalog.=) '' THEN
        RAISE EXCEPTION USING ERRCODE = CASE WHEN fields IS NULL OR ref IS NULL THEN '22004' ELSE '22023' END, MESSAGE = 'fields and ref must not be null or empty';
    END IF;
    PERFORM docmodel.copy_values('{}', fields);
    PERFORM docmodel._frozen_sql(frozen_when, 'c');
    IF on_missing IS NULL OR NOT on_missing OPERATOR(pg_catalog.=) ANY (ARRAY['keep', 'null', 'remove', 'refuse']) THEN
        RAISE EXCEPTION USING ERRCODE = CASE WHEN on_missing IS NULL THEN '22004' ELSE '22023' END,
            MESSAGE = pg_catalog.format('invalid on_missing "%s"', on_missing),
            HINT = 'on_missing is keep, null, remove or refuse.';
    END IF;
    -- a copy of itself, or of a collection that copies from it (through
    -- others), would never settle
    IF coll OPERATOR(pg_catalog.=) source_coll OR docmodel._rules_flow('copy', coll, source_coll) THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = pg_catalog.format('copies of %s into %s would form a cycle', source_coll, coll),
            DETAIL = pg_catalog.format('%s already copies from %s, directly or through other collections.', source_coll, coll);
    END IF;
    IF EXISTS (SELECT FROM docmodel.copy_rules r WHERE r.coll OPERATOR(pg_catalog.=) create_copy.coll
               AND r.path OPERATOR(pg_catalog.=) create_copy.path) THEN
        RAISE EXCEPTION USING ERRCODE = '42710',
            MESSAGE = pg_catalog.format('%s already has a rule at %s', coll, path);
    END IF;
    id := docmodel._copy_rule_write('create', coll, path, source_coll, 'copy', ref, fields, NULL, on_missing, mode,
        NULL, frozen_when);
    refpath := path OPERATOR(pg_catalog.||) '/' OPERATOR(pg_catalog.||)
        pg_catalog.replace(pg_catalog.replace(ref, '~', '~0'), '/', '~1');
    -- as the caller: a trigger takes the collection's ownership
    EXECUTE pg_catalog.format('CREATE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE ON %s '
        'FOR EACH ROW EXECUTE FUNCTION docmodel._copy_source_trigger(%L)',
        'docmodel_copy_' OPERATOR(pg_catalog.||) id, docmodel._rel_sql(source_coll), id);
    EXECUTE pg_catalog.format('CREATE TRIGGER %I BEFORE INSERT OR UPDATE ON %s '
        'FOR EACH ROW EXECUTE FUNCTION docmodel._copy_fill_trigger(%L)',
        'docmodel_cfill_' OPERATOR(pg_catalog.||) id, docmodel._rel_sql(coll), id);
    PERFORM docmodel._copy_index(coll, refpath, true);
    -- the documents there already: their copies filled by the trigger
    EXECUTE pg_catalog.format('UPDATE %s AS c SET doc = c.doc WHERE docmodel.ref_keys(c.doc, %L) '
        'OPERATOR(pg_catalog.<>) ''{}''::pg_catalog.text[]', docmodel._rel_sql(coll), refpath);
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n;
END
$$;
COMMENT ON FUNCTION docmodel.create_copy(regclass, text, regclass, jsonb, text, text, text, jsonb) IS
    'docmodel: keep copies of source documents'' members (fields) in the objects at path of coll''s documents that refer to them (member ref); returns how many documents were filled';

CREATE FUNCTION docmodel.create_aggregate(coll regclass, path text, source_coll regclass,
    ref_path text, agg text DEFAULT 'count', mode text DEFAULT 'sync', doc_type text DEFAULT NULL)
    RETURNS bigint
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    id integer;
BEGIN
    PERFORM docmodel._copy_check(coll, path, source_coll, mode);
    IF mode OPERATOR(pg_catalog.<>) 'sync' THEN
        RAISE EXCEPTION USING ERRCODE = '0A000',
            MESSAGE = pg_catalog.format('mode "%s" is not supported for aggregates', mode),
            DETAIL = 'Aggregates are kept in the writing transaction (mode sync).';
    END IF;
    IF ref_path IS NULL OR agg IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'ref_path and agg must not be null';
    END IF;
    PERFORM docmodel.ref_keys('{}', ref_path);
    PERFORM docmodel._aggregate_expr(agg, NULL);
    IF doc_type IS NOT NULL THEN
        PERFORM docmodel._check_doc_type(doc_type);
    END IF;
    IF path OPERATOR(pg_catalog.~) '(^|/)\*(/|$)' THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = pg_catalog.format('the path of an aggregate names one member, not "%s"', path);
    END IF;
    -- an aggregate into a collection whose own aggregates feed, through
    -- other collections, the source would never settle (a sum of _ver
    -- changes every time it is written); a collection aggregating itself
    -- (a tree counting its children) is allowed
    IF coll OPERATOR(pg_catalog.<>) source_coll AND docmodel._rules_flow('aggregate', coll, source_coll) THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = pg_catalog.format('aggregates of %s into %s would form a cycle', source_coll, coll),
            DETAIL = pg_catalog.format('%s already aggregates %s, directly or through other collections.', source_coll, coll);
    END IF;
    IF EXISTS (SELECT FROM docmodel.copy_rules r WHERE r.coll OPERATOR(pg_catalog.=) create_aggregate.coll
               AND r.path OPERATOR(pg_catalog.=) create_aggregate.path) THEN
        RAISE EXCEPTION USING ERRCODE = '42710',
            MESSAGE = pg_catalog.format('%s already has a rule at %s', coll, path);
    END IF;
    id := docmodel._copy_rule_write('create', coll, path, source_coll, 'aggregate', ref_path, NULL, agg, NULL, mode, doc_type);
    EXECUTE pg_catalog.format('CREATE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE ON %s '
        'FOR EACH ROW EXECUTE FUNCTION docmodel._aggregate_trigger(%L)',
        'docmodel_agg_' OPERATOR(pg_catalog.||) id, docmodel._rel_sql(source_coll), id);
    -- a new document gets the aggregate of those already referring to it
    EXECUTE pg_catalog.format('CREATE TRIGGER %I BEFORE INSERT ON %s '
        'FOR EACH ROW EXECUTE FUNCTION docmodel._aggregate_trigger(%L)',
        'docmodel_afill_' OPERATOR(pg_catalog.||) id, docmodel._rel_sql(coll), id);
    PERFORM docmodel._copy_index(source_coll, ref_path, true);
    RETURN docmodel.refresh_aggregate(coll, path);
END
$$;

CREATE FUNCTION docmodel.refresh_aggregate(coll regclass, path text) RETURNS bigint
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r docmodel.copy_rules;
    n bigint;
BEGIN
    SELECT * INTO r FROM docmodel.copy_rules c WHERE c.coll OPERATOR(pg_catalog.=) refresh_aggregate.coll
        AND c.path OPERATOR(pg_catalog.=) refresh_aggregate.path AND c.kind OPERATOR(pg_catalog.=) 'aggregate';
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = '42704',
            MESSAGE = pg_catalog.format('%s has no aggregate at %s', coll, path);
    END IF;
    -- as the caller (UPDATE on coll, SELECT on the source); one pass over
    -- the source grouped by the key each document refers to (once per
    -- document however often it names it), joined to the documents; one
    -- no document refers to gets the aggregate of none; the documents
    -- whose aggregate changes, in key order
    EXECUTE pg_catalog.format('UPDATE %1$s AS a SET doc = docmodel._copy_put_at(a.doc, %3$L, x.v) '
        'FROM (SELECT a2.id, COALESCE(g.v, (SELECT %5$s FROM %2$s AS b WHERE false)) AS v FROM %1$s AS a2 '
        'LEFT JOIN (SELECT k.k AS id, %5$s AS v FROM %2$s AS b CROSS JOIN LATERAL '
        '(SELECT DISTINCT u.k FROM pg_catalog.unnest(docmodel.ref_keys(b.doc, %4$L)) AS u(k)) AS k '
        'GROUP BY k.k) AS g ON g.id OPERATOR(pg_catalog.=) a2.id WHERE %6$s ORDER BY a2.id) AS x '
        'WHERE a.id OPERATOR(pg_catalog.=) x.id AND a.doc OPERATOR(pg_catalog.<>) docmodel._copy_put_at(a.doc, %3$L, x.v)',
        docmodel._rel_sql(r.coll), docmodel._rel_sql(r.source), r.path, r.ref,
        docmodel._aggregate_expr(r.agg, r.source), docmodel._type_filter_sql(r.coll, 'a2', r.doc_type));
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n;
END
$$;
COMMENT ON FUNCTION docmodel.refresh_aggregate(regclass, text) IS
    'docmodel: compute again from scratch the aggregate at path of every document of coll; returns how many documents changed';
COMMENT ON FUNCTION docmodel.create_aggregate(regclass, text, regclass, text, text, text, text) IS
    'docmodel: keep at path of each document of coll an aggregate (count, keys, sum/min/max:/pointer) of the documents of source_coll referring to it at ref_path; returns how many documents were filled';

-- Forget the rule of coll at path of kind kind: its triggers, its index
-- when no other rule uses it; false when there is none.
CREATE FUNCTION docmodel._drop_copy_rule(coll regclass, path text, kind text) RETURNS boolean
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r docmodel.copy_rules;
BEGIN
    SELECT * INTO r FROM docmodel.copy_rules c WHERE c.coll OPERATOR(pg_catalog.=) _drop_copy_rule.coll
        AND c.path OPERATOR(pg_catalog.=) _drop_copy_rule.path AND c.kind OPERATOR(pg_catalog.=) _drop_copy_rule.kind;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    PERFORM docmodel._copy_rule_write('drop', coll, path, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    IF kind OPERATOR(pg_catalog.=) 'copy' THEN
        EXECUTE pg_catalog.format('DROP TRIGGER IF EXISTS %I ON %s', 'docmodel_copy_' OPERATOR(pg_catalog.||) r.id, r.source);
        EXECUTE pg_catalog.format('DROP TRIGGER IF EXISTS %I ON %s', 'docmodel_cfill_' OPERATOR(pg_catalog.||) r.id, r.coll);
        PERFORM docmodel._copy_index(r.coll, r.path OPERATOR(pg_catalog.||) '/' OPERATOR(pg_catalog.||)
            pg_catalog.replace(pg_catalog.replace(r.ref, '~', '~0'), '/', '~1'), false);
    ELSE
        EXECUTE pg_catalog.format('DROP TRIGGER IF EXISTS %I ON %s', 'docmodel_agg_' OPERATOR(pg_catalog.||) r.id, r.source);
        EXECUTE pg_catalog.format('DROP TRIGGER IF EXISTS %I ON %s', 'docmodel_afill_' OPERATOR(pg_catalog.||) r.id, r.coll);
        PERFORM docmodel._copy_index(r.source, r.ref, false);
    END IF;
    RETURN true;
END
$$;
COMMENT ON FUNCTION docmodel._drop_copy_rule(regclass, text, text) IS
    'docmodel internal: forget a copy or aggregate rule, its triggers and its unused index';

-- Forget every rule collection coll is written or read by (drop_collection).
CREATE FUNCTION docmodel._drop_copy_rules_of(coll regclass) RETURNS void
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r record;
BEGIN
    FOR r IN SELECT c.coll, c.path, c.kind FROM docmodel.copy_rules c
             WHERE c.coll OPERATOR(pg_catalog.=) _drop_copy_rules_of.coll
                OR c.source OPERATOR(pg_catalog.=) _drop_copy_rules_of.coll
             ORDER BY c.id LOOP
        PERFORM docmodel._drop_copy_rule(r.coll, r.path, r.kind);
    END LOOP;
END
$$;
COMMENT ON FUNCTION docmodel._drop_copy_rules_of(regclass) IS
    'docmodel internal: forget the copy and aggregate rules a collection is written or read by';

CREATE FUNCTION docmodel.drop_copy(coll regclass, path text) RETURNS boolean
LANGUAGE sql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT docmodel._drop_copy_rule(coll, path, 'copy') $$;
COMMENT ON FUNCTION docmodel.drop_copy(regclass, text) IS
    'docmodel: stop keeping the copies at path of coll (they stay as they are); false when there was no such rule';

CREATE FUNCTION docmodel.drop_aggregate(coll regclass, path text) RETURNS boolean
LANGUAGE sql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT docmodel._drop_copy_rule(coll, path, 'aggregate') $$;
COMMENT ON FUNCTION docmodel.drop_aggregate(regclass, text) IS
    'docmodel: stop keeping the aggregate at path of coll (it stays as it is); false when there was no such rule';

-- Deferred copy rules (src/copy/copy.c, src/copy/worker.c): a write of a source
-- queues its key instead of rewriting the referring documents;
-- apply_copies (or the background worker) rewrites them later, in batches.

/*
 * The source keys of deferred copy rules still to apply: one row per rule
 * and key (a source written again before it is applied queues nothing
 * more). Written by the rules' source triggers, apply_copies and
 * _copy_rule_write (drop), as the table's owner; read by nobody else
 * (docmodel.copy_lag shows the counts).
 */
CREATE TABLE docmodel.copy_queue (
    rule        integer NOT NULL,
    key         text NOT NULL,
    enqueued_at timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
    PRIMARY KEY (rule, key)
);
CREATE INDEX copy_queue_rule_enqueued_at_idx ON docmodel.copy_queue (rule, enqueued_at);
COMMENT ON TABLE docmodel.copy_queue IS
    'docmodel: the source keys whose copies a deferred copy rule has still to rewrite';
SELECT pg_catalog.pg_extension_config_dump('docmodel.copy_queue', '');

CREATE VIEW docmodel.copy_lag AS
SELECT r.id AS rule, r.coll, r.path, r.source,
       pg_catalog.count(q.key) AS queued,
       pg_catalog.min(q.enqueued_at) AS oldest,
       pg_catalog.clock_timestamp() OPERATOR(pg_catalog.-) pg_catalog.min(q.enqueued_at) AS age
FROM docmodel.copy_rules r
LEFT JOIN docmodel.copy_queue q ON q.rule OPERATOR(pg_catalog.=) r.id
WHERE r.mode OPERATOR(pg_catalog.=) 'deferred'
GROUP BY r.id, r.coll, r.path, r.source;
COMMENT ON VIEW docmodel.copy_lag IS
    'docmodel: per deferred copy rule, how many source keys are queued, since when and how long ago';
GRANT SELECT ON docmodel.copy_lag TO PUBLIC;

CREATE FUNCTION docmodel._apply_copies_batch(rule integer, batch_size integer) RETURNS bigint
    AS 'MODULE_PATHNAME', 'copy_apply_copies_batch'
    LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION docmodel._apply_copies_batch(integer, integer) IS
    'docmodel internal: apply up to batch_size queued keys of a deferred copy rule (skipping those another transaction holds); returns how many';

CREATE PROCEDURE docmodel.apply_copies(coll regclass, batch_size integer DEFAULT 1000)
    AS 'MODULE_PATHNAME', 'copy_apply_copies'
    LANGUAGE C;
COMMENT ON PROCEDURE docmodel.apply_copies(regclass, integer) IS
    'docmodel: rewrite the copies the deferred copy rules of coll have queued, batch by batch (batch_size source keys), committing after each; resumable';
