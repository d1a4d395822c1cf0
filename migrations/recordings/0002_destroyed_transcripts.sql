-- A destroyed transcript (destroyed by its owner, or expired by retention) takes its recordings and
-- every stored file with it: the consumer requests it, the purge job carries it out.

-- Set when the recording must go: the row is removed once every file of it is deleted.
alter table recording add column delete_requested_at timestamptz;
create index idx_recording_delete_requested on recording (delete_requested_at) where delete_requested_at is not null;

-- The transcript's own objects in the transcripts bucket (`<transcript_id>/…`: mixdown, waveform,
-- upload, work files) to delete.
create table transcript_purge (
  transcript_id text primary key,
  bucket text not null,
  reason text not null,
  requested_at timestamptz not null default now(),
  done_at timestamptz
);
create index idx_transcript_purge_pending on transcript_purge (requested_at) where done_at is null;
