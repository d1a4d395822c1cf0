// Transcript read routes (api.md §2.9 list, §2.10 GET, §2.11 topics, §2.12 participants GET), served
// by the projection's read model. Mutations belong to the transcription service's routes; they use
// `awaitReadModel` so that a read after a write sees the write.
import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import {
  DOCUMENT_TAG_HEADER,
  GetTranscript,
  GetTranscriptTopic,
  GetTranscriptTopicWithWords,
  GetTranscriptTopicWithWordsPerSpeaker,
  PageGetTranscriptMinimal,
  PARTICIPANT_USERS_HEADER,
  PageQuery,
  Participant,
  SourceKind,
  TranscriptFormat,
  TranscriptSortBy,
  projectionOps,
  tagNamed,
  type AwaitVersionResult,
} from "@scribe/contracts";
import { createHash } from "node:crypto";
import { call, callJson, requireUserUnlessPublic, type AppContext, type AppEnv } from "../http/context";
import { emailsOf } from "../store";
import { json, validationError } from "./responses";

const tags = ["transcripts"];
const TranscriptIdParam = z.object({ transcript_id: z.string() });

const ListQuery = PageQuery.extend({
  source_kind: SourceKind.optional(),
  room_id: z.string().optional(),
  search_term: z.string().optional().openapi({ description: "case-insensitive substring of the title" }),
  change_seq_from: z.coerce
    .number()
    .int()
    .optional()
    .openapi({ description: "change feed: only transcripts whose change_seq is greater (deleted ones included, with deleted_at)" }),
  sort_by: TranscriptSortBy.optional().openapi({
    description: "change_seq: ascending, for checkpoint polling; default created_at, newest first",
  }),
});

/**
 * Read-your-writes for mutation routes: wait until the read model holds `version` of the
 * transcript (the command's answer carries it), bounded so the route still answers in time.
 */
export async function awaitReadModel(c: AppContext, id: string, version: number, timeoutMs = 5000): Promise<AwaitVersionResult> {
  const bound = Math.max(0, Math.min(timeoutMs, c.get("deps").config.RPC_TIMEOUT_MS - 1000));
  return call(c, projectionOps.awaitVersion, { id, version, timeout_ms: bound });
}

/** api.md §2.10: each participant linked to a user carries that user's e-mail (users live here). */
async function withEmails<P extends { user_id?: string | null; email?: string | null }>(
  c: AppContext,
  participants: P[] | null,
): Promise<P[] | null> {
  if (!participants) return participants;
  const ids = [...new Set(participants.flatMap((p) => (p.user_id ? [p.user_id] : [])))];
  const emails = await emailsOf(c.get("deps").sql, ids);
  return participants.map((p) => ({ ...p, email: (p.user_id && emails.get(p.user_id)) || null }));
}

/**
 * GET /v1/transcripts/{id}: the projection's document passed on as the bytes it sent, with an ETag
 * (its tag, plus a digest of the participants' e-mails when there are any, since those are added
 * here); 304 when If-None-Match names it. The projection decides READ before it compares tags, so a
 * caller who may not read the transcript gets its 404/403, never a 304.
 */
async function transcriptDocument(c: AppContext, id: string, format: z.infer<typeof TranscriptFormat>): Promise<Response> {
  const ifNoneMatch = c.req.header("if-none-match") ?? null;
  let doc = await callJson(c, projectionOps.document, { id, transcript_format: format, if_none_match: ifNoneMatch });
  const users = (doc.headers(PARTICIPANT_USERS_HEADER) ?? "").split(",").filter((u) => u.length > 0);
  const emails = await emailsOf(c.get("deps").sql, users);
  const projectionTag = doc.headers(DOCUMENT_TAG_HEADER) ?? "";
  const tag =
    emails.size === 0
      ? projectionTag
      : `${projectionTag}.${createHash("sha256")
          .update(users.map((u) => `${u}=${emails.get(u) ?? ""}`).join("\n"))
          .digest("base64url")
          .slice(0, 16)}`;
  const headers = { ETag: `"${tag}"`, "Cache-Control": "private, no-cache" };
  if (tagNamed(ifNoneMatch, tag)) return c.body(null, 304, headers);
  // The projection's tag matched but an e-mail changed since: the document itself is needed.
  if (isNull(doc.json)) doc = await callJson(c, projectionOps.document, { id, transcript_format: format, if_none_match: null });
  // The bytes of NATS's reply buffer (an ArrayBuffer, never shared).
  if (emails.size === 0) return c.body(doc.json as Uint8Array<ArrayBuffer>, 200, { ...headers, "Content-Type": "application/json" });
  const t = JSON.parse(new TextDecoder().decode(doc.json)) as z.infer<typeof GetTranscript>;
  return c.json({ ...t, participants: await withEmails(c, t.participants) }, 200, headers);
}

const isNull = (json: Uint8Array) => json.length === 4 && new TextDecoder().decode(json) === "null";

export function transcriptReadRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/transcripts",
      operationId: "v1_transcripts_list",
      tags,
      middleware: [requireUserUnlessPublic] as const,
      request: { query: ListQuery },
      responses: { 200: json(PageGetTranscriptMinimal), ...validationError },
    }),
    async (c) => c.json(await call(c, projectionOps.list, c.req.valid("query")), 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/transcripts/{transcript_id}",
      operationId: "v1_transcript_get",
      tags,
      request: { params: TranscriptIdParam, query: z.object({ transcript_format: TranscriptFormat.default("text") }) },
      responses: { 200: json(GetTranscript), ...validationError },
    }),
    // The document is GetTranscript's JSON as the projection serialised it: a Response, not a typed one.
    async (c) => transcriptDocument(c, c.req.valid("param").transcript_id, c.req.valid("query").transcript_format) as never,
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/transcripts/{transcript_id}/topics",
      operationId: "v1_transcript_get_topics",
      tags,
      request: { params: TranscriptIdParam },
      responses: { 200: json(z.array(GetTranscriptTopic)), ...validationError },
    }),
    async (c) => c.json(await call(c, projectionOps.topics, { id: c.req.valid("param").transcript_id }), 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/transcripts/{transcript_id}/topics/with-words",
      operationId: "v1_transcript_get_topics_with_words",
      tags,
      request: { params: TranscriptIdParam },
      responses: { 200: json(z.array(GetTranscriptTopicWithWords)), ...validationError },
    }),
    // The projection's JSON passed on as the bytes it sent (it validated them when it serialised them).
    async (c) => {
      const topics = await callJson(c, projectionOps.topicsWithWords, { id: c.req.valid("param").transcript_id });
      return c.body(topics.json as Uint8Array<ArrayBuffer>, 200, { "Content-Type": "application/json" }) as never;
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/transcripts/{transcript_id}/topics/{topic_id}/words-per-speaker",
      operationId: "v1_transcript_get_topics_with_words_per_speaker",
      tags,
      request: { params: TranscriptIdParam.extend({ topic_id: z.string() }) },
      responses: { 200: json(GetTranscriptTopicWithWordsPerSpeaker), ...validationError },
    }),
    async (c) => {
      const { transcript_id, topic_id } = c.req.valid("param");
      return c.json(await call(c, projectionOps.topicWordsPerSpeaker, { id: transcript_id, topic_id }), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/transcripts/{transcript_id}/participants",
      operationId: "v1_transcript_get_participants",
      tags,
      request: { params: TranscriptIdParam },
      responses: { 200: json(z.array(Participant)), ...validationError },
    }),
    async (c) => c.json(await call(c, projectionOps.participants, { id: c.req.valid("param").transcript_id }), 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/transcripts/{transcript_id}/participants/{participant_id}",
      operationId: "v1_transcript_get_participant",
      tags,
      request: { params: TranscriptIdParam.extend({ participant_id: z.string() }) },
      responses: { 200: json(Participant), ...validationError },
    }),
    async (c) => {
      const { transcript_id, participant_id } = c.req.valid("param");
      return c.json(await call(c, projectionOps.participant, { id: transcript_id, participant_id }), 200);
    },
  );
}
