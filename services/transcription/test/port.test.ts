// DbTranscriptPort against a real database: versions, the events it leaves in the outbox, idempotence
// (a repeated call emits nothing), the stale-run guard, and what it decides when another writer
// changed the row since the port last read or wrote it (another replica, a reprocess, an API edit).
import { randomUUID } from "node:crypto";
import {
  RecordingReady,
  TranscriptCompleted,
  TranscriptUpdated,
  carriedWebvtt,
  completedTexts,
  makeEvent,
  transcriptUpdated,
  webvttGzip,
  type TopicRecord,
} from "@scribe/contracts";
import { connectDb, createLogger, migrate, serviceMigrations, type Db, type Sql } from "@scribe/kit";
import { createTestDatabase, eventually, type TestDatabase } from "@scribe/kit/testing";
import { WORKFLOW_MIGRATIONS } from "@scribe/workflow";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { execute, persistNew } from "../src/changes";
import { destroyTranscript } from "../src/destroy";
import { decide, loads } from "../src/domain/decider";
import { newAggregate, type LoggedEvent } from "../src/domain/transcript";
import { DbTranscriptPort, type PortOptions } from "../src/port";
import { emitEvents, insertTranscript, loadTranscript, saveTranscript, WEBVTT_NOT_READ } from "../src/store";

let db: TestDatabase;
let sql: Sql;

beforeAll(async () => {
  db = await createTestDatabase("tport");
  sql = connectDb(db.url, { schema: "transcription", max: 3 });
  await migrate(sql, { schema: "transcription", migrations: serviceMigrations("transcription", { shared: [WORKFLOW_MIGRATIONS] }) });
});
afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await db?.drop();
});

let id: string;
const RUN = "run-1";

/** A transcript whose current run is RUN, with the outbox emptied. */
beforeEach(async () => {
  const a = newAggregate({ id: randomUUID(), now: new Date(), user_id: "alice", name: "t", source_kind: "file" });
  id = a.state.id;
  await sql.begin((tx) => persistNew(tx, a, new Date()));
  await sql.begin(async (tx) => saveTranscript(tx, { ...(await loadTranscript(tx, id))!, current_run_id: RUN }));
  await sql`delete from outbox`;
});

interface Emitted {
  type: string;
  data: Record<string, unknown>;
}
/** The outbox's payloads in the order the relay publishes them (a delete returns rows in no set order), emptied. */
async function drainedPayloads(): Promise<string[]> {
  const rows = await sql<{ payload: string }[]>`with d as (delete from outbox returning seq, payload) select payload from d order by seq`;
  return rows.map((r) => r.payload);
}
async function drained(): Promise<Emitted[]> {
  return (await drainedPayloads()).map((p) => JSON.parse(p) as Emitted);
}
const types = (es: Emitted[]) => es.map((e) => e.type);
/** The transcript's event log as stored, in order. */
const logOf = async (transcriptId: string) => (await loadTranscript(sql, transcriptId, { topics: false }))!.events!;
/**
 * `call`, made while another connection's transaction holds the transcript's row after `write`: it
 * commits once the call waits for the row lock (the call sees nothing of `write` before then).
 */
async function whileAnotherWriterHolds<T>(write: (other: Db) => Promise<unknown>, call: () => Promise<T>): Promise<T> {
  const other = await sql.reserve();
  try {
    await other`begin`;
    await write(other);
    const called = call();
    await eventually(async () => {
      const [w] = await sql<{ n: number }[]>`select count(*)::int as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock'`;
      return w!.n === 1;
    });
    await other`commit`;
    return await called;
  } finally {
    other.release();
  }
}
const spoken = (i: number): LoggedEvent => ({ event: "TRANSCRIPT", data: { text: `entry ${i}`, translation: null } });
const topic = (words: [string, number][]): TopicRecord => ({
  id: randomUUID(),
  title: "T",
  summary: "S",
  timestamp: words[0]![1],
  duration: null,
  transcript: null,
  words: words.map(([text, start]) => ({ text, start, end: start + 0.5, speaker: 0 })),
});

describe.each([
  ["deciding on the row as it last left or read it", {}],
  ["locking the row first (its way when other writers keep changing the row)", { unlockedTries: 0 }],
])("DbTranscriptPort %s", (_, opts: PortOptions) => {
  const newPort = () => new DbTranscriptPort(sql, createLogger("test", "silent"), undefined, opts);
  let port: DbTranscriptPort;
  beforeAll(() => {
    port = newPort();
  });

  it("marks processing with a STATUS event once; a repeated call emits nothing", async () => {
    expect(await port.markProcessing(id, RUN)).toBe(true);
    const first = await drained();
    expect(types(first)).toEqual(["transcript.updated", "transcript.event.appended"]);
    expect(first[1]!.data).toMatchObject({
      transcript_id: id,
      user_id: "alice",
      run_id: RUN,
      event: "STATUS",
      data: { value: "processing" },
    });
    expect(await port.markProcessing(id, RUN)).toBe(true);
    expect(await drained()).toEqual([]);
    expect((await port.load(id))!.status).toBe("processing");
  });

  it("updates fields with a version bump, and emits nothing when the values are unchanged", async () => {
    const before = (await port.load(id))!.version;
    expect(await port.update(id, RUN, { title: "Weekly", duration: 1500 })).toBe(true);
    const es = await drained();
    expect(types(es)).toEqual(["transcript.updated"]);
    expect(es[0]!.data).toMatchObject({ title: "Weekly", duration: 1500, version: before + 1 });
    expect(await port.update(id, RUN, { title: "Weekly", duration: 1500 })).toBe(true);
    expect(await drained()).toEqual([]);
    expect((await port.load(id))!.version).toBe(before + 1);
  });

  it("writes a field without reading or rewriting the topics and the event log, which stay as they were", async () => {
    const topics = [topic([["Hello", 0]])];
    await port.replaceTopics(id, RUN, topics);
    await port.appendEvent(id, RUN, "DURATION", { duration: 1 });
    const before = (await loadTranscript(sql, id))!;
    expect(await port.update(id, RUN, { title: "Weekly" })).toBe(true);
    expect(await port.markProcessing(id, RUN)).toBe(true);
    const after = (await loadTranscript(sql, id))!;
    expect(after.topics).toEqual(topics);
    expect(after.events).toEqual([
      { event: "DURATION", data: { duration: 1 } },
      { event: "STATUS", data: { value: "processing" } },
    ]);
    expect(after.state).toMatchObject({
      title: "Weekly",
      status: "processing",
      webvtt: before.state.webvtt,
      version: before.state.version + 2,
    });
  });

  it("carries the stored WebVTT, which a write does not read, in the completion exactly", async () => {
    // Quotes, backslashes, control characters, non-ASCII, emoji and line separators: read for the completion, compressed, as stored.
    const webvtt = 'WEBVTT\n\n00:00:00.000 --> 00:00:01.000\n<v "Zoë" \\ 1>\t\u0001\u001f\u007f\u2028 naïve 👋 </v>';
    await sql.begin(async (tx) =>
      saveTranscript(tx, { ...(await loadTranscript(tx, id))!, state: { ...(await loadTranscript(tx, id))!.state, webvtt } }),
    );
    expect(await port.update(id, RUN, { title: "Weekly" })).toBe(true);
    expect(await port.complete(id, RUN)).toBe(true);
    const payloads = await drainedPayloads();
    expect(payloads).toHaveLength(3);
    const [updated, completed] = payloads.map((p) => JSON.parse(p) as Emitted);
    expect(completed!.data).toMatchObject({ transcript: { status: "ended" } });
    expect(completed!.data.transcript).not.toHaveProperty("webvtt");
    expect(completedTexts(TranscriptCompleted.parse(completed!.data)).webvtt).toBe(webvtt);
    expect((await loadTranscript(sql, id))!.state.webvtt).toBe(webvtt);
    // A change that leaves the WebVTT as it was does not carry it (TranscriptUpdated).
    expect(updated!.data).toMatchObject({ title: "Weekly" });
    expect(updated!.data).not.toHaveProperty("webvtt");
  });

  it("announces a transcript's first state with webvtt null, and a later change without it", async () => {
    const fresh = newAggregate({ id: randomUUID(), now: new Date(), user_id: null, name: "t", source_kind: "file" });
    await sql.begin((tx) => persistNew(tx, fresh, new Date()));
    const [created] = await drained();
    expect(created).toMatchObject({ type: "transcript.created", data: { webvtt: null } });
    expect(await port.update(id, RUN, { title: "Weekly" })).toBe(true);
    const [payload] = await drainedPayloads();
    expect(payload).not.toContain(`"webvtt"`);
    expect((JSON.parse(payload!) as Emitted).data).toMatchObject({ title: "Weekly" });
  });

  it("ignores every call of a run that is not the current one (stale-run guard)", async () => {
    const before = await port.load(id);
    expect(await port.markProcessing(id, "old-run")).toBe(false);
    expect(await port.update(id, "old-run", { title: "late" })).toBe(false);
    expect(await port.replaceTopics(id, "old-run", [topic([["Hi", 0]])])).toBe(false);
    expect(await port.appendEvent(id, "old-run", "DURATION", { duration: 1 })).toBe(false);
    expect(await port.complete(id, "old-run")).toBe(false);
    expect(await port.fail(id, "old-run", "boom")).toBe(false);
    expect(await drained()).toEqual([]);
    expect(await port.load(id)).toEqual(before);
  });

  it("replaces topics as cleared + upserted, each event a newer version, and regenerates the WebVTT", async () => {
    const v = (await port.load(id))!.version;
    const topics = [
      topic([
        ["Hello", 0],
        [" world.", 0.5],
      ]),
      topic([["Bye", 2]]),
    ];
    expect(await port.replaceTopics(id, RUN, topics)).toBe(true);
    const es = await drained();
    expect(types(es)).toEqual([
      "transcript.topics.cleared",
      "transcript.topic.upserted",
      "transcript.topic.upserted",
      "transcript.updated",
    ]);
    expect(es[0]!.data.version).toBe(v + 1);
    expect(es[1]!.data).toMatchObject({ version: v + 2, position: 0 });
    expect(es[2]!.data).toMatchObject({ version: v + 3, position: 1 });
    expect(es[3]!.data.version).toBe(v + 4);
    // The new WebVTT travels compressed (transcript.updated v3), exactly as stored.
    expect(es[3]!.data).not.toHaveProperty("webvtt");
    expect(carriedWebvtt(TranscriptUpdated.parse(es[3]!.data))).toBe((await loadTranscript(sql, id))!.state.webvtt);
    expect(carriedWebvtt(TranscriptUpdated.parse(es[3]!.data))).toContain("<v Speaker0>Hello world.");
    expect(await port.replaceTopics(id, RUN, topics)).toBe(true);
    expect(await drained()).toEqual([]);
  });

  it("appends a realtime event once, however often the step runs", async () => {
    expect(await port.appendEvent(id, RUN, "FINAL_TITLE", { title: "Weekly" })).toBe(true);
    expect(await port.appendEvent(id, RUN, "FINAL_TITLE", { title: "Weekly" })).toBe(true);
    const es = await drained();
    expect(types(es)).toEqual(["transcript.event.appended"]);
    expect(es[0]!.data).toMatchObject({ event: "FINAL_TITLE", data: { title: "Weekly" }, run_id: RUN });
  });

  it("refuses an entry equal to one in a long log (same event and data, keys in any order), appends one that differs", async () => {
    await sql.begin(async (tx) => {
      const a = (await loadTranscript(tx, id))!;
      await saveTranscript(tx, { ...a, events: Array.from({ length: 300 }, (_, i) => spoken(i)) });
    });
    expect(await port.appendEvent(id, RUN, "TRANSCRIPT", { translation: null, text: "entry 150" })).toBe(true);
    expect(await port.appendEvent(id, RUN, "FINAL_TITLE", { text: "entry 150", translation: null })).toBe(true);
    expect(await port.appendEvent(id, RUN, "TRANSCRIPT", { text: "entry 150", translation: "" })).toBe(true);
    expect((await drained()).map((e) => [e.data.event, e.data.data])).toEqual([
      ["FINAL_TITLE", { text: "entry 150", translation: null }],
      ["TRANSCRIPT", { text: "entry 150", translation: "" }],
    ]);
    expect(await logOf(id)).toHaveLength(302);
  });

  it("logs a STATUS the run comes back to again (processing, error, processing)", async () => {
    await port.markProcessing(id, RUN);
    await port.fail(id, RUN, "step failed");
    await port.markProcessing(id, RUN);
    expect((await logOf(id)).map((e) => e.data)).toEqual([{ value: "processing" }, { value: "error" }, { value: "processing" }]);
  });

  it("appends from two ports at once: each entry once, each port's in its order, the log in the order they were announced", async () => {
    const ports = [port, newPort()];
    const appends = ports.map(async (p, n) => {
      for (let i = 0; i < 10; i++) {
        expect(await p.appendEvent(id, RUN, "TRANSCRIPT", { text: `port ${n} entry ${i}`, translation: null })).toBe(true);
        // Both ports also append the same entries, as two attempts of one step would.
        expect(await p.appendEvent(id, RUN, "DURATION", { duration: i })).toBe(true);
      }
    });
    await Promise.all(appends);
    const log = await logOf(id);
    const announced = (await drained()).map((e) => ({ event: e.data.event, data: e.data.data }));
    expect(log).toEqual(announced);
    expect(log).toHaveLength(30);
    for (const n of [0, 1])
      expect(log.filter((e) => String(e.data.text).startsWith(`port ${n} `)).map((e) => e.data.text)).toEqual(
        Array.from({ length: 10 }, (_, i) => `port ${n} entry ${i}`),
      );
    expect(log.filter((e) => e.event === "DURATION").map((e) => e.data.duration)).toEqual(Array.from({ length: 10 }, (_, i) => i));
  });

  it("completes once per run: status ended, transcript.completed with the run id and topics' WebVTT", async () => {
    await port.replaceTopics(id, RUN, [topic([["Hello", 0]])]);
    await drained();
    expect(await port.complete(id, RUN)).toBe(true);
    const es = await drained();
    expect(types(es)).toEqual(["transcript.completed", "transcript.event.appended"]);
    expect(es[0]!.data).toMatchObject({ run_id: RUN, transcript: { status: "ended" } });
    // The WebVTT the port did not read for the write (store.ts) is read for the completion, which carries it.
    const stored = (await loadTranscript(sql, id))!.state.webvtt;
    expect(stored).toContain("Hello");
    expect(completedTexts(TranscriptCompleted.parse(es[0]!.data))).toMatchObject({ webvtt: stored, topics: [{ webvtt: stored }] });
    expect(await port.complete(id, RUN)).toBe(true);
    expect(await drained()).toEqual([]);
  });

  it("fails with the reason, but never over ended", async () => {
    expect(await port.fail(id, RUN, "no audio stream")).toBe(true);
    expect(await port.load(id)).toMatchObject({ status: "error", error: "no audio stream" });
    expect(types(await drained())).toEqual(["transcript.updated", "transcript.event.appended"]);
    await port.markProcessing(id, RUN);
    await port.complete(id, RUN);
    await drained();
    expect(await port.fail(id, RUN, "late failure")).toBe(false);
    expect(await port.load(id)).toMatchObject({ status: "ended", error: null });
    expect(await drained()).toEqual([]);
  });

  describe("when another writer changed the row since this port last saw it", () => {
    const otherReplica = newPort;

    it("decides again: a value it set, then someone else changed, is set again", async () => {
      expect(await port.update(id, RUN, { title: "Mine" })).toBe(true);
      expect(await otherReplica().update(id, RUN, { title: "Theirs" })).toBe(true);
      await drained();
      expect(await port.update(id, RUN, { title: "Mine" })).toBe(true);
      expect(types(await drained())).toEqual(["transcript.updated"]);
      expect((await port.load(id))!.title).toBe("Mine");
    });

    it("refuses the old run after a reprocess started a new one", async () => {
      expect(await port.update(id, RUN, { title: "Mine" })).toBe(true);
      await sql`update transcript set current_run_id = 'run-2' where id = ${id}`;
      await drained();
      expect(await port.update(id, RUN, { title: "late" })).toBe(false);
      expect(await port.fail(id, RUN, "late")).toBe(false);
      expect(await drained()).toEqual([]);
      expect((await port.load(id))!.title).toBe("Mine");
    });

    it("writes a new run's value that the old run had set", async () => {
      expect(await port.update(id, RUN, { title: "Same" })).toBe(true);
      await sql`update transcript set current_run_id = 'run-2' where id = ${id}`;
      // Not "unchanged" on what it knew: run-2 is the current run only in the row as it is now.
      expect(await port.update(id, "run-2", { title: "Same" })).toBe(true);
      expect(await port.update(id, "run-2", { title: "Run 2" })).toBe(true);
      expect((await port.load(id))!.title).toBe("Run 2");
    });

    it("waits for a writer holding the row and decides on the row it committed: no version is given twice", async () => {
      expect(await port.update(id, RUN, { title: "First" })).toBe(true);
      const v = (await port.load(id))!.version;
      await drained();
      const call = whileAnotherWriterHolds(
        (other) => other`update transcript set duration = 7, version = version + 1 where id = ${id}`,
        () => port.update(id, RUN, { title: "Second" }),
      );
      expect(await call).toBe(true);
      const [updated] = await drained();
      expect(updated!.data).toMatchObject({ title: "Second", duration: 7, version: v + 2 });
      expect(await port.load(id)).toMatchObject({ title: "Second", duration: 7, version: v + 2 });
    });

    it("an entry another writer appended while this port's call waited for the row is not appended again", async () => {
      expect(await port.appendEvent(id, RUN, "DURATION", { duration: 1 })).toBe(true);
      await drained();
      const call = whileAnotherWriterHolds(
        // The write side's locked way (an API command's): the row locked, the decision committed.
        async (other) => {
          const command = { type: "appendEvent", run_id: RUN, event: "FINAL_TITLE", data: { title: "Weekly" } } as const;
          const a = await loadTranscript(other, id, { forUpdate: true, ...loads(command) });
          await execute(other, a, command, new Date());
        },
        () => port.appendEvent(id, RUN, "FINAL_TITLE", { title: "Weekly" }),
      );
      expect(await call).toBe(true);
      // The other writer's announcement only.
      expect((await drained()).map((e) => e.data.event)).toEqual(["FINAL_TITLE"]);
      expect(await logOf(id)).toEqual([
        { event: "DURATION", data: { duration: 1 } },
        { event: "FINAL_TITLE", data: { title: "Weekly" } },
      ]);
    });

    it("many writers at once: every change gets a version of its own and its event, none is lost", async () => {
      const v = (await port.load(id))!.version;
      const ports = [port, otherReplica(), otherReplica()];
      const calls = Array.from({ length: 12 }, (_, i) => ports[i % 3]!.update(id, RUN, { title: `t${i}`, duration: i }));
      expect(await Promise.all(calls)).toEqual(Array(12).fill(true));
      const versions = (await drained()).map((e) => e.data.version);
      expect(versions).toEqual(Array.from({ length: 12 }, (_, i) => v + 1 + i));
      expect((await port.load(id))!.version).toBe(v + 12);
    });
  });
});

it("refuses to queue an event that carries the WebVTT its write did not read, as text or compressed", async () => {
  const state = (await loadTranscript(sql, id, { webvtt: false }))!.state;
  expect(state.webvtt).toBe(WEBVTT_NOT_READ);
  const next = { ...state, version: state.version + 1 };
  const { webvtt: _unread, ...transcript } = next;
  const carrying = [
    makeEvent("transcript.updated", next, { source: "test", time: new Date() }),
    makeEvent("transcript.updated", transcriptUpdated(next, true), { source: "test", time: new Date() }),
    makeEvent(
      "transcript.completed",
      { transcript, webvtt_gzip: webvttGzip(WEBVTT_NOT_READ), topics: [], run_id: RUN, completed_at: new Date().toISOString() },
      { source: "test", time: new Date() },
    ),
  ];
  for (const event of carrying) await expect(emitEvents(sql, [event])).rejects.toThrow(/did not read/);
  expect(await drained()).toEqual([]);
});

describe("the event log", () => {
  const port = () => new DbTranscriptPort(sql, createLogger("test", "silent"));
  const now = new Date();
  const recording = RecordingReady.parse({
    recording_id: randomUUID(),
    transcript_id: "placeholder",
    source: "upload",
    kind: "file",
    bucket: "transcripts",
    file: { key: "t/upload.webm", size: 10 },
    owner_user_id: "alice",
    recorded_at: now.toISOString(),
  });
  const rowsOf = async (transcriptId: string) =>
    (await sql<{ n: number }[]>`select count(*)::int as n from transcript_event where transcript_id = ${transcriptId}`)[0]!.n;

  it("starts again on a reprocess: the new run appends what the old one had logged", async () => {
    await sql.begin(async (tx) =>
      saveTranscript(tx, { ...(await loadTranscript(tx, id))!, recording_source: { ...recording, transcript_id: id } }),
    );
    expect(await port().appendEvent(id, RUN, "FINAL_TITLE", { title: "Weekly" })).toBe(true);
    expect(await rowsOf(id)).toBe(1);
    await sql.begin(async (tx) => {
      const a = await loadTranscript(tx, id, { forUpdate: true, events: false });
      await execute(tx, a, { type: "startRun", run_id: "run-2", now }, now);
    });
    expect(await logOf(id)).toEqual([]);
    await drained();
    expect(await port().appendEvent(id, "run-2", "FINAL_TITLE", { title: "Weekly" })).toBe(true);
    expect((await drained()).map((e) => e.data)).toMatchObject([{ run_id: "run-2", event: "FINAL_TITLE", data: { title: "Weekly" } }]);
    expect(await sql`select run_id, event, data from transcript_event where transcript_id = ${id}`).toEqual([
      { run_id: "run-2", event: "FINAL_TITLE", data: { title: "Weekly" } },
    ]);
  });

  it("starts again with a live recording: the old run's entries go, the session's STATUS is its first", async () => {
    expect(await port().appendEvent(id, RUN, "FINAL_TITLE", { title: "Weekly" })).toBe(true);
    await sql.begin(async (tx) => {
      const command = { type: "startLiveRecording", run_id: "session-1", now } as const;
      await execute(tx, await loadTranscript(tx, id, { forUpdate: true, ...loads(command) }), command, now);
    });
    expect(await sql`select run_id, event, data from transcript_event where transcript_id = ${id}`).toEqual([
      { run_id: "session-1", event: "STATUS", data: { value: "recording" } },
    ]);
  });

  it("goes with its transcript when it is destroyed, and only with it", async () => {
    const other = newAggregate({ id: randomUUID(), now, user_id: "bob", name: "other", source_kind: "file" });
    await insertTranscript(sql, { ...other, current_run_id: RUN, events: [{ event: "DURATION", data: { duration: 3 } }] });
    await port().appendEvent(id, RUN, "DURATION", { duration: 1 });
    await port().appendEvent(id, RUN, "FINAL_TITLE", { title: "Weekly" });
    expect(await rowsOf(id)).toBe(2);
    await sql.begin(async (tx) => {
      const a = (await loadTranscript(tx, id, { forUpdate: true, topics: false, events: false }))!;
      await destroyTranscript(tx, a, decide({ type: "destroy", reason: "retention", now }, a), now);
    });
    expect(await rowsOf(id)).toBe(0);
    expect(await logOf(other.state.id)).toEqual([{ event: "DURATION", data: { duration: 3 } }]);
  });
});
