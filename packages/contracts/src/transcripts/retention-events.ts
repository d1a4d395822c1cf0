// Retention on public instances (PUBLIC_MODE): the retention job finds anonymous transcripts older
// than PUBLIC_DATA_RETENTION_DAYS and announces it; each owning service applies it to its own data:
// transcription destroys the transcript (transcript.destroyed, reason "retention"), recordings delete
// every stored file of it, meetings delete its meeting.
import { z } from "@hono/zod-openapi";
import { defineEvent } from "../common/event-def";

export const TranscriptExpired = z.object({
  transcript_id: z.string(),
  meeting_id: z.string().nullable(),
  recording_id: z.string().nullable(),
  transcript_created_at: z.iso.datetime({ offset: true }),
  retention_days: z.number().int().min(1),
  expired_at: z.iso.datetime({ offset: true }),
});
export type TranscriptExpired = z.infer<typeof TranscriptExpired>;

export const retentionEvents = [
  defineEvent({
    type: "retention.transcript_expired",
    stream: "NOTIFICATIONS",
    version: 1,
    data: TranscriptExpired,
    aggregateId: (d) => d.transcript_id,
  }),
] as const;
