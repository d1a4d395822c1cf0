// A synthesised meeting recorded on the Daily simulator, and the transcript it becomes, through HTTP
// only: room → meeting → one WebM/Opus track per speaker at the speaker's start offset →
// recording.ready-to-download webhook → meetings → recordings → transcription.
import { eventually } from "@scribe/kit/testing";
import type { MeetingFixture } from "@scribe/simulators";
import { post, roomWithMeetings, type PlatformSystem } from "./platforms";
import type { Client } from "./system";

export interface RecordedMeeting {
  roomId: string;
  meetingId: string;
  recordingId: string;
}

/** Create `roomName` (with `roomFields`, e.g. a webhook URL) as `owner`, start a meeting and finish its recording with the fixture's tracks. */
export async function recordMeeting(
  sys: PlatformSystem,
  owner: Client,
  roomName: string,
  fx: MeetingFixture,
  roomFields: Record<string, unknown> = {},
): Promise<RecordedMeeting> {
  const room = await roomWithMeetings(owner, { ...roomFields, name: roomName });
  const created = await owner(`/v1/rooms/${encodeURIComponent(roomName)}/meeting`, post({}));
  if (created.status !== 200) throw new Error(`meeting create answered ${created.status}: ${await created.text()}`);
  const meeting = (await created.json()) as { id: string; room_name: string };
  const rec = await sys.daily.finishRecording({
    roomName: meeting.room_name,
    tracks: fx.truth.tracks.map((t) => ({ participantName: t.name, startOffsetSeconds: t.offset, audioFile: fx.trackPaths[t.speaker]! })),
  });
  if (rec.webhook.status !== 200) throw new Error(`recording webhook answered ${rec.webhook.status}`);
  return { roomId: room.id, meetingId: meeting.id, recordingId: rec.recordingId };
}

/** The id of the room's (only) transcript, once the read side lists it. */
export function transcriptOfRoom(as: Client, roomId: string): Promise<string> {
  return eventually(
    async () => {
      const res = await as(`/v1/transcripts?room_id=${roomId}`);
      if (res.status !== 200) return null;
      const page = (await res.json()) as { items: { id: string }[] };
      return page.items[0]?.id ?? null;
    },
    { timeoutMs: 60_000, message: `a transcript for room ${roomId}` },
  );
}

/**
 * GET the transcript until its status is one of `statuses` — by default processing settled, `ended`
 * or `error`, and the caller asserts which (waiting for `ended` alone would hide the error).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function untilSettled(as: Client, id: string, timeoutMs: number, statuses = ["ended", "error"]): Promise<Record<string, any>> {
  return eventually(
    async () => {
      const res = await as(`/v1/transcripts/${id}`);
      if (res.status !== 200) return null;
      const t = (await res.json()) as Record<string, unknown>;
      return statuses.includes(t.status as string) ? t : null;
    },
    { timeoutMs, intervalMs: 1000, message: `transcript ${id} reached ${statuses.join(" or ")}` },
  );
}
