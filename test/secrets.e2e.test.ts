// Secrets stay secret (issue 15.14): room events carry whether a room has a webhook secret, never the
// secret; the rooms database keeps it sealed (key derived from SECRET_KEY), plain values from before
// are sealed at start-up; other services get it over request/reply only; `scribe tail` and `scribe
// dlq` print no secret, not even from events written before.
import { eventSubject, roomsOps, INTERNAL_CALLER } from "@scribe/contracts";
import { tailStream } from "@scribe/cli";
import { connectBus, connectDb, rpcCall, secretBox, type Bus, type Sql } from "@scribe/kit";
import { TEST_NATS_URL, eventually } from "@scribe/kit/testing";
import { ok } from "@scribe/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sealPlainWebhookSecrets } from "../services/rooms/src/store";
import { TEST_SECRET, startSystem, streamEvents, type TestSystem } from "./support/system";

let sys: TestSystem;
let bus: Bus;
let db: Sql;
const SECRET = "unique-webhook-secret-4c1f9e";

beforeAll(async () => {
  sys = await startSystem({ label: "secrets", services: ["rooms", "gateway"] });
  bus = await connectBus({ url: TEST_NATS_URL, prefix: sys.prefix, name: "test-secrets" });
  db = connectDb(sys.db.url, { schema: "rooms", max: 2 });
});
afterAll(async () => {
  await db?.end({ timeout: 5 });
  await bus?.close();
  await sys?.stop();
});

async function createHookedRoom(name: string): Promise<string> {
  const room = await ok(
    sys.client("alice").POST("/v1/rooms", { body: { name, webhook_url: "https://hooks.example.com/x", webhook_secret: SECRET } }),
  );
  return room.id;
}

describe("webhook secrets", () => {
  it("are not in room events, which say only that there is one", async () => {
    const id = await createHookedRoom("hooked");
    const patched = await sys
      .client("alice")
      .PATCH("/v1/rooms/{room_id}", { params: { path: { room_id: id } }, body: { name: "hooked-2" } });
    expect(patched.data?.webhook_secret).toBe(SECRET);
    const events = await eventually(async () => {
      const evs = (await streamEvents(sys.prefix, "ROOMS")).filter((e) => e.data.id === id);
      return evs.length === 2 ? evs : null;
    });
    expect(JSON.stringify(events)).not.toContain(SECRET);
    expect(events.map((e) => [e.type, e.data.has_webhook_secret, "webhook_secret" in e.data])).toEqual([
      ["room.created", true, false],
      ["room.updated", true, false],
    ]);
  });

  it("are sealed in the rooms database, and plain ones from before are sealed", async () => {
    const id = await createHookedRoom("sealed");
    const [row] = await db<{ webhook_secret: string }[]>`select webhook_secret from room where id = ${id}`;
    expect(row!.webhook_secret).not.toContain(SECRET);
    expect(row!.webhook_secret).toMatch(/^sealed:v1:/);

    await db`update room set webhook_secret = 'plain-from-before' where id = ${id}`;
    const box = secretBox(TEST_SECRET, "rooms.webhook_secret");
    expect(await sealPlainWebhookSecrets(db, box)).toBe(1);
    const [after] = await db<{ webhook_secret: string }[]>`select webhook_secret from room where id = ${id}`;
    expect(after!.webhook_secret).toMatch(/^sealed:v1:/);
    expect(box.open(after!.webhook_secret)).toBe("plain-from-before");
    // A different key opens nothing.
    expect(() => secretBox(`${TEST_SECRET}-other`, "rooms.webhook_secret").open(after!.webhook_secret)).toThrow();
  });

  it("reach other services over request/reply, and nobody else", async () => {
    const id = await createHookedRoom("asked");
    expect(await rpcCall(bus, roomsOps.webhookSecret, { caller: INTERNAL_CALLER, id })).toEqual({ webhook_secret: SECRET });
    const owner = { userId: "alice", email: null, via: "bearer" as const };
    await expect(rpcCall(bus, roomsOps.webhookSecret, { caller: owner, id })).rejects.toMatchObject({ kind: "forbidden" });
  });

  it("are not printed by scribe tail, even from events written before they left events", async () => {
    const id = "room-from-before";
    const old = {
      type: "room.updated",
      id: crypto.randomUUID(),
      data: { id, webhook_secret: SECRET, ics_url: "https://user:hunter2@cal.example.com/feed.ics" },
    };
    await bus.js.publish(bus.subject(eventSubject({ stream: "ROOMS", type: "room.updated" }, id)), JSON.stringify(old));
    const printed = await eventually(async () => {
      const all = [];
      for await (const e of tailStream(bus, { stream: "ROOMS" })) all.push(e);
      return all.some((e) => (e.data as { data?: { id?: string } }).data?.id === id) ? JSON.stringify(all) : null;
    });
    expect(printed).not.toContain(SECRET);
    expect(printed).not.toContain("hunter2");
    expect(printed).toContain("[redacted]");
  });
});
