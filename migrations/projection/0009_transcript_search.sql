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

-- Computing them costs ~0.7 ms per transcript of 265 words, five times the single-word tokens: too
-- much for the projection's write path, and, kept on the transcript row, filling them would rewrite
-- the row and every one of its indexes (RUM included: ~4 ms a row). So they live in a table of
-- their own, each row stamped with the transcript's change_seq it was computed at, and the
-- projection's background fill (services/projection/src/search-impact-fill.ts) computes them for
-- the transcripts that changed, in change_seq order. The trigger is untouched.
create table transcript_search_pair (
  id text primary key,
  change_seq bigint not null,
  tokens text[] not null
);
-- As the impact index (0008): a small pending list.
create index idx_transcript_search_pair on transcript_search_pair using gin (tokens) with (gin_pending_list_limit = 128);

-- How far the fill got: every transcript with a change_seq up to `filled_through` has its tokens as
-- of that change_seq (change_seq values commit in order: see the trigger in 0001). The search
-- service ranks transcripts past it with the tokens' candidates. `of_table` is the transcript
-- table the mark is about: a rebuilt read model (`scribe replay read-model`) is a new table, whose
-- rows the fill then computes again from the start.
create table transcript_search_pair_fill (
  one boolean primary key default true check (one),
  of_table oid not null,
  filled_through bigint not null
);
insert into transcript_search_pair_fill (of_table, filled_through) values ('transcript'::regclass, 0);
