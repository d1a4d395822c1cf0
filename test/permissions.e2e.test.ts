// Who may do what: every operation of the API as anonymous, owner, other user and API-key callers,
// in every auth mode (and PUBLIC_MODE where it matters), checking the status and what the body
// reveals. The rules live in the services; this table is the one place that shows them together.
//
// Adding an area: define its operations under OPERATIONS (one `Op` each; destructive ones create a
// fresh object in `request`), seed what they need in `seed` (extend `Fixtures` in
// support/permissions.ts), and append one line per operation × deployment group to ROWS. The last
// test fails while an operation in /openapi.json has no row.
//
// Its requests stay raw HTTP (the other e2e tests use @scribe/client): a row names its operation as
// the `METHOD /path` string of /openapi.json, which is how that last test proves every operation is
// in the table, and the table sends what a client without our types would send to each route.
import { randomUUID } from "node:crypto";
import {
  CreateRoom,
  calendarOps,
  meetingsOps,
  projectionOps,
  recordingsOps,
  roomsOps,
  transcriptKeys,
  transcriptionOps,
} from "@scribe/contracts";
import { openStorage } from "@scribe/kit";
import { eventually } from "@scribe/kit/testing";
import { icsFeed, minutesFrom, roomLocation, startFeedServer } from "./support/calendar";
import { multipart, publish, transcriptState } from "./support/media";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADMIN,
  CALLER_KINDS,
  DEPLOYMENTS,
  USER_OF,
  everyone,
  expand,
  ownerVsOthers,
  row,
  rpcCall,
  runCase,
  startWorld,
  stopWorld,
  usersVsAnon,
  type CallerKind,
  type Check,
  type Deployment,
  type Fixtures,
  type Op,
  type Row,
  type World,
} from "./support/permissions";

// ---- deployment groups ------------------------------------------------------------------------
const ALL: Deployment[] = ["password", "password+public", "jwt", "none", "none+public"];
/** Deployments with users (AUTH_BACKEND password or jwt). */
const USERS: Deployment[] = ["password", "password+public", "jwt"];
const USERS_PRIVATE: Deployment[] = ["password", "jwt"];
const USERS_PUBLIC: Deployment[] = ["password+public"];
const PASSWORD: Deployment[] = ["password", "password+public"];
const NO_LOGIN: Deployment[] = ["jwt", "none", "none+public"];
/** AUTH_BACKEND=none: everyone is anonymous, whatever they send. */
const NONE: Deployment[] = ["none", "none+public"];

// ---- fixtures ---------------------------------------------------------------------------------
async function seedRoom(w: Omit<World, "fixtures">, opts: { shared: boolean; name?: string; icsUrl?: string }) {
  const name = opts.name ?? w.unique(opts.shared ? "shared" : "private");
  const ics = opts.icsUrl ? { ics_url: opts.icsUrl, ics_enabled: true } : {};
  const room = await rpcCall(w.bus, roomsOps.create, {
    caller: w.callerOf("owner"),
    room: CreateRoom.parse({ name, is_shared: opts.shared, webhook_url: `https://hooks.example.com/${name}`, ...ics }),
  });
  return { id: room.id, name: room.name };
}

/** A meeting of the owner's room on the Daily simulator (room events reach meetings asynchronously). */
async function seedMeeting(w: Omit<World, "fixtures">, roomName: string, duplicate = false) {
  const meeting = await eventually(() =>
    rpcCall(w.bus, meetingsOps.create, { caller: w.callerOf("owner"), room_name: roomName, allow_duplicated: duplicate }),
  );
  return { id: meeting.id, roomName, platformRoom: meeting.room_name };
}

/**
 * A fresh meeting of the owner's private room that the caller joined: through Scribe's join (what
 * makes a signed-in caller a participant) while a guest is in the call (what lets anonymous callers
 * speak for the participants).
 */
async function meetingJoinedBy(w: World, caller: CallerKind) {
  const m = await seedMeeting(w, w.fixtures.privateRoom.name, true);
  const joined = await w.clients[caller](`/v1/rooms/${m.roomName}/meetings/${m.id}/join`, { method: "POST" });
  expect(joined.status).toBe(200);
  await w.daily.join(m.platformRoom, { userName: "Guest" });
  return m;
}

/**
 * A transcript as the transcription service announces it, with its mp3 and waveform stored; waits
 * until the recordings service (which decides media access) has it.
 */
async function seedTranscript(w: Omit<World, "fixtures">, opts: { owner: "owner" | null; share: "private" | "public" }) {
  const state = transcriptState(randomUUID(), {
    user_id: opts.owner === null ? null : w.ids.owner,
    share_mode: opts.share,
    status: "ended",
    audio_location: "storage",
  });
  const bucket = openStorage(w.storage, w.storage.TRANSCRIPT_STORAGE_AWS_BUCKET_NAME);
  await bucket.put(transcriptKeys.mp3(state.id), Buffer.alloc(2048, 7));
  await bucket.put(transcriptKeys.waveform(state.id), JSON.stringify([0, 0.5, 1]));
  await publish(w.sys.prefix, "transcript.created", state);
  await eventually(() => rpcCall(w.bus, recordingsOps.waveform, { caller: w.callerOf("owner"), transcript_id: state.id }), {
    message: `transcript ${state.id} reached the recordings service`,
  });
  await eventually(
    () =>
      rpcCall(w.bus, projectionOps.awaitVersion, {
        caller: w.callerOf("owner"),
        id: state.id,
        version: state.version,
        timeout_ms: 1000,
      }).then((r) => r.reached),
    {
      message: `transcript ${state.id} reached the read model`,
    },
  );
  return state.id;
}

/**
 * A fresh transcript made by the transcription service (the write side knows only its own), owned
 * by the owner unless `owner: null`; `deleted` soft-deletes it; `participant` adds one (speaker 0).
 */
async function freshTranscript(
  w: Omit<World, "fixtures">,
  opts: { owner?: "owner" | null; deleted?: boolean; participant?: boolean; locked?: boolean } = {},
): Promise<{ id: string; participantId: string | null }> {
  const caller = w.callerOf(opts.owner === undefined ? "owner" : opts.owner);
  const t = await rpcCall(w.bus, transcriptionOps.create, { caller, transcript: { name: w.unique("transcript") } });
  const participantId = opts.participant
    ? (await rpcCall(w.bus, transcriptionOps.addParticipant, { caller, id: t.id, participant: { name: "Ann", speaker: 0 } })).participant.id
    : null;
  if (opts.deleted) await rpcCall(w.bus, transcriptionOps.delete, { caller, id: t.id });
  if (opts.locked) await rpcCall(w.bus, transcriptionOps.update, { caller, id: t.id, patch: { locked: true } });
  return { id: t.id, participantId };
}

/** An ICS feed with one ongoing event in `roomName`, served for the world's lifetime; answers its URL. */
async function serveCalendarFeed(w: Omit<World, "fixtures">, roomName: string): Promise<string> {
  const feeds = await startFeedServer();
  const stop = w.sys.stop;
  w.sys.stop = async () => {
    await stop();
    await feeds.close();
  };
  const now = new Date();
  feeds.set(
    "/owner.ics",
    icsFeed([
      {
        id: "planning",
        start: minutesFrom(now, -10),
        end: minutesFrom(now, 110),
        summary: "Planning",
        description: "Owner only",
        location: roomLocation(roomName),
        attendees: [{ email: "guest@example.com", name: "Guest" }],
      },
    ]),
  );
  return feeds.url("/owner.ics");
}

/** Sync the room's feed as its owner and answer its calendar event. */
async function syncedCalendarEvent(w: Omit<World, "fixtures">, roomName: string): Promise<{ id: string }> {
  // Room events reach the calendar service asynchronously.
  await eventually(
    async () => (await rpcCall(w.bus, calendarOps.syncIcs, { caller: w.callerOf("owner"), room_name: roomName })).status === "success",
  );
  const [event] = await rpcCall(w.bus, calendarOps.listEvents, { caller: w.callerOf("owner"), room_name: roomName });
  return { id: event!.id };
}

async function seed(w: Omit<World, "fixtures">): Promise<Fixtures> {
  const privateRoom = await seedRoom(w, { shared: false, name: "owners-private", icsUrl: await serveCalendarFeed(w, "owners-private") });
  const meeting = await seedMeeting(w, privateRoom.name);
  // Someone is in the call (the platform refuses to record an empty room).
  const platformRoom = (
    await rpcCall(w.bus, meetingsOps.get, { caller: w.callerOf("owner"), room_name: privateRoom.name, meeting_id: meeting.id })
  ).room_name;
  await w.daily.join(platformRoom, { userName: "Guest" });
  return {
    privateRoom,
    sharedRoom: await seedRoom(w, { shared: true, name: "owners-shared" }),
    meeting,
    transcripts: {
      private: await seedTranscript(w, { owner: "owner", share: "private" }),
      public: await seedTranscript(w, { owner: "owner", share: "public" }),
      anonymous: await seedTranscript(w, { owner: null, share: "private" }),
    },
    calendarEvent: await syncedCalendarEvent(w, privateRoom.name),
  };
}

// ---- checks: what a body may reveal -----------------------------------------------------------
const userIdOf = (w: World, caller: (typeof CALLER_KINDS)[number]) => {
  const user = USER_OF[caller];
  return user === null ? null : w.ids[user];
};
const webhookShown: Check = (b) => {
  expect(b.webhook_url).toMatch(/^https:\/\/hooks\.example\.com\//);
  expect(b.webhook_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
};
const webhookHidden: Check = (b) => {
  expect(b.webhook_url).toBeNull();
  expect(b.webhook_secret).toBeNull();
};
/** A `Room` (create's answer) carries no webhook fields at all, and belongs to the caller. */
const createdByCaller: Check = (b, { w, caller }) => {
  expect(b).not.toHaveProperty("webhook_url");
  expect(b).not.toHaveProperty("webhook_secret");
  expect(b.user_id).toBe(userIdOf(w, caller));
};
const listsOwnAndShared: Check = (b, { w }) => {
  const ids = b.items.map((r: { id: string }) => r.id);
  expect(ids).toContain(w.fixtures.privateRoom.id);
  expect(ids).toContain(w.fixtures.sharedRoom.id);
  webhookShown(
    b.items.find((r: { id: string }) => r.id === w.fixtures.privateRoom.id),
    { w, caller: "owner" },
  );
};
const listsSharedOnly: Check = (b, { w, caller }) => {
  const ids = b.items.map((r: { id: string }) => r.id);
  expect(ids).toContain(w.fixtures.sharedRoom.id);
  expect(ids).not.toContain(w.fixtures.privateRoom.id);
  for (const r of b.items.filter((r: { user_id: string }) => r.user_id !== userIdOf(w, caller))) webhookHidden(r, { w, caller });
};
const isNull: Check = (b) => expect(b).toBeNull();
const isWaveform: Check = (b) => expect(b).toEqual({ data: [0, 0.5, 1] });
const listed = (b: { items?: { id: string }[]; results?: { id: string }[] }) => (b.items ?? b.results ?? []).map((t) => t.id);
/** Which of the fixture transcripts a list or search shows. */
const showsTranscripts =
  (...which: ("private" | "public" | "anonymous")[]): Check =>
  (b, { w }) => {
    const ids = listed(b);
    for (const k of ["private", "public", "anonymous"] as const) {
      if (which.includes(k)) expect(ids, `lists the ${k} transcript`).toContain(w.fixtures.transcripts[k]);
      else expect(ids, `does not list the ${k} transcript`).not.toContain(w.fixtures.transcripts[k]);
    }
  };
/** Host URLs (meeting controls) only for the room's owner, on every platform (README: Meetings). */
const hostShown: Check = (b) => expect(b.host_room_url).toMatch(/^https?:\/\//);
const hostHidden: Check = (b) => expect(b.host_room_url).toBe("");
const fixtureMeeting = (b: { id: string }[], w: World) => b.find((m) => m.id === w.fixtures.meeting.id);
const activeWithHost: Check = (b, ctx) => hostShown(fixtureMeeting(b, ctx.w), ctx);
const activeWithoutHost: Check = (b, ctx) => hostHidden(fixtureMeeting(b, ctx.w), ctx);
/** Platform A join: signed-in participants get a meeting token (?t=) made by the service. */
const joinedWithToken: Check = (b) => expect(new URL(b.room_url).searchParams.get("t")).toBeTruthy();
const joinedWithoutToken: Check = (b) => expect(new URL(b.room_url).searchParams.get("t")).toBeNull();
const recipientWithLink =
  (link: boolean): Check =>
  (b) =>
    expect(b.email_recipients).toContainEqual({ email: "reader@example.com", include_link: link });
/** Calendar events: description and attendees for the room's owner only (api.md §2.6). */
const fixtureEvent = (b: { id: string }[], w: World) => b.find((e) => e.id === w.fixtures.calendarEvent.id);
const eventDetailsShown: Check = (b, { w }) =>
  expect(fixtureEvent(b, w)).toMatchObject({ description: "Owner only", attendees: [{ email: "guest@example.com" }] });
const eventDetailsHidden: Check = (b, { w }) =>
  expect(fixtureEvent(b, w)).toMatchObject({ title: "Planning", description: null, attendees: null });
const syncAnswered: Check = (b) => expect(["success", "unchanged", "skipped"]).toContain(b.status);
const icsStatusShown: Check = (b) =>
  expect(b).toMatchObject({ status: "enabled", events_count: 1, last_etag: expect.stringMatching(/^[0-9a-f]{32}$/) });
/** Joining a calendar event by its id: its meeting (made by the first join), with a token for users. */
const joinedEvent =
  (token: boolean): Check =>
  (b, ctx) => {
    expect(b.calendar_event_id).toBe(ctx.w.fixtures.calendarEvent.id);
    (token ? joinedWithToken : joinedWithoutToken)(b, ctx);
  };
const isConfig: Check = (b) => expect(b).toEqual({ zulip_enabled: true, email_enabled: true });
const noWebhookUrl: Check = (b) =>
  expect(b).toEqual({ success: false, message: "", error: "No webhook URL configured", status_code: null, response_preview: null });
const sentOne: Check = (b) => expect(b).toEqual({ sent: 1 });
const isStreams: Check = (b) =>
  expect(b).toEqual([
    { stream_id: 1, name: "general" },
    { stream_id: 7, name: "engineering" },
  ]);
const isTopics: Check = (b) => expect(b).toEqual([{ name: "meetings" }, { name: "random" }]);
const isCaller: Check = (b, { w, caller }) => {
  expect(b.sub).toBe(userIdOf(w, caller));
  expect(typeof b.email_verified).toBe("boolean");
};
const onlyOwnKeys: Check = (b, { w, caller }) => {
  expect(b.length).toBeGreaterThan(0);
  for (const k of b) {
    expect(k.user_id).toBe(userIdOf(w, caller));
    expect(k).not.toHaveProperty("key");
    expect(k).not.toHaveProperty("key_hash");
  }
};
const showsNewKey: Check = (b, { w, caller }) => {
  expect(b.key).toMatch(/^[A-Za-z0-9_-]{64}$/);
  expect(b.user_id).toBe(userIdOf(w, caller));
};
const issuesToken: Check = (b) => expect(b).toMatchObject({ token_type: "bearer", expires_in: 86_400, access_token: expect.any(String) });
const documentsLogin =
  (present: boolean): Check =>
  (b) =>
    expect(Object.keys(b.paths).includes("/v1/auth/login")).toBe(present);

/** The web app's start-up answer names the deployment's auth mode (no identity provider configured here). */
const tellsAuthMode: Check = (b, { w }) =>
  expect(b).toMatchObject({ auth_backend: DEPLOYMENTS[w.deployment].auth, oidc: null, upload: { max_chunks: expect.any(Number) } });

/** A created transcript belongs to the caller (null: anonymous). */
const ownedByCaller: Check = (b, { w, caller }) =>
  expect(b).toMatchObject({ user_id: userIdOf(w, caller), status: "idle", share_mode: "private" });
/** AUTH_BACKEND=none: whatever a caller sends, the transcript is anonymous. */
const ownedByNobody: Check = (b) => expect(b).toMatchObject({ user_id: null, status: "idle" });

// ---- operations -------------------------------------------------------------------------------
const json = (method: string, body: unknown): RequestInit => ({ method, body: JSON.stringify(body) });
const MISSING_ID = "00000000-0000-4000-8000-000000000000";

const OPERATIONS = {
  health: { route: "GET /health", request: () => ({ path: "/health" }) },
  openapi: { route: "GET /openapi.json", request: () => ({ path: "/openapi.json" }) },
  appConfig: { route: "GET /app-config.json", request: () => ({ path: "/app-config.json" }) },

  me: { route: "GET /v1/me", request: () => ({ path: "/v1/me" }) },
  login: {
    route: "POST /v1/auth/login",
    request: () => ({ path: "/v1/auth/login", init: json("POST", { email: ADMIN.email, password: ADMIN.password }) }),
  },
  listKeys: { route: "GET /v1/user/api-keys", request: () => ({ path: "/v1/user/api-keys" }) },
  createKey: {
    route: "POST /v1/user/api-keys",
    request: () => ({ path: "/v1/user/api-keys", init: json("POST", { name: "from the table" }) }),
  },
  deleteOwnersKey: {
    route: "DELETE /v1/user/api-keys/{key_id}",
    variant: "a key of the owner",
    async request(w) {
      const id = w.sys.auth === "none" ? MISSING_ID : (await w.sys.createApiKey("owner", "to delete")).id;
      return { path: `/v1/user/api-keys/${id}`, init: { method: "DELETE" } };
    },
  },

  listRooms: { route: "GET /v1/rooms", request: () => ({ path: "/v1/rooms?size=100" }) },
  createRoom: { route: "POST /v1/rooms", request: (w) => ({ path: "/v1/rooms", init: json("POST", { name: w.unique("created") }) }) },
  getPrivateRoom: {
    route: "GET /v1/rooms/{room_id}",
    variant: "private room",
    request: (w) => ({ path: `/v1/rooms/${w.fixtures.privateRoom.id}` }),
  },
  getSharedRoom: {
    route: "GET /v1/rooms/{room_id}",
    variant: "shared room",
    request: (w) => ({ path: `/v1/rooms/${w.fixtures.sharedRoom.id}` }),
  },
  getMissingRoom: { route: "GET /v1/rooms/{room_id}", variant: "unknown id", request: () => ({ path: `/v1/rooms/${MISSING_ID}` }) },
  getRoomByName: {
    route: "GET /v1/rooms/name/{room_name}",
    variant: "private room",
    request: (w) => ({ path: `/v1/rooms/name/${w.fixtures.privateRoom.name}` }),
  },
  patchPrivateRoom: {
    route: "PATCH /v1/rooms/{room_id}",
    variant: "private room",
    request: (w) => ({ path: `/v1/rooms/${w.fixtures.privateRoom.id}`, init: json("PATCH", { zulip_topic: w.unique("topic") }) }),
  },
  patchSharedRoom: {
    route: "PATCH /v1/rooms/{room_id}",
    variant: "shared room",
    request: (w) => ({ path: `/v1/rooms/${w.fixtures.sharedRoom.id}`, init: json("PATCH", { zulip_topic: w.unique("topic") }) }),
  },
  deleteRoom: {
    route: "DELETE /v1/rooms/{room_id}",
    variant: "a fresh room of the owner",
    async request(w) {
      const room = await seedRoom(w, { shared: true });
      return { path: `/v1/rooms/${room.id}`, init: { method: "DELETE" } };
    },
  },

  createMeeting: {
    route: "POST /v1/rooms/{room_name}/meeting",
    variant: "the owner's private room",
    request: (w) => ({ path: `/v1/rooms/${w.fixtures.privateRoom.name}/meeting`, init: json("POST", {}) }),
  },
  listActiveMeetings: {
    route: "GET /v1/rooms/{room_name}/meetings/active",
    request: (w) => ({ path: `/v1/rooms/${w.fixtures.privateRoom.name}/meetings/active` }),
  },
  getMeeting: {
    route: "GET /v1/rooms/{room_name}/meetings/{meeting_id}",
    request: (w) => ({ path: `/v1/rooms/${w.fixtures.privateRoom.name}/meetings/${w.fixtures.meeting.id}` }),
  },
  joinMeeting: {
    route: "POST /v1/rooms/{room_name}/meetings/{meeting_id}/join",
    request: (w) => ({ path: `/v1/rooms/${w.fixtures.privateRoom.name}/meetings/${w.fixtures.meeting.id}/join`, init: { method: "POST" } }),
  },
  joinCalendarEvent: {
    route: "POST /v1/rooms/{room_name}/meetings/{meeting_id}/join",
    variant: "an ongoing calendar event's id (early join)",
    request: (w) => ({
      path: `/v1/rooms/${w.fixtures.privateRoom.name}/meetings/${w.fixtures.calendarEvent.id}/join`,
      init: { method: "POST" },
    }),
  },
  syncIcs: {
    route: "POST /v1/rooms/{room_name}/ics/sync",
    request: (w) => ({ path: `/v1/rooms/${w.fixtures.privateRoom.name}/ics/sync`, init: { method: "POST" } }),
  },
  icsStatus: {
    route: "GET /v1/rooms/{room_name}/ics/status",
    request: (w) => ({ path: `/v1/rooms/${w.fixtures.privateRoom.name}/ics/status` }),
  },
  listCalendarEvents: {
    route: "GET /v1/rooms/{room_name}/meetings",
    request: (w) => ({ path: `/v1/rooms/${w.fixtures.privateRoom.name}/meetings` }),
  },
  upcomingCalendarEvents: {
    route: "GET /v1/rooms/{room_name}/meetings/upcoming",
    request: (w) => ({ path: `/v1/rooms/${w.fixtures.privateRoom.name}/meetings/upcoming` }),
  },
  giveConsent: {
    route: "POST /v1/meetings/{meeting_id}/consent",
    variant: "a fresh meeting the caller joined",
    async request(w, caller) {
      const m = await meetingJoinedBy(w, caller);
      return { path: `/v1/meetings/${m.id}/consent`, init: json("POST", { consent_given: true }) };
    },
  },
  giveConsentUnjoined: {
    route: "POST /v1/meetings/{meeting_id}/consent",
    variant: "a fresh meeting nobody joined",
    async request(w) {
      const m = await seedMeeting(w, w.fixtures.privateRoom.name, true);
      return { path: `/v1/meetings/${m.id}/consent`, init: json("POST", { consent_given: false }) };
    },
  },
  deactivateMeeting: {
    route: "PATCH /v1/meetings/{meeting_id}/deactivate",
    variant: "a fresh meeting of the owner's room",
    async request(w) {
      const m = await seedMeeting(w, w.fixtures.privateRoom.name, true);
      return { path: `/v1/meetings/${m.id}/deactivate`, init: { method: "PATCH" } };
    },
  },
  startRecording: {
    route: "POST /v1/meetings/{meeting_id}/recordings/start",
    request: (w) => ({
      path: `/v1/meetings/${w.fixtures.meeting.id}/recordings/start`,
      init: json("POST", { type: "raw-tracks", instanceId: crypto.randomUUID() }),
    }),
  },
  addEmailRecipient: {
    route: "POST /v1/meetings/{meeting_id}/email-recipient",
    // A fresh meeting: the first request for an address fixes its include_link (reference).
    variant: "a fresh meeting the caller joined",
    async request(w, caller) {
      const m = await meetingJoinedBy(w, caller);
      return { path: `/v1/meetings/${m.id}/email-recipient`, init: json("POST", { email: "reader@example.com" }) };
    },
  },
  addEmailRecipientUnjoined: {
    route: "POST /v1/meetings/{meeting_id}/email-recipient",
    variant: "a fresh meeting nobody joined",
    async request(w) {
      const m = await seedMeeting(w, w.fixtures.privateRoom.name, true);
      return { path: `/v1/meetings/${m.id}/email-recipient`, init: json("POST", { email: "reader@example.com" }) };
    },
  },
  dailyWebhook: {
    route: "POST /v1/daily/webhook",
    variant: "unsigned",
    request: () => ({
      path: "/v1/daily/webhook",
      init: json("POST", { version: "1.0.0", type: "participant.joined", id: "x", payload: {}, event_ts: 1 }),
    }),
  },
  wherebyWebhook: {
    route: "POST /v1/whereby",
    variant: "unsigned",
    request: () => ({
      path: "/v1/whereby",
      init: json("POST", { apiVersion: "1.0", id: "x", createdAt: new Date().toISOString(), type: "room.client.joined", data: {} }),
    }),
  },

  mp3Private: {
    route: "GET /v1/transcripts/{transcript_id}/audio/mp3",
    variant: "the owner's private transcript",
    request: (w) => ({ path: `/v1/transcripts/${w.fixtures.transcripts.private}/audio/mp3` }),
  },
  mp3Public: {
    route: "GET /v1/transcripts/{transcript_id}/audio/mp3",
    variant: "the owner's public transcript",
    request: (w) => ({ path: `/v1/transcripts/${w.fixtures.transcripts.public}/audio/mp3` }),
  },
  mp3Anonymous: {
    route: "GET /v1/transcripts/{transcript_id}/audio/mp3",
    variant: "an anonymous transcript",
    request: (w) => ({ path: `/v1/transcripts/${w.fixtures.transcripts.anonymous}/audio/mp3` }),
  },
  mp3Head: {
    route: "HEAD /v1/transcripts/{transcript_id}/audio/mp3",
    variant: "the owner's private transcript",
    request: (w) => ({ path: `/v1/transcripts/${w.fixtures.transcripts.private}/audio/mp3`, init: { method: "HEAD" } }),
  },
  audioToken: {
    route: "POST /v1/transcripts/{transcript_id}/audio/token",
    variant: "the owner's private transcript",
    request: (w) => ({ path: `/v1/transcripts/${w.fixtures.transcripts.private}/audio/token`, init: { method: "POST" } }),
  },
  waveformPrivate: {
    route: "GET /v1/transcripts/{transcript_id}/audio/waveform",
    variant: "the owner's private transcript",
    request: (w) => ({ path: `/v1/transcripts/${w.fixtures.transcripts.private}/audio/waveform` }),
  },
  waveformPublic: {
    route: "GET /v1/transcripts/{transcript_id}/audio/waveform",
    variant: "the owner's public transcript",
    request: (w) => ({ path: `/v1/transcripts/${w.fixtures.transcripts.public}/audio/waveform` }),
  },
  videoUrl: {
    route: "GET /v1/transcripts/{transcript_id}/video/url",
    variant: "a transcript without video",
    request: (w) => ({ path: `/v1/transcripts/${w.fixtures.transcripts.private}/video/url` }),
  },
  videoFile: {
    route: "GET /v1/transcripts/{transcript_id}/video/file",
    variant: "a transcript without video",
    request: (w) => ({ path: `/v1/transcripts/${w.fixtures.transcripts.private}/video/file` }),
  },
  zipPrivate: {
    route: "GET /v1/transcripts/{transcript_id}/download/zip",
    variant: "the owner's private transcript",
    request: (w) => ({ path: `/v1/transcripts/${w.fixtures.transcripts.private}/download/zip` }),
  },
  zipPublic: {
    route: "GET /v1/transcripts/{transcript_id}/download/zip",
    variant: "the owner's public transcript",
    request: (w) => ({ path: `/v1/transcripts/${w.fixtures.transcripts.public}/download/zip` }),
  },
  uploadPrivate: {
    route: "POST /v1/transcripts/{transcript_id}/record/upload",
    variant: "first of two chunks, the owner's private transcript",
    request: (w) => {
      const { body, contentType } = multipart("chunk", "part.mp3", Buffer.alloc(512, 1), "audio/mpeg");
      return {
        path: `/v1/transcripts/${w.fixtures.transcripts.private}/record/upload?chunk_number=0&total_chunks=2`,
        init: { method: "POST", body, headers: { "content-type": contentType } },
      };
    },
  },

  listTranscripts: { route: "GET /v1/transcripts", request: () => ({ path: "/v1/transcripts?size=100" }) },
  searchTranscripts: {
    route: "GET /v1/transcripts/search",
    variant: "no query",
    request: () => ({ path: "/v1/transcripts/search?q=&limit=100" }),
  },
  getPrivateTranscript: {
    route: "GET /v1/transcripts/{transcript_id}",
    variant: "the owner's private transcript",
    request: (w) => ({ path: `/v1/transcripts/${w.fixtures.transcripts.private}` }),
  },
  getPublicTranscript: {
    route: "GET /v1/transcripts/{transcript_id}",
    variant: "the owner's public transcript",
    request: (w) => ({ path: `/v1/transcripts/${w.fixtures.transcripts.public}` }),
  },
  getAnonymousTranscript: {
    route: "GET /v1/transcripts/{transcript_id}",
    variant: "an anonymous transcript",
    request: (w) => ({ path: `/v1/transcripts/${w.fixtures.transcripts.anonymous}` }),
  },
  getMissingTranscript: {
    route: "GET /v1/transcripts/{transcript_id}",
    variant: "unknown id",
    request: () => ({ path: `/v1/transcripts/${MISSING_ID}` }),
  },
  // The WebSocket paths answered as plain HTTP (their socket handshakes: test/realtime.e2e.test.ts).
  transcriptEventsHttp: {
    route: "GET /v1/transcripts/{transcript_id}/events",
    variant: "plain GET, not a WebSocket",
    request: (w) => ({ path: `/v1/transcripts/${w.fixtures.transcripts.private}/events` }),
  },
  userEventsHttp: { route: "GET /v1/events", variant: "plain GET, not a WebSocket", request: () => ({ path: "/v1/events" }) },
  topicsPrivate: {
    route: "GET /v1/transcripts/{transcript_id}/topics",
    variant: "the owner's private transcript",
    request: (w) => ({ path: `/v1/transcripts/${w.fixtures.transcripts.private}/topics` }),
  },
  topicsWithWordsPrivate: {
    route: "GET /v1/transcripts/{transcript_id}/topics/with-words",
    variant: "the owner's private transcript",
    request: (w) => ({ path: `/v1/transcripts/${w.fixtures.transcripts.private}/topics/with-words` }),
  },
  wordsPerSpeakerPrivate: {
    route: "GET /v1/transcripts/{transcript_id}/topics/{topic_id}/words-per-speaker",
    variant: "the owner's private transcript, unknown topic",
    request: (w) => ({ path: `/v1/transcripts/${w.fixtures.transcripts.private}/topics/no-such-topic/words-per-speaker` }),
  },
  participantsPrivate: {
    route: "GET /v1/transcripts/{transcript_id}/participants",
    variant: "the owner's private transcript",
    request: (w) => ({ path: `/v1/transcripts/${w.fixtures.transcripts.private}/participants` }),
  },
  participantPrivate: {
    route: "GET /v1/transcripts/{transcript_id}/participants/{participant_id}",
    variant: "the owner's private transcript, unknown participant",
    request: (w) => ({ path: `/v1/transcripts/${w.fixtures.transcripts.private}/participants/no-such-participant` }),
  },

  config: { route: "GET /v1/config", request: () => ({ path: "/v1/config" }) },
  testWebhook: {
    route: "POST /v1/rooms/{room_id}/webhook/test",
    // No URL: the answer shows who may test without calling anyone.
    variant: "a fresh room of the owner without a webhook URL",
    async request(w) {
      const room = await rpcCall(w.bus, roomsOps.create, {
        caller: w.callerOf("owner"),
        room: CreateRoom.parse({ name: w.unique("hookless") }),
      });
      return { path: `/v1/rooms/${room.id}/webhook/test`, init: { method: "POST" } };
    },
  },
  testWebhookMissing: {
    route: "POST /v1/rooms/{room_id}/webhook/test",
    variant: "unknown room",
    request: () => ({ path: `/v1/rooms/${MISSING_ID}/webhook/test`, init: { method: "POST" } }),
  },
  emailPrivate: {
    route: "POST /v1/transcripts/{transcript_id}/email",
    variant: "the owner's private transcript",
    request: (w) => ({
      path: `/v1/transcripts/${w.fixtures.transcripts.private}/email`,
      init: json("POST", { email: "reader@example.com" }),
    }),
  },
  emailPublic: {
    route: "POST /v1/transcripts/{transcript_id}/email",
    variant: "the owner's public transcript",
    request: (w) => ({
      path: `/v1/transcripts/${w.fixtures.transcripts.public}/email`,
      init: json("POST", { email: "reader@example.com" }),
    }),
  },
  emailAnonymous: {
    route: "POST /v1/transcripts/{transcript_id}/email",
    variant: "an anonymous transcript",
    request: (w) => ({
      path: `/v1/transcripts/${w.fixtures.transcripts.anonymous}/email`,
      init: json("POST", { email: "reader@example.com" }),
    }),
  },
  zulipPrivate: {
    route: "POST /v1/transcripts/{transcript_id}/zulip",
    variant: "the owner's private transcript",
    request: (w) => ({
      path: `/v1/transcripts/${w.fixtures.transcripts.private}/zulip?stream=general&topic=meetings&include_topics=true`,
      init: { method: "POST" },
    }),
  },
  zulipPublic: {
    route: "POST /v1/transcripts/{transcript_id}/zulip",
    variant: "the owner's public transcript",
    request: (w) => ({
      path: `/v1/transcripts/${w.fixtures.transcripts.public}/zulip?stream=general&topic=meetings&include_topics=false`,
      init: { method: "POST" },
    }),
  },
  zulipStreams: { route: "GET /v1/zulip/streams", request: () => ({ path: "/v1/zulip/streams" }) },
  zulipTopics: { route: "GET /v1/zulip/streams/{stream_id}/topics", request: () => ({ path: "/v1/zulip/streams/1/topics" }) },
  // Transcript mutations (transcription service). Destructive ones act on a fresh transcript.
  createTranscript: {
    route: "POST /v1/transcripts",
    request: (w) => ({ path: "/v1/transcripts", init: json("POST", { name: w.unique("created") }) }),
  },
  patchTranscript: {
    route: "PATCH /v1/transcripts/{transcript_id}",
    variant: "a fresh private transcript of the owner",
    request: async (w) => ({ path: `/v1/transcripts/${(await freshTranscript(w)).id}`, init: json("PATCH", { name: "renamed" }) }),
  },
  deleteTranscript: {
    route: "DELETE /v1/transcripts/{transcript_id}",
    variant: "a fresh transcript of the owner",
    request: async (w) => ({ path: `/v1/transcripts/${(await freshTranscript(w)).id}`, init: { method: "DELETE" } }),
  },
  restoreTranscript: {
    route: "POST /v1/transcripts/{transcript_id}/restore",
    variant: "a fresh soft-deleted transcript of the owner",
    request: async (w) => ({
      path: `/v1/transcripts/${(await freshTranscript(w, { deleted: true })).id}/restore`,
      init: { method: "POST" },
    }),
  },
  destroyTranscript: {
    route: "DELETE /v1/transcripts/{transcript_id}/destroy",
    variant: "a fresh soft-deleted transcript of the owner",
    request: async (w) => ({
      path: `/v1/transcripts/${(await freshTranscript(w, { deleted: true })).id}/destroy`,
      init: { method: "DELETE" },
    }),
  },
  processTranscript: {
    route: "POST /v1/transcripts/{transcript_id}/process",
    variant: "a private transcript with nothing to process",
    request: async (w) => ({ path: `/v1/transcripts/${(await freshTranscript(w)).id}/process`, init: { method: "POST" } }),
  },
  recordWebrtc: {
    route: "POST /v1/transcripts/{transcript_id}/record/webrtc",
    // Locked: the owner passes the read check and is refused before any peer connection is made.
    variant: "a locked private transcript",
    request: async (w) => ({
      path: `/v1/transcripts/${(await freshTranscript(w, { locked: true })).id}/record/webrtc`,
      init: json("POST", { sdp: "v=0\r\n", type: "offer" }),
    }),
  },
  transcriptRuns: {
    route: "GET /v1/transcripts/{transcript_id}/runs",
    variant: "the owner's private transcript",
    request: async (w) => ({ path: `/v1/transcripts/${(await freshTranscript(w)).id}/runs` }),
  },
  addParticipant: {
    route: "POST /v1/transcripts/{transcript_id}/participants",
    variant: "the owner's private transcript",
    request: async (w) => ({ path: `/v1/transcripts/${(await freshTranscript(w)).id}/participants`, init: json("POST", { name: "Bea" }) }),
  },
  addParticipantAnonymous: {
    route: "POST /v1/transcripts/{transcript_id}/participants",
    variant: "an anonymous transcript",
    request: async (w) => ({
      path: `/v1/transcripts/${(await freshTranscript(w, { owner: null })).id}/participants`,
      init: json("POST", { name: "Bea" }),
    }),
  },
  patchParticipant: {
    route: "PATCH /v1/transcripts/{transcript_id}/participants/{participant_id}",
    variant: "the owner's private transcript",
    async request(w) {
      const t = await freshTranscript(w, { participant: true });
      return { path: `/v1/transcripts/${t.id}/participants/${t.participantId}`, init: json("PATCH", { name: "Anna" }) };
    },
  },
  deleteParticipant: {
    route: "DELETE /v1/transcripts/{transcript_id}/participants/{participant_id}",
    variant: "the owner's private transcript",
    async request(w) {
      const t = await freshTranscript(w, { participant: true });
      return { path: `/v1/transcripts/${t.id}/participants/${t.participantId}`, init: { method: "DELETE" } };
    },
  },
  assignSpeaker: {
    route: "PATCH /v1/transcripts/{transcript_id}/speaker/assign",
    variant: "the owner's private transcript",
    request: async (w) => ({
      path: `/v1/transcripts/${(await freshTranscript(w)).id}/speaker/assign`,
      init: json("PATCH", { speaker: 1, timestamp_from: 0, timestamp_to: 10 }),
    }),
  },
  mergeSpeakers: {
    route: "PATCH /v1/transcripts/{transcript_id}/speaker/merge",
    variant: "the owner's private transcript",
    request: async (w) => ({
      path: `/v1/transcripts/${(await freshTranscript(w)).id}/speaker/merge`,
      init: json("PATCH", { speaker_from: 0, speaker_to: 1 }),
    }),
  },
} satisfies Record<string, Op>;
const O = OPERATIONS;

// ---- the table --------------------------------------------------------------------------------
const ROWS: Row[] = [
  row(O.health, ALL, everyone(200)),
  row(O.openapi, PASSWORD, everyone([200, documentsLogin(true)])),
  row(O.openapi, NO_LOGIN, everyone([200, documentsLogin(false)])),
  row(O.appConfig, ALL, everyone([200, tellsAuthMode])),

  row(O.me, USERS, {
    anon: [200, isNull],
    owner: [200, isCaller],
    other: [200, isCaller],
    ownerKey: [200, isCaller],
    otherKey: [200, isCaller],
  }),
  row(O.me, NONE, everyone([200, isNull])),
  // Login reads no credentials: whatever a caller sends along, the right password logs in.
  row(O.login, PASSWORD, everyone([200, issuesToken])),
  row(O.login, NO_LOGIN, everyone(404)),
  row(O.listKeys, USERS, usersVsAnon([200, onlyOwnKeys], 401)),
  row(O.listKeys, NONE, everyone(401)),
  row(O.createKey, USERS, usersVsAnon([200, showsNewKey], 401)),
  row(O.createKey, NONE, everyone(401)),
  // Another user's key id answers like an unknown one.
  row(O.deleteOwnersKey, USERS, ownerVsOthers(200, 404, 401)),
  row(O.deleteOwnersKey, NONE, everyone(401)),

  row(O.listRooms, USERS_PRIVATE, ownerVsOthers([200, listsOwnAndShared], [200, listsSharedOnly], 401)),
  row(O.listRooms, USERS_PUBLIC, ownerVsOthers([200, listsOwnAndShared], [200, listsSharedOnly])),
  // No users at all: the list answers whatever PUBLIC_MODE says (reference), shared rooms only.
  row(O.listRooms, NONE, everyone([200, listsSharedOnly])),
  row(O.createRoom, USERS, usersVsAnon([200, createdByCaller], 401)),
  row(O.createRoom, NONE, everyone(401)),
  row(O.getPrivateRoom, USERS, ownerVsOthers([200, webhookShown], 403)),
  row(O.getPrivateRoom, NONE, everyone(403)),
  row(O.getSharedRoom, USERS, ownerVsOthers([200, webhookShown], [200, webhookHidden])),
  row(O.getSharedRoom, NONE, everyone([200, webhookHidden])),
  row(O.getMissingRoom, ALL, everyone(404)),
  // Public lookup by name: no credentials needed, no sharing check, webhook for the owner only.
  row(O.getRoomByName, USERS, ownerVsOthers([200, webhookShown], [200, webhookHidden])),
  row(O.getRoomByName, NONE, everyone([200, webhookHidden])),
  row(O.patchPrivateRoom, USERS, ownerVsOthers([200, webhookShown], 403, 401)),
  // Sharing a room lets others read it, never change it.
  row(O.patchSharedRoom, USERS, ownerVsOthers([200, webhookShown], 403, 401)),
  row(O.patchPrivateRoom, NONE, everyone(401)),
  row(O.deleteRoom, USERS, ownerVsOthers(200, 403, 401)),
  row(O.deleteRoom, NONE, everyone(401)),

  // Meetings: anyone who knows a room's name may start, list, read and join its meetings; the
  // host URL goes to the room's owner only; deactivating is the owner's.
  row(O.createMeeting, USERS, ownerVsOthers([200, hostShown], [200, hostHidden])),
  row(O.createMeeting, NONE, everyone([200, hostHidden])),
  row(O.listActiveMeetings, USERS, ownerVsOthers([200, activeWithHost], [200, activeWithoutHost])),
  row(O.listActiveMeetings, NONE, everyone([200, activeWithoutHost])),
  row(O.getMeeting, USERS, ownerVsOthers([200, hostShown], [200, hostHidden])),
  row(O.getMeeting, NONE, everyone([200, hostHidden])),
  row(O.joinMeeting, USERS, usersVsAnon([200, joinedWithToken], [200, joinedWithoutToken])),
  row(O.joinMeeting, NONE, everyone([200, joinedWithoutToken])),
  row(O.joinCalendarEvent, USERS, usersVsAnon([200, joinedEvent(true)], [200, joinedEvent(false)])),
  row(O.joinCalendarEvent, NONE, everyone([200, joinedEvent(false)])),
  // Consent and e-mail recipients speak for the meeting's participants: the room's owner, callers
  // who joined and (anonymous) while a guest is in the call; knowing the room's name is not enough.
  row(O.giveConsent, ALL, everyone(200)),
  row(O.giveConsentUnjoined, USERS, ownerVsOthers(200, 403)),
  row(O.giveConsentUnjoined, NONE, everyone(403)),
  row(O.deactivateMeeting, USERS, ownerVsOthers(200, 403, 401)),
  row(O.deactivateMeeting, NONE, everyone(401)),
  row(O.startRecording, ALL, everyone(200)),
  // Signed-in callers ask for a link in the e-mail; anonymous ones get the e-mail without it.
  row(O.addEmailRecipient, USERS, usersVsAnon([200, recipientWithLink(true)], [200, recipientWithLink(false)])),
  row(O.addEmailRecipient, NONE, everyone([200, recipientWithLink(false)])),
  row(O.addEmailRecipientUnjoined, USERS, ownerVsOthers([200, recipientWithLink(true)], 403)),
  row(O.addEmailRecipientUnjoined, NONE, everyone(403)),
  // Platform webhooks take no credentials, only the platform's signature.
  row(O.dailyWebhook, ALL, everyone(401)),
  row(O.wherebyWebhook, ALL, everyone(401)),

  // Calendar: anyone who knows a room's name sees its events, the details only its owner; ICS
  // status and force sync are the owner's (anonymous callers included: 403, as the reference).
  row(O.listCalendarEvents, USERS, ownerVsOthers([200, eventDetailsShown], [200, eventDetailsHidden])),
  row(O.listCalendarEvents, NONE, everyone([200, eventDetailsHidden])),
  row(O.upcomingCalendarEvents, USERS, ownerVsOthers([200, eventDetailsShown], [200, eventDetailsHidden])),
  row(O.upcomingCalendarEvents, NONE, everyone([200, eventDetailsHidden])),
  row(O.syncIcs, USERS, ownerVsOthers([200, syncAnswered], 403)),
  row(O.syncIcs, NONE, everyone(403)),
  row(O.icsStatus, USERS, ownerVsOthers([200, icsStatusShown], 403)),
  row(O.icsStatus, NONE, everyone(403)),

  // Transcript media. Audio without credentials is served only for anonymous transcripts
  // (api.md §2.14): an owned one answers 401 even when public; with credentials READ applies.
  row(O.mp3Private, USERS, ownerVsOthers(200, 403, 401)),
  row(O.mp3Private, NONE, everyone(401)),
  row(O.mp3Public, USERS, ownerVsOthers(200, 200, 401)),
  row(O.mp3Public, NONE, everyone(401)),
  row(O.mp3Anonymous, ALL, everyone(200)),
  row(O.mp3Head, USERS, ownerVsOthers(200, 403, 401)),
  row(O.mp3Head, NONE, everyone(401)),
  // A media token is the caller's own identity narrowed to one transcript's audio: any signed-in
  // caller gets one, and the mp3 route decides what it opens (web.transcript-seeded.browser.e2e.test.ts).
  row(O.audioToken, USERS, usersVsAnon(200, 401)),
  row(O.audioToken, NONE, everyone(401)),
  row(O.waveformPrivate, USERS, ownerVsOthers([200, isWaveform], 403, 401)),
  row(O.waveformPrivate, NONE, everyone(401)),
  row(O.waveformPublic, USERS, ownerVsOthers([200, isWaveform], [200, isWaveform], 401)),
  row(O.waveformPublic, NONE, everyone(401)),
  row(O.videoUrl, USERS, ownerVsOthers(404, 403, 401)),
  row(O.videoUrl, NONE, everyone(401)),
  row(O.videoFile, USERS, ownerVsOthers(404, 403, 401)),
  row(O.videoFile, NONE, everyone(401)),
  // The zip holds everything: the owner's alone, even for a public transcript.
  row(O.zipPrivate, USERS, ownerVsOthers(200, 403, 401)),
  row(O.zipPrivate, NONE, everyone(401)),
  row(O.zipPublic, USERS, ownerVsOthers(200, 403, 401)),
  row(O.zipPublic, NONE, everyone(401)),
  row(O.uploadPrivate, USERS_PRIVATE, ownerVsOthers(200, 403, 401)),
  row(O.uploadPrivate, USERS_PUBLIC, ownerVsOthers(200, 403)),
  row(O.uploadPrivate, NONE, everyone(403)),

  // Transcript reads (READ: api.md §0.6). Lists: own transcripts (and shared rooms'); anonymous
  // callers in PUBLIC_MODE see ownerless and public transcripts (the reference shows every one).
  row(O.listTranscripts, USERS_PRIVATE, ownerVsOthers([200, showsTranscripts("private", "public")], [200, showsTranscripts()], 401)),
  row(
    O.listTranscripts,
    USERS_PUBLIC,
    ownerVsOthers([200, showsTranscripts("private", "public")], [200, showsTranscripts()], [200, showsTranscripts("public", "anonymous")]),
  ),
  row(O.searchTranscripts, USERS_PRIVATE, ownerVsOthers([200, showsTranscripts("private", "public")], [200, showsTranscripts()], 401)),
  row(
    O.searchTranscripts,
    USERS_PUBLIC,
    ownerVsOthers([200, showsTranscripts("private", "public")], [200, showsTranscripts()], [200, showsTranscripts("public", "anonymous")]),
  ),
  // AUTH_BACKEND=none never answers 401 here, but what is listed still follows PUBLIC_MODE (§7.5).
  row(O.listTranscripts, ["none"], everyone([200, showsTranscripts()])),
  row(O.listTranscripts, ["none+public"], everyone([200, showsTranscripts("public", "anonymous")])),
  row(O.searchTranscripts, ["none"], everyone([200, showsTranscripts()])),
  row(O.searchTranscripts, ["none+public"], everyone([200, showsTranscripts("public", "anonymous")])),
  row(O.getPrivateTranscript, USERS, ownerVsOthers(200, 403)),
  row(O.getPrivateTranscript, NONE, everyone(403)),
  row(O.getPublicTranscript, ALL, everyone(200)),
  row(O.getAnonymousTranscript, ALL, everyone(200)),
  row(O.getMissingTranscript, ALL, everyone(404)),
  row(O.topicsPrivate, USERS, ownerVsOthers(200, 403)),
  row(O.topicsPrivate, NONE, everyone(403)),
  row(O.topicsWithWordsPrivate, USERS, ownerVsOthers(200, 403)),
  row(O.topicsWithWordsPrivate, NONE, everyone(403)),
  row(O.wordsPerSpeakerPrivate, USERS, ownerVsOthers(404, 403)),
  row(O.wordsPerSpeakerPrivate, NONE, everyone(403)),
  row(O.participantsPrivate, USERS, ownerVsOthers(200, 403)),
  row(O.participantsPrivate, NONE, everyone(403)),
  row(O.participantPrivate, USERS, ownerVsOthers(404, 403)),
  row(O.participantPrivate, NONE, everyone(403)),
  // WebSocket paths: a plain GET is a described stub answering 426 Upgrade Required to anyone.
  row(O.transcriptEventsHttp, ALL, everyone(426)),
  row(O.userEventsHttp, ALL, everyone(426)),

  // Transcript mutations: creating is `pub`; changing a transcript is its owner's (OWNER), its
  // participants and speakers are its owner's or anyone's on an anonymous transcript (EDIT);
  // processing needs READ only. AUTH_BACKEND=none has no users: every `req` route answers 401.
  row(O.createTranscript, USERS_PRIVATE, usersVsAnon([200, ownedByCaller], 401)),
  row(O.createTranscript, USERS_PUBLIC, usersVsAnon([200, ownedByCaller], [200, ownedByCaller])),
  row(O.createTranscript, NONE, everyone([200, ownedByNobody])),
  row(O.patchTranscript, USERS, ownerVsOthers(200, 403, 401)),
  row(O.patchTranscript, NONE, everyone(401)),
  row(O.deleteTranscript, USERS, ownerVsOthers(200, 403, 401)),
  row(O.deleteTranscript, NONE, everyone(401)),
  row(O.restoreTranscript, USERS, ownerVsOthers(200, 403, 401)),
  row(O.restoreTranscript, NONE, everyone(401)),
  row(O.destroyTranscript, USERS, ownerVsOthers(200, 403, 401)),
  row(O.destroyTranscript, NONE, everyone(401)),
  row(O.transcriptRuns, USERS_PRIVATE, ownerVsOthers(200, 403, 401)),
  row(O.transcriptRuns, USERS_PUBLIC, ownerVsOthers(200, 403)),
  row(O.transcriptRuns, NONE, everyone(403)),
  row(O.processTranscript, USERS_PRIVATE, ownerVsOthers(400, 403, 401)),
  row(O.processTranscript, USERS_PUBLIC, ownerVsOthers(400, 403)),
  row(O.processTranscript, NONE, everyone(403)),
  row(O.recordWebrtc, USERS_PRIVATE, ownerVsOthers(400, 403, 401)),
  row(O.recordWebrtc, USERS_PUBLIC, ownerVsOthers(400, 403)),
  row(O.recordWebrtc, NONE, everyone(403)),
  row(O.addParticipant, USERS, ownerVsOthers(200, 403, 401)),
  row(O.addParticipant, NONE, everyone(401)),
  row(O.addParticipantAnonymous, USERS, usersVsAnon(200, 401)),
  row(O.addParticipantAnonymous, NONE, everyone(401)),
  row(O.patchParticipant, USERS, ownerVsOthers(200, 403, 401)),
  row(O.patchParticipant, NONE, everyone(401)),
  row(O.deleteParticipant, USERS, ownerVsOthers(200, 403, 401)),
  row(O.deleteParticipant, NONE, everyone(401)),
  row(O.assignSpeaker, USERS, ownerVsOthers(200, 403, 401)),
  row(O.assignSpeaker, NONE, everyone(401)),
  row(O.mergeSpeakers, USERS, ownerVsOthers(200, 403, 401)),
  row(O.mergeSpeakers, NONE, everyone(401)),

  // Notifications. Config reads no credentials. The webhook test is the room owner's; sharing by
  // e-mail needs READ only (anonymous callers too); posting to the team chat needs a signed-in
  // reader; the chat directory answers 403 to anonymous callers (reference).
  row(O.config, ALL, everyone([200, isConfig])),
  row(O.testWebhook, USERS, ownerVsOthers([200, noWebhookUrl], 403, 401)),
  row(O.testWebhook, NONE, everyone(401)),
  row(O.testWebhookMissing, USERS, usersVsAnon(404, 401)),
  row(O.testWebhookMissing, NONE, everyone(401)),
  // Mail on request needs a signed-in reader (no anonymous relay; issue 15.8).
  row(O.emailPrivate, USERS, ownerVsOthers([200, sentOne], 403, 401)),
  row(O.emailPrivate, NONE, everyone(401)),
  row(O.emailPublic, USERS, usersVsAnon([200, sentOne], 401)),
  row(O.emailPublic, NONE, everyone(401)),
  row(O.emailAnonymous, USERS, usersVsAnon([200, sentOne], 401)),
  row(O.emailAnonymous, NONE, everyone(401)),
  row(O.zulipPrivate, USERS, ownerVsOthers([200, isNull], 403, 401)),
  row(O.zulipPrivate, NONE, everyone(401)),
  row(O.zulipPublic, USERS, usersVsAnon([200, isNull], 401)),
  row(O.zulipPublic, NONE, everyone(401)),
  row(O.zulipStreams, USERS, usersVsAnon([200, isStreams], 403)),
  row(O.zulipStreams, NONE, everyone(403)),
  row(O.zulipTopics, USERS, usersVsAnon([200, isTopics], 403)),
  row(O.zulipTopics, NONE, everyone(403)),
];

// ---- running it -------------------------------------------------------------------------------
const cases = expand(ROWS);
const worlds = new Map<Deployment, World>();

beforeAll(async () => {
  const used = [...new Set(cases.map((c) => c.deployment))];
  const started = await Promise.allSettled(used.map((d) => startWorld(d, seed)));
  for (const r of started) if (r.status === "fulfilled") worlds.set(r.value.deployment, r.value);
  const failed = started.find((r) => r.status === "rejected");
  if (failed) throw (failed as PromiseRejectedResult).reason;
}, 120_000);
afterAll(async () => {
  await Promise.all([...worlds.values()].map(stopWorld));
});

// Rows are independent (destructive ones make their own objects), so they run a few at a time.
describe.concurrent("permissions", () => {
  for (const c of cases) it(c.title, async () => runCase(worlds.get(c.deployment)!, c));
});

describe("the permission table", () => {
  it("has a row for every operation in /openapi.json", async () => {
    const documented = new Set<string>();
    for (const d of ["password", "jwt", "none"] as const) {
      const doc = await (await worlds.get(d)!.clients.anon("/openapi.json")).json();
      for (const [path, methods] of Object.entries(doc.paths as Record<string, object>)) {
        for (const method of Object.keys(methods)) documented.add(`${method.toUpperCase()} ${path}`);
      }
    }
    const covered = new Set(ROWS.map((r) => r.op.route));
    expect([...documented].filter((op) => !covered.has(op))).toEqual([]);
  });
});
