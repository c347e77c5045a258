-- pg_temp.forge_ver(coll, key, ver): give the stored document key of
-- collection coll the version ver with the collection's triggers off (as a
-- restore may), where its meta style keeps the version: doc's _ver, or the
-- column ver for meta_style 'columns' (which docmodel.default_meta_style may
-- give a collection made without meta_style). A version the integer column
-- cannot hold (past 2147483647) is stored, under columns, in a row whose ver
-- is null: the whole document as the underscore style stores it, as
-- set_meta_style leaves a row it could not convert, which a columns
-- collection reads and writes as that style does. So a test forges the same
-- version under either style, and shows the same outcome.
CREATE FUNCTION pg_temp.forge_ver(coll regclass, key text, ver bigint) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('ALTER TABLE %s DISABLE TRIGGER USER', coll);
  IF NOT EXISTS (SELECT FROM pg_attribute
                 WHERE attrelid = coll AND attname = 'ver' AND NOT attisdropped) THEN
    EXECUTE format('UPDATE %s SET doc = doc || jsonb_build_object(''_ver'', %s) WHERE id = %L',
                   coll, ver, key);
  ELSIF ver <= 2147483647 THEN
    EXECUTE format('UPDATE %s SET ver = %s WHERE id = %L', coll, ver, key);
  ELSE
    EXECUTE format('UPDATE %1$s AS c SET doc = d.doc || jsonb_build_object(''_ver'', %2$s), '
                   'ver = NULL, created_at = NULL, modified_at = NULL, created_by = NULL, '
                   'modified_by = NULL FROM %3$s AS d WHERE c.id = %4$L AND d.id = c.id',
                   coll, ver, (SELECT c.documents FROM docmodel.collection_config AS c
                               WHERE c.coll = forge_ver.coll), key);
  END IF;
  EXECUTE format('ALTER TABLE %s ENABLE TRIGGER USER', coll);
END $$;
