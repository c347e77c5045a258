-- pg_temp.try(sql): run a statement and show its outcome as 'ok' or
-- 'SQLSTATE: message (detail)', so expected output shows both the code and
-- the message of every error without source locations.
CREATE FUNCTION pg_temp.try(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE st text; msg text; det text;
BEGIN
  EXECUTE sql;
  RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL;
  RETURN st || ': ' || msg || coalesce(' (' || nullif(det, '') || ')', '');
END $$;
