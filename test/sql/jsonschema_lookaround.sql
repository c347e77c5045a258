-- Lookaround in JSON Schema patterns (src/jsonschema/regex.c): (?=...) (?!...) (?<=...) (?<!...)
-- matched in time linear in the text, each lookaround answered per position by a pass of its
-- own automaton before the match. The known answers are JavaScript's (RegExp with the "u"
-- flag, tried at every code point boundary as ECMA-262's RegExpBuiltinExec does); the
-- property test compares thousands of random patterns and texts with the answers node gave
-- (test/data/regex_lookaround.jsonl, made by test/regex/gen_lookaround.js).
\set SHOW_CONTEXT never
\i test/sql/include/try.sql

\echo == known answers: patterns of published schemas, lookahead and lookbehind, negated, nested, in alternation and quantified groups, anchors, classes, unicode, empty matches
CREATE TEMP TABLE known(p text, t text, js boolean);
INSERT INTO known VALUES
('^(?!.*\.\.)[a-z]+$', 'abc', true),
('^(?!.*\.\.)[a-z]+$', 'a..b', false),
('^(?!.*\.\.)[a-z]+$', 'a.b', false),
('^(?!.*\.\.)[a-z]+$', '', false),
('^(?!.*\.\.)[a-z]+$', 'ab..', false),
('^(?!-)[A-Za-z0-9-]+(?<!-)$', 'ab-c', true),
('^(?!-)[A-Za-z0-9-]+(?<!-)$', 'ab-', false),
('^(?!-)[A-Za-z0-9-]+(?<!-)$', '-ab', false),
('^(?!-)[A-Za-z0-9-]+(?<!-)$', 'a', true),
('^(?!-)[A-Za-z0-9-]+(?<!-)$', '-', false),
('^(?!-)[A-Za-z0-9-]+(?<!-)$', 'a--b', true),
('^((?!__).)*$', 'a_b_c', true),
('^((?!__).)*$', 'a__b', false),
('^((?!__).)*$', '', true),
('^((?!__).)*$', '__', false),
('^((?!__).)*$', '_a_', true),
('a(?=b)', 'ab', true),
('a(?=b)', 'ac', false),
('a(?=b)', 'a', false),
('a(?=b)', 'cab', true),
('a(?!b)', 'ab', false),
('a(?!b)', 'ac', true),
('a(?!b)', 'a', true),
('a(?!b)', 'abab', false),
('a(?!b)', 'abac', true),
('(?=\d{3})\d+$', '12', false),
('(?=\d{3})\d+$', '123', true),
('(?=\d{3})\d+$', 'x1234', true),
('^(?=.*[A-Z])(?=.*[a-z])(?=.*\d).{8,}$', 'Passw0rd', true),
('^(?=.*[A-Z])(?=.*[a-z])(?=.*\d).{8,}$', 'password1', false),
('^(?=.*[A-Z])(?=.*[a-z])(?=.*\d).{8,}$', 'PASSWORD1', false),
('^(?=.*[A-Z])(?=.*[a-z])(?=.*\d).{8,}$', 'Pw0rd', false),
('^(?=.*[A-Z])(?=.*[a-z])(?=.*\d).{8,}$', 'Pässw0rd', true),
('(?<=a)b', 'ab', true),
('(?<=a)b', 'cb', false),
('(?<=a)b', 'b', false),
('(?<=a)b', 'aab', true),
('(?<!a)b', 'ab', false),
('(?<!a)b', 'cb', true),
('(?<!a)b', 'b', true),
('(?<!a)b', 'abab', false),
('(?<!a)b', 'abb', true),
('(?<=\$)\d+(\.\d\d)?$', '$10', true),
('(?<=\$)\d+(\.\d\d)?$', '$10.50', true),
('(?<=\$)\d+(\.\d\d)?$', '10', false),
('(?<=\$)\d+(\.\d\d)?$', '€10', false),
('(?<=^|,)x(?=,|$)', 'x', true),
('(?<=^|,)x(?=,|$)', 'a,x', true),
('(?<=^|,)x(?=,|$)', 'x,b', true),
('(?<=^|,)x(?=,|$)', 'ax', false),
('(?<=^|,)x(?=,|$)', 'a,xb', false),
('(?<=a+)b', 'aaab', true),
('(?<=a+)b', 'b', false),
('(?<=a+)b', 'ab', true),
('(?<=ab|cd)e', 'abe', true),
('(?<=ab|cd)e', 'cde', true),
('(?<=ab|cd)e', 'ace', false),
('(?<=ab|cd)e', 'e', false),
('(?=a(?<=ba))', 'ba', true),
('(?=a(?<=ba))', 'a', false),
('(?=a(?<=ba))', 'ca', false),
('(?=a(?<=ba))', 'bba', true),
('(?<=(?!x)..)y', 'aby', true),
('(?<=(?!x)..)y', 'axy', true),
('(?<=(?!x)..)y', 'xay', false),
('(?<=(?!x)..)y', 'y', false),
('^(?!.*(?<=[0-9])[a-z])', 'a1', true),
('^(?!.*(?<=[0-9])[a-z])', '1a', false),
('^(?!.*(?<=[0-9])[a-z])', 'abc', true),
('^(?!.*(?<=[0-9])[a-z])', '12', true),
('(?!(?!a)b)', 'b', true),
('(?!(?!a)b)', 'ab', true),
('(?!(?!a)b)', '', true),
('(?=(?=(?=a)))a', 'a', true),
('(?=(?=(?=a)))a', 'b', false),
('^(?:(?=a)\w|(?!a)\d)+$', 'a1a', true),
('^(?:(?=a)\w|(?!a)\d)+$', 'ab', false),
('^(?:(?=a)\w|(?!a)\d)+$', '12', true),
('^(?:(?=a)\w|(?!a)\d)+$', 'a1b', false),
('^(?:x(?!y))*$', 'xxx', true),
('^(?:x(?!y))*$', 'xy', false),
('^(?:x(?!y))*$', 'xxyx', false),
('^(?:x(?!y))*$', '', true),
('^(?:(?<=a)b|a)+$', 'ab', true),
('^(?:(?<=a)b|a)+$', 'aab', true),
('^(?:(?<=a)b|a)+$', 'abab', true),
('^(?:(?<=a)b|a)+$', 'b', false),
('^(?:(?<=a)b|a)+$', 'ba', false),
('^(?:(?=a))*a$', 'a', true),
('^(?:(?=a))*a$', 'b', false),
('^((?=a)|b){2}$', 'b', false),
('^((?=a)|b){2}$', 'bb', true),
('^((?=a)|b){2}$', 'bbb', false),
('^((?=a)|b){2}$', '', false),
('cat(?=s|$)|dog(?<!hotdog)', 'cats', true),
('cat(?=s|$)|dog(?<!hotdog)', 'cat', true),
('cat(?=s|$)|dog(?<!hotdog)', 'catalog', false),
('cat(?=s|$)|dog(?<!hotdog)', 'hotdog', false),
('cat(?=s|$)|dog(?<!hotdog)', 'dog', true),
('cat(?=s|$)|dog(?<!hotdog)', 'hotdogs dog', true),
('(?=$)', '', true),
('(?=$)', 'abc', true),
('(?<=^)a', 'a', true),
('(?<=^)a', 'ba', false),
('^(?<!.)', '', true),
('^(?<!.)', 'x', true),
('(?<=\b)x', 'x', true),
('(?<=\b)x', 'ax', false),
('(?<=\b)x', 'a x', true),
('\w+(?=\b)(?<!\d)', 'abc', true),
('\w+(?=\b)(?<!\d)', '123', false),
('\w+(?=\b)(?<!\d)', 'a1', false),
('(?<![\s\S])x', 'x', true),
('(?<![\s\S])x', 'ax', false),
('(?![^])', '', true),
('(?![^])', 'abc', true),
('^[^x]*(?<=[aeiou])$', 'ba', true),
('^[^x]*(?<=[aeiou])$', 'bb', false),
('^[^x]*(?<=[aeiou])$', 'bax', false),
('(?<=😀)a', '😀a', true),
('(?<=😀)a', 'a', false),
('(?<=😀)a', 'ða', false),
('^(?!\p{Lu})\p{L}+$', 'élan', true),
('^(?!\p{Lu})\p{L}+$', 'Élan', false),
('^(?!\p{Lu})\p{L}+$', 'ñu', true),
('^(?!\p{Lu})\p{L}+$', '1a', false),
('(?<=\p{Script=Greek})\d', 'α1', true),
('(?<=\p{Script=Greek})\d', 'a1', false),
('(?<=\p{Script=Greek})\d', '1', false),
('^.(?<=^\u{1F600})$', '😀', true),
('^.(?<=^\u{1F600})$', 'a', false),
('^.(?<=^\u{1F600})$', '😀😀', false),
('(?<!\p{L})\d', 'é1', false),
('(?<!\p{L})\d', ' 1', true),
('(?<!\p{L})\d', '1', true),
('(?=)', '', true),
('(?=)', 'a', true),
('(?!)', '', false),
('(?!)', 'a', false),
('(?<=)', '', true),
('(?<!)', '', false),
('(?<!)', 'a', false),
('^(?=a*)$', '', true),
('^(?=a*)$', 'a', false),
('(?<=a*)', '', true),
('^(?:(?!-)[a-z-]){3,5}$', 'abc', true),
('^(?:(?!-)[a-z-]){3,5}$', 'a-c', false),
('^(?:(?!-)[a-z-]){3,5}$', 'abcdef', false),
('^(?:(?!-)[a-z-]){3,5}$', 'ab', false),
('^(?:[a-z](?<![aeiou]{3}))+$', 'strength', true),
('^(?:[a-z](?<![aeiou]{3}))+$', 'queue', false),
('^(?:[a-z](?<![aeiou]{3}))+$', 'beautiful', false),
('(?<=a+?)b(?=c*?$)', 'abcc', true),
('(?<=a+?)b(?=c*?$)', 'ab', true),
('(?<=a+?)b(?=c*?$)', 'abd', false),
('(?<=a+?)b(?=c*?$)', 'b', false)
;
SELECT p, t, js, docmodel.schema_valid(jsonb_build_object('pattern', p), to_jsonb(t)) AS valid
  FROM known;
SELECT count(*) AS cases,
       count(*) FILTER (WHERE docmodel.schema_valid(jsonb_build_object('pattern', p), to_jsonb(t)) <> js) AS disagreements
  FROM known;

\echo == patternProperties, propertyNames and format regex read lookarounds too
SELECT docmodel.schema_valid('{"patternProperties": {"^(?!x-)": {"type": "integer"}}}', d) AS valid, d
  FROM unnest(ARRAY['{"a": 1}', '{"a": "s"}', '{"x-a": "s"}']::jsonb[]) AS d;
SELECT docmodel.schema_valid('{"propertyNames": {"pattern": "^(?!.*__)(?<!_)[a-z_]+(?<!_)$"}}', d) AS valid, d
  FROM unnest(ARRAY['{"a_b": 1}', '{"a__b": 1}', '{"ab_": 1}']::jsonb[]) AS d;
SELECT v, docmodel.schema_valid('{"format": "regex"}', to_jsonb(v)) AS valid
  FROM unnest(ARRAY['(?<=a)b', '(?!a)', '(?=a)*', '(?<!a)+', '(?<=a']) AS v;

\echo == ECMA-262 with the u flag: a lookaround takes no quantifier (22023); a group holding one may
SELECT p, pg_temp.try(format($$SELECT docmodel.schema_valid(%L, '"a"')$$, jsonb_build_object('pattern', p)))
  FROM unnest(ARRAY['(?=a)*', '(?!a)+', '(?=a){2}', '(?<=a)?', '(?<!a)*', '(?<=a)*?', '(?=a', '(?<=a',
                    '(?<x', '(?<=)', '(?:(?=a))*', '((?<!b))+', '(?=(a))', '(?<=(?<n>a))b']) AS p;

\echo == backreferences stay refused (0A000), inside a lookaround too
SELECT p, pg_temp.try(format($$SELECT docmodel.schema_valid(%L, '"aa"')$$, jsonb_build_object('pattern', p)))
  FROM unnest(ARRAY['(a)(?=\1)', '(?<=(a)\1)', '(?<n>a)(?!\k<n>)']) AS p;

\echo == property test: random patterns and texts against the answers of node
CREATE TEMP TABLE generated(line text);
\copy generated FROM 'test/data/regex_lookaround.jsonl' WITH (FORMAT csv, QUOTE e'\x01', DELIMITER e'\x02')
CREATE FUNCTION pg_temp.answer(p text, t text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  RETURN docmodel.schema_valid(jsonb_build_object('pattern', p), to_jsonb(t))::text;
EXCEPTION WHEN invalid_parameter_value THEN RETURN 'error';
END $$;
CREATE TEMP TABLE property AS
SELECT l.line::jsonb->>0 AS p, c.c->>0 AS t, c.c->>1 AS js
  FROM generated l,
       jsonb_array_elements(CASE WHEN jsonb_typeof(l.line::jsonb->1) = 'array'
                                 THEN jsonb_path_query_array(l.line::jsonb, '$[1 to last]')
                                 ELSE jsonb_build_array(jsonb_build_array('', 'error')) END) AS c(c);
ALTER TABLE property ADD got text;
UPDATE property SET got = pg_temp.answer(p, t);
SELECT count(*) AS cases, count(DISTINCT p) AS patterns,
       count(*) FILTER (WHERE js = 'true') AS matching, count(*) FILTER (WHERE js = 'error') AS refused,
       count(*) FILTER (WHERE p ~ '\(\?<?[=!]') AS with_lookaround,
       count(*) FILTER (WHERE got IS DISTINCT FROM js) AS disagreements
  FROM property;
SELECT p, t, js, got FROM property WHERE got IS DISTINCT FROM js LIMIT 20;

\echo == linear time: 100,000 characters answer within a second
CREATE TEMP TABLE timed(p text, t text);
INSERT INTO timed VALUES
  ('^(?!.*\.\.)[a-z]+$', repeat('a', 100000)),
  ('^(?!.*\.\.)[a-z]+$', repeat('a.', 50000)),
  ('^(?!-)[A-Za-z0-9-]+(?<!-)$', repeat('a-', 50000) || 'a'),
  ('^((?!__).)*$', repeat('a_', 50000)),
  ('^((?!__).)*$', repeat('é_', 50000) || '_'),
  ('^(?:(?=(a|aa|a?a?)*b)a)*(?<=(?:a|a?a?)+)$', repeat('a', 100000)),
  ('^(?:(?!(?:a|b){0,50}c)[ab])*$', repeat('ab', 50000)),
  ('(?<=(?<!a(?=b))b)a$', repeat('ba', 50000));
CREATE FUNCTION pg_temp.timed(p text, t text, OUT valid boolean, OUT under_1s boolean)
    LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
  valid := docmodel.schema_valid(jsonb_build_object('pattern', p), to_jsonb(t));
  under_1s := clock_timestamp() - t0 < interval '1 s';
END $$;
SELECT p, length(t) AS len, (pg_temp.timed(p, t)).* FROM timed;

\echo == cancellable: statement_timeout stops a long lookaround pass
CREATE FUNCTION pg_temp.cancelled(p text, t text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
  PERFORM docmodel.schema_valid(jsonb_build_object('pattern', p), to_jsonb(t));
  RETURN 'finished';
EXCEPTION WHEN query_canceled THEN
  RETURN 'cancelled within 2 s: ' || (clock_timestamp() - t0 < interval '2 s');
END $$;
SET statement_timeout = '200ms';
SELECT pg_temp.cancelled('(?=c(?:a|b){0,3000})', repeat('a', 2000000)) AS lookahead;
SELECT pg_temp.cancelled('(?<=(?:a|b){0,3000}c)x', repeat('a', 2000000)) AS lookbehind;
RESET statement_timeout;

\echo == bounded: the states of the automata of all lookarounds count (54000 past 20,000), and their bits (54000 past 128 MB)
SELECT left(pg_temp.try(format($$SELECT docmodel.schema_valid(%L, '""')$$, jsonb_build_object('pattern', repeat('(?=a{100})', 250)))), 200) AS too_many_states;
SELECT pg_temp.try(format($$SELECT docmodel.schema_valid(%L, to_jsonb(repeat('a', 600000)))$$,
                          jsonb_build_object('pattern', repeat('(?=a)', 2000)))) AS too_many_bits;
SELECT docmodel.schema_valid(jsonb_build_object('pattern', repeat('(?=a)', 2000)), to_jsonb(repeat('a', 1000))) AS many_lookarounds;

\echo == NULLs and odd values
SELECT docmodel.schema_valid(NULL, '"a"') AS null_schema,
       docmodel.schema_valid('{"pattern": "(?<=a)b"}', NULL) AS null_instance,
       docmodel.schema_valid('{"pattern": "(?<=a)b"}', '1') AS not_a_string,
       docmodel.schema_valid('{"pattern": "(?<=a)b"}', '""') AS empty_string;
