-- Recordings and their stored files; the service's copy of what it needs about transcripts; upload chunks.

-- A recording: a platform recording (from recording.available) or an upload. `id` is the platform's
-- recording id (platform A) or one Scribe generated, so a duplicate delivery finds its row.
-- `object_key` is deliberately not unique: several recordings may name the same object.
create table recording (
  id text primary key,
  source text not null,                 -- platform | upload
  kind text not null,                   -- multitrack | file | composed_video
  platform text,
  bucket text not null,
  object_key text,
  meeting_id text,
  room_id text,
  room_name text,
  owner_user_id text,
  transcript_id text,
  recorded_at timestamptz not null,
  duration_seconds double precision,
  participants jsonb not null default '[]',
  created_at timestamptz not null default now()
);
create index idx_recording_transcript on recording (transcript_id);
create index idx_recording_meeting_video on recording (meeting_id, created_at) where kind = 'composed_video';

-- Every stored file of a recording. A deletion is first requested (in the transaction that decides
-- it), then carried out against storage and marked done.
create table recording_file (
  recording_id text not null references recording (id) on delete cascade,
  position integer not null,
  role text not null,                   -- audio_track | video_track | file | upload | composed_video
  bucket text not null,
  key text not null,
  size bigint,
  start_offset_seconds double precision,
  participant_id text,
  participant_name text,
  user_id text,
  delete_requested_at timestamptz,
  deleted_at timestamptz,
  deleted_reason text,
  primary key (recording_id, position)
);
create index idx_recording_file_pending on recording_file (delete_requested_at)
  where delete_requested_at is not null and deleted_at is null;

-- Transcript state as the TRANSCRIPTS stream carries it (access rules, links, zip metadata).
create table transcript (
  id text primary key,
  version integer not null,
  state jsonb not null,
  recording_id text,
  meeting_id text,
  destroyed_at timestamptz
);
create index idx_transcript_recording on transcript (recording_id);

create table transcript_topic (
  transcript_id text not null,
  position integer not null,
  version integer not null,
  topic jsonb not null,
  primary key (transcript_id, position)
);

-- The processed audio of a transcript that delete_media removed (consent, retention).
create table deleted_mixdown (
  transcript_id text primary key,
  bucket text not null,
  key text not null,
  reason text not null,
  deleted_at timestamptz not null default now()
);

-- Upload chunks stored by the gateway, until the last one is assembled.
create table upload_chunk (
  transcript_id text not null,
  chunk_number integer not null,
  bucket text not null,
  key text not null,
  size bigint not null,
  stored_at timestamptz not null default now(),
  primary key (transcript_id, chunk_number)
);
