// An exclusive consumer (a read model applying a stream) run by several replicas: one applies at a
// time, in stream order; a standby takes over when it stops or dies, and the events the one before
// was given are applied before any later event (issue 20: two projection replicas applied a topic
// before its transcript, and a version said "everything up to here" while a topic was missing).
import { makeEvent } from "@scribe/contracts";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { connectBus, type Bus } from "../src/bus/connection";
import { ConsumerRunner, type EventHandlers } from "../src/bus/consumer";
import { connectDb, type Sql } from "../src/db";
import { LeaseSession } from "../src/lease";
import { eventually, TEST_NATS_URL } from "../src/testing";
import { kitEnv, log, sampleRoom, type KitEnv } from "./helpers";

let env: KitEnv;
let n = 0;
const running: ConsumerRunner[] = [];
const closing: (() => Promise<void>)[] = [];

beforeAll(async () => {
  env = await kitEnv("exclusive");
  await env.sql`create table applied (seq bigserial primary key, stream_seq bigint not null, replica text not null)`;
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((c) => c.stop()));
  for (const close of closing.splice(0)) await close().catch(() => {});
  await env.sql`delete from applied`;
});
afterAll(async () => env.close());

/** A replica of its own: own pool (own lease session) and own NATS connection, as another process has. */
async function replica(name: string, label: string, opts: { hangAt?: number; exclusive?: boolean } = {}) {
  const sql: Sql = connectDb(env.db.url, { schema: env.schema, max: 3 });
  const leaseDb: Sql = connectDb(env.db.url, { schema: env.schema, max: 1, idleTimeout: 0 });
  const bus: Bus = await connectBus({ url: TEST_NATS_URL, prefix: env.bus.prefix, name: `exclusive-${label}` });
  closing.push(
    () => bus.close(),
    () => sql.end({ timeout: 1 }),
    () => leaseDb.end({ timeout: 1 }),
  );
  const handlers: EventHandlers = {
    "room.created": async (tx, _ev, ctx) => {
      if (ctx.streamSeq === opts.hangAt) await new Promise(() => {});
      // Slow enough that two replicas pulling side by side would interleave their batches.
      await new Promise((r) => setTimeout(r, 2));
      await tx`insert into applied (stream_seq, replica) values (${ctx.streamSeq}, ${label})`;
    },
  };
  const runner = new ConsumerRunner({
    bus,
    sql,
    log,
    name,
    stream: "ROOMS",
    handlers,
    batchSize: 5,
    ackWaitMs: 1000,
    backoffMs: () => 20,
    exclusive: opts.exclusive ?? true,
    leases: new LeaseSession(leaseDb),
  });
  running.push(runner);
  return { runner, sql, leaseDb, bus };
}

async function publish(count: number): Promise<number[]> {
  const seqs: number[] = [];
  for (let i = 0; i < count; i++) {
    const { event, subject } = makeEvent("room.created", sampleRoom(i), { source: "test", time: new Date() });
    seqs.push((await env.bus.js.publish(env.bus.subject(subject), JSON.stringify(event), { msgID: event.id })).seq);
  }
  return seqs;
}

async function appliedInOrder(): Promise<{ stream_seq: number; replica: string }[]> {
  return (await env.sql<{ stream_seq: string; replica: string }[]>`select stream_seq, replica from applied order by seq`).map((r) => ({
    stream_seq: Number(r.stream_seq),
    replica: r.replica,
  }));
}

async function untilApplied(count: number): Promise<void> {
  await eventually(async () => (await appliedInOrder()).length >= count, { timeoutMs: 30_000, message: `${count} events applied` });
}

describe("exclusive consumer", () => {
  it("two replicas: one applies every event, in stream order; the other stands by", async () => {
    await env.bus.jsm.streams.purge(env.bus.stream("ROOMS"));
    const name = `test.exclusive${++n}`;
    const a = await replica(name, "a");
    const b = await replica(name, "b");
    await a.runner.start();
    await b.runner.start();
    const seqs = await publish(120);
    await untilApplied(seqs.length);
    const applied = await appliedInOrder();
    expect(applied.map((r) => r.stream_seq)).toEqual(seqs);
    expect(new Set(applied.map((r) => r.replica)).size).toBe(1);
  });

  it("without exclusive, the same two replicas interleave (what the lease prevents)", async () => {
    await env.bus.jsm.streams.purge(env.bus.stream("ROOMS"));
    const name = `test.exclusive${++n}`;
    const a = await replica(name, "a", { exclusive: false });
    const b = await replica(name, "b", { exclusive: false });
    await a.runner.start();
    await b.runner.start();
    const seqs = await publish(120);
    await untilApplied(seqs.length);
    const applied = await appliedInOrder();
    expect(new Set(applied.map((r) => r.replica)).size).toBe(2);
    expect(applied.map((r) => r.stream_seq)).not.toEqual(seqs);
  });

  it("a standby takes over when the replica applying stops, and goes on where it stopped", async () => {
    await env.bus.jsm.streams.purge(env.bus.stream("ROOMS"));
    const name = `test.exclusive${++n}`;
    const a = await replica(name, "a");
    await a.runner.start();
    const b = await replica(name, "b");
    await b.runner.start();
    const first = await publish(40);
    await untilApplied(10);
    await a.runner.stop();
    const second = await publish(40);
    await untilApplied(first.length + second.length);
    const applied = await appliedInOrder();
    expect(applied.map((r) => r.stream_seq)).toEqual([...first, ...second]);
    expect(applied.at(-1)!.replica).toBe("b");
  });

  it("a standby takes over from a replica that died mid-batch: the dead one's events come back first, each applied once", async () => {
    await env.bus.jsm.streams.purge(env.bus.stream("ROOMS"));
    const name = `test.exclusive${++n}`;
    const seqs = await publish(60);
    const hangAt = seqs[22]!;
    const a = await replica(name, "a", { hangAt });
    await a.runner.start();
    await untilApplied(20);
    const b = await replica(name, "b");
    await b.runner.start();
    // "a" dies: its connections go without a word (no ack, no nak), its session's lease with them.
    await a.bus.nc.close();
    await a.sql.end({ timeout: 0 });
    await a.leaseDb.end({ timeout: 0 });
    await untilApplied(seqs.length);
    const applied = await appliedInOrder();
    expect(applied.map((r) => r.stream_seq)).toEqual(seqs);
    expect(applied.find((r) => r.stream_seq === hangAt)!.replica).toBe("b");
  });
});
