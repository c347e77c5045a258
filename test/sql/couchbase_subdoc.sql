-- Couchbase's own sub-document tests, translated into SQL: subjson's
-- tests/t_path.cc and tests/t_ops.cc, kv_engine's
-- tests/testapp/testapp_subdoc.cc, testapp_subdoc_multipath.cc and
-- testapp_lock.cc, libcouchbase's tests/iotests/t_subdoc.cc (all in the
-- github.com/couchbase repositories). Each case names its upstream file and
-- test; Couchbase's answer is written as its SDK error name, compared with
-- docmodel's SQLSTATE for that name (README, "Sub-documents"). A document
-- is stored in an xattrs collection, whose body may be any JSON value (as
-- Couchbase's documents, top-level arrays included). The summary at the end
-- counts the cases and those that agree; every case that does not is one of
-- the README's deliberate differences.
\i test/sql/include/try.sql
SET docmodel.actor = 'couchbase';
SELECT docmodel.create_collection('cb', meta_style => 'xattrs') IS NOT NULL AS created;

-- Couchbase's error names and the SQLSTATEs docmodel gives them.
CREATE TEMP TABLE cb_state (name text PRIMARY KEY, states text[]);
INSERT INTO cb_state VALUES
  ('PathNotFound', '{2203A}'), ('PathExists', '{22030}'),
  ('PathMismatch', '{22039,2203C,22036}'), ('DocNotJson', '{2203C}'),
  ('PathInvalid', '{22023}'), ('PathTooBig', '{54000}'),
  ('ValueTooDeep', '{54000}'), ('DocTooDeep', '{54000}'),
  ('ValueInvalid', '{22023}'), ('DeltaInvalid', '{22023}'),
  ('NumberTooBig', '{22003}'), ('InvalidArgument', '{22023}'),
  ('DocumentNotFound', '{P0002}'), ('DocumentExists', '{23505}'),
  ('CasMismatch', '{40001}'), ('DocumentLocked', '{55P03}'),
  ('DocumentNotLocked', '{55000}');
-- Every case: its source, what it does, Couchbase's answer, docmodel's.
CREATE TEMP TABLE cb_case (n serial, src text, what text, expect text, got text, agree boolean);

-- An expected answer: an error name or '' as it is, a JSON value as jsonb prints it.
CREATE FUNCTION pg_temp.norm(expect text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  IF expect = '' OR EXISTS (SELECT FROM cb_state WHERE name = expect) THEN
    RETURN expect;
  END IF;
  RETURN (expect::jsonb)::text;
END $$;

-- Record a case; show it as one line.
CREATE FUNCTION pg_temp.record(src text, what text, expect text, got text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE ok boolean; st text[];
BEGIN
  SELECT states INTO st FROM cb_state WHERE name = expect;
  IF st IS NOT NULL THEN
    ok := split_part(got, ' ', 1) = ANY (st);
  ELSE
    ok := got = 'ok ' || expect;
  END IF;
  INSERT INTO cb_case (src, what, expect, got, agree) VALUES (src, what, expect, got, ok);
  RETURN format('%s %s: %s -> %s', CASE WHEN ok THEN 'agree' ELSE 'DIFFERS' END, src, what,
                CASE WHEN ok THEN coalesce(nullif(expect, ''), 'ok')
                     ELSE got || ' (Couchbase: ' || coalesce(nullif(expect, ''), 'ok') || ')' END);
END $$;

-- Run a statement returning jsonb: 'ok <result>' or '<SQLSTATE> <name>'.
CREATE FUNCTION pg_temp.outcome(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r jsonb; st text; det text;
BEGIN
  EXECUTE sql INTO r;
  RETURN 'ok ' || coalesce(r::text, 'null');
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, det = PG_EXCEPTION_DETAIL;
  RETURN st || ' ' || coalesce(substring(det FROM '^([A-Za-z]+):'), '');
END $$;

-- Store a document (Couchbase tests' store_document).
CREATE FUNCTION pg_temp.doc(key text, body text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM docmodel.upsert('cb', key, body::jsonb);
END $$;

-- One lookup spec: Couchbase's value (JSON text) or error name.
CREATE FUNCTION pg_temp.l(src text, key text, op text, path text, expect text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE got text; r jsonb;
BEGIN
  got := pg_temp.outcome(format('SELECT docmodel.lookup_in(%L, %L, %L)', 'cb', key,
                                jsonb_build_array(jsonb_build_object('op', op, 'path', path))));
  IF got = 'ok null' THEN
    got := 'P0002 DocumentNotFound';
  ELSIF got LIKE 'ok %' THEN
    r := substr(got, 4)::jsonb -> 0;
    got := CASE WHEN r ? 'value' THEN 'ok ' || (r -> 'value')::text
                ELSE (SELECT states[1] FROM cb_state WHERE name = r ->> 'error') || ' ' || (r ->> 'error') END;
  END IF;
  RETURN pg_temp.record(src, format('%s %s %s', key, op, to_jsonb(path)), pg_temp.norm(expect), got);
END $$;

-- Specs of one mutate_in: Couchbase's answer ('' success; a counter's value; an error name).
CREATE FUNCTION pg_temp.ms(src text, key text, specs jsonb, expect text,
                           sem text DEFAULT 'replace', cas bigint DEFAULT NULL) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE got text; r jsonb; e text;
BEGIN
  got := pg_temp.outcome(format('SELECT docmodel.mutate_in(%L, %L, %L, cas => %L, store_semantics => %L)',
                                'cb', key, specs, cas, sem));
  e := pg_temp.norm(expect);
  IF got LIKE 'ok %' THEN
    r := substr(got, 4)::jsonb -> 'results';
    got := CASE WHEN e = '' THEN 'ok '
                WHEN e LIKE '[%' THEN 'ok ' || r::text
                ELSE 'ok ' || coalesce((r -> -1 -> 'value')::text, '') END;
  END IF;
  RETURN pg_temp.record(src, format('%s %s', key, specs), e, got);
END $$;

-- One mutation spec (flags: 'p' create_path).
CREATE FUNCTION pg_temp.m(src text, key text, op text, path text, val text, expect text,
                          flags text DEFAULT '') RETURNS text LANGUAGE sql AS $$
  SELECT pg_temp.ms(src, key, jsonb_build_array(
    jsonb_build_object('op', op, 'path', path)
    || CASE WHEN val IS NULL THEN '{}'::jsonb
            WHEN op IN ('increment', 'decrement') THEN jsonb_build_object('delta', val::jsonb)
            ELSE jsonb_build_object('value', val::jsonb) END
    || CASE WHEN flags LIKE '%p%' THEN '{"create_path": true}'::jsonb ELSE '{}' END), expect)
$$;

-- The stored document (Couchbase tests' validate_json_document).
CREATE FUNCTION pg_temp.is(src text, key text, expect text) RETURNS text LANGUAGE sql AS $$
  SELECT pg_temp.record(src, key || ' is', (expect::jsonb)::text,
                        coalesce('ok ' || (SELECT doc::text FROM cb WHERE id = key), 'P0002 DocumentNotFound'))
$$;
\t on

-- A key-value call (any result): '' when it succeeds, else an error name.
CREATE FUNCTION pg_temp.kv(src text, what text, sql text, expect text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE got text;
BEGIN
  got := pg_temp.outcome('SELECT to_jsonb((' || sql || '))');
  RETURN pg_temp.record(src, what, expect, CASE WHEN got LIKE 'ok %' THEN 'ok ' ELSE got END);
END $$;
-- The cas get_and_lock returned, by key.
CREATE TEMP TABLE lock_cas (key text PRIMARY KEY, cas bigint);
CREATE FUNCTION pg_temp.lock(k text) RETURNS bigint LANGUAGE sql AS $$
  INSERT INTO lock_cas SELECT k, (docmodel.get_and_lock('cb', k)).cas
  ON CONFLICT (key) DO UPDATE SET cas = EXCLUDED.cas RETURNING cas
$$;
-- A condition on a call's outcome the case names.
CREATE FUNCTION pg_temp.check(src text, what text, ok boolean) RETURNS text LANGUAGE sql AS $$
  SELECT pg_temp.record(src, what, '', CASE WHEN ok THEN 'ok ' ELSE 'false' END)
$$;
-- make_nested_dict(n) of kv_engine's testapp_subdoc.cc: {"1": {"2": ... {}}}, n levels.
CREATE FUNCTION pg_temp.nest_dict(n int) RETURNS text LANGUAGE sql AS $$
  SELECT coalesce(string_agg(format('{"%s": ', d), '' ORDER BY d), '') || '{}' || repeat('}', n - 1)
  FROM generate_series(1, n - 1) AS d
$$;
-- "1.2. ... .n"
CREATE FUNCTION pg_temp.dict_path(n int) RETURNS text LANGUAGE sql AS $$
  SELECT string_agg(d::text, '.' ORDER BY d) FROM generate_series(1, n) AS d
$$;
-- genDeepPath(n, type) of subjson's t_ops.cc: "P0.P1. ... .P<n-1>", or ending ".[0]".
CREATE FUNCTION pg_temp.deep_path(n int, idx boolean) RETURNS text LANGUAGE sql AS $$
  SELECT string_agg('P' || d, '.' ORDER BY d) || CASE WHEN idx THEN '.[0]' ELSE '.P' || (n - 1) END
  FROM generate_series(0, n - 2) AS d
$$;

\echo == subjson tests/t_path.cc (PathTests), through get
SELECT pg_temp.doc('p', '{"foo": {"bar": {"baz": 1}}, "array": [0, {"item": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]}]}');
SELECT pg_temp.l('subjson t_path.cc testBasic', 'p', 'get', 'foo.bar.baz', '1');
SELECT pg_temp.l('subjson t_path.cc testBasic', 'p', 'get', '....', 'PathInvalid');
SELECT pg_temp.l('subjson t_path.cc testNumericIndices', 'p', 'get', 'array[1].item[9]', '9');
SELECT pg_temp.doc('p2', '{"foo": [[[7]]]}');
SELECT pg_temp.l('subjson t_path.cc testNumericIndices', 'p2', 'get', 'foo[0][0][0]', '7');
SELECT pg_temp.doc('p3', '[0, [0, 1, [0, 1, 2, 3]]]');
SELECT pg_temp.l('subjson t_path.cc testNumericIndices', 'p3', 'get', '[1][2][3]', '3');
SELECT pg_temp.doc('p4', '{"simple": {"escaped": {"path": 1}}, "escaped": {"arr.idx": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]},
  "BACKTICK`HAPPY": {"CAMPER": 2}, "trailing`": 3}');
SELECT pg_temp.l('subjson t_path.cc testEscapes', 'p4', 'get', '`simple`.`escaped`.`path`', '1');
SELECT pg_temp.l('subjson t_path.cc testEscapes', 'p4', 'get', 'escaped.`arr.idx`[9]', '9');
SELECT pg_temp.l('subjson t_path.cc testEscapes', 'p4', 'get', '`BACKTICK``HAPPY`.`CAMPER`', '2');
SELECT pg_temp.l('subjson t_path.cc testEscapes (MB-30278)', 'p4', 'get', 'trailing``', '3');
SELECT pg_temp.doc('p5', '{"foo": [[[1, 2], [3, 4]], [[5, 6], [7, 8]]]}');
SELECT pg_temp.l('subjson t_path.cc testNegativePath', 'p5', 'get', 'foo[-1][-1][-1]', '8');
SELECT pg_temp.l('subjson t_path.cc testNegativePath', 'p5', 'get', 'foo[-2]', 'PathInvalid');
SELECT pg_temp.l('subjson t_path.cc testInvalidSequence', 'p5', 'get', 'hello[0]world', 'PathInvalid');
SELECT pg_temp.l('subjson t_path.cc testInvalidSequence', 'p5', 'get', '[not][a][number]', 'PathInvalid');
SELECT pg_temp.doc('p6', '{"\"quoted": {"path": 4}, "F\u00fatbol": 5}');
SELECT pg_temp.l('subjson t_path.cc testJsonEscapes', 'p6', 'get', '"invalid.path', 'PathInvalid');
SELECT pg_temp.l('subjson t_path.cc testJsonEscapes', 'p6', 'get', '\"quoted.path', '4');
SELECT pg_temp.l('subjson t_path.cc testUtf8Path', 'p6', 'get', 'Fútbol', '5');

\echo == subjson tests/t_match.cc (MatchTests), through get, count and array_addunique
CREATE FUNCTION pg_temp.match_doc() RETURNS void LANGUAGE sql AS $$
  SELECT pg_temp.doc('match', '{"key1": "val1", "subdict": {"subkey1": "subval1"}, "sublist": ["elem1", "elem2", "elem3"],
    "nested_list": [["nested1", 2, 3, 4, 5, 6, 7, 8, 9, 0]], "empty_list": [], "numbers": [1, 2, 3, 4, 5, 6, 7, 8, 9, 0],
    "empty": {}, "U\u002DEscape": null}')
$$;
SELECT pg_temp.match_doc();
SELECT pg_temp.l('subjson t_match.cc ' || t, 'match', op, p, e)
FROM (VALUES (1, 'testToplevelDict', 'get', 'key1', '"val1"'),
             (2, 'testNestedDict', 'get', 'subdict.subkey1', '"subval1"'),
             (3, 'testArrayIndex', 'get', 'sublist[1]', '"elem2"'),
             (4, 'testMismatchArrayAsDict', 'get', 'key1[9]', 'PathMismatch'),
             (5, 'testMismatchDictAsArray', 'get', 'subdict[0]', 'PathMismatch'),
             (6, 'testMatchContainerValue', 'get', 'numbers', '[1,2,3,4,5,6,7,8,9,0]'),
             (7, 'testFinalComponentNotFound', 'get', 'empty.field', 'PathNotFound'),
             (8, 'testOOBArrayIndex', 'get', 'sublist[4]', 'PathNotFound'),
             (9, 'testAllComponentsNotFound', 'get', 'non.existent.path', 'PathNotFound'),
             (10, 'testSingletonComponentNotFound', 'get', 'toplevel', 'PathNotFound'),
             (11, 'testUescape', 'get', 'U-Escape', 'null'),
             (12, 'testGetLastElement', 'get', 'sublist[-1]', '"elem3"'),
             (13, 'testGetLastElement', 'get', 'nested_list[-1]', '["nested1",2,3,4,5,6,7,8,9,0]'),
             (14, 'testGetLastElement', 'count', 'nested_list[-1]', '10'),
             (15, 'testGetNumSiblings', 'get', 'nested_list[0][0]', '"nested1"'),
             (16, 'testNegativeIndex', 'get', 'sublist[-1]', '"elem3"'),
             (17, 'testNegativeIndex', 'get', 'nested_list[-1][-1]', '0')) AS v(n, t, op, p, e) ORDER BY n;
SELECT pg_temp.l('subjson t_match.cc testGetPosition', 'match', 'exists', p, 'true')
FROM (VALUES (1, 'key1'), (2, 'subdict'), (3, 'sublist'), (4, 'nested_list'), (5, 'empty_list'), (6, 'numbers'),
             (7, 'empty')) AS v(n, p) ORDER BY n;
-- ensure_unique: the element found (PathExists) or not (added; the document stored again after)
SELECT pg_temp.m('subjson t_match.cc testMatchUnique', 'match', 'array_addunique', p, v, e)
       || E'\n' || pg_temp.match_doc()::text
FROM (VALUES (1, 'empty_list', '"key"', ''), (2, 'numbers', '1', 'PathExists'), (3, 'numbers', '42', ''),
             (4, 'empty', '"foo"', 'PathMismatch'), (5, 'nested_list[-1]', '"foo"', '')) AS u(n, p, v, e) ORDER BY n;

\echo == subjson tests/t_ops.cc (OpTests)
-- SAMPLE_big_json (big_json.inc.h), the members the tests read
SELECT pg_temp.doc('brew', '{"name": "Allagash Brewing", "city": "Portland", "address": ["100 Industrial Way"],
  "geo": {"accuracy": "RANGE_INTERPOLATED", "lat": 43.7028, "lon": -70.3166}}');
SELECT pg_temp.l('subjson t_ops.cc testOperations', 'brew', 'get', 'name', '"Allagash Brewing"');
SELECT pg_temp.l('subjson t_ops.cc testOperations', 'brew', 'exists', 'name', 'true');
SELECT pg_temp.m('subjson t_ops.cc testOperations', 'brew', 'remove', 'address', NULL, '');
SELECT pg_temp.l('subjson t_ops.cc testOperations', 'brew', 'get', 'address', 'PathNotFound');
SELECT pg_temp.m('subjson t_ops.cc testOperations', 'brew', 'insert', 'address', '"123 Main St."', '');
SELECT pg_temp.l('subjson t_ops.cc testOperations', 'brew', 'get', 'address', '"123 Main St."');
SELECT pg_temp.m('subjson t_ops.cc testOperations', 'brew', 'replace', 'address', '"33 Marginal Rd."', '');
SELECT pg_temp.l('subjson t_ops.cc testOperations', 'brew', 'get', 'address', '"33 Marginal Rd."');
SELECT pg_temp.doc('brew', '{"name": "Allagash Brewing", "city": "Portland", "address": ["100 Industrial Way"]}');
SELECT pg_temp.m('subjson t_ops.cc testOperations', 'brew', 'insert', 'foo.bar.baz', '[1, 2, 3]', 'PathNotFound');
SELECT pg_temp.m('subjson t_ops.cc testOperations', 'brew', 'insert', 'foo.bar.baz', '[1, 2, 3]', '', 'p');
SELECT pg_temp.doc('brew', '{"name": "Allagash Brewing", "city": "Portland", "address": ["100 Industrial Way"]}');
SELECT pg_temp.m('subjson t_ops.cc testGenericOps', 'brew', 'remove', 'address[0]', NULL, '');
SELECT pg_temp.l('subjson t_ops.cc testGenericOps', 'brew', 'get', 'address[0]', 'PathNotFound');
SELECT pg_temp.m('subjson t_ops.cc testGenericOps', 'brew', 'replace', 'address', '["500 B St.", "Anytown", "USA"]', '');
SELECT pg_temp.l('subjson t_ops.cc testGenericOps', 'brew', 'get', 'address[2]', '"USA"');
SELECT pg_temp.m('subjson t_ops.cc testGenericOps', 'brew', 'replace', 'address[1]', '"Sacramento"', '');
SELECT pg_temp.l('subjson t_ops.cc testGenericOps', 'brew', 'get', 'address[1]', '"Sacramento"');
-- an array at the maximum depth: 31 arrays around 1
SELECT pg_temp.doc('deep', repeat('[', 31) || '1' || repeat(']', 31));
SELECT pg_temp.l('subjson t_ops.cc testReplaceArrayDeep', 'deep', 'get', repeat('[0]', 30), '[1]');
SELECT pg_temp.m('subjson t_ops.cc testReplaceArrayDeep', 'deep', 'replace', repeat('[0]', 31), '2', '');
SELECT pg_temp.l('subjson t_ops.cc testReplaceArrayDeep', 'deep', 'get', repeat('[0]', 30), '[2]');
SELECT pg_temp.m('subjson t_ops.cc testReplaceArrayDeep', 'deep', 'replace', repeat('[0]', 30), '[3, 4]', '');
SELECT pg_temp.l('subjson t_ops.cc testReplaceArrayDeep', 'deep', 'get', repeat('[0]', 30), '[3, 4]');
SELECT pg_temp.m('subjson t_ops.cc testReplaceArrayDeep', 'deep', 'replace', repeat('[0]', 30), '[[5]]', 'ValueTooDeep');

SELECT pg_temp.doc('list', '{}');
SELECT pg_temp.m('subjson t_ops.cc testListOps', 'list', 'upsert', 'array', '[]', '');
SELECT pg_temp.m('subjson t_ops.cc testListOps', 'list', 'array_append', 'array', '1', '');
SELECT pg_temp.l('subjson t_ops.cc testListOps', 'list', 'get', 'array[0]', '1');
SELECT pg_temp.m('subjson t_ops.cc testListOps', 'list', 'array_prepend', 'array', '0', '');
SELECT pg_temp.l('subjson t_ops.cc testListOps', 'list', 'get', 'array[0]', '0');
SELECT pg_temp.l('subjson t_ops.cc testListOps', 'list', 'get', 'array[1]', '1');
SELECT pg_temp.m('subjson t_ops.cc testListOps', 'list', 'array_append', 'array', '2', '');
SELECT pg_temp.l('subjson t_ops.cc testListOps', 'list', 'get', 'array[2]', '2');
SELECT pg_temp.m('subjson t_ops.cc testListOps', 'list', 'array_append', 'array', '{"foo": "bar"}', '');
SELECT pg_temp.l('subjson t_ops.cc testListOps', 'list', 'get', 'array[3].foo', '"bar"');
SELECT pg_temp.m('subjson t_ops.cc testListOps', 'list', 'remove', 'array[0]', NULL, '');
SELECT pg_temp.m('subjson t_ops.cc testListOps', 'list', 'remove', 'array[-1]', NULL, '');
SELECT pg_temp.m('subjson t_ops.cc testListOps', 'list', 'remove', 'array[-1]', NULL, '');
SELECT pg_temp.is('subjson t_ops.cc testListOps', 'list', '{"array": [1]}');
SELECT pg_temp.doc('list', '{}');
SELECT pg_temp.m('subjson t_ops.cc testListOps', 'list', 'array_prepend', 'array', '123', 'PathNotFound');
SELECT pg_temp.m('subjson t_ops.cc testListOps', 'list', 'array_prepend', 'array', '123', '', 'p');
SELECT pg_temp.l('subjson t_ops.cc testListOps', 'list', 'get', 'array[0]', '123');
SELECT pg_temp.m('subjson t_ops.cc testListOps', 'list', 'remove', 'array[0]', NULL, '');
SELECT pg_temp.m('subjson t_ops.cc testListOps', 'list', 'array_prepend', 'array', '123', '');
SELECT pg_temp.l('subjson t_ops.cc testListOps', 'list', 'get', 'array[0]', '123');

SELECT pg_temp.doc('multi', '{"array": [4, 5, 6]}');
SELECT pg_temp.ms('subjson t_ops.cc testArrayMultivalue', 'multi', '[{"op": "array_prepend", "path": "array", "values": [1, 2, 3]}]', '');
SELECT pg_temp.l('subjson t_ops.cc testArrayMultivalue', 'multi', 'get', 'array', '[1, 2, 3, 4, 5, 6]');
SELECT pg_temp.ms('subjson t_ops.cc testArrayMultivalue', 'multi', '[{"op": "array_append", "path": "array", "values": [7, 8, 9]}]', '');
SELECT pg_temp.l('subjson t_ops.cc testArrayMultivalue', 'multi', 'get', 'array', '[1, 2, 3, 4, 5, 6, 7, 8, 9]');
SELECT pg_temp.ms('subjson t_ops.cc testArrayMultivalue', 'multi', '[{"op": "array_insert", "path": "array[3]", "values": [-3, -2, -1]}]', '');
SELECT pg_temp.l('subjson t_ops.cc testArrayMultivalue', 'multi', 'get', 'array[4]', '-2');

SELECT pg_temp.doc('nested', '[0, [1, [2]], {"key": "val"}]');
SELECT pg_temp.m('subjson t_ops.cc testArrayOpsNested', 'nested', 'remove', '[1][1][0]', NULL, '');
SELECT pg_temp.is('subjson t_ops.cc testArrayOpsNested', 'nested', '[0, [1, []], {"key": "val"}]');
SELECT pg_temp.m('subjson t_ops.cc testArrayOpsNested', 'nested', 'remove', '[1][1]', NULL, '');
SELECT pg_temp.is('subjson t_ops.cc testArrayOpsNested', 'nested', '[0, [1], {"key": "val"}]');

SELECT pg_temp.doc('del', '[1, 2]');
SELECT pg_temp.m('subjson t_ops.cc testArrayDelete', 'del', 'remove', '[0]', NULL, '');
SELECT pg_temp.is('subjson t_ops.cc testArrayDelete', 'del', '[2]');
SELECT pg_temp.doc('del', '[1, 2]');
SELECT pg_temp.m('subjson t_ops.cc testArrayDelete', 'del', 'remove', '[1]', NULL, '');
SELECT pg_temp.is('subjson t_ops.cc testArrayDelete', 'del', '[1]');
SELECT pg_temp.doc('del', '[1]');
SELECT pg_temp.m('subjson t_ops.cc testArrayDelete', 'del', 'remove', '[0]', NULL, '');
SELECT pg_temp.is('subjson t_ops.cc testArrayDelete', 'del', '[]');
SELECT pg_temp.doc('del', '[1]');
SELECT pg_temp.m('subjson t_ops.cc testArrayDelete', 'del', 'remove', '[-1]', NULL, '');
SELECT pg_temp.is('subjson t_ops.cc testArrayDelete', 'del', '[]');

SELECT pg_temp.doc('dict', '{"0": 1, "1": 2.0}');
SELECT pg_temp.m('subjson t_ops.cc testDictDelete', 'dict', 'remove', '0', NULL, '');
-- Couchbase's exists answers PathNotFound, which the SDKs' exists() reads as false
SELECT pg_temp.l('subjson t_ops.cc testDictDelete', 'dict', 'exists', '0', 'false');

SELECT pg_temp.doc('uniq', '{}');
SELECT pg_temp.m('subjson t_ops.cc testUnique', 'uniq', 'array_addunique', 'unique', '"value"', '', 'p');
SELECT pg_temp.m('subjson t_ops.cc testUnique', 'uniq', 'array_addunique', 'unique', '"value"', 'PathExists');
SELECT pg_temp.m('subjson t_ops.cc testUnique', 'uniq', 'array_addunique', 'unique', '1', '');
SELECT pg_temp.m('subjson t_ops.cc testUnique', 'uniq', 'array_addunique', 'unique', '"1"', '');
SELECT pg_temp.m('subjson t_ops.cc testUnique', 'uniq', 'array_addunique', 'unique', '[]', 'ValueInvalid');
SELECT pg_temp.ms('subjson t_ops.cc testUnique', 'uniq', '[{"op": "array_addunique", "path": "unique", "values": [1, 2, 3]}]', 'ValueInvalid');
SELECT pg_temp.m('subjson t_ops.cc testUnique', 'uniq', 'array_append', 'unique', '[]', '');
SELECT pg_temp.m('subjson t_ops.cc testUnique', 'uniq', 'array_addunique', 'unique', '2', 'PathMismatch');
SELECT pg_temp.doc('uniq', '[]');
SELECT pg_temp.m('subjson t_ops.cc testUniqueToplevel', 'uniq', 'array_addunique', '', '0', '', 'p');
SELECT pg_temp.m('subjson t_ops.cc testUniqueToplevel', 'uniq', 'array_addunique', '', '0', 'PathExists', 'p');

SELECT pg_temp.doc('num', '{}');
SELECT pg_temp.m('subjson t_ops.cc testNumeric', 'num', 'increment', 'counter', '1', '1', 'p');
SELECT pg_temp.m('subjson t_ops.cc testNumeric', 'num', 'increment', 'counter', '-101', '-100');
SELECT pg_temp.l('subjson t_ops.cc testNumeric', 'num', 'get', 'counter', '-100');
SELECT pg_temp.m('subjson t_ops.cc testNumeric', 'num', 'increment', 'counter', '1', '-99');
SELECT pg_temp.m('subjson t_ops.cc testNumeric', 'num', 'increment', 'counter', '9223372036854775807', '9223372036854775708');
SELECT pg_temp.m('subjson t_ops.cc testNumeric', 'num', 'increment', 'counter', '-9223372036854775708', '0');
SELECT pg_temp.m('subjson t_ops.cc testNumeric', 'num', 'insert', 'counter2', '9999999999999999999999999999999', '', 'p');
SELECT pg_temp.m('subjson t_ops.cc testNumeric', 'num', 'increment', 'counter2', '1', 'NumberTooBig');
SELECT pg_temp.m('subjson t_ops.cc testNumeric', 'num', 'insert', 'counter3', '3.14', '', 'p');
SELECT pg_temp.m('subjson t_ops.cc testNumeric', 'num', 'increment', 'counter3', '1', 'PathMismatch');
SELECT pg_temp.doc('num', '[]');
SELECT pg_temp.m('subjson t_ops.cc testNumeric', 'num', 'increment', '[0]', '42', 'PathNotFound');
SELECT pg_temp.m('subjson t_ops.cc testNumeric', 'num', 'increment', '[0]', '42', 'PathNotFound', 'p');
SELECT pg_temp.m('subjson t_ops.cc testNumeric', 'num', 'array_append', '', '-20', '');
SELECT pg_temp.m('subjson t_ops.cc testNumeric', 'num', 'increment', '[0]', '1', '-19');
SELECT pg_temp.doc('num', '{"min": 0, "max": 0}');
SELECT pg_temp.m('subjson t_ops.cc MB57177', 'num', 'increment', 'min', '-9223372036854775808', '-9223372036854775808');
SELECT pg_temp.m('subjson t_ops.cc MB57177', 'num', 'increment', 'max', '9223372036854775807', '9223372036854775807');
-- the delta as given: a JSON string where it is not a JSON number
SELECT pg_temp.doc('num', '{}');
SELECT pg_temp.m('subjson t_ops.cc testBadNumFormat', 'num', 'increment', 'pth', '"bad"', 'DeltaInvalid', 'p');
SELECT pg_temp.m('subjson t_ops.cc testBadNumFormat', 'num', 'increment', 'pth', '3.14', 'DeltaInvalid', 'p');
SELECT pg_temp.m('subjson t_ops.cc testBadNumFormat', 'num', 'increment', 'pth', '"-"', 'DeltaInvalid', 'p');
SELECT pg_temp.m('subjson t_ops.cc testBadNumFormat', 'num', 'increment', 'pth', '"43f"', 'DeltaInvalid', 'p');
SELECT pg_temp.m('subjson t_ops.cc testBadNumFormat', 'num', 'increment', 'pth', '0', 'DeltaInvalid', 'p');
SELECT pg_temp.m('subjson t_ops.cc testBadNumFormat', 'num', 'increment', 'pth', '-0', 'DeltaInvalid', 'p');
SELECT pg_temp.m('subjson t_ops.cc testBadNumFormat', 'num', 'increment', 'pth', '"01"', 'DeltaInvalid', 'p');
SELECT pg_temp.doc('num', '{"counter": 9223372036854775806}');
SELECT pg_temp.m('subjson t_ops.cc testNumericLimits', 'num', 'increment', 'counter', '1', '9223372036854775807');
SELECT pg_temp.doc('num', '{"counter": 9223372036854775806}');
-- DELTA_OVERFLOW, which kv_engine answers as ValueCantInsert (the SDKs' ValueInvalid)
SELECT pg_temp.m('subjson t_ops.cc testNumericLimits', 'num', 'increment', 'counter', '2', 'ValueInvalid');
SELECT pg_temp.doc('num', '{"counter": -9223372036854775807}');
SELECT pg_temp.m('subjson t_ops.cc testNumericLimits', 'num', 'increment', 'counter', '-1', '-9223372036854775808');
SELECT pg_temp.doc('num', '{"counter": -9223372036854775807}');
SELECT pg_temp.m('subjson t_ops.cc testNumericLimits', 'num', 'increment', 'counter', '-2', 'ValueInvalid');

SELECT pg_temp.doc('neg', '[1, 2, 3, 4, 5, 6]');
SELECT pg_temp.l('subjson t_ops.cc testNegativeIndex', 'neg', 'get', '[-1]', '6');
SELECT pg_temp.doc('neg', '[1, 2, 3, [4, 5, 6, [7, 8, 9]]]');
SELECT pg_temp.l('subjson t_ops.cc testNegativeIndex', 'neg', 'get', '[-1].[-1].[-1]', '9');
SELECT pg_temp.m('subjson t_ops.cc testNegativeIndex', 'neg', 'remove', '[-1].[-1].[-1]', NULL, '');
SELECT pg_temp.m('subjson t_ops.cc testNegativeIndex', 'neg', 'array_append', '[-1].[-1]', '10', '');
SELECT pg_temp.l('subjson t_ops.cc testNegativeIndex', 'neg', 'get', '[-1].[-1].[-1]', '10');
SELECT pg_temp.doc('neg', '{"k1": ["first", {"k2": [6, 7, 8]}, "last"]}');
SELECT pg_temp.l('subjson t_ops.cc testNegativeIndex', 'neg', 'get', 'k1[-1]', '"last"');
SELECT pg_temp.l('subjson t_ops.cc testNegativeIndex', 'neg', 'get', 'k1[1].k2[-1]', '8');

SELECT pg_temp.doc('root', '[]');
SELECT pg_temp.l('subjson t_ops.cc testRootOps', 'root', 'get', '', '[]');
SELECT pg_temp.m('subjson t_ops.cc testRootOps', 'root', 'array_append', '', 'null', '');
SELECT pg_temp.l('subjson t_ops.cc testRootOps', 'root', 'get', '', '[null]');
SELECT pg_temp.m('subjson t_ops.cc testRootOps', 'root', 'remove', '', NULL, 'ValueInvalid');
SELECT pg_temp.doc('root', '{}');
SELECT pg_temp.m('subjson t_ops.cc testMismatch', 'root', 'array_append', '', 'null', 'PathMismatch');
SELECT pg_temp.doc('root', '[null]');
SELECT pg_temp.m('subjson t_ops.cc testMismatch', 'root', 'array_append', 'foo.bar', 'null', 'PathMismatch', 'p');
SELECT pg_temp.doc('root', '[ 1, 2, 3,       4        ]');
SELECT pg_temp.l('subjson t_ops.cc testWhitespace', 'root', 'get', '[-1]', '4');

SELECT pg_temp.doc('toodeep', '{"array": ' || repeat('[', 66) || repeat(']', 66) || '}');
SELECT pg_temp.l('subjson t_ops.cc testTooDeep', 'toodeep', 'get', 'dummy.path', 'DocTooDeep');
SELECT pg_temp.l('subjson t_ops.cc testTooDeep', 'toodeep', 'get', 'dummy' || repeat('.dummy', 66), 'PathTooBig');
SELECT pg_temp.doc('deepdict', pg_temp.nest_dict(32));
SELECT pg_temp.l('subjson t_ops.cc testTooDeepDict', 'deepdict', 'get', pg_temp.dict_path(31), '{}');
SELECT pg_temp.m('subjson t_ops.cc testTooDeepDict', 'deepdict', 'insert', pg_temp.dict_path(30) || '.sibling_max', '"also at max depth"', '');
SELECT pg_temp.m('subjson t_ops.cc testTooDeepDict', 'deepdict', 'insert', pg_temp.dict_path(31) || '.too_long', '"past max depth"', 'PathTooBig');

SELECT pg_temp.doc('ins', '[1, 2, 4, 5]');
SELECT pg_temp.m('subjson t_ops.cc testArrayInsert', 'ins', 'array_insert', '[2]', '3', '');
SELECT pg_temp.is('subjson t_ops.cc testArrayInsert', 'ins', '[1, 2, 3, 4, 5]');
SELECT pg_temp.m('subjson t_ops.cc testArrayInsert', 'ins', 'array_insert', '[0]', '0', '');
SELECT pg_temp.is('subjson t_ops.cc testArrayInsert', 'ins', '[0, 1, 2, 3, 4, 5]');
SELECT pg_temp.m('subjson t_ops.cc testArrayInsert', 'ins', 'array_insert', '[6]', '6', '');
SELECT pg_temp.is('subjson t_ops.cc testArrayInsert', 'ins', '[0, 1, 2, 3, 4, 5, 6]');
SELECT pg_temp.doc('ins', '[1, 2, 3, 5]');
SELECT pg_temp.m('subjson t_ops.cc testArrayInsert', 'ins', 'array_insert', '[-1]', '4', 'PathInvalid');
SELECT pg_temp.doc('ins', '[1, 2, 3]');
SELECT pg_temp.m('subjson t_ops.cc testArrayInsert', 'ins', 'array_insert', '[4]', 'null', 'PathNotFound');
SELECT pg_temp.m('subjson t_ops.cc testArrayInsert', 'ins', 'array_insert', '[0].anything', 'null', 'PathInvalid');
SELECT pg_temp.doc('ins', '{}');
SELECT pg_temp.m('subjson t_ops.cc testArrayInsert', 'ins', 'array_insert', 'non_exist[0]', 'null', 'PathNotFound');
SELECT pg_temp.m('subjson t_ops.cc testArrayInsert', 'ins', 'array_insert', '[0]', 'null', 'PathMismatch');

-- VALUE_EMPTY: kv_engine refuses a spec without its value (InvalidArgument)
SELECT pg_temp.ms('subjson t_ops.cc testEmpty', 'ins', jsonb_build_array(jsonb_build_object('op', op, 'path', p)), 'InvalidArgument')
FROM (VALUES ('insert', 'p'), ('upsert', 'p'), ('replace', 'p'), ('array_append', 'p'), ('array_prepend', 'p'),
             ('array_addunique', 'p'), ('array_insert', 'p[0]')) AS v(op, p);

SELECT pg_temp.doc('rep', '{}');
SELECT pg_temp.m('subjson t_ops.cc ensureRepeatable', 'rep', 'upsert', 'foo.bar', 'true', '', 'p');
SELECT pg_temp.m('subjson t_ops.cc ensureRepeatable', 'rep', 'upsert', 'bar.baz', 'false', '', 'p');

SELECT pg_temp.doc('dna', '[0, [10, 20, [100]], {"key": "value"}]');
SELECT pg_temp.l('subjson t_ops.cc testDeleteNestedArray', 'dna', 'get', '[1]', '[10, 20, [100]]');
SELECT pg_temp.m('subjson t_ops.cc testDeleteNestedArray', 'dna', 'remove', '[1][2][0]', NULL, '');
SELECT pg_temp.l('subjson t_ops.cc testDeleteNestedArray', 'dna', 'get', '[1]', '[10, 20, []]');
SELECT pg_temp.m('subjson t_ops.cc testDeleteNestedArray', 'dna', 'remove', '[1][2]', NULL, '');
SELECT pg_temp.l('subjson t_ops.cc testDeleteNestedArray', 'dna', 'get', '[1]', '[10, 20]');
SELECT pg_temp.m('subjson t_ops.cc testDeleteNestedArray', 'dna', 'remove', '[1]', NULL, '');
SELECT pg_temp.l('subjson t_ops.cc testDeleteNestedArray', 'dna', 'get', '[1]', '{"key": "value"}');

SELECT pg_temp.doc('esc', '{"\"quoted": true}');
SELECT pg_temp.l('subjson t_ops.cc testEscapedJson', 'esc', 'get', '\"quoted', 'true');
SELECT pg_temp.m('subjson t_ops.cc testEscapedJson', 'esc', 'upsert', 'another.\"nested.field', 'null', '', 'p');
SELECT pg_temp.is('subjson t_ops.cc testEscapedJson', 'esc', '{"\"quoted": true, "another": {"\"nested": {"field": null}}}');
SELECT pg_temp.l('subjson t_ops.cc testEscapedJson', 'esc', 'get', '"missing.quote', 'PathInvalid');

SELECT pg_temp.doc('uai', '{"array": [null]}');
SELECT pg_temp.m('subjson t_ops.cc testUpsertArrayIndex', 'uai', 'upsert', 'array[0]', 'true', 'PathInvalid');
SELECT pg_temp.m('subjson t_ops.cc testUpsertArrayIndex', 'uai', 'upsert', 'array[1]', 'true', 'PathInvalid');
SELECT pg_temp.m('subjson t_ops.cc testUpsertArrayIndex', 'uai', 'upsert', 'array[-1]', 'true', 'PathInvalid');
SELECT pg_temp.m('subjson t_ops.cc testUpsertArrayIndex', 'uai', 'array_append', 'array[1]', 'true', 'PathNotFound', 'p');
SELECT pg_temp.m('subjson t_ops.cc testUpsertArrayIndex', 'uai', 'array_append', 'array[2]', 'true', 'PathNotFound', 'p');
SELECT pg_temp.m('subjson t_ops.cc testUpsertArrayIndex', 'uai', 'array_addunique', 'array[2]', 'true', 'PathNotFound', 'p');
SELECT pg_temp.m('subjson t_ops.cc testUpsertArrayIndex', 'uai', 'increment', 'array[1]', '100', 'PathNotFound', 'p');
SELECT pg_temp.is('subjson t_ops.cc testUpsertArrayIndex', 'uai', '{"array": [null]}');

SELECT pg_temp.doc('ra', '[]');
SELECT pg_temp.m('subjson t_ops.cc testRootAppend', 'ra', 'array_append', '', '1', '');
SELECT pg_temp.l('subjson t_ops.cc testRootAppend', 'ra', 'get', '[0]', '1');
SELECT pg_temp.m('subjson t_ops.cc testRootAppend', 'ra', 'array_addunique', '', '1', 'PathExists');
SELECT pg_temp.m('subjson t_ops.cc testRootAppend', 'ra', 'array_append', '', '2', '');
SELECT pg_temp.l('subjson t_ops.cc testRootAppend', 'ra', 'get', '[1]', '2');
SELECT pg_temp.m('subjson t_ops.cc testRootAppend', 'ra', 'array_append', '', '3', '');
SELECT pg_temp.l('subjson t_ops.cc testRootAppend', 'ra', 'get', '[2]', '3');
SELECT pg_temp.doc('ra', '{}');
SELECT pg_temp.m('subjson t_ops.cc testRootAppend', 'ra', 'array_append', '', '123', 'PathMismatch');
SELECT pg_temp.doc('ra', '[[]]');
SELECT pg_temp.m('subjson t_ops.cc testRootAppend', 'ra', 'array_append', '[0]', '123', '');
SELECT pg_temp.l('subjson t_ops.cc testRootAppend', 'ra', 'get', '[0][0]', '123');
SELECT pg_temp.doc('ra', '[0, {"1": 1}]');
SELECT pg_temp.m('subjson t_ops.cc testRootAppend', 'ra', 'array_append', '', '123', '');
SELECT pg_temp.l('subjson t_ops.cc testRootAppend', 'ra', 'get', '[-1]', '123');

SELECT pg_temp.doc('gc', '{"array": [1, 2, 3, 4]}');
SELECT pg_temp.l('subjson t_ops.cc testGetCount', 'gc', 'count', 'array', '4');
SELECT pg_temp.l('subjson t_ops.cc testGetCount', 'gc', 'count', 'array[0]', 'PathMismatch');
SELECT pg_temp.doc('gc', '[]');
SELECT pg_temp.l('subjson t_ops.cc testGetCount', 'gc', 'count', '', '0');
SELECT pg_temp.doc('gc', '{}');
SELECT pg_temp.l('subjson t_ops.cc testGetCount', 'gc', 'count', 'non.exist.path', 'PathNotFound');
SELECT pg_temp.doc('gc', '{"a": "k"}');
SELECT pg_temp.l('subjson t_ops.cc testGetCount', 'gc', 'count', 'n', 'PathNotFound');
SELECT pg_temp.doc('gc', '{"array": [1]}');
SELECT pg_temp.l('subjson t_ops.cc testGetCount', 'gc', 'count', 'array', '1');
SELECT pg_temp.doc('gc', '{"array": [[]]}');
SELECT pg_temp.l('subjson t_ops.cc testGetCount', 'gc', 'count', 'array[-1]', '0');
SELECT pg_temp.l('subjson t_ops.cc testGetCount', 'gc', 'count', '', '1');
SELECT pg_temp.doc('gc', '{}');
SELECT pg_temp.l('subjson t_ops.cc testGetCount', 'gc', 'count', '', '0');
SELECT pg_temp.doc('gc', '{"a": 1, "b": 2}');
SELECT pg_temp.l('subjson t_ops.cc testGetCount', 'gc', 'count', '', '2');

-- a path of 32 levels (31 with an array op, whose value is one level below) is too big
SELECT pg_temp.doc('dp', '{}');
SELECT CASE WHEN op IN ('get', 'exists', 'count')
            THEN pg_temp.l('subjson t_ops.cc TestDeepPath', 'dp', op, pg_temp.deep_path(n, idx), e)
            ELSE pg_temp.m('subjson t_ops.cc TestDeepPath', 'dp', op, pg_temp.deep_path(n, idx),
                           CASE WHEN op = 'remove' THEN NULL ELSE '123' END, e) END
FROM (VALUES ('get', 32, true, 'PathTooBig'), ('get', 32, false, 'PathTooBig'),
             ('exists', 32, true, 'PathTooBig'), ('exists', 32, false, 'PathTooBig'),
             ('replace', 32, true, 'PathTooBig'), ('replace', 32, false, 'PathTooBig'),
             ('remove', 32, true, 'PathTooBig'), ('remove', 32, false, 'PathTooBig'),
             ('upsert', 32, false, 'PathTooBig'), ('insert', 32, false, 'PathTooBig'),
             ('array_prepend', 31, true, 'ValueTooDeep'), ('array_prepend', 31, false, 'ValueTooDeep'),
             ('array_append', 31, true, 'ValueTooDeep'), ('array_append', 31, false, 'ValueTooDeep'),
             ('array_addunique', 31, true, 'ValueTooDeep'), ('array_addunique', 31, false, 'ValueTooDeep'),
             ('array_insert', 32, true, 'PathTooBig'),
             ('increment', 32, true, 'PathTooBig'), ('increment', 32, false, 'PathTooBig'),
             ('count', 32, true, 'PathTooBig'), ('count', 32, false, 'PathTooBig')) AS v(op, n, idx, e);
-- one level less is not too big: the path is followed (to nothing, here)
SELECT CASE WHEN op IN ('get', 'count')
            THEN pg_temp.l('subjson t_ops.cc TestDeepPath', 'dp', op, pg_temp.deep_path(n, idx), e)
            ELSE pg_temp.m('subjson t_ops.cc TestDeepPath', 'dp', op, pg_temp.deep_path(n, idx), '123', e) END
FROM (VALUES ('get', 31, false, 'PathNotFound'), ('replace', 31, false, 'PathNotFound'),
             ('upsert', 31, false, 'PathNotFound'), ('array_append', 30, false, 'PathNotFound'),
             ('array_insert', 31, true, 'PathNotFound'), ('count', 31, true, 'PathNotFound')) AS v(op, n, idx, e);

SELECT pg_temp.doc('utf', '{}');
SELECT pg_temp.m('subjson t_ops.cc testUtf8Path', 'utf', 'upsert', 'Fútbol', '"value"', '');
SELECT pg_temp.l('subjson t_ops.cc testUtf8Path', 'utf', 'get', 'Fútbol', '"value"');

\echo == kv_engine tests/testapp/testapp_subdoc.cc (SubdocTestappTest)
SELECT pg_temp.doc('array', '[ 0, "one", 2.0 ]');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocGet_ArraySimple', 'array', 'get', p, e)
FROM (VALUES ('[0]', '0'), ('[1]', '"one"'), ('[2]', '2.0'), ('[-1]', '2.0'), ('[-2]', 'PathInvalid'),
             ('[3]', 'PathNotFound'), ('[9999]', 'PathNotFound'), ('missing_key', 'PathMismatch'),
             ('[2].nothing_here', 'PathMismatch'), (repeat('.', 1025), 'InvalidArgument')) AS v(p, e);
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocExists_ArraySimple', 'array', 'exists', p, e)
FROM (VALUES ('[0]', 'true'), ('[1]', 'true'), ('[2]', 'true'), ('[-1]', 'true'), ('[-2]', 'PathInvalid'),
             ('[3]', 'false'), ('[9999]', 'false'), ('missing_key', 'PathMismatch'),
             ('[2].nothing_here', 'PathMismatch'), (repeat('.', 1025), 'InvalidArgument')) AS v(p, e);
SELECT pg_temp.kv('kv_engine testapp_subdoc.cc SubdocGet_ArraySimple', 'get with Mkdir_p',
  $$docmodel.lookup_in('cb', 'array', '[{"op": "get", "path": "[0]", "create_path": true}]')$$, 'InvalidArgument');
SELECT pg_temp.doc('dict', '{ "int": 1, "string": "two", "true": true, "false": false }');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocGet_DictSimple', 'dict', 'get', p, e)
FROM (VALUES ('int', '1'), ('string', '"two"'), ('true', 'true'), ('false', 'false'),
             ('missing_key', 'PathNotFound'), ('[0]', 'PathMismatch'), ('[-1]', 'PathMismatch'),
             ('int.nothing_here', 'PathMismatch')) AS v(p, e);
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocExists_DictSimple', 'dict', 'exists', p, e)
FROM (VALUES ('int', 'true'), ('string', 'true'), ('true', 'true'), ('false', 'true'),
             ('missing_key', 'false'), ('[0]', 'PathMismatch'), ('[-1]', 'PathMismatch'),
             ('int.nothing_here', 'PathMismatch')) AS v(p, e);
SELECT pg_temp.doc('dict2', '{"name": {"title": "Mr", "first": "Joseph", "last": "Bloggs"},
  "orders": [{"date": "2020-04-04T18:17:04Z", "count": 0, "description": "Cool project #0"},
             {"date": "2020-04-04T18:17:04Z", "count": 3, "description": "Cool project #1"}]}');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocGet_DictNested', 'dict2', op, p, e)
FROM (VALUES ('get', 'name.title', '"Mr"'), ('get', 'name.first', '"Joseph"'), ('get', 'name.last', '"Bloggs"'),
             ('get', 'name', '{"title": "Mr", "first": "Joseph", "last": "Bloggs"}'),
             ('get', 'orders[0].date', '"2020-04-04T18:17:04Z"'), ('get', 'orders[1].count', '3'),
             ('exists', 'name.title', 'true'), ('exists', 'orders[0].date', 'true')) AS v(op, p, e);
SELECT pg_temp.doc('max_dict', pg_temp.nest_dict(32));
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocGet_DictDeep', 'max_dict', op, pg_temp.dict_path(31), e)
FROM (VALUES ('get', '{}'), ('exists', 'true')) AS v(op, e);
SELECT pg_temp.doc('too_deep_dict', pg_temp.nest_dict(33));
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocGet_DictDeep', 'too_deep_dict', op, pg_temp.dict_path(32), 'PathTooBig')
FROM (VALUES ('get'), ('exists')) AS v(op);
SELECT pg_temp.doc('max_array', repeat('[', 32) || repeat(']', 32));
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocGet_ArrayDeep', 'max_array', op, repeat('[0]', 31), e)
FROM (VALUES ('get', '[]'), ('exists', 'true')) AS v(op, e);
SELECT pg_temp.doc('too_deep_array', repeat('[', 33) || repeat(']', 33));
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocGet_ArrayDeep', 'too_deep_array', op, repeat('[0]', 32), 'PathTooBig')
FROM (VALUES ('get'), ('exists')) AS v(op);

-- test_subdoc_dict_add_simple, for insert (SubdocDictAdd) and upsert (SubdocDictUpsert)
CREATE TEMP TABLE key_vals (n int, k text, v text);
INSERT INTO key_vals VALUES (1, 'int', '2'), (2, 'float', '2.0'), (3, 'object', '{ "foo": "bar" }'),
  (4, 'array', '[ "a", "b", "c"]'), (5, 'true', 'true'), (6, 'false', 'false'), (7, 'null', 'null');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocDict' || t || '_Simple', 'nodict', op, 'int', '2', 'DocumentNotFound')
FROM (VALUES ('insert', 'Add'), ('upsert', 'Upsert')) AS v(op, t);
SELECT pg_temp.doc('dict_' || op, '{ "key1": 1 }') FROM (VALUES ('insert'), ('upsert')) AS v(op);
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocDict' || t || '_Simple', 'dict_' || op, op, k, v, '')
FROM (VALUES ('insert', 'Add'), ('upsert', 'Upsert')) AS o(op, t), key_vals ORDER BY op, n;
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocDict' || t || '_Simple', 'dict_' || op, 'get', k, v)
FROM (VALUES ('insert', 'Add'), ('upsert', 'Upsert')) AS o(op, t), key_vals ORDER BY op, n;
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocDict' || t || '_Simple', 'dict_' || op, op, k, v,
                 CASE op WHEN 'insert' THEN 'PathExists' ELSE '' END)
FROM (VALUES ('insert', 'Add'), ('upsert', 'Upsert')) AS o(op, t), key_vals ORDER BY op, n;
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocDict' || t || '_Simple', 'dict_' || op, op, 'intermediate.' || k, v, 'PathNotFound')
FROM (VALUES ('insert', 'Add'), ('upsert', 'Upsert')) AS o(op, t), key_vals ORDER BY op, n;
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocDict' || t || '_Simple', 'dict_' || op, op, 'intermediate_array[0].' || k, v, 'PathNotFound')
FROM (VALUES ('insert', 'Add'), ('upsert', 'Upsert')) AS o(op, t), key_vals ORDER BY op, n;
-- intermediate arrays are never created, even with Mkdir_p
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocDict' || t || '_Simple', 'dict_' || op, op, 'intermediate_array[0].' || k, v, 'PathNotFound', 'p')
FROM (VALUES ('insert', 'Add'), ('upsert', 'Upsert')) AS o(op, t), key_vals ORDER BY op, n;
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocDict' || t || '_Simple', 'dict_' || op, op, 'intermediate.' || k, v, '', 'p')
FROM (VALUES ('insert', 'Add'), ('upsert', 'Upsert')) AS o(op, t), key_vals ORDER BY op, n;
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocDict' || t || '_Simple', 'dict_' || op, 'get', 'intermediate.' || k, v)
FROM (VALUES ('insert', 'Add'), ('upsert', 'Upsert')) AS o(op, t), key_vals ORDER BY op, n;
-- cas: the current one applies, an old one or another does not
CREATE TEMP TABLE saved (name text PRIMARY KEY, cas bigint);
CREATE FUNCTION pg_temp.save(name text, k text) RETURNS void LANGUAGE sql AS $$
  INSERT INTO saved SELECT name, cas FROM cb WHERE id = k ON CONFLICT (name) DO UPDATE SET cas = EXCLUDED.cas
$$;
SELECT pg_temp.save('dict_' || op, 'dict_' || op) FROM (VALUES ('insert'), ('upsert')) AS v(op);
SELECT pg_temp.ms('kv_engine testapp_subdoc.cc SubdocDict' || t || '_Simple', 'dict_' || op,
                  jsonb_build_array(jsonb_build_object('op', op, 'path', 'new_int', 'value', 3)), '',
                  cas => (SELECT cas FROM saved WHERE name = 'dict_' || op))
FROM (VALUES ('insert', 'Add'), ('upsert', 'Upsert')) AS o(op, t);
SELECT pg_temp.ms('kv_engine testapp_subdoc.cc SubdocDict' || t || '_Simple', 'dict_' || op,
                  jsonb_build_array(jsonb_build_object('op', op, 'path', 'new_int2', 'value', 4)), 'CasMismatch',
                  cas => (SELECT cas FROM saved WHERE name = 'dict_' || op))
FROM (VALUES ('insert', 'Add'), ('upsert', 'Upsert')) AS o(op, t);
SELECT pg_temp.ms('kv_engine testapp_subdoc.cc SubdocDict' || t || '_Simple', 'dict_' || op,
                  jsonb_build_array(jsonb_build_object('op', op, 'path', 'new_int2', 'value', 4)), 'CasMismatch',
                  cas => (SELECT cas + 1 FROM cb WHERE id = 'dict_' || op))
FROM (VALUES ('insert', 'Add'), ('upsert', 'Upsert')) AS o(op, t);
SELECT pg_temp.doc('array', '[1,2]');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocDict' || t || '_Simple', 'array', op, 'foo', '"bar"', 'PathMismatch')
FROM (VALUES ('insert', 'Add'), ('upsert', 'Upsert')) AS o(op, t);
SELECT pg_temp.doc('string', '"string"');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocDict' || t || '_Simple', 'string', op, k, v, 'DocNotJson')
FROM (VALUES ('insert', 'Add'), ('upsert', 'Upsert')) AS o(op, t), key_vals ORDER BY op, n;

SELECT pg_temp.doc('deep_' || op, pg_temp.nest_dict(31)) FROM (VALUES ('insert'), ('upsert')) AS v(op);
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocDict' || t || '_Deep', 'deep_' || op, 'get', pg_temp.dict_path(30), '{}')
FROM (VALUES ('insert', 'Add'), ('upsert', 'Upsert')) AS o(op, t);
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocDict' || t || '_Deep', 'deep_' || op, op, pg_temp.dict_path(30) || '.' || k, v, '')
FROM (VALUES ('insert', 'Add'), ('upsert', 'Upsert')) AS o(op, t), key_vals WHERE k NOT IN ('object', 'array') ORDER BY op, n;
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocDict' || t || '_Deep', 'deep_' || op, 'get', pg_temp.dict_path(30) || '.' || k, v)
FROM (VALUES ('insert', 'Add'), ('upsert', 'Upsert')) AS o(op, t), key_vals WHERE k NOT IN ('object', 'array') ORDER BY op, n;

SELECT pg_temp.doc('del', '{"0": 1, "1": 2.0, "2": 3.141e3, "3": "four", "4": {"foo": "bar"}, "5": [1, 1, 1, 1], "6": true, "7": false}');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocDelete_Simple', 'del', 'remove', 'bad_key', NULL, 'PathNotFound');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocDelete_Simple', 'del', 'exists', k::text, 'true')
       || E'\n' || pg_temp.ms('kv_engine testapp_subdoc.cc SubdocDelete_Simple', 'del',
                              jsonb_build_array(jsonb_build_object('op', 'remove', 'path', k::text)), 'CasMismatch',
                              cas => (SELECT cas + 1 FROM cb WHERE id = 'del'))
       || E'\n' || pg_temp.l('kv_engine testapp_subdoc.cc SubdocDelete_Simple', 'del', 'exists', k::text, 'true')
       || E'\n' || pg_temp.m('kv_engine testapp_subdoc.cc SubdocDelete_Simple', 'del', 'remove', k::text, NULL, '')
       || E'\n' || pg_temp.l('kv_engine testapp_subdoc.cc SubdocDelete_Simple', 'del', 'exists', k::text, 'false')
FROM generate_series(0, 7) AS k;
SELECT pg_temp.is('kv_engine testapp_subdoc.cc SubdocDelete_Simple', 'del', '{}');

SELECT pg_temp.doc('a', '[0,1,2,3,4]');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocDelete_Array', 'a', 'get', '[2]', '2');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocDelete_Array', 'a', 'remove', '[5]', NULL, 'PathNotFound');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocDelete_Array', 'a', 'remove', '[4]', NULL, '');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocDelete_Array', 'a', 'get', '[2]', '2');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocDelete_Array', 'a', 'get', '[-1]', '3');
SELECT pg_temp.is('kv_engine testapp_subdoc.cc SubdocDelete_Array', 'a', '[0,1,2,3]');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocDelete_Array', 'a', 'remove', '[0]', NULL, '');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocDelete_Array', 'a', 'get', '[2]', '3');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocDelete_Array', 'a', 'get', '[-1]', '3');
SELECT pg_temp.is('kv_engine testapp_subdoc.cc SubdocDelete_Array', 'a', '[1,2,3]');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocDelete_Array', 'a', 'remove', '[-1]', NULL, '');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocDelete_Array', 'a', 'get', '[-1]', '2');
SELECT pg_temp.is('kv_engine testapp_subdoc.cc SubdocDelete_Array', 'a', '[1,2]');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocDelete_Array', 'a', 'remove', '[0]', NULL, '');
SELECT pg_temp.is('kv_engine testapp_subdoc.cc SubdocDelete_Array', 'a', '[2]');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocDelete_Array', 'a', 'remove', '[0]', NULL, '');
SELECT pg_temp.is('kv_engine testapp_subdoc.cc SubdocDelete_Array', 'a', '[]');

SELECT pg_temp.doc('b', '[0,[10,20,[100]],{"key":"value"}]');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocDelete_ArrayNested', 'b', 'get', '[1]', '[10,20,[100]]');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocDelete_ArrayNested', 'b', 'remove', '[1][2][0]', NULL, '');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocDelete_ArrayNested', 'b', 'get', '[1]', '[10,20,[]]');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocDelete_ArrayNested', 'b', 'remove', '[1][2]', NULL, '');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocDelete_ArrayNested', 'b', 'get', '[1]', '[10,20]');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocDelete_ArrayNested', 'b', 'remove', '[1]', NULL, '');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocDelete_ArrayNested', 'b', 'get', '[1]', '{"key":"value"}');

CREATE TEMP TABLE json_values (n int, v text);
INSERT INTO json_values VALUES (1, '1.1'), (2, '"value"'), (3, '{"inner":"dict"}'), (4, '[1,2]'),
  (5, 'true'), (6, 'false'), (7, 'null');
SELECT pg_temp.doc('rd', '{"key":0,"key2":1}');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocReplace_SimpleDict', 'rd', 'get', 'key', '0');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocReplace_SimpleDict', 'rd', 'replace', 'key', v, '')
       || E'\n' || pg_temp.l('kv_engine testapp_subdoc.cc SubdocReplace_SimpleDict', 'rd', 'get', 'key', v)
FROM json_values ORDER BY n;
SELECT pg_temp.is('kv_engine testapp_subdoc.cc SubdocReplace_SimpleDict', 'rd', '{"key":null,"key2":1}');
SELECT pg_temp.doc('ra', '[0,1]');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocReplace_SimpleArray', 'ra', 'get', '[0]', '0');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocReplace_SimpleArray', 'ra', 'replace', '[0]', v, '')
       || E'\n' || pg_temp.l('kv_engine testapp_subdoc.cc SubdocReplace_SimpleArray', 'ra', 'get', '[0]', v)
FROM json_values ORDER BY n;
SELECT pg_temp.is('kv_engine testapp_subdoc.cc SubdocReplace_SimpleArray', 'ra', '[null,1]');
SELECT pg_temp.doc('rad', repeat('[', 32) || repeat(']', 32));
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocReplace_ArrayDeep', 'rad', 'get', repeat('[0]', 31), '[]');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocReplace_ArrayDeep', 'rad', 'replace', repeat('[0]', 31), '"deep"', '');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocReplace_ArrayDeep', 'rad', 'get', repeat('[0]', 31), '"deep"');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocReplace_ArrayDeep', 'rad', 'replace', repeat('[0]', 31), '[0]', 'ValueTooDeep');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocReplace_ArrayDeep', 'rad', 'replace', '[0]', '[]', '');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocReplace_ArrayDeep', 'rad', 'get', '[0]', '[]');

-- SubdocArrayPushLast (array_append) and SubdocArrayPushFirst (array_prepend)
SELECT pg_temp.doc('pl', '[]');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocArrayPushLast_Simple', 'pl', 'array_append', '', '0', '');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocArrayPushLast_Simple', 'pl', 'get', '[0]', '0');
SELECT pg_temp.is('kv_engine testapp_subdoc.cc SubdocArrayPushLast_Simple', 'pl', '[0]');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocArrayPushLast_Simple', 'pl', 'array_append', '', '1', '');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocArrayPushLast_Simple', 'pl', 'get', '[1]', '1');
SELECT pg_temp.is('kv_engine testapp_subdoc.cc SubdocArrayPushLast_Simple', 'pl', '[0,1]');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocArrayPushLast_Simple', 'pl', 'array_append', '', '2', '');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocArrayPushLast_Simple', 'pl', 'get', '[2]', '2');
SELECT pg_temp.is('kv_engine testapp_subdoc.cc SubdocArrayPushLast_Simple', 'pl', '[0,1,2]');
SELECT pg_temp.save('pl', 'pl');
SELECT pg_temp.ms('kv_engine testapp_subdoc.cc SubdocArrayPushLast_Simple', 'pl', '[{"op": "array_append", "path": "", "value": 3}]', '',
                  cas => (SELECT cas FROM saved WHERE name = 'pl'));
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocArrayPushLast_Simple', 'pl', 'get', '[3]', '3');
SELECT pg_temp.is('kv_engine testapp_subdoc.cc SubdocArrayPushLast_Simple', 'pl', '[0,1,2,3]');
SELECT pg_temp.ms('kv_engine testapp_subdoc.cc SubdocArrayPushLast_Simple', 'pl', '[{"op": "array_append", "path": "", "value": 4}]', 'CasMismatch',
                  cas => (SELECT cas FROM saved WHERE name = 'pl'));
SELECT pg_temp.is('kv_engine testapp_subdoc.cc SubdocArrayPushLast_Simple', 'pl', '[0,1,2,3]');
SELECT pg_temp.doc('pl', '[]');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocArrayPushLast_Simple', 'pl', 'array_append', '', v, '')
       || E'\n' || pg_temp.l('kv_engine testapp_subdoc.cc SubdocArrayPushLast_Simple', 'pl', 'get', format('[%s]', n - 1), v)
FROM json_values ORDER BY n;
SELECT pg_temp.doc('pl', '[]');
SELECT pg_temp.ms('kv_engine testapp_subdoc.cc SubdocArrayPushLast_Simple', 'pl', '[{"op": "array_append", "path": "", "values": [0, 1]}]', '');
SELECT pg_temp.is('kv_engine testapp_subdoc.cc SubdocArrayPushLast_Simple', 'pl', '[0,1]');
SELECT pg_temp.ms('kv_engine testapp_subdoc.cc SubdocArrayPushLast_Simple', 'pl', '[{"op": "array_append", "path": "", "values": ["two", 3.141, {"four": 4}]}]', '');
SELECT pg_temp.is('kv_engine testapp_subdoc.cc SubdocArrayPushLast_Simple', 'pl', '[0,1,"two",3.141,{"four":4}]');
SELECT pg_temp.doc('pl', '{}');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocArrayPushLast_Simple', 'pl', 'array_append', 'foo', '0', '', 'p');
SELECT pg_temp.doc('pl', '[[]]');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocArrayPushLast_Nested', 'pl', 'array_append', '', '1', '');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocArrayPushLast_Nested', 'pl', 'get', '[0]', '[]');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocArrayPushLast_Nested', 'pl', 'get', '[1]', '1');
SELECT pg_temp.is('kv_engine testapp_subdoc.cc SubdocArrayPushLast_Nested', 'pl', '[[],1]');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocArrayPushLast_Nested', 'pl', 'array_append', '', '2', '');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocArrayPushLast_Nested', 'pl', 'get', '[2]', '2');
SELECT pg_temp.is('kv_engine testapp_subdoc.cc SubdocArrayPushLast_Nested', 'pl', '[[],1,2]');

SELECT pg_temp.doc('pf', '[]');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocArrayPushFirst_Simple', 'pf', 'array_prepend', '', '0', '');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocArrayPushFirst_Simple', 'pf', 'get', '[0]', '0');
SELECT pg_temp.is('kv_engine testapp_subdoc.cc SubdocArrayPushFirst_Simple', 'pf', '[0]');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocArrayPushFirst_Simple', 'pf', 'array_prepend', '', '1', '');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocArrayPushFirst_Simple', 'pf', 'get', '[0]', '1');
SELECT pg_temp.is('kv_engine testapp_subdoc.cc SubdocArrayPushFirst_Simple', 'pf', '[1,0]');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocArrayPushFirst_Simple', 'pf', 'array_prepend', '', '2', '');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocArrayPushFirst_Simple', 'pf', 'get', '[0]', '2');
SELECT pg_temp.is('kv_engine testapp_subdoc.cc SubdocArrayPushFirst_Simple', 'pf', '[2,1,0]');
SELECT pg_temp.save('pf', 'pf');
SELECT pg_temp.ms('kv_engine testapp_subdoc.cc SubdocArrayPushFirst_Simple', 'pf', '[{"op": "array_prepend", "path": "", "value": 3}]', '',
                  cas => (SELECT cas FROM saved WHERE name = 'pf'));
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocArrayPushFirst_Simple', 'pf', 'get', '[0]', '3');
SELECT pg_temp.is('kv_engine testapp_subdoc.cc SubdocArrayPushFirst_Simple', 'pf', '[3,2,1,0]');
SELECT pg_temp.ms('kv_engine testapp_subdoc.cc SubdocArrayPushFirst_Simple', 'pf', '[{"op": "array_prepend", "path": "", "value": 4}]', 'CasMismatch',
                  cas => (SELECT cas FROM saved WHERE name = 'pf'));
SELECT pg_temp.is('kv_engine testapp_subdoc.cc SubdocArrayPushFirst_Simple', 'pf', '[3,2,1,0]');
SELECT pg_temp.doc('pf', '[]');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocArrayPushFirst_Simple', 'pf', 'array_prepend', '', v, '')
       || E'\n' || pg_temp.l('kv_engine testapp_subdoc.cc SubdocArrayPushFirst_Simple', 'pf', 'get', '[0]', v)
FROM json_values ORDER BY n;
SELECT pg_temp.doc('pf', '[]');
SELECT pg_temp.ms('kv_engine testapp_subdoc.cc SubdocArrayPushFirst_Simple', 'pf', '[{"op": "array_prepend", "path": "", "values": [0, 1]}]', '');
SELECT pg_temp.is('kv_engine testapp_subdoc.cc SubdocArrayPushFirst_Simple', 'pf', '[0,1]');
SELECT pg_temp.ms('kv_engine testapp_subdoc.cc SubdocArrayPushFirst_Simple', 'pf', '[{"op": "array_prepend", "path": "", "values": ["two", 3.141, {"four": 4}]}]', '');
SELECT pg_temp.is('kv_engine testapp_subdoc.cc SubdocArrayPushFirst_Simple', 'pf', '["two",3.141,{"four":4},0,1]');
SELECT pg_temp.doc('pf', '{}');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocArrayPushFirst_Simple', 'pf', 'array_prepend', 'foo', '0', '', 'p');
SELECT pg_temp.doc('pf', '[[]]');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocArrayPushFirst_Nested', 'pf', 'array_prepend', '', '1', '');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocArrayPushFirst_Nested', 'pf', 'get', '[0]', '1');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocArrayPushFirst_Nested', 'pf', 'get', '[1]', '[]');
SELECT pg_temp.is('kv_engine testapp_subdoc.cc SubdocArrayPushFirst_Nested', 'pf', '[1,[]]');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocArrayPushFirst_Nested', 'pf', 'array_prepend', '', '2', '');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocArrayPushFirst_Nested', 'pf', 'get', '[0]', '2');
SELECT pg_temp.is('kv_engine testapp_subdoc.cc SubdocArrayPushFirst_Nested', 'pf', '[2,1,[]]');

SELECT pg_temp.doc('au', '[]');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocArrayAddUnique_Simple', 'au', 'array_addunique', '', '0', '');
SELECT pg_temp.is('kv_engine testapp_subdoc.cc SubdocArrayAddUnique_Simple', 'au', '[0]');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocArrayAddUnique_Simple', 'au', 'array_addunique', '', '0', 'PathExists');
SELECT pg_temp.is('kv_engine testapp_subdoc.cc SubdocArrayAddUnique_Simple', 'au', '[0]');
SELECT pg_temp.doc('au', '[0,1,2,3,4,5,6,7,8,9]');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocArrayAddUnique_Simple', 'au', 'array_addunique', '', '6', 'PathExists');
SELECT pg_temp.is('kv_engine testapp_subdoc.cc SubdocArrayAddUnique_Simple', 'au', '[0,1,2,3,4,5,6,7,8,9]');
-- 1.0 is not 1: Couchbase compares the values' text
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocArrayAddUnique_Simple', 'au', 'array_addunique', '', v, '')
FROM (VALUES (1, '"string"'), (2, '10'), (3, '1.0'), (4, 'true'), (5, 'false'), (6, 'null')) AS u(n, v) ORDER BY n;
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocArrayAddUnique_Simple', 'au', 'array_addunique', '', v, 'PathExists')
FROM (VALUES (1, '"string"'), (2, '10'), (3, '1.0'), (4, 'true'), (5, 'false'), (6, 'null')) AS u(n, v) ORDER BY n;
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocArrayAddUnique_Simple', 'au', 'array_addunique', '', v, 'ValueInvalid')
FROM (VALUES (1, '{"foo": "bar"}'), (2, '[0,1,2]')) AS u(n, v) ORDER BY n;
SELECT pg_temp.doc('au', '[{"a":"b"}]');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocArrayAddUnique_Simple', 'au', 'array_addunique', '', '1', 'PathMismatch');
SELECT pg_temp.doc('au', '[[1,2]]');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocArrayAddUnique_Simple', 'au', 'array_addunique', '', '3', 'PathMismatch');

SELECT pg_temp.doc('ai', '[]');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocArrayInsert_Simple', 'ai', 'array_insert', p, v, '')
       || E'\n' || pg_temp.is('kv_engine testapp_subdoc.cc SubdocArrayInsert_Simple', 'ai', d)
FROM (VALUES (1, '[0]', '2', '[2]'), (2, '[0]', '0', '[0,2]'), (3, '[1]', '1', '[0,1,2]'), (4, '[3]', '3', '[0,1,2,3]')) AS u(n, p, v, d) ORDER BY n;
SELECT pg_temp.doc('ai', '[]');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocArrayInsert_Invalid', 'ai', 'array_insert', '[1]', '0', 'PathNotFound');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocArrayInsert_Invalid', 'ai', 'array_insert', '[-1]', '3', 'PathInvalid');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocArrayInsert_Invalid', 'ai', 'array_insert', '[0]', '1', 'InvalidArgument', 'p');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocArrayInsert_Invalid', 'ai', 'array_insert', '[1]', '1', 'PathNotFound');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocArrayInsert_Invalid', 'ai', 'array_insert', '[0].foo', '1', 'PathInvalid');
SELECT pg_temp.is('kv_engine testapp_subdoc.cc SubdocArrayInsert_Invalid', 'ai', '[]');
SELECT pg_temp.doc('ai', '{}');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocArrayInsert_Invalid', 'ai', 'array_insert', '[0]', '0', 'PathMismatch');
SELECT pg_temp.is('kv_engine testapp_subdoc.cc SubdocArrayInsert_Invalid', 'ai', '{}');

SELECT pg_temp.doc('gc', '[]');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocGetCount', 'gc', 'count', '', '0');
SELECT pg_temp.doc('gc', '[1,2,3]');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocGetCount', 'gc', 'count', '', '3');
SELECT pg_temp.doc('gc', '{"k":"v"}');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocGetCount', 'gc', 'count', 'k', 'PathMismatch');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocGetCount', 'gc', 'count', 'n', 'PathNotFound');

SELECT pg_temp.doc('cn', '{}');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocCounter_Simple', 'cn', 'increment', 'key', d, r)
       || E'\n' || pg_temp.is('kv_engine testapp_subdoc.cc SubdocCounter_Simple', 'cn', format('{"key":%s}', r))
FROM (VALUES (1, '1', '1'), (2, '1', '2'), (3, '-2', '0'), (4, '-1', '-1')) AS u(n, d, r) ORDER BY n;
CREATE TEMP TABLE not_integer (n int, v text);
INSERT INTO not_integer VALUES (1, 'true'), (2, 'false'), (3, 'null'), (4, '"string"'), (5, '[0]'),
  (6, '{"foo": "bar"}'), (7, '1.1');
SELECT pg_temp.doc('cn' || n, format('{"key":%s}', v)) FROM not_integer;
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocCounter_InvalidNotInt', 'cn' || n, 'increment', 'key', '1', 'PathMismatch')
       || E'\n' || pg_temp.is('kv_engine testapp_subdoc.cc SubdocCounter_InvalidNotInt', 'cn' || n, format('{"key":%s}', v))
FROM not_integer ORDER BY n;
SELECT pg_temp.doc('b' || n, format('{"key":%s}', v))
FROM (VALUES (1, '9223372036854775808'), (2, '-9223372036854775809')) AS u(n, v);
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocCounter_InvalidERange', 'b' || n, 'increment', 'key', '1', 'NumberTooBig')
       || E'\n' || pg_temp.is('kv_engine testapp_subdoc.cc SubdocCounter_InvalidERange', 'b' || n, format('{"key":%s}', v))
FROM (VALUES (1, '9223372036854775808'), (2, '-9223372036854775809')) AS u(n, v) ORDER BY n;
SELECT pg_temp.doc('cl', '{"key":9223372036854775806}');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocCounter_Limits', 'cl', 'increment', 'key', '1', '9223372036854775807');
SELECT pg_temp.is('kv_engine testapp_subdoc.cc SubdocCounter_Limits', 'cl', '{"key":9223372036854775807}');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocCounter_Limits', 'cl', 'increment', 'key', '1', 'ValueInvalid');
SELECT pg_temp.doc('cl', '{"key":-9223372036854775807}');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocCounter_Limits', 'cl', 'increment', 'key', '-1', '-9223372036854775808');
SELECT pg_temp.is('kv_engine testapp_subdoc.cc SubdocCounter_Limits', 'cl', '{"key":-9223372036854775808}');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocCounter_Limits', 'cl', 'increment', 'key', '-1', 'ValueInvalid');
SELECT pg_temp.doc('ci', '{"key":10}');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocCounter_InvalidIncr', 'ci', 'increment', 'key', v, 'DeltaInvalid')
FROM not_integer ORDER BY n;
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocCounter_InvalidIncr', 'ci', 'increment', 'key', '0', 'DeltaInvalid');
SELECT pg_temp.is('kv_engine testapp_subdoc.cc SubdocCounter_InvalidIncr', 'ci', '{"key":10}');

-- Mkdoc: store_semantics upsert
SELECT pg_temp.ms('kv_engine testapp_subdoc.cc SubdocMkdoc_Array', 'mka', '[{"op": "array_prepend", "path": "", "value": 0}]', '', 'upsert');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocMkdoc_Array', 'mka', 'get', '[0]', '0');
SELECT pg_temp.ms('kv_engine testapp_subdoc.cc SubdocMkdoc_Array', 'mka', '[{"op": "array_append", "path": "", "value": 1}]', '', 'upsert');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocMkdoc_Array', 'mka', 'get', '[1]', '1');
SELECT pg_temp.ms('kv_engine testapp_subdoc.cc SubdocMkdoc_Dict', 'mkd', '[{"op": "upsert", "path": "foo", "value": 1}]', '', 'upsert');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocMkdoc_Dict', 'mkd', 'get', 'foo', '1');
SELECT pg_temp.ms('kv_engine testapp_subdoc.cc SubdocMkdoc_Dict', 'mkd', '[{"op": "upsert", "path": "bar", "value": 2}]', '', 'upsert');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocMkdoc_Dict', 'mkd', 'get', 'bar', '2');
-- Mkdoc implies Mkdir_p
SELECT pg_temp.ms('kv_engine testapp_subdoc.cc SubdocMkdoc_Dict', 'mkd', '[{"op": "upsert", "path": "nested.path", "value": 3}]', '', 'upsert');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocMkdoc_Dict', 'mkd', 'get', 'nested.path', '3');
SELECT pg_temp.ms('kv_engine testapp_subdoc.cc SubdocMkdoc_Counter', 'mkc', '[{"op": "increment", "path": "counter.path", "delta": 42}]', '42', 'upsert');
SELECT pg_temp.ms('kv_engine testapp_subdoc.cc SubdocMkdoc_Counter', 'mkc', '[{"op": "increment", "path": "counter.path", "delta": 42}]', '84', 'upsert');

SELECT pg_temp.doc('u8', '{ "kéy1": 1 }');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocUTF8PathTest', 'u8', 'insert', 'kéy2👏', '56', '');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocUTF8PathTest', 'u8', 'get', 'kéy2👏', '56');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocUTF8PathTest', 'u8', 'remove', 'kéy2👏', NULL, '');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocUTF8PathTest', 'u8', 'upsert', 'kéy2👏', '44', '');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocUTF8PathTest', 'u8', 'get', 'kéy2👏', '44');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc SubdocUTF8PathTest', 'u8', 'upsert', 'kéy2👏', '99', '');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc SubdocUTF8PathTest', 'u8', 'get', 'kéy2👏', '99');
SELECT pg_temp.is('kv_engine testapp_subdoc.cc SubdocUTF8PathTest', 'u8', '{ "kéy1": 1 ,"kéy2👏":99}');

SELECT pg_temp.doc('bt', '{}');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc MB_30278_SubdocBacktickLookup', 'bt', 'insert', 'key``', '"value"', '');
SELECT pg_temp.l('kv_engine testapp_subdoc.cc MB_30278_SubdocBacktickLookup', 'bt', 'get', 'key``', '"value"');
SELECT pg_temp.is('kv_engine testapp_subdoc.cc MB_30278_SubdocBacktickLookup', 'bt', '{"key`":"value"}');
SELECT pg_temp.doc('bt', '{}');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc MB_30278_SubdocBacktickDictAdd', 'bt', 'insert', 'key``', '"value"', '');
SELECT pg_temp.m('kv_engine testapp_subdoc.cc MB_30278_SubdocBacktickDictAdd', 'bt', 'insert', 'key2``', '"value2"', '');
SELECT pg_temp.is('kv_engine testapp_subdoc.cc MB_30278_SubdocBacktickDictAdd', 'bt', '{"key`":"value","key2`":"value2"}');

\echo == kv_engine tests/testapp/testapp_subdoc_multipath.cc
SELECT pg_temp.doc('mdict', '{"key1":1,"key2":"two", "key3":3.0}');
SELECT pg_temp.l('kv_engine testapp_subdoc_multipath.cc SubdocMultiLookup_GetSingle', 'mdict', 'get', 'key1', '1');
SELECT pg_temp.l('kv_engine testapp_subdoc_multipath.cc SubdocMultiLookup_GetSingle', 'mdictXXX', 'get', 'key1', 'DocumentNotFound');
SELECT pg_temp.l('kv_engine testapp_subdoc_multipath.cc SubdocMultiLookup_GetSingle', 'mdict', 'get', 'keyXX', 'PathNotFound');
SELECT pg_temp.l('kv_engine testapp_subdoc_multipath.cc SubdocMultiLookup_ExistsSingle', 'mdict', 'exists', 'key1', 'true');
SELECT pg_temp.doc('mdict', '{"key1":1,"key2":"two","key3":[0,1,2]}');
SELECT pg_temp.check('kv_engine testapp_subdoc_multipath.cc SubdocMultiLookup_GetMultiInvalid', 'per-spec results',
  (SELECT jsonb_agg(e - 'message') FROM jsonb_array_elements(docmodel.lookup_in('cb', 'mdict',
       '[{"op": "get", "path": "key1"}, {"op": "get", "path": "[0]"}, {"op": "get", "path": "key3[3]"},
         {"op": "get", "path": "key3"}]')) AS e)
  = '[{"value": 1}, {"error": "PathMismatch"}, {"error": "PathNotFound"}, {"value": [0, 1, 2]}]');
SELECT pg_temp.doc('mm', '{}');
SELECT pg_temp.ms('kv_engine testapp_subdoc_multipath.cc SubdocMultiMutation_DictAddSingle', 'mm', '[{"op": "insert", "path": "key", "value": "value"}]', '');
SELECT pg_temp.is('kv_engine testapp_subdoc_multipath.cc SubdocMultiMutation_DictAddSingle', 'mm', '{"key":"value"}');
SELECT pg_temp.doc('mm', '{}');
SELECT pg_temp.ms('kv_engine testapp_subdoc_multipath.cc SubdocMultiMutation_DictAddMulti', 'mm',
  '[{"op": "insert", "path": "key1", "value": 1}, {"op": "insert", "path": "key2", "value": 2}, {"op": "insert", "path": "key3", "value": 3}]', '');
SELECT pg_temp.is('kv_engine testapp_subdoc_multipath.cc SubdocMultiMutation_DictAddMulti', 'mm', '{"key1":1,"key2":2,"key3":3}');
SELECT pg_temp.doc('mm', '{}');
SELECT pg_temp.ms('kv_engine testapp_subdoc_multipath.cc SubdocMultiMutation_DictAddMax', 'mm',
  (SELECT jsonb_agg(jsonb_build_object('op', 'insert', 'path', 'key_' || i, 'value', i)) FROM generate_series(0, 15) AS i), '');
SELECT pg_temp.ms('kv_engine testapp_subdoc_multipath.cc SubdocMultiMutation_DictAddMax', 'mm',
  (SELECT jsonb_agg(jsonb_build_object('op', 'insert', 'path', 'more_' || i, 'value', i)) FROM generate_series(0, 16) AS i), 'InvalidArgument');
SELECT pg_temp.doc('mm', '{}');
SELECT pg_temp.ms('kv_engine testapp_subdoc_multipath.cc SubdocMultiMutation_DictAddInvalidDuplicate', 'mm',
  '[{"op": "insert", "path": "key", "value": "value"}, {"op": "insert", "path": "key", "value": "value2"}]', 'PathExists');
SELECT pg_temp.is('kv_engine testapp_subdoc_multipath.cc SubdocMultiMutation_DictAddInvalidDuplicate', 'mm', '{}');
SELECT pg_temp.doc('mm', '{"count":0,"items":{}}');
SELECT pg_temp.ms('kv_engine testapp_subdoc_multipath.cc SubdocMultiMutation_DictAddCounter', 'mm',
  '[{"op": "insert", "path": "items.foo", "value": 1}, {"op": "insert", "path": "items.bar", "value": 2},
    {"op": "increment", "path": "count", "delta": 2}]', '[null, null, {"value": 2}]');
SELECT pg_temp.is('kv_engine testapp_subdoc_multipath.cc SubdocMultiMutation_DictAddCounter', 'mm', '{"count":2,"items":{"foo":1,"bar":2}}');
SELECT pg_temp.doc('mm', '{"int":1}');
SELECT pg_temp.ms('kv_engine testapp_subdoc_multipath.cc SubdocMultiMutation_DictAddCAS', 'mm',
  '[{"op": "insert", "path": "float", "value": 2.0}, {"op": "insert", "path": "string", "value": "value"}]', 'CasMismatch',
  cas => (SELECT cas - 1 FROM cb WHERE id = 'mm'));
SELECT pg_temp.is('kv_engine testapp_subdoc_multipath.cc SubdocMultiMutation_DictAddCAS', 'mm', '{"int":1}');
SELECT pg_temp.ms('kv_engine testapp_subdoc_multipath.cc SubdocMultiMutation_DictAddCAS', 'mm',
  '[{"op": "insert", "path": "float", "value": 2.0}, {"op": "insert", "path": "string", "value": "value"}]', '',
  cas => (SELECT cas FROM cb WHERE id = 'mm'));
SELECT pg_temp.is('kv_engine testapp_subdoc_multipath.cc SubdocMultiMutation_DictAddCAS', 'mm', '{"int":1,"float":2.0,"string":"value"}');
SELECT pg_temp.doc('mm', '{"count":0,"items":{}}');
SELECT pg_temp.ms('kv_engine testapp_subdoc_multipath.cc SubdocMultiMutation_DictAddDelete', 'mm',
  '[{"op": "insert", "path": "items.1", "value": 1}, {"op": "insert", "path": "items.2", "value": 2},
    {"op": "insert", "path": "items.3", "value": 3}, {"op": "increment", "path": "count", "delta": 3},
    {"op": "remove", "path": "items.1"}, {"op": "remove", "path": "items.3"},
    {"op": "increment", "path": "count", "delta": -2}]',
  '[null, null, null, {"value": 3}, null, null, {"value": 1}]');
SELECT pg_temp.is('kv_engine testapp_subdoc_multipath.cc SubdocMultiMutation_DictAddDelete', 'mm', '{"count":1,"items":{"2":2}}');
SELECT pg_temp.ms('kv_engine testapp_subdoc_multipath.cc SubdocMultiMutation_DictAddDelete', 'mm',
  '[{"op": "remove", "path": "items"}, {"op": "upsert", "path": "count", "value": 0},
    {"op": "insert", "path": "items.4", "value": 4, "create_path": true}, {"op": "insert", "path": "items.5", "value": 5},
    {"op": "increment", "path": "count", "delta": 2}]', '[null, null, null, null, {"value": 2}]');
SELECT pg_temp.is('kv_engine testapp_subdoc_multipath.cc SubdocMultiMutation_DictAddDelete', 'mm', '{"count":2,"items":{"4":4,"5":5}}');
SELECT pg_temp.doc('mm', '[' || (SELECT string_agg('0', ',') FROM generate_series(1, 16)) || ']');
SELECT pg_temp.ms('kv_engine testapp_subdoc_multipath.cc SubdocMultiMutation_MaxResultSpecValue', 'mm',
  (SELECT jsonb_agg(jsonb_build_object('op', 'increment', 'path', format('[%s]', i), 'delta', i + 1) ORDER BY i) FROM generate_series(0, 15) AS i),
  (SELECT jsonb_agg(jsonb_build_object('value', i + 1) ORDER BY i) FROM generate_series(0, 15) AS i)::text);
SELECT pg_temp.is('kv_engine testapp_subdoc_multipath.cc SubdocMultiMutation_MaxResultSpecValue', 'mm',
  (SELECT jsonb_agg(i ORDER BY i) FROM generate_series(1, 16) AS i)::text);
SELECT pg_temp.doc('mm', '[]');
SELECT pg_temp.ms('kv_engine testapp_subdoc_multipath.cc SubdocMultiMutation_Flags', 'mm', '[{"op": "array_append", "path": "", "value": 0}]', '');
SELECT pg_temp.is('kv_engine testapp_subdoc_multipath.cc SubdocMultiMutation_Flags', 'mm', '[0]');
-- the Add doc flag: store_semantics insert
SELECT pg_temp.ms('kv_engine testapp_subdoc_multipath.cc SubdocMultiMutation_AddDocFlag', 'AddDocTest', '[{"op": "upsert", "path": "test", "value": 56}]', '', 'insert');
SELECT pg_temp.is('kv_engine testapp_subdoc_multipath.cc SubdocMultiMutation_AddDocFlag', 'AddDocTest', '{"test":56}');
SELECT pg_temp.doc('AddDocExistsTest', '[1,2,3,4]');
SELECT pg_temp.ms('kv_engine testapp_subdoc_multipath.cc SubdocMultiMutation_AddDocFlagEEXists', 'AddDocExistsTest', '[{"op": "upsert", "path": "test", "value": 56}]', 'DocumentExists', 'insert');
SELECT docmodel.remove('cb', 'AddDocExistsTest') > 0 AS removed;
SELECT pg_temp.ms('kv_engine testapp_subdoc_multipath.cc SubdocMultiMutation_AddDocFlagEEXists', 'AddDocExistsTest', '[{"op": "upsert", "path": "test", "value": 56}]', '', 'insert');
SELECT pg_temp.is('kv_engine testapp_subdoc_multipath.cc SubdocMultiMutation_AddDocFlagEEXists', 'AddDocExistsTest', '{"test":56}');
SELECT pg_temp.ms('kv_engine testapp_subdoc_multipath.cc SubdocMultiMutation_AddDocFlagInavlidCas', 'AddDocCas', '[{"op": "upsert", "path": "test", "value": 56}]', 'InvalidArgument', 'insert', 123456);
SELECT pg_temp.doc('mm', '{}');
SELECT pg_temp.ms('kv_engine testapp_subdoc_multipath.cc MB_30278_SubdocBacktickMultiMutation', 'mm',
  '[{"op": "insert", "path": "key1``", "value": 1}, {"op": "insert", "path": "key2``", "value": 2}, {"op": "insert", "path": "key3``", "value": 3}]', '');
SELECT pg_temp.is('kv_engine testapp_subdoc_multipath.cc MB_30278_SubdocBacktickMultiMutation', 'mm', '{"key1`":1,"key2`":2,"key3`":3}');

\echo == kv_engine tests/testapp/testapp_lock.cc (LockTest)
SELECT pg_temp.kv('kv_engine testapp_lock.cc LockNonexistingDocument', 'get_and_lock', $$pg_temp.lock('nolock')$$, 'DocumentNotFound');
SELECT pg_temp.doc('lk', '{"a": 1}');
SELECT pg_temp.kv('kv_engine testapp_lock.cc LockWithDefaultValue', 'get_and_lock', $$pg_temp.lock('lk')$$, '');
SELECT pg_temp.kv('kv_engine testapp_lock.cc LockLockedDocument', 'get_and_lock', $$docmodel.get_and_lock('cb', 'lk')$$, 'DocumentLocked');
SELECT pg_temp.kv('kv_engine testapp_lock.cc MutateLockedDocument', 'replace without the lock''s cas', $$docmodel.replace('cb', 'lk', '{"a": 2}')$$, 'DocumentLocked');
SELECT pg_temp.kv('kv_engine testapp_lock.cc MutateLockedDocument', 'replace with the lock''s cas',
  $$docmodel.replace('cb', 'lk', '{"a": 2}', (SELECT cas FROM lock_cas WHERE key = 'lk'))$$, '');
SELECT pg_temp.kv('kv_engine testapp_lock.cc DeleteLockedDocument', 'get_and_lock', $$pg_temp.lock('lk')$$, '');
SELECT pg_temp.kv('kv_engine testapp_lock.cc DeleteLockedDocument', 'remove without the lock''s cas', $$docmodel.remove('cb', 'lk')$$, 'DocumentLocked');
SELECT pg_temp.kv('kv_engine testapp_lock.cc DeleteLockedDocument', 'remove with the lock''s cas',
  $$docmodel.remove('cb', 'lk', (SELECT cas FROM lock_cas WHERE key = 'lk'))$$, '');
SELECT pg_temp.kv('kv_engine testapp_lock.cc UnlockNoSuchDocument', 'unlock', $$docmodel.unlock('cb', 'nolock', 3735928559)$$, 'DocumentNotFound');
SELECT pg_temp.doc('lk', '{"a": 1}');
SELECT pg_temp.kv('kv_engine testapp_lock.cc UnlockNotLockedDocument', 'unlock',
  $$docmodel.unlock('cb', 'lk', (SELECT cas FROM cb WHERE id = 'lk'))$$, 'DocumentNotLocked');
SELECT pg_temp.kv('kv_engine testapp_lock.cc UnlockWrongCas', 'get_and_lock', $$pg_temp.lock('lk')$$, '');
-- kv_engine answers Locked; docmodel's unlock raises CasMismatch for a stale cas (README, Locks)
SELECT pg_temp.kv('kv_engine testapp_lock.cc UnlockWrongCas', 'unlock with another cas',
  $$docmodel.unlock('cb', 'lk', (SELECT cas + 1 FROM lock_cas WHERE key = 'lk'))$$, 'DocumentLocked');
SELECT pg_temp.kv('kv_engine testapp_lock.cc UnlockThereIsNoCasWildcard', 'unlock with cas 0', $$docmodel.unlock('cb', 'lk', 0)$$, 'InvalidArgument');
SELECT pg_temp.kv('kv_engine testapp_lock.cc UnlockSuccess', 'unlock with the lock''s cas',
  $$docmodel.unlock('cb', 'lk', (SELECT cas FROM lock_cas WHERE key = 'lk'))$$, '');
SELECT pg_temp.kv('kv_engine testapp_lock.cc UnlockSuccess', 'upsert after unlock', $$docmodel.upsert('cb', 'lk', '{"a": 3}')$$, '');
SELECT pg_temp.kv('kv_engine testapp_lock.cc SubdocMutateLockedDocument', 'get_and_lock', $$pg_temp.lock('lk')$$, '');
SELECT pg_temp.ms('kv_engine testapp_lock.cc SubdocMutateLockedDocument', 'lk', '[{"op": "upsert", "path": "datatype_snappy", "value": false}]', 'DocumentLocked');
SELECT pg_temp.ms('kv_engine testapp_lock.cc SubdocMutateLockedDocument', 'lk', '[{"op": "upsert", "path": "datatype_snappy", "value": false}]', '',
                  cas => (SELECT cas FROM lock_cas WHERE key = 'lk'));
SELECT pg_temp.kv('kv_engine testapp_lock.cc SubdocLookupLockedDocument', 'get_and_lock', $$pg_temp.lock('lk')$$, '');
SELECT pg_temp.l('kv_engine testapp_lock.cc SubdocLookupLockedDocument', 'lk', 'get', 'datatype_snappy', 'false');
SELECT docmodel.unlock('cb', 'lk', (SELECT cas FROM lock_cas WHERE key = 'lk')) > 0 AS unlocked;

\echo == kv_engine tests/testapp/testapp_touch.cc (TouchTest)
SELECT pg_temp.doc('tch', '{"config": true}');
SELECT pg_temp.save('tch', 'tch');
SELECT pg_temp.check('kv_engine testapp_touch.cc Gat_Hit', 'get_and_touch returns the document',
  (docmodel.get_and_touch('cb', 'tch', 60)).doc = '{"config": true}');
SELECT pg_temp.check('kv_engine testapp_touch.cc Gat_Hit', 'get_and_touch changes the cas',
  (SELECT cas FROM cb WHERE id = 'tch') <> (SELECT cas FROM saved WHERE name = 'tch'));
SELECT pg_temp.kv('kv_engine testapp_touch.cc Gat_Miss', 'get_and_touch', $$docmodel.get_and_touch('cb', 'no-tch', 60)$$, 'DocumentNotFound');
SELECT pg_temp.save('tch', 'tch');
SELECT pg_temp.kv('kv_engine testapp_touch.cc Touch_Hit', 'touch', $$docmodel.touch('cb', 'tch', 60)$$, '');
SELECT pg_temp.check('kv_engine testapp_touch.cc Touch_Hit', 'touch changes the cas',
  (SELECT cas FROM cb WHERE id = 'tch') <> (SELECT cas FROM saved WHERE name = 'tch'));
SELECT pg_temp.kv('kv_engine testapp_touch.cc Touch_Miss', 'touch', $$docmodel.touch('cb', 'no-tch', 60)$$, 'DocumentNotFound');

\echo == kv_engine tests/testapp/testapp_arithmetic.cc (ArithmeticTest), on docmodel counters
SELECT pg_temp.kv('kv_engine testapp_arithmetic.cc TestArithmeticNoCreateOnNotFound', 'incr without initial',
  $$docmodel.incr('cbtest::nocreate', 1)$$, 'DocumentNotFound');
SELECT pg_temp.kv('kv_engine testapp_arithmetic.cc TestArithmeticNoCreateOnNotFound', 'decrement without initial',
  $$docmodel.decrement('cbtest::nocreate', 1)$$, 'DocumentNotFound');
SELECT pg_temp.check('kv_engine testapp_arithmetic.cc TestIncrementCreateOnNotFound', 'incr creates at initial',
  docmodel.incr('cbtest::create_incr', 1, 0) = 0);
SELECT pg_temp.check('kv_engine testapp_arithmetic.cc TestIncrementCreateOnNotFound', 'decrement creates at initial',
  docmodel.decrement('cbtest::create_decr', 1, 0) = 0);
-- incr_decr_loop: 101 increments from 0, 100 decrements back, then 0 added
CREATE FUNCTION pg_temp.incr_decr_loop(k text, delta bigint) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE expected bigint := 0; ok boolean := true;
BEGIN
  FOR i IN 1..101 LOOP
    ok := ok AND docmodel.incr(k, delta, 0) = expected;
    expected := expected + delta;
  END LOOP;
  expected := expected - delta;
  FOR i IN 1..100 LOOP
    expected := expected - delta;
    ok := ok AND docmodel.decrement(k, delta, 0) = expected;
  END LOOP;
  RETURN ok AND docmodel.incr(k, 0, 0) = 0;
END $$;
SELECT pg_temp.check('kv_engine testapp_arithmetic.cc TestBasicArithmetic_1', 'incr_decr_loop by 1', pg_temp.incr_decr_loop('cbtest::loop1', 1));
SELECT pg_temp.check('kv_engine testapp_arithmetic.cc TestBasicArithmetic_33', 'incr_decr_loop by 33', pg_temp.incr_decr_loop('cbtest::loop33', 33));
SELECT pg_temp.check('kv_engine testapp_arithmetic.cc TestDecrementDontWrap', '10 decrements at 0 stay 0',
  (SELECT bool_and(docmodel.decrement('cbtest::nowrap', 1, 0) = 0) FROM generate_series(1, 10)));
SELECT docmodel.counter_drop(n) FROM unnest(ARRAY['cbtest::create_incr', 'cbtest::create_decr', 'cbtest::loop1',
  'cbtest::loop33', 'cbtest::nowrap']) AS n;

\echo == libcouchbase tests/iotests/t_subdoc.cc (SubdocUnitTest)
-- the test's document
CREATE FUNCTION pg_temp.lcb() RETURNS void LANGUAGE sql AS $$
  SELECT pg_temp.doc('lcb', '{"dictkey": "dictval", "array": [1, 2, 3, 4, [10, 20, 30, [100, 200, 300]]]}')
$$;
SELECT pg_temp.lcb();
SELECT pg_temp.l('libcouchbase t_subdoc.cc testSdGetExists', 'lcb', op, p, e)
FROM (VALUES (1, 'get', 'dictkey', '"dictval"'), (2, 'exists', 'dictkey', 'true'),
             (3, 'get', 'array', '[1,2,3,4,[10,20,30,[100,200,300]]]'), (4, 'exists', 'array', 'true'),
             (5, 'get', 'array[0]', '1'), (6, 'exists', 'array[0]', 'true'),
             (7, 'get', 'non-exist', 'PathNotFound'), (8, 'exists', 'non-exist', 'false'),
             (9, 'get', 'invalid..path', 'PathInvalid'), (10, 'get', 'invalid[-2]', 'PathInvalid'),
             (11, 'get', 'array[-1][-1][-1]', '300'), (12, 'get', 'array[4][3][2]', '300'),
             (13, 'get', 'array.key', 'PathMismatch')) AS v(n, op, p, e) ORDER BY n;
SELECT pg_temp.l('libcouchbase t_subdoc.cc testSdGetExists', 'lcb-nonexist', op, 'non-exist', 'DocumentNotFound')
FROM (VALUES ('get'), ('exists')) AS v(op);
SELECT pg_temp.m('libcouchbase t_subdoc.cc testSdStore', 'lcb', 'insert', 'newpath', '123', '');
SELECT pg_temp.m('libcouchbase t_subdoc.cc testSdStore', 'lcb', 'insert', 'newpath', '123', 'PathExists');
SELECT pg_temp.m('libcouchbase t_subdoc.cc testSdStore', 'lcb', 'upsert', 'newpath', '123', '');
SELECT pg_temp.l('libcouchbase t_subdoc.cc testSdStore', 'lcb', 'get', 'newpath', '123');
SELECT pg_temp.ms('libcouchbase t_subdoc.cc testSdStore', 'lcb', '[{"op": "upsert", "path": "newpath", "value": 123}]', 'CasMismatch',
                  cas => (SELECT cas + 1 FROM cb WHERE id = 'lcb'));
SELECT pg_temp.m('libcouchbase t_subdoc.cc testSdStore', 'lcb', 'upsert', 'dict', '{"key":"value"}', '');
SELECT pg_temp.l('libcouchbase t_subdoc.cc testSdStore', 'lcb', 'get', 'dict.key', '"value"');
SELECT pg_temp.m('libcouchbase t_subdoc.cc testSdStore', 'lcb', 'upsert', 'parent.with.missing.children', 'null', 'PathNotFound');
SELECT pg_temp.m('libcouchbase t_subdoc.cc testSdStore', 'lcb', 'upsert', 'parent.with.missing.children', 'null', '', 'p');
SELECT pg_temp.l('libcouchbase t_subdoc.cc testSdStore', 'lcb', 'get', 'parent.with.missing.children', 'null');
SELECT pg_temp.m('libcouchbase t_subdoc.cc testSdStore', 'lcb', 'replace', 'dict', '123', '');
SELECT pg_temp.m('libcouchbase t_subdoc.cc testSdStore', 'lcb', 'replace', 'not-exists', '123', 'PathNotFound');
SELECT pg_temp.m('libcouchbase t_subdoc.cc testSdStore', 'lcb', 'replace', 'array[1]', 'true', '');
SELECT pg_temp.l('libcouchbase t_subdoc.cc testSdStore', 'lcb', 'get', 'array[1]', 'true');
-- replace of the root: the SDK sends a whole-document set
SELECT pg_temp.m('libcouchbase t_subdoc.cc testSdStore', 'lcb', 'replace', '', '{"foo":42}', '');
SELECT pg_temp.l('libcouchbase t_subdoc.cc testSdStore', 'lcb', 'get', 'foo', '42');
SELECT pg_temp.ms('libcouchbase t_subdoc.cc testMkdoc', 'lcb-mkdoc', '[{"op": "upsert", "path": "pth", "value": 123}]', '', 'upsert');
SELECT pg_temp.l('libcouchbase t_subdoc.cc testMkdoc', 'lcb-mkdoc', 'get', 'pth', '123');
SELECT docmodel.remove('cb', 'lcb-mkdoc') > 0 AS removed;
SELECT pg_temp.ms('libcouchbase t_subdoc.cc testMkdoc', 'lcb-mkdoc',
  '[{"op": "upsert", "path": "pth", "value": 123}, {"op": "upsert", "path": "pth2", "value": 456}]', '', 'upsert');
SELECT pg_temp.l('libcouchbase t_subdoc.cc testMkdoc', 'lcb-mkdoc', 'get', p, e) FROM (VALUES ('pth', '123'), ('pth2', '456')) AS v(p, e);
SELECT pg_temp.lcb();
SELECT pg_temp.m('libcouchbase t_subdoc.cc testUnique', 'lcb', 'array_addunique', 'a', '1', '', 'p');
SELECT pg_temp.l('libcouchbase t_subdoc.cc testUnique', 'lcb', 'get', 'a[0]', '1');
SELECT pg_temp.m('libcouchbase t_subdoc.cc testUnique', 'lcb', 'array_addunique', 'a', '1', 'PathExists', 'p');
SELECT pg_temp.m('libcouchbase t_subdoc.cc testUnique', 'lcb', 'array_addunique', 'a', '{}', 'ValueInvalid', 'p');
SELECT pg_temp.m('libcouchbase t_subdoc.cc testUnique', 'lcb', 'array_append', 'a', '{}', '', 'p');
SELECT pg_temp.l('libcouchbase t_subdoc.cc testUnique', 'lcb', 'get', 'a[-1]', '{}');
SELECT pg_temp.m('libcouchbase t_subdoc.cc testUnique', 'lcb', 'array_addunique', 'a', 'null', 'PathMismatch', 'p');
SELECT pg_temp.m('libcouchbase t_subdoc.cc testCounter', 'lcb', 'increment', 'counter', '42', '42');
SELECT pg_temp.m('libcouchbase t_subdoc.cc testCounter', 'lcb', 'increment', 'counter', '42', '84');
SELECT pg_temp.m('libcouchbase t_subdoc.cc testCounter', 'lcb', 'upsert', 'counter', '9223372036854775807', '');
SELECT pg_temp.l('libcouchbase t_subdoc.cc testCounter', 'lcb', 'get', 'counter', '9223372036854775807');
SELECT pg_temp.m('libcouchbase t_subdoc.cc testCounter', 'lcb', 'increment', 'counter', '1', 'ValueInvalid');
SELECT pg_temp.m('libcouchbase t_subdoc.cc testCounter', 'lcb', 'increment', 'counter', '0', 'DeltaInvalid');
SELECT pg_temp.m('libcouchbase t_subdoc.cc testCounter', 'lcb', 'upsert', 'counter', '9223372036854775807999999999999999999999999999999', '');
SELECT pg_temp.m('libcouchbase t_subdoc.cc testCounter', 'lcb', 'increment', 'counter', '1', 'NumberTooBig');
SELECT pg_temp.m('libcouchbase t_subdoc.cc testCounter', 'lcb', 'increment', 'dictkey', '1', 'PathMismatch');
SELECT pg_temp.m('libcouchbase t_subdoc.cc testCounter', 'lcb', 'upsert', 'counter', '0', '');
SELECT pg_temp.m('libcouchbase t_subdoc.cc testCounter', 'lcb', 'increment', 'counter', '-42', '-42');
SELECT pg_temp.m('libcouchbase t_subdoc.cc testCounter', 'lcb', 'increment', 'counter', '-42', '-84');
SELECT pg_temp.lcb();
SELECT pg_temp.check('libcouchbase t_subdoc.cc testMultiLookup', 'four specs, one missing',
  (SELECT jsonb_agg(e - 'message') FROM jsonb_array_elements(docmodel.lookup_in('cb', 'lcb',
       '[{"op": "get", "path": "dictkey"}, {"op": "exists", "path": "array[0]"}, {"op": "get", "path": "nonexist"},
         {"op": "get", "path": "array[1]"}]')) AS e)
  = '[{"value": "dictval"}, {"value": true}, {"error": "PathNotFound"}, {"value": 2}]');
-- a mutation among lookups: the SDK refuses the command (OPTIONS_CONFLICT, an invalid argument)
SELECT pg_temp.kv('libcouchbase t_subdoc.cc testMultiLookup', 'remove among lookups',
  $$docmodel.lookup_in('cb', 'lcb', '[{"op": "get", "path": "dictkey"}, {"op": "remove", "path": "array[0]"}]')$$, 'InvalidArgument');
-- a missing document: NULL (DocumentNotFound)
SELECT pg_temp.check('libcouchbase t_subdoc.cc testMultiLookup', 'missing document',
  docmodel.lookup_in('cb', 'missing-key', '[{"op": "get", "path": "dictkey"}]') IS NULL);
SELECT pg_temp.ms('libcouchbase t_subdoc.cc testMultiMutations', 'lcb',
  '[{"op": "upsert", "path": "newPath", "value": true}, {"op": "increment", "path": "counter", "delta": 42}]', '[null, {"value": 42}]');
SELECT pg_temp.l('libcouchbase t_subdoc.cc testMultiMutations', 'lcb', 'get', p, e) FROM (VALUES ('newPath', 'true'), ('counter', '42')) AS v(p, e);
SELECT pg_temp.kv('libcouchbase t_subdoc.cc testMultiMutations', 'get among mutations',
  $$docmodel.mutate_in('cb', 'lcb', '[{"op": "get", "path": "p"}, {"op": "increment", "path": "counter"}]')$$, 'InvalidArgument');
-- the first failing spec is reported (spec 1), before spec 2's invalid path
SELECT pg_temp.ms('libcouchbase t_subdoc.cc testMultiMutations', 'lcb',
  '[{"op": "replace", "path": "newPath", "value": null}, {"op": "replace", "path": "nested.nonexist", "value": null},
    {"op": "replace", "path": "bad..bad", "value": null}]', 'PathNotFound');
SELECT pg_temp.check('libcouchbase t_subdoc.cc testMultiMutations', 'spec 1 fails',
  pg_temp.try($q$SELECT docmodel.mutate_in('cb', 'lcb', '[{"op": "replace", "path": "newPath", "value": null},
      {"op": "replace", "path": "nested.nonexist", "value": null}, {"op": "replace", "path": "bad..bad", "value": null}]')$q$)
  LIKE '2203A: mutate_in spec 1 %');
SELECT pg_temp.ms('libcouchbase t_subdoc.cc testMultiMutations', 'lcb', '[{"op": "upsert", "path": "tmpPath", "value": null}]', '');
SELECT pg_temp.doc('lcb', '{"array": [1, 2, 3, 4, 5], "dictkey": "dictval"}');
SELECT pg_temp.l('libcouchbase t_subdoc.cc testGetCount', 'lcb', 'count', '', '2');
SELECT pg_temp.l('libcouchbase t_subdoc.cc testGetCount', 'lcb', 'count', p, e) FROM (VALUES (1, '404', 'PathNotFound'), (2, 'array', '5')) AS v(n, p, e) ORDER BY n;
SELECT pg_temp.doc('sd_err', '{}');
SELECT pg_temp.kv('libcouchbase t_subdoc.cc testInsertErrorConsistency', 'insert of an existing document', $$docmodel.insert('cb', 'sd_err', '{}')$$, 'DocumentExists');
SELECT pg_temp.kv('libcouchbase t_subdoc.cc testInsertErrorConsistency', 'replace with another cas',
  $$docmodel.replace('cb', 'sd_err', '{}', (SELECT cas + 1 FROM cb WHERE id = 'sd_err'))$$, 'CasMismatch');
SELECT pg_temp.kv('libcouchbase t_subdoc.cc testInsertErrorConsistency', 'remove with another cas',
  $$docmodel.remove('cb', 'sd_err', (SELECT cas + 1 FROM cb WHERE id = 'sd_err'))$$, 'CasMismatch');
SELECT pg_temp.ms('libcouchbase t_subdoc.cc testInsertErrorConsistency', 'sd_err', '[{"op": "upsert", "path": "foo", "value": 42}]', 'DocumentExists', 'insert');
SELECT pg_temp.ms('libcouchbase t_subdoc.cc testInsertErrorConsistency', 'sd_err', '[{"op": "upsert", "path": "foo", "value": 42}]', 'InvalidArgument', 'upsert',
                  (SELECT cas + 1 FROM cb WHERE id = 'sd_err'));
SELECT pg_temp.ms('libcouchbase t_subdoc.cc testInsertErrorConsistency', 'sd_err', '[{"op": "upsert", "path": "foo", "value": 42}]', 'CasMismatch', 'replace',
                  (SELECT cas + 1 FROM cb WHERE id = 'sd_err'));
SELECT pg_temp.doc('rwep', '{}');
SELECT pg_temp.m('libcouchbase t_subdoc.cc testRemoveWithEmptyPath', 'rwep', 'replace', '', '{"foo":"bar"}', '');
SELECT pg_temp.is('libcouchbase t_subdoc.cc testRemoveWithEmptyPath', 'rwep', '{"foo":"bar"}');
-- remove of the root: the SDK sends a whole-document delete; mutate_in does not delete (README)
SELECT pg_temp.m('libcouchbase t_subdoc.cc testRemoveWithEmptyPath', 'rwep', 'remove', '', NULL, '');
SELECT pg_temp.ms('libcouchbase t_subdoc.cc testTopLevelArray', 'top_level_array', '[{"op": "array_prepend", "path": "", "value": 1}]', '', 'upsert');
SELECT pg_temp.is('libcouchbase t_subdoc.cc testTopLevelArray', 'top_level_array', '[1]');
SELECT pg_temp.ms('libcouchbase t_subdoc.cc testTopLevelArray', 'top_level_array', '[{"op": "array_addunique", "path": "", "value": 1}]', 'PathExists');
SELECT pg_temp.is('libcouchbase t_subdoc.cc testTopLevelArray', 'top_level_array', '[1]');
SELECT pg_temp.ms('libcouchbase t_subdoc.cc testTopLevelArray', 'top_level_array', '[{"op": "array_append", "path": "", "value": 2}]', '');
SELECT pg_temp.is('libcouchbase t_subdoc.cc testTopLevelArray', 'top_level_array', '[1,2]');

\t off
\echo == odd paths: refused or followed, nothing else (no crash, no XX000)
SELECT pg_temp.doc('odd', '{"a": [1, {"b": 2}], "`": 3, "\\": 4, "\"": 5, "a.b": 6, "": 7}');
SELECT p AS path, regexp_replace(pg_temp.outcome(format('SELECT docmodel.lookup_in(%L, %L, %L)', 'cb', 'odd',
         jsonb_build_array(jsonb_build_object('op', 'get', 'path', p)))), '"message": "[^"\\]*(\\.[^"\\]*)*"', '"message": ...', 'g') AS outcome
FROM unnest(ARRAY['[', ']', '`', '``', '```', '````', '\', '\\', '\u0041', '\x', '[-1', '[]', '[00]', '[-0]',
  '[99999999999999999999999]', 'a[99999999999999999999999]', '.', '..', 'a.', '[0].', 'a..b', 'a.[1].b', 'a[1].`b`',
  '`a.b`', 'a`.`b', '`a`.b`', '\"', '"', E'a\tb', 'a\tb', '/a/1/b', '/', '//', '/~2', 'a[1]b', 'a[1].', 'a[-1][0]']) AS p;

\echo == summary
SELECT count(*) AS cases, count(*) FILTER (WHERE agree) AS agree,
       round(100.0 * count(*) FILTER (WHERE agree) / count(*), 1) AS percent FROM cb_case;
SELECT split_part(src, ' ', 1) || ' ' || split_part(src, ' ', 2) AS source, count(*) AS cases,
       count(*) FILTER (WHERE agree) AS agree
FROM cb_case GROUP BY 1 ORDER BY 1;
-- the cases that differ, each a deliberate difference (README, "Sub-documents")
SELECT n, src, what, expect AS couchbase, got AS docmodel FROM cb_case WHERE NOT agree ORDER BY n;

\echo == beyond the translated cases: the same ground in docmodel terms
-- DocTooDeep in mutate_in too, after the spec's own path checks (the first spec reported)
SELECT pg_temp.try($$SELECT docmodel.mutate_in('cb', 'toodeep', '[{"op": "upsert", "path": "x", "value": 1}]')$$);
SELECT pg_temp.try($$SELECT docmodel.mutate_in('cb', 'toodeep', '[{"op": "upsert", "path": "a..b", "value": 1}]')$$);
-- replace "" in a collection of objects: the document must stay an object
SELECT docmodel.create_collection('cb_plain') IS NOT NULL AS created;
SELECT docmodel.insert('cb_plain', 'k::1', '{"a": 1}') > 0 AS inserted;
SELECT pg_temp.try($$SELECT docmodel.mutate_in('cb_plain', 'k::1', '[{"op": "replace", "path": "", "value": [1]}]')$$);
SELECT docmodel.mutate_in('cb_plain', 'k::1', '[{"op": "replace", "path": "", "value": {"b": 2}}]')->'results' AS results;
SELECT doc->'a' AS a, doc->'b' AS b, doc->'_ver' AS ver FROM cb_plain_documents;
-- a new document from an array op at the root of a collection of objects is refused
SELECT pg_temp.try($$SELECT docmodel.mutate_in('cb_plain', 'k::2', '[{"op": "array_append", "path": "", "value": 1}]', store_semantics => 'upsert')$$);
SELECT docmodel.drop_collection('cb_plain') IS NOT NULL AS dropped;
SELECT docmodel.drop_collection('cb') IS NOT NULL AS dropped;
