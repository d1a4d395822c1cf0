// Platform B: Whereby (https://api.whereby.dev/v1). Meetings with a host URL, room sessions from the
// insights API, and Whereby's signed webhooks (behaviour §3.2, §4.2).
import { Invalid, Unauthorized, validationErrors, type Logger } from "@scribe/kit";
import { WherebyWebhookEvent, type MeetingState, type StartRecordingResponse } from "@scribe/contracts";
import { z } from "zod";
import type { PlatformMeeting } from "../domain/meetings";
import { NOBODY_PRESENT, type PresenceSnapshot } from "../domain/presence";
import { signedAtSeconds, verifyWherebySignature, withinWindow } from "../domain/webhook-signatures";
import { unsupported } from "./daily";
import { PlatformApiError, PlatformHttp, platformUnavailable } from "./http";
import type { CreateMeetingRequest, JoinToken, ParsedWebhook, VideoPlatform } from "./types";

export interface WherebyOptions {
  apiUrl: string;
  apiKey: string;
  webhookSecret: string;
  bucket: string;
  accessKeyId: string;
  accessKeySecret: string;
  timeoutMs: number;
  retries: number;
  log: Logger;
}

/** Whereby's webhook signatures are good for 60 s (behaviour §4.2). */
export const WHEREBY_WEBHOOK_MAX_AGE_SECONDS = 60;

const WherebyMeeting = z.object({
  meetingId: z.string(),
  roomName: z.string(),
  roomUrl: z.string(),
  hostRoomUrl: z.string().optional(),
});
const RoomSessions = z.object({
  results: z.array(z.object({ roomSessionId: z.string(), startedAt: z.string(), endedAt: z.string().nullable().optional() })),
});

const ClientData = z.object({
  meetingId: z.string(),
  roomName: z.string().optional(),
  roomSessionId: z.string().nullable().optional(),
  numClients: z.number().int().min(0),
  participantId: z.string().nullable().optional(),
  displayName: z.string().nullable().optional(),
  externalId: z.string().nullable().optional(),
});
const SessionEndedData = z.object({
  meetingId: z.string(),
  roomSessionId: z.string().nullable().optional(),
  endedAt: z.string().nullable().optional(),
});
/** Whereby does not publish this payload's fields; these are the ones Scribe reads (and its simulator sends). */
const RecordingFinishedData = z.object({
  meetingId: z.string(),
  recordingId: z.string(),
  /** Object key of the recording in the Whereby bucket. */
  key: z.string(),
  size: z.number().int().min(0).nullable().optional(),
  startedAt: z.iso.datetime({ offset: true }),
  endedAt: z.iso.datetime({ offset: true }).nullable().optional(),
});

export class WherebyPlatform implements VideoPlatform {
  readonly name = "whereby" as const;
  readonly unknownMeeting = "not_found" as const;
  private readonly http: PlatformHttp;

  constructor(private readonly opts: WherebyOptions) {
    this.http = new PlatformHttp({
      platform: "Whereby",
      baseUrl: opts.apiUrl,
      apiKey: opts.apiKey,
      apiKeyVariable: "WHEREBY_API_KEY",
      timeoutMs: opts.timeoutMs,
      retries: opts.retries,
      log: opts.log,
    });
  }

  async createMeeting(req: CreateMeetingRequest): Promise<PlatformMeeting> {
    const body = {
      isLocked: req.isLocked,
      roomNamePrefix: `${req.roomName}-`,
      roomNamePattern: "uuid",
      roomMode: req.roomMode,
      endDate: req.endDate.toISOString(),
      fields: ["hostRoomUrl"],
      ...(req.recordingType === "cloud"
        ? {
            recording: {
              type: "cloud",
              destination: {
                provider: "s3",
                bucket: this.opts.bucket,
                accessKeyId: this.opts.accessKeyId,
                accessKeySecret: this.opts.accessKeySecret,
                fileFormat: "mp4",
              },
              startTrigger: req.recordingTrigger,
            },
          }
        : {}),
    };
    const m = await this.http
      .call("create_meeting", { method: "POST", path: "/meetings", body, schema: WherebyMeeting, idempotent: false })
      .catch((e: unknown) => {
        throw platformUnavailable(e);
      });
    return { meetingId: m.meetingId, roomName: m.roomName, roomUrl: m.roomUrl, hostRoomUrl: m.hostRoomUrl ?? m.roomUrl };
  }

  /** Whereby rooms need no token: everyone joins with the room URL. */
  async joinUrl(meeting: MeetingState, _token: JoinToken): Promise<string> {
    return meeting.room_url;
  }

  async presence(meeting: MeetingState): Promise<PresenceSnapshot> {
    try {
      const { results } = await this.http.call("get_room_sessions", {
        method: "GET",
        path: "/insights/room-sessions",
        query: { roomName: meeting.room_name },
        schema: RoomSessions,
        idempotent: true,
      });
      return { participants: null, anyonePresent: results.some((s) => !s.endedAt), everUsed: results.length > 0 };
    } catch (e) {
      if (e instanceof PlatformApiError && e.status === 404) return NOBODY_PRESENT;
      throw platformUnavailable(e);
    }
  }

  async startRecording(_meeting: MeetingState, _type: "cloud" | "raw-tracks", _instanceId: string): Promise<StartRecordingResponse> {
    // Whereby starts cloud recordings by the room's recording trigger, not through an API call.
    throw unsupported("whereby", "Starting a recording");
  }

  parseWebhook(rawBody: Buffer, headers: Record<string, string>, now: Date): ParsedWebhook {
    const text = rawBody.toString("utf8");
    // The signature covers a re-serialisation of the parsed body, so the body is parsed first.
    try {
      JSON.parse(text);
    } catch {
      throw Invalid("Invalid JSON");
    }
    const verified = verifyWherebySignature({ secret: this.opts.webhookSecret, header: headers["whereby-signature"], jsonText: text });
    const signedAt = verified ? signedAtSeconds(verified.t) : null;
    if (signedAt === null || !withinWindow(signedAt, now, WHEREBY_WEBHOOK_MAX_AGE_SECONDS)) {
      throw Unauthorized("Invalid webhook signature");
    }
    const envelope = WherebyWebhookEvent.safeParse(JSON.parse(text));
    if (!envelope.success) throw Invalid(validationErrors(envelope.error.issues, ["body"]));
    const { id, type, data, createdAt } = envelope.data;
    const base = { deliveryId: id, signedAt };
    const parse = <S extends z.ZodType>(schema: S): z.infer<S> => {
      const r = schema.safeParse(data);
      if (!r.success) throw Invalid(validationErrors(r.error.issues, ["body", "data"]));
      return r.data as z.infer<S>;
    };
    const at = new Date(createdAt);
    switch (type) {
      case "room.client.joined":
      case "room.client.left": {
        const d = parse(ClientData);
        return {
          ...base,
          event: {
            type: type === "room.client.joined" ? "participant_joined" : "participant_left",
            meeting: { meetingId: d.meetingId },
            sessionId: d.participantId ?? null,
            // externalId is the caller-chosen id on the room URL; only a joiner we know becomes a user id.
            userId: d.externalId ?? null,
            userName: d.displayName ?? "",
            joinedAt: null,
            at,
            numClients: d.numClients,
          },
        };
      }
      case "room.session.ended": {
        const d = parse(SessionEndedData);
        return { ...base, event: { type: "session_ended", meeting: { meetingId: d.meetingId }, at: d.endedAt ? new Date(d.endedAt) : at } };
      }
      case "recording.finished": {
        const d = parse(RecordingFinishedData);
        const started = new Date(d.startedAt);
        const ended = d.endedAt ? new Date(d.endedAt) : null;
        return {
          ...base,
          event: {
            type: "recording_ready",
            meeting: { meetingId: d.meetingId },
            bucket: this.opts.bucket,
            recording: {
              recordingId: d.recordingId,
              kind: "file",
              startedAt: started,
              durationSeconds: ended ? Math.max(0, (ended.getTime() - started.getTime()) / 1000) : null,
              tracks: [],
              file: { key: d.key, size: d.size ?? null },
            },
          },
        };
      }
      default:
        return { ...base, event: null, note: `${type} has no effect` };
    }
  }
}
