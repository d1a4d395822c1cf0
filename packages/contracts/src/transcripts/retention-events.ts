// Retention on public instances (PUBLIC_MODE): the transcription service's daily job finds anonymous
// transcripts older than PUBLIC_DATA_RETENTION_DAYS, destroys each (transcript.destroyed, reason
// "retention") and announces it expired in the same transaction; meetings delete its meeting,
// recordings every stored file of it (on transcript.destroyed).
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
    stream: "TRANSCRIPTS",
    version: 1,
    data: TranscriptExpired,
    aggregateId: (d) => d.transcript_id,
  }),
] as const;
