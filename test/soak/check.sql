-- make soak: the checks after the run. Every broken rule is a row of soak.problems;
-- scripts/soak.sh fails when there is one.
\set ON_ERROR_STOP on
\set QUIET on
\pset footer off
SET client_min_messages = warning;
CREATE TABLE soak.problems (what text, detail text);

\echo '--- errors by SQLSTATE (expected: CAS conflicts, DocumentExists/NotFound of the races) ---'
SELECT op, sqlstate, expected, count(*) AS errors FROM soak.errors
GROUP BY 1, 2, 3 ORDER BY 3, 1, 2;
\echo '--- replace with CAS ---'
SELECT outcome, count(*) FROM soak.casruns GROUP BY 1 ORDER BY 1;

INSERT INTO soak.problems
SELECT CASE WHEN sqlstate = '23505' AND constraint_name LIKE '%revisions_pkey'
	THEN 'stuck key: an update collides with a stored revision'
	ELSE 'unexpected error ' || sqlstate || ' in ' || op END,
	min(message) || ' (' || count(*) || ' times)'
FROM soak.errors WHERE NOT expected GROUP BY 1;
INSERT INTO soak.problems
SELECT CASE WHEN line LIKE '%revisions_pkey%'
	THEN 'stuck key: migrate_collection collides with a stored revision'
	ELSE 'migrate_collection loop error' END, line
FROM soak.migrate_errors;

-- every counter value handed out once, and every document made with it kept
INSERT INTO soak.problems
SELECT 'next_key handed out twice', key || ' (' || count(*) || ' times)'
FROM soak.handed GROUP BY key HAVING count(*) > 1;
INSERT INTO soak.problems
SELECT 'document of a handed-out key missing', h.key
FROM soak.handed h WHERE NOT EXISTS (SELECT FROM soak s WHERE s.id = h.key);
INSERT INTO soak.problems
SELECT 'counter behind the keys it handed out',
	format('counter %s, highest key handed out %s', docmodel.counter_value('user'), max(docmodel.key_id(key)::bigint))
FROM soak.handed
HAVING max(docmodel.key_id(key)::bigint) > docmodel.counter_value('user');

-- versions: per key, revisions (ver, op) then the live document's _ver (read through the
-- documents view: with docmodel.default_meta_style columns the version is a column). Consecutive
-- versions differ by one unless a delete (tombstone) came between; the live _ver is above
-- every revision's.
CREATE TEMP VIEW hist AS
	SELECT h.id, h.ver, h.op FROM soak_revisions h;
CREATE TEMP VIEW steps AS
	SELECT id, ver, op, lead(ver) OVER (PARTITION BY id ORDER BY ver) AS next_ver FROM hist;
CREATE TEMP VIEW newest AS
	SELECT DISTINCT ON (id) id, ver, op FROM hist ORDER BY id, ver DESC;
INSERT INTO soak.problems
SELECT 'version gap no delete caused', format('%s: revision %s (%s) then %s', id, ver, op, next_ver)
FROM steps WHERE next_ver <> ver + 1 AND op NOT IN ('delete', 'truncate', 'expire');
INSERT INTO soak.problems
SELECT CASE WHEN n.op = 'delete'
	THEN 'stuck key: document after a delete at the tombstone''s version'
	ELSE 'document _ver not above its newest revision' END,
	format('%s: _ver %s, newest revision %s (%s)', s.id, s.doc->>'_ver', n.ver, n.op)
FROM soak_documents s JOIN newest n USING (id) WHERE (s.doc->>'_ver')::int <= n.ver;
INSERT INTO soak.problems
SELECT 'version gap after the newest revision',
	format('%s: newest revision %s (update), _ver %s', s.id, n.ver, s.doc->>'_ver')
FROM soak_documents s JOIN newest n USING (id)
WHERE n.op = 'update' AND (s.doc->>'_ver')::int <> n.ver + 1;
INSERT INTO soak.problems
SELECT 'absent document whose newest revision is not a delete',
	format('%s: newest revision %s (%s)', n.id, n.ver, n.op)
FROM newest n WHERE n.op <> 'delete' AND NOT EXISTS (SELECT FROM soak s WHERE s.id = n.id);

-- amcheck: every index of the collection, its history table and docmodel's own tables
\echo '--- amcheck (bt_index_check with heapallindexed) ---'
SELECT c.relname AS "table", i.indexrelid::regclass AS "index",
	bt_index_check(i.indexrelid, true) IS NOT NULL AS checked
FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_am a ON a.oid =
	(SELECT relam FROM pg_class WHERE oid = i.indexrelid)
WHERE a.amname = 'btree' AND (c.oid IN ('soak'::regclass, 'soak_revisions'::regclass)
	OR c.relnamespace = 'docmodel'::regnamespace)
ORDER BY 1, 2;

\echo '--- figures ---'
SELECT (SELECT count(*) FROM soak) AS documents,
	(SELECT count(*) FROM soak_revisions) AS revisions,
	(SELECT count(*) FROM soak.handed) AS keys_handed_out,
	(SELECT count(*) FROM soak.errors) AS errors,
	(SELECT count(*) FROM soak.errors WHERE NOT expected) AS unexpected,
	docmodel.current_version('user')::text AS schema_version;

\echo '--- problems ---'
SELECT what, count(*) AS n, min(detail) AS example FROM soak.problems GROUP BY what ORDER BY what;
