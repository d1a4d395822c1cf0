// The meeting operations of api.md (§2.5 create meeting, §2.7 room meetings, §2.8 meetings by id)
// through HTTP, with the behaviour §11 scenarios that apply: several active meetings, reuse,
// join tokens, host-URL hiding, deactivation, consent, e-mail recipients, start recording, the
// exact 4xx texts; and the calendar branch's operation over request/reply.
import { randomUUID } from "node:crypto";
import { meetingsOps, type Caller } from "@scribe/contracts";
import { connectBus, rpcCall, type Bus } from "@scribe/kit";
import { TEST_NATS_URL, eventually } from "@scribe/kit/testing";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { meetingEvents, meetingEventsUntil, post, roomWithMeetings, startPlatformSystem, type PlatformSystem } from "./support/platforms";
import type { Client } from "./support/system";

let sys: PlatformSystem;
let bus: Bus;
let alice: Client;
let bob: Client;
let anon: Client;
const INTERNAL: Caller = { userId: null, email: null, via: "internal" };
const patch = (body: unknown): RequestInit => ({ method: "PATCH", body: JSON.stringify(body) });

beforeAll(async () => {
  sys = await startPlatformSystem({ label: "mtgapi" });
  bus = await connectBus({ url: TEST_NATS_URL, prefix: sys.prefix, name: "test-calendar" });
  alice = sys.as("alice");
  bob = sys.as("bob");
  anon = sys.as(null);
});
afterAll(async () => {
  await bus?.close();
  await sys?.stop();
});

const meetingEventsOf = (meetingId: string) => meetingEvents(sys, meetingId);
async function createMeeting(as: Client, room: string, body: Record<string, unknown> = {}) {
  const res = await as(`/v1/rooms/${room}/meeting`, post(body));
  expect(res.status).toBe(200);
  return res.json();
}

async function joinAs(as: Client, room: string, meetingId: string) {
  expect((await as(`/v1/rooms/${room}/meetings/${meetingId}/join`, { method: "POST" })).status).toBe(200);
}

describe("creating and listing meetings", () => {
  it("answers 404 'Room not found' for an unknown room on every room-meeting operation", async () => {
    for (const [path, init] of [
      ["/v1/rooms/nowhere/meeting", post({})],
      ["/v1/rooms/nowhere/meetings/active", {}],
      ["/v1/rooms/nowhere/meetings/some-id", {}],
      ["/v1/rooms/nowhere/meetings/some-id/join", { method: "POST" }],
    ] as const) {
      const res = await alice(path, init);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ detail: "Room not found" });
    }
  });

  it("reuses the room's active meeting unless duplicates are asked for, and lists every active meeting", async () => {
    await roomWithMeetings(sys.client("alice"), { name: "multi" });
    const first = await createMeeting(bob, "multi");
    const again = await createMeeting(anon, "multi", { allow_duplicated: false });
    expect(again.id).toBe(first.id);
    const second = await createMeeting(alice, "multi", { allow_duplicated: true });
    expect(second.id).not.toBe(first.id);
    const active = await (await anon("/v1/rooms/multi/meetings/active")).json();
    expect(active.map((m: { id: string }) => m.id)).toEqual([second.id, first.id]);
  });

  it("starts a new meeting when the room's settings changed, leaving the old one active", async () => {
    const room = await roomWithMeetings(sys.client("alice"), { name: "changing" });
    const before = await createMeeting(alice, "changing");
    expect((await alice(`/v1/rooms/${room.id}`, patch({ room_mode: "group" }))).status).toBe(200);
    const after = await eventually(
      async () => {
        const m = await createMeeting(alice, "changing");
        return m.id !== before.id ? m : null;
      },
      { message: "room update reached the meetings service" },
    );
    expect(after.room_mode).toBe("group");
    const ids = (await (await alice("/v1/rooms/changing/meetings/active")).json()).map((m: { id: string }) => m.id);
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
    const res = await alice("/v1/rooms/on-livekit/meeting", post({}));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ detail: "Video platform livekit is not supported" });
  });

  it("gets a meeting only through its own room", async () => {
    await roomWithMeetings(sys.client("alice"), { name: "room-one" });
    await roomWithMeetings(sys.client("alice"), { name: "room-two" });
    const m = await createMeeting(alice, "room-one");
    expect((await alice(`/v1/rooms/room-one/meetings/${m.id}`)).status).toBe(200);
    const wrongRoom = await alice(`/v1/rooms/room-two/meetings/${m.id}`);
    expect(wrongRoom.status).toBe(404);
    expect(await wrongRoom.json()).toEqual({ detail: "Meeting not found" });
    expect((await alice("/v1/rooms/room-one/meetings/no-such-meeting")).status).toBe(404);
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
      expect((await (await who(`/v1/rooms/hosted/meetings/${owner.id}`)).json()).host_room_url).toBe(expected);
      expect((await (await who("/v1/rooms/hosted/meetings/active")).json())[0].host_room_url).toBe(expected);
      const joined = await (await who(`/v1/rooms/hosted/meetings/${owner.id}/join`, { method: "POST" })).json();
      expect(joined.host_room_url).toBe(expected);
      // Whereby needs no token: everyone joins with the room URL.
      expect(joined.room_url).toBe(owner.room_url);
    }
  });

  it("creates Daily meeting tokens in the service: owner flag, user id, recording UI when consent is skipped", async () => {
    await roomWithMeetings(sys.client("alice"), { name: "tokens", skip_consent: true });
    const m = await createMeeting(alice, "tokens");
    const asBob = await (await bob(`/v1/rooms/tokens/meetings/${m.id}/join?display_name=Bobby`, { method: "POST" })).json();
    expect(new URL(asBob.room_url).searchParams.get("t")).toBeTruthy();
    expect(sys.daily.tokens.at(-1)).toEqual({
      room_name: m.room_name,
      user_id: "bob",
      user_name: "Bobby",
      is_owner: false,
      enable_recording_ui: true,
      eject_at_token_exp: false,
    });
    await alice(`/v1/rooms/tokens/meetings/${m.id}/join`, { method: "POST" });
    expect(sys.daily.tokens.at(-1)).toMatchObject({ user_id: "alice", is_owner: true });
  });

  it("refuses to join an inactive meeting (400) and an ended one (400)", async () => {
    const room = await roomWithMeetings(sys.client("alice"), { name: "closed" });
    const m = await createMeeting(alice, "closed");
    expect((await alice(`/v1/meetings/${m.id}/deactivate`, { method: "PATCH" })).status).toBe(200);
    const inactive = await bob(`/v1/rooms/closed/meetings/${m.id}/join`, { method: "POST" });
    expect(inactive.status).toBe(400);
    expect(await inactive.json()).toEqual({ detail: "Meeting is not active" });

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
    const res = await bob(`/v1/rooms/closed/meetings/${ended.id}/join`, { method: "POST" });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ detail: "Meeting has ended" });
  });
});

describe("deactivating", () => {
  it("lets only the room owner deactivate, answers the reference's texts, and never reactivates", async () => {
    await roomWithMeetings(sys.client("alice"), { name: "deact" });
    const m = await createMeeting(alice, "deact");
    const anonymous = await anon(`/v1/meetings/${m.id}/deactivate`, { method: "PATCH" });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ detail: "Not authenticated" });
    const notOwner = await bob(`/v1/meetings/${m.id}/deactivate`, { method: "PATCH" });
    expect(notOwner.status).toBe(403);
    expect(await notOwner.json()).toEqual({ detail: "Only the room owner can deactivate meetings" });
    const missing = await alice("/v1/meetings/no-such-meeting/deactivate", { method: "PATCH" });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ detail: "Meeting not found" });

    const ok = await alice(`/v1/meetings/${m.id}/deactivate`, { method: "PATCH" });
    expect(await ok.json()).toEqual({ status: "success", meeting_id: m.id });
    // Already inactive: success for anyone signed in, nothing changes.
    expect((await bob(`/v1/meetings/${m.id}/deactivate`, { method: "PATCH" })).status).toBe(200);
    expect(await (await alice("/v1/rooms/deact/meetings/active")).json()).toEqual([]);
    const next = await createMeeting(alice, "deact");
    expect(next.id).not.toBe(m.id);
    expect((await (await alice(`/v1/rooms/deact/meetings/${m.id}`)).json()).is_active).toBe(false);
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
    const c1 = await (await bob(`/v1/meetings/${m.id}/consent`, post({ consent_given: true }))).json();
    const c2 = await (await bob(`/v1/meetings/${m.id}/consent`, post({ consent_given: false }))).json();
    expect(c1).toEqual({ status: "success", consent_id: expect.any(String) });
    expect(c2.consent_id).toBe(c1.consent_id);
    await alice(`/v1/meetings/${m.id}/deactivate`, { method: "PATCH" });
    const a1 = await (await anon(`/v1/meetings/${m.id}/consent`, post({ consent_given: true }))).json();
    const a2 = await (await anon(`/v1/meetings/${m.id}/consent`, post({ consent_given: true }))).json();
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
      const res = await stranger(`/v1/meetings/${m.id}/consent`, post({ consent_given: false }));
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ detail: "Only participants of the meeting can answer the consent question" });
    }
    // The room's owner answers without joining; the events say nobody denied.
    expect((await alice(`/v1/meetings/${m.id}/consent`, post({ consent_given: true }))).status).toBe(200);
    const events = await eventually(async () => {
      const evs = (await meetingEventsOf(m.id)).filter((e) => e.type.startsWith("meeting.consent."));
      return evs.length > 0 ? evs : null;
    });
    expect(events.map((e) => [e.data.user_id, e.data.any_denial])).toEqual([["alice", false]]);
  });

  it("answers 404 for an unknown meeting and 422 for a body without consent_given", async () => {
    const res = await anon("/v1/meetings/no-such-meeting/consent", post({ consent_given: true }));
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ detail: "Meeting not found" });
    expect((await anon("/v1/meetings/x/consent", post({}))).status).toBe(422);
  });
});

describe("e-mail recipients", () => {
  it("adds each address once, with the transcript link only for signed-in callers", async () => {
    await roomWithMeetings(sys.client("alice"), { name: "mailing" });
    const m = await createMeeting(alice, "mailing");
    await joinAs(bob, "mailing", m.id);
    await sys.daily.join(m.room_name, { userName: "Guest" });
    const first = await (await anon(`/v1/meetings/${m.id}/email-recipient`, post({ email: "guest@example.com" }))).json();
    expect(first).toEqual({ status: "success", email_recipients: [{ email: "guest@example.com", include_link: false }] });
    const second = await (await bob(`/v1/meetings/${m.id}/email-recipient`, post({ email: "bob@example.com" }))).json();
    expect(second.email_recipients).toEqual([
      { email: "guest@example.com", include_link: false },
      { email: "bob@example.com", include_link: true },
    ]);
    const dup = await (await bob(`/v1/meetings/${m.id}/email-recipient`, post({ email: "guest@example.com" }))).json();
    expect(dup.email_recipients).toEqual(second.email_recipients);
    expect((await anon(`/v1/meetings/${m.id}/email-recipient`, post({ email: "not-an-address" }))).status).toBe(422);
    expect((await anon("/v1/meetings/no-such-meeting/email-recipient", post({ email: "x@example.com" }))).status).toBe(404);
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
      const res = await stranger(`/v1/meetings/${m.id}/email-recipient`, post({ email: "eve@example.com" }));
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ detail: "Only participants of the meeting can add themselves as e-mail recipients" });
    }
    // Joining through Scribe makes a signed-in caller a participant.
    await joinAs(bob, "mail-strangers", m.id);
    const joined = await bob(`/v1/meetings/${m.id}/email-recipient`, post({ email: "bob@example.com" }));
    expect((await joined.json()).email_recipients).toEqual([{ email: "bob@example.com", include_link: true }]);
    // Anonymous callers: while a guest is in the call; once the guest left, no longer.
    const guest = await sys.daily.join(m.room_name, { userName: "Guest" });
    expect((await anon(`/v1/meetings/${m.id}/email-recipient`, post({ email: "guest@example.com" }))).status).toBe(200);
    await sys.daily.leave(m.room_name, guest.participant.id);
    expect((await anon(`/v1/meetings/${m.id}/email-recipient`, post({ email: "late@example.com" }))).status).toBe(403);
  });
});

describe("starting a recording", () => {
  it("starts a Daily recording for anyone, reports an already active one, and explains refusals", async () => {
    await roomWithMeetings(sys.client("alice"), { name: "recorded" });
    const m = await createMeeting(alice, "recorded");
    const instanceId = randomUUID();
    const idle = await anon(`/v1/meetings/${m.id}/recordings/start`, post({ type: "raw-tracks", instanceId }));
    // Daily refused: a bad gateway carrying Daily's reason, not a 500 of ours.
    expect(idle.status).toBe(502);
    expect(await idle.json()).toEqual({ detail: "Failed to start recording: room does not seem to be hosting a call currently" });

    await sys.daily.join(m.room_name, { userName: "Eve" });
    const started = await anon(`/v1/meetings/${m.id}/recordings/start`, post({ type: "raw-tracks", instanceId }));
    expect(started.status).toBe(200);
    expect(await started.json()).toMatchObject({ status: "ok", result: { instanceId } });
    const again = await anon(`/v1/meetings/${m.id}/recordings/start`, post({ type: "raw-tracks", instanceId }));
    expect(await again.json()).toEqual({ status: "already_active", instanceId });

    expect((await anon(`/v1/meetings/${m.id}/recordings/start`, post({ type: "tape", instanceId }))).status).toBe(422);
    expect((await anon(`/v1/meetings/${m.id}/recordings/start`, post({ type: "cloud", instanceId: "nope" }))).status).toBe(422);
    expect((await anon("/v1/meetings/no-such-meeting/recordings/start", post({ type: "cloud", instanceId }))).status).toBe(404);

    await roomWithMeetings(sys.client("alice"), { name: "recorded-b", platform: "whereby" });
    const w = await createMeeting(alice, "recorded-b");
    const unsupported = await anon(`/v1/meetings/${w.id}/recordings/start`, post({ type: "cloud", instanceId }));
    expect(unsupported.status).toBe(400);
    expect(await unsupported.json()).toEqual({ detail: "Starting a recording is not available for meetings on whereby" });
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
    const forBob = (await (await bob("/v1/rooms/calendared/meetings/active")).json()).find((m: { id: string }) => m.id === made.id);
    expect(forBob.calendar_metadata).toEqual({
      title: "Planning",
      description: null,
      attendees: null,
      start_time: event.start,
      end_time: event.end,
      ics_uid: "uid-1@example.com",
      location: "https://scribe.example.com/calendared",
    });
    const forAlice = await (await alice(`/v1/rooms/calendared/meetings/${made.id}`)).json();
    expect(forAlice.calendar_metadata.attendees).toEqual(event.attendees);
    // The on-the-fly "create" reuses it (it is the room's newest active meeting with the room's settings).
    expect((await createMeeting(bob, "calendared")).id).toBe(made.id);

    // Deactivated, it stays the event's meeting; a user joining again gets a new one, never the old reactivated.
    await alice(`/v1/meetings/${made.id}/deactivate`, { method: "PATCH" });
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
    await anon(`/v1/meetings/${m.id}/consent`, post({ consent_given: false }));
    expect((await alice(`/v1/rooms/${room.id}`, { method: "DELETE" })).status).toBe(200);
    const events = await meetingEventsUntil(sys, m.id, "meeting.deleted");
    expect(events.at(-1)).toMatchObject({ type: "meeting.deleted", data: { id: m.id, room_id: room.id } });
    const sql = postgres(sys.db.url, { max: 1, onnotice: () => {} });
    try {
      const [left] = await sql`select count(*)::int as n from meetings.meeting_consent where meeting_id = ${m.id}`;
      expect(left!.n).toBe(0);
    } finally {
      await sql.end();
    }
    const consent = await anon(`/v1/meetings/${m.id}/consent`, post({ consent_given: true }));
    expect(consent.status).toBe(404);
    expect((await alice("/v1/rooms/doomed-room/meetings/active")).status).toBe(404);
  });
});

describe("OpenAPI", () => {
  it("documents the meeting operations and components with the contract's names", async () => {
    const doc = await (await anon("/openapi.json")).json();
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
