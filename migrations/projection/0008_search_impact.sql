-- Impact tokens for ranked search of a single word (issue 20). RUM orders a word's matches by
-- reading its whole posting list: ~970k entries for a word in nearly every one of 1M transcripts.
-- Each transcript also carries, per lexeme, a token `<lexeme>@<bucket>` where the bucket is
-- floor(-ln(r) * 64) of the lexeme's own ts_rank r (normalisation 0; a single word's rank depends
-- only on the weights of its positions). Buckets are disjoint rank ranges, best first, so the
-- search service reads a word's matches bucket by bucket from the best until the page is filled,
-- then ranks just those exactly (services/search/src/store.ts, impactStatement).
--
-- Lexemes whose rank is at most that of one caption-text occurrence (0.1216: a single C position,
-- or room-name positions only) get no token: they are most of a transcript's lexemes and never make
-- a page that the tokens did not fill first (the search then takes the RUM path).
--
-- Existing rows get their tokens from the projection in the background (search_impact is null until
-- then; the search service uses the tokens once no visible row lacks them).
create function search_impact_tokens(v tsvector) returns text[] language sql immutable parallel safe
as $$
  select coalesce(array_agg(lexeme || '@' || floor(-ln(ts_rank(v, quote_literal(lexeme)::tsquery, 0)) * 64)::int), '{}')
  from unnest(v)
  where not (weights <@ '{D}'::text[] or weights = '{C}'::text[]) $$;

alter table transcript add column search_impact text[];

-- As 0001, plus the tokens whenever the vector is computed (or missing), and the background fill:
-- a statement run with scribe.search_impact_fill = 'on' only sets the tokens, so it takes no
-- change_seq (the transcript did not change for the feed) and not the feed lock.
create or replace function transcript_before_write() returns trigger language plpgsql set search_path from current as $$
declare
  vector_stale boolean := tg_op = 'INSERT';
begin
  if current_setting('scribe.search_impact_fill', true) = 'on' then
    return new;
  end if;
  if tg_argv[0] = 'ordered' then
    perform pg_advisory_xact_lock(hashtext('scribe:projection:change_seq'));
  end if;
  new.change_seq := nextval(coalesce(tg_argv[1], 'transcript_change_seq')::regclass);
  if not vector_stale then
    vector_stale := new.title is distinct from old.title
      or new.long_summary is distinct from old.long_summary
      or new.webvtt_text is distinct from old.webvtt_text
      or new.room_name is distinct from old.room_name;
  end if;
  if vector_stale then
    new.search_vector :=
      setweight(to_tsvector('english', coalesce(new.title, '')), 'A')
      || setweight(to_tsvector('english', coalesce(new.long_summary, '')), 'B')
      || setweight(to_tsvector('english', coalesce(new.webvtt_text, '')), 'C')
      || setweight(to_tsvector('english', coalesce(new.room_name, '')), 'D');
  end if;
  if vector_stale or new.search_impact is null then
    new.search_impact := search_impact_tokens(new.search_vector);
  end if;
  return new;
end $$;

-- Not partial: the search service words its token scans so that no partial index fits them. A
-- search probes the index up to ~25 times, and each probe reads GIN's whole pending list (rows
-- written since it was last merged: 4 MB by default); a small list keeps that cheap (on 720 fresh
-- rows, 58 ms against 3 ms merged), its writers merge it more often.
create index idx_transcript_search_impact on transcript using gin (search_impact) with (gin_pending_list_limit = 128);
-- The rows the background fill has still to do (empty once it is done).
create index idx_transcript_search_impact_missing on transcript (id) where search_impact is null;
