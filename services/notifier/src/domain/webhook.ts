// Outgoing webhooks: the transcript.completed and test payloads (behaviour-search-notify-auth §3.5,
// §3.7), their exact bytes, the HMAC signature and the headers. Pure: ids and time come in.
import { createHmac } from "node:crypto";
import type {
  CalendarMetadata,
  TranscriptState,
  WebhookCalendarEvent,
  WebhookPayloadBody,
  WebhookTestPayload,
  WebhookTranscript,
} from "@scribe/contracts";
import { TranscriptCompletedPayload } from "@scribe/contracts";

export const WEBHOOK_USER_AGENT = "Reflector-Webhook/1.0";
export const TEST_MESSAGE = "This is a test webhook from Reflector";

export interface CompletedTopicLike {
  title: string;
  summary: string;
  timestamp: number;
  duration: number | null;
  webvtt: string;
}

/** `<UI_BASE_URL>/transcripts/<id>`: the transcript's page (webhook frontend_url, e-mail and chat links). */
export function transcriptUrl(uiBaseUrl: string, transcriptId: string): string {
  return `${uiBaseUrl.replace(/\/+$/, "")}/transcripts/${transcriptId}`;
}

/** The reference's timestamp format (Pydantic): UTC with microseconds and `Z`. */
export function pydanticTimestamp(now: Date): string {
  return now.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/**
 * The meeting's calendar event as the payload carries it; attendees are their e-mail addresses
 * (those without one are left out; none → null), empty description → null.
 */
export function calendarEventOf(eventId: string | null, metadata: CalendarMetadata | null): WebhookCalendarEvent | null {
  if (!eventId || !metadata) return null;
  const emails = (metadata.attendees ?? []).map((a) => a.email?.trim() ?? "").filter((e) => e !== "");
  return {
    id: eventId,
    ics_uid: metadata.ics_uid,
    title: metadata.title,
    start_time: metadata.start_time,
    end_time: metadata.end_time,
    description: metadata.description ? metadata.description : null,
    location: metadata.location ? metadata.location : null,
    attendees: emails.length ? emails : null,
  };
}

export function webhookTranscript(t: TranscriptState, topics: readonly CompletedTopicLike[], uiBaseUrl: string): WebhookTranscript {
  return {
    id: t.id,
    room_id: t.room_id,
    created_at: t.created_at,
    duration: t.duration,
    title: t.title,
    short_summary: t.short_summary,
    long_summary: t.long_summary,
    webvtt: t.webvtt,
    topics: topics.map((x) => ({ title: x.title, summary: x.summary, timestamp: x.timestamp, duration: x.duration, webvtt: x.webvtt })),
    participants: t.participants.map((p) => ({ id: p.id, name: p.name, speaker: p.speaker })),
    source_language: t.source_language,
    target_language: t.target_language,
    status: t.status,
    frontend_url: transcriptUrl(uiBaseUrl, t.id),
    action_items: t.action_items,
  };
}

/**
 * The bytes of one attempt: compact JSON in the declared field order (parsing through the schema
 * puts a stored payload's keys back in that order), with this attempt's event id and time.
 */
export function completedBody(payload: WebhookPayloadBody, eventId: string, now: Date): string {
  const ordered = TranscriptCompletedPayload.parse({
    event: "transcript.completed",
    event_id: eventId,
    timestamp: pydanticTimestamp(now),
    ...payload,
  });
  return JSON.stringify(ordered);
}

export function testBody(room: { id: string; name: string }, eventId: string, now: Date): string {
  const body: WebhookTestPayload = {
    event: "test",
    event_id: eventId,
    timestamp: pydanticTimestamp(now),
    message: TEST_MESSAGE,
    room: { id: room.id, name: room.name },
  };
  return JSON.stringify(body);
}

/** `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`. */
export function signature(secret: string, body: string, now: Date): string {
  const t = Math.floor(now.getTime() / 1000);
  const v1 = createHmac("sha256", Buffer.from(secret, "utf8")).update(`${t}.${body}`, "utf8").digest("hex");
  return `t=${t},v1=${v1}`;
}

export function webhookHeaders(opts: {
  event: "transcript.completed" | "test";
  /** Attempts made before this one (0 on the first). */
  retry: number;
  deliveryId: string;
  secret: string | null;
  body: string;
  now: Date;
}): Record<string, string> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": WEBHOOK_USER_AGENT,
    "x-webhook-event": opts.event,
    "x-webhook-retry": String(opts.retry),
    "x-webhook-delivery-id": opts.deliveryId,
  };
  // Signed afresh on every attempt (the body's timestamp and event id change), only with a secret.
  if (opts.secret) headers["x-webhook-signature"] = signature(opts.secret, opts.body, opts.now);
  return headers;
}

/**
 * The failure message of the webhook test (decision): the receiver's status code and, when its
 * error body is JSON carrying a message, that message; a plain body's start otherwise.
 */
export function testFailureMessage(status: number, body: string): string {
  const head = `Webhook test failed (Status: ${status})`;
  const text = body.trim();
  if (!text) return head;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return `${head}: ${text.slice(0, 150)}`;
  }
  const message = messageOf(parsed);
  return message ? `${head}: ${message}` : head;
}

/** The error text of a JSON error body: message, error, detail or msg (string), or error.message. */
function messageOf(v: unknown): string | null {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return null;
  const o = v as Record<string, unknown>;
  for (const key of ["message", "error", "detail", "msg"]) {
    if (typeof o[key] === "string" && (o[key] as string).trim()) return (o[key] as string).trim();
  }
  if (typeof o.error === "object") return messageOf(o.error);
  return null;
}
