-- docmodel 0.1.0 -> 0.2.0 (ALTER EXTENSION docmodel UPDATE TO '0.2.0').
-- Every change to SQL objects since 0.1.0 goes both into sql/docmodel.sql (the fresh 0.2.0
-- install) and here; test/upgrade checks that both give the same objects.
\echo Use "ALTER EXTENSION docmodel UPDATE TO '0.2.0'" to load this file. \quit

-- ---------------------------------------------------------------------------
-- issue 18 (integrity), findings 3, 7, 8, 9: migration errors say where.
-- _migration_batch also returns the migration's error context (step, op,
-- key, path), recorded with the run's error and raised by migrate_collection.
-- Its OUT columns change, so it is dropped and created again.
-- ---------------------------------------------------------------------------
DROP FUNCTION docmodel._migration_batch(bigint, integer);
CREATE FUNCTION docmodel._migration_batch(run bigint, batch_size integer,
	OUT n bigint, OUT done bigint, OUT total bigint,
	OUT err_state text, OUT err_message text, OUT err_detail text, OUT err_hint text,
	OUT err_context text)
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	r docmodel.migration_run;
	batch_end text;
	ctx text;
BEGIN
	SELECT * INTO STRICT r FROM docmodel.migration_run m WHERE m.run_id = run;
	done := r.docs_done;
	total := r.docs_total;
	BEGIN
		EXECUTE format('SELECT max(id), count(*)
			FROM (SELECT id FROM %s
				WHERE ($1 IS NULL OR id > $1) AND docmodel._migration_pending(doc, $2, $3)
				ORDER BY id LIMIT $4) b', r.coll)
		INTO batch_end, n USING r.last_key, r.doc_type, r.target, batch_size;
		IF n = 0 THEN
			UPDATE docmodel.migration_run m
			SET status = 'done', finished_at = clock_timestamp(), docs_total = done
			WHERE m.run_id = run;
			total := done;
			RETURN;
		END IF;
		EXECUTE format('UPDATE %s SET doc = docmodel._migrate_doc(doc, $3, id)
			WHERE ($1 IS NULL OR id > $1) AND id <= $4
				AND docmodel._migration_pending(doc, $2, $3)', r.coll)
		USING r.last_key, r.doc_type, r.target, batch_end;
		GET DIAGNOSTICS n = ROW_COUNT;
		done := done + n;
		UPDATE docmodel.migration_run m SET last_key = batch_end, docs_done = done
		WHERE m.run_id = run;
		-- n = 0 means finished: a batch whose documents were all migrated
		-- meanwhile by their writers still counts as progress
		n := greatest(n, 1);
	EXCEPTION WHEN query_canceled OR others THEN
		-- The batch rolled back; record why, keep what committed.
		GET STACKED DIAGNOSTICS err_state = RETURNED_SQLSTATE, err_message = MESSAGE_TEXT,
			err_detail = PG_EXCEPTION_DETAIL, err_hint = PG_EXCEPTION_HINT,
			ctx = PG_EXCEPTION_CONTEXT;
		-- where in the migration: the lines of docmodel's error context
		SELECT string_agg(l, E'\n') INTO err_context
		FROM regexp_split_to_table(ctx, E'\n') AS l
		WHERE l LIKE 'migration %';
		UPDATE docmodel.migration_run m
		SET status = CASE WHEN err_state = '57014' THEN 'cancelled' ELSE 'failed' END,
			error = err_message || coalesce(' (' || nullif(err_detail, '') || ')', '')
				|| coalesce('; ' || err_context, '')
		WHERE m.run_id = run;
		n := 0;
	END;
END
$$;
COMMENT ON FUNCTION docmodel._migration_batch(bigint, integer) IS
	'docmodel internal: migrate the next batch of a run (n = 0: finished, or failed with err_state, err_message and where in the migration, err_context)';
