-- Verify docmodel_tools:user_2 on pg

SELECT 1 / count(*) FROM docmodel.migration_rules WHERE doc_type = 'user' AND to_version::text = '2.0';
