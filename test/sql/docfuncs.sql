-- Values between tables and documents: N1QL's states, epochs, compact
\i test/sql/include/try.sql
SET TimeZone = 'America/New_York';

-- N1QL's four states: MISSING, NULL, valued, and unknown (a NULL document)
SELECT p, docmodel.is_missing(d, VARIADIC p) AS missing, docmodel.is_null(d, VARIADIC p) AS null,
       docmodel.is_valued(d, VARIADIC p) AS valued
FROM (SELECT '{"a": {"b": null, "c": [1, {"d": false}]}, "e": ""}'::jsonb) AS t(d),
     unnest(ARRAY['{a}', '{a,b}', '{a,x}', '{a,c,1,d}', '{a,c,2}', '{a,c,x}', '{e}', '{e,f}', '{}']::text[][]) WITH ORDINALITY AS u(x, n),
     LATERAL (SELECT x::text[] AS p) q
ORDER BY n;
SELECT docmodel.is_missing('{"a": 1}', 'a'), docmodel.is_missing('{"a": 1}', 'b'),
       docmodel.is_valued(NULL, 'a') IS NULL AS unknown, docmodel.is_missing('{"a": [5]}', 'a', '0');

-- epochs in every unit, both ways, rounded down
SELECT u, docmodel.to_epoch('2024-01-02T03:04:05.678901Z', u) AS n,
       docmodel.from_epoch(docmodel.to_epoch('2024-01-02T03:04:05.678901Z', u), u) AT TIME ZONE 'UTC' AS back
FROM unnest('{ns,us,ms,s,min,h,day}'::text[]) u;
SELECT docmodel.to_epoch('1969-12-31T23:59:59.9995Z') AS before_1970_ms, docmodel.to_epoch('1970-01-01Z', 's'),
       docmodel.from_epoch(-1, 'ms') AT TIME ZONE 'UTC' AS minus_one_ms, docmodel.from_epoch(-1, 'ns') AT TIME ZONE 'UTC' AS minus_one_ns;
SELECT pg_temp.try($$SELECT docmodel.to_epoch(now(), 'week')$$);
SELECT pg_temp.try($$SELECT docmodel.to_epoch('3000-01-01Z', 'ns')$$);
SELECT pg_temp.try($$SELECT docmodel.to_epoch('infinity', 's')$$);
SELECT pg_temp.try($$SELECT docmodel.from_epoch(9223372036854775807, 's')$$);
SELECT pg_temp.try($$SELECT docmodel.from_epoch(400000000000, 'day')$$);

-- compact
SELECT docmodel.compact('{"a": null, "b": "", "c": [], "d": {}, "e": {"f": null}, "g": [null, "", {}], "h": 0, "i": false}');
SELECT docmodel.compact('{"a": null, "b": ""}', '{"nulls": false}'), docmodel.compact('{"a": null, "b": ""}', '{"empties": false}');
SELECT docmodel.compact('{"at": "2024-01-02T03:04:05Z", "day": "2024-01-02", "not": "2024-02-30", "id": "0f8fad5b-d9cb-469f-a165-70867728950e", "short": "0f8fad5b"}',
                        '{"dates": "s", "guids": true}');
SELECT docmodel.compact('{"status": "active", "tier": "free", "n": {"x": 1, "y": 2}}',
                        '{"defaults": {"/status": "active", "/tier": "gold", "/n/x": 1.0}}');
SELECT pg_temp.try($$SELECT docmodel.compact('{}', '{"dates": "week"}')$$);
SELECT pg_temp.try($$SELECT docmodel.compact('{}', '{"nulls": 1}')$$);
SELECT pg_temp.try($$SELECT docmodel.compact('{}', '{"shrink": true}')$$);
SELECT pg_temp.try($$SELECT docmodel.compact('{}', '{"defaults": {"status": 1}}')$$);
SELECT pg_temp.try($$SELECT docmodel.compact('{}', '[]')$$);
-- a scalar document stays what it is
SELECT docmodel.compact('"x"'), docmodel.compact('null');
