// Transcript API schemas (api.md §1.6–1.8, §1.11; component names verbatim).
import { z } from "@hono/zod-openapi";
import { pageOf } from "../common/schemas";
import { ShareMode, SourceKind, TranscriptStatus } from "../common/enums";
import { ActionItems } from "./events";

const datetime = z.iso.datetime({ offset: true });

/** A word with its own leading space/punctuation: concatenating texts yields the sentence. */
export const Word = z
  .object({ text: z.string(), start: z.number().min(0), end: z.number().min(0), speaker: z.number().int().default(0) })
  .openapi("Word");
export type Word = z.infer<typeof Word>;

export const TranscriptParticipant = z
  .object({
    id: z.string().optional(),
    speaker: z.number().int().nullable(),
    name: z.string(),
    user_id: z.string().nullable().default(null),
  })
  .openapi("TranscriptParticipant");
export type TranscriptParticipant = z.infer<typeof TranscriptParticipant>;
/** A stored participant always has an id (assigned once at write time). */
export const StoredParticipant = TranscriptParticipant.extend({ id: z.string() });
export type StoredParticipant = z.infer<typeof StoredParticipant>;

export const TranscriptParticipantWithEmail = TranscriptParticipant.extend({
  email: z.string().nullable().default(null),
}).openapi("TranscriptParticipantWithEmail");

const minimalShape = {
  id: z.string(),
  user_id: z.string().nullable(),
  name: z.string(),
  status: TranscriptStatus,
  locked: z.boolean(),
  /** Milliseconds (decision); never NaN or negative. */
  duration: z.number(),
  title: z.string().nullable(),
  short_summary: z.string().nullable(),
  long_summary: z.string().nullable(),
  created_at: z.string(),
  share_mode: z.string().default("private"),
  source_language: z.string().nullable(),
  target_language: z.string().nullable(),
  reviewed: z.boolean(),
  meeting_id: z.string().nullable(),
  source_kind: SourceKind,
  room_id: z.string().nullable().default(null),
  room_name: z.string().nullable().default(null),
  audio_deleted: z.boolean().nullable().default(null),
  change_seq: z.number().int().nullable().default(null),
  has_cloud_video: z.boolean().default(false),
  cloud_video_duration: z.number().int().nullable().default(null),
  /**
   * Scribe addition, only in change-feed list responses (`change_seq_from` or `sort_by=change_seq`):
   * soft-deleted and destroyed transcripts stay in the feed with this set, so ingesters see deletions.
   */
  deleted_at: z.string().nullable().optional(),
};
export const GetTranscriptMinimal = z.object(minimalShape).openapi("GetTranscriptMinimal");
export type GetTranscriptMinimal = z.infer<typeof GetTranscriptMinimal>;
export const PageGetTranscriptMinimal = pageOf(GetTranscriptMinimal, "Page_GetTranscriptMinimal_");

export const GetTranscriptWithParticipants = GetTranscriptMinimal.extend({
  participants: z.array(TranscriptParticipantWithEmail).nullable(),
}).openapi("GetTranscriptWithParticipants");
export type GetTranscriptWithParticipants = z.infer<typeof GetTranscriptWithParticipants>;

export const TranscriptSegment = z
  .object({ speaker: z.number().int(), speaker_name: z.string(), text: z.string(), start: z.number(), end: z.number() })
  .openapi("TranscriptSegment");
export type TranscriptSegment = z.infer<typeof TranscriptSegment>;

export const TranscriptFormat = z.enum(["text", "text-timestamped", "webvtt-named", "json"]);
export type TranscriptFormat = z.infer<typeof TranscriptFormat>;

/**
 * The single-transcript answer carries the action items (decisions: null when their generation
 * failed or has not run; list responses leave them out).
 */
const withActionItems = {
  action_items: z
    .lazy(() => ActionItems)
    .nullable()
    .default(null),
};

export const GetTranscriptWithText = GetTranscriptWithParticipants.extend({
  transcript_format: z.literal("text"),
  transcript: z.string(),
  ...withActionItems,
}).openapi("GetTranscriptWithText");
export const GetTranscriptWithTextTimestamped = GetTranscriptWithParticipants.extend({
  transcript_format: z.literal("text-timestamped"),
  transcript: z.string(),
  ...withActionItems,
}).openapi("GetTranscriptWithTextTimestamped");
export const GetTranscriptWithWebVTTNamed = GetTranscriptWithParticipants.extend({
  transcript_format: z.literal("webvtt-named"),
  transcript: z.string(),
  ...withActionItems,
}).openapi("GetTranscriptWithWebVTTNamed");
export const GetTranscriptWithJSON = GetTranscriptWithParticipants.extend({
  transcript_format: z.literal("json"),
  transcript: z.array(TranscriptSegment),
  ...withActionItems,
}).openapi("GetTranscriptWithJSON");
export const GetTranscript = z.discriminatedUnion("transcript_format", [
  GetTranscriptWithText,
  GetTranscriptWithTextTimestamped,
  GetTranscriptWithWebVTTNamed,
  GetTranscriptWithJSON,
]);
export type GetTranscript = z.infer<typeof GetTranscript>;

export const CreateTranscript = z
  .object({
    name: z.string(),
    source_language: z.string().default("en"),
    target_language: z.string().default("en"),
    source_kind: SourceKind.nullable().default(null),
  })
  .openapi("CreateTranscript");
export type CreateTranscript = z.infer<typeof CreateTranscript>;

/** Only keys present are written; explicit null on name/locked/reviewed/share_mode is refused (422). */
/**
 * api.md types every field nullable, so generated clients may send null; on a field that cannot be
 * null (name, locked, share_mode, reviewed) null means "unchanged", as on a room update.
 */
export const UpdateTranscript = z
  .object({
    name: z.string().nullable().optional(),
    locked: z.boolean().nullable().optional(),
    title: z.string().nullable().optional(),
    short_summary: z.string().nullable().optional(),
    long_summary: z.string().nullable().optional(),
    share_mode: ShareMode.nullable().optional(),
    participants: z.array(TranscriptParticipant).nullable().optional(),
    reviewed: z.boolean().nullable().optional(),
    audio_deleted: z.boolean().nullable().optional(),
  })
  .openapi("UpdateTranscript");
export type UpdateTranscript = z.infer<typeof UpdateTranscript>;

export const ProcessStatus = z.object({ status: z.string() }).openapi("ProcessStatus");
export const AudioWaveform = z.object({ data: z.array(z.number()) }).openapi("AudioWaveform");
/** Not in the reference: a short-lived token for one transcript's audio link (`…/audio/mp3?token=`). */
export const AudioToken = z
  .object({
    token: z.string().describe("Opens this transcript's audio (`…/audio/mp3?token=`) and nothing else, until it expires"),
    expires_in: z.number().int().describe("Seconds until the token expires"),
  })
  .openapi("AudioToken");
export const VideoUrlResponse = z
  .object({ url: z.string(), duration: z.number().int().nullable().default(null), content_type: z.string().default("video/mp4") })
  .openapi("VideoUrlResponse");
export const SendEmailRequest = z.object({ email: z.string() }).openapi("SendEmailRequest");
export const SendEmailResponse = z.object({ sent: z.number().int() }).openapi("SendEmailResponse");

// Topics (api.md §1.7, §3.2)
export const GetTranscriptSegmentTopic = z
  .object({ text: z.string(), start: z.number(), speaker: z.number().int() })
  .openapi("GetTranscriptSegmentTopic");
export const GetTranscriptTopic = z
  .object({
    id: z.string(),
    title: z.string(),
    summary: z.string(),
    timestamp: z.number(),
    duration: z.number().nullable(),
    transcript: z.string(),
    segments: z.array(GetTranscriptSegmentTopic).default([]),
  })
  .openapi("GetTranscriptTopic");
export type GetTranscriptTopic = z.infer<typeof GetTranscriptTopic>;
export const GetTranscriptTopicWithWords = GetTranscriptTopic.extend({ words: z.array(Word).default([]) }).openapi(
  "GetTranscriptTopicWithWords",
);
export const SpeakerWords = z.object({ speaker: z.number().int(), words: z.array(Word) }).openapi("SpeakerWords");
export const GetTranscriptTopicWithWordsPerSpeaker = GetTranscriptTopic.extend({
  words_per_speaker: z.array(SpeakerWords).default([]),
}).openapi("GetTranscriptTopicWithWordsPerSpeaker");

// Participants and speakers (api.md §1.7)
export const Participant = z.object({ id: z.string(), speaker: z.number().int().nullable(), name: z.string() }).openapi("Participant");
export const CreateParticipant = z
  .object({ speaker: z.number().int().nullable().default(null), name: z.string() })
  .openapi("CreateParticipant");
export const UpdateParticipant = z
  // A null name means "unchanged" (the reference's generated client types it nullable).
  .object({ speaker: z.number().int().nullable().optional(), name: z.string().nullable().optional() })
  .openapi("UpdateParticipant");
export const SpeakerAssignment = z
  .object({
    speaker: z.number().int().min(0).nullable().optional(),
    participant: z.string().nullable().optional(),
    timestamp_from: z.number(),
    timestamp_to: z.number(),
  })
  .openapi("SpeakerAssignment");
export const SpeakerMerge = z.object({ speaker_from: z.number().int(), speaker_to: z.number().int() }).openapi("SpeakerMerge");
export const SpeakerAssignmentStatus = z.object({ status: z.string() }).openapi("SpeakerAssignmentStatus");

// Search (api.md §1.8)
export const SearchResult = z
  .object({
    id: z.string(),
    title: z.string().nullable().optional(),
    user_id: z.string().nullable().optional(),
    room_id: z.string().nullable().optional(),
    room_name: z.string().nullable().optional(),
    source_kind: SourceKind,
    created_at: datetime,
    status: TranscriptStatus,
    duration: z.number().nullable(),
    search_snippets: z.array(z.string()).max(3),
    total_match_count: z.number().int().default(0),
    change_seq: z.number().int().nullable().optional(),
  })
  .openapi("SearchResult");
export const SearchResponse = z
  .object({
    results: z.array(SearchResult),
    total: z.number().int().min(0),
    /**
     * Scribe's addition, present only when true: more transcripts match than a text search counts
     * exactly (SEARCH_EXACT_UP_TO), and `total` is that bound: "at least `total`".
     */
    total_capped: z
      .boolean()
      .optional()
      .openapi({ description: "present (true) when more match than `total`, the search's counting bound" }),
    query: z.string().nullable().optional(),
    limit: z.number().int().min(1).max(100),
    offset: z.number().int().min(0),
  })
  .openapi("SearchResponse");
