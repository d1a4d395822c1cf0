-- Event payloads (a transcript's state carries its WebVTT) are compressed with lz4 where the server
-- has it: writing a large payload with the default pglz took several times longer.
do $$
begin
  if exists (select 1 from pg_settings where name = 'default_toast_compression' and 'lz4' = any (enumvals)) then
    alter table outbox alter column payload set compression lz4;
  end if;
end $$;
