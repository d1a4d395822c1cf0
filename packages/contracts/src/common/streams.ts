// Stream definitions: one stream per bounded context; subjects are <context>.<event type>.<aggregate id>.
export const STREAMS = {
  ROOMS: { context: "rooms", description: "room lifecycle and settings" },
  MEETINGS: { context: "meetings", description: "meetings, participants, consent" },
  CALENDAR: { context: "calendar", description: "ICS sync and calendar events" },
  RECORDINGS: { context: "recordings", description: "recordings and their files" },
  TRANSCRIPTS: { context: "transcripts", description: "transcript write side and pipeline results" },
  NOTIFICATIONS: { context: "notifications", description: "webhook, e-mail and chat deliveries" },
} as const;
export type StreamName = keyof typeof STREAMS;

/** Dead-letter stream: events a consumer could not apply, with the reason in headers. */
export const DLQ_STREAM = { name: "DLQ", context: "dlq" } as const;

/** Prefixing lets tests (and several installations on one NATS) share a server without colliding. */
export function streamName(prefix: string, stream: string): string {
  return prefix ? `${prefix.toUpperCase().replace(/[^A-Z0-9_-]/g, "_")}_${stream}` : stream;
}
export function subjectFor(prefix: string, subject: string): string {
  return prefix ? `${prefix}.${subject}` : subject;
}
export function streamSubjects(prefix: string, stream: StreamName | typeof DLQ_STREAM.name): string {
  const context = stream === DLQ_STREAM.name ? DLQ_STREAM.context : STREAMS[stream].context;
  return subjectFor(prefix, `${context}.>`);
}
