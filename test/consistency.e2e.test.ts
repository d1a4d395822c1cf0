// Read-your-writes across services (issue 21.1, docs/ARCHITECTURE.md "Consistency: read-your-writes"):
// a request made right after a room is created, changed or deleted sees that change in the meetings
// and calendar services, whose room copies are fed by events that arrive later — for the client
// that wrote, for another client, and for a caller that brings no known version at all.
import { meetingsOps, type Caller } from "@scribe/contracts";
import { servicesByName } from "@scribe/cli";
import { connectBus, rpcCall, startProcess, type Bus, type RunningProcess } from "@scribe/kit";
import { TEST_NATS_URL } from "@scribe/kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CALENDAR_TEST_ENV, startFeedServer, type FeedServer } from "./support/calendar";
import { post, startPlatformSystem, type PlatformSystem } from "./support/platforms";
import type { Client, JsonResponse } from "./support/system";

let sys: PlatformSystem;
let feeds: FeedServer;
let bus: Bus;
let alice: Client;
let bob: Client;
const ROOMS = 200;
const INTERNAL: Caller = { userId: null, email: null, via: "internal" };
const patch = (body: unknown): RequestInit => ({ method: "PATCH", body: JSON.stringify(body) });

beforeAll(async () => {
  feeds = await startFeedServer();
  feeds.set("/empty.ics", "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nEND:VCALENDAR\r\n");
  sys = await startPlatformSystem({
    label: "ryw",
    services: ["rooms", "meetings", "calendar", "gateway"],
    env: CALENDAR_TEST_ENV,
  });
  bus = await connectBus({ url: TEST_NATS_URL, prefix: sys.prefix, name: "test-ryw" });
  alice = sys.as("alice");
  bob = sys.as("bob");
}, 60_000);
afterAll(async () => {
  await bus?.close();
  await sys?.stop();
  await feeds?.close();
});

async function createRoom(name: string, extra: Record<string, unknown> = {}): Promise<{ id: string; name: string }> {
  const res = await alice("/v1/rooms", post({ name, ics_url: feeds.url("/empty.ics"), ics_enabled: true, ...extra }));
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
}

describe("read-your-writes", () => {
  it(`sees each of ${ROOMS} new rooms at once in meeting creation, ICS sync, ICS status and upcoming events`, async () => {
    const failures: string[] = [];
    for (let i = 0; i < ROOMS; i++) {
      const room = await createRoom(`ryw-${i}`);
      const answers = await Promise.all([
        alice(`/v1/rooms/${room.name}/meeting`, post({})),
        alice(`/v1/rooms/${room.name}/ics/sync`, { method: "POST" }),
        alice(`/v1/rooms/${room.name}/ics/status`),
        alice(`/v1/rooms/${room.name}/meetings/upcoming`),
      ]);
      for (const res of answers) if (res.status !== 200) failures.push(`${res.url} → ${res.status} ${await res.text()}`);
    }
    expect(failures).toEqual([]);
  }, 300_000);

  it("another client sees a new room at once, and so does a caller that knows no version", async () => {
    const room = await createRoom("ryw-other");
    const res = await bob(`/v1/rooms/${room.name}/meeting`, post({}));
    expect(res.status).toBe(200);
    const direct = await createRoom("ryw-direct");
    const meeting = await rpcCall(bus, meetingsOps.create, { caller: INTERNAL, room_name: direct.name, allow_duplicated: false });
    expect(meeting.room_id).toBe(direct.id);
  });

  it("creates the meeting on the platform a room was just switched to", async () => {
    for (let i = 0; i < 10; i++) {
      const room = await createRoom(`ryw-switch-${i}`, { platform: "daily" });
      const switched = await alice(`/v1/rooms/${room.id}`, patch({ platform: "whereby" }));
      expect(switched.status).toBe(200);
      const meeting = await (await bob(`/v1/rooms/${room.name}/meeting`, post({}))).json();
      expect(meeting.platform).toBe("whereby");
    }
  });

  it("sees a deleted room as gone at once", async () => {
    for (let i = 0; i < 10; i++) {
      const room = await createRoom(`ryw-gone-${i}`);
      expect((await alice(`/v1/rooms/${room.name}/meeting`, post({}))).status).toBe(200);
      expect((await alice(`/v1/rooms/${room.id}`, { method: "DELETE" })).status).toBe(200);
      for (const res of [
        await bob(`/v1/rooms/${room.name}/meeting`, post({})),
        await bob(`/v1/rooms/${room.name}/ics/status`),
        await bob(`/v1/rooms/${room.name}/meetings/upcoming`),
      ]) {
        expect(res.status).toBe(404);
        expect(await res.json()).toEqual({ detail: "Room not found" });
      }
    }
  });

  it("answers the written versions so a client can carry them to another gateway replica", async () => {
    const res = await alice("/v1/rooms", post({ name: "ryw-header" }));
    const header = res.headers.get("scribe-versions") ?? "";
    const body = await res.json();
    expect(header).toContain(`room:id:${body.id}=1`);
    expect(header).toContain("room:name:ryw-header=1");
  });
});

describe("read-your-writes across gateway replicas", () => {
  // A second process runs another replica of the gateway, meetings and calendar on the same
  // database and bus prefix: the writer talks to replica 1, the reader to replica 2, and no
  // client carries Scribe-Versions — replica 2 learns the written versions from the shared bucket.
  let second: RunningProcess;
  let onSecond: (name: string) => Client;
  const ROUNDS = Number(process.env.RYW_REPLICA_ROUNDS ?? 50);

  beforeAll(async () => {
    second = await startProcess(servicesByName(["meetings", "calendar", "gateway"]), sys.env);
    const gateway = second.services.find((s) => s.name === "gateway")!;
    const base = `http://127.0.0.1:${gateway.exports.port as number}`;
    onSecond =
      (name) =>
      async (path, init = {}) => {
        // The same credentials as on replica 1, sent to replica 2's address.
        const headers = new Headers(init.headers);
        headers.set("authorization", `Bearer ${await sys.token(name)}`);
        if (init.body) headers.set("content-type", "application/json");
        return (await fetch(`${base}${path}`, { ...init, headers })) as JsonResponse;
      };
  }, 60_000);
  afterAll(async () => second?.stop());

  it(`sees each of ${ROUNDS} rooms created on replica 1 at once on replica 2`, async () => {
    const failures: string[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const room = await createRoom(`ryw2-${i}`);
      const answers = await Promise.all([
        onSecond("bob")(`/v1/rooms/${room.name}/meeting`, post({})),
        onSecond("alice")(`/v1/rooms/${room.name}/ics/sync`, { method: "POST" }),
        onSecond("alice")(`/v1/rooms/${room.name}/ics/status`),
        onSecond("bob")(`/v1/rooms/${room.name}/meetings/upcoming`),
      ]);
      for (const res of answers) if (res.status !== 200) failures.push(`${res.url} → ${res.status} ${await res.text()}`);
    }
    expect(failures).toEqual([]);
  }, 600_000);

  it(`creates the meeting on replica 2 on the platform a room was just switched to on replica 1 (${ROUNDS} rounds)`, async () => {
    const wrong: string[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const room = await createRoom(`ryw2-switch-${i}`, { platform: "daily" });
      // Replica 2's meetings copy holds the room at its first version before the switch.
      expect((await onSecond("bob")(`/v1/rooms/${room.name}/meetings/active`)).status).toBe(200);
      expect((await alice(`/v1/rooms/${room.id}`, patch({ platform: "whereby" }))).status).toBe(200);
      const res = await onSecond("bob")(`/v1/rooms/${room.name}/meeting`, post({}));
      expect(res.status).toBe(200);
      const meeting = await res.json();
      if (meeting.platform !== "whereby") wrong.push(`${room.name}: ${meeting.platform}`);
    }
    expect(wrong).toEqual([]);
  }, 300_000);

  it("sees a room deleted on replica 1 as gone at once on replica 2", async () => {
    for (let i = 0; i < 10; i++) {
      const room = await createRoom(`ryw2-gone-${i}`);
      expect((await onSecond("bob")(`/v1/rooms/${room.name}/meeting`, post({}))).status).toBe(200);
      expect((await alice(`/v1/rooms/${room.id}`, { method: "DELETE" })).status).toBe(200);
      const res = await onSecond("bob")(`/v1/rooms/${room.name}/meeting`, post({}));
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ detail: "Room not found" });
    }
  });
});
