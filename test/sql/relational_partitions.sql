-- denormalize(root) follows foreign keys to and from partitioned tables as
-- one table each: Pagila's payments, partitioned by month, with their keys
-- declared on each partition (as Pagila's schema declares them) or on the
-- parent, become one embedded array holding every partition's rows.
SET client_min_messages = warning;
CREATE TABLE rp_customer (customer_id integer PRIMARY KEY, name text);
CREATE TABLE rp_rental (rental_id integer PRIMARY KEY, customer_id integer REFERENCES rp_customer);
-- (partitioned by month number: a date cannot be a key part)
CREATE TABLE rp_payment (payment_id integer, rental_id integer, customer_id integer, amount numeric,
    month integer NOT NULL, PRIMARY KEY (month, payment_id)) PARTITION BY RANGE (month);
CREATE TABLE rp_payment_01 PARTITION OF rp_payment FOR VALUES FROM (1) TO (2);
CREATE TABLE rp_payment_02 PARTITION OF rp_payment FOR VALUES FROM (2) TO (3);
CREATE TABLE rp_payment_03 PARTITION OF rp_payment FOR VALUES FROM (3) TO (4);
-- Pagila's way: a key on each partition, and one partition without any
ALTER TABLE rp_payment_01 ADD FOREIGN KEY (rental_id) REFERENCES rp_rental;
ALTER TABLE rp_payment_02 ADD FOREIGN KEY (rental_id) REFERENCES rp_rental;
ALTER TABLE rp_payment_01 ADD FOREIGN KEY (customer_id) REFERENCES rp_customer;
INSERT INTO rp_customer VALUES (1, 'Ann');
INSERT INTO rp_rental VALUES (10, 1), (11, 1);
INSERT INTO rp_payment VALUES (100, 10, 1, 2.99, 1), (101, 10, 1, 0.99, 2), (102, 10, 1, 1.99, 3), (103, 11, 1, 4.99, 2);
-- one array, named after the partitioned table, with the rows of every partition
SELECT key, doc FROM docmodel.denormalize('rp_rental'::regclass) ORDER BY key;
-- from the payments: their rental and customer as references, once each
SELECT key, doc FROM docmodel.denormalize('rp_payment'::regclass, 'payment', 0) ORDER BY key;
-- the key declared on the parent (cloned onto each partition) is followed once too
ALTER TABLE rp_payment_01 DROP CONSTRAINT rp_payment_01_rental_id_fkey;
ALTER TABLE rp_payment_02 DROP CONSTRAINT rp_payment_02_rental_id_fkey;
ALTER TABLE rp_payment ADD FOREIGN KEY (rental_id) REFERENCES rp_rental;
SELECT key, jsonb_array_length(doc->'rp_payment') AS payments FROM docmodel.denormalize('rp_rental'::regclass) ORDER BY key;
DROP TABLE rp_payment, rp_rental, rp_customer;
