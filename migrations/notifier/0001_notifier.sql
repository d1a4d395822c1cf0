-- The notifier: its copies of rooms, meetings and transcripts (from their events), the outgoing
-- deliveries (webhooks, e-mails, team-chat posts) with every attempt, the team-chat message of each
-- transcript, and the retention job's runs.

-- Rooms (ROOMS events, full state + version): webhook, team-chat and e-mail settings.
create table room (
  id text primary key,
  name text not null,
  user_id text not null,
  webhook_url text,
  webhook_secret text,
  zulip_auto_post boolean not null,
  zulip_stream text not null,
  zulip_topic text not null,
  email_transcript_to text,
  version integer not null,
  deleted boolean not null default false
);

-- Meetings (MEETINGS events): who asked for the e-mailed transcript, and the calendar event.
create table meeting (
  id text primary key,
  room_id text not null,
  email_recipients jsonb not null default '[]',
  calendar_event_id text,
  calendar_metadata jsonb,
  version integer not null,
  deleted boolean not null default false
);

-- Transcripts (TRANSCRIPTS events): what retention selects on and what notifications need.
create table transcript (
  id text primary key,
  version integer not null,
  user_id text,
  room_id text,
  meeting_id text,
  recording_id text,
  share_mode text not null,
  created_at timestamptz not null,
  deleted_at timestamptz,
  destroyed_at timestamptz,
  -- retention.transcript_expired was emitted for it (once per transcript).
  expired_at timestamptz
);
-- Retention's candidates: anonymous, live, not yet announced, by age.
create index idx_transcript_retention on transcript (created_at)
  where user_id is null and deleted_at is null and destroyed_at is null and expired_at is null;

-- One outgoing notification. Consumers only insert rows; the dispatcher job claims due rows
-- (for update skip locked, then a lease) and makes the attempts, so replicas share the work.
create table delivery (
  -- Also the X-Webhook-Delivery-Id header: the same for every attempt.
  id text primary key,
  channel text not null,                 -- webhook | email | zulip
  kind text not null,                    -- transcript.completed | meeting_recipient | room_recipient | share | auto_post | manual_post
  transcript_id text not null,
  room_id text,
  run_id text,
  -- One delivery per purpose: a redelivered event or a repeated request adds nothing.
  dedupe_key text not null unique,
  -- Where it goes: email {to, include_link}, zulip {stream, topic}; webhooks use the room's current URL.
  target jsonb not null default '{}',
  -- What it says: webhook body without event_id/timestamp, zulip content, e-mail render inputs.
  payload jsonb not null,
  status text not null default 'pending',  -- pending | delivered | failed | cancelled
  attempts integer not null default 0,   -- attempts made in all (X-Webhook-Retry of the next one)
  -- The current retry round (a redelivery starts a new one): its first attempt and index.
  round_started_at timestamptz,
  round_attempts integer not null default 0,
  next_attempt_at timestamptz,
  lease_token text,
  lease_until timestamptz,
  last_status_code integer,
  last_error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  finished_at timestamptz
);
create index idx_delivery_due on delivery (next_attempt_at) where status = 'pending';
create index idx_delivery_room on delivery (channel, room_id, created_at desc);
create index idx_delivery_transcript on delivery (transcript_id, channel);
create index idx_delivery_status on delivery (channel, status, created_at desc);

-- Every attempt of a delivery, as it went.
create table delivery_attempt (
  delivery_id text not null references delivery (id) on delete cascade,
  attempt integer not null,              -- 0-based over the delivery's life
  event_id text,                         -- webhook: the payload's event_id of this attempt
  started_at timestamptz not null,
  duration_ms integer not null,
  status_code integer,
  error text,
  response_excerpt text,
  outcome text not null,                 -- delivered | retry | failed | gave_up
  primary key (delivery_id, attempt)
);

-- The team-chat message reporting each transcript, updated when it is reprocessed.
create table zulip_message (
  transcript_id text primary key,
  message_id bigint not null,
  stream text not null,
  topic text not null,
  updated_at timestamptz not null default now()
);

-- One retention run per day (replicas race for the row; one wins).
create table retention_run (
  run_date date primary key,
  started_at timestamptz not null,
  finished_at timestamptz,
  expired integer not null default 0
);
