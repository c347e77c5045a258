-- Counters and row-level security: a counter is changed in place, which
-- cannot honour a policy, so while row security applies to the caller on
-- docmodel.counter_state every counter function refuses with 0A000. Owners
-- and roles with BYPASSRLS (here the superuser) are not affected.
\i test/sql/include/try.sql
SET client_min_messages = warning;

SELECT docmodel.counter_create('rls::a');
SELECT docmodel.counter_create('rls::b');
SELECT docmodel.counter_create('rls::gapless', gapless => true);
CREATE ROLE counter_rls;
GRANT SELECT, INSERT, UPDATE ON docmodel.counter_state TO counter_rls;
SET ROLE counter_rls;
SELECT docmodel.incr('rls::a');
RESET ROLE;

ALTER TABLE docmodel.counter_state ENABLE ROW LEVEL SECURITY;
CREATE POLICY counter_rls_a ON docmodel.counter_state TO counter_rls
  USING (name = 'rls::a');
SET ROLE counter_rls;
-- The counter the policy hides, the one it shows, every function.
SELECT pg_temp.try($$SELECT docmodel.incr('rls::b')$$);
SELECT pg_temp.try($$SELECT docmodel.incr('rls::a')$$);
SELECT pg_temp.try($$SELECT docmodel.incr('rls::gapless')$$);
SELECT pg_temp.try($$SELECT docmodel.counter_value('rls::b')$$);
SELECT pg_temp.try($$SELECT docmodel.counter_advance('rls::b', 100)$$);
SELECT pg_temp.try($$SELECT docmodel.next_id('rls')$$);
RESET ROLE;
-- The superuser is not subject to the policy.
SELECT docmodel.incr('rls::b');

-- Row security off again: the verdict is not kept past the change.
ALTER TABLE docmodel.counter_state DISABLE ROW LEVEL SECURITY;
DROP POLICY counter_rls_a ON docmodel.counter_state;
SET ROLE counter_rls;
SELECT docmodel.incr('rls::a');
SELECT docmodel.counter_value('rls::b');
RESET ROLE;

-- A revoked privilege is not kept either.
REVOKE UPDATE ON docmodel.counter_state FROM counter_rls;
SET ROLE counter_rls;
SELECT pg_temp.try($$SELECT docmodel.incr('rls::a')$$);
RESET ROLE;

REVOKE ALL ON docmodel.counter_state FROM counter_rls;
DROP ROLE counter_rls;
SELECT docmodel.counter_drop('rls::a');
SELECT docmodel.counter_drop('rls::b');
SELECT docmodel.counter_drop('rls::gapless');
SELECT pg_temp.try($$SELECT docmodel.counter_drop('count::rls')$$);
