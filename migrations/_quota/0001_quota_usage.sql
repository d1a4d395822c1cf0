-- Usage counters of rate limits and quotas, one row per key and fixed window, in the database so
-- every replica of a service counts against the same limit.
create table quota_usage (
  key text not null,
  window_start timestamptz not null,
  expires_at timestamptz not null,
  used bigint not null,
  primary key (key, window_start)
);
create index quota_usage_expiry on quota_usage (expires_at);
