-- Tour chapter: keys. A key is a document's identity,
-- built from parts joined by one delimiter, "::" by default.
\echo
\echo '== Keys =========================================================='
\echo 'Build keys from parts; each pattern of a document store, in SQL.'
SELECT docmodel.key('user', 123)                              AS "DocType::ID",
       docmodel.key('couchmusic', 'userprofile', 'fredsmith79') AS "App::DocType::ID";
SELECT docmodel.key('user', 'foo.org', 12345)                 AS "hierarchy (belongs to)",
       docmodel.key('user', 'john.doe@mail.com')              AS "natural key";
SELECT docmodel.key(123, 987)                                 AS "composite: student in class",
       docmodel.key(1001, 'orders', 'value')                  AS "companion",
       docmodel.key('customer_ref', 12345)                    AS "lookup";
SELECT docmodel.revision_key('user::123', 4)                  AS "revision 4",
       docmodel.key_with(':', 'user', 123)                    AS "delimiter ':'",
       docmodel.key_with('_', 'user', 123)                    AS "delimiter '_'";

\echo 'UUID keys: 32 hex digits (no dashes), time-ordered (UUIDv7), so new keys sort last.'
SELECT docmodel.uuid_key('user') AS k FROM generate_series(1, 3);

\echo 'Parse keys back into their parts.'
SELECT k,
       docmodel.key_type(k)   AS type,
       docmodel.key_id(k)     AS id,
       docmodel.key_parent(k) AS parent,
       docmodel.key_parts(k)  AS parts
FROM (VALUES ('user::123'), ('user::foo.org::12345'), ('user::123::v::4'), ('user')) v(k);

\echo 'Check keys without raising: key_is_valid.'
SELECT CASE WHEN length(k) > 20 THEN left(k, 6) || '... (' || length(k) || ' bytes)' ELSE k END AS k,
       docmodel.key_is_valid(k) AS valid
FROM (VALUES ('user::123'), ('user::'), ('a:::b'), (repeat('x', 251))) v(k);

\echo 'Keys are strict: a NULL part, a part holding the delimiter, or a date (whose text'
\echo 'form depends on DateStyle) is an error, not a silently different key.'
\set ON_ERROR_STOP 0
SELECT docmodel.key('user', NULL::int);
SELECT docmodel.key('user', 'fred::smith');
SELECT docmodel.key('day', current_date);
\set ON_ERROR_STOP 1
SELECT docmodel.key('day', to_char(date '2024-01-02', 'YYYY-MM-DD')) AS "cast it instead";
