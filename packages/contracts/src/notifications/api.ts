// Notifier area: the API schemas of config, e-mail sharing and the team-chat directory (api.md §1.9,
// §1.6 component names verbatim), the outgoing webhook payloads (behaviour-search-notify-auth §3.5,
// §3.7).
import { z } from "@hono/zod-openapi";
import { ActionItems } from "../transcripts/events";

// SendEmailRequest / SendEmailResponse live in ./transcripts (the address is not validated, as the
// reference: a bad one fails at the SMTP server and answers sent: 0).

// ---- API schemas ------------------------------------------------------------------------------

export const ConfigResponse = z.object({ zulip_enabled: z.boolean(), email_enabled: z.boolean() }).openapi("ConfigResponse");
export type ConfigResponse = z.infer<typeof ConfigResponse>;

export const Stream = z.object({ stream_id: z.number().int(), name: z.string() }).openapi("Stream");
export type Stream = z.infer<typeof Stream>;
export const Topic = z.object({ name: z.string() }).openapi("Topic");
export type Topic = z.infer<typeof Topic>;

const TRUE_STRINGS = new Set(["true", "1", "yes", "on", "t", "y"]);
const FALSE_STRINGS = new Set(["false", "0", "no", "off", "f", "n"]);
/** A boolean query parameter as FastAPI reads one (true/false, 1/0, yes/no, on/off). */
export function parseQueryBool(v: string): boolean | null {
  const s = v.trim().toLowerCase();
  return TRUE_STRINGS.has(s) ? true : FALSE_STRINGS.has(s) ? false : null;
}

/** Query of POST /v1/transcripts/{id}/zulip: all three required (reference). */
export const ZulipPostQuery = z.object({
  stream: z.string(),
  topic: z.string(),
  include_topics: z
    .string()
    .refine((v) => parseQueryBool(v) !== null, { message: "Input should be a valid boolean" })
    .openapi({ type: "boolean" }),
});

// ---- outgoing webhook payloads (field order is the wire order: the body is signed as sent) ---

export const WebhookTopic = z.object({
  title: z.string(),
  summary: z.string(),
  /** Seconds from the start. */
  timestamp: z.number(),
  duration: z.number().nullable(),
  /** WebVTT of this topic's words only ("" when it has none). */
  webvtt: z.string(),
});
export const WebhookParticipant = z.object({ id: z.string(), name: z.string().nullable(), speaker: z.number().int().nullable() });

export const WebhookTranscript = z.object({
  id: z.string(),
  room_id: z.string().nullable(),
  created_at: z.string(),
  /** Milliseconds (decision). */
  duration: z.number().nullable(),
  title: z.string().nullable(),
  short_summary: z.string().nullable(),
  long_summary: z.string().nullable(),
  webvtt: z.string().nullable(),
  topics: z.array(WebhookTopic),
  participants: z.array(WebhookParticipant),
  source_language: z.string().nullable(),
  target_language: z.string().nullable(),
  status: z.string(),
  frontend_url: z.string(),
  /** Parsed by its schema, so a stored payload serialises in the declared key order again. */
  action_items: ActionItems.nullable(),
});
export type WebhookTranscript = z.infer<typeof WebhookTranscript>;

export const WebhookRoom = z.object({ id: z.string(), name: z.string() });

/**
 * The meeting's calendar event. `attendees` are the attendees' e-mail addresses (the reference
 * declares a list of strings but stores objects, so it always sent null; Scribe sends the strings,
 * null when there are none). `ics_uid` and `location` are null: meetings do not carry them.
 */
export const WebhookCalendarEvent = z.object({
  id: z.string(),
  ics_uid: z.string().nullable(),
  title: z.string().nullable(),
  start_time: z.string(),
  end_time: z.string(),
  description: z.string().nullable(),
  location: z.string().nullable(),
  attendees: z.array(z.string()).nullable(),
});
export type WebhookCalendarEvent = z.infer<typeof WebhookCalendarEvent>;

/** What a delivery keeps: the payload without the per-attempt fields (event_id, timestamp). */
export const WebhookPayloadBody = z.object({
  transcript: WebhookTranscript,
  room: WebhookRoom,
  calendar_event: WebhookCalendarEvent.nullable(),
});
export type WebhookPayloadBody = z.infer<typeof WebhookPayloadBody>;

/** The body sent: `event`, `event_id`, `timestamp` first, then the delivery's kept payload. */
export const TranscriptCompletedPayload = z.object({
  event: z.literal("transcript.completed"),
  /** 32 lowercase hex characters, new for every attempt. */
  event_id: z.string(),
  timestamp: z.string(),
  ...WebhookPayloadBody.shape,
});
export type TranscriptCompletedPayload = z.infer<typeof TranscriptCompletedPayload>;

export const WebhookTestPayload = z.object({
  event: z.literal("test"),
  event_id: z.string(),
  timestamp: z.string(),
  message: z.string(),
  room: WebhookRoom,
});
export type WebhookTestPayload = z.infer<typeof WebhookTestPayload>;

// ---- deliveries as the ops CLI shows them -------------------------------------------------------

export const DeliveryChannel = z.enum(["webhook", "email", "zulip"]);
export type DeliveryChannel = z.infer<typeof DeliveryChannel>;
/** pending: an attempt is due or scheduled; delivered; failed: gave up or refused for good; cancelled. */
export const DeliveryStatus = z.enum(["pending", "delivered", "failed", "cancelled"]);
export type DeliveryStatus = z.infer<typeof DeliveryStatus>;
