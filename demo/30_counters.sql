\echo
\echo '--- Counters ----------------------------------------------------------'
\echo 'A counter hands out IDs: next_key(''user'') increments count::user and builds'
\echo 'the key. Counters are rows of one table, not sequences: 100,000 per-company'
\echo 'counters are 100,000 small rows.'
SELECT to_regprocedure('docmodel.get_multi(regclass,text[])') IS NOT NULL AS have_kv \gset
\if :have_kv
SELECT docmodel.create_collection('tour_users') \gset
\else
-- (without the collections functions the tour keeps documents in a plain table)
CREATE TABLE tour_users (id text PRIMARY KEY, doc jsonb NOT NULL);
\endif

\echo 'New users keyed by counter IDs:'
\if :have_kv
SELECT k AS key, docmodel.insert('tour_users', k, jsonb_build_object('name', n)) IS NOT NULL AS stored
  FROM (SELECT docmodel.next_key('user') AS k, n
          FROM unnest(ARRAY['Ada', 'Brian', 'Chen', 'Dana']) WITH ORDINALITY AS t(n, o)
         ORDER BY o) s;
\else
INSERT INTO tour_users
SELECT docmodel.next_key('user'), jsonb_build_object('name', n)
  FROM unnest(ARRAY['Ada', 'Brian', 'Chen', 'Dana']) WITH ORDINALITY AS t(n, o) ORDER BY o
RETURNING id AS key, doc;
\endif

\echo 'Per-company counters (count::foo.org::user) give user::foo.org::1, ...:'
SELECT docmodel.next_key('user', 'foo.org') AS foo_1, docmodel.next_key('user', 'foo.org') AS foo_2,
       docmodel.next_key('user', 'bar.org') AS bar_1;
SELECT name, value, gapless FROM docmodel.counters ORDER BY name;

\echo 'Like a sequence, a counter is not transactional: a rolled-back ID is a gap,'
\echo 'and a transaction holding an ID never makes another session wait.'
BEGIN;
SELECT docmodel.next_id('user') AS "taken, then rolled back";
ROLLBACK;
SELECT docmodel.next_id('user') AS "next id";

\echo 'Couchbase incr: create at initial, add delta; incr by 10 reserves ten IDs at once:'
SELECT docmodel.incr('count::order', initial => 1000) AS created,
       docmodel.incr('count::order') AS plus_1,
       docmodel.incr('count::order', 10) AS "last of my 10";
\echo 'Adopting IDs that exist already: counter_advance never lowers.'
SELECT docmodel.counter_advance('count::order', 5000) AS advanced,
       docmodel.counter_advance('count::order', 10) AS "not lowered";

\echo 'Gapless counters (invoice numbers) are transactional: no gaps, writers wait.'
SELECT docmodel.counter_create('count::invoice', 0, gapless => true) \gset
BEGIN;
SELECT docmodel.incr('count::invoice') AS "rolled back";
ROLLBACK;
SELECT docmodel.incr('count::invoice') AS "invoice no.";

\echo 'The range read: every key from 1 to the counter''s value, fetched at once;'
\echo 'deleted documents (and the gap) are simply missing.'
\if :have_kv
SELECT docmodel.remove('tour_users', 'user::2') IS NOT NULL AS "removed user::2";
SELECT key, doc->>'name' AS name
  FROM docmodel.get_multi('tour_users', ARRAY(SELECT docmodel.counter_keys('user')));
\else
DELETE FROM tour_users WHERE id = 'user::2' RETURNING id AS "removed";
SELECT k AS key, u.doc->>'name' AS name
  FROM docmodel.counter_keys('user') WITH ORDINALITY AS c(k, o)
  JOIN tour_users u ON u.id = c.k ORDER BY c.o;
\endif
SELECT docmodel.counter_value('count::user') AS "IDs issued";

\echo 'Counters as Couchbase stock them: decrement never goes below 0.'
SELECT docmodel.incr('stock::pen', 0, 3) AS "pens in stock";
SELECT docmodel.decrement('stock::pen') AS "sold one", docmodel.decrement('stock::pen', 5) AS "sold five (never below 0)";
