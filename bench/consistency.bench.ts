// Read-your-writes (docs/ARCHITECTURE.md "Consistency: read-your-writes"): what the mechanism adds
// to a request. The rooms and meetings services run in-process; each round creates a room and asks
// the meetings service for it at once (its copy lags: the event has not arrived, so it reads through
// to the rooms service), then asks again with and without the known version once the copy is current
// (baseline: no version passed, measured interleaved in the same run), then renames the room and
// asks under both names at once. A stale read is an answer the write should have changed.
// Then the same over HTTP with two gateway replicas: writes go to replica 1, reads to replica 2 at
// once, with no version carried by the client (replica 2 knows it from the shared bucket); and what
// sharing the written versions adds to a write (SharedVersions.record, timed alone). Last, feed
// positions: a room renamed, then a search at once (the read model has not applied the rename: the
// search waits for its announcement) and again (current), against a search that carries no position.
import { createHmac, randomBytes } from "node:crypto";
import { DLQ_STREAM, STREAMS, meetingsOps, roomsOps, searchOps, type Caller } from "@scribe/contracts";
import { servicesByName } from "@scribe/cli";
import {
  VERSIONS_BUCKET,
  SharedVersions,
  connectBus,
  createLogger,
  isAppError,
  rpcCall,
  startProcess,
  type VersionMark,
} from "@scribe/kit";
import { createTestDatabase, testPrefix, TEST_NATS_URL } from "@scribe/kit/testing";
import { TranscriptWriter } from "../test/support/transcripts";
import { percentile, report } from "./report";

const ROUNDS = Number(process.env.BENCH_CONSISTENCY_ROUNDS ?? 300);
const REPLICA_ROUNDS = Number(process.env.BENCH_CONSISTENCY_REPLICA_ROUNDS ?? 200);
const alice: Caller = { userId: "alice", email: null, via: "bearer" };

export default async function bench(): Promise<void> {
  const db = await createTestDatabase("benchryw");
  const prefix = testPrefix("benchryw");
  const env = {
    DATABASE_URL: db.url,
    NATS_URL: TEST_NATS_URL,
    NATS_PREFIX: prefix,
    OPS_PORT: "0",
    LOG_LEVEL: "silent",
    SECRET_KEY: randomBytes(32).toString("hex"),
    OUTBOX_POLL_MS: "200",
    PORT: "0",
    HOST: "127.0.0.1",
    AUTH_BACKEND: "password",
  };
  const running = await startProcess(servicesByName(["rooms", "meetings", "projection", "search", "gateway"]), env);
  const replica2 = await startProcess(servicesByName(["gateway"]), env);
  const bus = await connectBus({ url: TEST_NATS_URL, prefix, name: "bench-ryw" });
  const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;
  const lagging: number[] = [];
  const current: number[] = [];
  const baseline: number[] = [];
  let stale = 0;
  /** Asks for the room's active meetings; true when the meetings service found the room. */
  const found = async (roomName: string, versions: VersionMark[]) => {
    try {
      await rpcCall(bus, meetingsOps.listActive, { caller: alice, room_name: roomName }, { versions });
      return true;
    } catch (e) {
      if (isAppError(e) && e.kind === "not_found") return false;
      throw e;
    }
  };
  try {
    for (let i = 0; i < ROUNDS; i++) {
      let written: VersionMark[] = [];
      const room = await rpcCall(
        bus,
        roomsOps.create,
        { caller: alice, room: { name: `bench-${i}` } },
        { onVersions: (w) => (written = w) },
      );
      let t = process.hrtime.bigint();
      if (!(await found(room.name, written))) stale++;
      lagging.push(ms(t));
      // Interleaved: the copy is current now (the read-through stored it).
      t = process.hrtime.bigint();
      if (!(await found(room.name, written))) stale++;
      current.push(ms(t));
      t = process.hrtime.bigint();
      await found(room.name, []);
      baseline.push(ms(t));

      const renamed = `bench-${i}-renamed`;
      await rpcCall(bus, roomsOps.update, { caller: alice, id: room.id, patch: { name: renamed } }, { onVersions: (w) => (written = w) });
      if (!(await found(renamed, written))) stale++;
      if (await found(room.name, written)) stale++;
    }
    const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
    const base = sorted(baseline);
    const baseP50 = { name: "no version passed p50", value: percentile(base, 50), unit: "ms", label: "baseline p50" };
    const baseP99 = { name: "no version passed p99", value: percentile(base, 99), unit: "ms", label: "baseline p99" };
    console.log(`  ${ROUNDS} rounds; each: create, read at once, read twice more, rename, read both names at once`);
    report(baseP50);
    report(baseP99);
    report({ name: "copy current, version passed p50", value: percentile(sorted(current), 50), unit: "ms" }, baseP50);
    report({ name: "copy current, version passed p99", value: percentile(sorted(current), 99), unit: "ms" }, baseP99);
    report({ name: "copy lagging (read-through) p50", value: percentile(sorted(lagging), 50), unit: "ms" }, baseP50);
    report({ name: "copy lagging (read-through) p99", value: percentile(sorted(lagging), 99), unit: "ms" }, baseP99);
    report({ name: "stale reads", value: stale, unit: `of ${ROUNDS * 4} reads that had to see a write` });

    const two = await twoReplicas(env.SECRET_KEY, gatewayUrl(running), gatewayUrl(replica2));
    console.log(
      `  two gateway replicas, ${REPLICA_ROUNDS} rounds; each: create and rename on replica 1, read both names at once on replica 2, read again`,
    );
    const current2 = sorted(two.current);
    const c50 = { name: "replica 2, copy current p50", value: percentile(current2, 50), unit: "ms", label: "copy current p50" };
    const c99 = { name: "replica 2, copy current p99", value: percentile(current2, 99), unit: "ms", label: "copy current p99" };
    report(c50);
    report(c99);
    report({ name: "replica 2, copy lagging (read-through) p50", value: percentile(sorted(two.lagging), 50), unit: "ms" }, c50);
    report({ name: "replica 2, copy lagging (read-through) p99", value: percentile(sorted(two.lagging), 99), unit: "ms" }, c99);
    report({ name: "stale reads on replica 2", value: two.stale, unit: `of ${REPLICA_ROUNDS * 2} reads that had to see a write (goal 0)` });

    const feed = await feedRounds(bus, prefix);
    console.log(`  feed positions, ${REPLICA_ROUNDS} rounds; each: rename a room, search at once, search again, search without a position`);
    const f50 = { name: "search, no position p50", value: percentile(sorted(feed.baseline), 50), unit: "ms", label: "baseline p50" };
    const f99 = { name: "search, no position p99", value: percentile(sorted(feed.baseline), 99), unit: "ms", label: "baseline p99" };
    report(f50);
    report(f99);
    report({ name: "search, read model current p50", value: percentile(sorted(feed.current), 50), unit: "ms" }, f50);
    report({ name: "search, read model current p99", value: percentile(sorted(feed.current), 99), unit: "ms" }, f99);
    report({ name: "search, read model lagging (waits) p50", value: percentile(sorted(feed.lagging), 50), unit: "ms" }, f50);
    report({ name: "search, read model lagging (waits) p99", value: percentile(sorted(feed.lagging), 99), unit: "ms" }, f99);
    report({ name: "searches before the rename was applied", value: feed.stale, unit: `of ${REPLICA_ROUNDS} (goal 0)` });

    const sharing = await recordLatency(bus);
    report({ name: "sharing a write's versions (record) p50", value: percentile(sorted(sharing), 50), unit: "ms added to a write" });
    report({ name: "sharing a write's versions (record) p99", value: percentile(sorted(sharing), 99), unit: "ms added to a write" });
  } finally {
    for (const s of [...Object.keys(STREAMS), DLQ_STREAM.name]) await bus.jsm.streams.delete(bus.stream(s)).catch(() => {});
    await bus.jsm.streams.delete(`KV_${bus.stream(VERSIONS_BUCKET)}`).catch(() => {});
    await bus.close();
    await replica2.stop();
    await running.stop();
    await db.drop();
  }
}

const gatewayUrl = (p: Awaited<ReturnType<typeof startProcess>>) =>
  `http://127.0.0.1:${p.services.find((s) => s.name === "gateway")!.exports.port as number}`;

/** An HS256 token as the gateway's password mode issues them. */
function token(secret: string, sub: string): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
  const unsigned = `${part({ alg: "HS256", typ: "JWT" })}.${part({ sub, email: `${sub}@example.com`, exp: Math.floor(Date.now() / 1000) + 3600 })}`;
  return `${unsigned}.${createHmac("sha256", secret).update(unsigned).digest("base64url")}`;
}

async function twoReplicas(secret: string, first: string, second: string) {
  const headers = { authorization: `Bearer ${token(secret, "alice")}`, "content-type": "application/json" };
  const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;
  const lagging: number[] = [];
  const current: number[] = [];
  let stale = 0;
  const send = async (url: string, method: string, body?: unknown) => {
    const res = await fetch(url, { method, headers, ...(body ? { body: JSON.stringify(body) } : {}) });
    const text = await res.text();
    if (res.status >= 500) throw new Error(`${method} ${url}: ${res.status} ${text}`);
    return { status: res.status, json: () => JSON.parse(text) as { id: string; name: string } };
  };
  const active = (name: string) => send(`${second}/v1/rooms/${name}/meetings/active`, "GET");
  for (let i = 0; i < REPLICA_ROUNDS; i++) {
    const room = (await send(`${first}/v1/rooms`, "POST", { name: `bench2-${i}` })).json();
    // Replica 2's copy holds the first version: read it once (a miss reads through).
    await active(room.name);
    const renamed = `bench2-${i}-renamed`;
    if ((await send(`${first}/v1/rooms/${room.id}`, "PATCH", { name: renamed })).status !== 200) throw new Error("rename failed");
    let t = process.hrtime.bigint();
    // The copy still holds the old name at the old version; replica 2 knows the new version.
    if ((await active(room.name)).status !== 404) stale++;
    lagging.push(ms(t));
    if ((await active(renamed)).status !== 200) stale++;
    t = process.hrtime.bigint();
    await active(renamed);
    current.push(ms(t));
  }
  return { lagging, current, stale };
}

/**
 * Feed positions: one transcript in a room; each round renames the room and searches at once with
 * the versions the rename reported (the search waits until the read model applied the rename), then
 * again (current), then with none (baseline). Stale: the first search showed the old name.
 */
async function feedRounds(bus: Awaited<ReturnType<typeof connectBus>>, prefix: string) {
  const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;
  const search = (versions: VersionMark[]) =>
    rpcCall(bus, searchOps.search, { caller: alice, q: "budget", limit: 20, offset: 0, include_deleted: false }, { versions });
  const out = { lagging: [] as number[], current: [] as number[], baseline: [] as number[], stale: 0 };
  const writer = await TranscriptWriter.connect(prefix);
  try {
    const room = await rpcCall(bus, roomsOps.create, { caller: alice, room: { name: "bench-feed" } });
    const transcript = await writer.create({ user_id: alice.userId, room_id: room.id, title: "Budget review" });
    await writer.applied(transcript.id);
    for (let i = 0; i < REPLICA_ROUNDS; i++) {
      let written: VersionMark[] = [];
      const name = `bench-feed-${i}`;
      await rpcCall(bus, roomsOps.update, { caller: alice, id: room.id, patch: { name } }, { onVersions: (w) => (written = w) });
      let t = process.hrtime.bigint();
      const found = await search(written);
      out.lagging.push(ms(t));
      if (found.results.find((r) => r.id === transcript.id)?.room_name !== name) out.stale++;
      t = process.hrtime.bigint();
      await search(written);
      out.current.push(ms(t));
      t = process.hrtime.bigint();
      await search([]);
      out.baseline.push(ms(t));
    }
  } finally {
    await writer.close();
  }
  return out;
}

/** What SharedVersions.record adds to a write: the bucket's compare-and-set and the watch's delivery. */
async function recordLatency(bus: Awaited<ReturnType<typeof connectBus>>): Promise<number[]> {
  const shared = await SharedVersions.open(bus, createLogger(undefined, "silent"));
  const out: number[] = [];
  try {
    for (let i = 0; i < REPLICA_ROUNDS; i++) {
      const id = randomBytes(16).toString("hex");
      const start = process.hrtime.bigint();
      await shared.record([
        { kind: "room", field: "id", value: id, version: 1 },
        { kind: "room", field: "name", value: `n-${id}`, version: 1 },
      ]);
      out.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
  } finally {
    await shared.close();
  }
  return out;
}
