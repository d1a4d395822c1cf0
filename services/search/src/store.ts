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
}

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
 * summary, WebVTT text and room name), page, and the total over the same filter. Ranking and
 * counting work on narrow rows (id, rank, created_at); only the page's rows are read whole. A room
 * that is gone is shown as "Deleted Room".
 */
export function searchStatement(db: Db, q: SearchQuery) {
  const where = [
    scopeFilter(db, q.scope),
    q.roomId ? db`t.room_id = ${q.roomId}` : db`true`,
    q.sourceKind ? db`t.source_kind = ${q.sourceKind}` : db`true`,
  ].reduce((acc, c) => db`${acc} and ${c}`);
  if (q.text === null) {
    // Browse: newest first straight from the created_at index; the count is a separate scan.
    return db`
      with page as (
        select t.id, t.created_at from projection.transcript t where ${where}
        order by t.created_at desc, t.id limit ${q.limit} offset ${q.offset})
      select ${COLUMNS(db)}, (select count(*) from projection.transcript t where ${where}) as total
      from page join projection.transcript t on t.id = page.id
      order by page.created_at desc, page.id`;
  }
  const tsquery = db`websearch_to_tsquery('english', ${q.text})`;
  return db`
    with hits as (
      select t.id, t.created_at, ts_rank(t.search_vector, ${tsquery}, 32) as rank
      from projection.transcript t where ${where} and t.search_vector @@ ${tsquery}),
    page as (select id, rank, created_at from hits order by rank desc, created_at desc, id limit ${q.limit} offset ${q.offset})
    select ${COLUMNS(db)}, (select count(*) from hits) as total
    from page join projection.transcript t on t.id = page.id
    order by page.rank desc, page.created_at desc, page.id`;
}

export async function searchTranscripts(db: Db, q: SearchQuery): Promise<{ rows: ResultRow[]; total: number }> {
  const rows = (await searchStatement(db, q)).map((r) => ResultRow.parse(r));
  if (rows.length > 0) return { rows, total: rows[0]!.total };
  // A page past the end has no row to carry the total: count with the first page.
  if (q.offset === 0) return { rows, total: 0 };
  const first = await searchStatement(db, { ...q, limit: 1, offset: 0 });
  return { rows, total: first[0] ? ResultRow.parse(first[0]).total : 0 };
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
