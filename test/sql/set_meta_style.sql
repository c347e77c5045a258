-- set_meta_style: a populated collection converted to meta_style 'columns'
-- and back; get, get_multi, meta() and the documents view return exactly
-- what they returned before, during the conversion too.
\i test/sql/include/try.sql
SET docmodel.actor = 'conv';
SELECT docmodel.create_collection('msconv') IS NOT NULL AS created;
SELECT docmodel.insert('msconv', 'user::' || i, jsonb_build_object('name', 'n' || i,
    'bio', repeat('x', 40), 'tags', jsonb_build_array('a', 'b'))) > 0 AS inserted
FROM generate_series(1, 300) i GROUP BY 1;
-- updated ones (_ver > 1), a renamed one, an expired one
SELECT docmodel.replace('msconv', 'user::2', '{"name": "two"}') > 0 AS replaced;
SELECT docmodel.replace('msconv', 'user::2', '{"name": "two again"}') > 0 AS replaced;
SELECT docmodel.rename_key('msconv', 'user::3', 'user::3b') > 0 AS renamed;
UPDATE msconv SET expires_at = now() - interval '1 day' WHERE id = 'user::4';
SET docmodel.actor = 'someone else';
SELECT docmodel.replace('msconv', 'user::6', '{"name": "six"}') > 0 AS replaced;
SELECT (docmodel.get('msconv', 'user::2')->>'_ver')::int AS ver_of_2;

-- everything a reader sees of the collection
CREATE FUNCTION pg_temp.snap() RETURNS TABLE (what text, key text, val jsonb)
LANGUAGE sql AS $$
  WITH k AS (SELECT array_agg(id) || '{user::3,user::4,nope}'::text[] AS keys FROM msconv)
  SELECT 'get', u, docmodel.get('msconv', u) FROM k, unnest(k.keys) u
  UNION ALL
  SELECT 'get_multi', m.key, jsonb_build_object('doc', m.doc, 'cas', m.cas)
  FROM k, docmodel.get_multi('msconv', k.keys) m
  UNION ALL
  SELECT 'meta', u, docmodel.meta('msconv', u) FROM k, unnest(k.keys) u
  UNION ALL
  SELECT 'view', v.id, to_jsonb(v) FROM msconv_documents v
$$;
CREATE FUNCTION pg_temp.diff() RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
  RETURN (SELECT count(*) FROM (SELECT * FROM snap0 EXCEPT SELECT * FROM pg_temp.snap()) a)
       + (SELECT count(*) FROM (SELECT * FROM pg_temp.snap() EXCEPT SELECT * FROM snap0) b);
END $$;
CREATE TEMP TABLE snap0 AS SELECT * FROM pg_temp.snap();
SELECT what, count(*), count(val) AS found FROM snap0 GROUP BY what ORDER BY what;
VACUUM FULL msconv;
CREATE TEMP TABLE sizes AS SELECT 'underscore' AS style, pg_total_relation_size('msconv') AS size;

-- errors
SELECT pg_temp.try($$CALL docmodel.set_meta_style('msconv', 'columns')$$);
SELECT pg_temp.try($$CALL docmodel.set_meta_style('msconv', 'columns', 0)$$);
SELECT pg_temp.try($$CALL docmodel.set_meta_style('msconv', 'columns', 100001)$$);
SELECT pg_temp.try($$CALL docmodel.set_meta_style('msconv', NULL)$$);
SELECT pg_temp.try($$SELECT docmodel._meta_style_begin('msconv', 'meta')$$);
SELECT pg_temp.try($$SELECT docmodel._meta_style_begin('msconv', 'xattrs')$$);
CREATE TABLE msconv_plain (id text);
SELECT pg_temp.try($$SELECT docmodel._meta_style_begin('msconv_plain', 'columns')$$);
SELECT pg_temp.try($$SELECT docmodel._meta_style_batch('msconv_plain', 10, false)$$);
CREATE ROLE msconv_writer;
GRANT SELECT, UPDATE ON msconv TO msconv_writer;
SET ROLE msconv_writer;
SELECT pg_temp.try($$CALL docmodel.set_meta_style('msconv', 'columns')$$);
SELECT pg_temp.try($$SELECT docmodel._meta_style_begin('msconv', 'columns')$$);
SELECT pg_temp.try($$SELECT docmodel._meta_style_batch('msconv', 10, false)$$);
SELECT pg_temp.try($$SELECT docmodel._config_set_meta_style('msconv', 'columns', NULL, NULL)$$);
RESET ROLE;
-- already in that style: nothing to do
CALL docmodel.set_meta_style('msconv', 'underscore');

-- to columns, interrupted after one batch (the steps CALL runs, by hand)
SELECT docmodel._meta_style_begin('msconv', 'columns') AS begun;
SELECT docmodel._meta_style_batch('msconv', 100, false) AS batch;
SELECT meta_style, meta_style_to, meta_style_key FROM docmodel.collection_config
WHERE coll = 'msconv'::regclass;
SELECT count(*) FILTER (WHERE ver IS NULL) AS stored_as_before,
       count(*) FILTER (WHERE ver IS NOT NULL) AS in_columns FROM msconv;
-- a reader sees the same, converted or not
SELECT pg_temp.diff() AS differences_midway;
-- another conversion is refused while this one is under way
SELECT pg_temp.try($$SELECT docmodel._meta_style_begin('msconv', 'underscore')$$);
-- a write to a document not converted yet continues its stamps
CREATE TEMP TABLE before_write AS SELECT docmodel.get('msconv', 'user::99') AS doc;
SELECT doc - '{_modified,_created}'::text[] AS before_write FROM before_write;
SELECT docmodel.replace('msconv', 'user::99', '{"name": "ninety-nine"}') > 0 AS replaced;
SELECT docmodel.get('msconv', 'user::99') - '{_modified,_created}'::text[] AS after_write,
       (SELECT ver FROM msconv WHERE id = 'user::99') AS ver_column,
       docmodel.get('msconv', 'user::99')->'_created' = (SELECT doc->'_created' FROM before_write)
         AS created_kept;
DROP TABLE snap0;
CREATE TEMP TABLE snap0 AS SELECT * FROM pg_temp.snap();
-- resumed
CALL docmodel.set_meta_style('msconv', 'columns', 70);
SELECT meta_style, meta_style_to, meta_style_key FROM docmodel.collection_config
WHERE coll = 'msconv'::regclass;
SELECT count(*) FILTER (WHERE ver IS NULL) AS stored_as_before,
       count(*) FILTER (WHERE doc ? '_ver') AS stamps_in_doc FROM msconv;
SELECT pg_temp.diff() AS differences_in_columns;
SELECT doc FROM msconv WHERE id = 'user::5';
VACUUM FULL msconv;
INSERT INTO sizes SELECT 'columns', pg_total_relation_size('msconv');
SELECT (SELECT size FROM sizes WHERE style = 'columns')
     < (SELECT size FROM sizes WHERE style = 'underscore') AS smaller;

-- back, interrupted after one batch
SELECT docmodel._meta_style_begin('msconv', 'underscore') AS begun;
SELECT docmodel._meta_style_batch('msconv', 100, false) AS batch;
SELECT count(*) FILTER (WHERE ver IS NULL) AS stored_as_before,
       count(*) FILTER (WHERE ver IS NOT NULL) AS in_columns FROM msconv;
SELECT pg_temp.diff() AS differences_midway;
-- a write to a document converted back already (its row goes to columns
-- again; the last step takes it)
SELECT docmodel.replace('msconv', 'user::1', '{"name": "one"}') > 0 AS replaced;
SELECT (docmodel.get('msconv', 'user::1')->>'_ver')::int AS ver_of_1,
       (SELECT ver FROM msconv WHERE id = 'user::1') AS ver_column;
DROP TABLE snap0;
CREATE TEMP TABLE snap0 AS SELECT * FROM pg_temp.snap();
CALL docmodel.set_meta_style('msconv', 'underscore', 70);
SELECT meta_style, meta_style_to, meta_style_key FROM docmodel.collection_config
WHERE coll = 'msconv'::regclass;
SELECT count(*) AS stamp_columns FROM pg_attribute
WHERE attrelid = 'msconv'::regclass AND attname IN ('created_at', 'ver') AND NOT attisdropped;
SELECT pg_temp.diff() AS differences_back;
SELECT count(*) FILTER (WHERE NOT doc ? '_ver') AS without_stamps FROM msconv;

-- and once more, in one CALL each way
CALL docmodel.set_meta_style('msconv', 'columns');
SELECT pg_temp.diff() AS differences_in_columns;
CALL docmodel.set_meta_style('msconv', 'underscore');
SELECT pg_temp.diff() AS differences_back;

DROP TABLE msconv_plain;
SELECT docmodel.drop_collection('msconv');
DROP ROLE msconv_writer;
