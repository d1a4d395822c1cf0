-- Live recordings (behaviour §10): one row per WebRTC session, kept so a session whose process died
-- is found and its transcript finished from the audio already in storage (never left `recording`).
-- `heartbeat_at` is renewed by the process holding the peer connection; `finished_at` is set once
-- the transcript was handed to processing (or failed).
create table live_session (
  id text primary key,
  transcript_id text not null,
  bucket text not null,
  instance text not null,
  started_at timestamptz not null,
  heartbeat_at timestamptz not null,
  -- Audio stored so far (PCM s16le bytes in segments), for logs and the operator.
  stored_bytes bigint not null default 0,
  finished_at timestamptz,
  outcome text
);
create index live_session_open on live_session (heartbeat_at) where finished_at is null;
create index live_session_transcript on live_session (transcript_id) where finished_at is null;
