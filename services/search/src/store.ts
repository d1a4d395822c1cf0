// SQL of the search service. It owns no data: it reads the projection's read model, read-only (the
// one documented exception to "one owner per table"; in production its role has SELECT only).
import type { ListingScope } from "@scribe/contracts";
import type { Db, Sql } from "@scribe/kit";
import { z } from "zod";

const ResultRow = z.object({
  id: z.string(),
  title: z.string().nullable(),
  user_id: z.string().nullable(),
  room_id: z.string().nullable(),
  room_name: z.string().nullable(),
  source_kind: z.enum(["room", "live", "file"]),
  created_at: z.date(),
  status: z.enum(["idle", "uploaded", "recording", "processing", "error", "ended"]),
  duration: z.number(),
  change_seq: z.coerce.number().int(),
  long_summary: z.string().nullable(),
  webvtt_text: z.string().nullable(),
  /** Rows matching the filter, counted up to the bound plus one (over the bound = capped). */
  total: z.coerce.number().int(),
});
export type ResultRow = z.infer<typeof ResultRow>;

/** What a search may see: a listing scope, or the trash view (the user's own soft-deleted transcripts). */
export type SearchScope = ListingScope | { kind: "own_deleted"; userId: string };

export interface SearchQuery {
  /** Trimmed, non-empty; null = browse (newest first, no text filter). */
  text: string | null;
  scope: SearchScope;
  roomId: string | null;
  sourceKind: ResultRow["source_kind"] | null;
  limit: number;
  offset: number;
  /**
   * Matches a text search ranks and counts exactly. Beyond it, the best candidates in the RUM
   * index's `<=>` order (or, on the GIN fallback, the first the index yields) are ranked, and the
   * total is this bound, flagged as capped.
   */
  exactUpTo: number;
  /** How candidates beyond `exactUpTo` are chosen: "rum" when the RUM index exists. */
  index: SearchIndex;
  /**
   * Search tokens may be used: every visible transcript has its impact tokens (migration 0008), so a
   * single word is ranked from them, and the pair tokens exist (0009), so a two-word phrase is.
   */
  impact: boolean;
}

/** "rum": the projection's RUM index exists (migration 0003); "gin": the fallback. */
export type SearchIndex = "rum" | "gin";
export const RUM_INDEX = "idx_transcript_search_rum";

/**
 * Session settings of the search service's connections. The planner prices a sequential scan of
 * `search_vector @@ q` without the cost of detoasting every row's tsvector, so for common words it
 * scans (and detoasts) the whole table where the GIN index touches only the matches; and a
 * generic plan of a prepared statement cannot know how common the searched words are. A RUM scan in
 * `<=>` order sorts every match's distance: with the default 4 MB of work_mem a word in most of
 * 100k transcripts spilled that sort to disk (418 ms against 155 ms in memory). JIT is off: a search
 * reads a page of rows, which compiled code never pays back, and a plan with a disabled sequential
 * scan is priced above every JIT threshold, so where no index fits (the trash view had none) each
 * statement was compiled with inlining and optimisation: ~300 ms on a 50-row read model.
 */
export const SEARCH_DB_SETTINGS = { enable_seqscan: "off", plan_cache_mode: "force_custom_plan", work_mem: "32MB", jit: "off" };

const COLUMNS = (db: Db) => db`
  t.id, t.title, t.user_id, t.room_id,
  case when t.room_id is null then null else coalesce(t.room_name, 'Deleted Room') end as room_name,
  t.source_kind, t.created_at, t.status, t.duration, t.change_seq, t.long_summary, t.webvtt_text`;

/**
 * The scope's condition; `live` is how it says "not deleted" (the impact statement words it so that
 * no index partial on `deleted_at is null` fits: see impactStatement).
 */
function scopeFilter(db: Db, scope: SearchScope, live = db`t.deleted_at is null`) {
  switch (scope.kind) {
    case "own_deleted":
      return db`t.deleted_at is not null and t.user_id = ${scope.userId}`;
    case "own_or_shared_rooms":
      return db`${live} and (t.user_id = ${scope.userId} or t.room_shared)`;
    case "shared_rooms":
      return db`${live} and t.room_shared`;
    case "ownerless_public_or_shared_rooms":
      return db`${live} and (t.user_id is null or t.share_mode = 'public' or t.room_shared)`;
  }
}

function filterOf(db: Db, q: SearchQuery, live?: ReturnType<typeof tsqueryOf>) {
  return [
    scopeFilter(db, q.scope, live),
    q.roomId ? db`t.room_id = ${q.roomId}` : db`true`,
    q.sourceKind ? db`t.source_kind = ${q.sourceKind}` : db`true`,
  ].reduce((acc, c) => db`${acc} and ${c}`);
}

const tsqueryOf = (db: Db, text: string) => db`websearch_to_tsquery('english', ${text})`;

/**
 * The GIN statement (and browsing): filter, rank (ts_rank with normalisation 32, so weights
 * A > B > C > D order title, summary, WebVTT text and room name), page, and the total over the same
 * filter. A room that is gone is shown as "Deleted Room". The total counts up to the bound
 * (`exactUpTo`, or offset + limit).
 *
 * ts_rank reads each row's tsvector (from TOAST), which made a common word cost a second at 100k
 * transcripts, so a text search ranks the first `max(exactUpTo, offset + limit) + 1` matches the
 * index yields: when there are no more than the bound, that is every match (ranking and total are
 * exact); beyond it, an arbitrary subset.
 */
export function searchStatement(db: Db, q: SearchQuery) {
  const where = filterOf(db, q);
  if (q.text === null) {
    // Browse: newest first straight from the created_at index — the trash most recently deleted
    // first (§1.5), from its own index; the count, a separate scan, stops past the bound too.
    const newest = db(q.scope.kind === "own_deleted" ? "deleted_at" : "created_at");
    return db`
      with page as (
        select t.id, t.${newest} as newest from projection.transcript t where ${where}
        order by t.${newest} desc, t.id limit ${q.limit} offset ${q.offset})
      select ${COLUMNS(db)},
        (select count(*) from (select 1 from projection.transcript t where ${where} limit ${candidateCount(q) + 1}) counted) as total
      from page join projection.transcript t on t.id = page.id
      order by page.newest desc, page.id`;
  }
  const tsquery = tsqueryOf(db, q.text);
  return db`
    with candidates as (
      select t.id, t.created_at, t.search_vector from projection.transcript t
      where ${where} and t.search_vector @@ ${tsquery} limit ${candidateCount(q) + 1}),
    page as (
      select id, created_at, ts_rank(search_vector, ${tsquery}, 32) as rank from candidates
      order by rank desc, created_at desc, id limit ${q.limit} offset ${q.offset})
    select ${COLUMNS(db)}, (select count(*) from candidates) as total
    from page join projection.transcript t on t.id = page.id
    order by page.rank desc, page.created_at desc, page.id`;
}

/**
 * The RUM statement: up to `take` matches in the index's `<=>` order, the caller's filter applied
 * to them as they come. The index is on the transcripts' search copies (migrations/projection/0009),
 * which the projection's fill writes after the transcript: a copy counts only while it is current
 * (its change_seq is the transcript's; the stale ones are those of the transcripts past the fill's
 * mark), and the transcripts past the mark are scored from their own rows and merged in, so the
 * candidates are the best `take` of every match as it is now. While more than PENDING_TOKENS wait
 * (a burst the fill has not caught up with), or the mark is about another table, nothing is read
 * and `current` says so: the caller asks GIN. RUM scores a match from the positions and weights its
 * index keeps, without reading the row's tsvector from TOAST. For a single word its distance is
 * 1/ts_rank (the same formula), so candidates are ordered by it, ties newest first, and no row's tsvector is read; for
 * several words RUM's distance only approximates ts_rank (OR is not averaged over the words, AND is
 * scored by cover density), so those candidates are ranked again with ts_rank. A phrase is ordered
 * by the distance of its words AND-ed: ts_rank scores a phrase exactly as that AND (it ranks the
 * words' positions, not the phrase's matches), and RUM's phrase distance is far from it (at 100k
 * transcripts, 2 of the exact top 20 among its best 1000, against 20 of 20 by the AND).
 *
 * How many candidates are read depends on whether the query is a single word: `take.singleWord`,
 * else `take.severalWords` (the planner folds the choice, so it plans with the number). A single
 * word's candidates are the transcripts whose title holds it when they fill the page (see
 * searchTranscripts), else every match, decided inside the statement (the second scan runs only
 * when needed). With `fewTranscripts` (a room's or the trash's) the candidates are read from the
 * transcript rows the filter's own index finds and scored there, all at once. Besides the page
 * (rows with an id), one row carries the candidates read, the largest distance among them, whether
 * they are the titled ones, whether the query is a single word (numnode = 1) and whether the copies
 * were current, even when the page is empty.
 */
export function rumStatement(db: Db, q: SearchQuery & { text: string }, take: RumTake, fewTranscripts = false) {
  const tsquery = tsqueryOf(db, q.text);
  const titledFirst = !fewTranscripts;
  const candidatesOf = (matching: ReturnType<typeof tsqueryOf>) => {
    const ranked = db`regexp_replace(${matching}::text, '<(-|[0-9]+)>', '&', 'g')::tsquery`;
    const take_ = db`case when numnode(${tsquery}) = 1 then ${take.singleWord}::int else ${take.severalWords}::int end`;
    // A room's or the trash's few transcripts: from their own index, scored from their rows.
    if (fewTranscripts)
      return db`
        select t.id, t.created_at, t.search_vector, t.search_vector <=> ${ranked} as distance
        from projection.transcript t
        where ${filterOf(db, q)} and t.search_vector @@ ${matching}
        order by distance limit ${take_}`;
    // The best `take` of the current copies (RUM's order: the stale ones are those of the
    // transcripts waiting past the fill's mark) and of the waiting transcripts (their own rows):
    // the best `take` of all. The copies carry the filter's columns, so they are read alone.
    return db`
      select * from (
        (select t.id, t.created_at, t.search_vector, t.search_vector <=> ${ranked} as distance
         from projection.transcript_search t
         where (select current from copies) and t.id not in (select id from waiting) and ${filterOf(db, q)}
           and t.search_vector @@ ${matching}
         order by t.search_vector <=> ${ranked}
         limit ${take_})
        union all
        select t.id, t.created_at, t.search_vector, t.search_vector <=> ${ranked}
        from projection.transcript t
        where (select current from copies) and t.id in (select id from waiting) and ${filterOf(db, q)} and t.search_vector @@ ${matching}) c
      order by distance limit ${take_}`;
  };
  // The word in a title (weight A): RUM gives such a match the same distance as the plain word.
  const inTitles = db`(case when numnode(${tsquery}) = 1 then (${tsquery}::text || ':A')::tsquery else ${tsquery} end)`;
  const candidates = titledFirst
    ? db`
      titled as materialized (${candidatesOf(inTitles)}),
      choice as materialized (select count(*) >= ${q.offset + q.limit} as titled from titled),
      candidates as materialized (
        select * from titled where (select titled from choice)
        union all
        select * from (${candidatesOf(tsquery)}) every_match where not (select titled from choice))`
    : db`
      choice as materialized (select false as titled),
      candidates as materialized (${candidatesOf(tsquery)})`;
  return db`
    with waiting as materialized (${fewTranscripts ? db`select null::text as id where false` : waitingForCopies(db)}),
    copies as materialized (
      select ${fewTranscripts ? db`true` : db`${searchCopiesFollowThisTable(db)} and (select count(*) from waiting) <= ${PENDING_TOKENS}`} as current),
    ${candidates},
    ranked as (
      select id, created_at, distance,
        case when numnode(${tsquery}) = 1 then -distance else ts_rank(search_vector, ${tsquery}, 32) end as score
      from candidates),
    page as (
      select id, created_at, distance, score, row_number() over (order by score desc, created_at desc, id) as position
      from ranked order by score desc, created_at desc, id limit ${q.limit} offset ${q.offset})
    select ${COLUMNS(db)}, page.distance, page.position, meta.candidates, meta.last_distance, meta.titled, meta.single_word, meta.current
    from (select count(*) as candidates, max(distance) as last_distance, (select titled from choice) as titled,
            numnode(${tsquery}) = 1 as single_word, (select current from copies) as current from candidates) meta
      left join page on true
      left join projection.transcript t on t.id = page.id
    order by page.position`;
}

/** Candidates a RUM statement reads, by whether the query is a single word. */
export interface RumTake {
  singleWord: number;
  severalWords: number;
}

/**
 * Runs a RUM statement in a transaction planned for it, in one round trip (BEGIN, the setting, the
 * statement and COMMIT pipelined on one connection; a failed statement turns the COMMIT into a
 * rollback): for a rare word the planner prefers the GIN bitmap and computes `<=>` on each row's
 * tsvector, read from TOAST (20 ms for 300 matches at 100k transcripts); the RUM index has the
 * positions at hand.
 */
export async function withRumPlanning(sql: Sql, statement: (tx: Db) => ReturnType<typeof rumStatement>) {
  const conn = await sql.reserve();
  try {
    // execute() sends at once, in the order called.
    const [, , result] = await Promise.allSettled([
      conn`begin`.execute(),
      conn`set local enable_bitmapscan = off`.execute(),
      statement(conn).execute(),
      conn`commit`.execute(),
    ]);
    if (result!.status === "rejected") throw result!.reason;
    return result!.value;
  } finally {
    conn.release();
  }
}

const RumMeta = z.object({
  candidates: z.coerce.number().int(),
  last_distance: z.number().nullable(),
  titled: z.boolean(),
  single_word: z.boolean(),
  /** The search copies were current enough to rank from (else nothing was read). */
  current: z.boolean(),
});
const PageRow = ResultRow.omit({ total: true });
const RumPageRow = PageRow.extend({ distance: z.number() });

/**
 * A kind of search token (migrations/projection/0008, 0009): where the tokens are (`t` is always the
 * transcript row), the query it answers and the key it has for that query, and the buckets its
 * tokens may have (`<key>@<bucket>`, 0 = best).
 */
interface TokenKind {
  /**
   * The rows with tokens, as `t`: the transcripts, or their current search copies (which have the
   * columns search reads), with `tokens`, the token array, current with them.
   */
  rows: (db: Db) => ReturnType<typeof tsqueryOf>;
  /** One row with the query's `key` when the tokens can answer it, else none (from `query`'s `q`). */
  key: (db: Db, text: string) => ReturnType<typeof tsqueryOf>;
  lastBucket: number;
  /**
   * Transcripts whose tokens the projection's background fill has yet to compute (their text may
   * have changed): ranked along with the tokens' candidates, up to PENDING_TOKENS of them; and
   * whether the fill's mark is about this table at all (else every row may wait).
   */
  pending: { ready: (db: Db) => ReturnType<typeof tsqueryOf>; rows: (db: Db) => ReturnType<typeof tsqueryOf> } | null;
}

/**
 * Single words: buckets are floor(-ln(rank) * 64) of a lexeme's own ts_rank, and a lexeme gets a
 * token only when it ranks above one caption-text occurrence (0.1216, bucket 134). Every row has
 * them (the trigger computes them; impactTokensReady says when the fill of older rows is done).
 */
const WORD_TOKENS: TokenKind = {
  rows: (db) => db`(select t.*, t.search_impact as tokens from projection.transcript t) t`,
  key: (db, text) => db`
    select v.lexeme as key from query, unnest(to_tsvector('english', ${text})) v
    where numnode(query.q) = 1 and query.q = quote_literal(v.lexeme)::tsquery limit 1`,
  lastBucket: 134,
  pending: null,
};
/**
 * A phrase of two distinct words (`"a b"`, which websearch_to_tsquery makes `'a' <-> 'b'`): the
 * pair's rank above 0.8, bucketed by -ln(1 - rank) (see 0009_transcript_search.sql). The tokens
 * are the search copies' (computed for their vectors after them); transcripts past either of the
 * fill's marks wait, and are ranked from their own rows.
 */
const PAIR_TOKENS: TokenKind = {
  // The copies carry the filter's columns; the stale ones (and those whose tokens are not computed
  // for their vector yet) are pending, so the others' tokens are current.
  rows: (db) => db`(
    select s.*, p.pair_tokens as tokens
    from projection.transcript_search_pairs p join projection.transcript_search s on s.id = p.id
    where p.id not in (select id from pending)) t`,
  key: (db, text) => db`
    select a.lexeme || ' ' || b.lexeme as key
    from query, unnest(to_tsvector('english', ${text})) a, unnest(to_tsvector('english', ${text})) b
    where numnode(query.q) = 3 and a.lexeme <> b.lexeme
      and query.q = tsquery_phrase(quote_literal(a.lexeme)::tsquery, quote_literal(b.lexeme)::tsquery) limit 1`,
  lastBucket: 166,
  pending: {
    ready: (db: Db) => searchCopiesFollowThisTable(db),
    // Past the mark, or a copy whose tokens the fill has yet to compute (past the pairs' mark).
    rows: (db: Db) => db`
      (${waitingForCopies(db)})
      union
      (select s.id from projection.transcript_search s
       where s.vector_seq > (select pairs_through from projection.transcript_search_fill where one)
       limit ${PENDING_TOKENS + 1})`,
  },
};

/**
 * Whether the search fill's mark is about the read model's transcript table (else every copy may be
 * stale). Its one row is read by its key (`one`): search statements take no sequential scan.
 */
const searchCopiesFollowThisTable = (db: Db) => db`exists (
  select 1 from projection.transcript_search_fill where one and of_table = 'projection.transcript'::regclass)`;

/**
 * Transcripts past the search fill's mark (migrations/projection/0009): their search copy, if any,
 * is older than they are; up to PENDING_TOKENS + 1 of them.
 */
const waitingForCopies = (db: Db) => db`
  select t.id from projection.transcript t
  where t.change_seq > (select filled_through from projection.transcript_search_fill where one)
  limit ${PENDING_TOKENS + 1}`;
/**
 * Candidates the token statement ranks at most (ts_rank reads each one's vector: ~10 µs); past it
 * the query takes the RUM path, which reads the words' whole posting lists.
 */
export const IMPACT_CANDIDATES = 10_000;
/**
 * Transcripts waiting for their search copy (or its pair tokens) that a page is ranked with from
 * their own rows at most; past it, the next path (pair tokens: RUM; RUM: GIN).
 */
const PENDING_TOKENS = 500;
/** Buckets counted at once while looking for the one that fills the page (a rare word has few, far apart). */
const IMPACT_GROUP = 16;

/**
 * A single word's page from the impact tokens, exact by construction: see tokenStatement.
 */
export const impactStatement = (db: Db, q: SearchQuery & { text: string }) => tokenStatement(db, q, WORD_TOKENS);
/** A two-word phrase's page from the pair tokens, exact by construction: see tokenStatement. */
export const pairStatement = (db: Db, q: SearchQuery & { text: string }) => tokenStatement(db, q, PAIR_TOKENS);

/**
 * A page from search tokens, exact by construction. The query's matches that the caller's filter
 * lets through are counted bucket by bucket, best ranks first, until the buckets counted hold the
 * page (`offset + limit`), and then one bucket more: ts_rank's normalisation (r / (r + 1), in
 * single precision) could make a rank just below a bucket's edge equal to one just above it, and
 * ties are ordered newest first; a whole bucket further down, no rank can. (A rare word's few
 * tokens lie far apart: the bucket that fills the page is first looked for in groups of
 * IMPACT_GROUP buckets.) Only those candidates are ranked, with ts_rank itself. A transcript without
 * a token for the key ranks below every token's rank: so once the tokens fill the page, no such
 * transcript belongs on it — except those still waiting for their tokens, which are ranked with them
 * (a transcript has current tokens or waits, never both: the fill's mark moves with its tokens).
 *
 * One row carries whether the page is exact (`filled`: the query has a key, the tokens held the
 * page, no more than `IMPACT_CANDIDATES` were ranked and no more than PENDING_TOKENS rows wait)
 * and the total (only when filled), counted up to the bound + 1; the page's rows follow it. When not
 * filled, no row was ranked. Over everything visible, the groups are counted on past the page until
 * they hold more than the bound: then so do the matches, and the total is capped without reading
 * the words' whole posting lists (at 100k transcripts that read took 14 of a common word's 16 ms);
 * else, and in a user's scope, the matches are counted as a plain count plans it.
 *
 * The token scans say "not deleted" in words no partial index's predicate matches (the token
 * indexes cover deleted rows too): on a small table the planner otherwise read a list index in full
 * and tested every row's tokens, 25 times (70 ms on 720 transcripts).
 */
function tokenStatement(db: Db, q: SearchQuery & { text: string }, kind: TokenKind) {
  const where = filterOf(db, q);
  const tokensWhere = filterOf(db, q, db`coalesce(t.deleted_at, 'infinity') = 'infinity'`);
  const need = q.offset + q.limit;
  const bound = candidateCount(q);
  // Everything visible (PUBLIC_MODE): the filter lets nearly every token through, so counting on
  // past the page is cheap. A user's scope lets few through: its matches are counted from the scope
  // (its own transcripts and the shared rooms' first, then the words), as a plain count plans it.
  const countOn = q.scope.kind === "ownerless_public_or_shared_rooms" ? bound + 1 : need;
  // The key's tokens of buckets `from`..`to`.
  const tokens = (from: SqlPart, to: SqlPart) =>
    db`(select array_agg((select key from key) || '@' || b) from generate_series(${from}, ${to}) b)`;
  // Transcripts the filter lets through among the key's tokens of buckets `from`..`to`, counted up to `upTo`.
  const counted = (from: SqlPart, to: SqlPart, upTo: SqlPart) => db`(
    select count(*)::int from (
      select 1 from ${kind.rows(db)}
      where t.tokens && ${tokens(from, to)} and ${tokensWhere}
      limit ${upTo}) c)`;
  const [ready, pending] = kind.pending
    ? [kind.pending.ready(db), kind.pending.rows(db)]
    : [db`true`, db`select null::text as id where false`];
  return db`
    with recursive
      query as materialized (select websearch_to_tsquery('english', ${q.text}) as q),
      key as materialized (${kind.key(db, q.text)}),
      pending as materialized (${pending}),
      groups(first, found, before) as (
        select ${-IMPACT_GROUP}::int, 0, 0
        union all
        select p.first + ${IMPACT_GROUP}, p.found + ${counted(db`p.first + ${IMPACT_GROUP}`, db`p.first + ${2 * IMPACT_GROUP - 1}`, db`${countOn}::int - p.found`)}, p.found
        from groups p
        where (select key from key) is not null and ${ready} and (select count(*) from pending) <= ${PENDING_TOKENS}
          and p.found < ${countOn}::int and p.first + ${IMPACT_GROUP} <= ${kind.lastBucket}),
      boundary as materialized (select first, before from groups where found >= ${need}::int order by first limit 1),
      buckets(bucket, found, filled_at) as (
        select first - 1, before, null::int from boundary
        union all
        select next.bucket, next.found, coalesce(p.filled_at, case when next.found >= ${need}::int then next.bucket end)
        from buckets p cross join lateral (
          select p.bucket + 1 as bucket, p.found + ${counted(db`p.bucket + 1`, db`p.bucket + 1`, IMPACT_CANDIDATES + 1)} as found) next
        where p.bucket < ${kind.lastBucket} and p.found <= ${IMPACT_CANDIDATES} and (p.filled_at is null or p.bucket = p.filled_at)),
      reach as materialized (
        select coalesce(max(filled_at) is not null and max(found) <= ${IMPACT_CANDIDATES}, false) as filled, max(bucket) as last from buckets),
      candidates as (
        select t.id, t.created_at, ts_rank(t.search_vector, (select q from query), 32) as rank
        from ${kind.rows(db)}
        where (select filled from reach)
          and t.tokens && ${tokens(0, db`(select last from reach)`)}
          and ${tokensWhere}
        union all
        select t.id, t.created_at, ts_rank(t.search_vector, (select q from query), 32) as rank
        from projection.transcript t
        where (select filled from reach)
          and t.id in (select id from pending) and ${tokensWhere} and t.search_vector @@ (select q from query)),
      page as (
        select id, created_at, rank, row_number() over (order by rank desc, created_at desc, id) as position
        from candidates order by rank desc, created_at desc, id limit ${q.limit} offset ${q.offset})
    select ${COLUMNS(db)}, page.position, meta.filled, meta.total
    from (
      select (select filled from reach) as filled,
        case
          when not (select filled from reach) then null
          when (select max(found) from groups) > ${bound}::int then ${bound + 1}::int
          else (
            select count(*) from (
              select 1 from projection.transcript t where ${where} and t.search_vector @@ ${tsqueryOf(db, q.text)}
              limit ${bound + 1}) counted)
        end as total) meta
      left join page on true
      left join projection.transcript t on t.id = page.id
    order by page.position`;
}

type SqlPart = ReturnType<typeof tsqueryOf> | number;
const ImpactMeta = z.object({ filled: z.boolean(), total: z.coerce.number().int().nullable() });

/** Candidates a text search ranks at most (one more is read to tell whether there are more). */
const candidateCount = (q: SearchQuery) => Math.max(q.exactUpTo, q.offset + q.limit);

/** Which statement answered a page: the single-word or pair tokens, RUM over the search copies, or GIN. */
export type SearchPath = "impact" | "pairs" | "rum" | "gin";

export interface SearchPage {
  path: SearchPath;
  rows: Omit<ResultRow, "total">[];
  /** Exact up to the bound; the bound itself when more match (then `totalCapped`). */
  total: number;
  totalCapped: boolean;
}

/** Matches of a text search, counted up to `upTo` (the index finds them; no row's tsvector is ranked). */
export function countStatement(db: Db, q: SearchQuery & { text: string }, upTo: number) {
  return db`
    select count(*) as matched from (
      select 1 from projection.transcript t
      where ${filterOf(db, q)} and t.search_vector @@ ${tsqueryOf(db, q.text)} limit ${upTo}) counted`;
}

/** With RUM, how many more candidates a single word reads when a tie with the page's last row may lie beyond them. */
const TIE_GROWTH = 8;

/**
 * A page of results; the total is exact up to the bound.
 *
 * With the RUM index, one statement reads the candidates in `<=>` order. A single word reads only
 * the page (and what a tie may add): that order is ts_rank's, so the page is exact however many
 * match. It reads the transcripts whose title holds the word first: ts_rank ranks each of those
 * above every other (a word's rank, here, is the sum of its occurrences' weights divided by their
 * squared order, over pi^2/6; the read model's vector has the title's positions first, so a title
 * match ranks at least 1/1.645 = 0.61, any other at most 0.4 * 1.645 / 1.645 = 0.4), so when they
 * fill the page it is theirs; else every match is read. RUM still reads the word's whole posting
 * list, but ranks and sorts the titled matches only (a word in every transcript: 35 against 80 ms).
 * The candidates reach past the page's last row (a tie with it could otherwise sit beyond them, and
 * ties are ordered newest first); when the last one read still ties, more are read; when more match
 * than were read, they are counted apart (without ranking). Several words read
 * `bound + 1` candidates and rank them with ts_rank: every match, exactly ranked and counted, when
 * no more than the bound match; beyond it, the best `bound + 1` by the RUM distance (its order for
 * AND and phrases is close to ts_rank's, not equal), and the total is the bound, capped. While
 * the search copies lag too far behind for the RUM statement, the GIN statement answers (exact up
 * to the bound; beyond it, the first `bound + 1` matches ranked). `path` says which answered.
 */
export async function searchTranscripts(db: Sql, q: SearchQuery): Promise<SearchPage> {
  const bound = candidateCount(q);
  const page = (path: SearchPath, rows: Omit<ResultRow, "total">[], matched: number): SearchPage => ({
    path,
    rows,
    total: Math.min(matched, bound),
    totalCapped: matched > bound,
  });
  const text = q.text;
  // A room's or the trash's few transcripts are read from their own index and ranked all at once.
  const fewTranscripts = q.roomId !== null || q.scope.kind === "own_deleted";
  if (text !== null && q.impact && !fewTranscripts) {
    // Only a quoted text makes a phrase (websearch_to_tsquery): others do not pay the pair statement's round trip.
    const statements = [["impact", impactStatement] as const, ...(text.includes('"') ? [["pairs", pairStatement] as const] : [])];
    for (const [path, statement] of statements) {
      const result = await statement(db, { ...q, text });
      const meta = ImpactMeta.parse(result[0]);
      if (meta.filled)
        return page(
          path,
          result.filter((r) => r.id !== null).map((r) => PageRow.parse(r)),
          meta.total!,
        );
    }
  }
  if (text !== null && q.index === "rum") {
    const query = { ...q, text };
    // Asking a room or the trash for the titled ones first would only add a scan when they do not fill the page.
    const rum = async (take: RumTake) => {
      const result = await withRumPlanning(db, (tx) => rumStatement(tx, query, take, fewTranscripts));
      return { meta: RumMeta.parse(result[0]), rows: result.filter((r) => r.id !== null).map((r) => RumPageRow.parse(r)) };
    };
    let take = { singleWord: 4 * (q.offset + q.limit) + 1, severalWords: bound + 1 };
    let read = await rum(take);
    // Else more transcripts wait for their search copies than a page is ranked with: GIN answers.
    if (read.meta.current) {
      if (!read.meta.single_word) return page("rum", read.rows, read.meta.candidates);
      for (;;) {
        const lastOfPage = read.rows.at(-1)?.distance;
        if (read.meta.candidates < take.singleWord || lastOfPage === undefined || read.meta.last_distance !== lastOfPage) break;
        take = { ...take, singleWord: take.singleWord * TIE_GROWTH };
        read = await rum(take);
      }
      if (!read.meta.titled && read.meta.candidates < take.singleWord) return page("rum", read.rows, read.meta.candidates);
      const [counted] = await countStatement(db, query, bound + 1);
      return page("rum", read.rows, Number(counted!.matched));
    }
  }
  const rows = (await searchStatement(db, q)).map((r) => ResultRow.parse(r));
  if (rows.length > 0) return page("gin", rows, rows[0]!.total);
  // A page past the end has no row to carry the total: count with the first page.
  if (q.offset === 0) return page("gin", rows, 0);
  const first = await searchStatement(db, { ...q, limit: 1, offset: 0, exactUpTo: bound });
  return page("gin", rows, first[0] ? ResultRow.parse(first[0]).total : 0);
}

/** Which index the read model offers for ranked search (the RUM index exists only with the extension). */
export async function availableSearchIndex(db: Db): Promise<SearchIndex> {
  const [row] = await db<{ rum: boolean }[]>`
    select exists (select 1 from pg_indexes where schemaname = 'projection' and indexname = ${RUM_INDEX}) as rum`;
  return row?.rum ? "rum" : "gin";
}

/**
 * Whether search tokens can be used: the projection's migrations 0008 and 0009 ran and its background
 * fill gave every row its impact tokens (rows written since always have them). Pair tokens need no
 * fill to be done: rows waiting for theirs are ranked with each phrase (see tokenStatement).
 */
export async function impactTokensReady(db: Db): Promise<boolean> {
  const [migrated] = await db<{ ok: boolean }[]>`
    select exists (select 1 from pg_indexes where schemaname = 'projection' and indexname = 'idx_transcript_search_impact')
      and to_regclass('projection.transcript_search_fill') is not null as ok`;
  if (!migrated?.ok) return false;
  const [missing] = await db<{ exists: boolean }[]>`select exists (select 1 from projection.transcript where search_impact is null)`;
  return missing?.exists === false;
}

/**
 * The highest rooms' feed position the read model applied (see migrations/projection/0004_room_feed.sql);
 * 0 while the read model is not migrated yet (the search service may start first: see readModelReady).
 */
export async function roomFeedPosition(db: Db): Promise<number> {
  try {
    const [row] = await db<{ position: string | null }[]>`select max(feed_seq) as position from projection.room`;
    return Number(row?.position ?? 0);
  } catch {
    return 0;
  }
}

/** Readiness: the read model exists (the projection applies its migrations). */
export async function readModelReady(db: Db): Promise<string | null> {
  try {
    await db`select 1 from projection.transcript limit 0`;
    return null;
  } catch (e) {
    return `read model: ${(e as Error).message}`;
  }
}
