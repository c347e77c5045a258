-- Write rules: the management guide's setters (replace_regex, require,
-- drop_empty, format_date, ...) as rules of a type the collection trigger
-- runs on every write, after migrate-on-write: on INSERT, UPDATE, COPY and
-- every KV and sub-document write; global, or of one collection.
\i test/sql/include/try.sql
SET client_min_messages = warning;

SELECT docmodel.create_collection('customers') IS NOT NULL;
SELECT docmodel.create_collection('legacy_customers') IS NOT NULL;
SELECT docmodel.register_write_rule('customer', '[
  {"op": "replace_regex", "path": "/phone", "pattern": "[^0-9]", "with": "", "missing": "skip"},
  {"op": "require", "path": "/phone", "pattern": "^[0-9]{10}$", "message": "invalid phone number"},
  {"op": "format_date", "path": "/birthday", "format": "date", "missing": "skip"},
  {"op": "drop_empty"}]');
SELECT doc_type, collection_id, jsonb_array_length(steps) AS steps FROM docmodel.write_rules;

\echo == every write path applies it
INSERT INTO customers (id, doc) VALUES ('customer::1', '{"phone": "(555) 123-4567", "nickname": "", "birthday": "1980-07-04T23:30:00-05:00"}');
SELECT docmodel.upsert('customers', 'customer::2', '{"phone": "555.987.6543", "tags": []}') > 0 AS upserted;
SELECT id, doc->'phone' AS phone, doc->'birthday' AS birthday, doc ? 'nickname' AS has_nickname, doc ? 'tags' AS has_tags
FROM customers ORDER BY id;
UPDATE customers SET doc = doc || '{"phone": "555-123-0000"}' WHERE id = 'customer::1';
SELECT docmodel.mutate_in('customers', 'customer::2', '[{"op": "upsert", "path": "phone", "value": "(555) 000-1111"}]') IS NOT NULL AS mutated;
SELECT id, doc->>'phone' AS phone, doc->>'_ver' AS ver FROM customers_documents ORDER BY id;

\echo == refused writes: the require of the rule (23514), nothing written
SELECT pg_temp.try($$SELECT docmodel.insert('customers', 'customer::3', '{"phone": "555-0100"}')$$);
SELECT pg_temp.try($$UPDATE customers SET doc = doc - 'phone' WHERE id = 'customer::1'$$);
SELECT count(*) AS still_two FROM customers;

\echo == a collection of its own: its rule replaces the global one there
SELECT docmodel.register_write_rule('customer', '[{"op": "default", "path": "/source", "value": "legacy"}]', coll => 'legacy_customers');
SELECT docmodel.upsert('legacy_customers', 'customer::1', '{"phone": "n/a"}') > 0 AS legacy_written;
SELECT doc->>'phone' AS phone, doc->>'source' AS source FROM legacy_customers;
-- other types are untouched
SELECT docmodel.upsert('customers', 'order::1', '{"phone": "(555) 123-4567"}') > 0 AS order_written;
SELECT doc->>'phone' AS order_phone FROM customers WHERE id = 'order::1';

\echo == after migrations: a write migrated to the current version, then set
SELECT docmodel.register_migration('customer', '1', '2', steps => '[{"op": "move", "from": "/tel", "path": "/phone"}]');
SELECT docmodel.upsert('customers', 'customer::4', '{"_schema": "1", "tel": "555 222 3333"}') > 0 AS migrated_then_set;
SELECT doc->>'phone' AS phone, doc->>'_schema' AS schema FROM customers WHERE id = 'customer::4';

\echo == only setters (a step that would change a set document again is refused)
SELECT pg_temp.try($$SELECT docmodel.register_write_rule('customer', '[{"op": "move", "from": "/a", "path": "/b"}]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_write_rule('customer', '[{"op": "for_each", "path": "/items", "steps": [{"op": "split", "path": "/n", "into": ["/a", "/b"]}]}]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_write_rule('customer', '[{"op": "nope"}]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_write_rule('customer', NULL)$$);
SELECT pg_temp.try($$SELECT docmodel.register_write_rule('', '[]')$$);
SELECT pg_temp.try($$SELECT docmodel.register_write_rule('customer', '[]', coll => 'pg_class')$$);
SELECT docmodel.register_write_rule('item', '[{"op": "for_each", "path": "/lines", "steps": [{"op": "cast", "path": "/qty", "to": "number"}]}]');
SELECT docmodel.upsert('customers', 'item::1', '{"lines": [{"qty": "2"}, {"qty": "3"}]}') > 0 AS written;
SELECT doc->'lines' AS lines FROM customers WHERE id = 'item::1';

\echo == dropped: writes are as written again
SELECT docmodel.drop_write_rule('customer');
SELECT docmodel.drop_write_rule('customer');
SELECT docmodel.drop_write_rule('customer', 'legacy_customers');
SELECT docmodel.insert('customers', 'customer::5', '{"phone": "555-0100"}') > 0 AS as_written;
SELECT doc->>'phone' AS phone FROM customers WHERE id = 'customer::5';

SELECT docmodel.drop_write_rule('item');
SELECT docmodel.drop_collection('customers');
SELECT docmodel.drop_collection('legacy_customers');
DELETE FROM docmodel.migration_rules WHERE doc_type = 'customer';
