-- Pair tokens for ranked search of a two-word phrase (issue 20). A phrase of two common words
-- matches a sixth of all transcripts and RUM reads both words' whole posting lists to order them
-- (1.1 s at 1M transcripts). ts_rank scores `a <-> b` from the positions of a and b alone (every
-- pair of their positions, weighted by distance), so, as for single words (0008), the rank can be
-- computed ahead. Per pair of distinct lexemes that stand next to each other in a transcript's
-- vector and rank above 0.8 together, a token `<a> <b>@<bucket>`.
--
-- A phrase's ranks crowd towards 1 (1 - r is a product over every pair of positions), so the bucket
-- measures -ln(1 - r), in sixteenths, counted down from 12 (ranks from 1 - 6e-6 up share bucket 0):
-- 0 is the best, 166 holds ranks just above 0.8. A bucket is then 6.5 % of (1 - r) wide, which at
-- bucket 0's edge is still 3 units in the last place of ts_rank's single-precision r / (r + 1).
--
-- A pair's rank is at most the sum over its position pairs of sqrt(w_a * w_b * 0.982) (0.982: the
-- distance weight of neighbours, the highest), so at most 0.991 * m_a * m_b where m is a lexeme's
-- position count times the square root of its highest weight; pairs with 0.995 * m_a * m_b <= 0.8
-- cannot rank above 0.8 and are not ranked.
create function search_pair_tokens(v tsvector) returns text[] language sql immutable parallel safe
as $$
  with lexemes as (
    select lexeme, positions,
      cardinality(positions) * case
        when 'A' = any(weights) then 1.0 when 'B' = any(weights) then 0.633 when 'C' = any(weights) then 0.448 else 0.317
      end as mass
    from unnest(v)),
  placed as (select lexeme, p, mass from lexemes, unnest(positions) p),
  pairs as (
    select distinct a.lexeme as a, b.lexeme as b
    from placed a join placed b on b.p = a.p + 1
    where a.lexeme <> b.lexeme and a.mass * b.mass * 0.995 > 0.8),
  ranked as (
    select a, b, ts_rank(v, tsquery_phrase(quote_literal(a)::tsquery, quote_literal(b)::tsquery), 0)::float8 as r from pairs)
  select coalesce(array_agg(a || ' ' || b || '@' || floor((12 - least(12, -ln(greatest(1 - r, 1e-12)))) * 16)::int), '{}')
  from ranked
  where r > 0.8 $$;

-- The transcript's search copy (issue 20): its vector, under the RUM index, kept in a table of
-- its own and written by the projection's background fill (services/projection/src/search-fill.ts),
-- not by the write that changed the transcript. RUM has no pending list: every row write enters
-- each of the row's lexemes into the index and logs the pages it changed (~20 KB of WAL for a
-- transcript of ~20 lexemes against ~3 KB for all else; 40 % of a projection batch). On the
-- transcript row it was paid again at every status, topic or speaker change (change_seq is
-- indexed, so no update is HOT), and on the consumer's one ordered lane. A copy's vector is
-- written only when it changed; a write of the transcript that left its text alone moves the
-- copy's change_seq alone (a HOT update: no index entry). A copy also carries the columns search
-- filters and orders by, so a RUM scan reads the copies alone, as it read the transcript rows (a
-- join per candidate, to tell current from stale, cost a user's scope twice its time).
--
-- A copy is current when its change_seq is the transcript's. Every transcript with a change_seq up
-- to the fill's mark (`transcript_search_fill.filled_through`) has a current copy (change_seq
-- values commit in order: see the trigger in 0001), so the stale copies are exactly those of the
-- transcripts past the mark; the search service leaves those out and ranks the transcripts past
-- the mark from their own rows, so no write is missing from a page meanwhile.
create table transcript_search (
  id text primary key,
  change_seq bigint not null,
  -- The change_seq at which the vector last changed: what its pair tokens were computed for.
  vector_seq bigint not null,
  search_vector tsvector not null,
  created_at timestamptz not null,
  deleted_at timestamptz,
  user_id text,
  share_mode text not null,
  room_id text,
  room_shared boolean not null,
  source_kind text not null
) with (fillfactor = 90);
-- The copies whose pair tokens the fill has still to compute (past `pairs_through`).
create index idx_transcript_search_vector_seq on transcript_search (vector_seq);

-- A copy's phrase pair tokens (~0.3-0.7 ms a transcript to compute, five times the single-word
-- tokens of 0008), computed by the fill for the copy's vector after the copy. In a table of their
-- own: kept on the copy, writing them rewrote the copy and entered it into RUM again. Every copy
-- with a vector_seq up to `pairs_through` has its tokens here, for that vector_seq (vector_seq
-- values are given in order: a copy's comes from the change_seq the fill writes it at).
create table transcript_search_pairs (
  id text primary key,
  vector_seq bigint not null,
  pair_tokens text[] not null
);
-- As the impact index (0008): a small pending list.
create index idx_transcript_search_pairs on transcript_search_pairs using gin (pair_tokens) with (gin_pending_list_limit = 128);

-- How far the fill got, and for which transcript table: a rebuilt read model (`scribe replay
-- read-model`) is a new table; its rebuild writes the copies (and the pair tokens it can keep)
-- and moves the marks in its swap, and a fill that finds the mark about another table starts over.
create table transcript_search_fill (
  one boolean primary key default true check (one),
  of_table oid not null,
  filled_through bigint not null,
  pairs_through bigint not null
);

-- The copies of the transcripts there are, so that nothing waits past the mark after the upgrade,
-- and the RUM index, moved here, built once over them (its per-row upkeep is what this table
-- avoids). Destroyed transcripts have no copy (their content is gone). The copy and the build only
-- read the transcript table (writers and readers go on); the old index is dropped last, so the
-- table is locked only for the moment before the commit.
-- The pair tokens follow in the background (pairs_through 0).
insert into transcript_search (id, change_seq, vector_seq, search_vector, created_at, deleted_at, user_id, share_mode, room_id, room_shared, source_kind)
select id, change_seq, change_seq, search_vector, created_at, deleted_at, user_id, share_mode, room_id, room_shared, source_kind
from transcript where destroyed_at is null;
insert into transcript_search_fill (of_table, filled_through, pairs_through)
select 'transcript'::regclass, coalesce(max(change_seq), 0), 0 from transcript;

do $$
begin
  if exists (select 1 from pg_indexes where schemaname = current_schema() and indexname = 'idx_transcript_search_rum') then
    create index idx_transcript_search_rum_copies on transcript_search using rum (search_vector rum_tsvector_ops);
    drop index idx_transcript_search_rum;
    alter index idx_transcript_search_rum_copies rename to idx_transcript_search_rum;
  end if;
end $$;
