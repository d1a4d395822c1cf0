// Realtime WebSockets end to end (behaviour-transcripts-pipelines §2.2–2.4, api.md §2.18): events
// published on the TRANSCRIPTS stream (as the transcription service does) reach transcript sockets,
// with the stored log replayed first, and owners' user sockets, through a real gateway.
import { ok } from "@scribe/client";
import type { EventInput, PipelineEventName } from "@scribe/contracts";
import { eventually } from "@scribe/kit/testing";
import { request } from "node:http";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { onTranscript } from "./support/api";
import { TEST_SECRET, startSystem, type TestSystem } from "./support/system";
import { SignJWT } from "jose";
import { TranscriptWriter } from "./support/transcripts";
import { mustOpen, openSocket, type WsMessage } from "./support/websocket";

let sys: TestSystem;
let tw: TranscriptWriter;

beforeAll(async () => {
  sys = await startSystem({ label: "realtime", services: ["projection", "gateway"], env: { METRICS_ON_API_PORT: "true" } });
  tw = await TranscriptWriter.connect(sys.prefix);
});
afterAll(async () => {
  await tw?.close();
  await sys?.stop();
});

/** Publishes one event-log entry of `transcript_id` (owner `user_id`), by processing run `run_id`. */
async function append(
  transcript_id: string,
  user_id: string | null,
  event: PipelineEventName,
  data: Record<string, unknown>,
  run_id: string | null = "run-1",
): Promise<void> {
  const entry: EventInput<"transcript.event.appended"> = { transcript_id, user_id, run_id, event, data };
  await tw.publish("transcript.event.appended", entry);
}

/** A transcript the read model knows (so its socket's access check can find it). */
async function transcript(user_id: string | null, share_mode: "private" | "semi-private" | "public" = "private"): Promise<string> {
  const t = await tw.create({ user_id, share_mode });
  await tw.applied(t.id);
  return t.id;
}

const bearer = async (name: string) => ["bearer", await sys.token(name)];
const eventsOf = (id: string) => `/v1/transcripts/${id}/events`;
const msg = (event: string, data: Record<string, unknown>): WsMessage => ({ event, data });

describe("GET(ws) /v1/transcripts/{id}/events", () => {
  it("replays the stored log without TRANSCRIPT and STATUS, in stored order, then relays live events of every name", async () => {
    const id = await transcript(null);
    const other = await transcript(null);
    const topic = { id: "t1", title: "Intro", summary: "S", timestamp: 0, duration: 0, transcript: "Hello", words: [] };
    await append(id, null, "STATUS", { value: "processing" });
    await append(id, null, "TRANSCRIPT", { text: "Hello", translation: null });
    await append(id, null, "TOPIC", topic);
    await append(other, null, "FINAL_TITLE", { title: "Someone else's" });
    await append(id, null, "WAVEFORM", { waveform: [0, 0.5, 1] });
    await append(id, null, "FINAL_TITLE", { title: "Weekly" });
    await append(id, null, "STATUS", { value: "ended" });
    await append(id, null, "DURATION", { duration: 61000 });

    const socket = await mustOpen(sys.baseUrl, eventsOf(id));
    const replayed = [
      msg("TOPIC", topic),
      msg("WAVEFORM", { waveform: [0, 0.5, 1] }),
      msg("FINAL_TITLE", { title: "Weekly" }),
      msg("DURATION", { duration: 61000 }),
    ];
    expect(await socket.received(4)).toEqual(replayed);

    await append(id, null, "TRANSCRIPT", { text: "Live words", translation: null });
    await append(id, null, "STATUS", { value: "processing" });
    await append(other, null, "STATUS", { value: "ended" });
    await append(id, null, "FINAL_LONG_SUMMARY", { long_summary: "Long" });
    await append(id, null, "FINAL_SHORT_SUMMARY", { short_summary: "Short" });
    await append(id, null, "ACTION_ITEMS", { action_items: { decisions: [], next_steps: [] } });
    const all = await socket.until((m) => m.event === "ACTION_ITEMS");
    expect(all).toEqual([
      ...replayed,
      msg("TRANSCRIPT", { text: "Live words", translation: null }),
      msg("STATUS", { value: "processing" }),
      msg("FINAL_LONG_SUMMARY", { long_summary: "Long" }),
      msg("FINAL_SHORT_SUMMARY", { short_summary: "Short" }),
      msg("ACTION_ITEMS", { action_items: { decisions: [], next_steps: [] } }),
    ]);
    socket.close();
  });

  it("replays only the log of the latest run (a run starts the log afresh), and relays a new run's events live", async () => {
    const id = await transcript(null);
    await append(id, null, "TOPIC", { id: "first-run-topic" }, "run-1");
    await append(id, null, "FINAL_TITLE", { title: "First" }, "run-1");
    await append(id, null, "STATUS", { value: "processing" }, "run-2");
    await append(id, null, "TOPIC", { id: "second-run-topic" }, "run-2");
    await append(id, null, "FINAL_TITLE", { title: "Renamed" }, null);
    const socket = await mustOpen(sys.baseUrl, eventsOf(id));
    await append(id, null, "TOPIC", { id: "third-run-topic" }, "run-3");
    expect(await socket.until((m) => m.data.id === "third-run-topic")).toEqual([
      msg("TOPIC", { id: "second-run-topic" }),
      msg("FINAL_TITLE", { title: "Renamed" }),
      msg("TOPIC", { id: "third-run-topic" }),
    ]);
    socket.close();
  });

  it("accepts a transcript with no events and relays what comes later", async () => {
    const id = await transcript(null);
    const socket = await mustOpen(sys.baseUrl, eventsOf(id));
    await append(id, null, "STATUS", { value: "processing" });
    expect(await socket.received(1)).toEqual([msg("STATUS", { value: "processing" })]);
    socket.close();
  });

  it("loses no event published while sockets connect", async () => {
    const id = await transcript(null);
    const total = 40;
    const sockets: Promise<Awaited<ReturnType<typeof mustOpen>>>[] = [];
    for (let i = 0; i < total; i++) {
      // Sockets open at different points of the publishing, each racing the next publishes.
      if (i % 8 === 0) sockets.push(mustOpen(sys.baseUrl, eventsOf(id)));
      await append(id, null, "FINAL_TITLE", { title: `title ${i}` });
    }
    const expected = Array.from({ length: total }, (_, i) => msg("FINAL_TITLE", { title: `title ${i}` }));
    for (const s of await Promise.all(sockets)) {
      // Every entry exactly once and in order, whether it came as stored or as live.
      expect(await s.received(total)).toEqual(expected);
      s.close();
    }
  });

  it("relays a STATUS published right after the socket opened (it is live, not stored)", async () => {
    const id = await transcript(null);
    await append(id, null, "STATUS", { value: "processing" });
    const socket = await mustOpen(sys.baseUrl, eventsOf(id));
    await append(id, null, "STATUS", { value: "ended" });
    expect(await socket.until((m) => m.event === "STATUS")).toEqual([msg("STATUS", { value: "ended" })]);
    socket.close();
  });

  it("shares one consumer among a transcript's sockets, each getting every event, and leaves none once they closed", async () => {
    const id = await transcript(null);
    // The ephemeral consumers reading this transcript (the services' consumers are durable and unfiltered).
    const consumersOf = async () => {
      let n = 0;
      for await (const c of tw.bus.jsm.consumers.list(tw.bus.stream("TRANSCRIPTS"))) {
        const filters = [c.config.filter_subject ?? "", ...(c.config.filter_subjects ?? [])];
        if (!c.config.durable_name && filters.some((f) => f.endsWith(id))) n++;
      }
      return n;
    };
    await append(id, null, "FINAL_TITLE", { title: "stored" });
    const sockets = await Promise.all(Array.from({ length: 6 }, () => mustOpen(sys.baseUrl, eventsOf(id))));
    for (const s of sockets) expect(await s.received(1)).toEqual([msg("FINAL_TITLE", { title: "stored" })]);
    // Each replay's consumer goes once its stored log is read; the live one is shared.
    await eventually(async () => (await consumersOf()) === 1, { message: "one consumer for six sockets" });
    await append(id, null, "FINAL_TITLE", { title: "live" });
    for (const s of sockets)
      expect(await s.received(2)).toEqual([msg("FINAL_TITLE", { title: "stored" }), msg("FINAL_TITLE", { title: "live" })]);
    for (const s of sockets.slice(1)) s.close();
    await append(id, null, "FINAL_TITLE", { title: "to the last one" });
    expect(await sockets[0]!.received(3)).toEqual([
      msg("FINAL_TITLE", { title: "stored" }),
      msg("FINAL_TITLE", { title: "live" }),
      msg("FINAL_TITLE", { title: "to the last one" }),
    ]);
    expect(await consumersOf()).toBe(1);
    sockets[0]!.close();
    await eventually(async () => (await consumersOf()) === 0, { message: "no consumer left" });
  });

  it("closes the sockets of readers who lose access when the share mode changes, and keeps the owner's", async () => {
    const id = await transcript("alice", "public");
    const anonymous = await mustOpen(sys.baseUrl, eventsOf(id));
    const bob = await mustOpen(sys.baseUrl, eventsOf(id), await bearer("bob"));
    const owner = await mustOpen(sys.baseUrl, eventsOf(id), await bearer("alice"));
    await tw.update(id, { share_mode: "semi-private" });
    expect(await anonymous.closedWith()).toEqual({ code: 4403, reason: "Transcript access denied" });
    await tw.update(id, { share_mode: "private" });
    expect(await bob.closedWith()).toEqual({ code: 4403, reason: "Transcript access denied" });
    await append(id, "alice", "FINAL_TITLE", { title: "still here" });
    expect(await owner.received(1)).toEqual([msg("FINAL_TITLE", { title: "still here" })]);
    expect(owner.closed).toBeNull();
    owner.close();
  });

  it("closes non-owners' sockets when the transcript is deleted or destroyed, and keeps the owner's", async () => {
    const deleted = await transcript("alice", "public");
    const destroyed = await transcript("alice", "public");
    const readers = [await mustOpen(sys.baseUrl, eventsOf(deleted)), await mustOpen(sys.baseUrl, eventsOf(deleted), await bearer("bob"))];
    const destroyedReader = await mustOpen(sys.baseUrl, eventsOf(destroyed), await bearer("bob"));
    const owners = [
      await mustOpen(sys.baseUrl, eventsOf(deleted), await bearer("alice")),
      await mustOpen(sys.baseUrl, eventsOf(destroyed), await bearer("alice")),
    ];
    await tw.update(deleted, { deleted_at: new Date().toISOString() });
    for (const s of readers) expect(await s.closedWith()).toEqual({ code: 4404, reason: "Transcript not found" });
    await tw.update(destroyed, { deleted_at: new Date().toISOString() });
    await tw.destroy(destroyed);
    expect(await destroyedReader.closedWith()).toEqual({ code: 4404, reason: "Transcript not found" });
    await append(deleted, "alice", "FINAL_TITLE", { title: "owner 1" });
    await append(destroyed, "alice", "FINAL_TITLE", { title: "owner 2" });
    expect(await owners[0]!.received(1)).toEqual([msg("FINAL_TITLE", { title: "owner 1" })]);
    expect(await owners[1]!.received(1)).toEqual([msg("FINAL_TITLE", { title: "owner 2" })]);
    for (const s of owners) {
      expect(s.closed).toBeNull();
      s.close();
    }
  });

  it("refuses the handshake on a private transcript of another user, and anonymously", async () => {
    const id = await transcript("alice");
    expect(await openSocket(sys.baseUrl, eventsOf(id), await bearer("bob"))).toEqual({ kind: "refused", status: 403 });
    expect(await openSocket(sys.baseUrl, eventsOf(id))).toEqual({ kind: "refused", status: 403 });
    const own = await mustOpen(sys.baseUrl, eventsOf(id), await bearer("alice"));
    // The negotiated subprotocol is `bearer`, never the token.
    expect(own.protocol).toBe("bearer");
    own.close();
  });

  it("applies the share modes: semi-private to signed-in users, public to anyone", async () => {
    const semi = await transcript("alice", "semi-private");
    const pub = await transcript("alice", "public");
    (await mustOpen(sys.baseUrl, eventsOf(semi), await bearer("bob"))).close();
    expect(await openSocket(sys.baseUrl, eventsOf(semi))).toEqual({ kind: "refused", status: 403 });
    (await mustOpen(sys.baseUrl, eventsOf(pub))).close();
  });

  it("lets anyone read an anonymous transcript, with or without a token", async () => {
    const id = await transcript(null);
    (await mustOpen(sys.baseUrl, eventsOf(id))).close();
    (await mustOpen(sys.baseUrl, eventsOf(id), await bearer("bob"))).close();
  });

  it("refuses unknown and soft-deleted transcripts with 404 and a token that does not verify with 401", async () => {
    expect(await openSocket(sys.baseUrl, eventsOf("00000000-0000-4000-8000-000000000000"))).toEqual({ kind: "refused", status: 404 });
    const id = await transcript(null);
    await tw.update(id, { deleted_at: new Date().toISOString() });
    await tw.applied(id);
    expect(await openSocket(sys.baseUrl, eventsOf(id))).toEqual({ kind: "refused", status: 404 });
    const open = await transcript(null);
    expect(await openSocket(sys.baseUrl, eventsOf(open), ["bearer", "not-a-token"])).toEqual({ kind: "refused", status: 401 });
  });
});

describe("GET(ws) /v1/events", () => {
  it("closes with 4401 without a token or with one that does not verify", async () => {
    for (const protocols of [[], ["bearer", "not-a-token"]]) {
      const s = await mustOpen(sys.baseUrl, "/v1/events", protocols);
      expect((await s.closedWith()).code).toBe(4401);
    }
  });

  it("closes a user socket with 4401 when its token expires", async () => {
    const now = Math.floor(Date.now() / 1000);
    const shortLived = await new SignJWT({ email: null })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject("alice")
      .setExpirationTime(now + 2)
      .sign(new TextEncoder().encode(TEST_SECRET));
    const s = await mustOpen(sys.baseUrl, "/v1/events", ["bearer", shortLived]);
    expect(s.protocol).toBe("bearer");
    expect(await s.closedWith()).toEqual({ code: 4401, reason: "Token expired" });
  });

  it("relays STATUS, FINAL_TITLE and DURATION of the user's own transcripts only, as TRANSCRIPT_*", async () => {
    const alice = await mustOpen(sys.baseUrl, "/v1/events", await bearer("alice"));
    const bob = await mustOpen(sys.baseUrl, "/v1/events", await bearer("bob"));
    expect(alice.protocol).toBe("bearer");
    // Transcripts need not be in the read model: the owner travels with each event.
    await append("bobs", "bob", "STATUS", { value: "processing" });
    await append("anons", null, "STATUS", { value: "processing" });
    await append("t-a", "alice", "TOPIC", { id: "x", title: "T", summary: "S", timestamp: 0, duration: 0, transcript: "", words: [] });
    await append("t-a", "alice", "TRANSCRIPT", { text: "hi", translation: null });
    await append("t-a", "alice", "STATUS", { value: "processing" });
    await append("t-a", "alice", "FINAL_TITLE", { title: "Standup" });
    await append("t-a", "alice", "FINAL_LONG_SUMMARY", { long_summary: "L" });
    await append("t-a", "alice", "DURATION", { duration: 1500.5 });
    await append("bobs", "bob", "DURATION", { duration: 10 });

    expect(await alice.until((m) => m.event === "TRANSCRIPT_DURATION")).toEqual([
      msg("TRANSCRIPT_STATUS", { id: "t-a", value: "processing" }),
      msg("TRANSCRIPT_FINAL_TITLE", { id: "t-a", title: "Standup" }),
      msg("TRANSCRIPT_DURATION", { id: "t-a", duration: 1500.5 }),
    ]);
    expect(await bob.until((m) => m.event === "TRANSCRIPT_DURATION")).toEqual([
      msg("TRANSCRIPT_STATUS", { id: "bobs", value: "processing" }),
      msg("TRANSCRIPT_DURATION", { id: "bobs", duration: 10 }),
    ]);
    alice.close();
    bob.close();
  });

  it("announces TRANSCRIPT_CREATED, DELETED and RESTORED, and DELETED on destroy, to the owner", async () => {
    const carol = await mustOpen(sys.baseUrl, "/v1/events", await bearer("carol"));
    const lifecycle = (transcript_id: string, user_id: string, action: "created" | "deleted" | "restored") =>
      tw.publish("transcript.lifecycle.changed", { transcript_id, user_id, action });
    await lifecycle("c1", "dave", "created");
    await lifecycle("c1", "carol", "created");
    await lifecycle("c1", "carol", "deleted");
    await lifecycle("c1", "carol", "restored");
    const t = await tw.create({ user_id: "carol" });
    await tw.destroy(t.id);
    expect(await carol.received(4)).toEqual([
      msg("TRANSCRIPT_CREATED", { id: "c1" }),
      msg("TRANSCRIPT_DELETED", { id: "c1" }),
      msg("TRANSCRIPT_RESTORED", { id: "c1" }),
      msg("TRANSCRIPT_DELETED", { id: t.id }),
    ]);
    carol.close();
  });

  it("delivers to every socket of the same user", async () => {
    const first = await mustOpen(sys.baseUrl, "/v1/events", await bearer("erin"));
    const second = await mustOpen(sys.baseUrl, "/v1/events", await bearer("erin"));
    await append("e1", "erin", "FINAL_TITLE", { title: "Both" });
    for (const s of [first, second]) {
      expect(await s.received(1)).toEqual([msg("TRANSCRIPT_FINAL_TITLE", { id: "e1", title: "Both" })]);
      s.close();
    }
  });
});

describe("the WebSocket paths over plain HTTP", () => {
  it("answer 426 and are described in OpenAPI with the message unions", async () => {
    const anon = sys.client(null);
    expect((await anon.GET("/v1/events")).response.status).toBe(426);
    expect(
      (await anon.GET("/v1/transcripts/{transcript_id}/events", onTranscript("00000000-0000-4000-8000-000000000000"))).response.status,
    ).toBe(426);
    // Raw: the OpenAPI document is not an operation of itself.
    const doc = await (await sys.as(null)("/openapi.json")).json();
    expect(doc.paths["/v1/events"].get.operationId).toBe("v1_user_get_websocket_events");
    expect(doc.paths["/v1/transcripts/{transcript_id}/events"].get.operationId).toBe("v1_transcript_get_websocket_events");
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(["TranscriptWsStatus", "TranscriptWsTopic", "UserWsTranscriptCreated", "UserTranscriptDurationData"]),
    );
  });
});

describe("requests offering another upgrade", () => {
  /** node:http, since fetch cannot send Upgrade headers; fails if the server switches protocols. */
  const get = (path: string, headers: Record<string, string>) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port: new URL(sys.baseUrl).port, path, headers }, (res) => {
        let body = "";
        res.on("data", (c: Buffer) => (body += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on("upgrade", () => reject(new Error("the server switched protocols")));
      req.on("error", reject);
      req.end();
    });

  it("are answered as plain requests, whole (e.g. curl --http2 offering h2c)", async () => {
    const h2c = { connection: "Upgrade, HTTP2-Settings", upgrade: "h2c", "http2-settings": "AAMAAABkAARAAAAAAAIAAAAA" };
    const stub = await get("/v1/events", h2c);
    expect(stub.status).toBe(426);
    expect(JSON.parse(stub.body)).toEqual({ detail: expect.stringContaining("WebSocket") });
    const health = await get("/health", h2c);
    expect([health.status, JSON.parse(health.body)]).toEqual([200, { status: "healthy" }]);
  });
});

describe("metrics", () => {
  it("counts open sockets by kind", async () => {
    const gauge = async (socket: string) => {
      const text = await ok(sys.client(null).GET("/metrics", { parseAs: "text" }));
      const line = new RegExp(`^scribe_websockets_open\\{socket="${socket}"\\} (\\d+)$`, "m").exec(text);
      return line ? Number(line[1]) : 0;
    };
    const before = await gauge("user");
    const s = await mustOpen(sys.baseUrl, "/v1/events", await bearer("frank"));
    await eventually(async () => (await gauge("user")) === before + 1);
    s.close();
    await eventually(async () => (await gauge("user")) === before);
  });
});

describe("with the transcription service", () => {
  it("announces the owner's create, delete, restore and destroy through the API on their user socket only", async () => {
    const full = await startSystem({ label: "realtime-tx", services: ["projection", "transcription", "gateway"] });
    try {
      const alice = await mustOpen(full.baseUrl, "/v1/events", ["bearer", await full.token("alice")]);
      const bob = await mustOpen(full.baseUrl, "/v1/events", ["bearer", await full.token("bob")]);
      const as = full.client("alice");
      const { id } = await ok(as.POST("/v1/transcripts", { body: { name: "Realtime" } }));
      // The owner may open its transcript socket at once (the answer waited for the read model).
      (await mustOpen(full.baseUrl, eventsOf(id), ["bearer", await full.token("alice")])).close();
      await ok(as.DELETE("/v1/transcripts/{transcript_id}", onTranscript(id)));
      await ok(as.POST("/v1/transcripts/{transcript_id}/restore", onTranscript(id)));
      await ok(as.DELETE("/v1/transcripts/{transcript_id}", onTranscript(id)));
      await ok(as.DELETE("/v1/transcripts/{transcript_id}/destroy", onTranscript(id)));
      expect(await alice.received(5)).toEqual([
        msg("TRANSCRIPT_CREATED", { id }),
        msg("TRANSCRIPT_DELETED", { id }),
        msg("TRANSCRIPT_RESTORED", { id }),
        msg("TRANSCRIPT_DELETED", { id }),
        msg("TRANSCRIPT_DELETED", { id }),
      ]);
      // Bob's own create comes after all of alice's events on the bus: only it reaches his socket.
      const own = await ok(full.client("bob").POST("/v1/transcripts", { body: { name: "Bob's" } }));
      expect(await bob.received(1)).toEqual([msg("TRANSCRIPT_CREATED", { id: own.id })]);
      alice.close();
      bob.close();
    } finally {
      await full.stop();
    }
  });
});

describe("with AUTH_BACKEND=none, and pings", () => {
  let none: TestSystem;
  let writer: TranscriptWriter;
  let id: string;
  beforeAll(async () => {
    none = await startSystem({
      label: "realtime-none",
      services: ["projection", "gateway"],
      auth: "none",
      env: { WS_PING_INTERVAL_MS: "300" },
    });
    writer = await TranscriptWriter.connect(none.prefix);
    id = (await writer.create({ user_id: null })).id;
    await writer.applied(id);
  });
  afterAll(async () => {
    await writer?.close();
    await none?.stop();
  });

  it("closes every user socket with 4401 (nobody is signed in), token or not", async () => {
    for (const protocols of [[], ["bearer", await none.token("alice")]]) {
      expect((await (await mustOpen(none.baseUrl, "/v1/events", protocols)).closedWith()).code).toBe(4401);
    }
  });

  it("opens transcript sockets anonymously, whatever token is sent", async () => {
    (await mustOpen(none.baseUrl, eventsOf(id), ["bearer", "anything"])).close();
  });

  it("drops a client that leaves pings unanswered and keeps one that answers them", async () => {
    const silent = await mustOpen(none.baseUrl, eventsOf(id), [], { autoPong: false });
    const answering = await mustOpen(none.baseUrl, eventsOf(id));
    let pings = 0;
    answering.ws.on("ping", () => pings++);
    // Terminated, not closed: no close frame, so the client sees an abnormal closure.
    expect((await silent.closedWith()).code).toBe(1006);
    await eventually(() => pings >= 4, { message: "four pings" });
    expect(answering.closed).toBeNull();
    answering.close();
  });
});

describe("with an identity provider (AUTH_BACKEND=jwt), and at shutdown", () => {
  it("opens a user socket for a provider token of a new identity, and closes sockets with 1001 when the gateway stops", async () => {
    const jwt = await startSystem({ label: "realtime-jwt", services: ["projection", "gateway"], auth: "jwt" });
    const writer = await TranscriptWriter.connect(jwt.prefix);
    let stopped = false;
    try {
      // The socket's token is the identity's first appearance: it provisions the user, as HTTP does.
      const user = await mustOpen(jwt.baseUrl, "/v1/events", ["bearer", await jwt.token("grace")]);
      const db = postgres(jwt.db.url, { max: 1 });
      const provisioned = await db<{ id: string }[]>`select id from gateway.users where provider_uid = 'grace'`.finally(() => db.end());
      expect(provisioned).toHaveLength(1);
      const id = await jwt.userId("grace");
      expect(id).toBe(provisioned[0]!.id);
      const t = await writer.create({ user_id: null });
      await writer.applied(t.id);
      const feed = await mustOpen(jwt.baseUrl, eventsOf(t.id));
      await writer.publish("transcript.event.appended", {
        transcript_id: "g1",
        user_id: id,
        run_id: null,
        event: "STATUS",
        data: { value: "ended" },
      });
      expect(await user.received(1)).toEqual([msg("TRANSCRIPT_STATUS", { id: "g1", value: "ended" })]);

      await jwt.stop();
      stopped = true;
      expect((await user.closedWith()).code).toBe(1001);
      expect((await feed.closedWith()).code).toBe(1001);
    } finally {
      await writer.close();
      if (!stopped) await jwt.stop();
    }
  });
});

describe("transcript sockets per client", () => {
  let capped: TestSystem;
  let writer: TranscriptWriter;
  let id: string;
  beforeAll(async () => {
    capped = await startSystem({
      label: "realtime-cap",
      services: ["projection", "gateway"],
      env: { WS_MAX_TRANSCRIPT_SOCKETS_PER_CLIENT: "2" },
    });
    writer = await TranscriptWriter.connect(capped.prefix);
    id = (await writer.create({ user_id: null })).id;
    await writer.applied(id);
  });
  afterAll(async () => {
    await writer?.close();
    await capped?.stop();
  });

  it("refuses a client's socket past the cap with 429, and accepts one again once a socket closed", async () => {
    const first = await mustOpen(capped.baseUrl, eventsOf(id));
    const second = await mustOpen(capped.baseUrl, eventsOf(id));
    expect(await openSocket(capped.baseUrl, eventsOf(id))).toEqual({ kind: "refused", status: 429 });
    first.close();
    await first.closedWith();
    const again = await eventually(async () => {
      const s = await openSocket(capped.baseUrl, eventsOf(id));
      return s.kind === "open" ? s : null;
    });
    again.close();
    second.close();
  });
});
