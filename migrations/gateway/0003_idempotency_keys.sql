-- Answers of creates sent with an Idempotency-Key, per user and key, so a client that lost the
-- connection can send the create again and get the first answer instead of a duplicate, whichever
-- gateway replica it reaches. A row is claimed (pending) before the create runs, so concurrent
-- duplicates wait for the first one's answer; it expires after IDEMPOTENCY_RETENTION_HOURS.
create table idempotency_keys (
  user_id text not null,
  key text not null,
  -- sha256 of method, path and body: the same key with another request is refused (422).
  fingerprint text not null,
  -- The request holding the claim: only it records the answer or releases the key.
  claim text not null,
  -- null while the first request runs.
  status integer,
  -- The answer's headers worth replaying (content type, Scribe-Versions) and body, sealed
  -- (an API key's answer holds the key itself).
  headers jsonb,
  body text,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  primary key (user_id, key)
);
create index idempotency_keys_expires on idempotency_keys (expires_at);
