// Request/reply operations of the meetings service (`rpc.meetings.*`).
import { z } from "@hono/zod-openapi";
import {
  CalendarEventForMeeting,
  EmailRecipientsResponse,
  Meeting,
  MeetingConsentResponse,
  MeetingDeactivateResponse,
  StartRecordingResponse,
  WebhookAck,
} from "./api";
import { defineOp, withCaller } from "../common/rpc";

/**
 * An incoming platform webhook as received: the raw body (base64, byte-exact: signatures are
 * computed over it) and the headers the platform signs with. The gateway parses nothing.
 */
const RawWebhook = {
  body_base64: z.string(),
  headers: z.record(z.string(), z.string()),
};

export const meetingsOps = {
  /** POST /v1/rooms/{room_name}/meeting: reuse the room's current meeting unless duplicates are asked for. */
  create: defineOp("meetings.create", withCaller({ room_name: z.string(), allow_duplicated: z.boolean() }), Meeting),
  listActive: defineOp("meetings.list_active", withCaller({ room_name: z.string() }), z.array(Meeting)),
  get: defineOp("meetings.get", withCaller({ room_name: z.string(), meeting_id: z.string() }), Meeting),
  join: defineOp(
    "meetings.join",
    withCaller({ room_name: z.string(), meeting_id: z.string(), display_name: z.string().nullable() }),
    Meeting,
  ),
  deactivate: defineOp("meetings.deactivate", withCaller({ meeting_id: z.string() }), MeetingDeactivateResponse),
  consent: defineOp("meetings.consent", withCaller({ meeting_id: z.string(), consent_given: z.boolean() }), MeetingConsentResponse),
  addEmailRecipient: defineOp(
    "meetings.add_email_recipient",
    withCaller({ meeting_id: z.string(), email: z.string() }),
    EmailRecipientsResponse,
  ),
  startRecording: defineOp(
    "meetings.start_recording",
    withCaller({ meeting_id: z.string(), type: z.enum(["cloud", "raw-tracks"]), instance_id: z.string() }),
    StartRecordingResponse,
  ),
  /**
   * For the calendar service: the meeting of a calendar event, created on the room's platform if it
   * has none (idempotent per event). An existing meeting is returned even when inactive, unless
   * `replace_inactive` (a user joining again): then a new one replaces it, never a reactivation.
   * Full calendar metadata and host URL go to internal callers and the room owner only.
   */
  createCalendarMeeting: defineOp(
    "meetings.create_calendar_meeting",
    withCaller({
      room_id: z.string(),
      calendar_event: CalendarEventForMeeting,
      replace_inactive: z.boolean().default(false),
    }),
    Meeting,
  ),
  /** POST /v1/daily/webhook (platform A). */
  dailyWebhook: defineOp("meetings.daily_webhook", z.object(RawWebhook), WebhookAck),
  /** POST /v1/whereby (platform B). */
  wherebyWebhook: defineOp("meetings.whereby_webhook", z.object(RawWebhook), WebhookAck),
} as const;
