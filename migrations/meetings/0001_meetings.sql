-- Meetings on the video platforms, their participants, consent and e-mail recipients
-- (behaviour-rooms-meetings-calendar.md §1.2–1.4, §3, §6), plus the local copy of rooms.

-- Local copy of the rooms (from ROOMS events, full state + version): what meeting rules read.
-- A deleted room stays as a tombstone so a late, older event cannot bring it back.
create table room (
  id text primary key,
  name text not null,
  user_id text not null,
  is_shared boolean not null,
  platform text not null,
  is_locked boolean not null,
  room_mode text not null,
  recording_type text not null,
  recording_trigger text not null,
  skip_consent boolean not null,
  store_video boolean not null,
  version integer not null,
  deleted boolean not null default false
);
create index idx_room_name on room (name) where not deleted;

create table meeting (
  -- The platform's meeting id (Daily room id, Whereby meetingId), as in the reference.
  id text primary key,
  room_id text not null references room (id) on delete cascade,
  -- The platform's room name (Daily: <room>-YYYYMMDDHHMMSS; Whereby: /<prefix><uuid>).
  room_name text not null,
  room_url text not null,
  host_room_url text not null,
  start_date timestamptz not null,
  end_date timestamptz not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  -- Increases with every change; carried by meeting events.
  version integer not null default 1,
  is_locked boolean not null,
  room_mode text not null,
  recording_type text not null,
  recording_trigger text not null,
  num_clients integer not null default 0,
  is_active boolean not null default true,
  deactivated_at timestamptz,
  deactivation_reason text,
  calendar_event_id text,
  calendar_metadata jsonb,
  -- The calendar event's scheduled end: an unused calendar meeting is deactivated then.
  scheduled_end timestamptz,
  platform text not null,
  daily_composed_video_s3_key text,
  daily_composed_video_duration integer,
  email_recipients jsonb not null default '[]',
  store_video boolean not null,
  -- Start of the processing round that last looked at it: two workers never both process it in one round.
  last_processed_at timestamptz
);
create index idx_meeting_room_active on meeting (room_id, end_date desc) where is_active;
create index idx_meeting_active on meeting (created_at) where is_active;
create index idx_meeting_platform_room on meeting (room_name, start_date desc);
create index idx_meeting_calendar_event on meeting (calendar_event_id, created_at desc) where calendar_event_id is not null;
create index idx_meeting_room on meeting (room_id);

-- Recording consent (§6): one record per (meeting, signed-in user), anonymous answers each their own.
create table meeting_consent (
  id text primary key,
  meeting_id text not null references meeting (id) on delete cascade,
  user_id text,
  consent_given boolean not null,
  consent_timestamp timestamptz not null
);
create unique index uq_consent_meeting_user on meeting_consent (meeting_id, user_id) where user_id is not null;
create index idx_consent_meeting on meeting_consent (meeting_id);

-- One row per stay of a participant; a participant who leaves and comes back gets a new row.
create table participant_session (
  id text primary key,
  meeting_id text not null references meeting (id) on delete cascade,
  -- The platform's participant session id (lookup key of the platform's webhooks and presence).
  session_id text not null,
  user_id text,
  user_name text not null default '',
  joined_at timestamptz not null,
  left_at timestamptz,
  -- Arrival order among stays with the same joined_at (platforms send whole seconds).
  seq bigserial not null
);
create unique index uq_session_open on participant_session (meeting_id, session_id) where left_at is null;
create index idx_session_meeting_session on participant_session (meeting_id, session_id);
create index idx_session_meeting_left on participant_session (meeting_id, left_at);

-- A closed stay is history: no update may touch it (the reference's trigger, kept).
create function participant_session_closed_is_immutable() returns trigger language plpgsql as $$
begin
  if old.left_at is not null then
    raise exception 'left_at is immutable once set';
  end if;
  return new;
end $$;
create trigger participant_session_closed_is_immutable before update on participant_session
  for each row execute function participant_session_closed_is_immutable();

-- Signed-in callers who joined through Scribe: their platform token carries their user id, and a
-- participant whose platform user id matches one of these gets it stored.
create table join_grant (
  meeting_id text not null references meeting (id) on delete cascade,
  user_id text not null,
  display_name text,
  created_at timestamptz not null,
  primary key (meeting_id, user_id)
);

-- Platform webhook deliveries applied, for the replay defence (same id + same signed timestamp =
-- replay, refused; same id with a new timestamp = the platform redelivering, acknowledged, no effect).
create table webhook_delivery (
  platform text not null,
  id text not null,
  signed_at bigint not null,
  received_at timestamptz not null,
  primary key (platform, id)
);
create index idx_webhook_delivery_received on webhook_delivery (received_at);
