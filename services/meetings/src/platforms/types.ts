// The one interface every video platform adapter implements (platform A = Daily, B = Whereby).
import type { MeetingState, RecordingTrigger, RecordingType, RoomMode, StartRecordingResponse } from "@scribe/contracts";
import type { z } from "zod";
import type { PlatformMeeting } from "../domain/meetings";
import type { PresenceSnapshot } from "../domain/presence";
import type { PlatformRecording } from "../domain/recordings";

export interface CreateMeetingRequest {
  /** The Scribe room's name: prefix of the platform room's name. */
  roomName: string;
  /** The platform may remove the room after this. */
  endDate: Date;
  isLocked: boolean;
  roomMode: z.infer<typeof RoomMode>;
  recordingType: z.infer<typeof RecordingType>;
  recordingTrigger: z.infer<typeof RecordingTrigger>;
  now: Date;
}

/** What a signed-in caller's join token carries. */
export interface JoinToken {
  userId: string;
  userName: string | null;
  isOwner: boolean;
  enableRecordingUi: boolean;
}

/** How an incoming webhook names its meeting. */
export type MeetingLookup =
  /** Daily: by the platform room name; the meeting that started closest to `near` (else the newest). */
  | { platformRoomName: string; near: Date | null }
  /** Whereby: by our meeting id (the platform's meetingId). */
  | { meetingId: string };

/** An incoming webhook, verified and parsed into what Scribe does with it. */
export type PlatformEvent =
  | {
      type: "participant_joined" | "participant_left";
      meeting: MeetingLookup;
      /** The platform's participant session id; null when the platform sent none (then only the count changes). */
      sessionId: string | null;
      userId: string | null;
      userName: string;
      joinedAt: Date | null;
      at: Date;
      /** The platform's participant count, when it sends one. */
      numClients: number | null;
    }
  | { type: "session_ended"; meeting: MeetingLookup; at: Date }
  | { type: "recording_ready"; meeting: MeetingLookup; recording: PlatformRecording; bucket: string };

export interface ParsedWebhook {
  /** The platform's id of this delivery (replay defence). */
  deliveryId: string;
  /** The timestamp the signature covers (seconds). */
  signedAt: number;
  /** null: acknowledged without effect (endpoint checks, log-only and unknown types). */
  event: PlatformEvent | null;
  /** Why an event was acknowledged without effect, for the log. */
  note?: string;
}

export interface VideoPlatform {
  readonly name: "daily" | "whereby";
  /** Answer for a known event whose meeting is unknown: Daily disables failing webhooks, so it gets 200. */
  readonly unknownMeeting: "acknowledge" | "not_found";
  createMeeting(req: CreateMeetingRequest): Promise<PlatformMeeting>;
  /** The URL a signed-in caller joins with (with the platform meeting token where the platform has them). */
  joinUrl(meeting: MeetingState, token: JoinToken): Promise<string>;
  /** Who is in the meeting now; a platform answer "room not found" means nobody. */
  presence(meeting: MeetingState): Promise<PresenceSnapshot>;
  startRecording(meeting: MeetingState, type: "cloud" | "raw-tracks", instanceId: string): Promise<StartRecordingResponse>;
  /**
   * Verify (signature and age, exactly as the platform signs) and parse an incoming webhook. Throws
   * the answer for bad input: 401 bad signature, 422 malformed body.
   */
  parseWebhook(rawBody: Buffer, headers: Record<string, string>, now: Date): ParsedWebhook;
}
