-- Unicode property escapes in JSON Schema patterns (ECMA-262's \p{...} and
-- \P{...} with the u flag): General_Category by its long and short names
-- (groups included), Script and Script_Extensions, ECMA-262's binary
-- properties; negated with \P and [^...]; an unknown name refused when the
-- schema is compiled (22023 naming it). \d \w \s and . keep ECMA-262's
-- ASCII meanings.
\set SHOW_CONTEXT never
\i test/sql/include/try.sql

-- A string with its code points beyond ASCII written U+XXXX (psql's width
-- of marks, joiners and spaces differs between PostgreSQL majors).
CREATE FUNCTION pg_temp.shown(s text) RETURNS text LANGUAGE sql AS
$$SELECT string_agg(CASE WHEN ascii(c) > 127
                         THEN 'U+' || upper(lpad(to_hex(ascii(c)), 4, '0')) ELSE c END, '' ORDER BY n)
  FROM regexp_split_to_table(s, '') WITH ORDINALITY AS t(c, n)$$;

CREATE FUNCTION pg_temp.m(pattern text, s text) RETURNS boolean LANGUAGE sql AS
$$SELECT docmodel.schema_valid(jsonb_build_object('pattern', pattern), to_jsonb(s))$$;

\echo == General_Category: lone values, long and short names, gc= and General_Category=, groups
SELECT p, pg_temp.shown(s) AS s, pg_temp.m(p, s) AS matches
  FROM (VALUES ('^\p{Lu}$', 'A'), ('^\p{Lu}$', 'a'), ('^\p{Lu}$', 'Ä'), ('^\p{Uppercase_Letter}$', 'Σ'),
               ('^\p{Ll}+$', 'straße'), ('^\p{L}+$', 'École'), ('^\p{Letter}+$', '漢字かな'),
               ('^\p{L}+$', 'a1'), ('^\p{LC}$', 'ǅ'), ('^\p{Cased_Letter}$', 'ª'),
               ('^\p{Lt}$', 'ǅ'), ('^\p{Lo}$', 'ª'),
               ('^\p{Nd}+$', '٣٤'), ('^\p{digit}+$', '42'), ('^\p{N}$', '½'), ('^\p{Nd}$', '½'),
               ('^\p{gc=Lu}$', 'A'), ('^\p{General_Category=Lu}$', 'A'),
               ('^\p{gc=Uppercase_Letter}$', 'b'), ('^\p{General_Category=Letter}$', 'ж'),
               ('^\p{M}$', U&'\0301'), ('^\p{Combining_Mark}$', U&'\0301'), ('^\p{Mn}$', U&'\0301'),
               ('^\p{P}+$', '!?«»'), ('^\p{punct}+$', '¿'), ('^\p{S}+$', '€+'), ('^\p{Sc}$', '€'),
               ('^\p{Z}$', U&'\3000'), ('^\p{Zs}$', U&'\3000'), ('^\p{Zl}$', U&'\2028'),
               ('^\p{C}$', U&'\0378'), ('^\p{Cn}$', U&'\0378'), ('^\p{Unassigned}$', 'a'),
               ('^\p{Cc}$', U&'\0007'), ('^\p{cntrl}$', U&'\0007'), ('^\p{Co}$', U&'\E000'),
               ('^\p{So}$', U&'\+01F600')) AS t(p, s);

\echo == Script and Script_Extensions: sc=, Script=, scx=, Script_Extensions=, long and short values
SELECT p, pg_temp.shown(s) AS s, pg_temp.m(p, s) AS matches
  FROM (VALUES ('^\p{sc=Greek}+$', 'αβγ'), ('^\p{Script=Grek}+$', 'αβγ'), ('^\p{sc=Greek}$', 'a'),
               ('^\p{sc=Latn}+$', 'Zürich'), ('^\p{Script=Latin}$', 'ж'), ('^\p{sc=Cyrl}$', 'ж'),
               ('^\p{sc=Han}+$', '漢字'), ('^\p{sc=Hira}+$', 'かな'), ('^\p{sc=Zyyy}$', '1'),
               ('^\p{sc=Common}$', U&'\3001'), ('^\p{sc=Hani}$', U&'\3001'),
               ('^\p{scx=Hani}$', U&'\3001'), ('^\p{Script_Extensions=Hira}$', U&'\3001'),
               ('^\p{scx=Zyyy}$', U&'\3001'), ('^\p{scx=Latn}$', U&'\3001'),
               ('^\p{sc=Inherited}$', U&'\0342'), ('^\p{sc=Zinh}$', U&'\0342'), ('^\p{sc=Qaai}$', U&'\0342'),
               ('^\p{scx=Grek}$', U&'\0342'), ('^\p{sc=Grek}$', U&'\0342'), ('^\p{scx=Zinh}$', U&'\0342'),
               ('^\p{sc=Unknown}$', U&'\0378'), ('^\p{sc=Zzzz}$', 'a')) AS t(p, s);

\echo == binary properties, by name and alias
SELECT p, pg_temp.shown(s) AS s, pg_temp.m(p, s) AS matches
  FROM (VALUES ('^\p{ASCII}+$', 'abc~'), ('^\p{ASCII}$', 'é'), ('^\p{Any}$', U&'\+10FFFD'),
               ('^\p{Assigned}$', 'a'), ('^\p{Assigned}$', U&'\0378'),
               ('^\p{Alphabetic}+$', 'Ⅻé'), ('^\p{Alpha}$', '1'), ('^\p{AHex}+$', '09afAF'),
               ('^\p{ASCII_Hex_Digit}$', 'g'), ('^\p{Hex_Digit}$', U&'\FF21'),
               ('^\p{White_Space}$', U&'\0085'), ('^\p{space}$', U&'\00A0'), ('^\p{space}$', U&'\200B'),
               ('^\p{Emoji}$', U&'\+01F600'), ('^\p{Emoji_Presentation}$', U&'\+01F600'),
               ('^\p{Extended_Pictographic}$', U&'\+01F600'), ('^\p{ExtPict}$', 'a'),
               ('^\p{Emoji}$', '#'), ('^\p{EPres}$', '#'), ('^\p{Emoji_Modifier}$', U&'\+01F3FB'),
               ('^\p{Regional_Indicator}{2}$', U&'\+01F1F3\+01F1F4'),
               ('^\p{ID_Start}\p{ID_Continue}*$', 'x_1'), ('^\p{IDS}$', '1'),
               ('^\p{XID_Start}\p{XIDC}*$', 'été2'), ('^\p{Uppercase}$', 'Ⅻ'), ('^\p{Lower}$', 'ª'),
               ('^\p{Math}$', '+'), ('^\p{Dash}$', '—'), ('^\p{Ideographic}$', '漢'),
               ('^\p{Bidi_M}$', '('), ('^\p{Bidi_Mirrored}$', 'a'), ('^\p{CWKCF}$', 'A'),
               ('^\p{Changes_When_NFKC_Casefolded}$', 'a'), ('^\p{Default_Ignorable_Code_Point}$', U&'\200B'),
               ('^\p{Noncharacter_Code_Point}$', 'a'), ('^\p{Variation_Selector}$', U&'\FE0F')) AS t(p, s);

\echo == negated: capital P, [^...], inside classes, beside ranges and other escapes
SELECT p, pg_temp.shown(s) AS s, pg_temp.m(p, s) AS matches
  FROM (VALUES ('^\P{L}+$', '123'), ('^\P{L}+$', '12a'), ('^\P{Lu}$', 'a'),
               ('^[^\p{L}]+$', '1-2'), ('^[^\p{L}]$', 'é'), ('^[^\P{L}]+$', 'éa'), ('^[^\P{L}]$', '1'),
               ('^[\p{L}\p{Nd}_-]+$', 'ab_12-cd'), ('^[\p{L}\p{Nd}_-]+$', 'ab 12'),
               ('^[\P{ASCII}a]+$', 'aé漢'), ('^[\P{ASCII}a]+$', 'ab'),
               ('^[\p{sc=Greek}\p{scx=Hira}]+$', 'αかー'), ('^[\d\p{Lu}]+$', 'A1'),
               ('^\P{Any}$', 'a'), ('^[^\p{Any}]?$', ''), ('^\P{sc=Latn}$', 'ж'), ('^\P{scx=Hani}$', U&'\3001'),
               ('\p{Lu}{2,3}', 'xABx'), ('^\p{Lu}\p{Ll}+(?: \p{Lu}\p{Ll}+)*$', 'Ada Lovelace'),
               ('^\p{Lu}\p{Ll}+(?: \p{Lu}\p{Ll}+)*$', 'ada Lovelace')) AS t(p, s);

\echo == digits, word characters, spaces, the dot and word boundaries keep ECMA-262's meanings
SELECT p, pg_temp.shown(s) AS s, pg_temp.m(p, s) AS matches
  FROM (VALUES ('^\d$', '٣'), ('^\p{Nd}$', '٣'), ('^\w$', 'é'), ('^\p{L}$', 'é'), ('^\W$', 'é'),
               ('^\s$', U&'\00A0'), ('^\s$', U&'\FEFF'), ('^\s$', U&'\0085'), ('^\p{White_Space}$', U&'\FEFF'),
               ('^.$', U&'\+01F600'), ('^.$', E'\n'), ('^.$', U&'\2028'), ('\bé', ' é')) AS t(p, s);

\echo == patternProperties, a long text, the format regex
SELECT docmodel.schema_valid('{"patternProperties": {"^\\p{Lu}": {"type": "integer"}}}', d) AS valid, d
  FROM unnest(ARRAY['{"Été": 1}', '{"Été": "x"}', '{"été": "x"}']::jsonb[]) AS d;
SELECT pg_temp.m('^\p{L}+$', repeat('é', 100000)) AS long_letters,
       pg_temp.m('^(\p{L}|\p{Ll})*\p{Nd}$', repeat('ab', 50000)) AS long_no_digit;
SELECT f, docmodel.schema_valid('{"format": "regex"}', to_jsonb(f)) AS valid
  FROM unnest(ARRAY['\p{L}', '\p{scx=Hira}', '\p{Foo}', '\p{ascii}', '\P{Latin}']) AS f;

\echo == unknown or malformed property escapes: 22023 naming them, at compile
SELECT p, pg_temp.try(format($$SELECT docmodel.schema_valid(%L, '""')$$, jsonb_build_object('pattern', p)))
  FROM unnest(ARRAY['\p{Foo}', '\p{lu}', '\p{letter}', '\p{Latin}', '\p{Greek}', '\p{sc=Foo}', '\p{Script=Lu}',
                    '\p{General_Category=Latin}', '\p{ASCII=Y}', '\p{Lu=Lu}', '\p{gc}', '\p{sc}', '\p{WSpace}',
                    '\p{Block=Basic_Latin}', '\p{InBasic_Latin}', '\p{IsLatin}', '\p{L&}', '\p{ L}', '\p{gc = Lu}',
                    '\p{}', '\p{=Lu}', '\p{gc=}', '\p{L', '\pL', '\p', '[\p{Foo}]', '\P{Foo}', '[\p{L}-z]',
                    '\p{' || repeat('x', 100) || '}']) AS p;
SELECT pg_temp.try($$SELECT docmodel.register_schema('unicode_t', '1.0', '{"properties": {"name": {"pattern": "^\\p{Lu}\\p{Nope}"}}}')$$);
SELECT docmodel.register_schema('unicode_t', '1.0', '{"properties": {"name": {"pattern": "^\\p{Lu}\\p{Ll}*$"}}}');
SELECT d, docmodel.validate(d) AS valid
  FROM unnest(ARRAY['{"_type": "unicode_t", "_schema": "1.0", "name": "Émile"}',
                    '{"_type": "unicode_t", "_schema": "1.0", "name": "émile"}']::jsonb[]) AS d;
SELECT docmodel.drop_schema('unicode_t', '1.0');
