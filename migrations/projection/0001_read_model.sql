-- The transcript read model. Only the projection service writes these tables (from TRANSCRIPTS, ROOMS
-- and RECORDINGS events); the search service reads `transcript` (the one documented exception to
-- "one owner per table", read-only). `scribe replay read-model` rebuilds them into shadow tables
-- and swaps those in, so nothing here may depend on a table's OID (no foreign keys, no views).

-- Rooms as far as transcripts need them: a name to show and search, the shared flag for visibility.
-- A deleted room stays as a tombstone (deleted = true) so a stale event cannot bring it back.
create table room (
  id text primary key,
  version integer not null,
  name text not null,
  is_shared boolean not null,
  deleted boolean not null default false
);

-- Recordings as far as rendering needs them: multitrack = the recording has audio tracks (api.md §3.1).
create table recording (
  id text primary key,
  multitrack boolean not null
);

-- Every change_seq comes from this sequence, assigned by the trigger below (never by the application).
create sequence transcript_change_seq;

create table transcript (
  id text primary key,
  -- Highest version of any event of the transcript applied (state, topics); read-your-writes waits on it.
  version integer not null,
  -- Version of the full state last applied: an older state event is stale and ignored.
  state_version integer not null,
  -- Version of the last `transcript.topics.cleared`: topic events up to it are stale.
  topics_reset_version integer not null default 0,
  name text not null,
  status text not null,
  error text,
  locked boolean not null,
  -- Milliseconds.
  duration double precision not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  title text,
  short_summary text,
  long_summary text,
  action_items jsonb,
  participants jsonb not null default '[]',
  source_language text not null,
  target_language text not null,
  reviewed boolean not null,
  audio_location text not null,
  audio_deleted boolean,
  user_id text,
  share_mode text not null,
  source_kind text not null,
  meeting_id text,
  recording_id text,
  room_id text,
  -- Copied from `room` whenever either side changes: the name of the live room (null when there is
  -- no room, or it was deleted or is not known yet) and whether it is shared (list/search visibility).
  room_name text,
  room_shared boolean not null default false,
  webvtt text,
  -- The caption text of `webvtt` without timings or voices: search vector weight C and snippets.
  webvtt_text text,
  -- Filled from MEETINGS events once the meetings service publishes them.
  has_cloud_video boolean not null default false,
  cloud_video_duration integer,
  deleted_at timestamptz,
  -- Set by transcript.destroyed: the row stays as a tombstone (content removed) so the change feed
  -- shows the deletion; reads answer 404.
  destroyed_at timestamptz,
  -- title (A), long_summary (B), caption text (C), room name (D); maintained by the trigger.
  search_vector tsvector not null,
  change_seq bigint not null
);

create table topic (
  transcript_id text not null,
  -- 0-based position in the transcript's topic list.
  position integer not null,
  -- Transcript version of the event that wrote this topic.
  version integer not null,
  -- The stored topic (TopicRecord: id, title, summary, timestamp, duration, transcript, words).
  topic jsonb not null,
  primary key (transcript_id, position)
);

-- change_seq and the search vector on every insert and update of a transcript row.
--
-- The change feed must never let a poller skip a row that commits later with a lower change_seq.
-- Scribe keeps a single ordered writer: a writer takes the feed lock (a transaction-level advisory
-- lock) before it allocates a change_seq and holds it until it commits, so sequence values are
-- handed out in commit order and every snapshot sees a gap-free prefix of them (aborted values
-- aside). The projection takes the lock first thing in every transaction (so its writes cannot
-- deadlock against it); taking it here as well makes the rule hold for any other writer too.
-- Shadow tables of a rebuild use mode 'shadow' and their own sequence (second argument), which
-- starts far above this one so that their rows come after everything served when they are swapped in.
-- (search_path is fixed at creation so the sequence resolves whoever writes, search included.)
create function transcript_before_write() returns trigger language plpgsql set search_path from current as $$
declare
  vector_stale boolean := tg_op = 'INSERT';
begin
  if tg_argv[0] = 'ordered' then
    perform pg_advisory_xact_lock(hashtext('scribe:projection:change_seq'));
  end if;
  new.change_seq := nextval(coalesce(tg_argv[1], 'transcript_change_seq')::regclass);
  if not vector_stale then
    vector_stale := new.title is distinct from old.title
      or new.long_summary is distinct from old.long_summary
      or new.webvtt_text is distinct from old.webvtt_text
      or new.room_name is distinct from old.room_name;
  end if;
  if vector_stale then
    new.search_vector :=
      setweight(to_tsvector('english', coalesce(new.title, '')), 'A')
      || setweight(to_tsvector('english', coalesce(new.long_summary, '')), 'B')
      || setweight(to_tsvector('english', coalesce(new.webvtt_text, '')), 'C')
      || setweight(to_tsvector('english', coalesce(new.room_name, '')), 'D');
  end if;
  return new;
end $$;

create trigger transcript_before_write before insert or update on transcript
  for each row execute function transcript_before_write('ordered');

-- The change feed: change_seq_from / sort_by=change_seq.
create index idx_transcript_change_seq on transcript (change_seq);
-- Lists, newest first: everyone's (anonymous in PUBLIC_MODE), a user's own, a room's.
create index idx_transcript_created on transcript (created_at desc, id) where deleted_at is null;
create index idx_transcript_user_created on transcript (user_id, created_at desc) where deleted_at is null;
create index idx_transcript_room_created on transcript (room_id, created_at desc);
-- Shared-room visibility and room changes copied onto transcripts.
create index idx_transcript_room_shared on transcript (created_at desc) where room_shared and deleted_at is null;
-- Full-text search over visible transcripts.
create index idx_transcript_search on transcript using gin (search_vector) where deleted_at is null;

-- Read-only access for the search service in production (its own database role): grant it when the
-- role exists; replayed tables inherit the grant through the default privileges.
do $$
begin
  if exists (select 1 from pg_roles where rolname = 'scribe_search') then
    execute 'grant usage on schema projection to scribe_search';
    execute 'grant select on all tables in schema projection to scribe_search';
    execute 'alter default privileges in schema projection grant select on tables to scribe_search';
  end if;
end $$;
