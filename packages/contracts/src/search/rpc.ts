// Request/reply operation of the search service (api.md §2.9 GET /v1/transcripts/search).
import { z } from "@hono/zod-openapi";
import { defineOp, withCaller } from "../common/rpc";
import { SourceKind } from "../common/enums";
import { SearchResponse } from "../transcripts/api";

export const SearchRequest = withCaller({
  /** Trimmed by the service; empty means browse (no text filter, newest first). */
  q: z.string(),
  limit: z.number().int().min(1).max(100).default(20),
  offset: z.number().int().min(0).default(0),
  /** A single room. */
  room_id: z.string().nullable().optional(),
  source_kind: SourceKind.nullable().optional(),
  /** The trash view: only the caller's own soft-deleted transcripts. */
  include_deleted: z.boolean().default(false),
});

export const searchOps = {
  search: defineOp("search.search", SearchRequest, SearchResponse),
} as const;
