-- Counters that serve a collection: next_key_in and counter_keys_in make
-- keys in the collection's layout (its delimiter, its type part), from the
-- same counter next_id and next_key use (count::[parents::]doc_type), so
-- 0.1.0's calls keep working and count along.
\i test/sql/include/try.sql
SET client_min_messages = warning;

\echo == keys as the guides write them: user:123
SELECT docmodel.create_collection('logins', delimiter => ':') IS NOT NULL;
SELECT docmodel.next_key_in('logins', 'user') AS k1, docmodel.next_key_in('logins', 'user') AS k2;
SELECT docmodel.insert('logins', docmodel.next_key_in('logins', 'user'), '{"name": "Ann"}') > 0 AS inserted;
SELECT array_agg(k) AS keys FROM docmodel.counter_keys_in('logins', 'user') AS k;
SELECT key, doc->>'name' AS name FROM docmodel.get_multi('logins', ARRAY(SELECT docmodel.counter_keys_in('logins', 'user')));
-- next_key shares the counter (its keys keep 0.1.0's ::)
SELECT docmodel.next_key('user') AS next_key_continues;
SELECT docmodel.next_key_in('logins', 'user', 'foo.org') AS with_parent, docmodel.next_key('user', 'foo.org') AS shared;

\echo == an application prefix before the type (type_part 2), keys without a type (type_part 0)
SELECT docmodel.create_collection('music', delimiter => ':', type_part => 2) IS NOT NULL;
SELECT docmodel.next_key_in('music', 'userprofile', 'couchmusic') AS app_prefixed;
SELECT docmodel.insert('music', docmodel.next_key_in('music', 'userprofile', 'couchmusic'), '{}') > 0 AS inserted;
SELECT id, doc->>'_type' AS type FROM music_documents;
SELECT docmodel.create_collection('students', doc_type => 'student', type_part => 0) IS NOT NULL;
SELECT docmodel.next_key_in('students') AS no_type_part, docmodel.next_key_in('students', NULL, '123') AS enrollment;
SELECT docmodel.create_collection('bucket', type_part => 0, types => ARRAY['beer', 'brewery'], delimiter => '-') IS NOT NULL;
SELECT docmodel.next_key_in('bucket', 'beer', 'anchor_brewing') AS body_typed;
SELECT array_agg(k) AS keys FROM docmodel.counter_keys_in('bucket', 'beer', 'anchor_brewing') AS k;

\echo == refused
SELECT pg_temp.try($$SELECT docmodel.next_key_in('logins')$$);
SELECT pg_temp.try($$SELECT docmodel.next_key_in('students', 'teacher')$$);
SELECT pg_temp.try($$SELECT docmodel.next_key_in('bucket', 'hotel')$$);
SELECT pg_temp.try($$SELECT docmodel.next_key_in('music', 'userprofile')$$);
SELECT pg_temp.try($$SELECT docmodel.next_key_in('logins', 'us:er')$$);
SELECT pg_temp.try($$SELECT docmodel.next_key_in('logins', 'user', 'a::b')$$);
SELECT pg_temp.try($$SELECT docmodel.next_key_in('logins', 'user', '')$$);
SELECT pg_temp.try($$SELECT docmodel.next_key_in('logins', 'user', NULL::text)$$);
SELECT pg_temp.try($$SELECT docmodel.next_key_in(NULL, 'user')$$);
SELECT pg_temp.try($$SELECT docmodel.next_key_in('pg_class', 'user')$$);
SELECT pg_temp.try($$SELECT docmodel.next_key_in('logins', 'user', repeat('x', 240))$$);

SELECT docmodel.drop_collection('logins');
SELECT docmodel.drop_collection('music');
SELECT docmodel.drop_collection('students');
SELECT docmodel.drop_collection('bucket');
SELECT docmodel.counter_drop(name) IS NULL FROM docmodel.counters
WHERE name IN ('count::user', 'count::foo.org::user', 'count::couchmusic::userprofile',
  'count::student', 'count::123::student', 'count::anchor_brewing::beer');
