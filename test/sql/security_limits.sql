-- Limits a caller cannot talk its way past: no crash on internal functions
-- called with NULLs, validation that finishes in linear time or can be
-- cancelled, patches and counter ranges bounded in size, the direct update
-- of mutate_in honouring rules and BEFORE triggers, bucket_append only on
-- buckets.
\i test/sql/include/try.sql
CREATE ROLE sec_nobody;

-- _key_exists_error (rename_key's statement, run as the caller): STRICT,
-- and safe with any arguments from any role.
SELECT proisstrict FROM pg_proc WHERE oid = 'docmodel._key_exists_error(regclass, text)'::regprocedure;
SET ROLE sec_nobody;
SELECT docmodel._key_exists_error(NULL, NULL) IS NULL AS null_args;
SELECT pg_temp.try($$SELECT docmodel._key_exists_error('pg_class', 'k')$$);
SELECT pg_temp.try($$SELECT docmodel._key_exists_error(0, 'k')$$);
-- _check_layout of a layout that does not exist: 22023, not an internal error
SELECT pg_temp.try($$SELECT docmodel._check_layout('pg_class', 'nosuch')$$);
RESET ROLE;

-- Validation: the simple-pattern matcher runs in linear time (it used to
-- backtrack: 550 characters took 15 s, 3,000 hours) and agrees with ~.
SET statement_timeout = '1s';
SELECT docmodel.schema_valid('{"pattern": "a*a*a*b"}', to_jsonb(repeat('a', 3000))) AS no_b,
       docmodel.schema_valid('{"pattern": "a*a*a*b"}', to_jsonb(repeat('a', 3000) || 'b')) AS with_b,
       docmodel.schema_valid('{"pattern": "^a*a*a*a*a*a*$"}', to_jsonb(repeat('a', 100000))) AS anchored,
       docmodel.schema_valid('{"pattern": "^[a-z]{2,5}[0-9]*x?$"}', to_jsonb(repeat('ab', 50000))) AS long_fail;
RESET statement_timeout;
-- every pattern over every string of up to 4 characters: the same answers as ~ (the
-- automaton too: a group takes the pattern off the fast path)
CREATE TEMP TABLE sec_patterns (p text);
INSERT INTO sec_patterns VALUES ('a*a*b'), ('^a*a*b$'), ('^$'), (''), ('$'), ('^'), ('a'),
  ('^a'), ('a$'), ('^a$'), ('a?b?c?'), ('^a?b?c?$'), ('^a+b+$'), ('b{2}'), ('^b{2}$'),
  ('^[ab]{1,3}$'), ('^[ab]{0,2}c'), ('[^a]'), ('^[^a]*$'), ('^.{2}$'), ('^.*c.*$'),
  ('\d'), ('^\d+$'), ('\D{3}'), ('^\w*-'), ('^[a-c1]{2,}$'), ('a{0}b'), ('^a{0,}$'),
  ('^a{1,1}b{0,1}$'), ('[\-]'), ('^[-]?\d*$'), ('c{1,2}a?$'), ('^a*b*c*1*-*$'), ('\.'),
  ('^[a-z]+$'), ('a.b'), ('^.?.?.?$'), ('^[b-c]*a[b-c]*$'), ('1$'), ('^-'),
  ('a{65}'), ('^[ab]{60,70}$'), ('b{64,}c'), ('^a*b*a*b*a*$'), ('a+b+c+1'), ('^.*a.*b.*c.*$');
-- and the same strings repeated 40 times, where backtracking runs out of
-- its budget on patterns of several stars and the automaton answers
WITH RECURSIVE s(t) AS (SELECT ''::text UNION ALL
  SELECT t || c FROM s, unnest(ARRAY['a', 'b', 'c', '1', '-']) c WHERE length(t) < 4)
SELECT count(*) AS checked,
       count(*) FILTER (WHERE docmodel.schema_valid(jsonb_build_object('pattern', p), to_jsonb(t))
                              IS DISTINCT FROM (t ~ p)) AS differing,
       count(*) FILTER (WHERE docmodel.schema_valid(jsonb_build_object('pattern', p), to_jsonb(repeat(t, 40)))
                              IS DISTINCT FROM (repeat(t, 40) ~ p)) AS differing_long,
       count(*) FILTER (WHERE docmodel.schema_valid(jsonb_build_object('pattern', '(?:' || p || ')'), to_jsonb(t))
                              IS DISTINCT FROM (t ~ p)) AS differing_automaton
FROM s, sec_patterns;

-- uniqueItems and required's duplicates are found by hashing, not by
-- comparing every pair (40,000 items took 11 s, 100,000 names 11 s).
CREATE TEMP TABLE sec_big AS
SELECT (SELECT jsonb_agg(g) FROM generate_series(1, 40000) g) AS items,
       (SELECT jsonb_agg(g) || '[1.0]' FROM generate_series(1, 40000) g) AS items_dup,
       (SELECT jsonb_agg(jsonb_build_object('k', g, 'v', ARRAY[g, g])) FROM generate_series(1, 40000) g) AS objects,
       (SELECT jsonb_build_object('required', jsonb_agg('p' || g)) FROM generate_series(1, 100000) g) AS required,
       (SELECT jsonb_build_object('required', jsonb_agg('p' || g) || '["p99999"]') FROM generate_series(1, 100000) g) AS required_dup,
       (SELECT jsonb_build_object('allOf', jsonb_agg(jsonb_build_object('$ref', '#/x-defs/d' || g)),
                                  'x-defs', jsonb_object_agg('d' || g, jsonb_build_object('type', 'string')))
        FROM generate_series(1, 20000) g) AS refs;
SET statement_timeout = '1s';
SELECT docmodel.schema_valid('{"uniqueItems": true}', items) AS unique_ok,
       docmodel.schema_valid('{"uniqueItems": true}', objects) AS unique_objects,
       docmodel.schema_valid('{"uniqueItems": true}', objects || (objects->39999)) AS dup_object
FROM sec_big;
SELECT * FROM docmodel.schema_errors('{"uniqueItems": true}', (SELECT items_dup FROM sec_big));
SELECT docmodel.schema_valid(required, '{"p1": 1}') AS required_missing FROM sec_big;
SELECT pg_temp.try(format('SELECT docmodel.schema_valid(%L, %L)', required_dup, '{}')) FROM sec_big;
-- 20,000 "$ref"s to as many targets resolve in one lookup each (each
-- scanned every schema compiled: 6 s)
SELECT docmodel.schema_valid(refs, '"x"') AS refs_ok, docmodel.schema_valid(refs, '1') AS refs_fail
FROM sec_big;
RESET statement_timeout;
DROP TABLE sec_big;

-- patch: copies are bounded (each copy of the root doubled the document:
-- 22 of them took 1.3 GB); 54000 naming the operation.
SET statement_timeout = '5s';
SELECT pg_temp.try(format('SELECT docmodel.patch(%L, %L)',
  jsonb_build_object('a', repeat('x', 1000)),
  (SELECT jsonb_agg(jsonb_build_object('op', 'copy', 'from', '', 'path', '/b' || g))
   FROM generate_series(1, 26) g)));
RESET statement_timeout;
-- a few copies are fine
SELECT docmodel.patch('{"a": 1}', '[{"op": "copy", "from": "", "path": "/b"},
  {"op": "copy", "from": "", "path": "/c"}]');

-- counter_keys refuses a range of more than 1,000,000 keys (a counter
-- near its maximum would list 9.2e18).
SELECT docmodel.counter_create('count::sec_big', 9223372036854775000);
SET statement_timeout = '5s';
SELECT pg_temp.try($$SELECT count(*) FROM docmodel.counter_keys('sec_big')$$);
RESET statement_timeout;
SELECT docmodel.counter_create('count::sec_small', 1000000);
SELECT count(*) FROM docmodel.counter_keys('sec_small');

-- mutate_in honours rules as a plain UPDATE does.
SELECT docmodel.create_collection('sec_rules') IS NOT NULL AS created;
SELECT docmodel.insert('sec_rules', 'r::1', '{"n": 1}') > 0 AS inserted;
SELECT docmodel.insert('sec_rules', 'r::2', '{"n": 1}') > 0 AS inserted;
CREATE TABLE sec_audit (id text, n jsonb);
CREATE RULE sec_rules_audit AS ON UPDATE TO sec_rules DO ALSO
  INSERT INTO sec_audit VALUES (new.id, new.doc->'n');
SELECT docmodel.mutate_in('sec_rules', 'r::1', '[{"op": "upsert", "path": "n", "value": 2}]') ? 'cas' AS mutated;
SELECT * FROM sec_audit;
DROP RULE sec_rules_audit ON sec_rules;
CREATE RULE sec_rules_nothing AS ON UPDATE TO sec_rules DO INSTEAD NOTHING;
UPDATE sec_rules SET doc = doc || '{"n": 3}' WHERE id = 'r::2';
SELECT pg_temp.try($$SELECT docmodel.mutate_in('sec_rules', 'r::2', '[{"op": "upsert", "path": "n", "value": 3}]')$$);
SELECT id, doc->'n' AS n FROM sec_rules ORDER BY id;
DROP RULE sec_rules_nothing ON sec_rules;
SELECT docmodel.mutate_in('sec_rules', 'r::2', '[{"op": "upsert", "path": "n", "value": 4}]') ? 'cas' AS mutated;
SELECT id, doc->'n' AS n FROM sec_rules ORDER BY id;

-- A BEFORE trigger returning NULL: mutate_in runs it once (a sequence
-- counts the calls, whatever rolls back), then P0002.
CREATE SEQUENCE sec_fired;
CREATE FUNCTION pg_temp.sec_skip() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN PERFORM nextval('sec_fired'); RETURN NULL; END $$;
CREATE TRIGGER sec_skip BEFORE UPDATE ON sec_rules FOR EACH ROW EXECUTE FUNCTION pg_temp.sec_skip();
SELECT pg_temp.try($$SELECT docmodel.mutate_in('sec_rules', 'r::1', '[{"op": "upsert", "path": "n", "value": 5}]')$$);
SELECT last_value AS trigger_calls FROM sec_fired;
-- upsert: the trigger skipped the update (once); the insert finds the key live
SELECT pg_temp.try($$SELECT docmodel.mutate_in('sec_rules', 'r::1', '[{"op": "upsert", "path": "n", "value": 5}]', store_semantics => 'upsert')$$);
SELECT last_value AS trigger_calls FROM sec_fired;
DROP TRIGGER sec_skip ON sec_rules;
SELECT id, doc->'n' AS n FROM sec_rules ORDER BY id;

-- bucket_append does not append to a document that is not a bucket.
SELECT docmodel.create_collection('sec_buckets') IS NOT NULL AS created;
SELECT docmodel.insert('sec_buckets', 'u::1', '{"name": "Ann"}') > 0 AS inserted;
SELECT pg_temp.try($$SELECT docmodel.bucket_append('sec_buckets', 'u', '{"x": 1}')$$);
SELECT id, doc->'name' AS name, doc->'items' AS items FROM sec_buckets;
-- an expired one is taken over as before
UPDATE sec_buckets SET expires_at = now() - interval '1 hour' WHERE id = 'u::1';
SELECT docmodel.bucket_append('sec_buckets', 'u', '{"x": 1}');
SELECT id, doc->'name' AS name, doc->'items' AS items FROM sec_buckets;

SELECT docmodel.drop_collection('sec_rules');
SELECT docmodel.drop_collection('sec_buckets');
SELECT docmodel.counter_drop('count::sec_big');
SELECT docmodel.counter_drop('count::sec_small');
DROP TABLE sec_audit;
DROP SEQUENCE sec_fired;
DROP ROLE sec_nobody;
