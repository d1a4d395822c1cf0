// A meeting on platform A (Daily) end to end through HTTP with the Daily simulator: create the room
// and meeting, join with a token, participants arrive and leave (signed webhooks), the session ends
// and deactivates the meeting, and the recording becomes a recording.available event with the
// participants' tracks, their offsets and names.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  RECORDED_MEETING_EVENTS,
  meetingEventsUntil,
  post,
  roomWithMeetings,
  startPlatformSystem,
  type PlatformSystem,
} from "./support/platforms";
import type { Client } from "./support/system";

let sys: PlatformSystem;
let alice: Client;
let bob: Client;
let anon: Client;

beforeAll(async () => {
  sys = await startPlatformSystem({ label: "mtgdaily" });
  alice = sys.as("alice");
  bob = sys.as("bob");
  anon = sys.as(null);
});
afterAll(async () => sys?.stop());

describe("a Daily meeting end to end", () => {
  it("runs from creation through participants and the session's end to recording.available with the tracks", async () => {
    await roomWithMeetings(sys.client("alice"), { name: "standup", store_video: true });

    // Create: a Daily room per meeting, named after the room with a UTC timestamp.
    const created = await alice("/v1/rooms/standup/meeting", post({}));
    expect(created.status).toBe(200);
    const meeting = await created.json();
    expect(meeting).toMatchObject({ platform: "daily", is_active: true, room_mode: "normal", recording_type: "cloud", store_video: true });
    expect(meeting.room_name).toMatch(/^standup-\d{14}$/);
    const simRoom = sys.daily.rooms.get(meeting.room_name)!;
    expect(simRoom.id).toBe(meeting.id);
    expect(simRoom.properties).toMatchObject({ enable_chat: true, enable_knocking: false });
    expect(simRoom.properties.recordings_bucket).toMatchObject({ bucket_name: sys.daily.bucket, allow_api_access: true });

    // Joining signed in returns the room URL with a meeting token carrying the user id.
    const joined = await alice(`/v1/rooms/standup/meetings/${meeting.id}/join?display_name=Alice`, { method: "POST" });
    expect(joined.status).toBe(200);
    const aliceView = await joined.json();
    const token = new URL(aliceView.room_url).searchParams.get("t");
    expect(token).toBeTruthy();
    expect(sys.daily.tokens.at(-1)).toMatchObject({ room_name: meeting.room_name, user_id: "alice", user_name: "Alice", is_owner: true });

    // Participants arrive: signed webhooks, participant records (alice's with her user id).
    const a = await sys.daily.join(meeting.room_name, { userName: "Alice", userId: "alice" });
    const b = await sys.daily.join(meeting.room_name, { userName: "Bob" });
    expect([a.webhook.status, b.webhook.status]).toEqual([200, 200]);
    const during = await (await alice(`/v1/rooms/standup/meetings/${meeting.id}`)).json();
    expect(during).toMatchObject({ is_active: true, num_clients: 2 });

    // They leave; the last one out ends the session, which deactivates the meeting.
    await sys.daily.leave(meeting.room_name, b.participant.id);
    const last = await sys.daily.leave(meeting.room_name, a.participant.id);
    expect(last.ended?.status).toBe(200);
    const after = await (await alice(`/v1/rooms/standup/meetings/${meeting.id}`)).json();
    expect(after).toMatchObject({ is_active: false, num_clients: 0 });
    expect(await (await alice("/v1/rooms/standup/meetings/active")).json()).toEqual([]);

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
    const meeting = await (await alice("/v1/rooms/speech-only/meeting", post({}))).json();
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
    const meeting = await (await bob("/v1/rooms/no-end-signal/meeting", post({}))).json();
    // Someone joins, but the webhook is lost: presence tells the job about them.
    const room = sys.daily.rooms.get(meeting.room_name)!;
    room.participants.push({ id: crypto.randomUUID(), userId: "x", userName: "Carol", joinedAt: Date.now(), leftAt: null });
    let round = await sys.processMeetings();
    expect(round.processed).toContain(meeting.id);
    expect(round.deactivated).not.toContain(meeting.id);
    const seen = await (await bob(`/v1/rooms/no-end-signal/meetings/${meeting.id}`)).json();
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
    const meeting = await (await bob("/v1/rooms/expired-room/meeting", post({}))).json();
    await sys.daily.join(meeting.room_name, { userName: "Dan" });
    // Daily removed the room at its exp without telling anyone: the open stay must still close.
    sys.daily.expireRoom(meeting.room_name);
    const round = await sys.processMeetings();
    expect(round.deactivated).toContain(meeting.id);
    expect(round.failed).not.toContain(meeting.id);
  });

  it("lets anonymous callers join with the stored room URL (no token) and hides the host URL", async () => {
    await roomWithMeetings(sys.client("alice"), { name: "guests-welcome" });
    const meeting = await (await alice("/v1/rooms/guests-welcome/meeting", post({}))).json();
    const tokensBefore = sys.daily.tokens.length;
    const res = await anon(`/v1/rooms/guests-welcome/meetings/${meeting.id}/join`, { method: "POST" });
    expect(res.status).toBe(200);
    const view = await res.json();
    expect(view.room_url).toBe(meeting.room_url);
    expect(view.host_room_url).toBe("");
    expect(sys.daily.tokens.length).toBe(tokensBefore);
  });
});
