-- An upload being assembled (its chunks joined, the file probed, leftovers removed): claimed in a
-- short transaction before that work runs outside any transaction, released when its outcome is
-- recorded. A claim older than the lease is an assembly whose process died; it may be taken over.
create table upload_assembly (
  transcript_id text primary key,
  claimed_at timestamptz not null
);
