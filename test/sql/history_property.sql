-- Queries over history against a replay: 10,000 random writes, deletes,
-- re-inserts, rename_keys and restores over 1,000 keys, each in its own
-- transaction (so each has its own time), logged with the document each key
-- holds after it. Then at 1,000 random times get(..., as_of) and
-- collection_as_of agree with the replay of the log, changes applied in
-- order rebuild every version, and blame agrees with a brute-force scan.
SET docmodel.actor = 'prop';
SELECT setseed(0.4242);
SELECT docmodel.create_collection('hprop', revisions => 100000) IS NOT NULL AS created;
-- The log: after event seq at time at, key holds doc (NULL: absent).
CREATE TABLE hprop_log (seq bigserial PRIMARY KEY, at timestamptz NOT NULL, key text NOT NULL,
                        doc jsonb, rename_to text);
CREATE PROCEDURE hprop_run(n integer) LANGUAGE plpgsql AS $$
DECLARE
  k text; d jsonb; v integer; r float8; nk text; renames integer := 0;
BEGIN
  FOR i IN 1..n LOOP
    k := 'p::' || (1 + floor(random() * 1000))::int;
    d := docmodel.get('hprop', k);
    r := random();
    IF d IS NULL THEN
      SELECT max(h.ver) INTO v FROM hprop_revisions h WHERE h.id = k;
      IF v IS NOT NULL AND r < 0.4 THEN
        -- a restore of one of its revisions (an insert after its delete)
        SELECT h.ver INTO v FROM hprop_revisions h WHERE h.id = k ORDER BY random() LIMIT 1;
        PERFORM docmodel.restore('hprop', k, v);
      ELSE
        PERFORM docmodel.insert('hprop', k, jsonb_build_object('n', i, 'a', jsonb_build_object('x', i % 7, 'y', '[]'::jsonb)));
      END IF;
      INSERT INTO hprop_log (at, key, doc) VALUES (now(), k, docmodel.get('hprop', k));
    ELSIF r < 0.15 THEN
      DELETE FROM hprop WHERE id = k;
      INSERT INTO hprop_log (at, key, doc) VALUES (now(), k, NULL);
    ELSIF r < 0.19 THEN
      renames := renames + 1;
      nk := 'p::r' || i;
      PERFORM docmodel.rename_key('hprop', k, nk);
      INSERT INTO hprop_log (at, key, doc, rename_to) VALUES (now(), k, NULL, nk);
      INSERT INTO hprop_log (at, key, doc) VALUES (now(), nk, docmodel.get('hprop', nk));
    ELSIF r < 0.27 THEN
      SELECT h.ver INTO v FROM hprop_revisions h WHERE h.id = k ORDER BY random() LIMIT 1;
      IF v IS NOT NULL THEN
        PERFORM docmodel.restore('hprop', k, v);
        INSERT INTO hprop_log (at, key, doc) VALUES (now(), k, docmodel.get('hprop', k));
      END IF;
    ELSE
      r := random();
      UPDATE hprop SET doc = CASE
          WHEN r < 0.3 THEN jsonb_set(doc, '{n}', to_jsonb(i))
          WHEN r < 0.5 THEN jsonb_set(doc, '{a,x}', to_jsonb(i % 5))
          WHEN r < 0.7 THEN jsonb_set(doc, '{a,y}', (doc->'a'->'y') || to_jsonb(i % 3))
          WHEN r < 0.85 THEN doc || jsonb_build_object('b', jsonb_build_object('c', i))
          ELSE doc - 'b' END
        WHERE id = k;
      INSERT INTO hprop_log (at, key, doc) VALUES (now(), k, docmodel.get('hprop', k));
    END IF;
    COMMIT;
  END LOOP;
END $$;
CALL hprop_run(10000);
SELECT count(*) >= 10000 AS logged, count(DISTINCT key) > 1000 AS keys,
       count(*) FILTER (WHERE rename_to IS NOT NULL) > 100 AS renames,
       count(DISTINCT at) = count(DISTINCT seq) - count(*) FILTER (WHERE rename_to IS NOT NULL) AS one_time_per_write
  FROM hprop_log;

-- The replay's timeline: each event takes effect at its time, except that
-- a key coming into existence (insert, restore after a delete, the new key
-- of a rename) does at its modified stamp (a millisecond: the start of it),
-- not before the key's event before; a rename moves the old key's past to
-- the new key, and the old key keeps its last version from that version's
-- stamp (the rules of doc/revisions.md, "As of a time").
CREATE TABLE hprop_line (seq bigint, sub integer, key text, eff timestamptz, doc jsonb);
DO $$
DECLARE
  e record; prev timestamptz; was jsonb; stamp timestamptz;
BEGIN
  FOR e IN SELECT * FROM hprop_log ORDER BY seq LOOP
    SELECT l.eff, l.doc INTO prev, was FROM hprop_line l WHERE l.key = e.key ORDER BY l.seq DESC, l.sub DESC LIMIT 1;
    IF e.rename_to IS NOT NULL THEN
      UPDATE hprop_line SET key = e.rename_to WHERE key = e.key;
      stamp := to_timestamp((was->>'_modified')::bigint / 1000.0);
      INSERT INTO hprop_line VALUES (e.seq, 0, e.key, stamp, was), (e.seq, 1, e.key, e.at, NULL);
    ELSIF e.doc IS NOT NULL AND was IS NULL THEN
      stamp := to_timestamp((e.doc->>'_modified')::bigint / 1000.0);
      INSERT INTO hprop_line VALUES (e.seq, 0, e.key, GREATEST(stamp, prev), e.doc);
    ELSE
      INSERT INTO hprop_line VALUES (e.seq, 0, e.key, e.at, e.doc);
    END IF;
  END LOOP;
END $$;
CREATE INDEX ON hprop_line (key, eff, seq, sub);
-- 1,000 random times over the run
CREATE TABLE hprop_times AS
  SELECT g AS n, (SELECT min(at) - interval '1 ms' FROM hprop_log)
                 + random() * ((SELECT max(at) FROM hprop_log) - (SELECT min(at) FROM hprop_log) + interval '2 ms') AS t
  FROM generate_series(1, 1000) g;
CREATE FUNCTION hprop_state(k text, t timestamptz) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT l.doc FROM hprop_line l WHERE l.key = k AND l.eff <= t ORDER BY l.eff DESC, l.seq DESC, l.sub DESC LIMIT 1 $$;
-- get(..., as_of): at each time, a sample of the keys (one in 40: over 30,000 checks)
SELECT count(*) > 30000 AS checked_over_30000, count(DISTINCT t.n) AS times,
       count(*) FILTER (WHERE docmodel.get('hprop', k.key, as_of => t.t) IS DISTINCT FROM hprop_state(k.key, t.t)) AS get_as_of_disagree,
       count(*) FILTER (WHERE hprop_state(k.key, t.t) IS NOT NULL) > 20000 AS present_over_20000
  FROM hprop_times t, (SELECT DISTINCT key FROM hprop_log) k
  WHERE abs(hashtext(k.key || t.n)) % 40 = 0;
-- collection_as_of: the whole collection at every time
SELECT count(*) AS times,
       count(*) FILTER (WHERE NOT agree) AS collection_as_of_disagree
  FROM (SELECT t.n,
          (SELECT coalesce(jsonb_object_agg(c.id, c.doc), '{}') FROM docmodel.collection_as_of('hprop', t.t) c)
          = (SELECT coalesce(jsonb_object_agg(s.key, s.doc), '{}') FROM
               (SELECT DISTINCT ON (l.key) l.key, l.doc FROM hprop_line l WHERE l.eff <= t.t
                ORDER BY l.key, l.eff DESC, l.seq DESC, l.sub DESC) s
             WHERE s.doc IS NOT NULL) AS agree
        FROM hprop_times t) x;
-- changes applied in order rebuild every version (every revision and the
-- current document)
CREATE FUNCTION hprop_rebuild(k text) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE c record; s jsonb; bad integer := 0; want jsonb;
BEGIN
  FOR c IN SELECT * FROM docmodel.changes('hprop', k) LOOP
    IF c.op IN ('insert', 'update') THEN
      s := docmodel.patch(coalesce(s, '{}'), c.patch);
      want := coalesce(docmodel.get_revision('hprop', k, c.ver),
                       (SELECT h.doc FROM hprop h WHERE h.id = k AND (h.doc->>'_ver')::int = c.ver));
      IF want IS DISTINCT FROM s THEN bad := bad + 1; END IF;
    ELSE
      s := NULL;
    END IF;
  END LOOP;
  RETURN bad;
END $$;
SELECT count(*) AS keys, sum(hprop_rebuild(k.key)) AS versions_not_rebuilt,
       (SELECT count(*) FROM hprop_revisions) + (SELECT count(*) FROM hprop) AS versions
  FROM (SELECT DISTINCT key FROM hprop_line) k;
-- blame against a brute-force scan: for each pointer of the current
-- document, walk back through the versions it replaced while the value
-- there is the same
CREATE FUNCTION hprop_blame(k text) RETURNS TABLE(path text, ver integer) LANGUAGE plpgsql AS $$
DECLARE
  cur jsonb; p record; v integer; r record;
BEGIN
  SELECT h.doc INTO cur FROM hprop h WHERE h.id = k;
  IF cur IS NULL THEN RETURN; END IF;
  FOR p IN SELECT * FROM docmodel._pointers(cur) x WHERE x.pointer <> '' LOOP
    v := (cur->>'_ver')::int;
    LOOP
      SELECT * INTO r FROM hprop_revisions h WHERE h.id = k AND h.ver = v - 1;
      EXIT WHEN r IS NULL OR r.op NOT IN ('update', 'expire')
             OR (r.doc #> p.path) IS DISTINCT FROM p.value;
      v := v - 1;
    END LOOP;
    path := p.pointer; ver := v;
    RETURN NEXT;
  END LOOP;
END $$;
SELECT count(*) AS pointers,
       count(*) FILTER (WHERE b.ver IS DISTINCT FROM f.ver) AS blame_disagree
  FROM hprop h, LATERAL hprop_blame(h.id) f
  LEFT JOIN LATERAL (SELECT x.ver FROM docmodel.blame('hprop', h.id) x WHERE x.path = f.path) b ON true;
SELECT count(*) AS blame_rows FROM hprop h, LATERAL docmodel.blame('hprop', h.id) b;
DROP PROCEDURE hprop_run(integer);
SELECT docmodel.drop_collection('hprop');
DROP TABLE hprop_log, hprop_line, hprop_times;
DROP FUNCTION hprop_state(text, timestamptz), hprop_rebuild(text), hprop_blame(text);
