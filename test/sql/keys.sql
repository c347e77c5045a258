-- Keys: building, splitting and checking Couchbase-style keys, one
-- section per key pattern of the README ("Keys"). Errors: keys_errors.sql.
\pset null '(null)'

-- DocType:ID
SELECT docmodel.key('user', 123) AS k,
       docmodel.key('userprofile', 'fredsmith79') AS k2;
SELECT docmodel.key_type('user::123') AS type,
       docmodel.key_id('user::123') AS id,
       docmodel.key_parent('user::123') AS parent,
       docmodel.key_parts('user::123') AS parts;

-- AppName:DocType:ID
SELECT docmodel.key('couchmusic', 'userprofile', 'fredsmith79') AS k;
SELECT docmodel.key_parts(k) AS parts, docmodel.key_type(k) AS first,
       docmodel.key_id(k) AS id, docmodel.key_parent(k) AS parent
FROM (VALUES ('couchmusic::userprofile::fredsmith79')) v(k);

-- DocType:ParentID:ChildID (hierarchy, "belongs to"): the parent is a key too
SELECT docmodel.key('user', 'foo.org', 12345) AS k;
SELECT docmodel.key('playlist', 'fredsmith79',
                    '003c6f65-641a-4c9a-8e5e-41c947086cae'::uuid) AS k;
SELECT docmodel.key_parent('user::foo.org::12345') AS parent,
       docmodel.key_parent(docmodel.key_parent('user::foo.org::12345')) AS grandparent,
       docmodel.key_parent('user') AS no_parent;

-- predictable (natural key): the same parts always give the same key
SELECT docmodel.key('user', 'john.doe@mail.com') AS k,
       docmodel.key('user', 'john.doe@mail.com') = 'user::john.doe@mail.com' AS same;

-- counter ID and per-parent counter: counter keys and the keys they number
SELECT docmodel.key('count', 'user') AS counter, docmodel.key('user', 124) AS next_key;
SELECT docmodel.key('count', 'foo.org', 'user') AS counter,
       docmodel.key('user', 'foo.org', 563) AS next_key;

-- unpredictable (UUID): uuid_key is doc_type::<32 hex digits>, a UUIDv7
SELECT k ~ '^user::[0-9a-f]{12}7[0-9a-f]{3}[89ab][0-9a-f]{15}$' AS uuidv7_layout,
       length(k) AS bytes,
       docmodel.key_type(k) AS type,
       docmodel.key_is_valid(k) AS valid
FROM (SELECT docmodel.uuid_key('user') AS k) s;
-- its first 48 bits are the time in milliseconds
SELECT abs(('x' || substr(docmodel.key_id(docmodel.uuid_key('user')), 1, 12))::bit(48)::bigint
           - (extract(epoch FROM clock_timestamp()) * 1000)::bigint) < 60000 AS time_ordered;
-- the document type may itself have several parts
SELECT docmodel.key_parts(docmodel.uuid_key('couchmusic::playlist'))::text
       ~ '^\{couchmusic,playlist,[0-9a-f]{32}\}$' AS app_prefix;
-- 10,000 keys made in one statement are all different and sort in creation order
CREATE TEMP TABLE keys_uuid AS
SELECT n, docmodel.uuid_key('user') AS k FROM generate_series(1, 10000) n;
SELECT count(*) AS made, count(DISTINCT k) AS distinct_keys,
       bool_and(n = r) AS sorted_in_creation_order
FROM (SELECT n, k, row_number() OVER (ORDER BY k) AS r FROM keys_uuid) s;
-- ... and later statements sort after earlier ones
SELECT bool_and(docmodel.uuid_key('user') > k) AS later_sorts_after FROM keys_uuid;
DROP TABLE keys_uuid;
-- uuid_key is volatile: each call is a new key
SELECT docmodel.uuid_key('user') <> docmodel.uuid_key('user') AS differs;

-- composite relationship: student 123 enrolled in class 987
SELECT docmodel.key(123, 987) AS k,
       docmodel.key_type('123::987') AS student,
       docmodel.key_id('123::987') AS class;

-- derived / companion documents
SELECT docmodel.key(1001, 'orders') AS companion,
       docmodel.key(1001, 'orders', 'value') AS companion_of_companion,
       docmodel.key_parent('1001::orders::value') AS its_parent;

-- lookup (alternate access path): customer_ref::12345 -> {"ref": "user::..."}
SELECT docmodel.key('customer_ref', 12345) AS lookup_key,
       jsonb_build_object('ref', docmodel.key('user', 'mmustermann@domain.com')) AS lookup_doc;

-- revision keys
SELECT docmodel.revision_key('user::123', 1) AS v1,
       docmodel.revision_key('user::123', 4) AS v4,
       docmodel.revision_key('user:123', 4, ':') AS colon,
       docmodel.revision_key('user_123', 2147483647, '_') AS underscore;
SELECT docmodel.key_parts(docmodel.revision_key('user::123', 4)) AS parts,
       docmodel.key_id(docmodel.revision_key('user::123', 4))::int AS ver;

-- parts of every accepted type, and how each is written
SELECT docmodel.key('text'::text, 'varchar'::varchar(10), 'char  '::char(6),
                    'name'::name, 'untyped') AS text_kinds;
SELECT docmodel.key((-32768)::int2, 2147483647::int4, (-9223372036854775808)::int8,
                    0::int4) AS integers;
SELECT docmodel.key(1.50::numeric, -0.001::numeric, 10::numeric,
                    'NaN'::numeric) AS numerics;
SELECT docmodel.key('A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'::uuid) AS uuid_canonical;
SELECT docmodel.key(true, false) AS booleans;
-- a domain over an accepted type is accepted
CREATE DOMAIN keys_email AS text CHECK (VALUE LIKE '%@%');
SELECT docmodel.key('user', 'a@b.c'::keys_email) AS from_domain;
DROP DOMAIN keys_email;
-- multibyte UTF-8 is fine (the limit counts bytes)
SELECT docmodel.key('user', 'zoë', 'Łódź') AS k,
       octet_length(docmodel.key('user', 'zoë', 'Łódź')) AS bytes;
-- exactly 250 bytes is allowed
SELECT octet_length(docmodel.key('user', repeat('x', 244))) AS at_limit;
-- one part is a key too
SELECT docmodel.key('singleton') AS k, docmodel.key_parts('singleton') AS parts,
       docmodel.key_type('singleton') AS type, docmodel.key_id('singleton') AS id;

-- VARIADIC arrays are spread into parts
SELECT docmodel.key(VARIADIC ARRAY['user', 'foo.org', '12345']) AS from_text_array,
       docmodel.key(VARIADIC ARRAY[123, 987]) AS from_int_array,
       docmodel.key_with('_', VARIADIC ARRAY['user', '1']) AS key_with_array;
SELECT docmodel.key(VARIADIC docmodel.key_parts('a::b::c')) = 'a::b::c' AS round_trip;

-- key_with and the split functions with other delimiters
SELECT docmodel.key_with(':', 'user', 123) AS colon,
       docmodel.key_with('_', 'user', 123) AS underscore,
       docmodel.key_with('|', 'user', 'foo.org', 5) AS pipe,
       docmodel.key_with('-->', 'a', 'b') AS arrow,
       docmodel.key_with('::', 'user', 1) = docmodel.key('user', 1) AS default_same;
SELECT docmodel.key_parts('couchmusic:userprofile:fred', ':') AS parts,
       docmodel.key_type('couchmusic:userprofile:fred', ':') AS type,
       docmodel.key_id('couchmusic:userprofile:fred', ':') AS id,
       docmodel.key_parent('couchmusic:userprofile:fred', ':') AS parent;
SELECT docmodel.key_parts('user_foo.org_563', '_') AS parts,
       docmodel.key_type('user_foo.org_563', '_') AS type,
       docmodel.key_id('user_foo.org_563', '_') AS id,
       docmodel.key_parent('user_foo.org_563', '_') AS parent;
-- with ':' a part may hold '.' and '-'
SELECT docmodel.key_with(':', 'user', 'foo.org', -5) AS k;
-- with '-' or '.' as delimiter, negative numbers and decimals would contain it (errors file)
SELECT docmodel.key_with('.', 'user', 5) AS dot, docmodel.key_with('-', 'user', 5) AS dash;
-- a multibyte delimiter is checked byte by byte (only ASCII letters, digits, space, controls are refused)
SELECT docmodel.key_with('→', 'a', 'b') AS k, docmodel.key_parts('a→b→c', '→') AS parts;
-- split and join are inverses
SELECT docmodel.key_with('_', VARIADIC docmodel.key_parts('a_b_c', '_')) AS rejoined;

-- key_is_valid: the rules, never an error
SELECT quote_literal(k) AS k, quote_literal(d) AS d, docmodel.key_is_valid(k, d) AS valid
FROM (VALUES ('user::123', '::'),
             ('user', '::'),
             ('user:123', ':'),
             ('user_123', '_'),
             ('user:123', '::'),          -- one part 'user:123'
             ('', '::'),                  -- empty key
             ('::123', '::'),             -- empty first part
             ('user::', '::'),            -- empty last part
             ('user::::123', '::'),       -- empty middle part (overlapping)
             ('a:::b', '::'),             -- ambiguous: a: + b or a + :b
             ('a::b:', '::'),             -- ':' ends the last part: fine
             (':a::b', '::'),             -- ':' starts the first part: fine
             ('a::b', ':'),               -- empty part with ':'
             (E'user::1\t2', '::'),       -- control character
             (E'user::\x7f', '::'),       -- DEL
             ('user::123', ''),           -- empty delimiter
             ('user::123', 'abc'),        -- letters
             ('user 1', ' '),             -- whitespace
             ('a..b', '.....'),           -- delimiter too long
             ('a1b', '1'),                -- digit
             ('a::b', E'\x01')            -- control character delimiter
     ) v(k, d);
SELECT docmodel.key_is_valid(repeat('x', 250)) AS at_250,
       docmodel.key_is_valid(repeat('x', 251)) AS at_251,
       docmodel.key_is_valid('user::123') AS default_delimiter,
       docmodel.key_is_valid(NULL) AS null_key;

-- a key built by key() is always valid and splits back into its parts
SELECT bool_and(docmodel.key_is_valid(docmodel.key('user', i, i * 7)))
       AND bool_and(docmodel.key_parts(docmodel.key('user', i, i * 7)) = ARRAY['user', i::text, (i * 7)::text])
       AS all_valid
FROM generate_series(-100, 100) i;

-- the split functions are strict: NULL in, NULL out
SELECT docmodel.key_parts(NULL) AS parts, docmodel.key_type(NULL) AS type,
       docmodel.key_id(NULL, ':') AS id, docmodel.key_parent('a::b', NULL) AS parent,
       docmodel.revision_key('user::1', NULL) AS rev, docmodel.uuid_key(NULL) AS uuid;

-- the labels: every key function is immutable and parallel safe, but uuid_key
SELECT p.proname, p.provolatile, p.proisstrict, p.proparallel,
       pg_get_function_arguments(p.oid) AS args
FROM pg_proc p
WHERE p.pronamespace = 'docmodel'::regnamespace
  AND (p.proname LIKE 'key%' OR p.proname IN ('uuid_key', 'revision_key'))
ORDER BY 1;

-- an equality on key() in an index expression is allowed (IMMUTABLE)
CREATE TABLE keys_people (email text, org text);
INSERT INTO keys_people VALUES ('a@x.org', 'x.org'), ('b@y.org', 'y.org');
CREATE INDEX keys_people_key ON keys_people (docmodel.key('user', org, email));
SELECT email FROM keys_people WHERE docmodel.key('user', org, email) = 'user::y.org::b@y.org';
DROP TABLE keys_people;

-- key() used per row with changing types per call site
SELECT docmodel.key(t, n) AS k
FROM (VALUES ('a', 1), ('b', 2)) v(t, n)
ORDER BY 1;

-- the checker against a plain SQL statement of the rules, on random strings of
-- every length up to 80 bytes (the C reads 16 or 8 bytes at a time)
CREATE FUNCTION pg_temp.rules_hold(k text, d text) RETURNS boolean LANGUAGE sql AS $$
  SELECT octet_length(k) <= 250
     AND k !~ '[\x01-\x1f\x7f]'
     AND NOT EXISTS (SELECT 1 FROM unnest(string_to_array(k, d)) p WHERE p = '')
     AND NOT EXISTS (SELECT 1 FROM generate_series(1, length(k)) i, generate_series(1, length(d) - 1) j
                     WHERE substr(k, i, length(d)) = d AND substr(k, i + j, length(d)) = d)
$$;
SELECT setseed(0.25);
CREATE TEMP TABLE keys_random AS
SELECT d, g, string_agg(substr(E'ab:\x01-.>x:\x7f', (random() * 9)::int + 1, 1), '') AS k
FROM (VALUES ('::'), (':'), ('-.-'), ('-->'), (':::')) v(d), generate_series(1, 2000) g,
     LATERAL generate_series(1, 1 + g % 80) n
GROUP BY d, g;
INSERT INTO keys_random
SELECT d, g, string_agg(substr('ab:-.>xyz', (random() * 8)::int + 1, 1), '')
FROM (VALUES ('::'), (':'), ('-.-'), ('-->')) v(d), generate_series(2001, 4000) g,
     LATERAL generate_series(1, 1 + g % 80) n
GROUP BY d, g;
SELECT d,
       count(*) FILTER (WHERE docmodel.key_is_valid(k, d) <> pg_temp.rules_hold(k, d)) AS checker_disagrees,
       count(*) FILTER (WHERE docmodel.key_is_valid(k, d) AND (
            docmodel.key_parts(k, d) <> string_to_array(k, d)
         OR docmodel.key_with(d, VARIADIC docmodel.key_parts(k, d)) <> k
         OR docmodel.key_type(k, d) <> (string_to_array(k, d))[1]
         OR docmodel.key_id(k, d) <> (string_to_array(k, d))[cardinality(string_to_array(k, d))]
         OR docmodel.key_parent(k, d) IS DISTINCT FROM
            nullif(array_to_string((string_to_array(k, d))[1:cardinality(string_to_array(k, d)) - 1], d), '')
         )) AS split_disagrees,
       count(*) FILTER (WHERE docmodel.key_is_valid(k, d)) > 100 AS enough_valid
FROM keys_random GROUP BY d ORDER BY d;
DROP TABLE keys_random;
