-- Revisions, part 1: docmodel.diff and docmodel.patch (RFC 6902).
\i test/sql/include/try.sql

-- diff: what the patch looks like (objects by member, arrays by position).
SELECT docmodel.diff('{"a": 1, "b": 2}', '{"a": 1, "b": 2}') AS same;
SELECT docmodel.diff('{"a": 1, "b": 2}', '{"a": 1.0, "b": 2}') AS numerically_same;
SELECT docmodel.diff('{"a": 1, "b": {"c": [1, 2]}}', '{"b": {"c": [1, 3, 4]}, "d": null}') AS nested;
SELECT docmodel.diff('[1, 2, 3, 4]', '[1]') AS shrink;
SELECT docmodel.diff('{"a/b": 1, "m~n": 2}', '{"a/b": 2}') AS escaped;
SELECT docmodel.diff('{"a": 1}', '[1]') AS root_kind, docmodel.diff('1', '"x"') AS root_scalar;
SELECT docmodel.diff('{"a": {"x": 1}}', '{"a": [1]}') AS kind_change;

-- Round trip: patch(a, diff(a, b)) = b, on many pairs.
CREATE TEMP TABLE revisions_pairs (n serial, a jsonb, b jsonb);
INSERT INTO revisions_pairs (a, b) VALUES
  ('{}', '{}'),
  ('{}', '{"a": 1}'),
  ('{"a": 1}', '{}'),
  ('{"a": 1, "b": [1, 2, {"c": "d"}]}', '{"a": 2, "b": [1, {"c": "e"}], "x": {"y": [true]}}'),
  ('{"name": "Joe Smith", "phones": ["1", "2"], "_ver": 3}',
   '{"firstName": "Joe", "lastName": "Smith", "phones": [{"type": "other", "number": "1"}], "_ver": 4}'),
  ('[1, 2, 3]', '[3, 2, 1, 0, -1]'),
  ('[[1, [2, [3]]]]', '[[1, [2, [4, 5]]], []]'),
  ('[{"a": 1}, {"b": 2}]', '[]'),
  ('{"a": {"b": {"c": {"d": 1}}}}', '{"a": {"b": {"c": {"d": 2, "e": [1]}}}}'),
  ('{"a/b": {"~": 1}, "": 0}', '{"a/b": {"~": 2, "/": 3}, "": [0]}'),
  ('{"a": null}', '{"a": false}'),
  ('"x"', '{"a": 1}'),
  ('{"a": 1}', '42'),
  ('null', 'null'),
  ('{"a": "ü ☃"}', '{"a": "ü ☃ ☃", "é": ["ß"]}'),
  ('{"deep": [[[[[[1]]]]]]}', '{"deep": [[[[[[1, 2]]]]]]}');
SELECT n, docmodel.patch(a, docmodel.diff(a, b)) = b AS round_trip,
       jsonb_array_length(docmodel.diff(a, b)) AS ops
FROM revisions_pairs ORDER BY n;
-- And on generated documents: random objects and arrays, 300 pairs.
SELECT count(*) AS pairs,
       count(*) FILTER (WHERE docmodel.patch(a, docmodel.diff(a, b)) = b) AS round_trips,
       count(*) FILTER (WHERE docmodel.diff(a, a) = '[]') AS empty_self_diffs
FROM (SELECT jsonb_build_object('k' || (i % 7), i % 3, 'arr', to_jsonb(array_fill(i % 5, ARRAY[i % 4])),
                                'o', jsonb_build_object('x', i % 2, 'y' || (i % 3), '{"z": [1, 2]}'::jsonb)) AS a,
             jsonb_build_object('k' || (i % 5), i % 4, 'arr', to_jsonb(array_fill(i % 3, ARRAY[i % 6])),
                                'o', jsonb_build_object('x', i % 3, 'y' || (i % 2), '{"z": [2]}'::jsonb)) AS b
      FROM generate_series(1, 300) i) g;

-- patch: every operation.
SELECT docmodel.patch('{"a": 1}', '[{"op": "add", "path": "/b", "value": [1]}]') AS add_member,
       docmodel.patch('{"a": 1}', '[{"op": "add", "path": "/a", "value": 2}]') AS add_replaces;
SELECT docmodel.patch('{"a": [1, 3]}', '[{"op": "add", "path": "/a/1", "value": 2}, {"op": "add", "path": "/a/-", "value": 4}, {"op": "add", "path": "/a/0", "value": 0}]') AS add_elements;
SELECT docmodel.patch('{"a": 1}', '[{"op": "add", "path": "", "value": [1]}]') AS add_root;
SELECT docmodel.patch('{"a": 1, "b": [1, 2, 3]}', '[{"op": "remove", "path": "/a"}, {"op": "remove", "path": "/b/1"}]') AS remove;
SELECT docmodel.patch('{"a": {"b": 1}}', '[{"op": "replace", "path": "/a/b", "value": {"c": 2}}, {"op": "replace", "path": "/a/b/c", "value": 3}]') AS replace,
       docmodel.patch('{"a": 1}', '[{"op": "replace", "path": "", "value": "x"}]') AS replace_root;
SELECT docmodel.patch('{"a": {"b": 1}, "c": [1, 2]}', '[{"op": "move", "from": "/a/b", "path": "/c/0"}, {"op": "move", "from": "/c", "path": "/d"}]') AS move,
       docmodel.patch('{"a": [1, 2, 3]}', '[{"op": "move", "from": "/a/0", "path": "/a/-"}]') AS move_in_array,
       docmodel.patch('{"a": 1}', '[{"op": "move", "from": "/a", "path": "/a"}]') AS move_to_itself;
SELECT docmodel.patch('{"a": {"b": [1]}}', '[{"op": "copy", "from": "/a", "path": "/c"}, {"op": "add", "path": "/c/b/-", "value": 2}]') AS copy_is_deep;
SELECT docmodel.patch('{"a": [1, {"b": 1.0}], "n": null}', '[{"op": "test", "path": "/a", "value": [1, {"b": 1}]}, {"op": "test", "path": "/n", "value": null}, {"op": "test", "path": "", "value": {"n": null, "a": [1, {"b": 1}]}}]') AS tests_pass;
SELECT docmodel.patch('{"a~b": 1, "c/d": 2}', '[{"op": "replace", "path": "/a~0b", "value": 3}, {"op": "remove", "path": "/c~1d"}]') AS escapes;
SELECT docmodel.patch('{"a": 1}', '[]') AS empty_patch, docmodel.patch('{"": {"": 1}}', '[{"op": "replace", "path": "//", "value": 2}]') AS empty_keys;
SELECT docmodel.patch('{"a": 1}', '[{"op": "add", "path": "/b", "value": 2, "extra": "ignored"}]') AS extra_members;
SELECT docmodel.patch(NULL, '[]') IS NULL AS strict;

-- Operations that cannot apply: 22000, naming index, op and path.
SELECT pg_temp.try($q$SELECT docmodel.patch('{"a": 1}', '[{"op": "test", "path": "/a", "value": 1}, {"op": "test", "path": "/a", "value": 2}]')$q$);
SELECT pg_temp.try($q$SELECT docmodel.patch('{"a": 1}', '[{"op": "remove", "path": "/b"}]')$q$);
SELECT pg_temp.try($q$SELECT docmodel.patch('{"a": 1}', '[{"op": "replace", "path": "/b", "value": 1}]')$q$);
SELECT pg_temp.try($q$SELECT docmodel.patch('{"a": 1}', '[{"op": "add", "path": "/b/c", "value": 1}]')$q$);
SELECT pg_temp.try($q$SELECT docmodel.patch('{"a": 1}', '[{"op": "add", "path": "/a/c", "value": 1}]')$q$);
SELECT pg_temp.try($q$SELECT docmodel.patch('{"a": [1]}', '[{"op": "add", "path": "/a/2", "value": 1}]')$q$);
SELECT pg_temp.try($q$SELECT docmodel.patch('{"a": [1]}', '[{"op": "remove", "path": "/a/1"}]')$q$);
SELECT pg_temp.try($q$SELECT docmodel.patch('{"a": [1]}', '[{"op": "remove", "path": "/a/-"}]')$q$);
SELECT pg_temp.try($q$SELECT docmodel.patch('{"a": [1]}', '[{"op": "replace", "path": "/a/01", "value": 1}]')$q$);
SELECT pg_temp.try($q$SELECT docmodel.patch('{"a": [1]}', '[{"op": "test", "path": "/a/x", "value": 1}]')$q$);
SELECT pg_temp.try($q$SELECT docmodel.patch('{"a": [1]}', '[{"op": "add", "path": "/a/99999999999", "value": 1}]')$q$);
SELECT pg_temp.try($q$SELECT docmodel.patch('{"a": 1}', '[{"op": "remove", "path": ""}]')$q$);
SELECT pg_temp.try($q$SELECT docmodel.patch('{"a": {"b": 1}}', '[{"op": "move", "from": "/a", "path": "/a/b/c"}]')$q$);
SELECT pg_temp.try($q$SELECT docmodel.patch('{"a": 1}', '[{"op": "move", "from": "/x", "path": "/y"}]')$q$);
SELECT pg_temp.try($q$SELECT docmodel.patch('{"a": 1}', '[{"op": "copy", "from": "/x", "path": "/y"}]')$q$);
SELECT pg_temp.try($q$SELECT docmodel.patch('"s"', '[{"op": "add", "path": "/a", "value": 1}]')$q$);

-- A malformed patch: 22023.
SELECT pg_temp.try($q$SELECT docmodel.patch('{}', '{"op": "add"}')$q$);
SELECT pg_temp.try($q$SELECT docmodel.patch('{}', '"x"')$q$);
SELECT pg_temp.try($q$SELECT docmodel.patch('{}', '[1]')$q$);
SELECT pg_temp.try($q$SELECT docmodel.patch('{}', '[{"path": "/a"}]')$q$);
SELECT pg_temp.try($q$SELECT docmodel.patch('{}', '[{"op": "frobnicate", "path": "/a"}]')$q$);
SELECT pg_temp.try($q$SELECT docmodel.patch('{}', '[{"op": 1, "path": "/a"}]')$q$);
SELECT pg_temp.try($q$SELECT docmodel.patch('{}', '[{"op": "add", "value": 1}]')$q$);
SELECT pg_temp.try($q$SELECT docmodel.patch('{}', '[{"op": "add", "path": "/a"}]')$q$);
SELECT pg_temp.try($q$SELECT docmodel.patch('{}', '[{"op": "test", "path": "/a"}]')$q$);
SELECT pg_temp.try($q$SELECT docmodel.patch('{}', '[{"op": "copy", "path": "/a"}]')$q$);
SELECT pg_temp.try($q$SELECT docmodel.patch('{}', '[{"op": "add", "path": "a", "value": 1}]')$q$);
SELECT pg_temp.try($q$SELECT docmodel.patch('{}', '[{"op": "add", "path": "/a~2", "value": 1}]')$q$);
SELECT pg_temp.try($q$SELECT docmodel.patch('{}', '[{"op": "move", "from": "x", "path": "/a"}]')$q$);
-- A failed patch changes nothing: the error aborts the whole call.
SELECT pg_temp.try($q$SELECT docmodel.patch('{"a": 1}', '[{"op": "remove", "path": "/a"}, {"op": "test", "path": "/a", "value": 1}]')$q$);
-- A scalar document: only the root can be tested or replaced.
SELECT docmodel.patch('1', '[{"op": "test", "path": "", "value": 1.0}, {"op": "replace", "path": "", "value": {"a": 1}}]') AS scalar_root;
