// Destroying a transcript removes it from every copy (issue 15.13): tables, read model, search
// index, and the JetStream streams (its events carry words, titles and summaries), dead letters
// included, so `scribe tail`, `scribe dlq list` and a read-model rebuild never bring it back.
import { ok, type ScribeClient } from "@scribe/client";
import { STREAMS, eventSubject } from "@scribe/contracts";
import { listDeadLetters, rebuildCommand, tailStream } from "@scribe/cli";
import { connectBus, type Bus } from "@scribe/kit";
import { TEST_NATS_URL, eventually } from "@scribe/kit/testing";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSystem, type TestSystem } from "./support/system";
import { TranscriptWriter, topicRecord, word } from "./support/transcripts";

const UNIQUE = "zebracornia";
let sys: TestSystem;
let alice: ScribeClient;
let bus: Bus;
let tw: TranscriptWriter;
let db: postgres.Sql;

beforeAll(async () => {
  sys = await startSystem({
    label: "deletion",
    services: ["projection", "search", "transcription", "gateway"],
    env: { CONSUMER_MAX_DELIVER: "2" },
  });
  alice = sys.client("alice");
  bus = await connectBus({ url: TEST_NATS_URL, prefix: sys.prefix, name: "test-deletion" });
  tw = await TranscriptWriter.connect(sys.prefix);
  db = postgres(sys.db.url, { max: 2, onnotice: () => {} });
});
afterAll(async () => {
  await db?.end({ timeout: 5 });
  await tw?.close();
  await bus?.close();
  await sys?.stop();
});

/** Every message of every stream of this system (events, dead letters, workflow steps), as text. */
async function everyStreamMessage(): Promise<string[]> {
  const texts: string[] = [];
  const mine = bus.stream("X").slice(0, -1);
  for await (const info of bus.jsm.streams.list()) {
    if (!info.config.name.startsWith(mine) || info.state.messages === 0) continue;
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
      const m = await bus.jsm.streams.getMessage(info.config.name, { seq }).catch(() => null);
      if (m) texts.push(`${m.subject} ${new TextDecoder().decode(m.data)} ${JSON.stringify([...(m.header ?? [])])}`);
    }
  }
  return texts;
}

/** Rows of every table of every schema of this system's database that mention `text`. */
async function rowsMentioning(text: string): Promise<string[]> {
  const tables = await db<{ s: string; t: string }[]>`select table_schema as s, table_name as t from information_schema.tables
    where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')`;
  const found: string[] = [];
  for (const { s, t } of tables) {
    const [r] = await db<{ n: number }[]>`select count(*)::int as n from ${db(s)}.${db(t)} x where x::text ilike ${`%${text}%`}`;
    if (r!.n > 0) found.push(`${s}.${t}: ${r!.n}`);
  }
  return found;
}

const mentions = (texts: string[]) => texts.filter((t) => t.toLowerCase().includes(UNIQUE)).length;

describe("destroying a transcript", () => {
  it("leaves no trace of what it held in any table, stream, dead letter, tail or rebuilt read model", async () => {
    const { id } = await ok(alice.POST("/v1/transcripts", { body: { name: `Standup ${UNIQUE}` } }));
    const path = { params: { path: { transcript_id: id } } };
    await ok(
      alice.PATCH("/v1/transcripts/{transcript_id}", { ...path, body: { title: `About ${UNIQUE}`, long_summary: `We said ${UNIQUE}.` } }),
    );
    // Words on the stream as the pipeline writes them, and an event no consumer can apply (dead-lettered).
    await tw.publish("transcript.topic.upserted", {
      transcript_id: id,
      version: 100,
      position: 0,
      topic: topicRecord([word(UNIQUE, 0, 1)]),
    });
    const poison = { specversion: "1.0", id: crypto.randomUUID(), type: "transcript.updated", source: "test", data: { id, said: UNIQUE } };
    await bus.js.publish(bus.subject(eventSubject({ stream: "TRANSCRIPTS", type: "transcript.updated" }, id)), JSON.stringify(poison));
    await eventually(async () => (await listDeadLetters(bus)).some((l) => l.eventId === poison.id));
    // A finished processing run of the transcript: its input and step outputs hold what was said.
    const runId = crypto.randomUUID();
    await db`insert into transcription.workflow_runs (id, workflow, subject, status, input)
      values (${runId}, 'transcript-file', ${id}, 'succeeded', ${db.json({ transcript_id: id, note: UNIQUE })})`;
    await db`insert into transcription.workflow_steps (run_id, step, status, output)
      values (${runId}, 'transcribe', 'succeeded', ${db.json({ words: [UNIQUE] })})`;
    await eventually(async () => mentions(await everyStreamMessage()) >= 3 && (await rowsMentioning(UNIQUE)).length > 0);

    expect((await alice.DELETE("/v1/transcripts/{transcript_id}", path)).response.status).toBe(200);
    expect((await alice.DELETE("/v1/transcripts/{transcript_id}/destroy", path)).response.status).toBe(200);

    await eventually(async () => mentions(await everyStreamMessage()) === 0, { timeoutMs: 30_000 });
    const tailed: string[] = [];
    for (const stream of [...Object.keys(STREAMS), "DLQ"]) {
      for await (const e of tailStream(bus, { stream })) tailed.push(JSON.stringify(e));
    }
    expect(mentions(tailed)).toBe(0);
    expect(mentions((await listDeadLetters(bus)).map((l) => JSON.stringify(l)))).toBe(0);
    expect(await eventually(async () => ((await rowsMentioning(UNIQUE)).length === 0 ? [] : null))).toEqual([]);

    await rebuildCommand(sys.env, () => {});
    expect(await rowsMentioning(UNIQUE)).toEqual([]);
    // The tombstone is what is left: the transcript stays gone.
    expect((await alice.GET("/v1/transcripts/{transcript_id}", path)).response.status).toBe(404);
  });
});
