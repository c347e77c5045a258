-- Copies and aggregates against a recomputation from scratch: 10,000
-- random writes (inserts, updates, deletes) of 40 authors and 300 books,
-- a book referring to 0 to 3 authors, some of them missing; then every
-- book's copies and every author's aggregates are compared with the ones
-- computed again from the documents: no difference. The books are written
-- to p_dbooks too, whose copy rule is deferred: a batch applied now and
-- then during the writes, the rest by apply_copies after them; its copies
-- are compared the same way.
SET client_min_messages = warning;
SELECT docmodel.create_collection('p_authors') IS NOT NULL, docmodel.create_collection('p_books') IS NOT NULL;
SELECT docmodel.create_copy('p_books', '/authors/*', 'p_authors',
  '{"name": ["/firstName", " ", "/lastName"], "thumbnailUrl": "/images/0/thumbnail"}', on_missing => 'remove');
SELECT docmodel.create_aggregate('p_authors', '/countOfBooks', 'p_books', '/authors/*/id', 'count'),
       docmodel.create_aggregate('p_authors', '/books', 'p_books', '/authors/*/id', 'keys'),
       docmodel.create_aggregate('p_authors', '/pages', 'p_books', '/authors/*/id', 'sum:/pages'),
       docmodel.create_aggregate('p_authors', '/longest', 'p_books', '/authors/*/id', 'max:/pages');
SELECT docmodel.create_collection('p_dbooks') IS NOT NULL;
SELECT docmodel.create_copy('p_dbooks', '/authors/*', 'p_authors',
  '{"name": ["/firstName", " ", "/lastName"], "thumbnailUrl": "/images/0/thumbnail"}', on_missing => 'remove',
  mode => 'deferred');
SELECT setseed(0.33);
DO $$
DECLARE
  k text;
  d jsonb;
  n int;
BEGIN
  FOR i IN 1 .. 10000 LOOP
    IF i % 500 = 0 THEN
      PERFORM docmodel._apply_copies_batch(r.id, 7) FROM docmodel.copy_rules r WHERE r.coll = 'p_dbooks'::regclass;
    END IF;
    IF random() < 0.25 THEN
      k := 'a' || (1 + floor(random() * 40))::int;
      IF random() < 0.1 THEN
        DELETE FROM p_authors WHERE id = k;
        CONTINUE;
      END IF;
      d := jsonb_build_object('firstName', 'F' || floor(random() * 5), 'lastName', 'L' || floor(random() * 5));
      IF random() < 0.7 THEN
        d := d || jsonb_build_object('images', jsonb_build_array(jsonb_build_object('thumbnail', 't' || floor(random() * 3))));
      END IF;
      UPDATE p_authors SET doc = doc - 'firstName' - 'lastName' - 'images' || d WHERE id = k;
      GET DIAGNOSTICS n = ROW_COUNT;
      IF n = 0 THEN
        INSERT INTO p_authors (id, doc) VALUES (k, d);
      END IF;
    ELSE
      k := 'b' || (1 + floor(random() * 300))::int;
      IF random() < 0.1 THEN
        DELETE FROM p_books WHERE id = k;
        DELETE FROM p_dbooks WHERE id = k;
        CONTINUE;
      END IF;
      IF random() < 0.3 THEN
        UPDATE p_books SET doc = doc || jsonb_build_object('title', 'T' || i) WHERE id = k;
        GET DIAGNOSTICS n = ROW_COUNT;
        UPDATE p_dbooks SET doc = doc || jsonb_build_object('title', 'T' || i) WHERE id = k;
        IF n > 0 THEN CONTINUE; END IF;
      END IF;
      d := jsonb_build_object('title', 'T' || i, 'authors',
        (SELECT coalesce(jsonb_agg(jsonb_build_object('id', 'a' || (1 + floor(random() * 45))::int)), '[]')
         FROM generate_series(1, floor(random() * 4)::int)));
      IF random() < 0.8 THEN
        d := d || jsonb_build_object('pages', floor(random() * 500)::int);
      END IF;
      UPDATE p_books SET doc = d WHERE id = k;
      GET DIAGNOSTICS n = ROW_COUNT;
      IF n = 0 THEN
        INSERT INTO p_books (id, doc) VALUES (k, d);
      END IF;
      UPDATE p_dbooks SET doc = d WHERE id = k;
      GET DIAGNOSTICS n = ROW_COUNT;
      IF n = 0 THEN
        INSERT INTO p_dbooks (id, doc) VALUES (k, d);
      END IF;
    END IF;
  END LOOP;
END
$$;
SELECT count(*) > 100 AS authors_and_books FROM (SELECT id FROM p_authors UNION ALL SELECT id FROM p_books) x;
-- every copy, computed again
SELECT b.id, e.elem AS stored, expected
FROM p_books b, jsonb_array_elements(b.doc->'authors') WITH ORDINALITY e(elem, n),
LATERAL (SELECT CASE WHEN a.id IS NULL THEN e.elem - 'name' - 'thumbnailUrl'
  ELSE e.elem || docmodel.copy_values(a.doc, '{"name": ["/firstName", " ", "/lastName"], "thumbnailUrl": "/images/0/thumbnail"}') END AS expected
  FROM (SELECT 1) one LEFT JOIN p_authors a ON a.id = e.elem->>'id') x
WHERE e.elem IS DISTINCT FROM expected;
-- the deferred copies: some keys still queued; once applied, every copy is
-- as computed again, the same books as the synchronous rule's
SELECT queued > 0 AS queued FROM docmodel.copy_lag WHERE coll = 'p_dbooks'::regclass;
CALL docmodel.apply_copies('p_dbooks', 10);
SELECT queued FROM docmodel.copy_lag WHERE coll = 'p_dbooks'::regclass;
SELECT b.id, e.elem AS stored, expected
FROM p_dbooks b, jsonb_array_elements(b.doc->'authors') WITH ORDINALITY e(elem, n),
LATERAL (SELECT CASE WHEN a.id IS NULL THEN e.elem - 'name' - 'thumbnailUrl'
  ELSE e.elem || docmodel.copy_values(a.doc, '{"name": ["/firstName", " ", "/lastName"], "thumbnailUrl": "/images/0/thumbnail"}') END AS expected
  FROM (SELECT 1) one LEFT JOIN p_authors a ON a.id = e.elem->>'id') x
WHERE e.elem IS DISTINCT FROM expected;
SELECT count(*) AS differ FROM p_books b FULL JOIN p_dbooks d USING (id)
WHERE b.doc->'authors' IS DISTINCT FROM d.doc->'authors';
-- every aggregate, computed again
SELECT a.id, a.doc->'countOfBooks', a.doc->'books', a.doc->'pages', a.doc->'longest', x.*
FROM p_authors a, LATERAL (SELECT to_jsonb(count(*)) AS count,
    to_jsonb(coalesce(array_agg(b.id ORDER BY b.id), '{}')) AS books,
    to_jsonb(coalesce(sum((b.doc->>'pages')::numeric), 0)) AS pages,
    coalesce(to_jsonb(max((b.doc->>'pages')::numeric)), 'null') AS longest
  FROM p_books b WHERE b.doc->'authors' @> jsonb_build_array(jsonb_build_object('id', a.id))) x
WHERE (a.doc->'countOfBooks', a.doc->'books', a.doc->'pages', a.doc->'longest')
  IS DISTINCT FROM (x.count, x.books, x.pages, x.longest);
SELECT docmodel.refresh_aggregate('p_authors', p) AS drift FROM unnest(ARRAY['/countOfBooks', '/books', '/pages', '/longest']) p;
SELECT docmodel.drop_collection('p_books'), docmodel.drop_collection('p_dbooks'), docmodel.drop_collection('p_authors');
SELECT count(*) AS rules_left FROM docmodel.copy_rules WHERE coll::text LIKE 'p\_%' OR coll::text ~ '^\d+$';
