// Room API schemas (api.md §1.3, component names verbatim) and the room state carried by room events.
import { z } from "@hono/zod-openapi";
import { pageOf } from "../common/schemas";
import { Platform, RecordingTrigger, RecordingType, RoomMode } from "../common/enums";

/**
 * The reference types room_mode / recording_type / recording_trigger as plain strings in room
 * schemas (generated clients expect `string`), but only the enum values are valid: validate at
 * runtime, publish `string` in OpenAPI.
 */
function enumString(values: readonly string[]) {
  const allowed = new Set<string>(values);
  return z.string().refine((v) => allowed.has(v), {
    message: `Input should be ${values.map((v) => `'${v}'`).join(", ")}`,
  });
}
const roomModeString = enumString(RoomMode.options);
const recordingTypeString = enumString(RecordingType.options);
const recordingTriggerString = enumString(RecordingTrigger.options);

/**
 * Stored and answered in seconds (60 to 3600). Requests may also give minutes: the reference's
 * settings form offers 1, 5, 10, 30 and 60 and sends those minute numbers unchanged, so a value up to
 * `minutesUpTo` is read as minutes (60 is one hour, as the form means), a larger one as seconds.
 */
export const ICS_FETCH_INTERVAL = { min: 60, max: 3600, default: 300, minutesUpTo: 60 } as const;
const icsFetchInterval = z
  .number()
  .int()
  .min(1)
  .max(ICS_FETCH_INTERVAL.max)
  .refine(
    (v) => v <= ICS_FETCH_INTERVAL.minutesUpTo || v >= ICS_FETCH_INTERVAL.min,
    "Input should be minutes (1 to 60) or seconds (60 to 3600)",
  )
  .describe(
    "how often the ICS feed is fetched: 1 to 60 are minutes (the reference form's values), 61 to 3600 seconds; answered in seconds",
  );

/** The interval a request gave (minutes or seconds, see ICS_FETCH_INTERVAL) in seconds. */
export function icsFetchIntervalSeconds(requested: number): number {
  return requested <= ICS_FETCH_INTERVAL.minutesUpTo ? requested * 60 : requested;
}
const httpUrl = z.url({ protocol: /^https?$/ });
/** Calendar apps hand out feeds as webcal:// (fetched over https), so ICS URLs accept it too. */
const icsUrl = z.url({ protocol: /^(https?|webcal)$/ });
/** Room names are used as path segments and in the room's UI URL. */
const roomName = z
  .string()
  .trim()
  .min(1)
  .max(255)
  .regex(/^[^/?#\s]+$/, "Room name may not contain '/', '?', '#' or whitespace");

const roomShape = {
  id: z.string(),
  name: z.string(),
  user_id: z.string(),
  created_at: z.iso.datetime({ offset: true }),
  zulip_auto_post: z.boolean(),
  zulip_stream: z.string(),
  zulip_topic: z.string(),
  is_locked: z.boolean(),
  room_mode: z.string(),
  recording_type: z.string(),
  recording_trigger: z.string(),
  is_shared: z.boolean(),
  ics_url: z.string().nullable().default(null),
  ics_fetch_interval: z.number().int().default(ICS_FETCH_INTERVAL.default),
  ics_enabled: z.boolean().default(false),
  ics_last_sync: z.iso.datetime({ offset: true }).nullable().default(null),
  ics_last_etag: z.string().nullable().default(null),
  platform: Platform,
  skip_consent: z.boolean().default(false),
  email_transcript_to: z.string().nullable().default(null),
  store_video: z.boolean().default(false),
};

export const Room = z.object(roomShape).openapi("Room");
export type Room = z.infer<typeof Room>;

export const RoomDetails = z
  .object({ ...roomShape, webhook_url: z.string().nullable(), webhook_secret: z.string().nullable() })
  .openapi("RoomDetails");
export type RoomDetails = z.infer<typeof RoomDetails>;

export const PageRoomDetails = pageOf(RoomDetails, "Page_RoomDetails_");
export type PageRoomDetails = z.infer<typeof PageRoomDetails>;

/**
 * api.md marks most CreateRoom fields required; Scribe accepts them all (existing clients send
 * them) and also fills the documented defaults when a simpler client leaves them out.
 */
export const CreateRoom = z
  .object({
    name: roomName,
    zulip_auto_post: z.boolean().default(false),
    zulip_stream: z.string().default(""),
    zulip_topic: z.string().default(""),
    is_locked: z.boolean().default(false),
    room_mode: roomModeString.default("normal"),
    recording_type: recordingTypeString.default("cloud"),
    recording_trigger: recordingTriggerString.default("automatic-2nd-participant"),
    is_shared: z.boolean().default(false),
    webhook_url: z.union([z.literal(""), httpUrl]).default(""),
    webhook_secret: z.string().default(""),
    // "" is "no feed", as on update (the reference form sends it when the field is left empty).
    ics_url: z
      .union([z.literal(""), icsUrl])
      .nullable()
      .optional()
      .default(null),
    ics_fetch_interval: icsFetchInterval.optional().default(ICS_FETCH_INTERVAL.default),
    ics_enabled: z.boolean().optional().default(false),
    /** Default: DEFAULT_VIDEO_PLATFORM (platform A, "daily"). */
    platform: Platform.optional(),
    skip_consent: z.boolean().optional().default(false),
    email_transcript_to: z.string().nullable().optional().default(null),
    store_video: z.boolean().optional().default(false),
  })
  .openapi("CreateRoom");
export type CreateRoom = z.infer<typeof CreateRoom>;

/** Partial update: only keys present are applied; null on a non-nullable column is ignored. */
export const UpdateRoom = z
  .object({
    name: roomName.nullable().optional(),
    zulip_auto_post: z.boolean().nullable().optional(),
    zulip_stream: z.string().nullable().optional(),
    zulip_topic: z.string().nullable().optional(),
    is_locked: z.boolean().nullable().optional(),
    room_mode: roomModeString.nullable().optional(),
    recording_type: recordingTypeString.nullable().optional(),
    recording_trigger: recordingTriggerString.nullable().optional(),
    is_shared: z.boolean().nullable().optional(),
    webhook_url: z
      .union([z.literal(""), httpUrl])
      .nullable()
      .optional(),
    webhook_secret: z.string().nullable().optional(),
    ics_url: z
      .union([z.literal(""), icsUrl])
      .nullable()
      .optional(),
    ics_fetch_interval: icsFetchInterval.nullable().optional(),
    ics_enabled: z.boolean().nullable().optional(),
    platform: Platform.nullable().optional(),
    skip_consent: z.boolean().nullable().optional(),
    email_transcript_to: z.string().nullable().optional(),
    store_video: z.boolean().nullable().optional(),
  })
  .openapi("UpdateRoom");
export type UpdateRoom = z.infer<typeof UpdateRoom>;

export const WebhookTestResult = z
  .object({
    success: z.boolean(),
    message: z.string().default(""),
    error: z.string().default(""),
    status_code: z.number().int().nullable().default(null),
    response_preview: z.string().nullable().default(null),
  })
  .openapi("WebhookTestResult");
export type WebhookTestResult = z.infer<typeof WebhookTestResult>;

/**
 * Full room state as carried by room.created / room.updated / room.deleted, including the
 * webhook secret (the bus is internal; consumers such as the notifier need it to sign).
 * `version` increases with every change so consumers can ignore a stale state.
 */
export const RoomState = RoomDetails.extend({
  version: z.number().int().min(1),
  updated_at: z.iso.datetime({ offset: true }),
});
export type RoomState = z.infer<typeof RoomState>;

/**
 * A room as its events carry it: no webhook secret, only whether there is one (issue 15.14; the
 * notifier asks the rooms service for the secret when it signs). Events written before this carried
 * the secret: reading them drops it.
 */
const RoomEventShape = RoomState.omit({ webhook_secret: true }).extend({
  has_webhook_secret: z.boolean(),
  /**
   * The rooms' feed position this change took (one counter over every room, in commit order):
   * readers that depend on every room wait until they applied it. Absent in events written before it.
   */
  feed_seq: z.number().int().min(1).optional(),
});
export const RoomEvent = z.preprocess((v) => {
  if (!v || typeof v !== "object" || "has_webhook_secret" in v) return v;
  return { ...v, has_webhook_secret: Boolean((v as { webhook_secret?: unknown }).webhook_secret) };
}, RoomEventShape);
export type RoomEvent = z.infer<typeof RoomEventShape>;

export function roomEventOf(state: RoomState): RoomEvent {
  const { webhook_secret, ...rest } = state;
  return { ...rest, has_webhook_secret: Boolean(webhook_secret) };
}

/** Strip the webhook fields for callers who do not own the room (decision: every response). */
export function roomDetailsFor(state: RoomDetails, callerUserId: string | null): RoomDetails {
  const details: RoomDetails = RoomDetails.parse(state);
  if (callerUserId !== null && callerUserId === state.user_id) return details;
  return { ...details, webhook_url: null, webhook_secret: null };
}
export function roomWithoutWebhook(state: RoomDetails): Room {
  const { webhook_url: _url, webhook_secret: _secret, ...room } = RoomDetails.parse(state);
  return Room.parse(room);
}
