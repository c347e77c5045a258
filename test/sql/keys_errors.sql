-- Keys: every error the key functions raise, with its SQLSTATE.
\i test/sql/include/try.sql
-- the hint, where there is one
CREATE FUNCTION pg_temp.hint(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE h text;
BEGIN
  EXECUTE sql;
  RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS h = PG_EXCEPTION_HINT;
  RETURN h;
END $$;

-- a NULL part is an error, never skipped (22004)
SELECT pg_temp.try($q$SELECT docmodel.key('a', NULL::text)$q$);
SELECT pg_temp.try($q$SELECT docmodel.key(NULL::int, 'a')$q$);
SELECT pg_temp.try($q$SELECT docmodel.key('a', NULL)$q$);
SELECT pg_temp.try($q$SELECT docmodel.key_with(':', 'a', NULL::int)$q$);
SELECT pg_temp.try($q$SELECT docmodel.key(VARIADIC ARRAY['a', NULL])$q$);
SELECT pg_temp.try($q$SELECT docmodel.key(VARIADIC NULL::text[])$q$);
SELECT pg_temp.hint($q$SELECT docmodel.key('a', NULL::text)$q$);

-- zero parts (22023)
SELECT pg_temp.try($q$SELECT docmodel.key(VARIADIC ARRAY[]::text[])$q$);
SELECT pg_temp.try($q$SELECT docmodel.key_with(':', VARIADIC '{}'::int[])$q$);

-- an empty part (22023)
SELECT pg_temp.try($q$SELECT docmodel.key('user', '')$q$);
SELECT pg_temp.try($q$SELECT docmodel.key('', 1)$q$);
SELECT pg_temp.try($q$SELECT docmodel.key('user', '   '::char(3))$q$);
SELECT pg_temp.try($q$SELECT docmodel.key_with('_', 'user', '', 'x')$q$);

-- a part containing the delimiter (22023)
SELECT pg_temp.try($q$SELECT docmodel.key('user', 'a::b')$q$);
SELECT pg_temp.try($q$SELECT docmodel.key_with(':', 'user', 'a:b')$q$);
SELECT pg_temp.try($q$SELECT docmodel.key_with('_', 'user', 'fred_smith')$q$);
SELECT pg_temp.try($q$SELECT docmodel.key_with('-', 'user', -5)$q$);
SELECT pg_temp.try($q$SELECT docmodel.key_with('.', 'price', 1.5)$q$);
SELECT pg_temp.try($q$SELECT docmodel.key_with('-', 'playlist', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid)$q$);
SELECT pg_temp.hint($q$SELECT docmodel.key('user', 'a::b')$q$);

-- a part that merges with the delimiter next to it: the key would be ambiguous (22023)
SELECT pg_temp.try($q$SELECT docmodel.key('a:', 'b')$q$);
SELECT pg_temp.try($q$SELECT docmodel.key('a', ':b')$q$);
SELECT pg_temp.try($q$SELECT docmodel.key_with('-.-', 'a-.', 'b')$q$);
SELECT pg_temp.try($q$SELECT docmodel.key_with('-.-', 'a', '.-b')$q$);
-- ... but a part that only touches the delimiter is fine: 'a--->b' splits one way
SELECT docmodel.key_with('-->', 'a-', 'b') AS k,
       docmodel.key_parts(docmodel.key_with('-->', 'a-', 'b'), '-->') AS parts;

-- control characters (22023)
SELECT pg_temp.try($q$SELECT docmodel.key('user', E'a\nb')$q$);
SELECT pg_temp.try($q$SELECT docmodel.key('user', E'tab\there')$q$);
SELECT pg_temp.try($q$SELECT docmodel.key(E'\x7f', 1)$q$);

-- longer than 250 bytes (22001)
SELECT pg_temp.try($q$SELECT docmodel.key('user', repeat('x', 245))$q$);
SELECT pg_temp.try($q$SELECT docmodel.key(repeat('x', 1000))$q$);
SELECT pg_temp.try($q$SELECT docmodel.key(repeat('é', 126))$q$);
SELECT pg_temp.try($q$SELECT docmodel.key('user', repeat('x', 236), 12345678901::int8)$q$);
SELECT pg_temp.try($q$SELECT docmodel.key(VARIADIC array_fill('a'::text, ARRAY[200]))$q$);

-- types whose text form is not immutable are refused, with a hint to cast (22023)
SELECT pg_temp.try($q$SELECT docmodel.key('pi', 3.14::float8)$q$);
SELECT pg_temp.try($q$SELECT docmodel.key('pi', 3.14::real)$q$);
SELECT pg_temp.try($q$SELECT docmodel.key('day', '2024-01-02'::date)$q$);
SELECT pg_temp.try($q$SELECT docmodel.key('at', now())$q$);
SELECT pg_temp.try($q$SELECT docmodel.key('at', localtimestamp)$q$);
SELECT pg_temp.try($q$SELECT docmodel.key('doc', '{"a":1}'::json)$q$);
SELECT pg_temp.try($q$SELECT docmodel.key('doc', '{"a":1}'::jsonb)$q$);
SELECT pg_temp.try($q$SELECT docmodel.key('cost', 1::money)$q$);
SELECT pg_temp.try($q$SELECT docmodel.key('list', ARRAY[1, 2])$q$);
SELECT pg_temp.try($q$SELECT docmodel.key('bytes', '\x01'::bytea)$q$);
SELECT pg_temp.try($q$SELECT docmodel.key(VARIADIC ARRAY[now()])$q$);
SELECT pg_temp.hint($q$SELECT docmodel.key('day', '2024-01-02'::date)$q$);
-- ... and casting to text is the way out
SELECT docmodel.key('day', to_char('2024-01-02'::date, 'YYYY-MM-DD')) AS cast_date;

-- bad delimiters (22023): empty, too long, letters, digits, whitespace, control; NULL (22004)
SELECT pg_temp.try($q$SELECT docmodel.key_with('', 'a', 'b')$q$);
SELECT pg_temp.try($q$SELECT docmodel.key_with(':::::', 'a', 'b')$q$);
SELECT pg_temp.try($q$SELECT docmodel.key_with('x', 'a', 'b')$q$);
SELECT pg_temp.try($q$SELECT docmodel.key_with(':A', 'a', 'b')$q$);
SELECT pg_temp.try($q$SELECT docmodel.key_with('0', 'a', 'b')$q$);
SELECT pg_temp.try($q$SELECT docmodel.key_with(' ', 'a', 'b')$q$);
SELECT pg_temp.try($q$SELECT docmodel.key_with(E':\t', 'a', 'b')$q$);
SELECT pg_temp.try($q$SELECT docmodel.key_with(E'\x01', 'a', 'b')$q$);
SELECT pg_temp.try($q$SELECT docmodel.key_with(NULL, 'a', 'b')$q$);
SELECT pg_temp.try($q$SELECT docmodel.key_parts('a::b', 'ab')$q$);
SELECT pg_temp.try($q$SELECT docmodel.key_type('a::b', '')$q$);
SELECT pg_temp.try($q$SELECT docmodel.revision_key('a::b', 1, ' ')$q$);
SELECT pg_temp.hint($q$SELECT docmodel.key_with('x', 'a', 'b')$q$);

-- the split functions check the key they are given (22023, 22001)
SELECT pg_temp.try($q$SELECT docmodel.key_parts('')$q$);
SELECT pg_temp.try($q$SELECT docmodel.key_parts('user::')$q$);
SELECT pg_temp.try($q$SELECT docmodel.key_type('::123')$q$);
SELECT pg_temp.try($q$SELECT docmodel.key_id('user::::123')$q$);
SELECT pg_temp.try($q$SELECT docmodel.key_parent('a:::b')$q$);
SELECT pg_temp.try($q$SELECT docmodel.key_type(E'user::1\n2')$q$);
SELECT pg_temp.try($q$SELECT docmodel.key_type(repeat('x', 251))$q$);
SELECT pg_temp.try($q$SELECT docmodel.key_id('a::b', ':')$q$);
-- a stored (compressed) value is read whole
CREATE TABLE keys_long (k text);
INSERT INTO keys_long VALUES ('user::' || repeat('x', 5000));
SELECT pg_temp.try($q$SELECT docmodel.key_type(k) FROM keys_long$q$);
DROP TABLE keys_long;

-- uuid_key: the document type must be a key, with room for the UUID
SELECT pg_temp.try($q$SELECT docmodel.uuid_key('')$q$);
SELECT pg_temp.try($q$SELECT docmodel.uuid_key('user::')$q$);
SELECT pg_temp.try($q$SELECT docmodel.uuid_key(repeat('x', 217))$q$);
SELECT length(docmodel.uuid_key(repeat('x', 216))) AS at_limit;

-- revision_key: a valid key, a revision from 1, the result within 250 bytes
SELECT pg_temp.try($q$SELECT docmodel.revision_key('user::', 1)$q$);
SELECT pg_temp.try($q$SELECT docmodel.revision_key('user::1', 0)$q$);
SELECT pg_temp.try($q$SELECT docmodel.revision_key('user::1', -3)$q$);
SELECT pg_temp.try($q$SELECT docmodel.revision_key(repeat('x', 245), 10)$q$);
SELECT length(docmodel.revision_key(repeat('x', 243), 10)) AS at_limit;

-- key_is_valid never raises, even on a bad delimiter
SELECT docmodel.key_is_valid('a::b', '') AS empty_delim,
       docmodel.key_is_valid('a::b', 'abc') AS letters,
       docmodel.key_is_valid(repeat('x', 10000)) AS long_key;
