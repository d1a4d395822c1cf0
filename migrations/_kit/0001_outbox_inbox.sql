-- Transactional outbox and idempotent-consumer inbox, created in every service schema that uses the bus.

-- Events recorded in the same transaction as the state change; the relay publishes then deletes them.
create table outbox (
  seq bigserial primary key,
  event_id uuid not null unique,
  subject text not null,
  payload text not null,
  created_at timestamptz not null default now()
);

-- One row per applied event per consumer: a redelivered event finds its row and has no second effect.
create table inbox (
  consumer text not null,
  event_id uuid not null,
  applied_at timestamptz not null default now(),
  primary key (consumer, event_id)
);

-- Wake the relay as soon as a transaction that wrote events commits (NOTIFY is delivered on commit).
create function outbox_notify() returns trigger language plpgsql as $$
begin
  perform pg_notify(tg_table_schema || '_outbox', '');
  return null;
end $$;
create trigger outbox_notify after insert on outbox for each statement execute function outbox_notify();
