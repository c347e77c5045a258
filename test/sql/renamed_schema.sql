-- A collection is reached by its OID: after its schema or its table is
-- renamed and an impostor takes the old name, the KV functions still read
-- and write the collection they were given, never the impostor (their
-- prepared statements are rebuilt when a name on the way changes).
\i test/sql/include/try.sql
SET client_min_messages = warning;

CREATE SCHEMA shop;
SELECT docmodel.create_collection('shop.users');
SELECT docmodel.upsert('shop.users', 'user::1', '{"name": "real"}') > 0 AS upserted;
SELECT docmodel.get('shop.users', 'user::1') ->> 'name' AS name;
SELECT key, doc ->> 'name' AS name FROM docmodel.get_multi('shop.users', ARRAY['user::1']);

-- The schema is renamed; a look-alike takes its place.
ALTER SCHEMA shop RENAME TO shop_old;
CREATE SCHEMA shop;
CREATE TABLE shop.users (LIKE shop_old.users INCLUDING ALL);
INSERT INTO shop.users VALUES ('user::1', '{"name": "impostor"}', 1, NULL);
SET search_path = pg_catalog, public;
SELECT docmodel.get('shop_old.users', 'user::1') ->> 'name' AS name;
SELECT key, doc ->> 'name' AS name FROM docmodel.get_multi('shop_old.users', ARRAY['user::1']);
SELECT docmodel.upsert('shop_old.users', 'user::1', '{"name": "real, again"}') > 0 AS upserted;
SELECT docmodel.replace('shop_old.users', 'user::1', '{"name": "real, replaced"}') > 0 AS replaced;
SELECT docmodel.touch('shop_old.users', 'user::1', NULL) > 0 AS touched;
SELECT doc ->> 'name' AS real FROM shop_old.users;
SELECT doc ->> 'name' AS impostor FROM shop.users;
RESET search_path;

-- The table is renamed; a look-alike takes its name.
ALTER TABLE shop_old.users RENAME TO customers;
CREATE TABLE shop_old.users (LIKE shop_old.customers INCLUDING ALL);
INSERT INTO shop_old.users VALUES ('user::1', '{"name": "impostor"}', 1, NULL);
SELECT docmodel.get('shop_old.customers', 'user::1') ->> 'name' AS name;
SELECT docmodel.remove('shop_old.customers', 'user::1') > 0 AS removed;
SELECT count(*) AS real_left FROM shop_old.customers;
SELECT doc ->> 'name' AS impostor FROM shop_old.users;

SELECT docmodel.drop_collection('shop_old.customers');
DROP SCHEMA shop CASCADE;
DROP SCHEMA shop_old CASCADE;
