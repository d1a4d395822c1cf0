// Bus throughput: outbox relay vs raw pipelined JetStream publish, consumer apply vs raw consume.
import { AckPolicy, DeliverPolicy } from "@nats-io/jetstream";
import { makeEvent } from "@scribe/contracts";
import { sampleRoomState } from "@scribe/contracts/testing";
import {
  ConsumerRunner,
  KIT_MIGRATIONS,
  OutboxRelay,
  connectBus,
  connectDb,
  createLogger,
  ensureStreams,
  loadMigrations,
  migrate,
} from "@scribe/kit";
import { createTestDatabase, testPrefix, TEST_NATS_URL } from "@scribe/kit/testing";
import { report, time } from "./report";

const N = Number(process.env.BENCH_EVENTS ?? 20_000);
const log = createLogger("bench", "silent");

/** Room `i`, with an id and a name of its own. */
const roomState = (i: number) => sampleRoomState({ id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`, name: `room-${i}` });

export default async function bench(): Promise<void> {
  const db = await createTestDatabase("bench");
  const sql = connectDb(db.url, { schema: "bench", max: 10 });
  await migrate(sql, { schema: "bench", migrations: loadMigrations([KIT_MIGRATIONS]) });
  await sql`create table applied (id text primary key)`;
  const bus = await connectBus({ url: TEST_NATS_URL, prefix: testPrefix("bench"), name: "bench" });
  await ensureStreams(bus);
  const stream = bus.stream("ROOMS");
  const events = Array.from({ length: N }, (_, i) => makeEvent("room.created", roomState(i), { source: "bench", time: new Date() }));
  const payloads = events.map((e) => JSON.stringify(e.event));
  try {
    // Warm up the connection, the stream's files and the JIT so the first measurement is not penalised.
    await Promise.all(
      events.slice(0, 2000).map((e, j) => bus.js.publish(bus.subject(e.subject), payloads[j]!, { msgID: `warm-${e.event.id}` })),
    );
    await bus.jsm.streams.purge(stream);
    // Raw: pipelined publishes of the same payloads, msg ids set, batches of 1000 acks awaited together.
    const rawPublish = await time(async () => {
      for (let i = 0; i < N; i += 1000) {
        await Promise.all(
          events.slice(i, i + 1000).map((e, j) => bus.js.publish(bus.subject(e.subject), payloads[i + j]!, { msgID: `raw-${e.event.id}` })),
        );
      }
    });
    await bus.jsm.streams.purge(stream);

    // Outbox relay draining the same events, written beforehand (not timed).
    for (let i = 0; i < N; i += 1000) {
      const rows = events.slice(i, i + 1000).map((e, j) => ({ event_id: e.event.id, subject: e.subject, payload: payloads[i + j]! }));
      await sql`insert into outbox ${sql(rows, "event_id", "subject", "payload")}`;
    }
    const relay = new OutboxRelay({ sql, bus, schema: "bench", log, batchSize: 1000 });
    const relayTime = await time(async () => {
      while ((await relay.drainOnce()) > 0);
    });
    const rawPubRate = { name: "raw pipelined publish", value: N / rawPublish, unit: "events/s" };
    report(rawPubRate);
    report({ name: "outbox relay", value: N / relayTime, unit: "events/s" }, rawPubRate);

    // Raw consume: a durable pull consumer acking every message.
    await bus.jsm.consumers.add(stream, { durable_name: "raw", ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All });
    const rawConsumer = await bus.js.consumers.get(stream, "raw");
    const rawConsume = await time(async () => {
      const msgs = await rawConsumer.consume({ max_messages: 1000 });
      let seen = 0;
      for await (const m of msgs) {
        m.ack();
        if (++seen === N) break;
      }
      await msgs.close();
    });

    // Consumer runner: parse + validate, one transaction per batch, inbox row and one insert per event.
    let applied = 0;
    let done!: () => void;
    const finished = new Promise<void>((r) => (done = r));
    const runner = new ConsumerRunner({
      bus,
      sql,
      log,
      name: "bench.apply",
      stream: "ROOMS",
      maxDeliver: 3,
      batchSize: 200,
      handlers: {
        "room.created": async (tx, ev) => {
          await tx`insert into applied (id) values (${ev.data.id})`;
          if (++applied === N) done();
        },
      },
    });
    const applyTime = await time(async () => {
      await runner.start();
      await finished;
    });
    await runner.stop();
    const rawConsumeRate = { name: "raw consume", value: N / rawConsume, unit: "events/s" };
    report(rawConsumeRate);
    report({ name: "consumer apply (db tx + inbox)", value: N / applyTime, unit: "events/s" }, rawConsumeRate);
  } finally {
    await bus.jsm.streams.delete(stream).catch(() => {});
    for (const s of ["MEETINGS", "CALENDAR", "RECORDINGS", "TRANSCRIPTS", "NOTIFICATIONS", "DLQ"])
      await bus.jsm.streams.delete(bus.stream(s)).catch(() => {});
    await bus.close();
    await sql.end({ timeout: 1 });
    await db.drop();
  }
}
