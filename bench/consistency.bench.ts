// Read-your-writes (docs/ARCHITECTURE.md "Consistency: read-your-writes"): what the mechanism adds
// to a request. The rooms and meetings services run in-process; each round creates a room and asks
// the meetings service for it at once (its copy lags: the event has not arrived, so it reads through
// to the rooms service), then asks again with and without the known version once the copy is current
// (baseline: no version passed, measured interleaved in the same run), then renames the room and
// asks under both names at once. A stale read is an answer the write should have changed.
import { randomBytes } from "node:crypto";
import { DLQ_STREAM, STREAMS, meetingsOps, roomsOps, type Caller } from "@scribe/contracts";
import { servicesByName } from "@scribe/cli";
import { connectBus, isAppError, rpcCall, startProcess, type VersionMark } from "@scribe/kit";
import { createTestDatabase, testPrefix, TEST_NATS_URL } from "@scribe/kit/testing";
import { percentile, report } from "./report";

const ROUNDS = Number(process.env.BENCH_CONSISTENCY_ROUNDS ?? 300);
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
  };
  const running = await startProcess(servicesByName(["rooms", "meetings"]), env);
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
  } finally {
    for (const s of [...Object.keys(STREAMS), DLQ_STREAM.name]) await bus.jsm.streams.delete(bus.stream(s)).catch(() => {});
    await bus.close();
    await running.stop();
    await db.drop();
  }
}
