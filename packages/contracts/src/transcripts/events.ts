// Transcript events (TRANSCRIPTS stream), written by the transcription service. They carry
// everything the read model (projection) and the notifier need, so neither asks anyone.
//
// Size: topics travel one per event (their words can be large) so no message nears NATS's
// 1 MB default max_payload; `transcript.updated` carries everything else, but the WebVTT only in
// the change that changed it (a long transcript's WebVTT is hundreds of kilobytes), compressed, and
// `transcript.completed` carries it once, compressed, its topics' WebVTT as parts of it.
import { z } from "@hono/zod-openapi";
import { defineEvent } from "../common/event-def";
import { ShareMode, SourceKind, TranscriptStatus } from "../common/enums";
import { StoredParticipant, Word } from "./api";

const datetime = z.iso.datetime({ offset: true });

export const ActionItems = z.object({
  decisions: z.array(
    z.object({
      decision: z.string(),
      rationale: z.string().nullable().default(null),
      decided_by: z.string().nullable().default(null),
      decided_by_participant_id: z.string().nullable().default(null),
    }),
  ),
  next_steps: z.array(
    z.object({
      task: z.string(),
      assigned_to: z.string().nullable().default(null),
      assigned_to_participant_id: z.string().nullable().default(null),
      deadline: z.string().nullable().default(null),
      context: z.string().nullable().default(null),
    }),
  ),
});
export type ActionItems = z.infer<typeof ActionItems>;

/** A stored topic (behaviour-transcripts-pipelines §1.3): times in seconds. */
export const TopicRecord = z.object({
  id: z.string(),
  title: z.string(),
  summary: z.string(),
  timestamp: z.number().min(0),
  duration: z.number().nullable().default(null),
  transcript: z.string().nullable().default(null),
  words: z.array(Word).default([]),
});
export type TopicRecord = z.infer<typeof TopicRecord>;

/**
 * The transcript aggregate without its topics (they have their own events) and without the
 * pipeline event log (realtime only). `version` increases with every change.
 */
export const TranscriptState = z.object({
  id: z.string(),
  version: z.number().int().min(1),
  name: z.string(),
  status: TranscriptStatus,
  /** Set when status became `error`: why. */
  error: z.string().nullable().default(null),
  locked: z.boolean(),
  /** Milliseconds; never NaN or negative. */
  duration: z.number().min(0),
  created_at: datetime,
  updated_at: datetime,
  title: z.string().nullable(),
  short_summary: z.string().nullable(),
  long_summary: z.string().nullable(),
  /** null when generation failed or has not run. */
  action_items: ActionItems.nullable(),
  participants: z.array(StoredParticipant),
  source_language: z.string(),
  target_language: z.string(),
  reviewed: z.boolean(),
  audio_location: z.enum(["local", "storage"]),
  audio_deleted: z.boolean().nullable(),
  user_id: z.string().nullable(),
  share_mode: ShareMode,
  source_kind: SourceKind,
  meeting_id: z.string().nullable(),
  recording_id: z.string().nullable(),
  room_id: z.string().nullable(),
  /** Full-transcript WebVTT regenerated whenever topics change (voice tags `<v Speaker N>`). */
  webvtt: z.string().nullable(),
  deleted_at: datetime.nullable(),
});
export type TranscriptState = z.infer<typeof TranscriptState>;

/**
 * `transcript.updated`'s data: the state, with the WebVTT only when this change changed it (its
 * topics changed). A change of anything else leaves it out, so a write costs what it changes and
 * no event of a long transcript repeats its WebVTT. v3 carries a changed WebVTT compressed, as
 * transcript.completed v2 does (v2 carried it as text: two hours of the densest speech made a ~1 MB
 * event, NATS's default max_payload). Readers take it through `carriedWebvtt` / `transcriptChange`
 * (updated-webvtt.ts), which read both versions.
 */
export const TranscriptUpdated = TranscriptState.extend({
  webvtt: z
    .string()
    .nullable()
    .optional()
    .describe(
      "v2: present (string or null) only when this change changed the WebVTT; absent: unchanged. v3 leaves it out and carries a changed WebVTT in `webvtt_gzip`. A reader keeps the WebVTT of the highest version that carried one (transcript.created always carries it; transcript.completed v1 did, v2 carries it apart, compressed).",
    ),
  webvtt_gzip: z
    .string()
    .nullable()
    .optional()
    .describe(
      "v3: present only when this change changed the WebVTT: gzip (RFC 1952) of its UTF-8, in base64, or null (the transcript has none now); absent: unchanged. Absent in v2; never together with `webvtt`.",
    ),
}).refine((d) => d.webvtt === undefined || d.webvtt_gzip === undefined, {
  path: ["webvtt_gzip"],
  message: "carries the WebVTT twice: webvtt (v2) and webvtt_gzip (v3) exclude each other",
});
export type TranscriptUpdated = z.infer<typeof TranscriptUpdated>;

export const TopicUpserted = z.object({
  transcript_id: z.string(),
  /** Transcript version after this change. */
  version: z.number().int().min(1),
  /** 0-based position in the transcript's topic list. */
  position: z.number().int().min(0),
  topic: TopicRecord,
});
export const TopicsCleared = z.object({ transcript_id: z.string(), version: z.number().int().min(1) });

/**
 * A part of a topic's WebVTT in transcript.completed v2: text as it is, or `[from, to]`: the
 * transcript's WebVTT from `from` to `to` (UTF-16 code units, as JavaScript's String.slice; end excluded).
 */
export const WebvttPart = z.union([z.string(), z.tuple([z.number().int().min(0), z.number().int().min(0)])]);
export type WebvttPart = z.infer<typeof WebvttPart>;

/**
 * A topic as the webhook sends it: no words, its own WebVTT instead (behaviour §3.5). v1 carried
 * that WebVTT as `webvtt`; v2 as `webvtt_parts`, mostly ranges of the transcript's WebVTT (see
 * completed-webvtt.ts: `completedTexts` reads both).
 */
export const CompletedTopic = z.object({
  id: z.string(),
  title: z.string(),
  summary: z.string(),
  timestamp: z.number(),
  duration: z.number().nullable(),
  webvtt: z.string().optional().describe("v1 only: the topic's WebVTT."),
  webvtt_parts: z
    .array(WebvttPart)
    .optional()
    .describe(
      "v2: the topic's WebVTT is its parts joined in order: a string as it is, [from, to] the transcript's WebVTT (`webvtt_gzip` unpacked) from `from` to `to` in UTF-16 code units, end excluded.",
    ),
});

export const TranscriptCompleted = z.object({
  transcript: TranscriptState.extend({
    webvtt: z
      .string()
      .nullable()
      .optional()
      .describe(
        "v1: the WebVTT. v2 leaves it out (a completion does not change it: a reader keeps the one it has, as when transcript.updated leaves it out) and carries it in `webvtt_gzip`.",
      ),
  }),
  webvtt_gzip: z
    .string()
    .nullable()
    .optional()
    .describe("v2: the transcript's WebVTT, gzip (RFC 1952) of its UTF-8, in base64; null: the transcript has none. Absent in v1."),
  topics: z.array(CompletedTopic),
  /** The workflow run that completed; a reprocessing run completes again with a new event. */
  run_id: z.string(),
  completed_at: datetime,
});

export const TranscriptDestroyed = z.object({
  transcript: TranscriptState,
  /** user: destroyed through the API after a soft delete; retention: expired anonymous data (PUBLIC_MODE). */
  reason: z.enum(["user", "retention"]).default("user"),
});

/** Realtime pipeline event names (behaviour-transcripts-pipelines §2.1). */
export const PipelineEventName = z.enum([
  "TRANSCRIPT",
  "TOPIC",
  "STATUS",
  "FINAL_TITLE",
  "FINAL_LONG_SUMMARY",
  "FINAL_SHORT_SUMMARY",
  "ACTION_ITEMS",
  "DURATION",
  "WAVEFORM",
]);
export type PipelineEventName = z.infer<typeof PipelineEventName>;

/**
 * One entry of a transcript's event log (the reference's `events` column): published as it happens
 * so the gateway's WebSockets push it, and kept on the stream so a socket that connects later gets
 * the stored ones replayed (§2.3). `data` is the payload of §2.1 for `event`.
 */
export const TranscriptEventAppended = z.object({
  transcript_id: z.string(),
  /** Owner: STATUS, FINAL_TITLE and DURATION also go to the owner's user socket (§2.2). */
  user_id: z.string().nullable(),
  /** The workflow run that produced it; null for events not produced by a run. */
  run_id: z.string().nullable().default(null),
  event: PipelineEventName,
  data: z.record(z.string(), z.unknown()),
  /**
   * The transcript's version once this entry was logged: a reader that heard the entry and then reads the
   * transcript sees at least this version (the gateway relays the entry once the read model holds it).
   * Absent on entries logged before it was introduced.
   */
  version: z.number().int().min(1).optional(),
});
export type TranscriptEventAppended = z.infer<typeof TranscriptEventAppended>;

/**
 * A change its owner's user socket announces (§2.2): TRANSCRIPT_CREATED on create (owned
 * transcripts only), TRANSCRIPT_DELETED on soft delete, TRANSCRIPT_RESTORED on restore. Destroy is
 * announced from transcript.destroyed.
 */
export const TranscriptLifecycleChanged = z.object({
  transcript_id: z.string(),
  user_id: z.string(),
  action: z.enum(["created", "deleted", "restored"]),
  /** The transcript's version after the change (as on transcript.event.appended); absent on older events. */
  version: z.number().int().min(1).optional(),
});

export const transcriptEvents = [
  defineEvent({ type: "transcript.created", stream: "TRANSCRIPTS", version: 1, data: TranscriptState, aggregateId: (d) => d.id }),
  /** Any change other than topics: status, summaries, participants, share mode, soft delete/restore… */
  defineEvent({ type: "transcript.updated", stream: "TRANSCRIPTS", version: 3, data: TranscriptUpdated, aggregateId: (d) => d.id }),
  defineEvent({
    type: "transcript.topic.upserted",
    stream: "TRANSCRIPTS",
    version: 1,
    data: TopicUpserted,
    aggregateId: (d) => d.transcript_id,
  }),
  /** All topics removed (a reprocessing run starts over). */
  defineEvent({
    type: "transcript.topics.cleared",
    stream: "TRANSCRIPTS",
    version: 1,
    data: TopicsCleared,
    aggregateId: (d) => d.transcript_id,
  }),
  /** Processing ended successfully (after mixdown and waveform for multitrack). */
  defineEvent({
    type: "transcript.completed",
    stream: "TRANSCRIPTS",
    version: 2,
    data: TranscriptCompleted,
    aggregateId: (d) => d.transcript.id,
  }),
  /** Permanently deleted (after a soft delete). */
  defineEvent({
    type: "transcript.destroyed",
    stream: "TRANSCRIPTS",
    version: 1,
    data: TranscriptDestroyed,
    aggregateId: (d) => d.transcript.id,
  }),
  /** An entry of the transcript's realtime event log (WebSockets); read models ignore it. */
  defineEvent({
    type: "transcript.event.appended",
    stream: "TRANSCRIPTS",
    version: 1,
    data: TranscriptEventAppended,
    aggregateId: (d) => d.transcript_id,
  }),
  /** For the owner's user socket only; read models ignore it. */
  defineEvent({
    type: "transcript.lifecycle.changed",
    stream: "TRANSCRIPTS",
    version: 1,
    data: TranscriptLifecycleChanged,
    aggregateId: (d) => d.transcript_id,
  }),
] as const;
