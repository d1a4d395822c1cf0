// Platform A: Daily (https://api.daily.co/v1). One Daily room per meeting, meeting tokens for
// signed-in joins, room presence, REST-started recordings, and Daily's signed webhooks (§3.2, §4.1).
import { randomBytes } from "node:crypto";
import { BadRequest, Invalid, Unauthorized, UpstreamFailed, type Logger } from "@scribe/kit";
import type { MeetingState, StartRecordingResponse } from "@scribe/contracts";
import { z } from "zod";
import { withQueryParam, type PlatformMeeting } from "../domain/meetings";
import { NOBODY_PRESENT, type PresenceSnapshot } from "../domain/presence";
import { parseDailyTrackKey, trackOffsetSeconds, type PlatformRecording } from "../domain/recordings";
import { signedAtSeconds, verifyDailySignature, withinWindow } from "../domain/webhook-signatures";
import { PlatformApiError, PlatformHttp, platformUnavailable } from "./http";
import type { CreateMeetingRequest, JoinToken, ParsedWebhook, PlatformEvent, VideoPlatform } from "./types";

export interface DailyOptions {
  apiUrl: string;
  apiKey: string;
  subdomain: string;
  webhookSecret: string;
  webhookMaxAgeSeconds: number;
  bucket: string;
  bucketRegion: string;
  bucketRoleArn: string;
  timeoutMs: number;
  retries: number;
  log: Logger;
}

const DailyRoom = z.object({ id: z.string(), name: z.string(), url: z.string().optional() });
const DailyToken = z.object({ token: z.string() });
const DailyPresence = z.object({
  data: z.array(
    z.object({
      id: z.string(),
      userId: z.string().nullable().optional(),
      userName: z.string().nullable().optional(),
      joinTime: z.string(),
    }),
  ),
});
const DailyAny = z.record(z.string(), z.unknown());

/** `YYYYMMDDHHMMSS` in UTC (the reference formats the server clock, UTC in its deployment). */
export function compactUtc(d: Date): string {
  return d.toISOString().replace(/[-:T]/g, "").slice(0, 14);
}

/** Daily room names allow letters, digits, `-` and `_`; anything else in a Scribe room name becomes `-`. */
export function dailyRoomName(roomName: string, now: Date, infix = ""): string {
  const base = roomName.replace(/[^A-Za-z0-9_-]/g, "-").slice(0, 80);
  return `${base}${infix ? `-${infix}` : ""}-${compactUtc(now)}`;
}

// Daily webhook bodies (behaviour §4.1; meeting.ended is Daily's session-ended signal).
const Envelope = z.object({
  version: z.string(),
  type: z.string(),
  id: z.string(),
  payload: z.record(z.string(), z.unknown()),
  event_ts: z.number(),
});
const ParticipantPayload = z
  .object({
    room: z.string().optional(),
    room_name: z.string().optional(),
    session_id: z.string(),
    user_id: z.string().nullable().optional(),
    user_name: z.string().nullable().optional(),
    joined_at: z.number(),
    duration: z.number().nullable().optional(),
  })
  .refine((p) => p.room ?? p.room_name, "room_name or room is required");
const MeetingEndedPayload = z
  .object({
    room: z.string().optional(),
    room_name: z.string().optional(),
    start_ts: z.number(),
    end_ts: z.number(),
    meeting_id: z.string(),
  })
  .refine((p) => p.room ?? p.room_name, "room_name or room is required");
const RecordingReadyPayload = z.object({
  type: z.enum(["cloud", "cloud-audio-only", "raw-tracks"]),
  recording_id: z.string(),
  room_name: z.string(),
  start_ts: z.number(),
  status: z.string().optional(),
  max_participants: z.number().nullable().optional(),
  duration: z.number().nullable().optional(),
  s3_key: z.string().nullable().optional(),
  share_token: z.string().nullable().optional(),
  tracks: z
    .array(z.object({ type: z.enum(["audio", "video"]), s3Key: z.string(), size: z.number().nullable().optional() }))
    .nullable()
    .optional(),
});
const LogOnlyPayloads: Record<string, z.ZodType> = {
  "recording.started": z.object({ recording_id: z.string() }),
  "recording.error": z.object({ action: z.string(), error_msg: z.string() }),
};

const seconds = (ts: number) => new Date(Math.trunc(ts) * 1000);

export class DailyPlatform implements VideoPlatform {
  readonly name = "daily" as const;
  readonly unknownMeeting = "acknowledge" as const;
  private readonly http: PlatformHttp;

  constructor(private readonly opts: DailyOptions) {
    this.http = new PlatformHttp({
      platform: "Daily",
      baseUrl: opts.apiUrl,
      apiKey: opts.apiKey,
      apiKeyVariable: "DAILY_API_KEY",
      timeoutMs: opts.timeoutMs,
      retries: opts.retries,
      log: opts.log,
    });
  }

  async createMeeting(req: CreateMeetingRequest): Promise<PlatformMeeting> {
    const body = (name: string) => ({
      name,
      privacy: req.isLocked ? "private" : "public",
      properties: {
        enable_chat: true,
        enable_screenshare: true,
        enable_knocking: req.isLocked,
        start_video_off: false,
        start_audio_off: false,
        exp: Math.floor(req.endDate.getTime() / 1000),
        ...(req.recordingType === "local" ? { enable_recording: "local" } : {}),
        // Cloud recordings are started through the REST API and land in our bucket.
        ...(req.recordingType === "cloud"
          ? {
              recordings_bucket: {
                bucket_name: this.opts.bucket,
                bucket_region: this.opts.bucketRegion,
                assume_role_arn: this.opts.bucketRoleArn,
                allow_api_access: true,
              },
            }
          : {}),
      },
    });
    const create = (name: string) =>
      this.http.call("create_room", { method: "POST", path: "/rooms", body: body(name), schema: DailyRoom, idempotent: false });
    let room: z.infer<typeof DailyRoom>;
    try {
      room = await create(dailyRoomName(req.roomName, req.now));
    } catch (e) {
      // Two meetings of one room created within the same second share the timestamped name.
      if (!(e instanceof PlatformApiError && e.status === 400 && /already exists/i.test(e.body))) throw platformUnavailable(e);
      room = await create(dailyRoomName(req.roomName, req.now, randomBytes(3).toString("hex"))).catch((err: unknown) => {
        throw platformUnavailable(err);
      });
    }
    const url = room.url ?? `https://${this.opts.subdomain}.daily.co/${room.name}`;
    // Daily has no separate host URL: the owner's powers come with the meeting token.
    return { meetingId: room.id, roomName: room.name, roomUrl: url, hostRoomUrl: url };
  }

  async joinUrl(meeting: MeetingState, token: JoinToken): Promise<string> {
    const { token: t } = await this.http
      .call("create_meeting_token", {
        method: "POST",
        path: "/meeting-tokens",
        body: {
          properties: {
            room_name: meeting.room_name,
            user_id: token.userId,
            ...(token.userName ? { user_name: token.userName } : {}),
            is_owner: token.isOwner,
            enable_recording_ui: token.enableRecordingUi,
            // No nbf/exp: the token lasts as long as the room (reference behaviour).
            eject_at_token_exp: false,
          },
        },
        schema: DailyToken,
        idempotent: true,
      })
      .catch((e: unknown) => {
        throw platformUnavailable(e);
      });
    return withQueryParam(meeting.room_url, "t", t);
  }

  async presence(meeting: MeetingState): Promise<PresenceSnapshot> {
    try {
      const { data } = await this.http.call("get_room_presence", {
        method: "GET",
        path: `/rooms/${encodeURIComponent(meeting.room_name)}/presence`,
        schema: DailyPresence,
        idempotent: true,
      });
      return {
        participants: data.map((p) => ({
          sessionId: p.id,
          userId: p.userId ?? null,
          userName: p.userName ?? "",
          joinedAt: new Date(p.joinTime),
        })),
        anyonePresent: data.length > 0,
        // Daily presence is a snapshot; whether the meeting was used comes from our stays.
        everUsed: data.length > 0,
      };
    } catch (e) {
      // The room expired or was deleted on Daily: nobody can be in it (else its stays never close).
      if (e instanceof PlatformApiError && e.status === 404) return NOBODY_PRESENT;
      throw platformUnavailable(e);
    }
  }

  async startRecording(meeting: MeetingState, type: "cloud" | "raw-tracks", instanceId: string): Promise<StartRecordingResponse> {
    try {
      const result = await this.http.call("start_recording", {
        method: "POST",
        path: `/rooms/${encodeURIComponent(meeting.room_name)}/recordings/start`,
        body: { type, instanceId },
        schema: DailyAny,
        idempotent: false,
      });
      return { status: "ok", result };
    } catch (e) {
      if (e instanceof PlatformApiError && e.status !== null && /has an active stream/.test(dailyErrorInfo(e.body))) {
        return { status: "already_active", instanceId };
      }
      // Daily answered and refused (e.g. nobody in the room yet): its reason, as a bad gateway.
      if (e instanceof PlatformApiError && e.status !== null && e.status < 500) {
        throw UpstreamFailed(`Failed to start recording: ${dailyErrorInfo(e.body)}`, e);
      }
      throw e;
    }
  }

  parseWebhook(rawBody: Buffer, headers: Record<string, string>, now: Date): ParsedWebhook {
    const timestamp = headers["x-webhook-timestamp"];
    const signature = headers["x-webhook-signature"];
    if (!verifyDailySignature({ secretBase64: this.opts.webhookSecret, timestamp, signature, rawBody })) {
      throw Unauthorized("Invalid webhook signature");
    }
    // Replay defence the reference lacks: a signature is only good for a while.
    const signedAt = signedAtSeconds(timestamp!);
    if (signedAt === null || !withinWindow(signedAt, now, this.opts.webhookMaxAgeSeconds)) {
      throw Unauthorized("Invalid webhook signature");
    }
    let json: unknown;
    try {
      json = JSON.parse(rawBody.toString("utf8"));
    } catch {
      throw Invalid("Invalid JSON");
    }
    // Daily's endpoint check when the webhook is created (signed like any other delivery).
    if (json && typeof json === "object" && (json as { test?: unknown }).test === "test") {
      return { deliveryId: `test:${signedAt}`, signedAt, event: null, note: "endpoint check" };
    }
    const envelope = Envelope.safeParse(json);
    if (!envelope.success) throw Invalid("Invalid event format");
    const { type, id, payload, event_ts } = envelope.data;
    const base = { deliveryId: id, signedAt };
    const parse = <S extends z.ZodType>(schema: S): z.infer<S> => {
      const r = schema.safeParse(payload);
      if (!r.success) throw Invalid("Invalid event format");
      return r.data as z.infer<S>;
    };
    switch (type) {
      case "participant.joined":
      case "participant.left": {
        const p = parse(ParticipantPayload);
        const joinedAt = seconds(p.joined_at);
        const at = type === "participant.left" && p.duration != null ? new Date(joinedAt.getTime() + p.duration * 1000) : seconds(event_ts);
        const event: PlatformEvent = {
          type: type === "participant.joined" ? "participant_joined" : "participant_left",
          meeting: { platformRoomName: (p.room_name ?? p.room)!, near: null },
          sessionId: p.session_id,
          userId: p.user_id ?? null,
          userName: p.user_name ?? "",
          joinedAt,
          at: type === "participant.joined" ? joinedAt : at,
          numClients: null,
        };
        return { ...base, event };
      }
      case "meeting.ended": {
        const p = parse(MeetingEndedPayload);
        return {
          ...base,
          event: {
            type: "session_ended",
            meeting: { platformRoomName: (p.room_name ?? p.room)!, near: seconds(p.start_ts) },
            at: seconds(p.end_ts),
          },
        };
      }
      case "recording.ready-to-download": {
        const p = parse(RecordingReadyPayload);
        const recording = this.recordingOf(p);
        if (!recording) return { ...base, event: null, note: `recording ${p.recording_id} (${p.type}) has nothing to process` };
        return {
          ...base,
          event: {
            type: "recording_ready",
            meeting: { platformRoomName: p.room_name, near: seconds(p.start_ts) },
            recording,
            bucket: this.opts.bucket,
          },
        };
      }
      default: {
        const logOnly = LogOnlyPayloads[type];
        if (logOnly) {
          parse(logOnly);
          return { ...base, event: null, note: `${type} is only logged` };
        }
        // Unknown types are acknowledged: Daily disables a webhook after repeated non-2xx answers.
        return { ...base, event: null, note: `unknown event type ${type}` };
      }
    }
  }

  /** raw-tracks → per-participant tracks with offsets from their keys; cloud → the composed video. */
  private recordingOf(p: z.infer<typeof RecordingReadyPayload>): PlatformRecording | null {
    const common = { recordingId: p.recording_id, startedAt: seconds(p.start_ts), durationSeconds: p.duration ?? null };
    if (p.type === "cloud") {
      return p.s3_key ? { ...common, kind: "composed_video", tracks: [], file: { key: p.s3_key, size: null } } : null;
    }
    if (p.type !== "raw-tracks" || !p.tracks?.length) return null;
    const tracks = p.tracks.flatMap((t) => {
      const parsed = parseDailyTrackKey(t.s3Key);
      // Screen-share audio is not a participant's voice (the reference keeps cam-audio keys only).
      if (t.type === "audio" && parsed?.source === "screen") {
        this.opts.log.info({ key: t.s3Key }, "screen-share audio track left out of the recording");
        return [];
      }
      return [
        {
          key: t.s3Key,
          kind: t.type,
          startOffsetSeconds: parsed ? trackOffsetSeconds(parsed) : null,
          participantId: parsed?.participantId ?? null,
          size: t.size ?? null,
        },
      ];
    });
    return { ...common, kind: "multitrack", tracks, file: null };
  }
}

/** The `info` (or `error`) text of a Daily error body. */
function dailyErrorInfo(body: string): string {
  try {
    const json = JSON.parse(body) as { info?: unknown; error?: unknown };
    return typeof json.info === "string" ? json.info : typeof json.error === "string" ? json.error : body;
  } catch {
    return body;
  }
}

/** Refusal for operations a platform does not offer. */
export function unsupported(platform: string, what: string): Error {
  return BadRequest(`${what} is not available for meetings on ${platform}`);
}
