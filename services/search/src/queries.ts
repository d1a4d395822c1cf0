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
 * The index to rank with, looked up on the first search and again while it is not RUM: the
 * projection creates the index in its migrations, which may run after this service started.
 */
function searchIndexOf(sql: Sql, config: SearchConfig): () => Promise<SearchIndex> {
  let known: SearchIndex | null = config.SEARCH_INDEX === "gin" ? "gin" : null;
  let checkedAt = -Infinity;
  return async () => {
    if (known === "rum" || (known === "gin" && config.SEARCH_INDEX === "gin")) return known;
    if (known === null || performance.now() - checkedAt > 30_000) {
      checkedAt = performance.now();
      known = await availableSearchIndex(sql);
    }
    return known;
  };
}

/**
 * Whether single words are ranked from impact tokens, looked up on the first search and again every
 * 30 s until they are: the projection fills older rows' tokens in the background after its
 * migration, and once every row has them, every row written afterwards has them too.
 */
function impactTokensOf(sql: Sql): () => Promise<boolean> {
  let ready = false;
  let checkedAt = -Infinity;
  return async () => {
    if (!ready && performance.now() - checkedAt > 30_000) {
      checkedAt = performance.now();
      ready = await impactTokensReady(sql);
    }
    return ready;
  };
}

export function registerQueries(rpc: RpcServer, sql: Sql, config: SearchConfig, roomFeed: NotifiedWatermark): void {
  const settings = snippetSettings(config);
  const searchIndex = searchIndexOf(sql, config);
  const impactTokens = impactTokensOf(sql);
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
