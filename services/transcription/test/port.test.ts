// DbTranscriptPort against a real database: one transaction per call, versions, the events it
// leaves in the outbox, idempotence (a repeated call emits nothing) and the stale-run guard.
import { randomUUID } from "node:crypto";
import { TranscriptCompleted, completedTexts, type TopicRecord } from "@scribe/contracts";
import { connectDb, createLogger, migrate, serviceMigrations, type Sql } from "@scribe/kit";
import { createTestDatabase, type TestDatabase } from "@scribe/kit/testing";
import { WORKFLOW_MIGRATIONS } from "@scribe/workflow";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { persistNew } from "../src/changes";
import { newAggregate } from "../src/domain/transcript";
import { DbTranscriptPort } from "../src/port";
import { loadTranscript, saveTranscript } from "../src/store";

let db: TestDatabase;
let sql: Sql;
let port: DbTranscriptPort;

beforeAll(async () => {
  db = await createTestDatabase("tport");
  sql = connectDb(db.url, { schema: "transcription", max: 3 });
  await migrate(sql, { schema: "transcription", migrations: serviceMigrations("transcription", { shared: [WORKFLOW_MIGRATIONS] }) });
  port = new DbTranscriptPort(sql, createLogger("test", "silent"));
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
async function drained(): Promise<Emitted[]> {
  const rows = await sql<{ payload: string }[]>`delete from outbox returning seq, payload`;
  return rows.map((r) => JSON.parse(r.payload) as Emitted);
}
const types = (es: Emitted[]) => es.map((e) => e.type);
const topic = (words: [string, number][]): TopicRecord => ({
  id: randomUUID(),
  title: "T",
  summary: "S",
  timestamp: words[0]![1],
  duration: null,
  transcript: null,
  words: words.map(([text, start]) => ({ text, start, end: start + 0.5, speaker: 0 })),
});

describe("DbTranscriptPort", () => {
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
    const payloads = (await sql<{ payload: string }[]>`delete from outbox returning seq, payload`).map((r) => r.payload);
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
    const [payload] = (await sql<{ payload: string }[]>`delete from outbox returning payload`).map((r) => r.payload);
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
    expect(es[3]!.data.webvtt).toContain("<v Speaker0>Hello world.");
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
});
