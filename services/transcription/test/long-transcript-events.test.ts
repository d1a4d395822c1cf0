// Long transcripts' changes on the real bus (issue 20): every event the outbox relay
// publishes fits NATS's max payload, a change of a field does not resend the transcript (its WebVTT),
// and an ingester that reads the TRANSCRIPTS stream alone rebuilds the transcript exactly as stored;
// the new WebVTT of three hours and the completion of two hours of the densest speech are each one
// event far under the limit.
import { randomUUID } from "node:crypto";
import {
  carriedWebvtt,
  completedTexts,
  parseEvent,
  topicsToWebvtt,
  transcriptChange,
  wordsToWebvtt,
  type ScribeEvent,
  type TopicRecord,
  type TranscriptState,
} from "@scribe/contracts";
import {
  connectBus,
  connectDb,
  createLogger,
  ensureStreams,
  migrate,
  OutboxRelay,
  readStream,
  serviceMigrations,
  type Bus,
  type Sql,
} from "@scribe/kit";
import { createTestDatabase, eventually, testPrefix, TEST_NATS_URL, type TestDatabase } from "@scribe/kit/testing";
import { WORKFLOW_MIGRATIONS } from "@scribe/workflow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { persistNew } from "../src/changes";
import { newAggregate } from "../src/domain/transcript";
import { DbTranscriptPort } from "../src/port";
import { loadTranscript } from "../src/store";
import { topicsOfMeeting } from "./long-transcript";

const RUN = "run-1";
const log = createLogger("test", "silent");

let db: TestDatabase;
let sql: Sql;
let bus: Bus;
let relay: OutboxRelay;

beforeAll(async () => {
  db = await createTestDatabase("tlong");
  sql = connectDb(db.url, { schema: "transcription", max: 3 });
  await migrate(sql, { schema: "transcription", migrations: serviceMigrations("transcription", { shared: [WORKFLOW_MIGRATIONS] }) });
  bus = await connectBus({ url: TEST_NATS_URL, prefix: testPrefix("tlong"), name: "test-tlong" });
  await ensureStreams(bus);
  relay = new OutboxRelay({ sql, bus, schema: "transcription", log, pollMs: 50 });
  await relay.start();
});
afterAll(async () => {
  await relay?.stop();
  await bus?.jsm.streams.delete(bus.stream("TRANSCRIPTS")).catch(() => {});
  await bus?.close();
  await sql?.end({ timeout: 5 });
  await db?.drop();
});

interface Published {
  bytes: number;
  event: ScribeEvent;
}

/** Every TRANSCRIPTS message of `id`, once the outbox is empty (all published). */
async function publishedOf(id: string): Promise<Published[]> {
  await eventually(async () => expect((await sql<{ n: number }[]>`select count(*)::int as n from outbox`)[0]!.n).toBe(0));
  const out: Published[] = [];
  for await (const batch of readStream(bus, "TRANSCRIPTS", { filterSubject: `transcripts.*.${id}` }))
    for (const m of batch) out.push({ bytes: m.data.length, event: parseEvent(m.data) });
  return out;
}

/**
 * What an ingester keeps, built from the stream alone by EVENTS.md's rules: the state of the newest
 * state event, with the WebVTT of the newest one that carried it; topics by position behind the
 * last clear.
 */
function rebuild(events: readonly ScribeEvent[]): { state: TranscriptState; topics: TopicRecord[] } {
  let state: TranscriptState | null = null;
  let topics: TopicRecord[] = [];
  for (const e of events) {
    if (e.type === "transcript.created" || e.type === "transcript.updated" || e.type === "transcript.completed") {
      // transcript.updated v3 carries a changed WebVTT compressed: read as EVENTS.md says (transcriptChange does).
      const next =
        e.type === "transcript.updated" ? transcriptChange(e.data) : e.type === "transcript.completed" ? e.data.transcript : e.data;
      state = { ...next, webvtt: next.webvtt === undefined ? state!.webvtt : next.webvtt };
    } else if (e.type === "transcript.topics.cleared") topics = [];
    else if (e.type === "transcript.topic.upserted") topics[e.data.position] = e.data.topic;
  }
  return { state: state!, topics };
}

/** A new transcript whose current run is RUN (the pipelines' port writes for it). */
async function transcriptInRun(): Promise<string> {
  const a = newAggregate({ id: randomUUID(), now: new Date(), user_id: "alice", name: "long", source_kind: "file" });
  await sql.begin((tx) => persistNew(tx, a, new Date()));
  await sql`update transcript set current_run_id = ${RUN} where id = ${a.state.id}`;
  return a.state.id;
}

describe("long transcripts on the bus", () => {
  it("publishes every change under the max payload, a field's change without the WebVTT, and rebuilds exactly", async () => {
    const id = await transcriptInRun();
    const port = new DbTranscriptPort(sql, log);

    const topics = topicsOfMeeting(60);
    expect(await port.markProcessing(id, RUN)).toBe(true);
    expect(await port.replaceTopics(id, RUN, topics)).toBe(true);
    const afterTopics = (await publishedOf(id)).length;
    expect(await port.update(id, RUN, { title: "Weekly sync", duration: 3_600_000 })).toBe(true);
    const afterTitle = (await publishedOf(id)).length;
    // One word of one topic corrected: that topic and the new WebVTT travel, nothing else.
    const corrected = topics.map((t, i) =>
      i === 7 ? { ...t, words: t.words.map((w, j) => (j === 0 ? { ...w, text: " fixed" } : w)) } : t,
    );
    expect(await port.replaceTopics(id, RUN, corrected)).toBe(true);
    expect(await port.complete(id, RUN)).toBe(true);
    expect(await port.update(id, RUN, { short_summary: "Short." })).toBe(true);

    const published = await publishedOf(id);
    const maxPayload = bus.nc.info!.max_payload;
    for (const p of published) expect(p.bytes, `${p.event.type} v${JSON.stringify(p.event.data).slice(0, 80)}`).toBeLessThan(maxPayload);

    const titleChange = published.slice(afterTopics, afterTitle);
    expect(titleChange.map((p) => p.event.type)).toEqual(["transcript.updated"]);
    expect(titleChange[0]!.event.data).not.toHaveProperty("webvtt");
    expect(titleChange[0]!.bytes).toBeLessThan(4096);
    const correction = published.slice(afterTitle, afterTitle + 2);
    expect(correction.map((p) => p.event.type)).toEqual(["transcript.topic.upserted", "transcript.updated"]);
    expect(carriedWebvtt((correction[1]!.event as ScribeEvent<"transcript.updated">).data)).toBe(topicsToWebvtt(corrected));

    const stored = (await loadTranscript(sql, id))!;
    const rebuilt = rebuild(published.map((p) => p.event));
    expect(rebuilt.topics).toEqual(stored.topics);
    expect(rebuilt.state).toEqual(stored.state);
    expect(rebuilt.state).toMatchObject({
      title: "Weekly sync",
      short_summary: "Short.",
      status: "ended",
      webvtt: topicsToWebvtt(corrected),
    });
  });

  it("announces the new WebVTT of a 180-minute transcript in one event well under the max payload, exactly as stored", async () => {
    const id = await transcriptInRun();
    const port = new DbTranscriptPort(sql, log);
    const topics = topicsOfMeeting(180);
    expect(await port.replaceTopics(id, RUN, topics)).toBe(true);

    const updated = (await publishedOf(id)).filter((p) => p.event.type === "transcript.updated");
    expect(updated).toHaveLength(1);
    // v2 carried the WebVTT as text: ~1.5 MB here, refused by the server. Compressed it is ~269 KB,
    // a little over a quarter of the limit: a cue per word, its words all different, is about the
    // least compressible WebVTT there is (gzip at its best level gains under 1% more).
    expect(updated[0]!.bytes).toBeLessThan(bus.nc.info!.max_payload / 3);
    const event = updated[0]!.event as ScribeEvent<"transcript.updated">;
    expect(event.dataschema).toBe("urn:scribe:event:transcript.updated:v3");
    expect(carriedWebvtt(event.data)).toBe((await loadTranscript(sql, id))!.state.webvtt);
    expect(carriedWebvtt(event.data)).toBe(topicsToWebvtt(topics));
  });

  it("completes a 120-minute transcript with one event well under the max payload, its WebVTTs exactly as stored", async () => {
    const id = await transcriptInRun();
    const port = new DbTranscriptPort(sql, log);
    const topics = topicsOfMeeting(120);
    expect(await port.replaceTopics(id, RUN, topics)).toBe(true);
    expect(await port.complete(id, RUN)).toBe(true);

    const completed = (await publishedOf(id)).filter((p) => p.event.type === "transcript.completed");
    expect(completed).toHaveLength(1);
    // v1 carried the WebVTT twice (the transcript's, each topic's): about 2 MB here, refused by the server.
    expect(completed[0]!.bytes).toBeLessThan(bus.nc.info!.max_payload / 4);
    const event = completed[0]!.event as ScribeEvent<"transcript.completed">;
    const texts = completedTexts(event.data);
    expect(texts.webvtt).toBe((await loadTranscript(sql, id))!.state.webvtt);
    expect(texts.webvtt).toBe(topicsToWebvtt(topics));
    expect(texts.topics.map((t) => t.webvtt)).toEqual(topics.map((t) => wordsToWebvtt(t.words)));
  });
});
