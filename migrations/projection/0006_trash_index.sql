-- The trash view (search with include_deleted=true): a user's own soft-deleted transcripts. Every
-- other index on transcript is partial on `deleted_at is null`, so the trash had none but a scan of
-- the whole table (and the search service, which turns sequential scans off, got a plan priced so
-- high that PostgreSQL JIT-compiled it: ~300 ms on a 50-row read model).
create index idx_transcript_trash on transcript (user_id, deleted_at desc) where deleted_at is not null;
