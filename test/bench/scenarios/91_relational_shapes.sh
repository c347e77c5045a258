# From tables to documents against the fastest hand-written queries: denormalize of a mapping
# with two embedded arrays (a Pagila-shaped customer with its rentals and payments, about 27 of
# each, scattered over their tables as Pagila's are) against the same documents written by hand
# as JOIN + GROUP BY and as correlated subqueries; get_by against a SELECT through an expression
# index on the value. REL_CUSTOMERS: the customers (6,000, as Pagila; rentals and payments
# scale with them).

rel_customers=${REL_CUSTOMERS:-6000}
"${PSQL[@]}" >/dev/null <<SQL
SET client_min_messages = warning;
SELECT docmodel.drop_mapping('bench_cust');
DROP TABLE IF EXISTS bench_rental, bench_payment, bench_customer;
DELETE FROM docmodel.collection_config WHERE coll::text = 'bench_lookup' OR coll::text ~ '^\d+\$';
DROP TABLE IF EXISTS bench_lookup;
CREATE TABLE bench_customer (customer_id integer PRIMARY KEY, first_name text NOT NULL, last_name text NOT NULL,
    email text, active boolean NOT NULL);
CREATE TABLE bench_rental (rental_id integer PRIMARY KEY, rental_date timestamptz NOT NULL, inventory_id integer NOT NULL,
    customer_id integer NOT NULL REFERENCES bench_customer, return_date timestamptz, staff_id integer NOT NULL);
CREATE TABLE bench_payment (payment_id integer PRIMARY KEY, customer_id integer NOT NULL REFERENCES bench_customer,
    staff_id integer NOT NULL, rental_id integer NOT NULL, amount numeric(5,2) NOT NULL, payment_date timestamptz NOT NULL);
CREATE INDEX ON bench_rental (customer_id);
CREATE INDEX ON bench_payment (customer_id);
INSERT INTO bench_customer SELECT i, 'F' || i, 'L' || i, 'c' || i || '@x.org', true FROM generate_series(1, $rel_customers) i;
INSERT INTO bench_rental SELECT i, '2005-05-24'::timestamptz + i * interval '7 min', i % 4581 + 1,
    (hashint4(i) & 2147483647) % $rel_customers + 1, '2005-05-28'::timestamptz + i * interval '7 min', i % 2 + 1
    FROM generate_series(1, 160440 * $rel_customers / 6000) i;
INSERT INTO bench_payment SELECT i, (hashint4(i + 7) & 2147483647) % $rel_customers + 1, i % 2 + 1, i, (i % 1000) / 100.0,
    '2007-02-14'::timestamptz + i * interval '3 min' FROM generate_series(1, 160490 * $rel_customers / 6000) i;
SELECT docmodel.create_mapping('bench_cust', 'bench_customer', 'customer');
SELECT docmodel.map_embed_array('bench_cust', 'bench_rental', 'rentals', order_by => 'rental_date');
SELECT docmodel.map_embed_array('bench_cust', 'bench_payment', 'payments');
-- get_by: 100,000 documents, a lookup on customer_no; the baseline an expression index on it
SELECT docmodel.create_collection('bench_lookup');
INSERT INTO bench_lookup (id, doc) SELECT 'user::' || i, jsonb_build_object('name', 'N' || i, 'customer_no', i)
    FROM generate_series(1, 100000) i;
SELECT docmodel.create_lookup('bench_lookup', 'customer_ref', '{customer_no}');
CREATE INDEX bench_lookup_cno ON bench_lookup ((doc ->> 'customer_no'));
VACUUM ANALYZE;
SQL

bench_row="jsonb_build_object('rental_id', r.rental_id, 'rental_date', r.rental_date,
	'inventory_id', r.inventory_id, 'customer_id', r.customer_id, 'return_date', r.return_date,
	'staff_id', r.staff_id)"
bench_pay="jsonb_build_object('payment_id', p.payment_id, 'customer_id', p.customer_id,
	'staff_id', p.staff_id, 'rental_id', p.rental_id, 'amount', p.amount, 'payment_date', p.payment_date)"
bench_cust="'customer_id', c.customer_id, 'first_name', c.first_name, 'last_name', c.last_name,
	'email', c.email, 'active', c.active"
bench_sql "relational: denormalize vs JOIN + GROUP BY" 1.3 \
	"SELECT count(*) FROM docmodel.denormalize('bench_cust') d WHERE d.doc IS NOT NULL" \
	"SELECT count(*) FROM (SELECT 'customer::' || c.customer_id AS key, jsonb_build_object($bench_cust,
	   'rentals', coalesce(r.a, '[]'), 'payments', coalesce(p.a, '[]')) AS doc
	 FROM bench_customer c
	 LEFT JOIN (SELECT r.customer_id, jsonb_agg($bench_row ORDER BY r.rental_date) AS a
	            FROM bench_rental r GROUP BY r.customer_id) r ON r.customer_id = c.customer_id
	 LEFT JOIN (SELECT p.customer_id, jsonb_agg($bench_pay ORDER BY p.payment_id) AS a
	            FROM bench_payment p GROUP BY p.customer_id) p ON p.customer_id = c.customer_id) x
	 WHERE x.doc IS NOT NULL"
bench_sql "relational: denormalize vs correlated subqueries" 1.3 \
	"SELECT count(*) FROM docmodel.denormalize('bench_cust') d WHERE d.doc IS NOT NULL" \
	"SELECT count(*) FROM (SELECT 'customer::' || c.customer_id AS key, jsonb_build_object($bench_cust,
	   'rentals', to_jsonb(ARRAY(SELECT $bench_row FROM bench_rental r WHERE r.customer_id = c.customer_id
	                             ORDER BY r.rental_date)),
	   'payments', to_jsonb(ARRAY(SELECT $bench_pay FROM bench_payment p WHERE p.customer_id = c.customer_id
	                              ORDER BY p.payment_id))) AS doc
	 FROM bench_customer c) x WHERE x.doc IS NOT NULL"

bench_dir=$(mktemp -d)
cat > "$bench_dir/get_by.sql" <<'SQL'
\set k random(1, 100000)
SELECT docmodel.get_by('bench_lookup', 'customer_ref', :k::text);
SQL
cat > "$bench_dir/index.sql" <<'SQL'
\set k random(1, 100000)
SELECT doc FROM bench_lookup WHERE doc ->> 'customer_no' = :k::text;
SQL
PGBENCH_ARGS="-M prepared" bench_tps "relational: get_by vs expression index" 0.8 \
	"$bench_dir/get_by.sql" "$bench_dir/index.sql" 1 8
rm -rf "$bench_dir"

"${PSQL[@]}" >/dev/null <<'SQL'
SET client_min_messages = warning;
SELECT docmodel.drop_mapping('bench_cust');
SELECT docmodel.drop_collection('bench_lookup');
DROP TABLE bench_rental, bench_payment, bench_customer;
SQL
