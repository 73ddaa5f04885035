-- Up Migration

-- Documents Elasticsearch refused for a reason of their own (mapping, parse, size), which a retry
-- would meet again: the indexer records them here and goes on instead of retrying its batch
-- forever (indexer/quarantine.ts). One row per document id (src/search/documents/model.ts
-- `docId`); the listing stays out of the index until its row's next change is accepted, which
-- deletes the row. A rebuild's swap deletes the rows it did not refuse again.
CREATE TABLE index_quarantine (
  doc_id text PRIMARY KEY,
  error_type text NOT NULL,
  reason text NOT NULL,
  first_refused_at timestamptz NOT NULL DEFAULT now(),
  last_refused_at timestamptz NOT NULL DEFAULT now(),
  refusals integer NOT NULL DEFAULT 1
);

-- Down Migration
DROP TABLE index_quarantine;
