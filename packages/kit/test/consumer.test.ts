import { AckPolicy } from "@nats-io/jetstream";
import { makeEvent } from "@scribe/contracts";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ConsumerRunner, type EventHandler, type EventHandlers } from "../src/bus/consumer";
import { eventually } from "../src/testing";
import { kitEnv, log, sampleRoom, streamMessages, type KitEnv } from "./helpers";

let env: KitEnv;
let n = 0;
beforeAll(async () => {
  env = await kitEnv("consumer");
  await env.sql`create table applied (room_id text not null, name text not null)`;
});
afterAll(async () => env.close());
beforeEach(async () => {
  await env.sql`delete from applied`;
});
// A failed assertion must not leave a consumer running into the next test.
const started: ConsumerRunner[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((c) => c.stop()));
});

function runner(handlers: EventHandlers, extra: Partial<ConstructorParameters<typeof ConsumerRunner>[0]> = {}) {
  const c = new ConsumerRunner({
    bus: env.bus,
    sql: env.sql,
    log,
    name: `test.consumer${++n}`,
    stream: "ROOMS",
    handlers,
    maxDeliver: 3,
    backoffMs: () => 20,
    ...extra,
  });
  started.push(c);
  return c;
}
const recordRoom: EventHandlers = {
  "room.created": async (tx, ev) => {
    await tx`insert into applied (room_id, name) values (${ev.data.id}, ${ev.data.name})`;
  },
};
async function publish(i: number, msgID?: string, overrides: Record<string, unknown> = {}) {
  const { event, subject } = makeEvent("room.created", sampleRoom(i, overrides), { source: "test", time: new Date() });
  await env.bus.js.publish(env.bus.subject(subject), JSON.stringify(event), { msgID: msgID ?? event.id });
  return event;
}
async function appliedCount(id?: string): Promise<number> {
  const [r] = id
    ? await env.sql`select count(*)::int as n from applied where room_id = ${id}`
    : await env.sql`select count(*)::int as n from applied`;
  return r!.n as number;
}
async function dlqFor(consumer: ConsumerRunner) {
  return (await streamMessages(env.bus, "DLQ")).filter((m) => m.headers["Scribe-Dlq-Consumer"] === consumer["opts"].name);
}
async function settled(c: ConsumerRunner) {
  await eventually(
    async () => {
      const info = await env.bus.jsm.consumers.info(env.bus.stream("ROOMS"), c.durable);
      return info.num_pending === 0 && info.num_ack_pending === 0;
    },
    { message: "consumer settled" },
  );
}

describe("consumer runner", () => {
  it("applies a redelivered event once (the inbox row makes the second delivery a no-op)", async () => {
    await env.bus.jsm.streams.purge(env.bus.stream("ROOMS"));
    const c = runner(recordRoom);
    await c.start();
    const ev = await publish(1);
    // The same event arriving again (e.g. after a crash between commit and ack, or a republish
    // outside the dedupe window) must change nothing.
    const copy = JSON.stringify(ev);
    await env.bus.js.publish(env.bus.subject(`rooms.room_created.${ev.data.id}`), copy, { msgID: "redelivery-1" });
    await env.bus.js.publish(env.bus.subject(`rooms.room_created.${ev.data.id}`), copy, { msgID: "redelivery-2" });
    await settled(c);
    await c.stop();
    expect(await appliedCount(ev.data.id)).toBe(1);
    const [inbox] = await env.sql`select count(*)::int as n from inbox where event_id = ${ev.id}`;
    expect(inbox!.n).toBe(1);
  });

  it("dead-letters a poison event at once with its reason and goes on with the next", async () => {
    await env.bus.jsm.streams.purge(env.bus.stream("ROOMS"));
    const c = runner(recordRoom);
    await c.start();
    await env.bus.js.publish(env.bus.subject("rooms.room_created.x"), "this is not json", { msgID: "poison-1" });
    const bad = await publish(2, undefined, {});
    // valid envelope, invalid data: platform outside the enum
    const broken = { ...bad, id: "018f0000-0000-7000-8000-000000000001", data: { ...bad.data, platform: "zoom" } };
    await env.bus.js.publish(env.bus.subject("rooms.room_created.y"), JSON.stringify(broken), { msgID: "poison-2" });
    const good = await publish(3);
    await settled(c);
    await c.stop();
    const dlq = await dlqFor(c);
    expect(dlq.map((m) => m.headers["Scribe-Dlq-Reason"])).toEqual([
      "event is not valid JSON",
      expect.stringMatching(/invalid data for room.created: platform/),
    ]);
    expect(dlq[0]!.data).toBe("this is not json");
    expect(dlq[0]!.headers["Scribe-Dlq-Deliveries"]).toBe("1");
    expect(await appliedCount(bad.data.id)).toBe(1); // the valid original was applied
    expect(await appliedCount(good.data.id)).toBe(1);
  });

  it("retries a failing handler with backoff and applies the event once it succeeds", async () => {
    await env.bus.jsm.streams.purge(env.bus.stream("ROOMS"));
    let calls = 0;
    const c = runner({
      "room.created": async (tx, ev) => {
        calls++;
        await tx`insert into applied (room_id, name) values (${ev.data.id}, ${ev.data.name})`;
        if (calls < 3) throw new Error("dependency not ready");
      },
    });
    await c.start();
    const ev = await publish(4);
    await settled(c);
    await c.stop();
    expect(calls).toBeGreaterThanOrEqual(3);
    // the failed attempts' writes were rolled back
    expect(await appliedCount(ev.data.id)).toBe(1);
    expect(await dlqFor(c)).toEqual([]);
  });

  it("dead-letters an event whose handler fails on every allowed delivery, with the error", async () => {
    await env.bus.jsm.streams.purge(env.bus.stream("ROOMS"));
    let calls = 0;
    const c = runner({
      "room.created": async (_tx, ev) => {
        calls++;
        if (ev.data.name === "room-6") throw new Error("cannot apply room-6");
      },
    });
    await c.start();
    await publish(6);
    await settled(c);
    await c.stop();
    expect(calls).toBeGreaterThanOrEqual(3);
    const dlq = await dlqFor(c);
    expect(dlq).toHaveLength(1);
    expect(dlq[0]!.headers["Scribe-Dlq-Reason"]).toBe("cannot apply room-6");
    expect(dlq[0]!.headers["Scribe-Dlq-Deliveries"]).toBe("3");
  });

  it("one failing event in a batch does not undo the others", async () => {
    await env.bus.jsm.streams.purge(env.bus.stream("ROOMS"));
    const c = runner({
      "room.created": async (tx, ev) => {
        await tx`insert into applied (room_id, name) values (${ev.data.id}, ${ev.data.name})`;
        if (ev.data.name === "room-11") throw new Error("always fails");
      },
    });
    for (let i = 10; i < 20; i++) await publish(i);
    await c.start();
    await settled(c);
    await c.stop();
    expect(await appliedCount()).toBe(9);
    expect(await dlqFor(c)).toHaveLength(1);
  });

  it("applies a batch with the batch handler in stream order, each event once", async () => {
    await env.bus.jsm.streams.purge(env.bus.stream("ROOMS"));
    const calls: string[][] = [];
    const c = runner(
      { "room.created": async () => expect.unreachable("the batch handler applies the fast path") },
      {
        batchHandler: async (tx, events) => {
          calls.push(events.map((e) => (e.event.data as { name: string }).name));
          for (const { event } of events) {
            const room = event.data as { id: string; name: string };
            await tx`insert into applied (room_id, name) values (${room.id}, ${room.name})`;
          }
        },
      },
    );
    const published = [];
    for (let i = 70; i < 80; i++) published.push(await publish(i));
    await c.start();
    await settled(c);
    await c.stop();
    expect(calls.flat()).toEqual(published.map((e) => e.data.name));
    expect(await appliedCount()).toBe(10);
  });

  it("a batch handler is not given again, in a committed batch, an event the inbox knew (one applied before, or a second copy in the batch), nor what was prepared of other events", async () => {
    await env.bus.jsm.streams.purge(env.bus.stream("ROOMS"));
    const name = `test.consumer${++n}`;
    const handed: { events: string[]; prepared: unknown }[] = [];
    const c = runner(
      { "room.created": async () => expect.unreachable("the batch handler applies the fast path") },
      {
        name,
        prepareBatch: (events) => events.map((e) => e.id),
        batchHandler: async (tx, events, prepared) => {
          handed.push({ events: events.map((e) => e.event.id), prepared });
          const rooms = events.map((e) => e.event.data as { id: string; name: string });
          await tx`insert into applied (room_id, name) select * from unnest(${rooms.map((r) => r.id)}::text[], ${rooms.map((r) => r.name)}::text[])`;
        },
      },
    );
    const before = await publish(90);
    await env.sql`insert into inbox (consumer, event_id) values (${name}, ${before.id})`;
    const twice = await publish(91);
    await env.bus.js.publish(env.bus.subject(`rooms.room_created.${twice.data.id}`), JSON.stringify(twice), { msgID: "copy-91" });
    await publish(92);
    await c.start();
    await settled(c);
    await c.stop();
    // The handler was given all of them first, in the same round trip as the inbox rows: that was rolled back.
    expect((await env.sql`select name from applied order by name`).map((r) => r.name)).toEqual(["room-91", "room-92"]);
    // What prepareBatch made is handed over only with the very events it was made of (not to the redo of the new ones).
    expect(handed.some((h) => h.prepared !== undefined)).toBe(true);
    expect(handed.filter((h) => h.prepared !== undefined && JSON.stringify(h.prepared) !== JSON.stringify(h.events))).toEqual([]);
  });

  it("batches parsed ahead are applied in stream order, each once, poison dead-lettered in its place, and stop applies the batch parsed ahead", async () => {
    await env.bus.jsm.streams.purge(env.bus.stream("ROOMS"));
    const batches: string[][] = [];
    const handler = async (tx: Parameters<EventHandler<"room.created">>[0], events: { event: { data: unknown } }[]) => {
      // Slow enough that the next batch is parsed meanwhile.
      await new Promise((r) => setTimeout(r, 20));
      const rooms = events.map((e) => e.event.data as { id: string; name: string });
      batches.push(rooms.map((r) => r.name));
      for (const room of rooms) await tx`insert into applied (room_id, name) values (${room.id}, ${room.name})`;
    };
    const c = runner({ "room.created": recordRoom["room.created"]! }, { batchSize: 2, batchHandler: handler });
    const published = [];
    for (let i = 100; i < 110; i++) published.push(await publish(i));
    await env.bus.js.publish(env.bus.subject("rooms.room_created.x"), "not json either", { msgID: "poison-3" });
    for (let i = 110; i < 130; i++) published.push(await publish(i));
    await c.start();
    await eventually(async () => (await appliedCount()) >= 4);
    await c.stop();
    // Acks are not confirmed: the server counts them a moment later (an unapplied batch would stay pending for ack_wait).
    await eventually(async () => (await env.bus.jsm.consumers.info(env.bus.stream("ROOMS"), c.durable)).num_ack_pending === 0, {
      timeoutMs: 5_000,
      message: "every message received before stop was applied and acked",
    });
    expect(batches.every((b) => b.length <= 2)).toBe(true);
    expect(batches.flat()).toEqual(published.slice(0, batches.flat().length).map((e) => e.data.name));
    const restarted = runner(
      { "room.created": recordRoom["room.created"]! },
      { name: c["opts"].name, batchSize: 2, batchHandler: handler },
    );
    await restarted.start();
    await settled(restarted);
    await restarted.stop();
    expect(batches.flat()).toEqual(published.map((e) => e.data.name));
    expect(await appliedCount()).toBe(30);
    expect((await dlqFor(c)).map((m) => m.data)).toEqual(["not json either"]);
  });

  it("a handler's logger names the consumer and the event", async () => {
    await env.bus.jsm.streams.purge(env.bus.stream("ROOMS"));
    const bindings: Record<string, unknown>[] = [];
    const c = runner({
      "room.created": async (_tx, _ev, ctx) => {
        bindings.push(ctx.log.bindings());
      },
    });
    const ev = await publish(140);
    await c.start();
    await settled(c);
    await c.stop();
    expect(bindings).toEqual([expect.objectContaining({ consumer: c["opts"].name, eventId: ev.id, eventType: "room.created" })]);
  });

  it("a batch handler that fails: the batch is redone event by event, the others apply once, the failing one is retried and dead-lettered", async () => {
    await env.bus.jsm.streams.purge(env.bus.stream("ROOMS"));
    const insert = async (tx: Parameters<EventHandler<"room.created">>[0], room: { id: string; name: string }) => {
      await tx`insert into applied (room_id, name) values (${room.id}, ${room.name})`;
      if (room.name === "room-83") throw new Error("cannot apply room-83");
    };
    let failingCalls = 0;
    const c = runner(
      {
        "room.created": async (tx, ev) => {
          if (ev.data.name === "room-83") failingCalls++;
          await insert(tx, ev.data);
        },
      },
      {
        batchHandler: async (tx, events) => {
          for (const { event } of events) await insert(tx, event.data as { id: string; name: string });
        },
      },
    );
    for (let i = 80; i < 90; i++) await publish(i);
    await c.start();
    await settled(c);
    await c.stop();
    expect(await appliedCount()).toBe(9);
    expect(failingCalls).toBe(3); // every allowed delivery (maxDeliver 3), then the DLQ
    const dlq = await dlqFor(c);
    expect(dlq).toHaveLength(1);
    expect(dlq[0]!.headers["Scribe-Dlq-Reason"]).toBe("cannot apply room-83");
  });

  it("keeps four batches unacknowledged at most (the one applied, the one parsed, two arriving), also on a consumer made before", async () => {
    const name = `test.consumer${++n}`;
    const stream = env.bus.stream("ROOMS");
    // As an older runner made it: two batches of 500.
    await env.bus.jsm.consumers.add(stream, {
      durable_name: name.replace(/\./g, "_"),
      description: name,
      ack_policy: AckPolicy.Explicit,
      ack_wait: 30_000 * 1_000_000,
      max_deliver: -1,
      max_ack_pending: 1000,
      filter_subject: env.bus.subject("rooms.>"),
    });
    await runner(recordRoom, { name, batchSize: 500 }).ensure();
    expect((await env.bus.jsm.consumers.info(stream, name.replace(/\./g, "_"))).config.max_ack_pending).toBe(2000);
    const small = runner(recordRoom, { batchSize: 10 });
    await small.ensure();
    expect((await env.bus.jsm.consumers.info(stream, small.durable)).config.max_ack_pending).toBe(1000);
  });

  it("is behind while a full batch waits beyond the one being applied", async () => {
    await env.bus.jsm.streams.purge(env.bus.stream("ROOMS"));
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    const c = runner(
      {
        "room.created": async (tx, ev) => {
          await held;
          await tx`insert into applied (room_id, name) values (${ev.data.id}, ${ev.data.name})`;
        },
      },
      { batchSize: 5 },
    );
    expect(c.behind).toBe(false);
    for (let i = 200; i < 220; i++) await publish(i);
    await c.start();
    await eventually(async () => c.behind, { message: "a batch waiting behind the held one" });
    release();
    await settled(c);
    expect(c.behind).toBe(false);
    expect(await appliedCount()).toBe(20);
  });

  it("stops cleanly: in-flight events finish, nothing is left unacknowledged", async () => {
    await env.bus.jsm.streams.purge(env.bus.stream("ROOMS"));
    const c = runner({
      "room.created": async (tx, ev) => {
        await new Promise((r) => setTimeout(r, 5));
        await tx`insert into applied (room_id, name) values (${ev.data.id}, ${ev.data.name})`;
      },
    });
    await c.start();
    for (let i = 30; i < 60; i++) await publish(i);
    await eventually(async () => (await appliedCount()) > 0);
    await c.stop();
    const info = await env.bus.jsm.consumers.info(env.bus.stream("ROOMS"), c.durable);
    // whatever was received was applied and acked; the rest waits in the stream for the next start
    expect(info.num_ack_pending).toBe(0);
    const restarted = runner({ "room.created": recordRoom["room.created"]! }, { name: c["opts"].name });
    await restarted.start();
    await settled(restarted);
    await restarted.stop();
    expect(await appliedCount()).toBe(30);
  });
});
