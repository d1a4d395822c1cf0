// A synthesised meeting recorded on the Daily simulator, and the transcript it becomes, through HTTP
// only: room → meeting → one WebM/Opus track per speaker at the speaker's start offset →
// recording.ready-to-download webhook → meetings → recordings → transcription.
import { ok, type Schemas, type ScribeClient } from "@scribe/client";
import { eventually } from "@scribe/kit/testing";
import type { MeetingFixture } from "@scribe/simulators";
import { roomWithMeetings, type PlatformSystem } from "./platforms";

export interface RecordedMeeting {
  roomId: string;
  meetingId: string;
  recordingId: string;
}

/** Create `roomName` (with `roomFields`, e.g. a webhook URL) as `owner`, start a meeting and finish its recording with the fixture's tracks. */
export async function recordMeeting(
  sys: PlatformSystem,
  owner: ScribeClient,
  roomName: string,
  fx: MeetingFixture,
  roomFields: Omit<Schemas["CreateRoom"], "name"> = {},
): Promise<RecordedMeeting> {
  const room = await roomWithMeetings(owner, { ...roomFields, name: roomName });
  const meeting = await ok(owner.POST("/v1/rooms/{room_name}/meeting", { params: { path: { room_name: roomName } }, body: {} }));
  const rec = await sys.daily.finishRecording({
    roomName: meeting.room_name,
    tracks: fx.truth.tracks.map((t) => ({ participantName: t.name, startOffsetSeconds: t.offset, audioFile: fx.trackPaths[t.speaker]! })),
  });
  if (rec.webhook.status !== 200) throw new Error(`recording webhook answered ${rec.webhook.status}`);
  return { roomId: room.id, meetingId: meeting.id, recordingId: rec.recordingId };
}

/** The id of the room's (only) transcript, once the read side lists it. */
export function transcriptOfRoom(api: ScribeClient, roomId: string): Promise<string> {
  return eventually(
    async () => {
      const { data: page } = await api.GET("/v1/transcripts", { params: { query: { room_id: roomId } } });
      return page?.items[0]?.id ?? null;
    },
    { timeoutMs: 60_000, message: `a transcript for room ${roomId}` },
  );
}

/**
 * GET the transcript until its status is one of `statuses` — by default processing settled, `ended`
 * or `error`, and the caller asserts which (waiting for `ended` alone would hide the error).
 */
export function untilSettled(
  api: ScribeClient,
  id: string,
  timeoutMs: number,
  statuses = ["ended", "error"],
): Promise<Schemas["GetTranscriptWithText"]> {
  return eventually(
    async () => {
      const { data } = await api.GET("/v1/transcripts/{transcript_id}", { params: { path: { transcript_id: id } } });
      // No transcript_format asked: the answer is the default (text) form.
      const t = data as Schemas["GetTranscriptWithText"] | undefined;
      return t && statuses.includes(t.status) ? t : null;
    },
    { timeoutMs, intervalMs: 1000, message: `transcript ${id} reached ${statuses.join(" or ")}` },
  );
}
