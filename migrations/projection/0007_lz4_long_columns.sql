-- The long columns (each topic with every word, the WebVTT and its caption text) are compressed
-- with lz4 where the server has it (PostgreSQL 14+ built with lz4, as Debian's and the official
-- images are), as the transcription service's are: a topic of a few hundred words is compressed
-- on every write, and pglz made that a large share of applying a topic (`pnpm bench projection`).
-- Values are recompressed as they are rewritten; a rebuild's shadow tables copy the setting.
do $$
begin
  if exists (select 1 from pg_settings where name = 'default_toast_compression' and 'lz4' = any (enumvals)) then
    alter table topic alter column topic set compression lz4;
    alter table transcript alter column webvtt set compression lz4;
    alter table transcript alter column webvtt_text set compression lz4;
  end if;
end $$;
