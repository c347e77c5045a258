-- The lens laws of every step with a way down, over 10,000 generated
-- documents each: an isomorphism goes down and up to the same document
-- (down(up(x)) = x); every step, lossy ones too, with what the way down
-- keeps, goes down and up to the same document (up(down(y)) = y); and a
-- write at the older version through a collection keeps the laws:
-- GetPut (writing back what was read changes nothing) and PutGet (reading
-- at the older version what was written there gives it back).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS docmodel;
RESET client_min_messages;
SELECT setseed(0.42);

-- Each case: a rule of its own type "lens_<name>" from 1 to 2; y, a
-- document at 2 (what a newer release may write, also what the older one
-- cannot say) built from r (a random number) and i; x, at 1, for the
-- isomorphisms.
CREATE TEMP TABLE lens_case (name text PRIMARY KEY, steps jsonb, y text, x text);
INSERT INTO lens_case VALUES
('add', '[{"op": "add", "path": "/a", "value": 1}]',
 $$jsonb_build_object('a', (r * 3)::int, 'k', i)$$, NULL),
('remove', '[{"op": "remove", "path": "/b", "missing": "skip"}]',
 $$jsonb_build_object('k', i) || CASE WHEN r < 0.3 THEN jsonb_build_object('b', i) ELSE '{}' END$$, NULL),
('replace', '[{"op": "replace", "path": "/c", "value": 2}]',
 $$jsonb_build_object('c', (r * 4)::int, 'k', i)$$, NULL),
('move', '[{"op": "move", "from": "/d", "path": "/e"}]',
 $$jsonb_build_object('e', md5(i::text), 'k', i) || CASE WHEN r < 0.2 THEN jsonb_build_object('d', 0) ELSE '{}' END$$,
 $$jsonb_build_object('d', md5(i::text), 'k', i)$$),
('copy', '[{"op": "copy", "from": "/e", "path": "/f"}]',
 $$jsonb_build_object('e', i, 'f', CASE WHEN r < 0.5 THEN i ELSE -i END)$$,
 $$jsonb_build_object('e', i)$$),
('default', '[{"op": "default", "path": "/g", "value": []}]',
 $$jsonb_build_object('k', i, 'g', CASE WHEN r < 0.5 THEN '[]'::jsonb ELSE jsonb_build_array(i) END)$$,
 $$jsonb_build_object('k', i) || CASE WHEN r < 0.5 THEN jsonb_build_object('g', jsonb_build_array(i)) ELSE '{}' END$$),
('split', '[{"op": "split", "path": "/name", "into": ["/first", "/last"]}]',
 $$jsonb_strip_nulls(jsonb_build_object('first', CASE WHEN r < 0.9 THEN (ARRAY['Ann','Mary Ann','Bo',''])[1 + (i % 4)] END,
   'last', CASE WHEN r > 0.1 THEN (ARRAY['Lee','van Dyke','Ek'])[1 + (i % 3)] END))$$,
 $$jsonb_build_object('name', (ARRAY['Ann Lee','Cher','Joe  van Smith','', ' x'])[1 + (i % 5)])$$),
('join', '[{"op": "join", "paths": ["/x", "/y"], "into": "/xy", "separator": "-"}]',
 $$jsonb_build_object('xy', (ARRAY['a-b','a-b-c','-','abc','a--b'])[1 + (i % 5)], 'k', i)$$, NULL),
('wrap', '[{"op": "wrap", "path": "/phone", "into": "/phones", "template": {"type": "other", "number": "$"}}]',
 $$jsonb_build_object('k', i, 'phones', (SELECT coalesce(jsonb_agg(jsonb_build_object('type',
   (ARRAY['other','mobile','home'])[1 + ((i + n) % 3)], 'number', (i * 10 + n)::text)), '[]')
   FROM generate_series(1, (r * 4)::int) AS n))$$,
 $$jsonb_build_object('k', i) || CASE WHEN r < 0.9 THEN jsonb_build_object('phone', i::text) ELSE '{}' END$$),
('unwrap', '[{"op": "unwrap", "path": "/tags"}]',
 $$jsonb_build_object('k', i) || CASE WHEN r < 0.9 THEN jsonb_build_object('tags', md5(i::text)) ELSE '{}' END$$, NULL),
('cast', '[{"op": "cast", "path": "/age", "to": "number", "from": "string"}]',
 $$jsonb_build_object('age', round((r * 100)::numeric, (i % 3)), 'k', i)$$, NULL),
('to_epoch', '[{"op": "to_epoch", "path": "/t", "unit": "s"}]',
 $$jsonb_build_object('t', (r * 4000000000)::bigint - 1000000000)$$, NULL),
('from_epoch', '[{"op": "from_epoch", "path": "/u"}]',
 $$jsonb_build_object('u', CASE WHEN r < 0.8
   THEN to_char((timestamptz '2000-01-01Z' + (r * 1e9)::int * interval '1 second') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
   ELSE '2024-01-02' END)$$, NULL),
('strip_dashes', '[{"op": "strip_dashes", "path": "/guid"}]',
 $$jsonb_build_object('guid', replace(md5(i::text), '-', ''))$$, NULL),
('nest', '[{"op": "nest", "paths": ["/street", "/city"], "into": "/address"}]',
 $$jsonb_build_object('k', i, 'address', jsonb_strip_nulls(jsonb_build_object('street', md5(i::text),
   'city', CASE WHEN r < 0.8 THEN 'Oslo' END, 'zip', CASE WHEN r > 0.7 THEN i END)))$$,
 $$jsonb_build_object('k', i, 'street', md5(i::text)) || CASE WHEN r < 0.5 THEN jsonb_build_object('city', 'Oslo') ELSE '{}' END$$),
('for_each', '[{"op": "for_each", "path": "/items", "steps": [{"op": "move", "from": "/qty", "path": "/quantity"}]}]',
 $$jsonb_build_object('items', (SELECT coalesce(jsonb_agg(jsonb_build_object('quantity', n, 'sku', md5(n::text))), '[]')
   FROM generate_series(1, (r * 4)::int) AS n))$$,
 $$jsonb_build_object('items', (SELECT coalesce(jsonb_agg(jsonb_build_object('qty', n, 'sku', md5(n::text))), '[]')
   FROM generate_series(1, (r * 4)::int) AS n))$$),
('drop_empty', '[{"op": "drop_empty"}]',
 $$jsonb_strip_nulls(jsonb_build_object('k', i, 'n', CASE WHEN r < 0.5 THEN md5(i::text) END))$$, NULL),
('replace_regex', '[{"op": "replace_regex", "path": "/p", "pattern": "[^0-9]", "with": ""}]',
 $$jsonb_build_object('p', (i * 7919)::text)$$, NULL),
('require', '[{"op": "require", "path": "/p"}]',
 $$jsonb_build_object('p', i)$$, $$jsonb_build_object('p', i)$$),
('format_date', '[{"op": "format_date", "path": "/d", "missing": "skip"}]',
 $$jsonb_build_object('k', i) || CASE WHEN r < 0.9 THEN jsonb_build_object('d', to_char(date '2000-01-01' + (r * 9000)::int, 'YYYY-MM-DD')) ELSE '{}' END$$, NULL),
('chain', '[{"op": "split", "path": "/name", "into": ["/first", "/last"]}, {"op": "wrap", "path": "/phone", "into": "/phones"}, {"op": "add", "path": "/v", "value": 2}]',
 $$jsonb_build_object('first', 'Mary Ann', 'last', 'Lee', 'v', (r * 3)::int, 'phones', jsonb_build_array(i, i + 1))$$, NULL);

-- every case's rule, a way down each
SELECT docmodel.register_migration('lens_' || name, '1', '2', steps => steps) FROM lens_case ORDER BY name;
SELECT name, r.reversible, r.lossless FROM lens_case c
JOIN docmodel.migration_rules r ON r.doc_type = 'lens_' || c.name ORDER BY name;

-- the documents: 10,000 a case, at version 2 (and at 1 for the isomorphisms)
CREATE TEMP TABLE lens_doc (name text, i int, y jsonb, x jsonb);
DO $$
DECLARE
    c record;
BEGIN
    FOR c IN SELECT * FROM lens_case LOOP
        EXECUTE format($q$INSERT INTO lens_doc
            SELECT %L, i, %s || jsonb_build_object('_type', %L, '_schema', '2'),
                %s
            FROM (SELECT i, random() AS r FROM generate_series(1, 10000) AS i) g$q$,
            c.name, c.y, 'lens_' || c.name,
            CASE WHEN c.x IS NULL THEN 'NULL::jsonb'
                 ELSE c.x || format(' || jsonb_build_object(''_type'', %L, ''_schema'', ''1'')', 'lens_' || c.name) END);
    END LOOP;
END
$$;
SELECT count(*) AS docs, count(DISTINCT name) AS cases FROM lens_doc;

\echo == isomorphisms: down(up(x)) = x
SELECT d.name, count(*) AS docs,
    count(*) FILTER (WHERE docmodel.migrate(docmodel.migrate(d.x, '2'), '1') <> d.x) AS broken
FROM lens_doc d JOIN docmodel.migration_rules r ON r.doc_type = 'lens_' || d.name
WHERE r.lossless AND d.x IS NOT NULL GROUP BY d.name ORDER BY d.name;

\echo == every step, with what the way down keeps: up(down(y)) = y
-- _migrate_doc is the bulk run's: going down it keeps what it drops
SELECT name, count(*) AS docs,
    count(*) FILTER (WHERE docmodel.migrate(docmodel._migrate_doc(y, '1', 'k', NULL), '2') <> y) AS broken,
    count(*) FILTER (WHERE docmodel._migrate_doc(y, '1', 'k', NULL) ? '_kept') AS kept
FROM lens_doc GROUP BY name ORDER BY name;

\echo == writes at 1 through a collection: GetPut and PutGet
SELECT docmodel.create_collection('lens_docs') IS NOT NULL AS created;
INSERT INTO lens_docs (id, doc) SELECT 'lens_' || name || '::' || i, y FROM lens_doc;
CREATE TEMP TABLE lens_stored AS
    SELECT l.id, d.name, d.i, l.doc FROM lens_docs l JOIN lens_doc d ON l.id = 'lens_' || d.name || '::' || d.i;
CREATE INDEX ON lens_stored (name, i);
ANALYZE lens_stored;
-- GetPut: each document written back as read at 1: nothing changes (not _ver either)
UPDATE lens_docs SET doc = docmodel.migrate(doc, '1');
SELECT s.name, count(*) FILTER (WHERE l.doc <> s.doc) AS changed
FROM lens_stored s JOIN lens_docs l USING (id) GROUP BY 1 ORDER BY 1;
-- PutGet: over each document, another one read at 1 is written; read back
-- at 1, it is what was written. The views written are those of documents
-- the way up can give (read at 1 after a trip up): a document written by a
-- newer release may hold, where a step overwrites on the way up (remove,
-- replace), a value no older writer's document can be put over.
CREATE TEMP TABLE lens_put AS
SELECT s.id, docmodel.migrate(docmodel.migrate(docmodel.migrate(o.doc, '1'), '2'), '1')
    - '{_created,_createdBy,_modified,_modifiedBy,_ver}'::text[] AS put
FROM lens_stored s JOIN lens_stored o ON o.name = s.name AND o.i = 1 + (s.i * 7) % 10000;
UPDATE lens_docs l SET doc = p.put FROM lens_put p WHERE p.id = l.id;
SELECT split_part(p.id, '::', 1) AS type, count(*) AS docs,
    count(*) FILTER (WHERE docmodel.migrate(l.doc, '1')
        - '{_created,_createdBy,_modified,_modifiedBy,_ver}'::text[] <> p.put) AS broken
FROM lens_put p JOIN lens_docs l USING (id) GROUP BY 1 ORDER BY 1;
-- the same read by get(..., as_version), for some
SELECT count(*) AS docs, count(*) FILTER (WHERE docmodel.get('lens_docs', p.id, as_version => '1')
        - '{_created,_createdBy,_modified,_modifiedBy,_ver}'::text[] <> p.put) AS broken
FROM lens_put p WHERE p.id LIKE '%::1__';

SELECT docmodel.drop_collection('lens_docs');
DELETE FROM docmodel.migration_rules WHERE doc_type LIKE 'lens\_%';
