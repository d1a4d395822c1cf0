// The WebSocket messages as OpenAPI components (api.md §1.11), so the plain-GET stubs of the two
// socket paths describe them and generated clients get the reference's type names.
import { z } from "@hono/zod-openapi";
import { GetTranscriptTopic, TranscriptStatus } from "@scribe/contracts";

const TranscriptText = z.object({ text: z.string(), translation: z.string().nullable() }).openapi("TranscriptText");
const TranscriptWsStatusData = z.object({ value: TranscriptStatus }).openapi("TranscriptWsStatusData");
const TranscriptFinalTitle = z.object({ title: z.string() }).openapi("TranscriptFinalTitle");
const TranscriptFinalLongSummary = z.object({ long_summary: z.string() }).openapi("TranscriptFinalLongSummary");
const TranscriptFinalShortSummary = z.object({ short_summary: z.string() }).openapi("TranscriptFinalShortSummary");
const TranscriptActionItems = z.object({ action_items: z.record(z.string(), z.unknown()) }).openapi("TranscriptActionItems");
const TranscriptDuration = z.object({ duration: z.number() }).openapi("TranscriptDuration");
const TranscriptWaveform = z.object({ waveform: z.array(z.number()) }).openapi("TranscriptWaveform");

function message<N extends string, D extends z.ZodType>(component: string, event: N, data: D) {
  return z.object({ event: z.literal(event), data }).openapi(component);
}

/** What `GET(ws) /v1/transcripts/{id}/events` sends. */
export const TranscriptWsMessage = z.union([
  message("TranscriptWsTranscript", "TRANSCRIPT", TranscriptText),
  message("TranscriptWsTopic", "TOPIC", GetTranscriptTopic),
  message("TranscriptWsStatus", "STATUS", TranscriptWsStatusData),
  message("TranscriptWsFinalTitle", "FINAL_TITLE", TranscriptFinalTitle),
  message("TranscriptWsFinalLongSummary", "FINAL_LONG_SUMMARY", TranscriptFinalLongSummary),
  message("TranscriptWsFinalShortSummary", "FINAL_SHORT_SUMMARY", TranscriptFinalShortSummary),
  message("TranscriptWsActionItems", "ACTION_ITEMS", TranscriptActionItems),
  message("TranscriptWsDuration", "DURATION", TranscriptDuration),
  message("TranscriptWsWaveform", "WAVEFORM", TranscriptWaveform),
]);

const id = z.string();
/** What `GET(ws) /v1/events` sends. */
export const UserWsMessage = z.union([
  message("UserWsTranscriptCreated", "TRANSCRIPT_CREATED", z.object({ id: id.min(1) }).openapi("UserTranscriptCreatedData")),
  message("UserWsTranscriptDeleted", "TRANSCRIPT_DELETED", z.object({ id }).openapi("UserTranscriptDeletedData")),
  message("UserWsTranscriptRestored", "TRANSCRIPT_RESTORED", z.object({ id }).openapi("UserTranscriptRestoredData")),
  message("UserWsTranscriptStatus", "TRANSCRIPT_STATUS", z.object({ id, value: TranscriptStatus }).openapi("UserTranscriptStatusData")),
  message(
    "UserWsTranscriptFinalTitle",
    "TRANSCRIPT_FINAL_TITLE",
    z.object({ id, title: z.string().min(1) }).openapi("UserTranscriptFinalTitleData"),
  ),
  message("UserWsTranscriptDuration", "TRANSCRIPT_DURATION", z.object({ id, duration: z.number() }).openapi("UserTranscriptDurationData")),
]);
