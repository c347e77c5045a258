-- Lookups: documents <lookup_type>::<value> -> {"ref": key} kept in step
\i test/sql/include/try.sql
SET client_min_messages = warning;

-- lookup documents live beside the documents: a collection of one fixed type cannot hold them
SELECT docmodel.create_collection('typed', 'user') IS NOT NULL AS created;
SELECT pg_temp.try($$SELECT docmodel.create_lookup('typed', 'customer_ref', '{customer_no}')$$);
SELECT docmodel.drop_collection('typed');
SELECT docmodel.create_collection('customers') IS NOT NULL AS created;
SELECT docmodel.insert('customers', 'user::1', '{"name": "Ann", "customer_no": 12345}') > 0,
       docmodel.insert('customers', 'user::2', '{"name": "Bo", "customer_no": "A-7"}') > 0,
       docmodel.insert('customers', 'user::3', '{"name": "Cy"}') > 0;
-- the documents there are indexed when the lookup is created
SELECT docmodel.create_lookup('customers', 'customer_ref', '{customer_no}') AS indexed;
SELECT id, doc->'ref' AS ref, doc->>'_type' AS type FROM customers_documents WHERE id LIKE 'customer_ref::%' ORDER BY id;
SELECT docmodel.get_by('customers', 'customer_ref', '12345')->>'name' AS by_number,
       docmodel.get_by('customers', 'customer_ref', 'A-7')->>'name' AS by_text,
       docmodel.get_by('customers', 'customer_ref', '999') AS none;
-- insert, update (the lookup document moves), delete
SELECT docmodel.upsert('customers', 'user::3', '{"name": "Cy", "customer_no": 777}') > 0;
UPDATE customers SET doc = jsonb_set(doc, '{customer_no}', '12346') WHERE id = 'user::1';
SELECT id, doc->>'ref' AS ref FROM customers WHERE id LIKE 'customer_ref::%' ORDER BY id;
DELETE FROM customers WHERE id = 'user::2';
SELECT id, doc->>'ref' AS ref FROM customers WHERE id LIKE 'customer_ref::%' ORDER BY id;
-- a value another document holds: 23505, nothing written
SELECT pg_temp.try($$SELECT docmodel.insert('customers', 'user::4', '{"name": "Di", "customer_no": 777}')$$);
SELECT pg_temp.try($$UPDATE customers SET doc = jsonb_set(doc, '{customer_no}', '777') WHERE id = 'user::1'$$);
SELECT id, doc->>'customer_no' AS no FROM customers WHERE id LIKE 'user::%' ORDER BY id;
-- a value removed from a document frees it
UPDATE customers SET doc = doc - 'customer_no' WHERE id = 'user::3';
SELECT docmodel.insert('customers', 'user::4', '{"name": "Di", "customer_no": 777}') > 0 AS freed;
SELECT docmodel.get_by('customers', 'customer_ref', '777')->>'name' AS holder;
-- a value holding the delimiter makes a key of more parts, found the same way
SELECT docmodel.insert('customers', 'user::5', '{"customer_no": "a::b"}') > 0;
SELECT docmodel.get_by('customers', 'customer_ref', 'a::b')->>'customer_no' AS found;
-- duplicates among the documents already there refuse the lookup
SELECT docmodel.insert('customers', 'user::6', '{"email": "x@y.z"}') > 0, docmodel.insert('customers', 'user::7', '{"email": "x@y.z"}') > 0;
SELECT pg_temp.try($$SELECT docmodel.create_lookup('customers', 'email', '{email}')$$);
SELECT pg_temp.try($$SELECT docmodel.create_lookup('customers', 'bad::type', '{email}')$$);
SELECT pg_temp.try($$SELECT docmodel.create_lookup('customers', 'email', '{}')$$);
-- drop: the trigger and the lookup documents go
SELECT docmodel.drop_lookup('customers', 'customer_ref'), docmodel.drop_lookup('customers', 'customer_ref');
SELECT count(*) FROM customers WHERE id LIKE 'customer_ref::%';
-- a lookup on a stamp reads it as every style shows it: the documents
-- there already, then the trigger moving it on every write
SELECT docmodel.insert('customers', 'note::1', '{"t": "a"}') > 0 AS inserted;
SELECT docmodel.create_lookup('customers', 'note_ver', '{_ver}', doc_type => 'note') AS indexed;
SELECT docmodel.get_by('customers', 'note_ver', '1')->>'t' AS v1;
SELECT docmodel.upsert('customers', 'note::1', '{"t": "b"}') > 0 AS updated;
SELECT docmodel.get_by('customers', 'note_ver', '1') IS NULL AS gone, docmodel.get_by('customers', 'note_ver', '2')->>'t' AS v2;
SELECT docmodel.drop_lookup('customers', 'note_ver');
-- the trigger refuses to run elsewhere than on a collection row event
CREATE TABLE notcoll (id text, doc jsonb);
CREATE TRIGGER t AFTER INSERT ON notcoll FOR EACH ROW EXECUTE FUNCTION docmodel._lookup_trigger('x', '{a}', '::');
SELECT pg_temp.try($$INSERT INTO notcoll VALUES ('k', '{}')$$);
DROP TABLE notcoll;
SELECT docmodel.drop_collection('customers');
