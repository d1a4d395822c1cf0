-- Login attempts per client-address bucket, in the database so every gateway replica counts
-- against the same limit (in memory, each replica allowed the whole limit again).
create table login_attempts (
  key text primary key,
  attempts timestamptz[] not null,
  last_attempt_at timestamptz not null
);
create index login_attempts_last on login_attempts (last_attempt_at);
