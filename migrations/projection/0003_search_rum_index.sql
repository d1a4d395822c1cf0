-- A RUM index for ranked search, when the server has the extension (Debian: postgresql-<major>-rum).
-- RUM keeps each word's positions and weights in the index, so the search service can take the
-- best-ranked candidates in `<=>` order from the index instead of computing ts_rank on every
-- matching row (which reads each row's tsvector from TOAST). Without the extension, or without the
-- right to create it, nothing is done and search ranks a capped candidate set from the GIN index
-- (`idx_transcript_search`, kept either way). The search service looks for this index by name.
do $$
begin
  if not exists (select 1 from pg_available_extensions where name = 'rum') then
    raise notice 'rum extension not available: search uses the GIN index';
    return;
  end if;
  begin
    -- In public, so the `<=>` operator resolves on every service's search_path ("<schema>, public").
    create extension if not exists rum schema public;
    execute 'create index idx_transcript_search_rum on transcript using rum (search_vector rum_tsvector_ops) where deleted_at is null';
  exception when others then
    -- No right to create extensions, or rum installed elsewhere: the GIN path still answers.
    raise notice 'rum index not created (%): search uses the GIN index', sqlerrm;
  end;
end $$;
