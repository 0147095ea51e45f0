-- Trigram matching for substring and wildcard search over post text (the posts table's GIN trigram index).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
