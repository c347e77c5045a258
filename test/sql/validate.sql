-- JSON Schema validation (src/jsonschema/validate.c): schema_valid and schema_errors
-- over any jsonb (2020-12 by default, draft-07 by $schema), every violation
-- with its instance path and schema path, the schema errors refused at
-- compile (22023 naming the schema path, 0A000 for what is out of scope),
-- and a CHECK constraint of a plain table.
\set SHOW_CONTEXT never
\i test/sql/include/try.sql

\echo == the user 3.0 schema: every violation listed, nested paths
CREATE TEMP TABLE s AS SELECT '{
  "type": "object",
  "required": ["first_name", "last_name"],
  "properties": {
    "first_name": {"type": "string", "minLength": 1},
    "last_name": {"type": "string", "maxLength": 5},
    "age": {"type": "integer", "minimum": 0, "exclusiveMaximum": 150},
    "email": {"type": "string", "format": "email"},
    "phones": {
      "type": "array", "maxItems": 3, "uniqueItems": true,
      "items": {
        "type": "object", "required": ["type", "number"],
        "additionalProperties": false,
        "properties": {
          "type": {"enum": ["home", "work", "mobile"]},
          "number": {"type": "string", "pattern": "^[0-9]{10}$"}
        }
      }
    }
  }
}'::jsonb AS schema;
SELECT docmodel.schema_valid(schema, '{"first_name": "Ada", "last_name": "Byron",
  "phones": [{"type": "home", "number": "0123456789"}]}') FROM s;
SELECT e.* FROM s, docmodel.schema_errors(schema, '{"first_name": "", "last_name": "Lovelace",
  "age": 150.5, "email": "ada@", "phones": [{"type": "home", "number": "0123456789"},
  {"type": "fax", "number": "12-34", "ext": 1}, {"type": "home", "number": "0123456789"}]}') e;
SELECT e.* FROM s, docmodel.schema_errors(schema, '[1]') e;
-- 1 and 1.0 are one value for enum, const and uniqueItems; 1.0 is an integer
SELECT docmodel.schema_valid('{"enum": [1]}', '1.0'), docmodel.schema_valid('{"const": {"a": [1]}}', '{"a": [1.00]}'),
       docmodel.schema_valid('{"uniqueItems": true}', '[1, 1.0]'), docmodel.schema_valid('{"type": "integer"}', '1.0'),
       docmodel.schema_valid('{"enum": [0]}', 'false');
-- member names with "/" and "~" are escaped in paths
SELECT * FROM docmodel.schema_errors('{"additionalProperties": {"type": "string"}}', '{"a/b": 1, "c~d": 2}');

\echo == keywords: applicators, refs and anchors, draft-07
SELECT * FROM docmodel.schema_errors('{"$defs": {"pos": {"type": "number", "minimum": 0},
  "name": {"$anchor": "nm", "type": "string"}},
  "properties": {"x": {"$ref": "#/$defs/pos"}, "n": {"$ref": "#nm"},
    "tree": {"$ref": "#"}}}', '{"x": -1, "n": 3, "tree": {"x": -2}}');
SELECT * FROM docmodel.schema_errors('{"anyOf": [{"type": "string"}, {"type": "null"}]}', '1')
UNION ALL SELECT * FROM docmodel.schema_errors('{"oneOf": [{"type": "number"}, {"minimum": 0}]}', '1')
UNION ALL SELECT * FROM docmodel.schema_errors('{"not": {"const": 1}}', '1')
UNION ALL SELECT * FROM docmodel.schema_errors('{"if": {"properties": {"k": {"const": "a"}}}, "then": {"required": ["a"]}, "else": {"required": ["b"]}}', '{"k": "z"}')
UNION ALL SELECT * FROM docmodel.schema_errors('{"contains": {"type": "string"}, "minContains": 2, "maxItems": 1}', '["a", 1]')
UNION ALL SELECT * FROM docmodel.schema_errors('{"prefixItems": [{"type": "string"}], "items": false}', '[1, 2]')
UNION ALL SELECT * FROM docmodel.schema_errors('{"dependentRequired": {"a": ["b"]}, "dependentSchemas": {"a": {"maxProperties": 1}}, "propertyNames": {"maxLength": 1}}', '{"a": 1, "cc": 2}')
UNION ALL SELECT * FROM docmodel.schema_errors('{"patternProperties": {"^x": {"type": "integer"}}, "minProperties": 3, "multipleOf": 2}', '{"xa": "s"}')
UNION ALL SELECT * FROM docmodel.schema_errors('false', '{}');
-- draft-07: items as an array, additionalItems, dependencies, definitions; $ref alone applies
SELECT * FROM docmodel.schema_errors('{"$schema": "http://json-schema.org/draft-07/schema#",
  "definitions": {"s": {"type": "string"}},
  "properties": {"t": {"items": [{"$ref": "#/definitions/s", "type": "number"}], "additionalItems": false},
                 "d": {"dependencies": {"a": ["b"], "c": {"required": ["e"]}}}}}',
  '{"t": ["x", 2], "d": {"a": 1, "c": 2}}');
-- formats: every format of 2020-12's format-assertion vocabulary is asserted, unknown formats
-- are annotations
SELECT f, docmodel.schema_valid(jsonb_build_object('format', f), to_jsonb(v)) AS valid
  FROM (VALUES ('date-time', '2024-02-29T12:00:00Z'), ('date-time', '2023-02-29T12:00:00Z'),
               ('date', '2024-13-01'), ('time', '23:59:60Z'), ('email', 'a.b@example.com'),
               ('uuid', '123e4567-e89b-12d3-a456-426614174000'), ('ipv4', '1.2.3.256'),
               ('ipv6', '::1'), ('uri', 'relative/path'), ('hostname', '-bad.example'),
               ('color', 'not a color')) AS t(f, v);
SELECT f, v, docmodel.schema_valid(jsonb_build_object('format', f), to_jsonb(v)) AS valid
  FROM (VALUES ('uri', 'not a uri'), ('uri', 'https://example.com/a?b#c'), ('uri', 'http://[v1.x]/'),
               ('uri-reference', '../a/b?c'), ('uri-reference', 'a:b:c\d'), ('uri-reference', '1a:b'),
               ('iri', 'http://ƒøø.ßår/?∂éœ'), ('iri', '/abc'), ('iri-reference', '#ƒrägmênt'),
               ('regex', '['), ('regex', '^[a-z0-9-_]+$'), ('regex', '(?<=a)b'), ('regex', '\a'),
               ('duration', 'P1Y2M3DT4H5M6S'), ('duration', 'P1Y2D'), ('duration', 'P2W'), ('duration', 'PT'),
               ('json-pointer', '/a~1b/0'), ('json-pointer', '/a~2'), ('json-pointer', 'a'),
               ('relative-json-pointer', '0#'), ('relative-json-pointer', '01/a'), ('relative-json-pointer', '2/x'),
               ('uri-template', 'http://example.com/{term:1}/{term}'), ('uri-template', '{a,,b}'),
               ('uri-template', '{var=def}'), ('idn-email', '실례@실례.테스트'), ('idn-email', 'user＠example.com'),
               ('idn-hostname', '실례.테스트'), ('idn-hostname', '-실례.com'), ('hostname', 'münchen.de'),
               ('idn-hostname', 'l·l'), ('idn-hostname', 'a·l'), ('idn-hostname', 'ה״'), ('idn-hostname', 'a״'),
               ('idn-hostname', '〮실례'), ('idn-hostname', '̀hello'), ('idn-hostname', '٠۰')) AS t(f, v);
-- a schema may make formats annotations (the spec's default without the format-assertion
-- vocabulary) at its root; assertion is docmodel's default
SELECT docmodel.schema_valid('{"x-docmodel-format": "annotation", "format": "uri"}', '"not a uri"') AS annotation,
       docmodel.schema_valid('{"x-docmodel-format": "assertion", "format": "uri"}', '"not a uri"') AS assertion;
SELECT pg_temp.try($$SELECT docmodel.schema_valid('{"x-docmodel-format": "maybe"}', '1')$$);
-- patterns are ECMA-262's: the simple ones on ASCII text take a fast path, the others the
-- automaton (the same pattern in a group): both give the same answers, and PostgreSQL's ~
-- agrees with them where the two languages mean the same (no line terminator in the text)
SELECT count(*) AS pairs, count(*) FILTER (WHERE fast IS DISTINCT FROM automaton) AS fast_vs_automaton,
       count(*) FILTER (WHERE CASE WHEN v ~ '\n' OR p = '[a-zA-Z0-9-_]+$' THEN false
                                   ELSE fast IS DISTINCT FROM (v ~ p COLLATE "C") END) AS disagree
  FROM (SELECT p, v, docmodel.schema_valid(jsonb_build_object('pattern', p), to_jsonb(v)) AS fast,
               docmodel.schema_valid(jsonb_build_object('pattern', '(?:' || p || ')'), to_jsonb(v)) AS automaton
          FROM unnest(ARRAY['^[0-9]{10}$', '^[^@]+@[^@]+$', '[a-c]+x?$', 'ab*c', '^\d{3}-\d{4}$',
                    '\w+\s\w+', '^.{2,4}$', 'x{0}', '^$', '', '[\-.]', '^[A-Z][a-z]*$', 'a.c',
                    '[^\w]', '^a?b?c?$', '^(ab)+$', 'colou?r', '\.', '^[\]a]$', '[a\]]+', 'a|b',
                    '^[^@]{2,}@', 'b{2,}', '^\S+$', '[a-zA-Z0-9-_]+$']) AS p,
               unnest(ARRAY['', '0123456789', '012345678', '01234567890', 'a@b', '@b', 'a@@b', 'abc',
                    'abbbc', 'ac', '123-4567', 'hello world', 'ab', 'abcde', 'A', 'Abc', 'aXc',
                    E'a\nc', '-', 'color', 'colour', 'ababab', 'é@x', ']a', 'a]', 'bbb',
                    E'tab\there', 'é', 'a-_9', 'a-z']) AS v) t;
-- ECMA-262's meanings: "." and "$" stop at line terminators, \d \w are ASCII, \s is Unicode's
-- white space, a "-" after a class range is literal, named groups, {n,} counts, \u escapes
SELECT p, v FROM unnest(ARRAY['^[0-9]{10}$', '^[^@]+@[^@]+$', '^.{2,4}$', '^\s$',
                              '^[a-zA-Z0-9-_]+$', '^(?<name>\${0,1}[A-Za-z]+[A-Za-z0-9]*)$',
                              '^\..+$', '^a{2,}$', '^\u00e9|\u{1F600}$', '^\d+$']) AS p,
       unnest(ARRAY['0123456789', 'a@b', 'é@x', 'abc', E'a\nc', E'abc\n', E'\u00a0', E'\u2003',
                    'a-_9', '$var1', '.env', 'aaa', '😀', '٣']) AS v
 WHERE docmodel.schema_valid(jsonb_build_object('pattern', p), to_jsonb(v)) ORDER BY 1, 2;
-- patternProperties keys are patterns too
SELECT docmodel.schema_valid('{"patternProperties": {"^\\..+$": {"type": "string"}}}', d)
  FROM unnest(ARRAY['{".a": "x"}', '{".a": 1}', '{"a.": 1}']::jsonb[]) AS d;
-- patterns run in time linear in the text (no backtracking), and are cancellable
SET statement_timeout = '1s';
SELECT docmodel.schema_valid('{"pattern": "^(a|aa|a?a?)*b$"}', to_jsonb(repeat('a', 100000))) AS nested_stars,
       docmodel.schema_valid('{"pattern": "^(\\w+\\s?)*$"}', to_jsonb(repeat('word ', 20000) || '!')) AS words;
SET statement_timeout = '200ms';
SELECT docmodel.schema_valid('{"pattern": "[ab]{1,9000}c"}', to_jsonb(repeat('a', 1000000)));
RESET statement_timeout;
-- embedded resources: "$id" below the root is a base URI "$ref" resolves against
SELECT docmodel.schema_valid('{"$defs": {"a": {"$id": "http://example.com/a.json", "type": "integer"}},
  "properties": {"x": {"$ref": "http://example.com/a.json"}}}', x) AS absolute
  FROM unnest(ARRAY['{"x": 1}', '{"x": "s"}']::jsonb[]) AS x;
SELECT docmodel.schema_valid('{"$id": "http://example.com/root.json",
  "$defs": {"b": {"$id": "dir/b.json", "$ref": "#/$defs/c", "$defs": {"c": {"type": "string"}}}},
  "properties": {"y": {"$ref": "dir/b.json"}, "z": {"$ref": "http://example.com/dir/b.json#/$defs/c"}}}', y)
  AS relative FROM unnest(ARRAY['{"y": "s", "z": "t"}', '{"y": 1}', '{"z": 2}']::jsonb[]) AS y;
SELECT docmodel.schema_valid('{"$defs": {"r": {"$id": "urn:example:r", "$anchor": "num", "type": "number"}},
  "properties": {"n": {"$ref": "urn:example:r#num"}}}', n) AS anchored
  FROM unnest(ARRAY['{"n": 1.5}', '{"n": "1.5"}']::jsonb[]) AS n;
-- an anchor is looked up in the resource its $ref names, not in another
SELECT pg_temp.try($$SELECT docmodel.schema_valid('{"$defs": {"r": {"$id": "urn:example:r", "$anchor": "num"}},
  "properties": {"n": {"$ref": "#num"}}}', '{}')$$);

\echo == schema errors: 22023 naming the schema path, 0A000 out of scope
SELECT pg_temp.try($$SELECT docmodel.schema_valid('{"properties": {"a": {"minLength": "3"}}}', '{}')$$);
SELECT pg_temp.try($$SELECT docmodel.schema_valid('{"properties": {"a": {"maxlength": 3}}}', '{}')$$);
SELECT pg_temp.try($$SELECT docmodel.schema_valid('{"requird": ["a"]}', '{}')$$);
SELECT pg_temp.try($$SELECT docmodel.schema_valid('{"type": "text"}', '{}')$$);
SELECT pg_temp.try($$SELECT docmodel.schema_valid('{"items": [{"type": "string"}]}', '[]')$$);
SELECT pg_temp.try($$SELECT docmodel.schema_valid('{"pattern": "(unclosed"}', '""')$$);
SELECT pg_temp.try($$SELECT docmodel.schema_valid('{"multipleOf": 0}', '1')$$);
SELECT pg_temp.try($$SELECT docmodel.schema_valid('{"required": ["a", "a"]}', '{}')$$);
SELECT pg_temp.try($$SELECT docmodel.schema_valid('{"allOf": []}', '{}')$$);
SELECT pg_temp.try($$SELECT docmodel.schema_valid('{"$ref": "#/$defs/missing"}', '{}')$$);
SELECT pg_temp.try($$SELECT docmodel.schema_valid('{"$ref": "#nope"}', '{}')$$);
SELECT pg_temp.try($$SELECT docmodel.schema_valid('[]', '{}')$$);
-- a $ref loop that never descends into the value (validation would not end): the schema is
-- accepted, and a document is refused only when it reaches the loop (both paths named)
SELECT pg_temp.try($$SELECT docmodel.schema_valid('{"$defs": {"a": {"anyOf": [{"type": "null"}, {"$ref": "#/$defs/a"}]}}}', '1')$$);
SELECT d, pg_temp.try(format($$SELECT docmodel.schema_valid(%L, %L)$$,
         '{"properties": {"x": {"$ref": "#/$defs/a"}}, "$defs": {"a": {"anyOf": [{"type": "null"}, {"$ref": "#/$defs/a"}]}}}', d))
  FROM unnest(ARRAY['{}', '{"x": null}', '{"x": 1}', '5']) AS d;
SELECT pg_temp.try($$SELECT count(*) FROM docmodel.schema_errors('{"properties": {"x": {"items": {"$ref": "#/$defs/X"}}},
  "$defs": {"X": {"allOf": [{"$ref": "#/$defs/X"}, {"type": "object"}]}}}', '{"x": [1]}')$$);
-- JSON Schema's "basic" output format: keywordLocation is the path taken (through $ref),
-- absoluteKeywordLocation the keyword's URI when its resource has one
SELECT jsonb_pretty(docmodel.schema_output('{"$id": "https://example.com/p", "$defs": {"n": {"type": "integer"}},
    "properties": {"a": {"$ref": "#/$defs/n"}, "b": {"maxLength": 2}}}', '{"a": "x", "b": "xyz"}'));
SELECT docmodel.schema_output('{"type": "object"}', '{}') AS valid,
       docmodel.schema_output('{"$defs": {"s": {"$id": "urn:s", "minimum": 3}}, "items": {"$ref": "urn:s"}}', '[1]') AS embedded;
-- a loop that descends (a tree) is no loop
SELECT docmodel.schema_valid('{"type": "object", "properties": {"child": {"$ref": "#"}, "n": {"type": "integer"}}}', d)
  FROM unnest(ARRAY['{"child": {"child": {"n": 1}}}', '{"child": {"child": {"n": "x"}}}']::jsonb[]) AS d;
-- an object schema without properties checks additional members (fuzz finding)
SELECT docmodel.schema_valid('{"required": ["a"], "additionalProperties": {"type": "integer"}}', '{"a": 1, "b": 2}');
SELECT pg_temp.try($$SELECT docmodel.schema_valid('{"$ref": "https://example.com/other.json"}', '{}')$$);
-- $dynamicRef goes to the outermost resource of the dynamic scope with its $dynamicAnchor:
-- a generic list whose items an extending schema fixes
SELECT d, docmodel.schema_valid('{"$id": "https://example.com/strings",
    "$ref": "list", "$defs": {"items": {"$dynamicAnchor": "item", "type": "string"},
    "list": {"$id": "list", "type": "array", "items": {"$dynamicRef": "#item"},
             "$defs": {"items": {"$dynamicAnchor": "item"}}}}}', d) AS valid
  FROM unnest(ARRAY['["a", "b"]', '["a", 1]']::jsonb[]) AS d;
-- 2019-09's $recursiveRef, the same through $recursiveAnchor
SELECT d, docmodel.schema_valid('{"$schema": "https://json-schema.org/draft/2019-09/schema",
    "$id": "https://example.com/strict-tree", "$recursiveAnchor": true,
    "$ref": "tree", "unevaluatedProperties": false,
    "$defs": {"tree": {"$id": "tree", "$recursiveAnchor": true, "type": "object",
              "properties": {"data": true, "children": {"type": "array", "items": {"$recursiveRef": "#"}}}}}}', d) AS valid
  FROM unnest(ARRAY['{"children": [{"data": 1}]}', '{"children": [{"daat": 1}]}']::jsonb[]) AS d;
-- unevaluatedProperties / unevaluatedItems: what the in-place applicators evaluated (allOf,
-- the anyOf / oneOf branches that pass, if/then/else, $ref, dependentSchemas) is not theirs
SELECT d, docmodel.schema_valid('{"allOf": [{"properties": {"a": true}}],
    "anyOf": [{"properties": {"b": {"type": "integer"}}}, {"required": ["c"], "properties": {"c": true}}],
    "if": {"required": ["t"]}, "then": {"properties": {"t": true, "u": true}},
    "dependentSchemas": {"d": {"properties": {"e": true}}},
    "unevaluatedProperties": false}', d) AS valid
  FROM unnest(ARRAY['{"a": 1}', '{"a": 1, "x": 1}', '{"b": 1}', '{"b": "s"}', '{"b": "s", "c": 1}',
                    '{"t": 1, "u": 2}', '{"u": 2}', '{"d": 1, "e": 1}', '{"e": 1}']::jsonb[]) AS d;
SELECT * FROM docmodel.schema_errors('{"$defs": {"base": {"properties": {"id": {"type": "integer"}}}},
    "$ref": "#/$defs/base", "properties": {"name": true}, "unevaluatedProperties": {"type": "string"}}',
  '{"id": 1, "name": 2, "extra": 3, "more": "ok"}');
SELECT d, docmodel.schema_valid('{"prefixItems": [{"type": "integer"}], "allOf": [{"contains": {"type": "string"}}],
    "unevaluatedItems": false}', d) AS valid
  FROM unnest(ARRAY['[1]', '[1, "a", "b"]', '[1, "a", true]', '[]']::jsonb[]) AS d;
SELECT pg_temp.try($$SELECT docmodel.schema_valid('{"$schema": "http://json-schema.org/draft-04/schema#"}', '{}')$$);
-- draft 2019-09, picked by $schema: items as an array with additionalItems, $ref beside its
-- siblings, unevaluatedItems
SELECT d, docmodel.schema_valid('{"$schema": "https://json-schema.org/draft/2019-09/schema",
    "$defs": {"i": {"type": "integer"}}, "$ref": "#/$defs/i", "minimum": 2}', d) AS valid
  FROM unnest(ARRAY['1', '2', '"s"']::jsonb[]) AS d;
SELECT d, docmodel.schema_valid('{"$schema": "https://json-schema.org/draft/2019-09/schema",
    "items": [{"type": "integer"}], "additionalItems": {"type": "string"}, "unevaluatedItems": false}', d) AS valid
  FROM unnest(ARRAY['[1, "a"]', '[1, 2]', '["a"]']::jsonb[]) AS d;
SELECT pg_temp.try($$SELECT docmodel.schema_valid('{"pattern": "\\p{Letter}"}', '""')$$);
-- what cannot be matched exactly is refused, naming the construct; ECMA-262 syntax errors
SELECT p, pg_temp.try(format($$SELECT docmodel.schema_valid(%L, '""')$$, jsonb_build_object('pattern', p)))
  FROM unnest(ARRAY['(?=a)*', '(?<!a)?', '(a)\1', '(?<n>a)\k<n>', '[a-\d]',
                    '\-', '(?i)a', 'a{2,1}', 'a**', '\a', 'x{1000}{1000}', '(x{1000}){1000}', '\1', '[z-a]', '{']) AS p;
-- deeply nested groups compile in time linear in the pattern (fuzz finding: exponential)
SELECT docmodel.schema_valid(jsonb_build_object('pattern', repeat('(a', 40) || repeat(')', 40)),
                             to_jsonb(repeat('a', 40))) AS nested_groups,
       docmodel.schema_valid(jsonb_build_object('pattern', '^' || repeat('ab', 9000) || '$'),
                             to_jsonb(repeat('ab', 9000))) AS long_literal,
       docmodel.schema_valid(jsonb_build_object('pattern', '^(' || (SELECT string_agg('w' || g, '|') FROM generate_series(1, 2000) g) || ')$'),
                             '"w1999"') AS long_alternation;
-- a pattern's length is bounded (its parse is held in memory)
SELECT left(pg_temp.try(format($$SELECT docmodel.schema_valid(%L, '""')$$, jsonb_build_object('pattern', '[' || repeat('a', 70000) || ']'))), 80) AS long_pattern;

\echo == a CHECK constraint of a plain table
CREATE TABLE contacts (doc jsonb CHECK (docmodel.schema_valid(
  '{"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}', doc)));
INSERT INTO contacts SELECT jsonb_build_object('name', 'n' || i) FROM generate_series(1, 100) i;
SELECT pg_temp.try($$INSERT INTO contacts VALUES ('{"name": 1}')$$);
SELECT count(*) FROM contacts;
DROP TABLE contacts;

\echo == register_schema: the 3.0 schema of type person (the seed's user), checked when registered
SELECT docmodel.register_migration('person', '1.0', '2.0', steps => '[
  {"op": "split", "path": "/name", "into": ["/firstName", "/lastName"], "separator": " "}]');
SELECT docmodel.register_migration('person', '2.0', '3.0', steps => '[
  {"op": "wrap", "path": "/phone", "into": "/phones", "template": {"type": "mobile", "number": "$"}}]');
SELECT docmodel.register_schema('person', '3.0', '{
  "type": "object", "required": ["firstName", "lastName"],
  "properties": {
    "firstName": {"type": "string", "minLength": 1},
    "lastName": {"type": "string", "minLength": 1},
    "phones": {"type": "array", "maxItems": 2, "items": {
      "type": "object", "required": ["type", "number"],
      "properties": {"type": {"enum": ["home", "work", "mobile"]},
                     "number": {"type": "string", "pattern": "^[0-9]{10}$"}}}}}}');
SELECT doc_type, version, mode FROM docmodel.schemas;
SELECT pg_temp.try($$SELECT docmodel.register_schema('person', '3.0', '{"properties": {"phones": {"maxItems": -1}}}')$$);
SELECT pg_temp.try($$SELECT docmodel.register_schema('person', '3.0', '{"pattern": "(a)\\1"}')$$);
SELECT pg_temp.try($$SELECT docmodel.register_schema('person', '3.0', '{}', 'lenient')$$);
SELECT pg_temp.try($$SELECT docmodel.register_schema('', '3.0', '{}')$$);
SELECT pg_temp.try($$SELECT docmodel.register_schema('person', '3.0', NULL)$$);

\echo == strict: an invalid write is refused with its paths, nothing stored
SELECT docmodel.create_collection('vpeople');
SELECT docmodel.insert('vpeople', 'person::1', '{"_schema": "3.0", "firstName": "Ada", "lastName": "Byron",
  "phones": [{"type": "home", "number": "0123456789"}]}') > 0 AS inserted;
SELECT pg_temp.try($$SELECT docmodel.insert('vpeople', 'person::2', '{"_schema": "3.0", "firstName": "",
  "phones": [{"type": "fax", "number": "12"}]}')$$);
SELECT pg_temp.try($$UPDATE vpeople SET doc = doc || '{"phones": [{"type": "home", "number": "1"}, {}, {}]}' WHERE id = 'person::1'$$);
SELECT id, doc->'phones' AS phones FROM vpeople ORDER BY id;
-- validate() and validation_errors() read the document's own type and version
SELECT docmodel.validate(doc) FROM vpeople_documents;
SELECT * FROM docmodel.validation_errors('{"_type": "person", "_schema": "3.0", "firstName": 1, "lastName": "L", "phones": [{"type": "x", "number": "0123456789"}]}');
SELECT docmodel.validate('{"_type": "person", "_schema": "2.0", "anything": true}') AS no_schema_at_2_0;
SELECT pg_temp.try($$SELECT docmodel.validate('{"firstName": "no type"}')$$);

\echo == a 2.0 document written at 3.0: migrated first, then validated
SELECT docmodel.insert('vpeople', 'person::3', '{"_schema": "2.0", "firstName": "Bo", "lastName": "Lee", "phone": "0123456789"}') > 0 AS inserted;
SELECT doc->>'_schema' AS version, doc->'phones' AS phones FROM vpeople_documents WHERE id = 'person::3';
-- its 2.0 phone does not make a valid 3.0 phones item: refused after migration
SELECT pg_temp.try($$SELECT docmodel.insert('vpeople', 'person::4', '{"_schema": "2.0", "firstName": "Cy", "lastName": "Ng", "phone": "555-1234"}')$$);
-- a 1.0 document goes through both rules, then the 3.0 schema
SELECT pg_temp.try($$SELECT docmodel.insert('vpeople', 'person::5', '{"_schema": "1.0", "name": "Di", "phone": "0123456789"}')$$);

\echo == moderate: a valid document must stay valid, an invalid one may be updated
SELECT docmodel.register_schema('person', '3.0', (SELECT schema FROM docmodel.schemas WHERE doc_type = 'person'), 'off');
SELECT docmodel.insert('vpeople', 'person::6', '{"_schema": "3.0", "firstName": "", "lastName": "Old"}') > 0 AS stored_while_off;
SELECT docmodel.register_schema('person', '3.0', (SELECT schema FROM docmodel.schemas WHERE doc_type = 'person'), 'moderate');
SELECT pg_temp.try($$UPDATE vpeople SET doc = doc || '{"lastName": "Still invalid"}' WHERE id = 'person::6'$$);
SELECT pg_temp.try($$UPDATE vpeople SET doc = doc || '{"firstName": ""}' WHERE id = 'person::1'$$);
SELECT pg_temp.try($$SELECT docmodel.insert('vpeople', 'person::7', '{"_schema": "3.0", "firstName": ""}')$$);

\echo == warn: a WARNING, stored anyway
SELECT docmodel.register_schema('person', '3.0', (SELECT schema FROM docmodel.schemas WHERE doc_type = 'person'), 'warn');
SELECT docmodel.insert('vpeople', 'person::8', '{"_schema": "3.0", "lastName": "W"}') > 0 AS stored_with_warning;

\echo == drop_schema: writes are no longer checked
SELECT docmodel.drop_schema('person', '3.0'), docmodel.drop_schema('person', '3.0') AS again;
SELECT docmodel.insert('vpeople', 'person::9', '{"_schema": "3.0"}') > 0 AS inserted;
SELECT id FROM vpeople ORDER BY id;

\echo == migration_plan(validate => true) and migrate_collection against the 3.0 schema
SELECT docmodel.register_schema('person', '3.0', '{"required": ["firstName", "lastName"],
  "properties": {"phones": {"items": {"properties": {"number": {"pattern": "^[0-9]{10}$"}}}}}}');
CREATE TABLE vplain (id text COLLATE "C" PRIMARY KEY, doc jsonb NOT NULL);
INSERT INTO vplain VALUES
  ('person::a', '{"_type": "person", "_schema": "1.0", "name": "Ann Lee", "phone": "0123456789"}'),
  ('person::b', '{"_type": "person", "_schema": "2.0", "firstName": "Bo", "lastName": "Ng", "phone": "555-1234"}'),
  ('person::c', '{"_type": "person", "_schema": "1.0", "name": "Cher", "phone": "0123456789"}'),
  ('person::d', '{"_type": "person", "_schema": "3.0", "firstName": "D", "lastName": "E", "phones": []}'),
  ('note::1', '{"text": "no type"}');
SELECT * FROM docmodel.migration_plan('vplain', validate => true);
SELECT * FROM docmodel.migration_plan('vplain', validate => false);
-- the bulk run refuses the batch holding an invalid result: nothing of it written
SET client_min_messages = warning;
CALL docmodel.migrate_collection('vplain', batch_size => 10);
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
RESET client_min_messages;
SELECT status, error FROM docmodel.migration_runs WHERE coll = 'vplain'::regclass;
SELECT id, doc->>'_schema' AS version FROM vplain ORDER BY id;
-- fixed documents migrate
UPDATE vplain SET doc = doc || '{"phone": "0123456789"}' WHERE id = 'person::b';
UPDATE vplain SET doc = doc || '{"name": "Cher Sarkisian"}' WHERE id = 'person::c';
SELECT * FROM docmodel.migration_plan('vplain', validate => true);
SET client_min_messages = warning;
CALL docmodel.migrate_collection('vplain', batch_size => 10);
RESET client_min_messages;
SELECT id, doc->>'_schema' AS version, docmodel.validate(doc) FROM vplain WHERE id LIKE 'person%' ORDER BY id;
DELETE FROM docmodel.migration_run WHERE coll = 'vplain'::regclass;
DROP TABLE vplain;

\echo == privileges: only the owner of the extension writes the registry
CREATE ROLE validate_user;
GRANT USAGE ON SCHEMA docmodel TO validate_user;
SET ROLE validate_user;
SELECT pg_temp.try($$SELECT docmodel.register_schema('person', '3.0', '{}')$$);
SELECT pg_temp.try($$SELECT docmodel.drop_schema('person', '3.0')$$);
SELECT pg_temp.try($$INSERT INTO docmodel.schemas (doc_type, version, schema) VALUES ('x', '1', '{}')$$);
SELECT count(*) FROM docmodel.schemas;
RESET ROLE;
REVOKE USAGE ON SCHEMA docmodel FROM validate_user;
DROP ROLE validate_user;

-- leave no schema or rule behind for the suites that follow
SELECT docmodel.drop_schema('person', '3.0');
DELETE FROM docmodel.migration_rules WHERE doc_type = 'person';
SELECT docmodel.drop_collection('vpeople');

\echo == a collection with its own field names: the version is read where it names it
SELECT docmodel.create_collection('vrenamed', doc_type => 'gadget',
  fields => '{"type": "kind", "schema": "version"}') IS NOT NULL AS created;
SELECT docmodel.register_schema('gadget', '1.0', '{"required": ["name"]}');
SELECT docmodel.register_schema('gadget', '2.0', '{"required": ["label"]}');
-- a 1.0 document is checked against the 1.0 schema, not the newest
INSERT INTO vrenamed (id, doc) VALUES ('gadget::1', '{"version": "1.0", "name": "lamp"}');
SELECT pg_temp.try($$INSERT INTO vrenamed (id, doc) VALUES ('gadget::2', '{"version": "2.0", "name": "lamp"}')$$);
SELECT id, doc->>'version' AS version FROM vrenamed ORDER BY id;
-- the dry run reads type and version by the collection's names: a rule that
-- loses "label" is caught (by the names of another style it saw no type)
INSERT INTO vrenamed (id, doc) VALUES ('gadget::3', '{"version": "1.0", "name": "desk"}');
SELECT docmodel.register_migration('gadget', '1.0', '2.0', steps => '[
  {"op": "move", "from": "/name", "path": "/title"}]');
SELECT * FROM docmodel.migration_plan('vrenamed', validate => true);
DELETE FROM docmodel.migration_rules WHERE doc_type = 'gadget';
SELECT docmodel.drop_schema('gadget', '1.0'), docmodel.drop_schema('gadget', '2.0');
SELECT docmodel.drop_collection('vrenamed');
