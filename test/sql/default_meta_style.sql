-- docmodel.default_meta_style: the meta_style of create_collection without one (or with NULL).
-- Not in test/columns_tests: it sets the setting itself.
SET docmodel.default_meta_style = 'underscore';
SELECT docmodel.create_collection('dms_default') IS NOT NULL AS created;
SET docmodel.default_meta_style = 'plain';
SELECT docmodel.create_collection('dms_plain') IS NOT NULL AS created;
SELECT docmodel.create_collection('dms_null', meta_style => NULL) IS NOT NULL AS created;
-- an explicit meta_style wins over the setting
SELECT docmodel.create_collection('dms_meta', meta_style => 'meta') IS NOT NULL AS created;
SET docmodel.default_meta_style = 'columns';
SELECT docmodel.create_collection('dms_columns') IS NOT NULL AS created;
SET docmodel.default_meta_style = 'xattrs';
SELECT docmodel.create_collection('dms_xattrs') IS NOT NULL AS created;
-- xattrs from the setting: the column meta is added, types refused as with meta_style => 'xattrs'
SELECT count(*) AS meta_column FROM pg_attribute
WHERE attrelid = 'dms_xattrs'::regclass AND attname = 'meta' AND NOT attisdropped;
SELECT docmodel.create_collection('dms_types', type_part => 0, types => '{a}');
SELECT collection, meta_style FROM docmodel.collections
WHERE collection::text LIKE 'dms\_%' ORDER BY collection::text;
-- the stamps go where the resolved style keeps them
SELECT docmodel.insert('dms_plain', 'a::1', '{"x": 1}') IS NOT NULL AS inserted;
SELECT doc ? 'ver' AS plain_ver, doc ? '_ver' AS underscore_ver FROM dms_plain;
SELECT docmodel.insert('dms_columns', 'a::1', '{"x": 1}') IS NOT NULL AS inserted;
SELECT doc AS stored, ver FROM dms_columns;
SELECT docmodel.get('dms_columns', 'a::1')->'_ver' AS merged_ver;
-- bad values are refused; the setting keeps its value
SET docmodel.default_meta_style = 'camel';
SET docmodel.default_meta_style = '';
SHOW docmodel.default_meta_style;
RESET docmodel.default_meta_style;
SHOW docmodel.default_meta_style;
-- _check_collection_options still refuses a NULL meta_style (22004)
SELECT docmodel._check_collection_options('x', NULL, 0, NULL, 'ms', '::');
SELECT docmodel.drop_collection(c) FROM unnest(ARRAY['dms_default', 'dms_plain', 'dms_null',
  'dms_meta', 'dms_columns', 'dms_xattrs']::regclass[]) AS c;
