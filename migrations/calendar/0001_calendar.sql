-- Calendar (ICS) integration (behaviour-rooms-meetings-calendar.md §1.5, §7): each room's ICS
-- settings (copied from ROOMS events) with its sync state (owned here), and the calendar events.

create table room (
  id text primary key,
  -- Copied from room events (full state + version: a stale state is ignored).
  name text not null,
  user_id text not null,
  ics_url text,
  ics_enabled boolean not null,
  ics_fetch_interval integer not null,
  version integer not null,
  -- A deleted room stays as a tombstone so a late, older event cannot bring it back.
  deleted boolean not null default false,
  -- Sync state. When the scheduler runs the room next (null: the room does not sync).
  next_sync_at timestamptz,
  last_attempt_at timestamptz,
  -- Last run that ended success or unchanged (ics_last_sync on the wire).
  last_sync_at timestamptz,
  -- success | unchanged | error (skipped runs are not recorded).
  last_status text,
  last_error text,
  -- MD5 hex of the last feed body (ics_last_etag on the wire), and the server's own ETag.
  content_hash text,
  http_etag text,
  -- What the stored events were read from and matched against, and how far ahead they reach:
  -- an identical feed is only "unchanged" while all three still hold.
  synced_feed_url text,
  matched_room_url text,
  window_end timestamptz,
  -- Counts of the last full read, answered again while the feed is unchanged.
  events_found integer not null default 0,
  total_events integer not null default 0
);
create index idx_room_name on room (name) where not deleted;
create index idx_room_due on room (next_sync_at) where ics_enabled and not deleted and next_sync_at is not null;

create table calendar_event (
  id text primary key,
  room_id text not null references room (id) on delete cascade,
  ics_uid text not null,
  -- Original start (UTC ISO) of an instance of a recurring series; '' for a single event.
  recurrence_id text not null default '',
  title text,
  description text,
  location text,
  start_time timestamptz not null,
  end_time timestamptz not null,
  attendees jsonb not null default '[]',
  ics_raw_data text,
  last_synced timestamptz not null,
  is_deleted boolean not null default false,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  -- The calendar meeting made for the event (ahead of its start, or when someone joined it).
  meeting_id text,
  constraint uq_room_calendar_event unique (room_id, ics_uid, recurrence_id)
);
create index idx_calendar_event_room_start on calendar_event (room_id, start_time) where not is_deleted;
create index idx_calendar_event_needs_meeting on calendar_event (start_time) where not is_deleted and meeting_id is null;
