// The meeting operations of api.md (§2.5 create meeting, §2.7 room meetings, §2.8 meetings by id)
// through HTTP, with the behaviour §11 scenarios that apply: several active meetings, reuse,
// join tokens, host-URL hiding, deactivation, consent, e-mail recipients, start recording, the
// exact 4xx texts; and the calendar branch's operation over request/reply.
import { randomUUID } from "node:crypto";
import { meetingsOps, type Caller } from "@scribe/contracts";
import { connectBus, rpcCall, type Bus } from "@scribe/kit";
import { TEST_NATS_URL, eventually } from "@scribe/kit/testing";
import postgres from "postgres";
import { ok, type Schemas, type ScribeClient } from "@scribe/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answer, onMeeting, onRoom, onRoomMeeting, onRoomName } from "./support/api";
import {
  createMeeting,
  meetingEvents,
  meetingEventsUntil,
  roomWithMeetings,
  startPlatformSystem,
  type PlatformSystem,
} from "./support/platforms";

let sys: PlatformSystem;
let bus: Bus;
let alice: ScribeClient;
let bob: ScribeClient;
let anon: ScribeClient;
const INTERNAL: Caller = { userId: null, email: null, via: "internal" };

beforeAll(async () => {
  sys = await startPlatformSystem({ label: "mtgapi" });
  bus = await connectBus({ url: TEST_NATS_URL, prefix: sys.prefix, name: "test-calendar" });
  alice = sys.client("alice");
  bob = sys.client("bob");
  anon = sys.client(null);
});
afterAll(async () => {
  await bus?.close();
  await sys?.stop();
});

const meetingEventsOf = (meetingId: string) => meetingEvents(sys, meetingId);
const activeMeetings = (as: ScribeClient, room: string) => as.GET("/v1/rooms/{room_name}/meetings/active", onRoomName(room));
const getMeeting = (as: ScribeClient, room: string, meetingId: string) =>
  as.GET("/v1/rooms/{room_name}/meetings/{meeting_id}", onRoomMeeting(room, meetingId));
const join = (as: ScribeClient, room: string, meetingId: string) =>
  as.POST("/v1/rooms/{room_name}/meetings/{meeting_id}/join", onRoomMeeting(room, meetingId));
const deactivate = (as: ScribeClient, meetingId: string) => as.PATCH("/v1/meetings/{meeting_id}/deactivate", onMeeting(meetingId));
const consent = (as: ScribeClient, meetingId: string, body: Schemas["MeetingConsentRequest"]) =>
  as.POST("/v1/meetings/{meeting_id}/consent", { ...onMeeting(meetingId), body });
const addRecipient = (as: ScribeClient, meetingId: string, email: string) =>
  as.POST("/v1/meetings/{meeting_id}/email-recipient", { ...onMeeting(meetingId), body: { email } });
const startRecording = (as: ScribeClient, meetingId: string, body: Schemas["StartRecordingRequest"]) =>
  as.POST("/v1/meetings/{meeting_id}/recordings/start", { ...onMeeting(meetingId), body });
/** A body the contract refuses (a wrong value or a missing field), sent through the typed client all the same. */
const refusedBody = (body: Record<string, unknown>) => body as never;

async function joinAs(as: ScribeClient, room: string, meetingId: string) {
  await ok(join(as, room, meetingId));
}

describe("creating and listing meetings", () => {
  it("answers 404 'Room not found' for an unknown room on every room-meeting operation", async () => {
    const calls: (() => Promise<{ data?: unknown; error?: unknown; response: Response }>)[] = [
      () => alice.POST("/v1/rooms/{room_name}/meeting", { ...onRoomName("nowhere"), body: {} }),
      () => activeMeetings(alice, "nowhere"),
      () => getMeeting(alice, "nowhere", "some-id"),
      () => join(alice, "nowhere", "some-id"),
    ];
    for (const call of calls) expect(await answer(call())).toEqual({ status: 404, body: { detail: "Room not found" } });
  });

  it("reuses the room's active meeting unless duplicates are asked for, and lists every active meeting", async () => {
    await roomWithMeetings(sys.client("alice"), { name: "multi" });
    const first = await createMeeting(bob, "multi");
    const again = await createMeeting(anon, "multi", { allow_duplicated: false });
    expect(again.id).toBe(first.id);
    const second = await createMeeting(alice, "multi", { allow_duplicated: true });
    expect(second.id).not.toBe(first.id);
    const active = await ok(activeMeetings(anon, "multi"));
    expect(active.map((m) => m.id)).toEqual([second.id, first.id]);
  });

  it("starts a new meeting when the room's settings changed, leaving the old one active", async () => {
    const room = await roomWithMeetings(sys.client("alice"), { name: "changing" });
    const before = await createMeeting(alice, "changing");
    await ok(alice.PATCH("/v1/rooms/{room_id}", { ...onRoom(room.id), body: { room_mode: "group" } }));
    const after = await eventually(
      async () => {
        const m = await createMeeting(alice, "changing");
        return m.id !== before.id ? m : null;
      },
      { message: "room update reached the meetings service" },
    );
    expect(after.room_mode).toBe("group");
    const ids = (await ok(activeMeetings(alice, "changing"))).map((m) => m.id);
    expect(ids).toEqual(expect.arrayContaining([before.id, after.id]));
  });

  it("creates the meeting on the room's platform and refuses a platform Scribe does not offer", async () => {
    await roomWithMeetings(sys.client("alice"), { name: "on-whereby", platform: "whereby", is_locked: true, recording_trigger: "prompt" });
    const m = await createMeeting(alice, "on-whereby");
    expect(m).toMatchObject({ platform: "whereby", is_locked: true, recording_trigger: "prompt" });
    expect(m.room_name).toMatch(/^\/on-whereby-/);
    expect(sys.whereby.meetings.get(m.id)?.request).toMatchObject({
      isLocked: true,
      roomNamePrefix: "on-whereby-",
      roomNamePattern: "uuid",
      fields: ["hostRoomUrl"],
      recording: { type: "cloud", startTrigger: "prompt", destination: { provider: "s3", bucket: sys.whereby.bucket } },
    });
    await roomWithMeetings(sys.client("alice"), { name: "on-livekit", platform: "livekit" });
    expect(await answer(alice.POST("/v1/rooms/{room_name}/meeting", { ...onRoomName("on-livekit"), body: {} }))).toEqual({
      status: 400,
      body: { detail: "Video platform livekit is not supported" },
    });
  });

  it("gets a meeting only through its own room", async () => {
    await roomWithMeetings(sys.client("alice"), { name: "room-one" });
    await roomWithMeetings(sys.client("alice"), { name: "room-two" });
    const m = await createMeeting(alice, "room-one");
    await ok(getMeeting(alice, "room-one", m.id));
    expect(await answer(getMeeting(alice, "room-two", m.id))).toEqual({ status: 404, body: { detail: "Meeting not found" } });
    expect((await getMeeting(alice, "room-one", "no-such-meeting")).response.status).toBe(404);
  });
});

describe("host URLs and joining", () => {
  it("shows the host URL to the room owner only, on every meeting response, shared room or not", async () => {
    await roomWithMeetings(sys.client("alice"), { name: "hosted", platform: "whereby", is_shared: true });
    const owner = await createMeeting(alice, "hosted");
    expect(owner.host_room_url).toContain("roomKey=");
    const forBob = await createMeeting(bob, "hosted");
    expect(forBob.id).toBe(owner.id);
    expect(forBob.host_room_url).toBe("");
    for (const [who, expected] of [
      [alice, owner.host_room_url],
      [bob, ""],
      [anon, ""],
    ] as const) {
      expect((await ok(getMeeting(who, "hosted", owner.id))).host_room_url).toBe(expected);
      expect((await ok(activeMeetings(who, "hosted")))[0]!.host_room_url).toBe(expected);
      const joined = await ok(join(who, "hosted", owner.id));
      expect(joined.host_room_url).toBe(expected);
      // Whereby needs no token: everyone joins with the room URL.
      expect(joined.room_url).toBe(owner.room_url);
    }
  });

  it("creates Daily meeting tokens in the service: owner flag, user id, recording UI when consent is skipped", async () => {
    await roomWithMeetings(sys.client("alice"), { name: "tokens", skip_consent: true });
    const m = await createMeeting(alice, "tokens");
    const asBob = await ok(
      bob.POST("/v1/rooms/{room_name}/meetings/{meeting_id}/join", {
        params: { path: { room_name: "tokens", meeting_id: m.id }, query: { display_name: "Bobby" } },
      }),
    );
    expect(new URL(asBob.room_url).searchParams.get("t")).toBeTruthy();
    expect(sys.daily.tokens.at(-1)).toEqual({
      room_name: m.room_name,
      user_id: "bob",
      user_name: "Bobby",
      is_owner: false,
      enable_recording_ui: true,
      eject_at_token_exp: false,
    });
    await ok(join(alice, "tokens", m.id));
    expect(sys.daily.tokens.at(-1)).toMatchObject({ user_id: "alice", is_owner: true });
  });

  it("refuses to join an inactive meeting (400) and an ended one (400)", async () => {
    const room = await roomWithMeetings(sys.client("alice"), { name: "closed" });
    const m = await createMeeting(alice, "closed");
    await ok(deactivate(alice, m.id));
    expect(await answer(join(bob, "closed", m.id))).toEqual({ status: 400, body: { detail: "Meeting is not active" } });

    const start = new Date(Date.now() - 9 * 3600_000);
    const ended = await rpcCall(bus, meetingsOps.createCalendarMeeting, {
      caller: INTERNAL,
      room_id: room.id,
      calendar_event: {
        id: randomUUID(),
        ics_uid: "old",
        title: "Yesterday",
        description: null,
        attendees: [],
        start: start.toISOString(),
        end: new Date(start.getTime() + 3600_000).toISOString(),
      },
    });
    expect(await answer(join(bob, "closed", ended.id))).toEqual({ status: 400, body: { detail: "Meeting has ended" } });
  });
});

describe("deactivating", () => {
  it("lets only the room owner deactivate, answers the reference's texts, and never reactivates", async () => {
    await roomWithMeetings(sys.client("alice"), { name: "deact" });
    const m = await createMeeting(alice, "deact");
    expect(await answer(deactivate(anon, m.id))).toEqual({ status: 401, body: { detail: "Not authenticated" } });
    expect(await answer(deactivate(bob, m.id))).toEqual({ status: 403, body: { detail: "Only the room owner can deactivate meetings" } });
    expect(await answer(deactivate(alice, "no-such-meeting"))).toEqual({ status: 404, body: { detail: "Meeting not found" } });

    expect(await answer(deactivate(alice, m.id))).toEqual({ status: 200, body: { status: "success", meeting_id: m.id } });
    // Already inactive: success for anyone signed in, nothing changes.
    await ok(deactivate(bob, m.id));
    expect(await ok(activeMeetings(alice, "deact"))).toEqual([]);
    const next = await createMeeting(alice, "deact");
    expect(next.id).not.toBe(m.id);
    expect((await ok(getMeeting(alice, "deact", m.id))).is_active).toBe(false);
    const deactivated = (await meetingEventsOf(m.id)).filter((e) => e.type === "meeting.deactivated");
    expect(deactivated.map((e) => e.data.deactivation_reason)).toEqual(["owner"]);
  });
});

describe("consent", () => {
  it("keeps one record per signed-in user (overwritten) and a new record per anonymous answer, also after the meeting ended", async () => {
    await roomWithMeetings(sys.client("alice"), { name: "consenting" });
    const m = await createMeeting(alice, "consenting");
    await joinAs(bob, "consenting", m.id);
    await sys.daily.join(m.room_name, { userName: "Guest" });
    const c1 = await ok(consent(bob, m.id, { consent_given: true }));
    const c2 = await ok(consent(bob, m.id, { consent_given: false }));
    expect(c1).toEqual({ status: "success", consent_id: expect.any(String) });
    expect(c2.consent_id).toBe(c1.consent_id);
    await ok(deactivate(alice, m.id));
    const a1 = await ok(consent(anon, m.id, { consent_given: true }));
    const a2 = await ok(consent(anon, m.id, { consent_given: true }));
    expect(new Set([c1.consent_id, a1.consent_id, a2.consent_id]).size).toBe(3);

    const events = await eventually(async () => {
      const evs = (await meetingEventsOf(m.id)).filter((e) => e.type.startsWith("meeting.consent."));
      return evs.length === 4 ? evs : null;
    });
    expect(events.map((e) => [e.type, e.data.user_id, e.data.consent_given, e.data.any_denial])).toEqual([
      ["meeting.consent.given", "bob", true, false],
      ["meeting.consent.withdrawn", "bob", false, true],
      ["meeting.consent.given", null, true, true],
      ["meeting.consent.given", null, true, true],
    ]);
    expect(events[0]!.data).toMatchObject({ meeting_id: m.id, skip_consent: false });
  });

  it("refuses answers from callers who did not join: a stranger's 'no' neither counts nor is recorded", async () => {
    await roomWithMeetings(sys.client("alice"), { name: "consent-strangers" });
    const m = await createMeeting(alice, "consent-strangers");
    for (const stranger of [bob, anon]) {
      expect(await answer(consent(stranger, m.id, { consent_given: false }))).toEqual({
        status: 403,
        body: { detail: "Only participants of the meeting can answer the consent question" },
      });
    }
    // The room's owner answers without joining; the events say nobody denied.
    await ok(consent(alice, m.id, { consent_given: true }));
    const events = await eventually(async () => {
      const evs = (await meetingEventsOf(m.id)).filter((e) => e.type.startsWith("meeting.consent."));
      return evs.length > 0 ? evs : null;
    });
    expect(events.map((e) => [e.data.user_id, e.data.any_denial])).toEqual([["alice", false]]);
  });

  it("answers 404 for an unknown meeting and 422 for a body without consent_given", async () => {
    expect(await answer(consent(anon, "no-such-meeting", { consent_given: true }))).toEqual({
      status: 404,
      body: { detail: "Meeting not found" },
    });
    expect((await consent(anon, "x", refusedBody({}))).response.status).toBe(422);
  });
});

describe("e-mail recipients", () => {
  it("adds each address once, with the transcript link only for signed-in callers", async () => {
    await roomWithMeetings(sys.client("alice"), { name: "mailing" });
    const m = await createMeeting(alice, "mailing");
    await joinAs(bob, "mailing", m.id);
    await sys.daily.join(m.room_name, { userName: "Guest" });
    const first = await ok(addRecipient(anon, m.id, "guest@example.com"));
    expect(first).toEqual({ status: "success", email_recipients: [{ email: "guest@example.com", include_link: false }] });
    const second = await ok(addRecipient(bob, m.id, "bob@example.com"));
    expect(second.email_recipients).toEqual([
      { email: "guest@example.com", include_link: false },
      { email: "bob@example.com", include_link: true },
    ]);
    const dup = await ok(addRecipient(bob, m.id, "guest@example.com"));
    expect(dup.email_recipients).toEqual(second.email_recipients);
    expect((await addRecipient(anon, m.id, "not-an-address")).response.status).toBe(422);
    expect((await addRecipient(anon, "no-such-meeting", "x@example.com")).response.status).toBe(404);
    const added = await eventually(async () => {
      const evs = (await meetingEventsOf(m.id)).filter((e) => e.type === "meeting.email_recipient.added");
      return evs.length === 2 ? evs : null;
    });
    expect(added[1]!.data).toMatchObject({
      recipient: { email: "bob@example.com", include_link: true },
      meeting: { id: m.id, email_recipients: second.email_recipients },
    });
  });
});

describe("e-mail recipients who did not join", () => {
  it("refuses a caller who only knows the room's name, signed in or not, until they join", async () => {
    await roomWithMeetings(sys.client("alice"), { name: "mail-strangers" });
    const m = await createMeeting(alice, "mail-strangers");
    for (const stranger of [bob, anon]) {
      expect(await answer(addRecipient(stranger, m.id, "eve@example.com"))).toEqual({
        status: 403,
        body: { detail: "Only participants of the meeting can add themselves as e-mail recipients" },
      });
    }
    // Joining through Scribe makes a signed-in caller a participant.
    await joinAs(bob, "mail-strangers", m.id);
    const joined = await ok(addRecipient(bob, m.id, "bob@example.com"));
    expect(joined.email_recipients).toEqual([{ email: "bob@example.com", include_link: true }]);
    // Anonymous callers: while a guest is in the call; once the guest left, no longer.
    const guest = await sys.daily.join(m.room_name, { userName: "Guest" });
    await ok(addRecipient(anon, m.id, "guest@example.com"));
    await sys.daily.leave(m.room_name, guest.participant.id);
    expect((await addRecipient(anon, m.id, "late@example.com")).response.status).toBe(403);
  });
});

describe("starting a recording", () => {
  it("starts a Daily recording for anyone, reports an already active one, and explains refusals", async () => {
    await roomWithMeetings(sys.client("alice"), { name: "recorded" });
    const m = await createMeeting(alice, "recorded");
    const instanceId = randomUUID();
    // Daily refused: a bad gateway carrying Daily's reason, not a 500 of ours.
    expect(await answer(startRecording(anon, m.id, { type: "raw-tracks", instanceId }))).toEqual({
      status: 502,
      body: { detail: "Failed to start recording: room does not seem to be hosting a call currently" },
    });

    await sys.daily.join(m.room_name, { userName: "Eve" });
    expect(await ok(startRecording(anon, m.id, { type: "raw-tracks", instanceId }))).toMatchObject({
      status: "ok",
      result: { instanceId },
    });
    expect(await answer(startRecording(anon, m.id, { type: "raw-tracks", instanceId }))).toEqual({
      status: 200,
      body: { status: "already_active", instanceId },
    });

    expect((await startRecording(anon, m.id, refusedBody({ type: "tape", instanceId }))).response.status).toBe(422);
    expect((await startRecording(anon, m.id, { type: "cloud", instanceId: "nope" })).response.status).toBe(422);
    expect((await startRecording(anon, "no-such-meeting", { type: "cloud", instanceId })).response.status).toBe(404);

    await roomWithMeetings(sys.client("alice"), { name: "recorded-b", platform: "whereby" });
    const w = await createMeeting(alice, "recorded-b");
    expect(await answer(startRecording(anon, w.id, { type: "cloud", instanceId }))).toEqual({
      status: 400,
      body: { detail: "Starting a recording is not available for meetings on whereby" },
    });
  });
});

describe("calendar meetings (meetings.create_calendar_meeting, for the calendar service)", () => {
  it("creates one meeting per calendar event, with its metadata, in full for the owner only", async () => {
    const room = await roomWithMeetings(sys.client("alice"), { name: "calendared", platform: "whereby", is_shared: true });
    const start = new Date(Date.now() + 5 * 60_000);
    const event = {
      id: randomUUID(),
      ics_uid: "uid-1@example.com",
      title: "Planning",
      description: "Agenda: budgets",
      attendees: [
        { email: "carol@example.com", name: "Carol", status: "ACCEPTED", role: "REQ-PARTICIPANT" },
        { email: "dan@example.com", status: "DECLINED" },
      ],
      location: "https://scribe.example.com/calendared",
      start: start.toISOString(),
      end: new Date(start.getTime() + 30 * 60_000).toISOString(),
    };
    const made = await rpcCall(bus, meetingsOps.createCalendarMeeting, { caller: INTERNAL, room_id: room.id, calendar_event: event });
    expect(made).toMatchObject({
      calendar_event_id: event.id,
      start_date: start.toISOString(),
      end_date: new Date(start.getTime() + 8 * 3600_000).toISOString(),
      calendar_metadata: {
        title: "Planning",
        description: "Agenda: budgets",
        attendees: event.attendees,
        start_time: event.start,
        end_time: event.end,
      },
    });
    expect(made.host_room_url).not.toBe("");
    const again = await rpcCall(bus, meetingsOps.createCalendarMeeting, { caller: INTERNAL, room_id: room.id, calendar_event: event });
    expect(again.id).toBe(made.id);

    // Listed among the room's active meetings before it starts; details only for the owner.
    const forBob = (await ok(activeMeetings(bob, "calendared"))).find((m) => m.id === made.id);
    expect(forBob?.calendar_metadata).toEqual({
      title: "Planning",
      description: null,
      attendees: null,
      start_time: event.start,
      end_time: event.end,
      ics_uid: "uid-1@example.com",
      location: "https://scribe.example.com/calendared",
    });
    const forAlice = await ok(getMeeting(alice, "calendared", made.id));
    expect(forAlice.calendar_metadata?.attendees).toEqual(event.attendees);
    // The on-the-fly "create" reuses it (it is the room's newest active meeting with the room's settings).
    expect((await createMeeting(bob, "calendared")).id).toBe(made.id);

    // Deactivated, it stays the event's meeting; a user joining again gets a new one, never the old reactivated.
    await ok(deactivate(alice, made.id));
    const stillOld = await rpcCall(bus, meetingsOps.createCalendarMeeting, { caller: INTERNAL, room_id: room.id, calendar_event: event });
    expect(stillOld).toMatchObject({ id: made.id, is_active: false });
    const replaced = await rpcCall(bus, meetingsOps.createCalendarMeeting, {
      caller: INTERNAL,
      room_id: room.id,
      calendar_event: event,
      replace_inactive: true,
    });
    expect(replaced.id).not.toBe(made.id);
    expect(replaced).toMatchObject({ is_active: true, calendar_event_id: event.id });

    await expect(
      rpcCall(bus, meetingsOps.createCalendarMeeting, { caller: INTERNAL, room_id: "no-such-room", calendar_event: event }),
    ).rejects.toMatchObject({ kind: "not_found", detail: "Room not found" });
  });
});

describe("room deletion", () => {
  it("deletes the room's meetings with their consent records and announces each", async () => {
    const room = await roomWithMeetings(sys.client("alice"), { name: "doomed-room" });
    const m = await createMeeting(alice, "doomed-room");
    // The owner may answer without joining (an anonymous stranger would be refused, leaving nothing to delete).
    await ok(consent(alice, m.id, { consent_given: false }));
    await ok(alice.DELETE("/v1/rooms/{room_id}", onRoom(room.id)));
    const events = await meetingEventsUntil(sys, m.id, "meeting.deleted");
    expect(events.at(-1)).toMatchObject({ type: "meeting.deleted", data: { id: m.id, room_id: room.id } });
    const sql = postgres(sys.db.url, { max: 1, onnotice: () => {} });
    try {
      const [left] = await sql`select count(*)::int as n from meetings.meeting_consent where meeting_id = ${m.id}`;
      expect(left!.n).toBe(0);
    } finally {
      await sql.end();
    }
    expect((await consent(anon, m.id, { consent_given: true })).response.status).toBe(404);
    expect((await activeMeetings(alice, "doomed-room")).response.status).toBe(404);
  });
});

describe("OpenAPI", () => {
  it("documents the meeting operations and components with the contract's names", async () => {
    // Raw: the OpenAPI document is not an operation of itself.
    const doc = await (await sys.as(null)("/openapi.json")).json();
    for (const name of [
      "Meeting",
      "CreateRoomMeeting",
      "MeetingConsentRequest",
      "StartRecordingRequest",
      "AddEmailRecipientRequest",
      "WherebyWebhookEvent",
    ]) {
      expect(doc.components.schemas).toHaveProperty(name);
    }
    expect(doc.paths["/v1/rooms/{room_name}/meeting"].post.operationId).toBe("v1_rooms_create_meeting");
    expect(doc.paths["/v1/rooms/{room_name}/meetings/active"].get.operationId).toBe("v1_rooms_list_active_meetings");
    expect(doc.paths["/v1/rooms/{room_name}/meetings/{meeting_id}"].get.operationId).toBe("v1_rooms_get_meeting");
    expect(doc.paths["/v1/rooms/{room_name}/meetings/{meeting_id}/join"].post.operationId).toBe("v1_rooms_join_meeting");
    expect(doc.paths["/v1/meetings/{meeting_id}/consent"].post.operationId).toBe("v1_meeting_audio_consent");
    expect(doc.paths["/v1/meetings/{meeting_id}/deactivate"].patch.operationId).toBe("v1_meeting_deactivate");
    expect(doc.paths["/v1/meetings/{meeting_id}/recordings/start"].post.operationId).toBe("v1_start_recording");
    expect(doc.paths["/v1/meetings/{meeting_id}/email-recipient"].post.operationId).toBe("v1_add_email_recipient");
    expect(doc.paths["/v1/daily/webhook"].post.operationId).toBe("v1_webhook");
    expect(doc.paths["/v1/whereby"].post.operationId).toBe("v1_whereby_webhook");
  });
});
