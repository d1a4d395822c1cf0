-- Retention on public instances (PUBLIC_MODE), moved here from the notifier: the owner of
-- transcripts decides which anonymous ones expired, from its own table.

-- One retention run per day (replicas race for the row; one wins).
create table retention_run (
  run_date date primary key,
  started_at timestamptz not null,
  finished_at timestamptz,
  expired integer not null default 0
);

-- Retention's candidates: anonymous, live, by age.
create index idx_transcript_retention on transcript (created_at) where user_id is null and deleted_at is null;
