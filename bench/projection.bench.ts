// Projection throughput: events/s the live consumer folds into the read model (next to the kit's
// consumer machinery alone: inbox only, no read model), events/s of a full rebuild (replay), and
// updates/s of long transcripts whose WebVTT changes (next to computing one search vector of the
// same caption text: what such an update cannot avoid when the text changed).
import {
  DLQ_STREAM,
  STREAMS,
  makeEvent,
  topicsToWebvtt,
  webvttPlainText,
  type EventInput,
  type EventType,
  type OutgoingEvent,
  type TranscriptState,
} from "@scribe/contracts";
import { sampleTranscriptState } from "@scribe/contracts/testing";
import {
  ConsumerRunner,
  KIT_MIGRATIONS,
  connectBus,
  connectDb,
  createLogger,
  ensureStreams,
  loadMigrations,
  migrate,
  serviceMigrations,
  startService,
  type Bus,
  type Sql,
} from "@scribe/kit";
import { createTestDatabase, eventually, testPrefix, TEST_NATS_URL } from "@scribe/kit/testing";
import { projectionService, rebuildReadModel } from "@scribe/projection";
import { LIVE_TABLES, applyEvent, searchFillWaiting, takeFeedLock } from "@scribe/projection/testing";
import { topicsOfMeeting } from "../services/transcription/test/long-transcript";
import { report, time } from "./report";

const TRANSCRIPTS = Number(process.env.BENCH_PROJECTION_TRANSCRIPTS ?? 2000);
const LONG_TRANSCRIPTS = Number(process.env.BENCH_PROJECTION_LONG_TRANSCRIPTS ?? 6);
/** Updates per long transcript of each kind (caption text edited, speakers changed only). */
const LONG_UPDATES = 3;
const log = createLogger("bench", "silent");

/** What one transcript's processing emits: created, three topics, the final state (webvtt, summaries). */
function transcriptEvents(i: number): OutgoingEvent[] {
  const base: TranscriptState = sampleTranscriptState({
    id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
    name: `Meeting ${i}`,
    status: "processing",
    duration: 1_800_000,
    participants: [{ id: `p${i}`, speaker: 0, name: "Alice", user_id: null }],
    user_id: `user-${i % 100}`,
    room_id: `room-${i % 20}`,
  });
  const words = (t: number) =>
    Array.from({ length: 40 }, (_, w) => ({ text: ` word${(w * 7 + t) % 50}`, start: t * 40 + w, end: t * 40 + w + 1, speaker: w % 2 }));
  const ev = <T extends EventType>(type: T, data: EventInput<T>): OutgoingEvent =>
    makeEvent(type, data, { source: "bench", time: new Date() });
  const cues = Array.from(
    { length: 12 },
    (_, c) =>
      `\n00:00:${String(c * 4).padStart(2, "0")}.000 --> 00:00:${String(c * 4 + 4).padStart(2, "0")}.000\n<v Speaker${c % 2}>Sentence number ${c} of meeting ${i} with some words.\n`,
  );
  return [
    ev("transcript.created", base),
    ...[0, 1, 2].map((t) =>
      ev("transcript.topic.upserted", {
        transcript_id: base.id,
        version: 2 + t,
        position: t,
        topic: {
          id: `t${i}-${t}`,
          title: `Topic ${t}`,
          summary: "A summary.",
          timestamp: t * 40,
          duration: null,
          transcript: null,
          words: words(t),
        },
      }),
    ),
    ev("transcript.updated", {
      ...base,
      version: 5,
      status: "ended",
      title: `Meeting ${i} about things`,
      long_summary: "We talked about many things at length. ".repeat(8),
      webvtt: `WEBVTT\n${cues.join("")}`,
    }),
  ];
}

/**
 * A 60-minute meeting's WebVTT (a cue per word, the longest such a meeting has: ~0.5 MB, ~100 KB of
 * caption text). `edit` > 0 rewrites every 50th word (the caption text changes); `shift` moves
 * every word to another speaker (only the voices change).
 */
function longWebvtt(edit: number, shift: number): string {
  const topics = topicsOfMeeting(60).map((t) => ({
    ...t,
    words: t.words.map((w, i) => ({
      ...w,
      text: edit > 0 && i % 50 === 0 ? ` edit${edit}x${i}` : w.text,
      speaker: (w.speaker + shift) % 3,
    })),
  }));
  return topicsToWebvtt(topics);
}

/**
 * Long transcripts created, then updated with a new WebVTT one event per transaction as the live
 * consumer applies them (a long transcript's updates come seconds apart, each alone in its batch).
 */
async function longTranscripts(sql: Sql): Promise<void> {
  const created = longWebvtt(0, 0);
  const edited = Array.from({ length: LONG_UPDATES }, (_, u) => longWebvtt(u + 1, 0));
  const respoken = Array.from({ length: LONG_UPDATES }, (_, u) => longWebvtt(LONG_UPDATES, u + 1));
  const apply = (state: TranscriptState) =>
    sql.begin(async (tx) => {
      await takeFeedLock(tx);
      await applyEvent(tx, LIVE_TABLES, makeEvent("transcript.updated", state, { source: "bench", time: new Date() }).event, {
        announce: true,
      });
    });
  const states = Array.from({ length: LONG_TRANSCRIPTS }, (_, i) =>
    sampleTranscriptState({
      id: `10000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
      status: "ended",
      title: `Long meeting ${i}`,
      duration: 3_600_000,
      webvtt: created,
    }),
  );
  for (const s of states) await apply(s);

  // Baseline: one search vector of the same caption text, as the trigger computes it (one round trip each).
  const captions = edited.map((w) => webvttPlainText(w));
  const vectors = await time(async () => {
    for (let i = 0; i < LONG_TRANSCRIPTS; i++)
      for (const text of captions) await sql`select setweight(to_tsvector('english', ${text}), 'C') is not null as ok`;
  });
  const baseline = {
    name: "one search vector of a 60-minute caption text",
    value: (LONG_TRANSCRIPTS * LONG_UPDATES) / vectors,
    unit: "vectors/s",
  };
  report(baseline);

  const run = async (webvtts: string[], firstVersion: number) =>
    time(async () => {
      for (const [u, webvtt] of webvtts.entries())
        for (const s of states) await apply({ ...s, version: firstVersion + u, webvtt, updated_at: new Date().toISOString() });
    });
  const editedSeconds = await run(edited, 2);
  report(
    {
      name: "60-minute transcript updated, caption text edited",
      value: (LONG_TRANSCRIPTS * LONG_UPDATES) / editedSeconds,
      unit: "updates/s",
    },
    { ...baseline, label: "one search vector" },
  );
  const respokenSeconds = await run(respoken, 2 + LONG_UPDATES);
  report(
    {
      name: "60-minute transcript updated, speakers changed only",
      value: (LONG_TRANSCRIPTS * LONG_UPDATES) / respokenSeconds,
      unit: "updates/s",
    },
    { ...baseline, label: "one search vector" },
  );
}

async function publishAll(bus: Bus, events: OutgoingEvent[]): Promise<void> {
  for (let i = 0; i < events.length; i += 1000) {
    await Promise.all(
      events.slice(i, i + 1000).map((e) => bus.js.publish(bus.subject(e.subject), JSON.stringify(e.event), { msgID: e.event.id })),
    );
  }
}

async function drained(bus: Bus, durable: string): Promise<void> {
  await eventually(
    async () => {
      const info = await bus.jsm.consumers.info(bus.stream("TRANSCRIPTS"), durable);
      return info.num_pending === 0 && info.num_ack_pending === 0;
    },
    { timeoutMs: 600_000, intervalMs: 20 },
  );
}

export default async function bench(): Promise<void> {
  const db = await createTestDatabase("benchproj");
  const prefix = testPrefix("benchproj");
  const bus = await connectBus({ url: TEST_NATS_URL, prefix, name: "bench-projection" });
  const sql = connectDb(db.url, { schema: "projection", max: 4 });
  const base = connectDb(db.url, { schema: "baseline", max: 4 });
  const env = { DATABASE_URL: db.url, NATS_URL: TEST_NATS_URL, NATS_PREFIX: prefix, LOG_LEVEL: "silent", OPS_PORT: "0" };
  let service: Awaited<ReturnType<typeof startService>> | null = null;
  try {
    await ensureStreams(bus);
    await migrate(sql, { schema: "projection", migrations: serviceMigrations("projection") });
    await migrate(base, { schema: "baseline", migrations: loadMigrations([KIT_MIGRATIONS]) });
    const events = Array.from({ length: TRANSCRIPTS }, (_, i) => transcriptEvents(i)).flat();
    await publishAll(bus, events);
    const N = events.length;

    // Baseline: the same consumer machinery (parse, validate, batch transaction, inbox) with no read model.
    const noop = async () => {};
    const runner = new ConsumerRunner({
      bus,
      sql: base,
      log,
      name: "baseline.transcripts",
      stream: "TRANSCRIPTS",
      handlers: { "transcript.created": noop, "transcript.topic.upserted": noop, "transcript.updated": noop },
    });
    const machinery = await time(async () => {
      await runner.start();
      await drained(bus, "baseline_transcripts");
    });
    await runner.stop();
    const baseline = { name: "consumer machinery only (inbox, no read model)", value: N / machinery, unit: "events/s" };
    report(baseline);

    const apply = await time(async () => {
      service = await startService(projectionService, env);
      await drained(bus, "projection_transcripts");
    });
    const [check] = await sql<{ n: number }[]>`select count(*)::int as n from transcript where version = 5`;
    if (check!.n !== TRANSCRIPTS) throw new Error(`expected ${TRANSCRIPTS} transcripts at version 5, found ${check!.n}`);
    const live = { name: `projection apply (${N.toLocaleString("en-US")} events)`, value: N / apply, unit: "events/s" };
    report(live, { ...baseline, label: "consumer machinery" });

    // The service's search fill catches up on what was applied before the rebuild is timed (it would compete with it).
    await eventually(
      async () => {
        const left = await searchFillWaiting(sql);
        return left.copies === 0 && left.pairs === 0;
      },
      { timeoutMs: 120_000, intervalMs: 50 },
    );
    const rebuild = await rebuildReadModel({ sql, bus, log });
    report(
      { name: "replay: rebuild and swap", value: rebuild.events / rebuild.seconds, unit: "events/s" },
      { ...live, label: "live apply" },
    );
    console.log("goal (issue 20): live apply ≥ 5,000 events/s; replay of 1M events ≤ 4 min (≥ 4,167 events/s)");

    await longTranscripts(sql);
  } finally {
    await (service as Awaited<ReturnType<typeof startService>> | null)?.stop();
    for (const s of [...Object.keys(STREAMS), DLQ_STREAM.name]) await bus.jsm.streams.delete(bus.stream(s)).catch(() => {});
    await bus.close();
    await sql.end({ timeout: 1 });
    await base.end({ timeout: 1 });
    await db.drop();
  }
}
