// From a platform's "recording ready" to the recording.available event: Daily track keys, matching
// a recording to its meeting by time (behaviour §5.4), and the participants recorded.
import type { RecordingAvailable, RecordingTrack } from "@scribe/contracts";
import type { MeetingState } from "@scribe/contracts";

/**
 * Daily raw-tracks key: `<rec_ts>-<participant uuid>-cam-<audio|video>-<track_ts>` (ms epochs, 13+
 * digits), possibly under a folder and with an extension. Screen-share tracks use `screen-…`.
 */
const DAILY_TRACK =
  /(?:^|\/)(\d{13,})-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})-(cam|screen)-(audio|video)-(\d{13,})(?:\.[A-Za-z0-9]+)?$/i;

export interface DailyTrackKey {
  recordingStartMs: number;
  participantId: string;
  source: "cam" | "screen";
  kind: "audio" | "video";
  trackStartMs: number;
}

export function parseDailyTrackKey(key: string): DailyTrackKey | null {
  const m = DAILY_TRACK.exec(key);
  if (!m) return null;
  return {
    recordingStartMs: Number(m[1]),
    participantId: m[2]!.toLowerCase(),
    source: m[3]!.toLowerCase() as "cam" | "screen",
    kind: m[4]!.toLowerCase() as "audio" | "video",
    trackStartMs: Number(m[5]),
  };
}

/** Seconds from the recording's start at which a track starts (never negative). */
export function trackOffsetSeconds(key: DailyTrackKey): number {
  return Math.max(0, key.trackStartMs - key.recordingStartMs) / 1000;
}

/** A recording as the platform reported it, before the meeting's participants are added. */
export interface PlatformRecording {
  recordingId: string;
  kind: RecordingAvailable["kind"];
  startedAt: Date;
  durationSeconds: number | null;
  tracks: { key: string; kind: "audio" | "video"; startOffsetSeconds: number | null; participantId: string | null; size: number | null }[];
  file: { key: string; size: number | null } | null;
}

/** The week either side of a recording's start in which its meeting is looked for (inclusive). */
export const MATCH_WINDOW_MS = 168 * 3600 * 1000;

/**
 * The meeting a recording belongs to, among meetings of its platform room name: the one whose start
 * is closest to the recording's, within a week; ties go to the smallest id (deterministic).
 */
export function matchMeetingByTime<M extends { id: string; start_date: string }>(candidates: M[], recordingStart: Date): M | null {
  let best: { m: M; diff: number } | null = null;
  for (const m of candidates) {
    const diff = Math.abs(new Date(m.start_date).getTime() - recordingStart.getTime());
    if (diff > MATCH_WINDOW_MS) continue;
    if (!best || diff < best.diff || (diff === best.diff && m.id < best.m.id)) best = { m, diff };
  }
  return best?.m ?? null;
}

export interface RecordedParticipant {
  sessionId: string;
  name: string;
  userId: string | null;
}

/** Everyone recorded as a participant of the meeting, once per platform session, in order of joining. */
export function distinctParticipants(stays: RecordedParticipant[]): RecordedParticipant[] {
  const seen = new Map<string, RecordedParticipant>();
  for (const s of stays) {
    const prior = seen.get(s.sessionId);
    // A later stay of the same session may carry the name or user id the first lacked.
    if (!prior) seen.set(s.sessionId, s);
    else seen.set(s.sessionId, { sessionId: s.sessionId, name: prior.name || s.name, userId: prior.userId ?? s.userId });
  }
  return [...seen.values()];
}

export function recordingAvailableFor(args: {
  recording: PlatformRecording;
  meeting: MeetingState;
  bucket: string;
  participants: RecordedParticipant[];
}): RecordingAvailable {
  const { recording, meeting, bucket } = args;
  const participants = distinctParticipants(args.participants);
  const bySession = new Map(participants.map((p) => [p.sessionId.toLowerCase(), p]));
  const tracks: RecordingTrack[] = recording.tracks.map((t) => {
    const who = t.participantId ? bySession.get(t.participantId.toLowerCase()) : undefined;
    return {
      key: t.key,
      kind: t.kind,
      start_offset_seconds: t.startOffsetSeconds,
      participant_id: t.participantId,
      participant_name: who?.name || null,
      user_id: who?.userId ?? null,
      size: t.size,
    };
  });
  return {
    recording_id: recording.recordingId,
    meeting_id: meeting.id,
    room_id: meeting.room_id,
    room_name: meeting.scribe_room_name,
    room_owner_id: meeting.room_owner_id,
    platform: meeting.platform,
    kind: recording.kind,
    bucket,
    tracks,
    file: recording.file,
    recorded_at: recording.startedAt.toISOString(),
    duration_seconds: recording.durationSeconds,
    store_video: meeting.store_video,
    participants: participants.map((p) => ({ participant_id: p.sessionId, name: p.name, user_id: p.userId })),
  };
}
