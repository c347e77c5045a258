-- hostname and idn-hostname with IDNA2008: an A-label ("xn--" and Punycode,
-- RFC 3492) is decoded and must encode a valid U-label in its canonical form;
-- a U-label is measured by its A-label form (63 octets a label, 253 a name);
-- in a name with a right-to-left label every label keeps the Bidi rule
-- (RFC 5893); ZERO WIDTH NON-JOINER needs a virama before it or joining
-- letters around it (RFC 5892 A.1). And draft-07's dependencies, read in
-- 2020-12 and 2019-09 too.
-- A string with its code points beyond ASCII written U+XXXX (psql's width
-- of marks, joiners and spaces differs between PostgreSQL majors).
CREATE FUNCTION pg_temp.shown(s text) RETURNS text LANGUAGE sql AS
$$SELECT string_agg(CASE WHEN ascii(c) > 127
                         THEN 'U+' || upper(lpad(to_hex(ascii(c)), 4, '0')) ELSE c END, '' ORDER BY n)
  FROM regexp_split_to_table(s, '') WITH ORDINALITY AS t(c, n)$$;

CREATE FUNCTION pg_temp.f(fmt text, s text) RETURNS boolean LANGUAGE sql AS
$$SELECT docmodel.schema_valid(jsonb_build_object('format', fmt), to_jsonb(s))$$;

\echo == hostname: A-labels that decode to a valid U-label
SELECT s, pg_temp.f('hostname', s) AS valid
  FROM (VALUES ('xn--9n2bp8q.xn--9t4b11yi5a'), ('xn--bcher-kva.example'), ('XN--BCHER-KVA.example'),
               ('www.xn--mnchen-3ya.de'), ('xn--ll-0ea'), ('xn--ihqwcrb4cv8a8dqg056pqjye')) AS t(s);

\echo == hostname: malformed Punycode, not canonical, only ASCII, disallowed, overflow
SELECT s, pg_temp.f('hostname', s) AS valid
  FROM (VALUES ('xn--X'), ('xn--'), ('xn--a'), ('xn--a-'), ('xn--a-b!'), ('xn---9uc'), ('xn--9uc'),
               ('xn--bcher-KVA-'), ('xn--example-'), ('xn--7a'), ('xn--zzzzzzzzzzzzzz'),
               ('xn--99999999999999a'), ('xn--a-9999999999999'), ('xn--ls8h'),
               ('xn--al-0ea'), ('xn--hello-txk'), ('XN--aa---o47jg78q'), ('xn--bcher-kva.-a')) AS t(s);

\echo == idn-hostname: U-labels measured by their A-label form
SELECT s, length(s) AS chars, pg_temp.f('idn-hostname', s) AS valid
  FROM (VALUES ('bücher.de'), (repeat('ü', 57)), (repeat('ü', 58)),
               (repeat('a', 63)), (repeat('a', 64)),
               (repeat('παράδειγμα', 5) || 'πα.com'),
               (repeat(repeat('ü', 20) || '.', 9) || 'de'),
               (repeat(repeat('ü', 20) || '.', 10) || 'de')) AS t(s);

\echo == idn-hostname: the Bidi rule in a name with a right-to-left label
SELECT s, pg_temp.f('idn-hostname', s) AS valid
  FROM (VALUES ('א.com'), ('0a.א'), ('a0.א'), ('0ا'), ('aא'), ('א0٠'), ('ب٠ب'), ('א1'),
               ('1א'), ('אa'), ('xn--0ca24w'), ('xn--4db.example'), ('0a.example')) AS t(s);

\echo == idn-hostname: ZERO WIDTH NON-JOINER after a virama or between joining letters
SELECT pg_temp.shown(s) AS s, pg_temp.f('idn-hostname', s) AS valid
  FROM (VALUES (E'\u0915\u094d\u200c\u0937'), (E'\u0628\u064a\u200c\u0628\u064a'),
               (E'a\u200cb'), (E'\u200c\u0628'), (E'\u0628\u200c'),
               (E'\u0915\u094d\u200c\u0937x\u200cy'), ('xn--11b2ezcs70k'), ('xn--ngba5hb2804a'),
               ('xn--0ugb')) AS t(s);

\echo == email and idn-email: the host is checked the same way
SELECT f, s, pg_temp.f(f, s) AS valid
  FROM (VALUES ('email', 'joe@xn--bcher-kva.de'), ('email', 'joe@xn--X.de'),
               ('idn-email', 'joe@bücher.de'), ('idn-email', 'joe@0a.א')) AS t(f, s);

\echo == dependencies in 2020-12 and 2019-09: arrays are dependentRequired, schemas dependentSchemas
SELECT d, s, i, docmodel.schema_valid(s::jsonb || jsonb_build_object('$schema', d), i::jsonb) AS valid
  FROM (VALUES ('https://json-schema.org/draft/2020-12/schema'),
               ('https://json-schema.org/draft/2019-09/schema')) AS x(d),
       (VALUES ('{"dependencies": {"a": ["b"]}}', '{"a": 1}'),
               ('{"dependencies": {"a": ["b"]}}', '{"a": 1, "b": 2}'),
               ('{"dependencies": {"a": {"required": ["c"]}}}', '{"a": 1}'),
               ('{"dependencies": {"a": {"required": ["c"]}}}', '{"b": 1}'),
               ('{"dependencies": {"a": ["b"]}, "dependentRequired": {"a": ["c"]}}', '{"a": 1, "b": 2}'),
               ('{"dependencies": {"a": ["b"]}, "dependentRequired": {"a": ["c"]}}', '{"a": 1, "c": 2}'),
               ('{"dependencies": {"a": ["b"]}, "dependentRequired": {"a": ["c"]}}', '{"a": 1, "b": 2, "c": 3}'),
               ('{"dependencies": {"a": {"required": ["b"]}}, "dependentSchemas": {"a": {"required": ["c"]}}}', '{"a": 1, "c": 3}'),
               ('{"dependencies": {"a": {"required": ["b"]}}, "dependentSchemas": {"a": {"required": ["c"]}}}', '{"a": 1, "b": 2, "c": 3}')) AS t(s, i)
 ORDER BY d, s, i;
SELECT docmodel.schema_errors('{"dependencies": {"a": ["b"]}, "dependentRequired": {"a": ["c"]}}', '{"a": 1}');
