// GET /v1/transcripts/search over request/reply: visibility by the shared listing scope, ranking in
// SQL, snippets and match counts per result (behaviour-search-notify-auth §1).
import { isoformatUtc, listingScope, searchOps } from "@scribe/contracts";
import { Unauthorized, anonymousMayUsePublicRoutes, feedPositionSeen, type NotifiedWatermark, type RpcServer, type Sql } from "@scribe/kit";
import type { SearchConfig } from "./config";
import { combineSnippets, type SnippetSettings } from "./domain/snippets";
import { availableSearchIndex, impactTokensReady, searchTranscripts, type SearchIndex, type SearchScope } from "./store";

export function snippetSettings(config: SearchConfig): SnippetSettings {
  return {
    maxTotal: config.SEARCH_MAX_SNIPPETS,
    maxFromSummary: config.LONG_SUMMARY_MAX_SNIPPETS,
    contextLength: config.SEARCH_SNIPPET_CONTEXT_CHARS,
    maxLength: config.SEARCH_SNIPPET_MAX_CHARS,
  };
}

/**
 * `look` on the first call, and again at most every 30 s until its answer is `settled`; then that
 * answer for good. What search may use is made by the projection, which may migrate (the RUM index)
 * or fill (the impact tokens) after this service started.
 */
function recheckedUntil<T>(look: () => Promise<T>, settled: (answer: T) => boolean): () => Promise<T> {
  let known: { answer: T } | null = null;
  let checkedAt = -Infinity;
  return async () => {
    if (known && (settled(known.answer) || performance.now() - checkedAt <= 30_000)) return known.answer;
    checkedAt = performance.now();
    known = { answer: await look() };
    return known.answer;
  };
}

export function registerQueries(rpc: RpcServer, sql: Sql, config: SearchConfig, roomFeed: NotifiedWatermark): void {
  const settings = snippetSettings(config);
  // RUM once the index exists (SEARCH_INDEX=gin: never); the impact tokens once every row has them.
  const searchIndex =
    config.SEARCH_INDEX === "gin"
      ? async (): Promise<SearchIndex> => "gin"
      : recheckedUntil(
          () => availableSearchIndex(sql),
          (index) => index === "rum",
        );
  const impactTokens = recheckedUntil(
    () => impactTokensReady(sql),
    (ready) => ready,
  );
  rpc.handle(searchOps.search, async ({ caller, q, limit, offset, room_id, source_kind, include_deleted }) => {
    if (include_deleted && caller.userId === null) throw Unauthorized("Authentication required to view deleted transcripts");
    if (caller.userId === null && !anonymousMayUsePublicRoutes(config)) throw Unauthorized();
    // The trash is the caller's own: shared rooms and PUBLIC_MODE do not widen it.
    const scope: SearchScope = include_deleted ? { kind: "own_deleted", userId: caller.userId! } : listingScope(caller, config.PUBLIC_MODE);
    // Room names and sharing shown and filtered by: as of the latest room change the caller may know.
    await feedPositionSeen("room", roomFeed);
    const text = q.trim() || null;
    const { rows, total, totalCapped } = await searchTranscripts(sql, {
      text,
      scope,
      roomId: room_id ?? null,
      sourceKind: source_kind ?? null,
      limit,
      offset,
      exactUpTo: config.SEARCH_EXACT_UP_TO,
      index: await searchIndex(),
      impact: await impactTokens(),
    });
    const results = rows.map((r) => {
      const { snippets, totalMatchCount } = text
        ? combineSnippets({ longSummary: r.long_summary, webvttText: r.webvtt_text }, text, settings)
        : { snippets: [], totalMatchCount: 0 };
      return {
        id: r.id,
        title: r.title,
        user_id: r.user_id,
        room_id: r.room_id,
        room_name: r.room_name,
        source_kind: r.source_kind,
        created_at: isoformatUtc(r.created_at),
        status: r.status,
        duration: r.duration,
        search_snippets: snippets,
        total_match_count: totalMatchCount,
        change_seq: r.change_seq,
      };
    });
    return { results, total, ...(totalCapped ? { total_capped: true } : {}), query: text, limit, offset };
  });
}
