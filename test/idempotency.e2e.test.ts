// Idempotency-Key on creates (issue 20): a client that lost its connection sends the create again
// with the same key and gets the first answer, not a duplicate — on any gateway replica (a second
// gateway runs in its own process group here), and when the duplicates arrive at once.
import { randomUUID } from "node:crypto";
import { ok, type ScribeClient } from "@scribe/client";
import { createScribeClient } from "@scribe/client";
import { connectDb, startProcess, type RunningProcess, type Sql } from "@scribe/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gatewayService } from "@scribe/gateway";
import { startPlatformSystem, type PlatformSystem } from "./support/platforms";

let sys: PlatformSystem;
let replica2: RunningProcess;
let alice: ScribeClient;
let aliceOnReplica2: ScribeClient;
let bob: ScribeClient;
let gatewayDb: Sql;

const header = (key: string) => ({ header: { "idempotency-key": key } });

beforeAll(async () => {
  sys = await startPlatformSystem({ label: "idempotency", services: ["rooms", "meetings", "transcription", "projection", "gateway"] });
  replica2 = await startProcess([gatewayService], sys.env);
  const port = replica2.services[0]!.exports.port as number;
  alice = sys.client("alice");
  bob = sys.client("bob");
  aliceOnReplica2 = createScribeClient({ baseUrl: `http://127.0.0.1:${port}`, token: () => sys.token("alice") });
  gatewayDb = connectDb(sys.db.url, { schema: "gateway", max: 1 });
}, 120_000);
afterAll(async () => {
  await gatewayDb?.end({ timeout: 5 });
  await replica2?.stop();
  await sys?.stop();
});

async function transcriptTitles(api: ScribeClient): Promise<string[]> {
  const page = await ok(api.GET("/v1/transcripts", { params: { query: { size: 100 } } }));
  return page.items.map((t) => t.name);
}

describe("Idempotency-Key on POST /v1/transcripts", () => {
  it("answers a repeated create with the first answer, marked replayed, on either replica, and creates one transcript", async () => {
    const key = randomUUID();
    const body = { name: "retried upload" };
    const first = await alice.POST("/v1/transcripts", { body, params: header(key) });
    expect(first.response.status).toBe(200);
    expect(first.response.headers.get("idempotent-replayed")).toBeNull();

    const again = await alice.POST("/v1/transcripts", { body, params: header(key) });
    const elsewhere = await aliceOnReplica2.POST("/v1/transcripts", { body, params: header(key) });
    for (const replay of [again, elsewhere]) {
      expect(replay.response.status).toBe(200);
      expect(replay.response.headers.get("idempotent-replayed")).toBe("true");
      expect(replay.data).toEqual(first.data);
    }
    expect((await transcriptTitles(alice)).filter((t) => t === "retried upload")).toHaveLength(1);

    // Without a key, or with another one, a create is a create.
    const other = await ok(alice.POST("/v1/transcripts", { body, params: header(randomUUID()) }));
    expect(other.id).not.toBe(first.data!.id);
  });

  it("refuses the same key with another body with a 422 naming the header", async () => {
    const key = randomUUID();
    await ok(alice.POST("/v1/transcripts", { body: { name: "first body" }, params: header(key) }));
    const changed = await alice.POST("/v1/transcripts", { body: { name: "another body" }, params: header(key) });
    expect(changed.response.status).toBe(422);
    expect(changed.error).toMatchObject({ detail: [{ loc: ["header", "idempotency-key"] }] });
    expect(await transcriptTitles(alice)).not.toContain("another body");
  });

  it("keeps keys per user: another user's same key is a create of their own", async () => {
    const key = randomUUID();
    const mine = await ok(alice.POST("/v1/transcripts", { body: { name: "shared key" }, params: header(key) }));
    const theirs = await bob.POST("/v1/transcripts", { body: { name: "shared key" }, params: header(key) });
    expect(theirs.response.status).toBe(200);
    expect(theirs.response.headers.get("idempotent-replayed")).toBeNull();
    expect(theirs.data!.id).not.toBe(mine.id);
  });

  it("creates once when the duplicates arrive at the same time on both replicas", async () => {
    const key = randomUUID();
    const body = { name: "sent at once" };
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => (i % 2 ? aliceOnReplica2 : alice).POST("/v1/transcripts", { body, params: header(key) })),
    );
    expect(answers.map((a) => a.response.status)).toEqual(Array(6).fill(200));
    expect(new Set(answers.map((a) => a.data!.id)).size).toBe(1);
    expect(answers.filter((a) => a.response.headers.get("idempotent-replayed") === "true")).toHaveLength(5);
    expect((await transcriptTitles(alice)).filter((t) => t === "sent at once")).toHaveLength(1);
  });

  it("forgets a key once its retention has passed", async () => {
    const key = randomUUID();
    const first = await ok(alice.POST("/v1/transcripts", { body: { name: "kept a while" }, params: header(key) }));
    await gatewayDb`update idempotency_keys set expires_at = now() - interval '1 second' where key = ${key}`;
    const later = await alice.POST("/v1/transcripts", { body: { name: "kept a while" }, params: header(key) });
    expect(later.response.headers.get("idempotent-replayed")).toBeNull();
    expect(later.data!.id).not.toBe(first.id);
  });

  it("refuses a key that is not 1 to 255 visible ASCII characters, naming the header", async () => {
    const tooLong = await alice.POST("/v1/transcripts", { body: { name: "bad key" }, params: header("k".repeat(256)) });
    expect(tooLong.response.status).toBe(422);
    expect(tooLong.error).toMatchObject({ detail: [{ loc: ["header", "idempotency-key"] }] });
  });
});

describe("Idempotency-Key on the other creates", () => {
  it("replays a room create instead of refusing the name as taken", async () => {
    const key = randomUUID();
    const body = { name: `idem-${randomUUID().slice(0, 8)}` };
    const first = await ok(alice.POST("/v1/rooms", { body, params: header(key) }));
    const again = await aliceOnReplica2.POST("/v1/rooms", { body, params: header(key) });
    expect(again.response.status).toBe(200);
    expect(again.response.headers.get("idempotent-replayed")).toBe("true");
    expect(again.data).toEqual(first);
  });

  it("replays an API key create with the same key, sealed at rest, and makes one key", async () => {
    const key = randomUUID();
    const first = await ok(alice.POST("/v1/user/api-keys", { body: { name: "ci" }, params: header(key) }));
    const again = await alice.POST("/v1/user/api-keys", { body: { name: "ci" }, params: header(key) });
    expect(again.response.headers.get("idempotent-replayed")).toBe("true");
    expect(again.data).toEqual(first);
    const keys = await ok(alice.GET("/v1/user/api-keys", {}));
    expect(keys.filter((k) => k.name === "ci")).toHaveLength(1);
    const [stored] = await gatewayDb<{ body: string }[]>`select body from idempotency_keys where key = ${key}`;
    expect(stored!.body).not.toContain(first.key);
  });

  it("replays a meeting create for a room", async () => {
    const room = await ok(alice.POST("/v1/rooms", { body: { name: `meet-${randomUUID().slice(0, 8)}` } }));
    const key = randomUUID();
    const first = await ok(
      alice.POST("/v1/rooms/{room_name}/meeting", {
        params: { path: { room_name: room.name }, ...header(key) },
        body: { allow_duplicated: true },
      }),
    );
    const again = await alice.POST("/v1/rooms/{room_name}/meeting", {
      params: { path: { room_name: room.name }, ...header(key) },
      body: { allow_duplicated: true },
    });
    expect(again.response.headers.get("idempotent-replayed")).toBe("true");
    expect(again.data).toEqual(first);
  });
});
