# Key layouts and field names: the 100k-insert scenario of 20_collections on a
# collection with its own field names (fields), with keys whose type is part 2 (type_part),
# and with the management fields outside the body (meta_style 'xattrs'), each against the
# default style. Targets: fields and type_part <= 1.05x, xattrs <= 1.1x.

"${PSQL[@]}" >/dev/null <<'SQL'
SET client_min_messages = warning;
DROP TABLE IF EXISTS bench_lay_src, bench_lay_src2;
DELETE FROM docmodel.collection_config
WHERE coll::text IN ('bench_lay_default', 'bench_lay_fields', 'bench_lay_part', 'bench_lay_xattrs')
   OR coll::text ~ '^\d+$';
DROP TABLE IF EXISTS bench_lay_default, bench_lay_fields, bench_lay_part, bench_lay_xattrs;
CREATE TABLE bench_lay_src AS
SELECT 'user::' || i AS id,
       jsonb_build_object('name', 'User ' || i, 'email', 'user' || i || '@example.com',
                          'age', i % 90, 'tags', jsonb_build_array('a', 'b'),
                          'address', jsonb_build_object('city', 'Berlin', 'zip', '10' || i % 1000)) AS doc
FROM generate_series(1, 100000) AS i;
-- the same documents under app-prefixed keys (couchmusic::user::i)
CREATE TABLE bench_lay_src2 AS SELECT 'couchmusic::' || id AS id, doc FROM bench_lay_src;
SELECT docmodel.create_collection('bench_lay_default') IS NOT NULL;
SELECT docmodel.create_collection('bench_lay_fields', fields =>
  '{"type": "docType", "schema": "version", "created": "createdAt", "modified": "modifiedAt", "ver": "rev"}') IS NOT NULL;
SELECT docmodel.create_collection('bench_lay_part', type_part => 2) IS NOT NULL;
SELECT docmodel.create_collection('bench_lay_xattrs', meta_style => 'xattrs') IS NOT NULL;
VACUUM ANALYZE bench_lay_src, bench_lay_src2;
SQL

bench_sql "layouts: INSERT 100k, fields vs default" 1.05 \
	"TRUNCATE bench_lay_fields; INSERT INTO bench_lay_fields (id, doc) SELECT id, doc FROM bench_lay_src" \
	"TRUNCATE bench_lay_default; INSERT INTO bench_lay_default (id, doc) SELECT id, doc FROM bench_lay_src"
bench_sql "layouts: INSERT 100k, type_part 2 vs default" 1.05 \
	"TRUNCATE bench_lay_part; INSERT INTO bench_lay_part (id, doc) SELECT id, doc FROM bench_lay_src2" \
	"TRUNCATE bench_lay_default; INSERT INTO bench_lay_default (id, doc) SELECT id, doc FROM bench_lay_src"
bench_sql "layouts: INSERT 100k, xattrs vs default" 1.10 \
	"TRUNCATE bench_lay_xattrs; INSERT INTO bench_lay_xattrs (id, doc) SELECT id, doc FROM bench_lay_src" \
	"TRUNCATE bench_lay_default; INSERT INTO bench_lay_default (id, doc) SELECT id, doc FROM bench_lay_src"

"${PSQL[@]}" -c "SET client_min_messages = warning" \
	-c "SELECT docmodel.drop_collection(c) FROM unnest('{bench_lay_default,bench_lay_fields,bench_lay_part,bench_lay_xattrs}'::regclass[]) c" \
	-c "DROP TABLE bench_lay_src, bench_lay_src2" >/dev/null
