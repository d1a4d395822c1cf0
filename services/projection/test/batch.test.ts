// A batch applied at once (store.ts applyInOrder: each transcript folded in memory, written once)
// leaves the same read model as the same events applied one at a time (applyEvent), for random
// event sequences: reordered, redelivered, topics before their transcript, deletions after resets,
// split into random batches, with the consumer's fallback (a refused batch is redone event by event).
import { makeEvent, type ScribeEvent, type TopicRecord, type TranscriptState } from "@scribe/contracts";
import { connectDb, migrate, serviceMigrations, type Sql } from "@scribe/kit";
import { createTestDatabase, type TestDatabase } from "@scribe/kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIVE_TABLES, TranscriptNotYetKnown, applyEvent, applyInOrder, takeFeedLock } from "../src/store";

const T0 = Date.parse("2026-11-21T10:00:00.000Z");
const CASES = 40;

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let x = Math.imul(s ^ (s >>> 15), 1 | s);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 2 ** 32;
  };
}

function stateOf(id: string, version: number, r: () => number): TranscriptState {
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)]!;
  return {
    id,
    version,
    name: `name ${version}`,
    status: pick(["idle", "processing", "ended"]),
    error: null,
    locked: false,
    duration: version * 1000,
    created_at: new Date(T0).toISOString(),
    updated_at: new Date(T0 + version * 1000).toISOString(),
    title: pick([null, `title ${version}`]),
    short_summary: null,
    long_summary: pick([null, `summary of version ${version}`]),
    action_items: null,
    participants: [{ id: `p${version}`, speaker: 0, name: `speaker ${version}`, user_id: null }],
    source_language: "en",
    target_language: "en",
    reviewed: false,
    audio_location: "local",
    audio_deleted: null,
    user_id: "alice",
    share_mode: "private",
    source_kind: "room",
    meeting_id: null,
    recording_id: null,
    room_id: pick([null, "room-1"]),
    webvtt: pick([null, `WEBVTT\n\n00:00.000 --> 00:01.000\nwords of ${version}`]),
    deleted_at: null,
  };
}
const topicAt = (version: number): TopicRecord => ({
  id: `t${version}`,
  title: `topic ${version}`,
  summary: "",
  timestamp: 0,
  duration: null,
  transcript: null,
  words: [{ text: `w${version}`, start: 0, end: 1, speaker: 0 }],
});

/** One transcript's life with versions 1..n, as the write side announces it. */
function lifeOf(id: string, r: () => number): ScribeEvent[] {
  const at = (v: number) => ({ source: "test", time: new Date(T0 + v * 1000) });
  const out: ScribeEvent[] = [makeEvent("transcript.created", stateOf(id, 1, r), at(1)).event];
  const n = 2 + Math.floor(r() * 10);
  for (let v = 2; v <= n; v++) {
    const k = r();
    if (k < 0.35)
      out.push(
        makeEvent("transcript.topic.upserted", { transcript_id: id, version: v, position: Math.floor(r() * 3), topic: topicAt(v) }, at(v))
          .event,
      );
    else if (k < 0.5) out.push(makeEvent("transcript.topics.cleared", { transcript_id: id, version: v }, at(v)).event);
    else if (k < 0.65) {
      const { webvtt: _left, ...rest } = stateOf(id, v, r);
      out.push(makeEvent("transcript.updated", rest, at(v)).event);
    } else if (k < 0.9) out.push(makeEvent("transcript.updated", stateOf(id, v, r), at(v)).event);
    else
      out.push(
        makeEvent(
          "transcript.completed",
          { transcript: stateOf(id, v, r), topics: [], run_id: "r", completed_at: new Date(T0).toISOString() },
          at(v),
        ).event,
      );
  }
  if (r() < 0.4)
    out.push(
      makeEvent("transcript.destroyed", { transcript: { ...stateOf(id, n + 1, r), deleted_at: null }, reason: "user" }, at(n + 1)).event,
    );
  return out;
}

/** Several transcripts' lives interleaved, partly reordered and redelivered. */
function sequence(seed: number): ScribeEvent[] {
  const r = rng(seed);
  const lives = Array.from({ length: 1 + Math.floor(r() * 3) }, (_, i) => lifeOf(`tr-${seed}-${i}`, r));
  const out: ScribeEvent[] = [];
  while (lives.some((l) => l.length)) {
    const l = lives.filter((x) => x.length)[Math.floor(r() * lives.filter((x) => x.length).length)]!;
    out.push(l.shift()!);
  }
  for (let i = 0; i < out.length; i++) {
    if (r() < 0.2 && i + 1 < out.length) [out[i], out[i + 1]] = [out[i + 1]!, out[i]!];
    if (r() < 0.05) out.splice(Math.floor(r() * out.length), 0, out[i]!);
  }
  return out;
}

describe("a batch applies like its events one at a time", () => {
  let db: TestDatabase;
  let one: Sql;
  let many: Sql;
  beforeAll(async () => {
    db = await createTestDatabase("pbatch");
    one = connectDb(db.url, { schema: "one", max: 2 });
    many = connectDb(db.url, { schema: "many", max: 2 });
    for (const [sql, schema] of [
      [one, "one"],
      [many, "many"],
    ] as const) {
      await migrate(sql, { schema, migrations: serviceMigrations("projection") });
      await sql`insert into room (id, version, name, is_shared) values ('room-1', 1, 'Standup', true)`;
    }
  });
  afterAll(async () => {
    await one?.end({ timeout: 5 });
    await many?.end({ timeout: 5 });
    await db?.drop();
  });

  /** Like the consumer: refused events are retried after the others, until none can apply. */
  async function drain(pending: ScribeEvent[], round: (events: ScribeEvent[]) => Promise<ScribeEvent[]>): Promise<void> {
    while (pending.length) {
      const retry = await round(pending);
      if (retry.length === pending.length) return;
      pending = retry;
    }
  }
  const oneByOne = (events: ScribeEvent[]) =>
    drain(events, async (evs) => {
      const retry: ScribeEvent[] = [];
      for (const ev of evs)
        await one
          .begin(async (tx) => {
            await takeFeedLock(tx);
            await applyEvent(tx, LIVE_TABLES, ev, { announce: true });
          })
          .catch((e: unknown) => {
            if (!(e instanceof TranscriptNotYetKnown)) throw e;
            retry.push(ev);
          });
      return retry;
    });
  const batched = (events: ScribeEvent[], r: () => number) =>
    drain(events, async (evs) => {
      const retry: ScribeEvent[] = [];
      for (let i = 0; i < evs.length;) {
        const batch = evs.slice(i, (i += 1 + Math.floor(r() * 12)));
        await many.begin(async (tx) => {
          await takeFeedLock(tx);
          const ok = await tx
            .savepoint((sp) => applyInOrder(sp, LIVE_TABLES, batch, { announce: true }))
            .then(
              () => true,
              (e: unknown) => {
                if (!(e instanceof TranscriptNotYetKnown)) throw e;
                return false;
              },
            );
          if (ok) return;
          for (const ev of batch)
            await tx
              .savepoint((sp) => applyEvent(sp, LIVE_TABLES, ev, { announce: true }))
              .catch((e: unknown) => {
                if (!(e instanceof TranscriptNotYetKnown)) throw e;
                retry.push(ev);
              });
        });
      }
      return retry;
    });

  /** Both models, change_seq aside (a batch writes a row once, one at a time writes it per event). */
  async function model(sql: Sql) {
    const transcripts = await sql`
      select *, search_vector::text as search_vector, null as change_seq from transcript order by id`;
    const topics = await sql`select * from topic order by transcript_id, position`;
    return { transcripts: [...transcripts], topics: [...topics] };
  }

  it(`gives equal tables for ${CASES} random sequences in random batches`, async () => {
    for (let seed = 1; seed <= CASES; seed++) {
      const events = sequence(seed);
      await oneByOne(events);
      await batched(events, rng(seed * 7919));
      const [a, b] = [await model(one), await model(many)];
      expect(b, `seed ${seed}`).toEqual(a);
    }
    const [{ n }] = (await many<{ n: number }[]>`select count(*)::int as n from transcript where destroyed_at is not null`) as [
      { n: number },
    ];
    expect(n).toBeGreaterThan(3);
  });
});
