-- Users known to this installation and their API keys (behaviour-search-notify-auth.md §6.4, §6.7).
-- The gateway owns both; services only ever see a user's id in the caller of a request.
create table users (
  -- Local user id (UUID): what every service stores as user_id, and `sub` of /v1/me.
  id text primary key,
  -- The identity provider's own id (`sub` of its tokens); "local:<email>" for the password-mode user.
  provider_uid text not null,
  email text not null,
  email_verified boolean not null default false,
  password_hash text,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  constraint uq_users_provider_uid unique (provider_uid)
);
-- Not unique, as the reference: a provider may hand the same address to two accounts.
create index idx_users_email on users (email);

create table api_key (
  id text primary key,
  -- No foreign key: password-mode tokens name users that need no row (reference).
  user_id text not null,
  -- hex(HMAC-SHA256(SECRET_KEY, key)); the key itself is never stored.
  key_hash text not null,
  name text,
  created_at timestamptz not null,
  constraint uq_api_key_hash unique (key_hash)
);
create index idx_api_key_user_created on api_key (user_id, created_at desc);
