-- Copies and aggregates: the Cosmos DB article's authors and books, the
-- Couchbase guide's order and Steve's address, the errors.
SET client_min_messages = warning;
\set VERBOSITY sqlstate
SELECT docmodel.create_collection('authors') IS NOT NULL AS authors,
       docmodel.create_collection('books') IS NOT NULL AS books;
INSERT INTO authors (id, doc) VALUES
  ('a1', '{"firstName": "Thomas", "lastName": "Andersen", "images": [{"thumbnail": "https://example.com/a1-t.png"}, {"profile": "https://example.com/a1-p.png"}]}'),
  ('a2', '{"firstName": "William", "lastName": "Wakefield", "images": [{"thumbnail": "https://example.com/a2-t.png"}]}');
-- each book embeds its authors' name and thumbnail
SELECT docmodel.create_copy('books', '/authors/*', 'authors',
  '{"name": ["/firstName", " ", "/lastName"], "thumbnailUrl": "/images/0/thumbnail"}');
-- each author counts and lists its books
SELECT docmodel.create_aggregate('authors', '/countOfBooks', 'books', '/authors/*/id', 'count');
SELECT docmodel.create_aggregate('authors', '/books', 'books', '/authors/*/id', 'keys');
SELECT id, doc - '_created' - '_modified' - '_createdBy' - '_modifiedBy' AS doc FROM authors_documents ORDER BY id;
-- insert the books: they name their authors by id only
INSERT INTO books (id, doc) VALUES
  ('b1', '{"name": "Azure Cosmos DB 101", "authors": [{"id": "a1"}, {"id": "a2"}]}'),
  ('b2', '{"name": "Azure Cosmos DB for RDBMS Users", "authors": [{"id": "a1"}]}'),
  ('b3', '{"name": "Learn about Azure Cosmos DB", "authors": [{"id": "a1"}]}');
SELECT id, doc->'authors' AS authors FROM books ORDER BY id;
SELECT id, doc->'countOfBooks' AS count, doc->'books' AS books, doc->'_ver' AS ver FROM authors_documents ORDER BY id;
-- rename an author, change a thumbnail
UPDATE authors SET doc = jsonb_set(doc, '{lastName}', '"Andersen-Smith"') WHERE id = 'a1';
UPDATE authors SET doc = jsonb_set(doc, '{images,0,thumbnail}', '"https://example.com/a2-new.png"') WHERE id = 'a2';
SELECT id, doc->'authors' AS authors, doc->'_ver' AS ver FROM books_documents ORDER BY id;
-- a change the copies do not show rewrites no book
UPDATE authors SET doc = jsonb_set(doc, '{images,1}', '{"profile": "x"}') WHERE id = 'a1';
SELECT id, doc->'_ver' AS ver FROM books_documents ORDER BY id;
-- a book moves to another author, one is deleted
UPDATE books SET doc = jsonb_set(doc, '{authors}', '[{"id": "a2"}]') WHERE id = 'b3';
DELETE FROM books WHERE id = 'b2';
SELECT id, doc->'countOfBooks' AS count, doc->'books' AS books FROM authors ORDER BY id;
SELECT id, doc->'authors' AS authors FROM books ORDER BY id;
-- a book's copies cannot be written by hand: they are filled again
UPDATE books SET doc = jsonb_set(doc, '{authors,0,name}', '"Someone Else"') WHERE id = 'b1';
SELECT doc->'authors'->0->>'name' AS name FROM books WHERE id = 'b1';
-- the rules found the referring documents through this index
SELECT indexrelid::regclass, pg_get_indexdef(indexrelid) FROM pg_index WHERE indrelid = 'books'::regclass AND indexprs IS NOT NULL;
EXPLAIN (COSTS OFF) SELECT id FROM books WHERE docmodel.ref_keys(doc, '/authors/*/id') @> ARRAY['a1'];
-- a missing author (on_missing keep): the reference is kept, nothing copied
INSERT INTO books (id, doc) VALUES ('b9', '{"name": "Orphan", "authors": [{"id": "a9"}]}');
SELECT doc->'authors' FROM books WHERE id = 'b9';
-- the author arrives: its copies follow
INSERT INTO authors (id, doc) VALUES ('a9', '{"firstName": "Nine", "lastName": "Late"}');
SELECT doc->'authors' FROM books WHERE id = 'b9';
SELECT doc->'countOfBooks', doc->'books' FROM authors WHERE id = 'a9';
-- sums, minimums and maximums of a number of the books
UPDATE books SET doc = doc || '{"pages": 300}' WHERE id = 'b1';
UPDATE books SET doc = doc || '{"pages": 120}' WHERE id = 'b3';
SELECT docmodel.create_aggregate('authors', '/stats/pages', 'books', '/authors/*/id', 'sum:/pages'),
       docmodel.create_aggregate('authors', '/stats/longest', 'books', '/authors/*/id', 'max:/pages'),
       docmodel.create_aggregate('authors', '/stats/shortest', 'books', '/authors/*/id', 'min:/pages');
UPDATE books SET doc = doc || '{"pages": 80}' WHERE id = 'b1';
SELECT id, doc->'stats' AS stats FROM authors ORDER BY id;
SELECT docmodel.drop_aggregate('authors', p) FROM unnest(ARRAY['/stats/pages', '/stats/longest', '/stats/shortest']) p;
-- recomputed from scratch: nothing to change
SELECT docmodel.refresh_aggregate('authors', '/countOfBooks') AS changed;

-- The Couchbase guide's order keeps Steve's address in step.
SELECT docmodel.create_collection('profiles') IS NOT NULL, docmodel.create_collection('orders') IS NOT NULL;
INSERT INTO profiles (id, doc) VALUES ('user::steve', '{"name": "Steve", "address": {"street": "1 Main St", "city": "Springfield"}}');
SELECT docmodel.create_copy('orders', '/customer', 'profiles', '{"name": "/name", "address": "/address"}',
  ref => 'key', on_missing => 'refuse');
INSERT INTO orders (id, doc) VALUES ('order::1', '{"items": [{"sku": "p1", "qty": 2}], "customer": {"key": "user::steve"}}');
SELECT doc->'customer' FROM orders;
UPDATE profiles SET doc = jsonb_set(doc, '{address}', '{"street": "9 Elm St", "city": "Shelbyville"}') WHERE id = 'user::steve';
SELECT doc->'customer' FROM orders;
-- refuse: no order for a missing profile, no profile deleted while ordered
\set VERBOSITY default
INSERT INTO orders (id, doc) VALUES ('order::2', '{"customer": {"key": "user::nobody"}}');
DELETE FROM profiles WHERE id = 'user::steve';
\set VERBOSITY sqlstate

-- on_missing null and remove
SELECT docmodel.create_collection('o_null') IS NOT NULL, docmodel.create_collection('o_rm') IS NOT NULL;
SELECT docmodel.create_copy('o_null', '/c', 'profiles', '{"name": "/name"}', on_missing => 'null');
SELECT docmodel.create_copy('o_rm', '/c', 'profiles', '{"name": "/name"}', on_missing => 'remove');
INSERT INTO profiles (id, doc) VALUES ('user::ann', '{"name": "Ann"}');
INSERT INTO o_null (id, doc) VALUES ('1', '{"c": {"id": "user::ann"}}'), ('2', '{"c": {"id": "user::none"}}');
INSERT INTO o_rm (id, doc) VALUES ('1', '{"c": {"id": "user::ann"}}');
DELETE FROM profiles WHERE id = 'user::ann';
SELECT 'null' AS rule, id, doc->'c' FROM o_null UNION ALL SELECT 'remove', id, doc->'c' FROM o_rm ORDER BY 1, 2;

-- A chain settles in one transaction: shelves copy books' names, which
-- copy authors' names.
SELECT docmodel.create_collection('shelves') IS NOT NULL;
SELECT docmodel.create_copy('shelves', '/books/*', 'books', '{"title": "/name", "firstAuthor": "/authors/0/name"}');
INSERT INTO shelves (id, doc) VALUES ('s1', '{"books": [{"id": "b1"}, {"id": "b3"}]}');
UPDATE authors SET doc = jsonb_set(doc, '{firstName}', '"Tom"') WHERE id = 'a1';
SELECT doc->'books' FROM shelves;
-- a cycle is refused
SELECT docmodel.create_copy('authors', '/shelf', 'shelves', '{"n": "/x"}');
SELECT docmodel.create_copy('books', '/self', 'books', '{"n": "/x"}');

-- Errors
SELECT docmodel.create_copy('books', '/authors/*', 'authors', '{"n": "/x"}');
SELECT docmodel.create_copy('books', 'authors', 'authors', '{"n": "/x"}');
SELECT docmodel.create_copy('books', '/x', 'authors', '{"n": "x"}');
SELECT docmodel.create_copy('books', '/x', 'authors', '[]');
SELECT docmodel.create_copy('books', '/x', 'authors', '{"n": "/x"}', on_missing => 'drop');
SELECT docmodel.create_copy('books', '/x', 'authors', '{"n": "/x"}', mode => 'later');
SELECT docmodel.create_aggregate('authors', '/n', 'books', '/authors/*/id', 'avg:/x');
SELECT docmodel.create_aggregate('authors', '/n/*', 'books', '/authors/*/id');
SELECT docmodel.refresh_aggregate('authors', '/nothing');
SELECT docmodel.create_copy('pg_class', '/x', 'authors', '{"n": "/x"}');
-- only the owner of both collections declares a rule
CREATE ROLE copy_stranger;
GRANT ALL ON authors, books TO copy_stranger;
SET ROLE copy_stranger;
SELECT docmodel.create_copy('books', '/x', 'authors', '{"n": "/x"}');
SELECT docmodel._copy_rule_write('drop', 'books', '/authors/*', NULL, NULL, NULL, NULL, NULL, NULL, NULL);
-- a writer of the source rewrites the books as their owner (as a foreign
-- key's cascade does): it needs no right on books for that
RESET ROLE;
REVOKE ALL ON books FROM copy_stranger;
SET ROLE copy_stranger;
UPDATE authors SET doc = jsonb_set(doc, '{firstName}', '"Thomas"') WHERE id = 'a1';
RESET ROLE;
SELECT doc->'authors'->0->>'name' FROM books WHERE id = 'b1';
REVOKE ALL ON authors FROM copy_stranger;
DROP ROLE copy_stranger;
-- a trigger of a rule on another table is refused
CREATE TABLE copy_misuse (id text PRIMARY KEY, doc jsonb, cas bigint, expires_at timestamptz, locked_until timestamptz);
SELECT id AS rule FROM docmodel.copy_rules WHERE coll = 'books'::regclass AND path = '/authors/*' \gset
CREATE TRIGGER t AFTER INSERT ON copy_misuse FOR EACH ROW EXECUTE FUNCTION docmodel._copy_source_trigger(:'rule');
INSERT INTO copy_misuse VALUES ('x', '{}', 0);
DROP TRIGGER t ON copy_misuse;
CREATE TRIGGER t AFTER INSERT ON copy_misuse FOR EACH ROW EXECUTE FUNCTION docmodel._copy_fill_trigger(:'rule');
INSERT INTO copy_misuse VALUES ('x', '{}', 0);
DROP TRIGGER t ON copy_misuse;
CREATE TRIGGER t BEFORE INSERT ON copy_misuse FOR EACH ROW EXECUTE FUNCTION docmodel._aggregate_trigger('x');
INSERT INTO copy_misuse VALUES ('x', '{}', 0);
DROP TRIGGER t ON copy_misuse;
CREATE TRIGGER t AFTER INSERT ON copy_misuse FOR EACH ROW EXECUTE FUNCTION docmodel._aggregate_trigger('2147483647');
INSERT INTO copy_misuse VALUES ('x', '{}', 0);
DROP TRIGGER t ON copy_misuse;
CREATE TRIGGER t AFTER INSERT ON copy_misuse FOR EACH STATEMENT EXECUTE FUNCTION docmodel._copy_source_trigger();
INSERT INTO copy_misuse VALUES ('x', '{}', 0);
DROP TABLE copy_misuse;
-- the helpers refuse what is not a pointer, an action or fields
SELECT docmodel.ref_keys('{"a": [{"id": 1}, {"id": "x"}, {"id": 1}, {"id": null}]}', '/a/*/id');
SELECT docmodel.ref_keys('{}', 'a');
SELECT docmodel._copy_put('{}', '/a', 'id', 'k', '{}', 'drop');
SELECT docmodel._copy_put('{"a": {"id": "k"}}', '/a', 'id', 'k', '[]', 'set');
SELECT docmodel.copy_values('{"n": 1}', '{"x": [1]}');
SELECT docmodel._copy_add_at('{"a": "x"}', '/a/b', 2), docmodel._copy_add_at('{"a": {"b": 1.5}}', '/a/b', 2);

-- drop: the copies stay as they are and are no longer kept
SELECT docmodel.drop_copy('books', '/authors/*'), docmodel.drop_copy('books', '/authors/*');
SELECT docmodel.drop_aggregate('authors', '/countOfBooks'), docmodel.drop_aggregate('authors', '/books');
UPDATE authors SET doc = jsonb_set(doc, '{firstName}', '"T."') WHERE id = 'a1';
INSERT INTO books (id, doc) VALUES ('b4', '{"name": "New", "authors": [{"id": "a1"}]}');
SELECT doc->'authors'->0->>'name' FROM books WHERE id = 'b1';
SELECT doc->'countOfBooks' FROM authors WHERE id = 'a1';
-- the index on books goes with the last rule using it; the shelves keep theirs
SELECT count(*) FROM pg_index WHERE indrelid = 'books'::regclass AND indexprs IS NOT NULL;
SELECT regexp_replace(tgname, '_[0-9]+$', '_N') AS tgname FROM pg_trigger WHERE tgrelid IN ('books'::regclass, 'authors'::regclass) AND NOT tgisinternal ORDER BY 1;
SELECT docmodel.drop_copy('shelves', '/books/*'), docmodel.drop_copy('orders', '/customer'),
       docmodel.drop_copy('o_null', '/c'), docmodel.drop_copy('o_rm', '/c');
SELECT count(*) FROM docmodel.copy_rules;
SELECT docmodel.drop_collection(c) FROM unnest(ARRAY['authors', 'books', 'profiles', 'orders', 'o_null', 'o_rm', 'shelves']) c;

-- the stamps are copied and aggregated as every style shows them (for
-- meta_style 'columns', merged from their columns): a copy of the source's
-- type and version, filled on write, rewritten on the source's change and
-- by apply_copies; aggregates of the referring documents' versions
SELECT docmodel.create_collection('editors') IS NOT NULL AS editors,
       docmodel.create_collection('drafts') IS NOT NULL AS drafts,
       docmodel.create_collection('desks') IS NOT NULL AS desks;
INSERT INTO editors (id, doc) VALUES ('editor::1', '{"name": "Ann"}'), ('editor::2', '{"name": "Bo"}');
SELECT docmodel.create_copy('drafts', '/editor', 'editors', '{"type": "/_type", "ver": "/_ver", "name": "/name"}');
SELECT docmodel.create_copy('drafts', '/reviewer', 'editors', '{"ver": "/_ver"}', mode => 'deferred');
INSERT INTO drafts (id, doc) VALUES ('draft::1', '{"editor": {"id": "editor::1"}, "reviewer": {"id": "editor::2"}, "desk": "desk::1"}');
SELECT doc->'editor' AS editor, doc->'reviewer' AS reviewer FROM drafts_documents;
UPDATE editors SET doc = doc || '{"name": "Anne"}' WHERE id = 'editor::1';
UPDATE editors SET doc = doc || '{"name": "Bob"}' WHERE id = 'editor::2';
SELECT doc->'editor' AS editor, doc->'reviewer' AS reviewer FROM drafts_documents;
CALL docmodel.apply_copies('drafts');
SELECT doc->'reviewer' AS reviewer, doc->'_ver' AS ver FROM drafts_documents;
INSERT INTO desks (id, doc) VALUES ('desk::1', '{}');
SELECT docmodel.create_aggregate('desks', '/versions', 'drafts', '/desk', 'sum:/_ver') AS sum,
       docmodel.create_aggregate('desks', '/latest', 'drafts', '/desk', 'max:/_ver') AS max;
SELECT doc->'versions' AS versions, doc->'latest' AS latest FROM desks_documents;
INSERT INTO drafts (id, doc) VALUES ('draft::2', '{"desk": "desk::1"}'), ('draft::3', '{"desk": "desk::2"}');
UPDATE drafts SET doc = doc || '{"title": "T"}' WHERE id = 'draft::1';
INSERT INTO desks (id, doc) VALUES ('desk::2', '{}');
SELECT id, doc->'versions' AS versions, doc->'latest' AS latest FROM desks_documents ORDER BY id;
SELECT docmodel.refresh_aggregate('desks', '/versions') AS unchanged;
-- the update of draft::1 filled its copy again from its known source
SELECT id, doc->'editor' AS editor FROM drafts_documents ORDER BY id;
-- references at a stamp a meta_style 'columns' collection keeps in a column
-- are refused: the rules read them from the body, through an index
-- (the message with its SQLSTATE)
SELECT docmodel.create_collection('stamped', meta_style => 'columns') IS NOT NULL AS stamped;
\set VERBOSITY default
\set SHOW_CONTEXT never
SELECT docmodel.create_aggregate('desks', '/byWriter', 'stamped', '/_createdBy', 'count');
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
SELECT docmodel.create_copy('stamped', '/_ver', 'desks', '{"n": "/x"}');
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
-- nor can a collection whose references lie there take the columns
SELECT docmodel.create_collection('unstamped', meta_style => 'underscore') IS NOT NULL AS unstamped;
SELECT docmodel.create_aggregate('desks', '/byWriter', 'unstamped', '/_createdBy', 'count');
CALL docmodel.set_meta_style('unstamped', 'columns');
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
\set VERBOSITY sqlstate
\set SHOW_CONTEXT errors
SELECT meta_style FROM docmodel.collections WHERE collection = 'unstamped'::regclass;
SELECT docmodel.drop_aggregate('desks', '/byWriter');
CALL docmodel.set_meta_style('unstamped', 'columns');
SELECT meta_style FROM docmodel.collections WHERE collection = 'unstamped'::regclass;
SELECT docmodel.drop_collection(c) FROM unnest(ARRAY['editors', 'drafts', 'desks', 'stamped', 'unstamped']) c;
