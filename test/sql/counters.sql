-- Counters (src/counter/counter.c): every function, every error with its SQLSTATE.
\i test/sql/include/try.sql

-- next_id / next_key: counter count::[parents::]doc_type, created at 0, first id 1.
SELECT docmodel.next_id('ctuser'), docmodel.next_id('ctuser'), docmodel.next_id('ctuser');
SELECT docmodel.next_key('ctuser');
SELECT docmodel.next_key('ctuser', 'foo.org'), docmodel.next_key('ctuser', 'foo.org'),
       docmodel.next_key('ctuser', 'bar.org');
SELECT docmodel.next_id('ctitem', 'foo.org', 'cart7');
SELECT docmodel.next_key('ctitem', VARIADIC ARRAY['foo.org', 'cart7']);
SELECT name, value, gapless FROM docmodel.counters WHERE name LIKE 'count::%ct%' ORDER BY name;

-- counter_keys: every key from 1 to the value; none for an absent counter.
SELECT docmodel.counter_keys('ctuser');
SELECT docmodel.counter_keys('ctuser', 'foo.org');
SELECT count(*) FROM docmodel.counter_keys('ctnobody');

-- incr: Couchbase semantics.
SELECT docmodel.incr('ct::a', initial => 100);      -- absent: created at initial, returned
SELECT docmodel.incr('ct::a');                      -- +1
SELECT docmodel.incr('ct::a', 10);                  -- reserves 102..111, returns 111
SELECT docmodel.incr('ct::a', 0);                   -- delta 0 reads
SELECT docmodel.incr('ct::a', 5, 0);                -- initial ignored when present
SELECT docmodel.counter_value('ct::a'), docmodel.counter_value('ct::absent') IS NULL AS absent_is_null;

-- A rolled-back increment leaves a gap (non-transactional, like nextval).
BEGIN;
SELECT docmodel.incr('ct::a');
ROLLBACK;
SELECT docmodel.incr('ct::a');

-- counter_create and counter_advance.
SELECT docmodel.counter_create('ct::b');
SELECT docmodel.counter_create('ct::c', 41);
SELECT docmodel.incr('ct::b'), docmodel.incr('ct::c');
SELECT docmodel.counter_advance('ct::c', 1000), docmodel.counter_advance('ct::c', 10),
       docmodel.incr('ct::c');
SELECT docmodel.counter_advance('ct::b', 1000000);   -- past the logged-ahead bound
SELECT docmodel.incr('ct::b');

-- Gapless counters: transactional (a rolled-back increment is undone).
SELECT docmodel.counter_create('ct::g', 0, gapless => true);
SELECT docmodel.incr('ct::g'), docmodel.incr('ct::g', 4);
BEGIN;
SELECT docmodel.incr('ct::g');
ROLLBACK;
SELECT docmodel.incr('ct::g');
SELECT docmodel.counter_advance('ct::g', 50), docmodel.counter_advance('ct::g', 7);
SELECT docmodel.counter_value('ct::g');
SELECT name, value, gapless FROM docmodel.counters WHERE name LIKE 'ct::%' ORDER BY name;

-- The first next_id of a new counter inserts its row holding the value handed out and a
-- reservation 96 ahead for this server life (no in-place write of its own); a creation
-- rolled back takes its values with it, as CREATE SEQUENCE and nextval() in one transaction.
SELECT docmodel.next_id('ctfresh');
SELECT value, reserved,
       (SELECT value FROM docmodel.counters c WHERE c.name = s.name) AS in_view
  FROM docmodel.counter_state s WHERE name = 'count::ctfresh';
BEGIN;
SELECT docmodel.next_id('ctfresh', 'tx'), docmodel.next_id('ctfresh', 'tx');
ROLLBACK;
SELECT docmodel.counter_value('count::tx::ctfresh') IS NULL AS rolled_back,
       docmodel.next_id('ctfresh', 'tx') AS again;

-- Creation and drop are transactional, like CREATE/DROP SEQUENCE.
BEGIN;
SELECT docmodel.counter_create('ct::tx');
ROLLBACK;
SELECT docmodel.counter_value('ct::tx') IS NULL AS rolled_back;
SELECT docmodel.counter_drop('ct::b');
SELECT docmodel.counter_value('ct::b') IS NULL AS dropped;
SELECT docmodel.incr('ct::b', initial => 7);         -- re-created

-- A row from another server life (restored by pg_dump, or replayed after a crash)
-- continues above its WAL-logged bound, never at its possibly stale value.
INSERT INTO docmodel.counter_state (value, reserved, life, gapless, name)
VALUES (10, 42, 12345, false, 'ct::restored');
SELECT docmodel.counter_value('ct::restored') AS value,
       (SELECT value FROM docmodel.counters WHERE name = 'ct::restored') AS in_view;
SELECT docmodel.incr('ct::restored'), docmodel.incr('ct::restored');
SELECT value, reserved, life <> 12345 AS relogged FROM docmodel.counter_state
 WHERE name = 'ct::restored';

-- Each backend remembers where a counter's row is; the place is checked on every use,
-- so drops, re-creations, VACUUM (which may truncate the table), VACUUM FULL and a
-- rolled-back TRUNCATE never send an increment to the wrong row.
SELECT docmodel.incr('ct::cache', initial => 1), docmodel.incr('ct::cache');
SELECT docmodel.counter_drop('ct::cache');
SELECT pg_temp.try($q$SELECT docmodel.incr('ct::cache')$q$);
SELECT docmodel.incr('ct::cache', initial => 50), docmodel.incr('ct::cache');
SELECT count(docmodel.incr('ct::fill' || g, initial => 0)) FROM generate_series(1, 600) g;
SELECT docmodel.incr('ct::fill600');
DELETE FROM docmodel.counter_state WHERE name LIKE 'ct::fill%';
VACUUM docmodel.counter_state;
SELECT docmodel.incr('ct::fill600', initial => 7), docmodel.incr('ct::fill600');
SELECT docmodel.counter_drop('ct::fill600');
VACUUM FULL docmodel.counter_state;
SELECT docmodel.incr('ct::cache');
BEGIN;
TRUNCATE docmodel.counter_state;
SELECT pg_temp.try($q$SELECT docmodel.incr('ct::cache')$q$);
ROLLBACK;
SELECT docmodel.incr('ct::cache'), docmodel.counter_value('ct::cache');

-- The row of a non-gapless counter changes only in place.
SELECT pg_temp.try($q$UPDATE docmodel.counter_state SET value = 0 WHERE name = 'ct::a'$q$);
SELECT pg_temp.try($q$UPDATE docmodel.counter_state SET name = 'ct::h' WHERE name = 'ct::g'$q$);
SELECT pg_temp.try($q$UPDATE docmodel.counter_state SET gapless = false WHERE name = 'ct::g'$q$);

-- Errors.
SELECT pg_temp.try($q$SELECT docmodel.incr('ct::absent')$q$);
SELECT pg_temp.try($q$SELECT docmodel.incr('ct::a', -1)$q$);
SELECT pg_temp.try($q$SELECT docmodel.incr('ct::new', 1, -5)$q$);
SELECT pg_temp.try($q$SELECT docmodel.incr('')$q$);
SELECT pg_temp.try($q$SELECT docmodel.incr('ct::::a')$q$);
SELECT pg_temp.try($q$SELECT docmodel.incr(E'ct::\x01')$q$);
SELECT pg_temp.try($q$SELECT docmodel.incr(repeat('x', 251))$q$);
SELECT pg_temp.try($q$SELECT docmodel.incr(NULL)$q$);
SELECT pg_temp.try($q$SELECT docmodel.incr('ct::a', NULL)$q$);
SELECT pg_temp.try($q$SELECT docmodel.counter_create('ct::a')$q$);
SELECT pg_temp.try($q$SELECT docmodel.counter_create('ct::neg', -1)$q$);
SELECT pg_temp.try($q$SELECT docmodel.counter_create('ct::nul', NULL)$q$);
SELECT pg_temp.try($q$SELECT docmodel.counter_create('bad::')$q$);
SELECT pg_temp.try($q$SELECT docmodel.counter_advance('ct::absent', 5)$q$);
SELECT pg_temp.try($q$SELECT docmodel.counter_advance('ct::a', NULL)$q$);
SELECT pg_temp.try($q$SELECT docmodel.counter_drop('ct::absent')$q$);
SELECT pg_temp.try($q$SELECT docmodel.next_id('')$q$);
SELECT pg_temp.try($q$SELECT docmodel.next_id(NULL)$q$);
SELECT pg_temp.try($q$SELECT docmodel.next_id('ctuser', NULL)$q$);
SELECT pg_temp.try($q$SELECT docmodel.next_id('ctuser', VARIADIC NULL::text[])$q$);
SELECT pg_temp.try($q$SELECT docmodel.next_id('ct::user')$q$);
SELECT pg_temp.try($q$SELECT docmodel.next_key('ctuser', 'a::b')$q$);
SELECT pg_temp.try($q$SELECT docmodel.next_key('ctuser', '')$q$);
SELECT pg_temp.try($q$SELECT docmodel.counter_keys('ctuser', 'a::b')$q$);
SELECT pg_temp.try($q$SELECT docmodel.counter_value('')$q$);
SELECT docmodel.counter_advance('ct::c', 9223372036854775806);
SELECT pg_temp.try($q$SELECT docmodel.incr('ct::c', 2)$q$);
SELECT docmodel.incr('ct::c');                       -- exactly the maximum is fine
SELECT pg_temp.try($q$SELECT docmodel.incr('ct::c')$q$);
SELECT docmodel.counter_advance('ct::g', 9223372036854775807);
SELECT pg_temp.try($q$SELECT docmodel.incr('ct::g')$q$);

-- Read-only transactions cannot increment (like nextval).
BEGIN READ ONLY;
SELECT pg_temp.try($q$SELECT docmodel.next_id('ctuser')$q$);
SELECT docmodel.counter_value('count::ctuser');
ROLLBACK;

-- Privileges: the caller needs them on docmodel.counter_state (SELECT to read,
-- UPDATE to increment, INSERT to create, DELETE to drop), like USAGE on a sequence.
CREATE ROLE regress_counter_app NOLOGIN;
GRANT USAGE ON SCHEMA docmodel TO regress_counter_app;
SET ROLE regress_counter_app;
SELECT pg_temp.try($q$SELECT docmodel.incr('ct::a')$q$);
SELECT pg_temp.try($q$SELECT docmodel.counter_value('ct::a')$q$);
SELECT pg_temp.try($q$SELECT docmodel.next_id('ctnew')$q$);
RESET ROLE;
GRANT SELECT, INSERT, UPDATE ON docmodel.counter_state TO regress_counter_app;
SET ROLE regress_counter_app;
SELECT docmodel.incr('ct::a') > 0 AS incremented, docmodel.next_id('ctnew') AS created;
SELECT pg_temp.try($q$SELECT docmodel.counter_drop('count::ctnew')$q$);
RESET ROLE;
REVOKE ALL ON docmodel.counter_state FROM regress_counter_app;
REVOKE USAGE ON SCHEMA docmodel FROM regress_counter_app;
DROP ROLE regress_counter_app;

-- Clean up.
SELECT count(docmodel.counter_drop(name)) FROM docmodel.counters
 WHERE name LIKE 'ct::%' OR name LIKE 'count::%ct%';
SELECT count(*) FROM docmodel.counters WHERE name LIKE 'ct::%' OR name LIKE 'count::%ct%';
