// A meeting on platform B (Whereby) end to end through HTTP with the Whereby simulator: participants
// arrive and leave (signed webhooks), the room session ends and deactivates the meeting, and the one
// recording file becomes a recording.available event.
import { startWherebySimulator } from "@scribe/simulators";
import type { ScribeClient } from "@scribe/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answer, onRoomName } from "./support/api";
import {
  RECORDED_MEETING_EVENTS,
  createMeeting,
  meetingEventsUntil,
  readMeeting,
  roomWithMeetings,
  startPlatformSystem,
  type PlatformSystem,
} from "./support/platforms";

let sys: PlatformSystem;
let alice: ScribeClient;

beforeAll(async () => {
  sys = await startPlatformSystem({ label: "mtgwhereby", whereby: { endSessionWhenEmpty: true } });
  alice = sys.client("alice");
});
afterAll(async () => sys?.stop());

describe("a Whereby meeting end to end", () => {
  it("runs from creation through participants and the session's end to recording.available with one file", async () => {
    await roomWithMeetings(sys.client("alice"), { name: "retro", platform: "whereby" });
    const meeting = await createMeeting(alice, "retro");
    expect(meeting).toMatchObject({ platform: "whereby", is_active: true });
    expect(meeting.host_room_url).toContain("roomKey=");

    const zoe = await sys.whereby.join(meeting.id, { displayName: "Zoë" });
    const yann = await sys.whereby.join(meeting.id, { displayName: "Yann" });
    expect([zoe.webhook.status, yann.webhook.status]).toEqual([200, 200]);
    expect((await readMeeting(alice, "retro", meeting.id)).num_clients).toBe(2);

    await sys.whereby.leave(meeting.id, zoe.participantId);
    const last = await sys.whereby.leave(meeting.id, yann.participantId);
    expect(last.ended?.status).toBe(200);
    expect(await readMeeting(alice, "retro", meeting.id)).toMatchObject({ is_active: false, num_clients: 0 });

    const rec = await sys.whereby.finishRecording({ meetingId: meeting.id });
    expect(rec.webhook.status).toBe(200);
    expect(await sys.whereby.storage.head(rec.key)).toMatchObject({ size: rec.size });

    const events = await meetingEventsUntil(sys, meeting.id, "recording.available");
    expect(events.map((e) => e.type)).toEqual(RECORDED_MEETING_EVENTS);
    expect(events.find((e) => e.type === "meeting.deactivated")!.data.deactivation_reason).toBe("session_ended");
    expect(events.find((e) => e.type === "recording.available")!.data).toMatchObject({
      recording_id: rec.recordingId,
      meeting_id: meeting.id,
      room_name: "retro",
      platform: "whereby",
      kind: "file",
      bucket: sys.whereby.bucket,
      tracks: [],
      file: { key: rec.key, size: rec.size },
      store_video: false,
      participants: [
        { participant_id: zoe.participantId, name: "Zoë", user_id: null },
        { participant_id: yann.participantId, name: "Yann", user_id: null },
      ],
    });
  });

  it("deactivates from room sessions when the webhooks were missed, at the next processing round", async () => {
    await roomWithMeetings(sys.client("alice"), { name: "quiet", platform: "whereby" });
    const meeting = await createMeeting(alice, "quiet");
    const sim = sys.whereby.meetings.get(meeting.id)!;
    sim.sessions.push({ roomSessionId: "s-1", startedAt: new Date().toISOString(), endedAt: null });
    expect((await sys.processMeetings()).deactivated).not.toContain(meeting.id);
    sim.sessions[0]!.endedAt = new Date().toISOString();
    expect((await sys.processMeetings()).deactivated).toContain(meeting.id);
    const events = await meetingEventsUntil(sys, meeting.id, "meeting.deactivated");
    expect(events.at(-1)!.data.deactivation_reason).toBe("everyone_left");
  });

  it("keeps a never-used meeting through the join window, then deactivates it", async () => {
    await roomWithMeetings(sys.client("alice"), { name: "unused", platform: "whereby" });
    const meeting = await createMeeting(alice, "unused");
    const created = Date.now();
    expect((await sys.processMeetings({ now: new Date(created + 60_000) })).deactivated).not.toContain(meeting.id);
    expect((await sys.processMeetings({ now: new Date(created + 301_000) })).deactivated).toContain(meeting.id);
  });

  // Last in this file: it replaces the platform with a restarted one whose ids repeat.
  it("answers 409 when the platform hands out a meeting id Scribe already stores (a platform restart)", async () => {
    await roomWithMeetings(sys.client("alice"), { name: "restarted", platform: "whereby" });
    const first = await createMeeting(alice, "restarted", { allow_duplicated: true });
    const { port } = new URL(sys.whereby.url);
    await sys.whereby.close();
    const again = await startWherebySimulator({
      storage: sys.storage,
      port: Number(port),
      apiKey: sys.whereby.apiKey,
      webhookSecret: sys.whereby.webhookSecret,
      firstMeetingId: Number(first.id),
    });
    try {
      expect(
        await answer(alice.POST("/v1/rooms/{room_name}/meeting", { ...onRoomName("restarted"), body: { allow_duplicated: true } })),
      ).toEqual({ status: 409, body: { detail: `The whereby meeting ${first.id} already exists` } });
    } finally {
      await again.close();
    }
  });
});

describe("the Whereby simulator", () => {
  it("hands out meeting ids that stay unique across restarts", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const sim = await startWherebySimulator({ storage: sys.storage });
      try {
        // Raw: the simulator's own API (Whereby's), not Scribe's.
        const res = await fetch(`${sim.url}/meetings`, {
          method: "POST",
          headers: { authorization: `Bearer ${sim.apiKey}`, "content-type": "application/json" },
          body: JSON.stringify({ endDate: new Date(Date.now() + 3600_000).toISOString() }),
        });
        ids.push(((await res.json()) as { meetingId: string }).meetingId);
      } finally {
        await sim.close();
      }
    }
    expect(ids[0]).not.toBe(ids[1]);
  });
});
