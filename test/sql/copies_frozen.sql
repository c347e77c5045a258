-- A copy rule with a condition: the Couchbase guide's order keeps the
-- address it shipped to (frozen_when its status is shipped or delivered)
-- while open orders follow the customer's address; in mode sync and
-- deferred, on the first fill, source writes and deletes, and the order's
-- own writes.
\i test/sql/include/try.sql
SET client_min_messages = warning;
SELECT docmodel.create_collection('cf_customers') IS NOT NULL AS customers,
       docmodel.create_collection('cf_orders') IS NOT NULL AS orders;
INSERT INTO cf_customers VALUES ('steve', '{"address": "1 Old Street"}'), ('ann', '{"address": "9 Elm Road"}');
INSERT INTO cf_orders VALUES
    ('order::100', '{"status": "open", "shipTo": {"id": "steve", "address": "stale"}}'),
    ('order::200', '{"status": "shipped", "shipTo": {"id": "steve", "address": "1 Older Street"}}'),
    ('order::300', '{"status": "delivered", "shipTo": {"id": "ann"}}');
SELECT docmodel.create_copy('cf_orders', '/shipTo', 'cf_customers', '{"address": "/address"}',
    on_missing => 'null', frozen_when => '{"/status": ["shipped", "delivered"]}') AS filled;
SELECT frozen_when FROM docmodel.copy_rules WHERE coll = 'cf_orders'::regclass;
SELECT id, doc->>'status' AS status, doc->'shipTo'->>'address' AS address FROM cf_orders ORDER BY id;
-- Steve moves: his open order follows, the shipped one keeps where it went
UPDATE cf_customers SET doc = '{"address": "2 New Street"}' WHERE id = 'steve';
SELECT id, doc->>'status' AS status, doc->'shipTo'->>'address' AS address FROM cf_orders ORDER BY id;
-- the open order ships: it keeps the address it shipped to from now on
UPDATE cf_orders SET doc = jsonb_set(doc, '{status}', '"shipped"') WHERE id = 'order::100';
UPDATE cf_customers SET doc = '{"address": "3 Newer Street"}' WHERE id = 'steve';
SELECT id, doc->>'status' AS status, doc->'shipTo'->>'address' AS address FROM cf_orders ORDER BY id;
-- a frozen order's copy is not filled again when it is written, and a
-- deleted customer (on_missing null) leaves frozen orders alone
UPDATE cf_orders SET doc = jsonb_set(doc, '{note}', '"gift"') WHERE id = 'order::200';
DELETE FROM cf_customers WHERE id = 'ann';
SELECT id, doc->'shipTo' AS ship_to FROM cf_orders ORDER BY id;
-- reopened, an order follows its customer again
UPDATE cf_orders SET doc = jsonb_set(doc, '{status}', '"open"') WHERE id = 'order::200';
SELECT doc->'shipTo'->>'address' AS address FROM cf_orders WHERE id = 'order::200';
-- the same in mode deferred: the worker's (or apply_copies') batch skips frozen orders
SELECT docmodel.drop_copy('cf_orders', '/shipTo');
SELECT docmodel.create_copy('cf_orders', '/shipTo', 'cf_customers', '{"address": "/address"}',
    mode => 'deferred', frozen_when => '{"/status": ["shipped"]}') AS filled;
UPDATE cf_customers SET doc = '{"address": "4 Last Street"}' WHERE id = 'steve';
CALL docmodel.apply_copies('cf_orders');
SELECT id, doc->>'status' AS status, doc->'shipTo'->>'address' AS address FROM cf_orders ORDER BY id;
-- bad conditions
SELECT pg_temp.try($$SELECT docmodel.create_copy('cf_orders', '/x', 'cf_customers', '{"a": "/address"}', frozen_when => '["shipped"]')$$);
SELECT pg_temp.try($$SELECT docmodel.create_copy('cf_orders', '/x', 'cf_customers', '{"a": "/address"}', frozen_when => '{"status": ["shipped"]}')$$);
SELECT pg_temp.try($$SELECT docmodel.create_copy('cf_orders', '/x', 'cf_customers', '{"a": "/address"}', frozen_when => '{"/status": []}')$$);
SELECT pg_temp.try($$SELECT docmodel.create_copy('cf_orders', '/x', 'cf_customers', '{"a": "/address"}', frozen_when => '{"/items/*/s": ["x"]}')$$);
SELECT pg_temp.try($$SELECT docmodel.create_copy('cf_orders', '/x', 'cf_customers', '{"a": "/address"}', frozen_when => '{"/status": [{"a": 1}]}')$$);
-- values are quoted into the rule's statements, never run
SELECT docmodel._frozen_sql('{"/st''atus": ["x''); DROP TABLE cf_orders; --"]}', 'c');
SELECT docmodel.drop_collection('cf_orders'), docmodel.drop_collection('cf_customers');
