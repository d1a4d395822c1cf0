// Meeting API schemas (api.md §1.4, component names verbatim) and the meeting state carried by
// meeting events.
import { z } from "@hono/zod-openapi";
import { Platform, RecordingTrigger, RecordingType, RoomMode } from "../common/enums";

const datetime = z.iso.datetime({ offset: true });

/** One attendee of a calendar event (status: accepted, declined, tentative… as the feed gives it). */
export const CalendarAttendee = z.object({
  email: z.string().nullable().optional(),
  name: z.string().nullable().optional(),
  status: z.string().nullable().optional(),
  role: z.string().nullable().optional(),
});
export type CalendarAttendee = z.infer<typeof CalendarAttendee>;

/**
 * What a calendar meeting keeps of its event. Room owners get all of it; everyone else gets the
 * title and the schedule with description and attendees null (as for calendar event listings).
 */
export const CalendarMetadata = z.object({
  title: z.string().nullable(),
  description: z.string().nullable(),
  attendees: z.array(CalendarAttendee).nullable(),
  /** Scheduled start and end of the calendar event (the end drives deactivation of an unused meeting). */
  start_time: datetime,
  end_time: datetime,
  /** The event's iCalendar UID and location (the outgoing webhook's calendar_event carries them). */
  ics_uid: z.string().nullable().default(null),
  location: z.string().nullable().default(null),
});
export type CalendarMetadata = z.infer<typeof CalendarMetadata>;

const meetingShape = {
  /** The video platform's meeting id (Daily room id, Whereby meetingId). */
  id: z.string(),
  /** The platform's room name (Daily: `<room>-YYYYMMDDHHMMSS`; Whereby: starts with `/`). */
  room_name: z.string(),
  /** Join URL; a signed-in caller's join adds the platform meeting token (Daily: `?t=<token>`). */
  room_url: z.string(),
  /** "" for everyone but the room owner (Scribe's one rule, on every meeting response). */
  host_room_url: z.string(),
  start_date: datetime,
  end_date: datetime,
  /** Never set (meetings have no user); kept because clients expect the key. */
  user_id: z.string().nullable().default(null),
  room_id: z.string().nullable().default(null),
  is_locked: z.boolean().default(false),
  room_mode: RoomMode.default("normal"),
  recording_type: RecordingType.default("cloud"),
  recording_trigger: RecordingTrigger.default("automatic-2nd-participant"),
  num_clients: z.number().int().default(0),
  is_active: z.boolean().default(true),
  calendar_event_id: z.string().nullable().default(null),
  calendar_metadata: CalendarMetadata.nullable().default(null),
  platform: Platform,
  daily_composed_video_s3_key: z.string().nullable().default(null),
  daily_composed_video_duration: z.number().int().nullable().default(null),
  store_video: z.boolean().default(false),
};

export const Meeting = z.object(meetingShape).openapi("Meeting");
export type Meeting = z.infer<typeof Meeting>;

export const EmailRecipient = z.object({ email: z.string(), include_link: z.boolean() });
export type EmailRecipient = z.infer<typeof EmailRecipient>;

export const DeactivationReason = z.enum([
  /** The platform said the session ended (webhook). */
  "session_ended",
  /** The room owner deactivated it through the API. */
  "owner",
  /** Periodic processing: it had participants and is now empty. */
  "everyone_left",
  /** Periodic processing: a calendar meeting nobody used, past the event's scheduled end. */
  "scheduled_end_reached",
  /** Periodic processing: an on-the-fly meeting nobody used, empty past the join window. */
  "join_window_passed",
]);
export type DeactivationReason = z.infer<typeof DeactivationReason>;

/**
 * The full meeting as meeting events carry it: nothing redacted, plus what consumers need without
 * asking (the Scribe room's name and owner, e-mail recipients, why and when it was deactivated).
 * `version` increases with every change so consumers can ignore a stale state.
 */
export const MeetingState = z.object({
  ...meetingShape,
  room_id: z.string(),
  version: z.number().int().min(1),
  created_at: datetime,
  updated_at: datetime,
  /** The Scribe room's name (`room_name` is the platform's). */
  scribe_room_name: z.string(),
  /** Owner of the room the meeting belongs to. */
  room_owner_id: z.string(),
  email_recipients: z.array(EmailRecipient).default([]),
  deactivated_at: datetime.nullable().default(null),
  deactivation_reason: DeactivationReason.nullable().default(null),
});
export type MeetingState = z.infer<typeof MeetingState>;

// Request bodies (api.md §1.4).
export const CreateRoomMeeting = z
  .object({ allow_duplicated: z.boolean().nullable().optional().default(false) })
  .openapi("CreateRoomMeeting");
export type CreateRoomMeeting = z.infer<typeof CreateRoomMeeting>;

export const MeetingConsentRequest = z.object({ consent_given: z.boolean() }).openapi("MeetingConsentRequest");
export type MeetingConsentRequest = z.infer<typeof MeetingConsentRequest>;

export const StartRecordingRequest = z
  .object({ type: z.enum(["cloud", "raw-tracks"]), instanceId: z.guid() })
  .openapi("StartRecordingRequest");
export type StartRecordingRequest = z.infer<typeof StartRecordingRequest>;

export const AddEmailRecipientRequest = z.object({ email: z.email() }).openapi("AddEmailRecipientRequest");
export type AddEmailRecipientRequest = z.infer<typeof AddEmailRecipientRequest>;

// Response bodies that are not components in the reference (api.md §4 item 23): shapes as it answers.
export const MeetingConsentResponse = z.object({ status: z.literal("success"), consent_id: z.string() });
export const MeetingDeactivateResponse = z.object({ status: z.literal("success"), meeting_id: z.string() });
export const StartRecordingResponse = z.union([
  z.object({ status: z.literal("ok"), result: z.record(z.string(), z.unknown()) }),
  z.object({ status: z.literal("already_active"), instanceId: z.string() }),
]);
export type StartRecordingResponse = z.infer<typeof StartRecordingResponse>;
export const EmailRecipientsResponse = z.object({ status: z.literal("success"), email_recipients: z.array(EmailRecipient) });
export const WebhookAck = z.object({ status: z.literal("ok") });

/** Whereby's webhook envelope (api.md §1.10); documented in OpenAPI, verified against the raw body. */
export const WherebyWebhookEvent = z
  .object({
    apiVersion: z.string(),
    id: z.string(),
    createdAt: datetime,
    type: z.string(),
    data: z.record(z.string(), z.unknown()),
  })
  .openapi("WherebyWebhookEvent");
export type WherebyWebhookEvent = z.infer<typeof WherebyWebhookEvent>;

/** A calendar event as the calendar service hands it over to create (or find) its meeting. */
export const CalendarEventForMeeting = z.object({
  id: z.string(),
  ics_uid: z.string(),
  title: z.string().nullable(),
  description: z.string().nullable(),
  attendees: z.array(CalendarAttendee).default([]),
  location: z.string().nullable().default(null),
  start: datetime,
  end: datetime,
});
export type CalendarEventForMeeting = z.infer<typeof CalendarEventForMeeting>;
