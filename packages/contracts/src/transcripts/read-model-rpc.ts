// Request/reply operations of the projection service: transcript reads (api.md §2.9–2.12) served from
// the read model, and read-your-writes for mutation routes (await a version).
import { z } from "@hono/zod-openapi";
import { PageQuery } from "../common/schemas";
import { SourceKind } from "../common/enums";
import { defineOp, withCaller } from "../common/rpc";
import {
  GetTranscript,
  GetTranscriptTopic,
  GetTranscriptTopicWithWords,
  GetTranscriptTopicWithWordsPerSpeaker,
  PageGetTranscriptMinimal,
  Participant,
  TranscriptFormat,
} from "./api";

export const TranscriptSortBy = z.enum(["created_at", "change_seq"]);
export type TranscriptSortBy = z.infer<typeof TranscriptSortBy>;

/** Filters of GET /v1/transcripts; `change_seq_from` or `sort_by=change_seq` make it the change feed. */
export const TranscriptListFilters = z.object({
  source_kind: SourceKind.nullable().optional(),
  room_id: z.string().nullable().optional(),
  /** Case-insensitive substring of the title (taken literally: `%` and `_` are not wildcards). */
  search_term: z.string().nullable().optional(),
  /** Only rows with a larger change_seq. */
  change_seq_from: z.number().int().nullable().optional(),
  sort_by: TranscriptSortBy.nullable().optional(),
});
export type TranscriptListFilters = z.infer<typeof TranscriptListFilters>;

/** Longest a mutation route may wait for the read model to catch up. */
export const AWAIT_VERSION_MAX_MS = 30_000;
export const AwaitVersionResult = z.object({
  /** The read model holds `version` (or a later one) of the transcript. */
  reached: z.boolean(),
  /** The version it holds now; null when it does not know the transcript yet. */
  version: z.number().int().nullable(),
});
export type AwaitVersionResult = z.infer<typeof AwaitVersionResult>;

const byId = { id: z.string() };

export const projectionOps = {
  get: defineOp("projection.get", withCaller({ ...byId, transcript_format: TranscriptFormat.default("text") }), GetTranscript),
  /**
   * GET /v1/transcripts/{id} as JSON text for the gateway to pass on unparsed (`rpcCallJson`),
   * validated once when rendered; the reply headers carry its tag and its participants' user ids
   * (`document-tag.ts`). Null when READ allows and `if_none_match` names the current tag.
   */
  document: defineOp(
    "projection.document",
    withCaller({ ...byId, transcript_format: TranscriptFormat.default("text"), if_none_match: z.string().nullable().default(null) }),
    GetTranscript.nullable(),
  ),
  list: defineOp("projection.list", withCaller({ ...TranscriptListFilters.shape, ...PageQuery.shape }), PageGetTranscriptMinimal),
  topics: defineOp("projection.topics", withCaller(byId), z.array(GetTranscriptTopic)),
  topicsWithWords: defineOp("projection.topics_with_words", withCaller(byId), z.array(GetTranscriptTopicWithWords)),
  topicWordsPerSpeaker: defineOp(
    "projection.topic_words_per_speaker",
    withCaller({ ...byId, topic_id: z.string() }),
    GetTranscriptTopicWithWordsPerSpeaker,
  ),
  participants: defineOp("projection.participants", withCaller(byId), z.array(Participant)),
  participant: defineOp("projection.participant", withCaller({ ...byId, participant_id: z.string() }), Participant),
  /**
   * Resolves once the read model holds `version` of transcript `id` (a mutation's answer carries
   * it), or after `timeout_ms` with `reached: false`. No permission check: it reveals nothing but
   * a version number, and only internal callers (the gateway's mutation routes) use it.
   */
  awaitVersion: defineOp(
    "projection.await_version",
    withCaller({ ...byId, version: z.number().int().min(1), timeout_ms: z.number().int().min(0).max(AWAIT_VERSION_MAX_MS).default(5000) }),
    AwaitVersionResult,
  ),
} as const;

/**
 * The read model's announcement of room changes it applied: NOTIFY on this channel with the rooms'
 * feed position (room events' `feed_seq`) as payload. The projection (lists) and the search service
 * (which reads the same tables) wait on it for read-your-writes of room names and sharing.
 */
export const ROOM_FEED_CHANNEL = "projection_room_feed";
