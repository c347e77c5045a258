-- make soak: the collection, its outdated documents, and the operations the pgbench clients
-- run. Every operation catches its own error and records it in soak.errors (expected or not),
-- so a client never stops and check.sql sees every error by SQLSTATE.
\set ON_ERROR_STOP on
SET client_min_messages = warning;
CREATE EXTENSION docmodel;
CREATE EXTENSION amcheck;
-- revisions on, and enough kept that the whole history of the run stays to be checked
SELECT docmodel.create_collection('soak', doc_type => 'user', revisions => 1000000);

CREATE SCHEMA soak;
CREATE TABLE soak.errors (at timestamptz DEFAULT clock_timestamp(), op text, sqlstate text,
	constraint_name text, message text, expected boolean);
CREATE TABLE soak.handed (key text, at timestamptz DEFAULT clock_timestamp());
CREATE TABLE soak.casruns (outcome text);
CREATE TABLE soak.migrate_errors (line text);

-- Cold documents, written before any migration exists: outdated once the first one is
-- registered, then read (migrate on read) and migrated in place (migrate_collection).
INSERT INTO soak (id, doc, cas)
SELECT 'user::c' || i, jsonb_build_object('name', 'cold ' || i, 'n', 0), 0
FROM generate_series(1, 2000) i;
-- Hot documents: the keys every client races on.
SELECT docmodel.insert('soak', 'user::h' || i, jsonb_build_object('name', 'hot ' || i, 'n', 0))
FROM generate_series(1, 30) i;

-- Record an error; which ones a run may meet is decided here, once.
CREATE FUNCTION soak.fail(op text, state text, cons text, msg text) RETURNS void
LANGUAGE sql AS $$
	INSERT INTO soak.errors (op, sqlstate, constraint_name, message, expected)
	VALUES (op, state, cons, msg,
		CASE
		-- CAS conflicts of replace with a CAS
		WHEN state = '40001' AND op = 'replace_cas' THEN true
		-- a re-insert (insert, or an upsert of an absent key) whose version a
		-- concurrent delete's tombstone took: refused, retryable
		WHEN state = '40001' AND op IN ('insert_hot', 'update_hot')
			AND msg LIKE '%was deleted while it was inserted again' THEN true
		-- DocumentExists: a re-insert racing another (never the history table's key)
		WHEN state = '23505' AND op = 'insert_hot'
			AND coalesce(cons, '') NOT LIKE '%revisions%' THEN true
		-- DocumentNotFound: a remove, replace or mutate_in of a key another
		-- client removed (or, for unlock, a lock another client's write ended)
		WHEN state = 'P0002' AND op IN ('remove_hot', 'replace_cas', 'mutate_hot')
			THEN true
		-- DocumentLocked: a write to a hot key that mutate_hot holds locked
		WHEN state = '55P03' AND op IN ('remove_hot', 'replace_cas', 'insert_hot',
			'update_hot', 'mutate_hot') THEN true
		-- the lock of mutate_hot ended (or the document went) before its write
		WHEN state IN ('40001', '55000') AND op = 'mutate_hot' THEN true
		ELSE false END)
$$;

CREATE FUNCTION soak.insert_new() RETURNS void LANGUAGE plpgsql AS $$
DECLARE k text; st text; cn text; msg text;
BEGIN
	k := docmodel.next_key('user');
	PERFORM docmodel.insert('soak', k, jsonb_build_object('name', k, 'n', 0));
	INSERT INTO soak.handed (key) VALUES (k);
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, cn = CONSTRAINT_NAME, msg = MESSAGE_TEXT;
	PERFORM soak.fail('insert_new', st, cn, msg);
END $$;

-- replace at the CAS just read, retried up to 5 times on a CAS conflict
CREATE FUNCTION soak.replace_cas(i int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE k text := 'user::h' || i; d jsonb; c bigint; try int; st text; cn text; msg text;
BEGIN
	FOR try IN 1..5 LOOP
		SELECT g.doc, g.cas INTO d, c FROM docmodel.get_multi('soak', ARRAY[k]) g;
		IF NOT FOUND THEN
			INSERT INTO soak.casruns VALUES ('absent');
			RETURN;
		END IF;
		BEGIN
			PERFORM docmodel.replace('soak', k,
				d || jsonb_build_object('n', coalesce((d->>'n')::int, 0) + 1), c);
			INSERT INTO soak.casruns VALUES (CASE WHEN try = 1 THEN 'first try' ELSE 'retried' END);
			RETURN;
		EXCEPTION WHEN OTHERS THEN
			GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, cn = CONSTRAINT_NAME, msg = MESSAGE_TEXT;
			PERFORM soak.fail('replace_cas', st, cn, msg);
			IF st <> '40001' THEN
				RETURN;
			END IF;
		END;
	END LOOP;
	INSERT INTO soak.casruns VALUES ('gave up');
END $$;

CREATE FUNCTION soak.remove_hot(i int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE st text; cn text; msg text;
BEGIN
	PERFORM docmodel.remove('soak', 'user::h' || i);
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, cn = CONSTRAINT_NAME, msg = MESSAGE_TEXT;
	PERFORM soak.fail('remove_hot', st, cn, msg);
END $$;

CREATE FUNCTION soak.insert_hot(i int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE st text; cn text; msg text;
BEGIN
	PERFORM docmodel.insert('soak', 'user::h' || i, jsonb_build_object('name', 'hot ' || i, 'n', 0));
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, cn = CONSTRAINT_NAME, msg = MESSAGE_TEXT;
	PERFORM soak.fail('insert_hot', st, cn, msg);
END $$;

-- an update in plain SQL (the trigger files the revision), or an upsert
CREATE FUNCTION soak.update_hot(i int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE st text; cn text; msg text;
BEGIN
	IF i % 2 = 0 THEN
		UPDATE soak SET doc = doc || jsonb_build_object('u', random()) WHERE id = 'user::h' || i;
	ELSE
		PERFORM docmodel.upsert('soak', 'user::h' || i,
			jsonb_build_object('name', 'hot ' || i, 'n', 0, 'u', random()));
	END IF;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, cn = CONSTRAINT_NAME, msg = MESSAGE_TEXT;
	PERFORM soak.fail('update_hot', st, cn, msg);
END $$;

-- the sub-document API on hot keys: a counter field and an array, in one write
CREATE FUNCTION soak.mutate_hot(i int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE st text; cn text; msg text;
BEGIN
	PERFORM docmodel.mutate_in('soak', 'user::h' || i,
		'[{"op": "increment", "path": "hits"},
		  {"op": "array_append", "path": "log.last", "value": 1, "create_path": true},
		  {"op": "remove", "path": "log.last[0]"}]');
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, cn = CONSTRAINT_NAME, msg = MESSAGE_TEXT;
	PERFORM soak.fail('mutate_hot', st, cn, msg);
END $$;

-- a lock on a hot key (committed: other clients meet it), returning its cas
-- (0 when it could not be taken); write_locked writes with that cas (unlocking)
CREATE FUNCTION soak.lock_hot(i int) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE c bigint; st text; cn text; msg text;
BEGIN
	SELECT g.cas INTO c FROM docmodel.get_and_lock('soak', 'user::h' || i, 1) g;
	RETURN coalesce(c, 0);
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, cn = CONSTRAINT_NAME, msg = MESSAGE_TEXT;
	PERFORM soak.fail('mutate_hot', st, cn, msg);
	RETURN 0;
END $$;

CREATE FUNCTION soak.write_locked(i int, c bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE st text; cn text; msg text;
BEGIN
	IF c <> 0 THEN
		PERFORM docmodel.mutate_in('soak', 'user::h' || i,
			'[{"op": "increment", "path": "locked_writes"}]', cas => c);
	END IF;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, cn = CONSTRAINT_NAME, msg = MESSAGE_TEXT;
	PERFORM soak.fail('mutate_hot', st, cn, msg);
END $$;

-- migrate on read: get() and get_multi() of cold documents (never removed: NULL is an error)
CREATE FUNCTION soak.read_cold(i int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE st text; cn text; msg text; d jsonb; n int;
BEGIN
	d := docmodel.get('soak', 'user::c' || i);
	IF d IS NULL THEN
		RAISE EXCEPTION 'get() of cold key user::c% returned NULL', i USING ERRCODE = 'XX001';
	END IF;
	SELECT count(*) INTO n FROM docmodel.get_multi('soak',
		ARRAY(SELECT 'user::c' || j FROM generate_series(i, i + 9) j WHERE j <= 2000));
	IF n <> least(10, 2001 - i) THEN
		RAISE EXCEPTION 'get_multi() from user::c% returned % documents', i, n USING ERRCODE = 'XX001';
	END IF;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, cn = CONSTRAINT_NAME, msg = MESSAGE_TEXT;
	PERFORM soak.fail('read_cold', st, cn, msg);
END $$;
