\echo
\echo '--- Copies and aggregates ----------------------------------------------'
\echo 'The Cosmos DB article: each book embeds its authors'' name and thumbnail, each author'
\echo 'keeps countOfBooks and the keys of its books. Declared once, kept in the same transaction.'
SELECT docmodel.create_collection('tour_authors') IS NOT NULL AS created,
       docmodel.create_collection('tour_books') IS NOT NULL AS created;
INSERT INTO tour_authors (id, doc) VALUES
  ('a1', '{"firstName": "Thomas", "lastName": "Andersen", "images": [{"thumbnail": "https://example.com/a1.png"}, {"profile": "https://example.com/a1-p.png"}]}'),
  ('a2', '{"firstName": "William", "lastName": "Wakefield", "images": [{"thumbnail": "https://example.com/a2.png"}]}');
SELECT docmodel.create_copy('tour_books', '/authors/*', 'tour_authors',
  '{"name": ["/firstName", " ", "/lastName"], "thumbnailUrl": "/images/0/thumbnail"}') AS filled;
SELECT docmodel.create_aggregate('tour_authors', '/countOfBooks', 'tour_books', '/authors/*/id', 'count') AS counted,
       docmodel.create_aggregate('tour_authors', '/books', 'tour_books', '/authors/*/id', 'keys') AS listed;

\echo 'Insert the books: they name their authors by id only; the rest is filled.'
INSERT INTO tour_books (id, doc) VALUES
  ('b1', '{"name": "Azure Cosmos DB 101", "authors": [{"id": "a1"}, {"id": "a2"}]}'),
  ('b2', '{"name": "Azure Cosmos DB for RDBMS Users", "authors": [{"id": "a1"}]}'),
  ('b3', '{"name": "Learn about Azure Cosmos DB", "authors": [{"id": "a1"}]}');
SELECT id, jsonb_pretty(doc->'authors') AS authors FROM tour_books WHERE id = 'b1';
SELECT id, doc->'countOfBooks' AS "countOfBooks", doc->'books' AS books FROM tour_authors ORDER BY id;

\echo 'Rename an author, change a thumbnail: every book shows the new values (each rewritten'
\echo 'through its collection: stamped, _ver bumped).'
UPDATE tour_authors SET doc = jsonb_set(doc, '{lastName}', '"Andersen-Smith"') WHERE id = 'a1';
UPDATE tour_authors SET doc = jsonb_set(doc, '{images,0,thumbnail}', '"https://example.com/a2-new.png"') WHERE id = 'a2';
SELECT id, doc->'authors' AS authors, doc->'_ver' AS ver FROM tour_books ORDER BY id;

\echo 'A book deleted, another moved: the counts follow.'
DELETE FROM tour_books WHERE id = 'b2';
UPDATE tour_books SET doc = jsonb_set(doc, '{authors}', '[{"id": "a2"}]') WHERE id = 'b3';
SELECT id, doc->'countOfBooks' AS "countOfBooks", doc->'books' AS books FROM tour_authors ORDER BY id;

\echo 'The rules are data; each found its documents through this index:'
SELECT coll, path, source, kind, ref, agg FROM docmodel.copy_rules ORDER BY id;
SELECT indexrelid::regclass AS index FROM pg_index WHERE indrelid = 'tour_books'::regclass AND indexprs IS NOT NULL;

\echo
\echo 'The stock portfolio: a price changed many times a day, copied into every portfolio that'
\echo 'holds the stock. A deferred rule queues the stock (once, however often it changes) and'
\echo 'apply_copies rewrites the portfolios later, in batches (pg_cron or the copy worker can run it).'
SELECT docmodel.create_collection('tour_stocks') IS NOT NULL AS created,
       docmodel.create_collection('tour_portfolios') IS NOT NULL AS created;
INSERT INTO tour_stocks (id, doc) VALUES ('zaza', '{"name": "Zaza", "price": 50}');
SELECT docmodel.create_copy('tour_portfolios', '/holdings/*', 'tour_stocks', '{"price": "/price"}',
  ref => 'symbol', mode => 'deferred') AS filled;
INSERT INTO tour_portfolios (id, doc)
SELECT 'p' || i, '{"holdings": [{"symbol": "zaza", "shares": 10}]}' FROM generate_series(1, 3) i;
UPDATE tour_stocks SET doc = jsonb_set(doc, '{price}', '51') WHERE id = 'zaza';
UPDATE tour_stocks SET doc = jsonb_set(doc, '{price}', '52') WHERE id = 'zaza';
SELECT id, doc->'holdings'->0->'price' AS price FROM tour_portfolios ORDER BY id;
SELECT source, queued, age IS NOT NULL AS waiting FROM docmodel.copy_lag;
CALL docmodel.apply_copies('tour_portfolios');
SELECT id, doc->'holdings'->0->'price' AS price, doc->'_ver' AS ver FROM tour_portfolios ORDER BY id;
