// Realtime WebSockets (gateway + projection in this process, clients too): events/s fanned out to
// user sockets next to one raw NATS subscriber receiving the same events; a transcript socket's
// handshake + replay of a long stored log next to reading that log straight from JetStream; and
// handshake latency next to an HTTP read that makes the same access check.
import { makeEvent, type EventInput } from "@scribe/contracts";
import { readStream } from "@scribe/kit";
import { eventually } from "@scribe/kit/testing";
import { startSystem, type TestSystem } from "../test/support/system";
import { TranscriptWriter } from "../test/support/transcripts";
import { mustOpen, type OpenSocket } from "../test/support/websocket";
import { percentile, report, time } from "./report";

const USERS = Number(process.env.BENCH_WS_USERS ?? 100);
const EVENTS = Number(process.env.BENCH_WS_EVENTS ?? 4000);
const STORED = Number(process.env.BENCH_WS_STORED ?? 2000);
const HANDSHAKES = 50;

type Entry = EventInput<"transcript.event.appended">;

async function publishAll(tw: TranscriptWriter, entries: Entry[]): Promise<void> {
  for (let i = 0; i < entries.length; i += 500) {
    await Promise.all(
      entries.slice(i, i + 500).map((e) => {
        const out = makeEvent("transcript.event.appended", e, { source: "bench", time: new Date() });
        return tw.bus.js.publish(tw.bus.subject(out.subject), JSON.stringify(out.event), { msgID: out.event.id });
      }),
    );
  }
}

async function userFanOut(sys: TestSystem, tw: TranscriptWriter): Promise<void> {
  // Two sockets per user; every event goes to one user, so each socket gets EVENTS / USERS of them.
  const sockets: OpenSocket[] = [];
  for (let u = 0; u < USERS; u++) {
    const token = await sys.token(`user${u}`);
    sockets.push(
      await mustOpen(sys.baseUrl, "/v1/events", ["bearer", token]),
      await mustOpen(sys.baseUrl, "/v1/events", ["bearer", token]),
    );
  }
  const entries: Entry[] = Array.from({ length: EVENTS }, (_, i) => ({
    transcript_id: `t${i}`,
    user_id: `user${i % USERS}`,
    run_id: null,
    event: "STATUS",
    data: { value: "processing" },
  }));
  const perSocket = EVENTS / USERS;
  const fanOut = await time(async () => {
    await publishAll(tw, entries);
    await eventually(() => sockets.every((s) => s.messages.length >= perSocket), { timeoutMs: 300_000, intervalMs: 5 });
  });
  for (const s of sockets) s.close();

  // Baseline: one core NATS subscriber receiving the same number of events.
  let received = 0;
  const sub = tw.bus.nc.subscribe(tw.bus.subject("transcripts.transcript_event_appended.*"), { callback: () => void received++ });
  await tw.bus.nc.flush();
  const raw = await time(async () => {
    await publishAll(tw, entries);
    await eventually(() => received >= EVENTS, { timeoutMs: 300_000, intervalMs: 5 });
  });
  sub.unsubscribe();
  const deliveries = EVENTS * 2;
  report(
    {
      name: `realtime user sockets: ${USERS * 2} sockets, ${EVENTS} events, ${deliveries} deliveries`,
      value: EVENTS / fanOut,
      unit: "events/s",
    },
    { name: "raw", label: "one raw NATS subscriber", value: EVENTS / raw, unit: "events/s" },
  );
}

async function transcriptReplay(sys: TestSystem, tw: TranscriptWriter): Promise<void> {
  const t = await tw.create({ user_id: null });
  await tw.applied(t.id);
  const entries: Entry[] = Array.from({ length: STORED }, (_, i) => ({
    transcript_id: t.id,
    user_id: null,
    run_id: null,
    event: "TOPIC",
    data: {
      id: `topic${i}`,
      title: `Topic ${i}`,
      summary: "A summary of the topic.",
      timestamp: i * 30,
      duration: 30,
      transcript: "Some words. ".repeat(20),
      words: [],
    },
  }));
  await publishAll(tw, entries);
  const path = `/v1/transcripts/${t.id}/events`;

  const replay = await time(async () => {
    const s = await mustOpen(sys.baseUrl, path);
    await eventually(() => s.messages.length >= STORED, { timeoutMs: 300_000, intervalMs: 5 });
    s.close();
  });
  const direct = await time(async () => {
    let n = 0;
    for await (const batch of readStream(tw.bus, "TRANSCRIPTS", { filterSubject: `transcripts.transcript_event_appended.${t.id}` }))
      n += batch.length;
    if (n !== STORED) throw new Error(`read ${n} of ${STORED}`);
  });
  report(
    { name: `realtime transcript socket: handshake + replay of ${STORED} stored events`, value: replay * 1000, unit: "ms" },
    { name: "direct", label: "reading them from JetStream", value: direct * 1000, unit: "ms" },
  );

  // Handshake latency (access check, stream bounds, consumer) against an HTTP read with the same check.
  const handshakes: number[] = [];
  const reads: number[] = [];
  const empty = await tw.create({ user_id: null });
  await tw.applied(empty.id);
  for (let i = 0; i < HANDSHAKES; i++) {
    handshakes.push(await time(async () => (await mustOpen(sys.baseUrl, `/v1/transcripts/${empty.id}/events`)).close()));
    reads.push(await time(async () => void (await (await sys.as(null)(`/v1/transcripts/${empty.id}/participants`)).text())));
  }
  handshakes.sort((a, b) => a - b);
  reads.sort((a, b) => a - b);
  report(
    { name: "realtime transcript socket handshake p50", value: percentile(handshakes, 50) * 1000, unit: "ms" },
    { name: "http", label: "GET participants (same access check)", value: percentile(reads, 50) * 1000, unit: "ms" },
  );
}

export default async function bench(): Promise<void> {
  const sys = await startSystem({ label: "benchws", services: ["projection", "gateway"] });
  const tw = await TranscriptWriter.connect(sys.prefix);
  try {
    await userFanOut(sys, tw);
    await transcriptReplay(sys, tw);
  } finally {
    await tw.close();
    await sys.stop();
  }
}
