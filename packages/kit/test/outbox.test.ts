import { makeEvent } from "@scribe/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emit, OutboxRelay } from "../src/bus/outbox";
import { eventually } from "../src/testing";
import { kitEnv, log, sampleRoom, streamMessages, type KitEnv } from "./helpers";

let env: KitEnv;
beforeAll(async () => {
  env = await kitEnv("outbox");
});
afterAll(async () => env.close());

async function purge() {
  await env.bus.jsm.streams.purge(env.bus.stream("ROOMS"));
  await env.sql`delete from outbox`;
}
function roomEvent(i: number) {
  return makeEvent("room.created", sampleRoom(i), { source: "test", time: new Date() });
}
async function write(events: ReturnType<typeof roomEvent>[], chunk = 10) {
  for (let i = 0; i < events.length; i += chunk) {
    await env.sql.begin((tx) => emit(tx, events.slice(i, i + chunk)));
  }
}
function relay(extra: Partial<ConstructorParameters<typeof OutboxRelay>[0]> = {}) {
  return new OutboxRelay({ sql: env.sql, bus: env.bus, schema: env.schema, log, pollMs: 50, ...extra });
}
async function publishedIds(): Promise<string[]> {
  return (await streamMessages(env.bus, "ROOMS")).map((m) => (JSON.parse(m.data) as { id: string }).id);
}

describe("transactional outbox", () => {
  it("publishes events committed while no relay ran (crash between commit and publish), exactly once and in order", async () => {
    await purge();
    const events = Array.from({ length: 60 }, (_, i) => roomEvent(i));
    await write(events);
    const r = relay();
    await r.start();
    await eventually(async () => (await publishedIds()).length === 60, { message: "all events published" });
    await r.stop();
    expect(await publishedIds()).toEqual(events.map((e) => e.event.id));
    const [left] = await env.sql`select count(*)::int as n from outbox`;
    expect(left!.n).toBe(0);
  });

  it("publishes nothing for a rolled back transaction", async () => {
    await purge();
    await expect(
      env.sql.begin(async (tx) => {
        await emit(tx, roomEvent(1));
        throw new Error("business rule failed");
      }),
    ).rejects.toThrow();
    const r = relay();
    await r.start();
    await r.stop();
    expect(await publishedIds()).toEqual([]);
  });

  it("republishing after a crash between publish and bookkeeping is dropped by JetStream (Nats-Msg-Id = event id)", async () => {
    await purge();
    const events = Array.from({ length: 25 }, (_, i) => roomEvent(100 + i));
    await write(events);
    const crashing = relay({
      afterPublish: () => {
        throw new Error("simulated crash after publish");
      },
    });
    await expect(crashing.drainOnce()).rejects.toThrow(/simulated crash/);
    // The rows are still there (the bookkeeping transaction never committed) and already in the stream.
    const [pending] = await env.sql`select count(*)::int as n from outbox`;
    expect(pending!.n).toBe(25);
    expect(await publishedIds()).toHaveLength(25);

    const healthy = relay();
    expect(await healthy.drainOnce()).toBe(25);
    expect(await publishedIds()).toEqual(events.map((e) => e.event.id));
  });

  it("two relays on the same schema publish every event once, in write order", async () => {
    await purge();
    const a = relay({ batchSize: 7 });
    const b = relay({ batchSize: 7 });
    await a.start();
    await b.start();
    const events = Array.from({ length: 200 }, (_, i) => roomEvent(1000 + i));
    await write(events, 3);
    await eventually(async () => (await publishedIds()).length >= 200, { message: "all published" });
    await Promise.all([a.stop(), b.stop()]);
    expect(await publishedIds()).toEqual(events.map((e) => e.event.id));
  });

  it("is woken by NOTIFY rather than waiting for the poll interval", async () => {
    await purge();
    const r = relay({ pollMs: 60_000 });
    await r.start();
    await write([roomEvent(5000)]);
    // The poll interval is a minute; only the NOTIFY wake-up can publish within the deadline.
    await eventually(async () => (await publishedIds()).length === 1, { timeoutMs: 5000 });
    await r.stop();
  });

  it("wakes relays only for a statement that wrote events (an insert of no row stays silent)", async () => {
    await purge();
    // Notifications are delivered in commit order: a marker sent after each statement tells, without
    // waiting for a timeout, whether that statement notified.
    const heard: string[] = [];
    const listeners = await Promise.all(
      ["outbox", "marker"].map((what) => env.sql.listen(`${env.schema}_${what}`, () => heard.push(what))),
    );
    const marker = () => env.sql`select pg_notify(${`${env.schema}_marker`}, '')`;
    try {
      await env.sql`insert into outbox select * from outbox where false`;
      await marker();
      await eventually(async () => heard.includes("marker"));
      expect(heard).toEqual(["marker"]);
      await write([roomEvent(6000)]);
      await marker();
      await eventually(async () => heard.filter((h) => h === "marker").length === 2);
      expect(heard).toEqual(["marker", "outbox", "marker"]);
    } finally {
      await Promise.all(listeners.map((l) => l.unlisten()));
    }
  });

  it("sets aside an event the server refuses for its size, publishes the rest in order, and tries it again later", async () => {
    await purge();
    const before = [roomEvent(6000), roomEvent(6001)];
    const tooBig = (n: number) =>
      makeEvent("room.created", sampleRoom(n, { name: "x".repeat(env.bus.nc.info!.max_payload) }), { source: "test", time: new Date() });
    const [huge, huger] = [tooBig(6002), tooBig(6007)];
    const after = [roomEvent(6003)];
    await write([...before, huge, ...after, huger], 1);
    const r = relay({ refusedRetryMs: 60_000 });
    expect(await r.drainOnce()).toBe(5);
    // Later events are not held back by the refused ones.
    expect(await publishedIds()).toEqual([...before, ...after].map((e) => e.event.id));
    const aside = await env.sql<{ event_id: string; refused_error: string }[]>`select event_id, refused_error from outbox order by seq`;
    expect(aside).toEqual([huge, huger].map((e) => ({ event_id: e.event.id, refused_error: expect.stringMatching(/max_payload/) })));
    // Within the retry interval they are not tried again: the relay goes on with newer events.
    const next = roomEvent(6004);
    await write([next]);
    expect(await r.drainOnce()).toBe(1);
    expect(await publishedIds()).toEqual([...before, ...after, next].map((e) => e.event.id));

    // Once the interval has passed they are tried again (here they now fit, as after max_payload was raised).
    const [fits, fitsToo] = [roomEvent(6005), roomEvent(6008)];
    await env.sql`update outbox set refused_at = now() - interval '2 minutes', payload = case when event_id = ${huge.event.id}
      then ${JSON.stringify(fits.event)} else ${JSON.stringify(fitsToo.event)} end`;
    expect(await r.drainOnce()).toBe(2);
    expect(await publishedIds()).toHaveLength(6);
    expect((await env.sql`select count(*)::int as n from outbox`)[0]!.n).toBe(0);
  });
});
