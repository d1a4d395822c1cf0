-- Rooms and their settings (api.md §1.3; behaviour-rooms-meetings-calendar.md §1.1).
create table room (
  id text primary key,
  name text not null,
  user_id text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  -- Increases on every change; carried by room events so consumers can ignore a stale state.
  version integer not null default 1,
  zulip_auto_post boolean not null default false,
  zulip_stream text not null default '',
  zulip_topic text not null default '',
  is_locked boolean not null default false,
  room_mode text not null default 'normal',
  recording_type text not null default 'cloud',
  recording_trigger text not null default 'automatic-2nd-participant',
  is_shared boolean not null default false,
  webhook_url text,
  webhook_secret text,
  ics_url text,
  ics_fetch_interval integer not null default 300,
  ics_enabled boolean not null default false,
  ics_last_sync timestamptz,
  ics_last_etag text,
  platform text not null,
  skip_consent boolean not null default false,
  email_transcript_to text,
  store_video boolean not null default false,
  constraint uq_room_name unique (name)
);
create index idx_room_user_created on room (user_id, created_at desc);
create index idx_room_shared_created on room (created_at desc) where is_shared;
create index idx_room_ics_enabled on room (ics_enabled) where ics_enabled;
