# From tables to documents: denormalize of a mapping against the query written by hand
# (both made to build every document: count(*) alone lets the planner skip the unused column),
# and a child row inserted with a live projection against the same insert without one.

"${PSQL[@]}" >/dev/null <<'SQL'
SET client_min_messages = warning;
SELECT docmodel.drop_mapping(m) FROM unnest('{bench_people,bench_people_p}'::text[]) m;
DROP TABLE IF EXISTS bench_address, bench_contact, bench_person, bench_address_p, bench_contact_p, bench_person_p;
DELETE FROM docmodel.collection_config WHERE coll::text = 'bench_persons' OR coll::text ~ '^\d+$';
DROP TABLE IF EXISTS bench_persons;
CREATE TABLE bench_person (id integer PRIMARY KEY, first_name text NOT NULL, last_name text NOT NULL, born date);
CREATE TABLE bench_address (id integer PRIMARY KEY, person_id integer NOT NULL REFERENCES bench_person,
    city text NOT NULL, since date);
CREATE TABLE bench_contact (id serial PRIMARY KEY, person_id integer NOT NULL REFERENCES bench_person, value text NOT NULL);
CREATE INDEX ON bench_address (person_id);
CREATE INDEX ON bench_contact (person_id);
INSERT INTO bench_person SELECT i, 'F' || i, 'L' || i, DATE '1950-01-01' + i % 20000 FROM generate_series(1, 100000) i;
INSERT INTO bench_address SELECT i, (i + 1) / 2, 'City ' || i % 500, DATE '2000-01-01' + i % 7000 FROM generate_series(1, 200000) i;
INSERT INTO bench_contact (person_id, value) SELECT (i + 1) / 2, 'c' || i FROM generate_series(1, 200000) i;
CREATE TABLE bench_person_p (LIKE bench_person INCLUDING ALL);
CREATE TABLE bench_address_p (LIKE bench_address INCLUDING ALL);
CREATE TABLE bench_contact_p (id serial PRIMARY KEY, person_id integer NOT NULL REFERENCES bench_person_p, value text NOT NULL);
ALTER TABLE bench_address_p ADD FOREIGN KEY (person_id) REFERENCES bench_person_p;
CREATE INDEX ON bench_contact_p (person_id);
INSERT INTO bench_person_p SELECT * FROM bench_person;
INSERT INTO bench_address_p SELECT * FROM bench_address;
INSERT INTO bench_contact_p (person_id, value) SELECT person_id, value FROM bench_contact;
SELECT docmodel.create_mapping('bench_people', 'bench_person', 'person');
SELECT docmodel.map_embed_array('bench_people', 'bench_address', 'addresses', order_by => 'since DESC');
SELECT docmodel.map_embed_array('bench_people', 'bench_contact', 'contacts', order_by => 'id');
SELECT docmodel.create_mapping('bench_people_p', 'bench_person_p', 'person');
SELECT docmodel.map_embed_array('bench_people_p', 'bench_address_p', 'addresses', order_by => 'since DESC');
SELECT docmodel.map_embed_array('bench_people_p', 'bench_contact_p', 'contacts', order_by => 'id');
SELECT docmodel.create_collection('bench_persons', 'person');
VACUUM ANALYZE;
SQL
"${PSQL[@]}" -c "CALL docmodel.migrate_tables('bench_people_p', 'bench_persons', 5000)" >/dev/null
"${PSQL[@]}" -c "SELECT docmodel.project_tables('bench_people_p', 'bench_persons')" >/dev/null

bench_sql "relational: denormalize 100k vs hand-written" 1.3 \
	"SELECT count(*) FROM docmodel.denormalize('bench_people') d WHERE d.doc IS NOT NULL" \
	"SELECT count(*) FROM (SELECT 'person::' || p.id AS key, jsonb_build_object('id', p.id,
	   'first_name', p.first_name, 'last_name', p.last_name, 'born', p.born,
	   'addresses', to_jsonb(ARRAY(SELECT jsonb_build_object('id', a.id, 'person_id', a.person_id,
	       'city', a.city, 'since', a.since) FROM bench_address a WHERE a.person_id = p.id ORDER BY a.since DESC)),
	   'contacts', to_jsonb(ARRAY(SELECT jsonb_build_object('id', c.id, 'person_id', c.person_id,
	       'value', c.value) FROM bench_contact c WHERE c.person_id = p.id ORDER BY c.id))) AS doc
	 FROM bench_person p) x WHERE x.doc IS NOT NULL"

bench_dir=$(mktemp -d)
cat > "$bench_dir/projected.sql" <<'SQL'
\set k random(1, 100000)
INSERT INTO bench_contact_p (person_id, value) VALUES (:k, 'new');
SQL
cat > "$bench_dir/plain.sql" <<'SQL'
\set k random(1, 100000)
INSERT INTO bench_contact (person_id, value) VALUES (:k, 'new');
SQL
PGBENCH_ARGS="-M prepared" bench_tps "relational: child insert projected vs not" 0.5 \
	"$bench_dir/projected.sql" "$bench_dir/plain.sql" 1 8
rm -rf "$bench_dir"

"${PSQL[@]}" >/dev/null <<'SQL'
SET client_min_messages = warning;
SELECT docmodel.stop_projection('bench_people_p');
SELECT docmodel.drop_mapping(m) FROM unnest('{bench_people,bench_people_p}'::text[]) m;
SELECT docmodel.drop_collection('bench_persons');
DROP TABLE bench_address, bench_contact, bench_person, bench_address_p, bench_contact_p, bench_person_p;
SQL
