-- denormalize reads each table once (set-based) and streams its documents:
-- the same documents, in the same order, as the correlated form that
-- migrate_tables and the projections run (_mapping_sql), over every shape
-- of mapping; a LIMIT stops it.
\i test/sql/include/try.sql
SET client_min_messages = warning;

-- old and new side by side: documents compared as text, in the order each
-- gives them (denormalize inlined, and called through a function scan)
CREATE FUNCTION pg_temp.compare_spec(spec jsonb, call text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    ord text := (SELECT string_agg('q.k' || n, ', ' ORDER BY n)
                 FROM generate_series(1, cardinality(docmodel._pk_columns((spec->>'root')::oid))) n);
    total bigint;
    differ bigint;
    differ_scan bigint;
BEGIN
    EXECUTE format('CREATE TEMP TABLE old_docs AS SELECT pg_catalog.row_number() OVER (ORDER BY %s) AS i, q.key, q.doc::text AS doc FROM (%s) q',
        ord, docmodel._mapping_sql(spec));
    EXECUTE format('CREATE TEMP TABLE new_docs AS SELECT pg_catalog.row_number() OVER () AS i, d.key, d.doc::text AS doc FROM %s d', call);
    EXECUTE format('CREATE TEMP TABLE scan_docs AS SELECT d.i, d.key, d.doc::text AS doc FROM %s WITH ORDINALITY d(key, doc, i)', call);
    SELECT count(*), count(*) FILTER (WHERE o.key IS DISTINCT FROM n.key OR o.doc IS DISTINCT FROM n.doc)
        INTO total, differ FROM old_docs o FULL JOIN new_docs n USING (i);
    SELECT count(*) FILTER (WHERE o.key IS DISTINCT FROM n.key OR o.doc IS DISTINCT FROM n.doc)
        INTO differ_scan FROM old_docs o FULL JOIN scan_docs n USING (i);
    DROP TABLE old_docs, new_docs, scan_docs;
    RETURN format('%s: %s documents, %s differ (%s through a function scan)', call, total, differ, differ_scan);
END
$$;
CREATE FUNCTION pg_temp.compare(m text) RETURNS text LANGUAGE sql AS $$
    SELECT pg_temp.compare_spec(docmodel._mapping_spec_named(m), format('docmodel.denormalize(%L)', m))
$$;

-- 1. arrays: order_by with directions and NULLS, max_items, the child's key
-- order without order_by; empty children; child rows with a NULL key;
-- nesting at two levels (an array in an array, an object in an array); an
-- object many:1, a merged 1:1 the other way round; renames, exclusions
CREATE TABLE person (id integer PRIMARY KEY, first_name text NOT NULL, last_name text NOT NULL, secret text);
CREATE TABLE kind (id integer PRIMARY KEY, name text NOT NULL);
CREATE TABLE contact (id integer PRIMARY KEY, person_id integer REFERENCES person,
    kind_id integer REFERENCES kind, value text NOT NULL);
CREATE TABLE address (id integer PRIMARY KEY, person_id integer NOT NULL REFERENCES person,
    city text NOT NULL, since date);
CREATE TABLE address_line (address_id integer REFERENCES address, n integer, line text,
    PRIMARY KEY (address_id, n));
CREATE TABLE person_details (person_id integer PRIMARY KEY REFERENCES person, shoe_size numeric);
INSERT INTO person SELECT i, 'F' || i, 'L' || i, 's' || i FROM generate_series(1, 40) i;
INSERT INTO kind VALUES (1, 'email'), (2, 'phone');
-- person 1 has none; person_id NULL for some
INSERT INTO contact SELECT i, CASE WHEN i % 9 = 0 THEN NULL ELSE i % 39 + 2 END,
    CASE WHEN i % 4 = 0 THEN NULL ELSE i % 2 + 1 END, 'v' || i FROM generate_series(1, 120) i;
INSERT INTO address SELECT i, i % 30 + 1, 'city ' || (i % 7),
    CASE WHEN i % 5 = 0 THEN NULL ELSE '2020-01-01'::date - (i % 11) END FROM generate_series(1, 90) i;
INSERT INTO address_line SELECT a, n, 'line ' || n FROM generate_series(1, 90) a, generate_series(1, 3) n WHERE a % 4 <> 0;
INSERT INTO person_details SELECT i, i / 2.0 FROM generate_series(1, 40, 3) i;
SELECT docmodel.create_mapping('sb_people', 'person', 'person');
SELECT docmodel.map_embed_array('sb_people', 'address', 'addresses', order_by => 'since DESC NULLS LAST, city, id', max_items => 2);
SELECT docmodel.map_embed_array('sb_people', 'address_line', 'lines', under => 'address');
SELECT docmodel.map_embed_array('sb_people', 'contact', 'contacts', order_by => 'kind_id NULLS FIRST, id DESC');
SELECT docmodel.map_embed_object('sb_people', 'kind', 'kind', under => 'contact');
SELECT docmodel.map_embed_object('sb_people', 'person_details', merge => true);
SELECT docmodel.map_rename('sb_people', 'person', 'first_name', 'firstName');
SELECT docmodel.map_exclude('sb_people', 'person', 'secret');
SELECT docmodel.map_exclude('sb_people', 'address', 'person_id');
SELECT pg_temp.compare('sb_people');
SELECT key, doc FROM docmodel.denormalize('sb_people') LIMIT 2;

-- 2. references: many:1 with a NULL key, many:many through a junction
-- (empty for some), a table referring to itself; composite keys
CREATE TABLE brewery (id integer PRIMARY KEY, name text NOT NULL);
CREATE TABLE beer (id integer PRIMARY KEY, name text NOT NULL, brewery_id integer REFERENCES brewery,
    parent_id integer REFERENCES beer);
CREATE TABLE style (code text PRIMARY KEY);
CREATE TABLE beer_style (beer_id integer REFERENCES beer, style_code text REFERENCES style,
    PRIMARY KEY (beer_id, style_code));
INSERT INTO brewery SELECT i, 'B' || i FROM generate_series(1, 5) i;
INSERT INTO beer SELECT i, 'beer ' || i, CASE WHEN i % 6 = 0 THEN NULL ELSE i % 5 + 1 END,
    CASE WHEN i > 3 THEN i / 3 END FROM generate_series(1, 30) i;
INSERT INTO style VALUES ('ipa'), ('ale'), ('Lager'), ('stout');
INSERT INTO beer_style SELECT b, s FROM generate_series(1, 30) b, unnest('{ipa,ale,Lager,stout}'::text[]) s
    WHERE (b + length(s)) % 3 = 0;
SELECT docmodel.create_mapping('sb_beers', 'beer');
SELECT docmodel.map_reference('sb_beers', 'brewery', 'brewery');
SELECT docmodel.map_reference('sb_beers', 'beer', 'parent');
SELECT docmodel.map_reference('sb_beers', 'style', 'styles', via => 'beer_style');
SELECT pg_temp.compare('sb_beers');

CREATE TABLE course (dept text, num integer, title text, PRIMARY KEY (dept, num));
CREATE TABLE enrollment (student integer, dept text, num integer, grade text,
    PRIMARY KEY (student, dept, num), FOREIGN KEY (dept, num) REFERENCES course);
CREATE TABLE session (dept text, num integer, n integer, room text, PRIMARY KEY (dept, num, n),
    FOREIGN KEY (dept, num) REFERENCES course);
INSERT INTO course SELECT d, n, d || n FROM unnest('{cs,math}'::text[]) d, generate_series(1, 5) n;
INSERT INTO enrollment SELECT s, d, n, 'A' FROM generate_series(1, 6) s, unnest('{cs,math}'::text[]) d,
    generate_series(1, 5) n WHERE (s + n) % 3 = 0;
INSERT INTO session SELECT d, n, k, 'r' || k FROM unnest('{cs,math}'::text[]) d, generate_series(1, 4) n,
    generate_series(1, 3) k;
-- composite keys: an object, an array, a reference
SELECT docmodel.create_mapping('sb_enrollments', 'enrollment');
SELECT docmodel.map_embed_object('sb_enrollments', 'course', 'course');
SELECT docmodel.map_embed_array('sb_enrollments', 'session', 'sessions', under => 'course', order_by => 'n DESC');
SELECT pg_temp.compare('sb_enrollments');
SELECT docmodel.create_mapping('sb_courses', 'course');
SELECT docmodel.map_embed_array('sb_courses', 'enrollment', 'enrollments');
SELECT docmodel.map_embed_array('sb_courses', 'session', 'sessions', max_items => 2);
SELECT pg_temp.compare('sb_courses');

-- 3. a partitioned child, its keys declared on each partition as Pagila's
-- are; an object whose join columns are not unique (one row of them)
CREATE TABLE rental (rental_id integer PRIMARY KEY, rented timestamptz NOT NULL);
CREATE TABLE payment (payment_id integer NOT NULL, rental_id integer NOT NULL, amount numeric(5,2),
    payment_date timestamptz NOT NULL, PRIMARY KEY (payment_date, payment_id)) PARTITION BY RANGE (payment_date);
CREATE TABLE payment_p1 PARTITION OF payment FOR VALUES FROM ('2022-01-01') TO ('2022-02-01');
CREATE TABLE payment_p2 PARTITION OF payment FOR VALUES FROM ('2022-02-01') TO ('2022-03-01');
CREATE TABLE payment_p3 PARTITION OF payment FOR VALUES FROM ('2022-03-01') TO ('2022-04-01');
ALTER TABLE payment_p1 ADD FOREIGN KEY (rental_id) REFERENCES rental;
ALTER TABLE payment_p2 ADD FOREIGN KEY (rental_id) REFERENCES rental;
ALTER TABLE payment_p3 ADD FOREIGN KEY (rental_id) REFERENCES rental;
CREATE TABLE rental_note (rental_id integer REFERENCES rental, note text);
INSERT INTO rental SELECT i, '2022-01-01'::timestamptz + i * interval '1 day' FROM generate_series(1, 80) i;
INSERT INTO payment SELECT i, (i * 7) % 79 + 1, i % 10 + 0.99, '2022-01-01'::timestamptz + ((i * 13) % 85) * interval '1 day'
    FROM generate_series(1, 150) i;
INSERT INTO rental_note SELECT i, 'note ' || i FROM generate_series(1, 80, 5) i;
SELECT docmodel.create_mapping('sb_rentals', 'rental');
SELECT docmodel.map_embed_array('sb_rentals', 'payment', 'payments', fk_columns => '{rental_id}');
SELECT docmodel.map_embed_object('sb_rentals', 'rental_note', 'note');
SELECT pg_temp.compare('sb_rentals');
SELECT key, doc FROM docmodel.denormalize('sb_rentals') WHERE key = 'rental::3';

-- 4. the mapping made from the foreign keys: denormalize(root, ...)
SELECT pg_temp.compare_spec(docmodel._auto_spec('person', 'person', 2), $$docmodel.denormalize('person'::regclass, 'person', 2)$$);
SELECT pg_temp.compare_spec(docmodel._auto_spec('rental', NULL, 1), $$docmodel.denormalize('rental'::regclass)$$);
SELECT pg_temp.compare_spec(docmodel._auto_spec('course', NULL, 2), $$docmodel.denormalize('course'::regclass, depth => 2)$$);

-- 5. streamed: the calling query's LIMIT stops the cursor (a ProjectSet in
-- the caller's plan, not a function scan read whole); no cursor stays open
EXPLAIN (COSTS OFF) SELECT * FROM docmodel.denormalize('sb_rentals') LIMIT 2;
BEGIN;
SELECT key FROM docmodel.denormalize('sb_rentals') LIMIT 2;
SELECT key FROM docmodel.denormalize('sb_people') d WHERE d.doc->>'firstName' = 'F7';
SELECT count(*) AS open_portals FROM pg_cursors;
-- a rescan: the inner side of a nested loop starts again each time
SET LOCAL enable_hashjoin = off;
SET LOCAL enable_mergejoin = off;
SELECT b.name, count(d.key) FROM brewery b
LEFT JOIN LATERAL (SELECT * FROM docmodel.denormalize('sb_beers') d WHERE d.doc->>'brewery' = 'brewery::' || b.id LIMIT 3) d ON true
GROUP BY b.name ORDER BY b.name;
COMMIT;
-- as the caller: its privileges and errors
SELECT pg_temp.try($$SELECT * FROM docmodel.denormalize(NULL::text)$$);
SELECT pg_temp.try($$SELECT * FROM docmodel.denormalize('sb_none')$$);
SELECT pg_temp.try($$SELECT * FROM docmodel.denormalize(NULL::regclass)$$);
SELECT pg_temp.try($$SELECT * FROM docmodel.denormalize('person'::regclass, depth => 40)$$);
CREATE ROLE sb_reader;
GRANT USAGE ON SCHEMA public TO sb_reader;
GRANT SELECT ON rental TO sb_reader;
SET ROLE sb_reader;
SELECT pg_temp.try($$SELECT * FROM docmodel.denormalize('rental'::regclass) LIMIT 1$$);
RESET ROLE;
REVOKE ALL ON SCHEMA public FROM sb_reader;
REVOKE ALL ON rental FROM sb_reader;
DROP ROLE sb_reader;

SELECT docmodel.drop_mapping(m) FROM unnest('{sb_people,sb_beers,sb_enrollments,sb_courses,sb_rentals}'::text[]) m;
DROP TABLE address_line, address, contact, kind, person_details, person, beer_style, style, beer, brewery,
    session, enrollment, course, payment, rental_note, rental;
