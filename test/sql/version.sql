-- docmodel.version: schema versions compared part by part, numerically.
\i test/sql/include/try.sql

-- The operators and min/max live in schema docmodel.
SET search_path = public, docmodel;

-- The acceptance cases.
SELECT '1.10'::docmodel.version > '1.9' AS "1.10 > 1.9",
       '2'::docmodel.version = '2.0' AS "2 = 2.0",
       '2.5.1'::docmodel.version > '2.5' AS "2.5.1 > 2.5",
       '2.0.0'::docmodel.version = '2' AS "2.0.0 = 2",
       '1.9'::docmodel.version < '1.10' AS "1.9 < 1.10",
       '3'::docmodel.version <> '3.0.1' AS "3 <> 3.0.1",
       '1.2'::docmodel.version <= '1.2.0' AS "1.2 <= 1.2.0",
       '0.9'::docmodel.version >= '1' AS "0.9 >= 1";

-- Text round trip keeps what was written; leading zeros are numbers.
SELECT v::docmodel.version::text AS roundtrip
FROM (VALUES ('1'), ('1.0'), ('1.10'), ('2.5.1'), ('007.01'), ('2147483647.0')) AS t(v);

-- Bad input is invalid_text_representation (22P02), naming the text.
SELECT pg_temp.try(format('SELECT %L::docmodel.version', v)) AS bad_input
FROM (VALUES ('1..2'), ('v1'), (''), ('-1'), ('1.'), ('.1'), (' 1'), ('1 '),
             ('1.2a'), ('2147483648'), ('1.2.3.4.5.6.7.8.9.10.11.12.13.14.15.16.17')) AS t(v);
SELECT pg_temp.try($q$SELECT docmodel.version('1..2')$q$) AS bad_cast;

-- ORDER BY, max(), min(), DISTINCT.
CREATE TABLE version_t (v docmodel.version);
INSERT INTO version_t VALUES ('1.9'), ('1.10'), ('2'), ('2.0'), ('2.5.1'), ('2.5'), ('1'), ('10'), ('1.0.0');
SELECT v FROM version_t ORDER BY v, v::text;
SELECT max(v), min(v), docmodel.max(v) AS qualified_max FROM version_t;
SELECT count(DISTINCT v) AS distinct_versions FROM version_t;
SELECT count(*) AS distinct_rows FROM (SELECT DISTINCT v FROM version_t) d;
SELECT docmodel.version_send('2.5.1') AS wire_form;

-- A btree index answers range and equality queries.
CREATE INDEX version_t_v ON version_t (v);
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT v FROM version_t WHERE v > '2';
SELECT v FROM version_t WHERE v > '2' ORDER BY v;
SELECT v FROM version_t WHERE v = '2.0.0' ORDER BY v::text;
RESET enable_seqscan;

-- A hash index, and a hash join where 2 and 2.0 meet.
CREATE INDEX version_t_h ON version_t USING hash (v);
CREATE TABLE version_u (v docmodel.version, label text);
INSERT INTO version_u VALUES ('2.0.0', 'two'), ('1.10', 'one-ten'), ('3', 'three');
SET enable_mergejoin = off;
SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT t.v, u.label FROM version_t t JOIN version_u u ON t.v = u.v;
SELECT t.v, u.label FROM version_t t JOIN version_u u ON t.v = u.v ORDER BY t.v::text;
RESET enable_mergejoin;
RESET enable_nestloop;
-- GROUP BY by hashing agrees with sorting.
SET enable_sort = off;
SELECT min(v::text) AS first_written, count(*) FROM version_t GROUP BY v ORDER BY 1;
RESET enable_sort;
SELECT docmodel.version_hash('2') = docmodel.version_hash('2.0.0') AS equal_hashes,
       docmodel.version_hash_extended('2', 7) = docmodel.version_hash_extended('2.0', 7) AS equal_ext_hashes;

-- Binary send/receive round trip (COPY BINARY).
COPY version_t TO '/tmp/docmodel_version_test.bin' (FORMAT binary);
CREATE TABLE version_b (v docmodel.version);
COPY version_b FROM '/tmp/docmodel_version_test.bin' (FORMAT binary);
SELECT count(*) AS same_rows FROM version_t a JOIN version_b b ON a.v::text = b.v::text;

-- Without docmodel on search_path, ORDER BY and DISTINCT still work (default opclasses).
RESET search_path;
SELECT v FROM version_t ORDER BY v DESC LIMIT 3;

DROP TABLE version_t, version_u, version_b;
