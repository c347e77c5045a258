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
