-- The transcript write side (behaviour-transcripts-pipelines §1.1). Every change bumps `version`
-- and is emitted on the TRANSCRIPTS stream; the projection builds the read model from those events.
create table transcript (
  id text primary key,
  version integer not null,
  name text not null,
  status text not null,
  -- Why status became `error`.
  error text,
  locked boolean not null default false,
  -- Milliseconds.
  duration double precision not null default 0,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  title text,
  short_summary text,
  long_summary text,
  action_items jsonb,
  participants jsonb not null default '[]',
  -- Stored topics in order (TopicRecord[]); `webvtt` is derived from their words.
  topics jsonb not null default '[]',
  -- The current run's realtime event log ({event, data}), kept so a repeated append emits nothing.
  events jsonb not null default '[]',
  source_language text not null,
  target_language text not null,
  reviewed boolean not null default false,
  audio_location text not null default 'local',
  audio_deleted boolean,
  user_id text,
  share_mode text not null default 'private',
  source_kind text not null,
  meeting_id text,
  recording_id text,
  room_id text,
  webvtt text,
  deleted_at timestamptz,
  -- The workflow run allowed to write (stale-run guard); a reprocess replaces it.
  current_run_id text,
  -- The run whose completion was emitted (a repeated `complete` emits nothing).
  completed_run_id text,
  -- The recording.ready that made this transcript processable: what a reprocess runs on.
  recording_source jsonb
);

-- One transcript per recording: a duplicate recording.ready cannot make a second one.
create unique index uq_transcript_recording on transcript (recording_id) where recording_id is not null;
create index idx_transcript_user on transcript (user_id);
