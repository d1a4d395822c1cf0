// What one attempt of a delivery came to, whatever the channel.
import type { Verdict } from "../domain/retry";

export interface AttemptResult {
  /** `cancel`: the delivery no longer applies (room deleted, URL removed, transcript gone). */
  verdict: Verdict | "cancel";
  statusCode: number | null;
  error: string | null;
  /** The start of the receiver's answer (kept for operators). */
  excerpt: string | null;
  durationMs: number;
  /** Webhooks: the payload's event_id of this attempt. */
  eventId: string | null;
}

export const EXCERPT_CHARS = 1000;

export function excerpt(text: string | null | undefined): string | null {
  if (!text) return null;
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
}
