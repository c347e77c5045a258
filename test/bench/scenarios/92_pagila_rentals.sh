# Pagila's rentals as documents (github.com/devrimgunduz/pagila's shape, PostgreSQL License): the
# rental table as root, its payments embedded as an array from the payment table partitioned by
# month (7 partitions, the keys to rental declared on each partition and no index on
# payment.rental_id, as Pagila declares them), its inventory row embedded as an object, and
# references to customer, staff and (from the inventory) film and store. Generated data of
# Pagila's sizes: 16,044 rentals, about 16,050 payments (5 rentals with none, 5 with two), 4,581
# inventory rows, 599 customers, 1,000 films. denormalize against the same documents, in the same
# order, written by hand as JOIN + GROUP BY and as correlated subqueries (both checked equal to
# denormalize's first); the correlated form again with an index on payment.rental_id, its best
# case; and the first two documents (LIMIT 2) against the hand-written JOIN + GROUP BY's (an
# anchor).

"${PSQL[@]}" >/dev/null <<'SQL'
SET client_min_messages = warning;
SELECT docmodel.drop_mapping('bench_rentals');
DROP SCHEMA IF EXISTS bench_pagila CASCADE;
CREATE SCHEMA bench_pagila;
SET search_path = bench_pagila;
CREATE TABLE store (store_id integer PRIMARY KEY, manager_staff_id integer NOT NULL, address_id integer NOT NULL,
    last_update timestamptz NOT NULL DEFAULT now());
CREATE TABLE staff (staff_id integer PRIMARY KEY, first_name text NOT NULL, last_name text NOT NULL,
    address_id integer NOT NULL, email text, store_id integer NOT NULL REFERENCES store, active boolean NOT NULL DEFAULT true,
    username text NOT NULL, password text, last_update timestamptz NOT NULL DEFAULT now(), picture bytea);
CREATE TABLE customer (customer_id integer PRIMARY KEY, store_id integer NOT NULL REFERENCES store, first_name text NOT NULL,
    last_name text NOT NULL, email text, address_id integer NOT NULL, activebool boolean NOT NULL DEFAULT true,
    create_date date NOT NULL DEFAULT current_date, last_update timestamptz DEFAULT now(), active integer);
CREATE TABLE film (film_id integer PRIMARY KEY, title text NOT NULL, description text, release_year integer,
    language_id integer NOT NULL, rental_duration smallint NOT NULL DEFAULT 3, rental_rate numeric(4,2) NOT NULL DEFAULT 4.99,
    length smallint, replacement_cost numeric(5,2) NOT NULL DEFAULT 19.99, rating text DEFAULT 'G',
    last_update timestamptz NOT NULL DEFAULT now(), special_features text[]);
CREATE TABLE inventory (inventory_id integer PRIMARY KEY, film_id integer NOT NULL REFERENCES film,
    store_id integer NOT NULL REFERENCES store, last_update timestamptz NOT NULL DEFAULT now());
CREATE INDEX ON inventory (store_id, film_id);
CREATE TABLE rental (rental_id integer PRIMARY KEY, rental_date timestamptz NOT NULL,
    inventory_id integer NOT NULL REFERENCES inventory, customer_id integer NOT NULL REFERENCES customer,
    return_date timestamptz, staff_id integer NOT NULL REFERENCES staff, last_update timestamptz NOT NULL DEFAULT now());
CREATE INDEX ON rental (inventory_id);
CREATE UNIQUE INDEX ON rental (rental_date, inventory_id, customer_id);
CREATE TABLE payment (payment_id integer NOT NULL, customer_id integer NOT NULL, staff_id integer NOT NULL,
    rental_id integer NOT NULL, amount numeric(5,2) NOT NULL, payment_date timestamptz NOT NULL,
    PRIMARY KEY (payment_date, payment_id)) PARTITION BY RANGE (payment_date);
DO $$
BEGIN
    FOR m IN 1 .. 7 LOOP
        EXECUTE format('CREATE TABLE bench_pagila.payment_p2022_%s PARTITION OF bench_pagila.payment
            FOR VALUES FROM (%L) TO (%L)', lpad(m::text, 2, '0'),
            make_timestamptz(2022, m, 1, 0, 0, 0, 'UTC'), make_timestamptz(2022, m + 1, 1, 0, 0, 0, 'UTC'));
        -- Pagila declares the keys and indexes on each partition
        EXECUTE format('ALTER TABLE bench_pagila.payment_p2022_%1$s ADD FOREIGN KEY (customer_id) REFERENCES bench_pagila.customer,
            ADD FOREIGN KEY (rental_id) REFERENCES bench_pagila.rental, ADD FOREIGN KEY (staff_id) REFERENCES bench_pagila.staff',
            lpad(m::text, 2, '0'));
        EXECUTE format('CREATE INDEX ON bench_pagila.payment_p2022_%s (customer_id)', lpad(m::text, 2, '0'));
        EXECUTE format('CREATE INDEX ON bench_pagila.payment_p2022_%s (staff_id)', lpad(m::text, 2, '0'));
    END LOOP;
END
$$;
INSERT INTO store VALUES (1, 1, 1, '2022-02-15 09:57:12+00'), (2, 2, 2, '2022-02-15 09:57:12+00');
INSERT INTO staff (staff_id, first_name, last_name, address_id, email, store_id, username, last_update)
VALUES (1, 'Mike', 'Hillyer', 3, 'Mike.Hillyer@sakilastaff.com', 1, 'Mike', '2022-02-15 09:57:12+00'),
       (2, 'Jon', 'Stephens', 4, 'Jon.Stephens@sakilastaff.com', 2, 'Jon', '2022-02-15 09:57:12+00');
INSERT INTO customer SELECT i, i % 2 + 1, 'FIRST' || i, 'LAST' || i, 'C' || i || '@sakilacustomer.org', i + 4, true,
    '2022-02-14', '2022-02-15 09:57:20+00', 1 FROM generate_series(1, 599) i;
INSERT INTO film SELECT i, 'FILM ' || i, 'A description of film ' || i, 2006, 1, 3 + i % 5, 0.99 + (i % 3) * 2,
    46 + i % 140, 9.99 + i % 21, (ARRAY['G', 'PG', 'PG-13', 'R', 'NC-17'])[i % 5 + 1], '2022-02-15 10:03:42+00',
    '{Trailers}' FROM generate_series(1, 1000) i;
INSERT INTO inventory SELECT i, (i - 1) / 5 + 1 - ((i - 1) / 5) / 1000 * 1000 + 0, i % 2 + 1, '2022-02-15 10:09:17+00'
    FROM generate_series(1, 4581) i;
INSERT INTO rental SELECT i, '2022-01-24'::timestamptz + i * interval '995 s',
    (hashint4(i) & 2147483647) % 4581 + 1, (hashint4(i + 1) & 2147483647) % 599 + 1,
    '2022-01-27'::timestamptz + i * interval '995 s', i % 2 + 1, '2022-02-16 02:30:53+00'
    FROM generate_series(1, 16044) i;
-- a payment per rental, in 7 monthly partitions; 5 rentals without one, 10 with two; payment_id
-- numbered by customer then date, as Pagila's, so a rental's payments are scattered
INSERT INTO payment
SELECT row_number() OVER (ORDER BY r.customer_id, d.payment_date, r.rental_id, d.n)::integer, r.customer_id, r.staff_id, r.rental_id,
    ((hashint4(r.rental_id) & 2147483647) % 10) + 0.99, d.payment_date
FROM rental r
CROSS JOIN LATERAL (SELECT n, r.rental_date + interval '1 hour' * n AS payment_date
                    FROM generate_series(1, CASE WHEN r.rental_id % 3000 = 0 THEN 0
                                                 WHEN r.rental_id % 1500 = 0 OR r.rental_id % 1601 = 0 THEN 2 ELSE 1 END) n) d
ORDER BY 1;
VACUUM ANALYZE store, staff, customer, film, inventory, rental, payment;
SELECT docmodel.create_mapping('bench_rentals', 'bench_pagila.rental', 'rental');
-- Pagila declares payment's key to rental on each partition: named here
SELECT docmodel.map_embed_array('bench_rentals', 'bench_pagila.payment', 'payments', fk_columns => '{rental_id}');
SELECT docmodel.map_embed_object('bench_rentals', 'bench_pagila.inventory', 'inventory');
SELECT docmodel.map_reference('bench_rentals', 'bench_pagila.customer', 'customer');
SELECT docmodel.map_reference('bench_rentals', 'bench_pagila.staff', 'staff');
SELECT docmodel.map_reference('bench_rentals', 'bench_pagila.film', 'film', under => 'bench_pagila.inventory');
SELECT docmodel.map_reference('bench_rentals', 'bench_pagila.store', 'store', under => 'bench_pagila.inventory');
SQL

pagila_pay="jsonb_build_object('payment_id', p.payment_id, 'customer_id', p.customer_id, 'staff_id', p.staff_id,
	'rental_id', p.rental_id, 'amount', p.amount, 'payment_date', p.payment_date)"
pagila_inv="jsonb_build_object('inventory_id', i.inventory_id, 'film_id', i.film_id, 'store_id', i.store_id,
	'last_update', i.last_update, 'film', 'film::' || i.film_id, 'store', 'store::' || i.store_id)"
pagila_rental="'rental_id', r.rental_id, 'rental_date', r.rental_date, 'inventory_id', r.inventory_id,
	'customer_id', r.customer_id, 'return_date', r.return_date, 'staff_id', r.staff_id, 'last_update', r.last_update,
	'customer', 'customer::' || r.customer_id, 'staff', 'staff::' || r.staff_id"
pagila_join="SELECT 'rental::' || r.rental_id AS key, jsonb_build_object($pagila_rental,
	   'payments', coalesce(p.a, '[]'), 'inventory', $pagila_inv) AS doc
	 FROM bench_pagila.rental r
	 JOIN bench_pagila.inventory i ON i.inventory_id = r.inventory_id
	 LEFT JOIN (SELECT p.rental_id, jsonb_agg($pagila_pay ORDER BY p.payment_date, p.payment_id) AS a
	            FROM bench_pagila.payment p GROUP BY p.rental_id) p ON p.rental_id = r.rental_id
	 ORDER BY r.rental_id"
pagila_corr="SELECT 'rental::' || r.rental_id AS key, jsonb_build_object($pagila_rental,
	   'payments', to_jsonb(ARRAY(SELECT $pagila_pay FROM bench_pagila.payment p WHERE p.rental_id = r.rental_id
	                              ORDER BY p.payment_date, p.payment_id)),
	   'inventory', (SELECT $pagila_inv FROM bench_pagila.inventory i WHERE i.inventory_id = r.inventory_id)) AS doc
	 FROM bench_pagila.rental r ORDER BY r.rental_id"
# the hand-written forms make denormalize's documents, in its order
"${PSQL[@]}" -At -v ON_ERROR_STOP=1 >/dev/null <<SQL
CREATE INDEX bench_pagila_payment_rental ON bench_pagila.payment (rental_id);
DO \$\$
BEGIN
    IF EXISTS (SELECT FROM (SELECT row_number() OVER () AS n, d.* FROM docmodel.denormalize('bench_rentals') d) d
               FULL JOIN (SELECT row_number() OVER () AS n, h.* FROM ($pagila_join) h) h USING (n)
               FULL JOIN (SELECT row_number() OVER () AS n, c.* FROM ($pagila_corr) c) c USING (n)
               WHERE d.key IS DISTINCT FROM h.key OR d.doc IS DISTINCT FROM h.doc
                  OR d.key IS DISTINCT FROM c.key OR d.doc IS DISTINCT FROM c.doc) THEN
        RAISE EXCEPTION 'the hand-written Pagila rentals differ from denormalize''s';
    END IF;
END
\$\$;
DROP INDEX bench_pagila.bench_pagila_payment_rental;
SQL

bench_sql "pagila rentals: denormalize vs JOIN + GROUP BY" 1.3 \
	"SELECT count(*) FROM docmodel.denormalize('bench_rentals') d WHERE d.doc IS NOT NULL" \
	"SELECT count(*) FROM ($pagila_join) x WHERE x.doc IS NOT NULL"
# without an index on payment.rental_id (Pagila's) each rental's correlated subquery scans
# every partition: a few rounds are enough
BENCH_ROUNDS=3 bench_sql "pagila rentals: denormalize vs correlated" 1.0 \
	"SELECT count(*) FROM docmodel.denormalize('bench_rentals') d WHERE d.doc IS NOT NULL" \
	"SELECT count(*) FROM ($pagila_corr) x WHERE x.doc IS NOT NULL"
# the first two documents: each side in a new session, so denormalize's includes making its
# query (a few PL/pgSQL functions run for the first time in the session)
bench_sql "pagila rentals: denormalize LIMIT 2 vs JOIN" - \
	"SELECT count(*) FROM (SELECT * FROM docmodel.denormalize('bench_rentals') LIMIT 2) d WHERE d.doc IS NOT NULL" \
	"SELECT count(*) FROM ($pagila_join LIMIT 2) x WHERE x.doc IS NOT NULL"
"${PSQL[@]}" -c "CREATE INDEX bench_pagila_payment_rental ON bench_pagila.payment (rental_id)" -c "ANALYZE bench_pagila.payment" >/dev/null
bench_sql "pagila rentals, rental_id indexed: vs correlated" 1.0 \
	"SELECT count(*) FROM docmodel.denormalize('bench_rentals') d WHERE d.doc IS NOT NULL" \
	"SELECT count(*) FROM ($pagila_corr) x WHERE x.doc IS NOT NULL"

"${PSQL[@]}" >/dev/null <<'SQL'
SET client_min_messages = warning;
SELECT docmodel.drop_mapping('bench_rentals');
DROP SCHEMA bench_pagila CASCADE;
SQL
