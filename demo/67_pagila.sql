\echo
\echo '--- A real relational schema: a slice of Pagila -------------------------'
\echo 'Pagila (github.com/devrimgunduz/pagila, PostgreSQL License, Copyright (c) 2015-2026'
\echo 'Devrim Gunduz; the port of MySQL''s Sakila): its DDL for film, customer and payment as'
\echo 'pagila-schema.sql writes them (less columns this tour does not need), with the domain year,'
\echo 'the enum mpaa_rating and payment partitioned by month. Films 1 and 2 and customers 1 and 2'
\echo 'are Pagila''s rows; the payments are a few made up in its shape, in its 2022 partitions.'
CREATE SCHEMA pagila;
CREATE TYPE pagila.mpaa_rating AS ENUM ('G', 'PG', 'PG-13', 'R', 'NC-17');
CREATE DOMAIN pagila.year AS integer
    CONSTRAINT year_check CHECK (((VALUE >= 1901) AND (VALUE <= 2155)));
CREATE TABLE pagila.film (
    film_id integer PRIMARY KEY,
    title text NOT NULL,
    description text,
    release_year pagila.year,
    language_id integer NOT NULL,
    rental_duration smallint DEFAULT 3 NOT NULL,
    rental_rate numeric(4,2) DEFAULT 4.99 NOT NULL,
    length smallint,
    replacement_cost numeric(5,2) DEFAULT 19.99 NOT NULL,
    rating pagila.mpaa_rating DEFAULT 'G'::pagila.mpaa_rating,
    special_features text[]
);
CREATE TABLE pagila.customer (
    customer_id integer PRIMARY KEY,
    store_id integer NOT NULL,
    first_name text NOT NULL,
    last_name text NOT NULL,
    email text,
    activebool boolean DEFAULT true NOT NULL
);
CREATE TABLE pagila.payment (
    payment_id integer NOT NULL,
    customer_id integer NOT NULL REFERENCES pagila.customer,
    staff_id integer NOT NULL,
    rental_id integer NOT NULL,
    amount numeric(5,2) NOT NULL,
    payment_date timestamp with time zone NOT NULL,
    PRIMARY KEY (payment_date, payment_id)
) PARTITION BY RANGE (payment_date);
CREATE TABLE pagila.payment_p2022_01 PARTITION OF pagila.payment
    FOR VALUES FROM ('2022-01-01 00:00:00+00') TO ('2022-02-01 00:00:00+00');
CREATE TABLE pagila.payment_p2022_02 PARTITION OF pagila.payment
    FOR VALUES FROM ('2022-02-01 00:00:00+00') TO ('2022-03-01 00:00:00+00');
INSERT INTO pagila.film VALUES
    (1, 'ACADEMY DINOSAUR', 'A Epic Drama of a Feminist And a Mad Scientist who must Battle a Teacher in The Canadian Rockies',
     2006, 1, 6, 0.99, 86, 20.99, 'PG', '{"Deleted Scenes","Behind the Scenes"}'),
    (2, 'ACE GOLDFINGER', 'A Astounding Epistle of a Database Administrator And a Explorer who must Find a Car in Ancient China',
     2006, 1, 3, 4.99, 48, 12.99, 'G', NULL);
INSERT INTO pagila.customer VALUES
    (1, 1, 'MARY', 'SMITH', 'MARY.SMITH@sakilacustomer.org', true),
    (2, 1, 'PATRICIA', 'JOHNSON', 'PATRICIA.JOHNSON@sakilacustomer.org', true);
-- stored out of key order: the array below comes in the payments' key order all the same
INSERT INTO pagila.payment VALUES
    (3, 1, 1, 1185, 5.99, '2022-02-15 10:00:00+00'),
    (1, 1, 1, 76, 2.99, '2022-01-28 21:44:14+00'),
    (2, 1, 1, 573, 0.99, '2022-02-01 09:00:00+00'),
    (4, 2, 1, 320, 4.99, '2022-01-29 12:00:00+00');

\echo 'mapping_schema types the domain column as its base type and the enum with its labels,'
\echo 'so the films are valid against the schema it writes:'
SELECT docmodel.create_mapping('tour_films', 'pagila.film', 'film');
SELECT docmodel.mapping_schema('tour_films') #> '{properties,release_year}' AS release_year,
       docmodel.mapping_schema('tour_films') #> '{properties,rating}' AS rating;
SELECT key, docmodel.schema_valid(docmodel.mapping_schema('tour_films'), doc) AS valid
FROM docmodel.denormalize('tour_films');

\echo 'Customers with their payments, from the partitioned table, embedded without order_by:'
\echo 'the array comes in the payments'' primary key order (payment_date, payment_id).'
SELECT docmodel.create_mapping('tour_customers_map', 'pagila.customer', 'customer');
SELECT docmodel.map_embed_array('tour_customers_map', 'pagila.payment', 'payments');
SELECT docmodel.map_exclude('tour_customers_map', 'pagila.payment', 'customer_id');
SELECT key, jsonb_path_query_array(doc, '$.payments[*].payment_id') AS payment_ids
FROM docmodel.denormalize('tour_customers_map');

\echo 'Into a collection keyed as Couchbase''s samples are (delimiter _), kept in step with the'
\echo 'partitioned table: a payment inserted into a partition rewrites its customer''s document.'
SELECT docmodel.create_collection('tour_pagila', delimiter => '_') IS NOT NULL AS created;
CALL docmodel.migrate_tables('tour_customers_map', 'tour_pagila');
SELECT docmodel.project_tables('tour_customers_map', 'tour_pagila');
INSERT INTO pagila.payment VALUES (5, 2, 2, 1422, 0.99, '2022-02-20 08:00:00+00');
SELECT id, doc->>'_ver' AS ver, jsonb_array_length(doc->'payments') AS payments FROM tour_pagila ORDER BY id;
SELECT docmodel.stop_projection('tour_customers_map');
