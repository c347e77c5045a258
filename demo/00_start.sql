-- The docmodel tour: the document-modeling patterns, end to end.
-- Run by `make demo` on a throwaway cluster; each chapter is a file in demo/.
\pset footer off
\pset null '(null)'
SET client_min_messages = warning;
CREATE EXTENSION docmodel;
RESET client_min_messages;
\echo
\echo '================================================================'
\echo ' docmodel tour: Couchbase-style document modeling in PostgreSQL'
\echo '================================================================'
