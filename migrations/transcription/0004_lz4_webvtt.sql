-- The long columns (topics with every word, the WebVTT) are compressed with lz4 where the server
-- has it (PostgreSQL 14+ built with lz4, as Debian's and the official images are): several times
-- faster than the default pglz to write and to read, for a little less compression. Values are
-- recompressed as they are rewritten.
do $$
begin
  if exists (select 1 from pg_settings where name = 'default_toast_compression' and 'lz4' = any (enumvals)) then
    alter table transcript alter column topics set compression lz4;
    alter table transcript alter column webvtt set compression lz4;
  end if;
end $$;
