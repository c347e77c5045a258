-- embed: keys inside arrays of objects (*), numeric ids with the target's
-- type, summaries of the embedded documents
\i test/sql/include/try.sql
SET client_min_messages = warning;
CREATE SCHEMA ep;
SET search_path = ep, public;

SELECT docmodel.create_collection('products', meta_style => 'xattrs') IS NOT NULL AS created;
INSERT INTO products (id, doc) VALUES
    ('product::1', '{"name": "pen", "price": 2}'),
    ('product::2', '{"name": "ink", "price": 7}');
-- an order as the data modeling guide writes it: keys in an array of objects
SELECT docmodel.embed('{"orderId": 7, "products": [{"itemCode": "product::1", "qty": 3},
    {"itemCode": "product::2", "qty": 1}, {"itemCode": "product::9", "qty": 1}, {"qty": 5}]}',
    '{products,*,itemCode}', 'products') AS order_doc;
-- * over an array of keys, and a * that meets no array: unchanged
SELECT docmodel.embed('{"lines": [["product::1"], ["product::2", null]]}', '{lines,*}', 'products') AS nested;
SELECT docmodel.embed('{"products": {"itemCode": "product::1"}}', '{products,*,itemCode}', 'products') AS not_an_array;
-- an index step still works
SELECT docmodel.embed('{"products": [{"itemCode": "product::1"}, {"itemCode": "product::2"}]}',
    '{products,1,itemCode}', 'products') AS second_only;

-- numeric keys: the id of a key of the collection's type, or of key_type
SELECT docmodel.create_collection('stock', 'stock', meta_style => 'xattrs') IS NOT NULL AS created;
INSERT INTO stock (id, doc) VALUES ('stock::42', '{"onHand": 12, "warehouse": "north"}');
SELECT docmodel.embed('{"sku": "pen", "stockId": 42}', '{stockId}', 'stock') #> '{stockId,onHand}' AS on_hand;
SELECT docmodel.embed('{"stockIds": [42, 43]}', '{stockIds}', 'stock') AS by_ids;
SELECT docmodel.embed('{"itemCode": 1}', '{itemCode}', 'products', key_type => 'product') #>> '{itemCode,name}' AS by_type;
-- with key_type a string is an id too
SELECT docmodel.embed('{"itemCode": "2"}', '{itemCode}', 'products', key_type => 'product') #>> '{itemCode,name}' AS string_id;
-- a number without a type to make a key of it
SELECT pg_temp.try($$SELECT docmodel.embed('{"itemCode": 1}', '{itemCode}', 'products')$$);
SELECT pg_temp.try($$SELECT docmodel.embed('{"itemCode": true}', '{itemCode}', 'products')$$);
SELECT pg_temp.try($$SELECT docmodel.embed('{"itemCode": 1.5}', '{itemCode}', 'products', 'product')$$);

-- a summary: the members listed (the guide's {id, title, artist, genre})
SELECT docmodel.create_collection('tracks', 'track') IS NOT NULL AS created;
INSERT INTO tracks (id, doc) VALUES
    ('track::1', '{"id": 1, "title": "So What", "artist": "Miles Davis", "genre": "Jazz", "lyrics": null, "bytes": 9000000}'),
    ('track::2', '{"id": 2, "title": "Blue in Green", "artist": "Miles Davis", "bytes": 5000000}');
SELECT docmodel.embed('{"playlist": "Kind of Blue", "tracks": ["track::1", "track::2", "track::3"]}',
    '{tracks}', 'tracks', fields => '{id,title,artist,genre}') AS playlist;
SELECT docmodel.embed('{"entries": [{"track": 1}, {"track": 2}]}', '{entries,*,track}', 'tracks',
    fields => '{title}') AS summaries;
SELECT docmodel.embed('{"t": "track::1"}', '{t}', 'tracks', fields => '{}') AS empty_summary;

-- unchanged: absent or null path, NULL arguments, an empty path
SELECT docmodel.embed('{"x": 1}', '{products,*,itemCode}', 'products') AS absent,
       docmodel.embed('{"products": null}', '{products,*,itemCode}', 'products') AS null_value,
       docmodel.embed('{"x": 1}', '{}', 'products') AS empty_path,
       docmodel.embed(NULL, '{x}', 'products') IS NULL AS null_doc;
SELECT pg_temp.try($$SELECT docmodel.embed('{"x": "a"}', '{x}', 'pg_class')$$);

SET search_path = public;
DROP SCHEMA ep CASCADE;
