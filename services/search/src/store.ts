// SQL of the search service. It owns no data: it reads the projection's read model, read-only (the
// one documented exception to "one owner per table"; in production its role has SELECT only).
import type { ListingScope } from "@scribe/contracts";
import type { Db } from "@scribe/kit";
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
}

/** "rum": the projection's RUM index exists (migration 0003); "gin": the fallback. */
export type SearchIndex = "rum" | "gin";
export const RUM_INDEX = "idx_transcript_search_rum";

/**
 * Session settings of the search service's connections. The planner prices a sequential scan of
 * `search_vector @@ q` without the cost of detoasting every row's tsvector, so for common words it
 * scans (and detoasts) the whole table where the GIN index touches only the matches; and a
 * generic plan of a prepared statement cannot know how common the searched words are.
 */
export const SEARCH_DB_SETTINGS = { enable_seqscan: "off", plan_cache_mode: "force_custom_plan" };

const COLUMNS = (db: Db) => db`
  t.id, t.title, t.user_id, t.room_id,
  case when t.room_id is null then null else coalesce(t.room_name, 'Deleted Room') end as room_name,
  t.source_kind, t.created_at, t.status, t.duration, t.change_seq, t.long_summary, t.webvtt_text`;

function scopeFilter(db: Db, scope: SearchScope) {
  switch (scope.kind) {
    case "own_deleted":
      return db`t.deleted_at is not null and t.user_id = ${scope.userId}`;
    case "own_or_shared_rooms":
      return db`t.deleted_at is null and (t.user_id = ${scope.userId} or t.room_shared)`;
    case "shared_rooms":
      return db`t.deleted_at is null and t.room_shared`;
    case "ownerless_public_or_shared_rooms":
      return db`t.deleted_at is null and (t.user_id is null or t.share_mode = 'public' or t.room_shared)`;
  }
}

/**
 * One statement: filter, rank (ts_rank with normalisation 32, so weights A > B > C > D order title,
 * summary, WebVTT text and room name), page, and the total over the same filter. A room that is
 * gone is shown as "Deleted Room". The total counts up to the bound (`exactUpTo`, or offset + limit).
 *
 * ts_rank reads each row's tsvector (from TOAST), which made a common word cost a second at 100k
 * transcripts, so a text search ranks at most `max(exactUpTo, offset + limit) + 1` candidates:
 * "first", any matches the index yields first (when there are no more than the bound, that is
 * every match: ranking and total are exact), or "best", the best by the RUM index's distance, read
 * from the index in that order (for one word or an OR of words that order is exactly ts_rank's; for
 * AND and phrases an approximation, re-ranked exactly here).
 */
export function searchStatement(db: Db, q: SearchQuery, candidates: "first" | "best" = "first") {
  const where = [
    scopeFilter(db, q.scope),
    q.roomId ? db`t.room_id = ${q.roomId}` : db`true`,
    q.sourceKind ? db`t.source_kind = ${q.sourceKind}` : db`true`,
  ].reduce((acc, c) => db`${acc} and ${c}`);
  if (q.text === null) {
    // Browse: newest first straight from the created_at index; the count, a separate scan, stops
    // past the bound too.
    return db`
      with page as (
        select t.id, t.created_at from projection.transcript t where ${where}
        order by t.created_at desc, t.id limit ${q.limit} offset ${q.offset})
      select ${COLUMNS(db)},
        (select count(*) from (select 1 from projection.transcript t where ${where} limit ${candidateCount(q) + 1}) counted) as total
      from page join projection.transcript t on t.id = page.id
      order by page.created_at desc, page.id`;
  }
  const tsquery = db`websearch_to_tsquery('english', ${q.text})`;
  const order = candidates === "best" ? db`order by t.search_vector <=> ${tsquery}` : db``;
  return db`
    with candidates as (
      select t.id, t.created_at, t.search_vector from projection.transcript t
      where ${where} and t.search_vector @@ ${tsquery} ${order} limit ${candidateCount(q) + 1}),
    page as (
      select id, created_at, ts_rank(search_vector, ${tsquery}, 32) as rank from candidates
      order by rank desc, created_at desc, id limit ${q.limit} offset ${q.offset})
    select ${COLUMNS(db)}, (select count(*) from candidates) as total
    from page join projection.transcript t on t.id = page.id
    order by page.rank desc, page.created_at desc, page.id`;
}

/** Candidates a text search ranks at most (one more is read to tell whether there are more). */
const candidateCount = (q: SearchQuery) => Math.max(q.exactUpTo, q.offset + q.limit);

export interface SearchPage {
  rows: ResultRow[];
  /** Exact up to the bound; the bound itself when more match (then `totalCapped`). */
  total: number;
  totalCapped: boolean;
}

/**
 * A page of results. A text search with more matches than the bound is ranked again over the best
 * candidates by the RUM index when there is one (otherwise the first candidates stand): the first
 * statement reads only up to the bound, the RUM scan scores every match.
 */
export async function searchTranscripts(db: Db, q: SearchQuery): Promise<SearchPage> {
  const bound = candidateCount(q);
  const page = (rows: ResultRow[], matched: number): SearchPage => ({
    rows,
    total: Math.min(matched, bound),
    totalCapped: matched > bound,
  });
  const parse = (rows: readonly unknown[]) => rows.map((r) => ResultRow.parse(r));
  const rows = parse(await searchStatement(db, q));
  if (rows.length > 0) {
    const matched = rows[0]!.total;
    if (matched <= bound || q.index !== "rum") return page(rows, matched);
    return page(parse(await searchStatement(db, q, "best")), matched);
  }
  // A page past the end has no row to carry the total: count with the first page.
  if (q.offset === 0) return page(rows, 0);
  const first = await searchStatement(db, { ...q, limit: 1, offset: 0, exactUpTo: bound });
  return page(rows, first[0] ? ResultRow.parse(first[0]).total : 0);
}

/** Which index the read model offers for ranked search (the RUM index exists only with the extension). */
export async function availableSearchIndex(db: Db): Promise<SearchIndex> {
  const [row] = await db<{ rum: boolean }[]>`
    select exists (select 1 from pg_indexes where schemaname = 'projection' and indexname = ${RUM_INDEX}) as rum`;
  return row?.rum ? "rum" : "gin";
}

/** Readiness: the read model exists (the projection applies its migrations). */
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

export async function readModelReady(db: Db): Promise<string | null> {
  try {
    await db`select 1 from projection.transcript limit 0`;
    return null;
  } catch (e) {
    return `read model: ${(e as Error).message}`;
  }
}
