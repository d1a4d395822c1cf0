// A meeting on platform A (Daily) end to end through HTTP with the Daily simulator: create the room
// and meeting, join with a token, participants arrive and leave (signed webhooks), the session ends
// and deactivates the meeting, and the recording becomes a recording.available event with the
// participants' tracks, their offsets and names.
import { ok, type ScribeClient } from "@scribe/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { onRoomMeeting, onRoomName } from "./support/api";
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
let bob: ScribeClient;
let anon: ScribeClient;

beforeAll(async () => {
  sys = await startPlatformSystem({ label: "mtgdaily" });
  alice = sys.client("alice");
  bob = sys.client("bob");
  anon = sys.client(null);
});
afterAll(async () => sys?.stop());

describe("a Daily meeting end to end", () => {
  it("runs from creation through participants and the session's end to recording.available with the tracks", async () => {
    await roomWithMeetings(sys.client("alice"), { name: "standup", store_video: true });

    // Create: a Daily room per meeting, named after the room with a UTC timestamp.
    const meeting = await createMeeting(alice, "standup");
    expect(meeting).toMatchObject({ platform: "daily", is_active: true, room_mode: "normal", recording_type: "cloud", store_video: true });
    expect(meeting.room_name).toMatch(/^standup-\d{14}$/);
    const simRoom = sys.daily.rooms.get(meeting.room_name)!;
    expect(simRoom.id).toBe(meeting.id);
    expect(simRoom.properties).toMatchObject({ enable_chat: true, enable_knocking: false });
    expect(simRoom.properties.recordings_bucket).toMatchObject({ bucket_name: sys.daily.bucket, allow_api_access: true });

    // Joining signed in returns the room URL with a meeting token carrying the user id.
    const aliceView = await ok(
      alice.POST("/v1/rooms/{room_name}/meetings/{meeting_id}/join", {
        params: { path: { room_name: "standup", meeting_id: meeting.id }, query: { display_name: "Alice" } },
      }),
    );
    const token = new URL(aliceView.room_url).searchParams.get("t");
    expect(token).toBeTruthy();
    expect(sys.daily.tokens.at(-1)).toMatchObject({ room_name: meeting.room_name, user_id: "alice", user_name: "Alice", is_owner: true });

    // Participants arrive: signed webhooks, participant records (alice's with her user id).
    const a = await sys.daily.join(meeting.room_name, { userName: "Alice", userId: "alice" });
    const b = await sys.daily.join(meeting.room_name, { userName: "Bob" });
    expect([a.webhook.status, b.webhook.status]).toEqual([200, 200]);
    const during = await readMeeting(alice, "standup", meeting.id);
    expect(during).toMatchObject({ is_active: true, num_clients: 2 });

    // They leave; the last one out ends the session, which deactivates the meeting.
    await sys.daily.leave(meeting.room_name, b.participant.id);
    const last = await sys.daily.leave(meeting.room_name, a.participant.id);
    expect(last.ended?.status).toBe(200);
    const after = await readMeeting(alice, "standup", meeting.id);
    expect(after).toMatchObject({ is_active: false, num_clients: 0 });
    expect(await ok(alice.GET("/v1/rooms/{room_name}/meetings/active", onRoomName("standup")))).toEqual([]);

    // The recording: one WebM/Opus track per participant, the second starting 1.5 s in.
    const rec = await sys.daily.finishRecording({
      roomName: meeting.room_name,
      tracks: [
        { participantName: "Alice", userId: "alice", startOffsetSeconds: 0 },
        { participantName: "Bob", startOffsetSeconds: 1.5 },
      ],
      video: true,
    });
    expect(rec.webhook.status).toBe(200);
    for (const t of rec.tracks) expect(await sys.daily.storage.head(t.key)).toMatchObject({ size: t.size });

    const events = await meetingEventsUntil(sys, meeting.id, "recording.available");
    expect(events.map((e) => e.type)).toEqual(RECORDED_MEETING_EVENTS);
    const joinedEvents = events.filter((e) => e.type === "meeting.participant.joined").map((e) => e.data);
    expect(joinedEvents).toEqual([
      expect.objectContaining({ name: "Alice", user_id: "alice", session_id: a.participant.id, left_at: null }),
      // Bob joined as a guest: Daily's user id for him is his session id, which is not a Scribe user.
      expect.objectContaining({ name: "Bob", user_id: null, session_id: b.participant.id }),
    ]);
    expect(events.find((e) => e.type === "meeting.deactivated")!.data).toMatchObject({
      is_active: false,
      deactivation_reason: "session_ended",
    });

    const available = events.find((e) => e.type === "recording.available")!.data;
    expect(available).toMatchObject({
      recording_id: rec.recordingId,
      meeting_id: meeting.id,
      room_name: "standup",
      room_owner_id: "alice",
      platform: "daily",
      kind: "multitrack",
      bucket: sys.daily.bucket,
      store_video: true,
      file: null,
    });
    const tracks = available.tracks as Record<string, unknown>[];
    expect(tracks).toEqual([
      {
        key: rec.tracks[0]!.key,
        kind: "audio",
        start_offset_seconds: 0,
        participant_id: a.participant.id,
        participant_name: "Alice",
        user_id: "alice",
        size: rec.tracks[0]!.size,
      },
      expect.objectContaining({ kind: "video", participant_id: a.participant.id }),
      {
        key: rec.tracks[2]!.key,
        kind: "audio",
        start_offset_seconds: 1.5,
        participant_id: b.participant.id,
        participant_name: "Bob",
        user_id: null,
        size: rec.tracks[2]!.size,
      },
      expect.objectContaining({ kind: "video", participant_id: b.participant.id }),
    ]);
    expect(available.participants).toEqual([
      { participant_id: a.participant.id, name: "Alice", user_id: "alice" },
      { participant_id: b.participant.id, name: "Bob", user_id: null },
    ]);
  });

  it("names every recorded participant, also when the recording is all the simulator is asked for", async () => {
    await roomWithMeetings(sys.client("alice"), { name: "speech-only" });
    const meeting = await createMeeting(alice, "speech-only");
    const rec = await sys.daily.finishRecording({
      roomName: meeting.room_name,
      tracks: [{ participantName: "Grace", startOffsetSeconds: 0.25 }],
    });
    const events = await meetingEventsUntil(sys, meeting.id, "recording.available");
    const available = events.at(-1)!.data;
    expect(available.tracks).toEqual([
      expect.objectContaining({ key: rec.tracks[0]!.key, participant_name: "Grace", start_offset_seconds: 0.25 }),
    ]);
    expect(available.participants).toEqual([{ participant_id: rec.tracks[0]!.participantId, name: "Grace", user_id: null }]);
  });

  it("deactivates a used meeting at the next processing round once everyone left (no meeting.ended needed)", async () => {
    await roomWithMeetings(sys.client("bob"), { name: "no-end-signal" });
    const meeting = await createMeeting(bob, "no-end-signal");
    // Someone joins, but the webhook is lost: presence tells the job about them.
    const room = sys.daily.rooms.get(meeting.room_name)!;
    room.participants.push({ id: crypto.randomUUID(), userId: "x", userName: "Carol", joinedAt: Date.now(), leftAt: null });
    let round = await sys.processMeetings();
    expect(round.processed).toContain(meeting.id);
    expect(round.deactivated).not.toContain(meeting.id);
    const seen = await readMeeting(bob, "no-end-signal", meeting.id);
    expect(seen).toMatchObject({ is_active: true, num_clients: 1 });

    // Carol leaves without any webhook: presence is empty at the next round, the meeting was used.
    room.participants[0]!.leftAt = Date.now();
    round = await sys.processMeetings();
    expect(round.deactivated).toContain(meeting.id);
    const events = await meetingEventsUntil(sys, meeting.id, "meeting.deactivated");
    expect(events.map((e) => e.type)).toEqual([
      "meeting.created",
      "meeting.participant.joined",
      "meeting.participant.left",
      "meeting.deactivated",
    ]);
    expect(events.at(-1)!.data).toMatchObject({ deactivation_reason: "everyone_left" });
  });

  it("treats a room the platform no longer knows as empty", async () => {
    await roomWithMeetings(sys.client("bob"), { name: "expired-room" });
    const meeting = await createMeeting(bob, "expired-room");
    await sys.daily.join(meeting.room_name, { userName: "Dan" });
    // Daily removed the room at its exp without telling anyone: the open stay must still close.
    sys.daily.expireRoom(meeting.room_name);
    const round = await sys.processMeetings();
    expect(round.deactivated).toContain(meeting.id);
    expect(round.failed).not.toContain(meeting.id);
  });

  it("lets anonymous callers join with the stored room URL (no token) and hides the host URL", async () => {
    await roomWithMeetings(sys.client("alice"), { name: "guests-welcome" });
    const meeting = await createMeeting(alice, "guests-welcome");
    const tokensBefore = sys.daily.tokens.length;
    const view = await ok(anon.POST("/v1/rooms/{room_name}/meetings/{meeting_id}/join", onRoomMeeting("guests-welcome", meeting.id)));
    expect(view.room_url).toBe(meeting.room_url);
    expect(view.host_room_url).toBe("");
    expect(sys.daily.tokens.length).toBe(tokensBefore);
  });
});
