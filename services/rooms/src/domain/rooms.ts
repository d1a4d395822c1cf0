// Room rules: defaults on create, partial update, webhook-secret generation, who may read or change.
import { icsFetchIntervalSeconds, type Caller, type CreateRoom, type Platform, type RoomState, type UpdateRoom } from "@scribe/contracts";

/** 32 random bytes, URL-safe base64 without padding: 43 characters (reference format). */
export type SecretGenerator = () => string;

export interface CreateInput {
  id: string;
  owner: string;
  body: CreateRoom;
  defaultPlatform: Platform;
  now: Date;
  newSecret: SecretGenerator;
}

export function newRoom({ id, owner, body, defaultPlatform, now, newSecret }: CreateInput): RoomState {
  const webhookUrl = body.webhook_url;
  const webhookSecret = webhookUrl !== "" && body.webhook_secret === "" ? newSecret() : body.webhook_secret;
  return {
    id,
    name: body.name,
    user_id: owner,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    version: 1,
    zulip_auto_post: body.zulip_auto_post,
    zulip_stream: body.zulip_stream,
    zulip_topic: body.zulip_topic,
    is_locked: body.is_locked,
    room_mode: body.room_mode,
    recording_type: body.recording_type,
    recording_trigger: body.recording_trigger,
    is_shared: body.is_shared,
    // Empty strings are stored as given (the reference keeps "" rather than null).
    webhook_url: webhookUrl,
    webhook_secret: webhookSecret,
    ics_url: body.ics_url || null,
    ics_fetch_interval: icsFetchIntervalSeconds(body.ics_fetch_interval),
    ics_enabled: body.ics_enabled,
    ics_last_sync: null,
    ics_last_etag: null,
    platform: body.platform ?? defaultPlatform,
    skip_consent: body.skip_consent,
    email_transcript_to: body.email_transcript_to,
    store_video: body.store_video,
  };
}

/** Columns that may be null; for the others an explicit null in a PATCH means "leave as is". */
const NULLABLE = new Set<keyof UpdateRoom>(["webhook_url", "webhook_secret", "ics_url", "email_transcript_to"]);

/**
 * Apply the keys present in `patch`. A webhook URL sent without a secret gets a fresh secret when
 * the URL changes or the room has none; re-sending the same URL keeps the secret (the reference
 * rotates it on every such PATCH, which silently breaks receivers — a quirk not copied).
 */
export function applyUpdate(room: RoomState, patch: UpdateRoom, now: Date, newSecret: SecretGenerator): RoomState {
  const next: RoomState = { ...room };
  for (const [key, value] of Object.entries(patch) as [keyof UpdateRoom, unknown][]) {
    if (value === undefined) continue;
    if (value === null && !NULLABLE.has(key)) continue;
    (next as Record<string, unknown>)[key] =
      key === "ics_url" && value === "" ? null : key === "ics_fetch_interval" ? icsFetchIntervalSeconds(value as number) : value;
  }
  const urlGiven = typeof patch.webhook_url === "string" && patch.webhook_url !== "";
  const secretGiven = typeof patch.webhook_secret === "string" && patch.webhook_secret !== "";
  if (urlGiven && !secretGiven && (patch.webhook_url !== room.webhook_url || !room.webhook_secret)) {
    next.webhook_secret = newSecret();
  }
  next.version = room.version + 1;
  next.updated_at = now.toISOString();
  return next;
}

export function isOwner(room: Pick<RoomState, "user_id">, caller: Caller): boolean {
  return caller.userId !== null && caller.userId === room.user_id;
}

/** Get by id: shared rooms are readable by anyone, others only by their owner. */
export function canRead(room: Pick<RoomState, "user_id" | "is_shared">, caller: Caller): boolean {
  return room.is_shared || isOwner(room, caller);
}
