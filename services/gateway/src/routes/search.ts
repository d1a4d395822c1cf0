// GET /v1/transcripts/search (api.md §2.9), answered by the search service. Registered before
// /v1/transcripts/{transcript_id}: Hono tries routes in registration order.
//
// Filters: one room_id and the reference web app's two (decision: no date-range, status or multi-room
// filters): source_kind (its kind filter) and include_deleted=true (its trash view: the caller's own
// soft-deleted transcripts). The reference's other parameters stay accepted when they ask for nothing
// and are refused with a 422 naming the parameter when they ask for a filter Scribe does not offer,
// rather than being silently ignored (which would answer a different question than the one asked).
import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import { SearchResponse, SourceKind, searchOps } from "@scribe/contracts";
import { call, requireUserUnlessPublic, type AppEnv } from "../http/context";
import { json, validationError } from "./responses";

const NOT_OFFERED = "not offered: search filters by one room_id and source_kind only";

const notOffered = (name: string) =>
  z
    .string()
    .optional()
    .refine((v) => v === undefined, { message: `${name} is ${NOT_OFFERED}` })
    .openapi({ description: `${NOT_OFFERED}; must be absent` });

const SearchQueryParams = z.object({
  q: z.string().openapi({ description: 'web-search syntax (words, "phrases", OR, -not); empty lists newest first' }),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).default(0),
  room_id: z.string().optional(),
  source_kind: SourceKind.optional(),
  from: notOffered("from"),
  to: notOffered("to"),
  include_deleted: z.stringbool().default(false).openapi({
    type: "boolean",
    description: "true: the trash view, only the caller's own soft-deleted transcripts (needs a signed-in caller)",
  }),
});

export function searchRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/transcripts/search",
      operationId: "v1_transcripts_search",
      tags: ["transcripts"],
      middleware: [requireUserUnlessPublic] as const,
      request: { query: SearchQueryParams },
      responses: { 200: json(SearchResponse), ...validationError },
    }),
    async (c) => {
      const { q, limit, offset, room_id, source_kind, include_deleted } = c.req.valid("query");
      return c.json(
        await call(c, searchOps.search, { q, limit, offset, room_id: room_id ?? null, source_kind: source_kind ?? null, include_deleted }),
        200,
      );
    },
  );
}
