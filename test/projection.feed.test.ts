// The change feed never lets a poller miss an update: writers allocate change_seq in commit order
// (feed lock), so an ingester that checkpoints the largest change_seq it saw sees every row's last
// state. Also: read-your-writes, the lag metrics and dead-lettering of events that cannot apply.
import { ANONYMOUS, makeEvent, projectionOps, type Caller, type TranscriptState } from "@scribe/contracts";
import { connectDb, rpcCall, type Db, type Sql } from "@scribe/kit";
import { eventually } from "@scribe/kit/testing";
import { measureLag, LIVE_TABLES, applyEvent, takeFeedLock } from "@scribe/projection/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSystem, streamEvents, type TestSystem } from "./support/system";
import { TranscriptWriter, newTranscript, topicRecord, word } from "./support/transcripts";

let sys: TestSystem;
let tw: TranscriptWriter;
let sql: Sql;
const OWNER: Caller = { userId: "ingester", email: null, via: "api_key" };

beforeAll(async () => {
  sys = await startSystem({ label: "feed", services: ["projection"], env: { CONSUMER_MAX_DELIVER: "3", DATABASE_POOL_SIZE: "3" } });
  tw = await TranscriptWriter.connect(sys.prefix);
  sql = connectDb(sys.env.DATABASE_URL!, { schema: "projection", max: 6 });
});
afterAll(async () => {
  await sql?.end({ timeout: 1 });
  await tw?.close();
  await sys?.stop();
});

interface FeedItem {
  id: string;
  name: string;
  change_seq: number;
  deleted_at?: string | null;
}
/** One poll of the change feed as an ingester does it: after the checkpoint, ascending. */
async function poll(checkpoint: number, size = 100): Promise<FeedItem[]> {
  const page = await rpcCall(tw.bus, projectionOps.list, { caller: OWNER, sort_by: "change_seq", change_seq_from: checkpoint, size });
  return page.items.map((i) => ({ id: i.id, name: i.name, change_seq: i.change_seq!, deleted_at: i.deleted_at }));
}

/** Write a transcript state the way the consumer does, in the caller's transaction. */
async function write(db: Db, state: TranscriptState, opts: { lockFirst: boolean }): Promise<void> {
  if (opts.lockFirst) await takeFeedLock(db);
  await applyEvent(db, LIVE_TABLES, makeEvent("transcript.updated", state, { source: "test", time: new Date() }).event, { announce: true });
}

async function seed(n: number): Promise<TranscriptState[]> {
  const out: TranscriptState[] = [];
  for (let i = 0; i < n; i++) {
    const s = newTranscript({ user_id: OWNER.userId, name: "v1" });
    await write(sql, s, { lockFirst: true });
    out.push(s);
  }
  return out;
}

async function checkpointNow(): Promise<number> {
  const [r] = await sql<{ n: string | null }[]>`select max(change_seq) as n from transcript`;
  return Number(r?.n ?? 0);
}

describe("change feed", () => {
  it("holds a second writer until the first commits, so the poller sees both rows in commit order", async () => {
    const [a, b] = await seed(2);
    const checkpoint = await checkpointNow();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let aWrote!: () => void;
    const aWritten = new Promise<void>((r) => (aWrote = r));
    const txA = sql.begin(async (tx) => {
      await write(tx, { ...a!, version: 2, name: "a2" }, { lockFirst: true });
      aWrote();
      await held;
    });
    await aWritten;
    // B relies on the trigger alone (no explicit lock first): it still waits for A.
    const txB = sql.begin(async (tx) => write(tx, { ...b!, version: 2, name: "b2" }, { lockFirst: false }));
    await eventually(async () => {
      const [w] = await sql<
        { n: number }[]
      >`select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted and database = (select oid from pg_database where datname = current_database())`;
      return w!.n >= 1;
    });
    expect(await poll(checkpoint)).toEqual([]);
    release();
    await Promise.all([txA, txB]);
    const seen = await poll(checkpoint);
    expect(seen.map((i) => i.name)).toEqual(["a2", "b2"]);
    expect(seen[0]!.change_seq).toBeLessThan(seen[1]!.change_seq);
  });

  it("would skip a row without the feed lock (the hazard the lock removes)", async () => {
    // Same interleaving on a scratch copy whose trigger does not take the lock.
    await sql`create table demo (like transcript including all)`;
    await sql`create trigger demo_before_write before insert or update on demo for each row execute function transcript_before_write('shadow')`;
    const tables = { ...LIVE_TABLES, transcript: "demo" };
    const [x, y] = [newTranscript({ name: "x" }), newTranscript({ name: "y" })];
    const ev = (s: TranscriptState) => makeEvent("transcript.created", s, { source: "test", time: new Date() }).event;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let xWrote!: () => void;
    const xWritten = new Promise<void>((r) => (xWrote = r));
    const txX = sql.begin(async (tx) => {
      await applyEvent(tx, tables, ev(x), { announce: false });
      xWrote();
      await held;
    });
    await xWritten;
    await sql.begin(async (tx) => applyEvent(tx, tables, ev(y), { announce: false }));
    const first = await sql<{ name: string; change_seq: string }[]>`select name, change_seq from demo order by change_seq`;
    expect(first.map((r) => r.name)).toEqual(["y"]);
    release();
    await txX;
    const later = await sql<{ name: string }[]>`select name from demo where change_seq > ${first[0]!.change_seq} order by change_seq`;
    expect(later).toEqual([]);
    const [missed] = await sql<{ change_seq: string }[]>`select change_seq from demo where name = 'x'`;
    expect(Number(missed!.change_seq)).toBeLessThan(Number(first[0]!.change_seq));
    await sql`drop table demo`;
  });

  it("lets a polling ingester see every transcript's last state while several writers and the consumer write concurrently", async () => {
    const WRITERS = 4;
    const UPDATES = 25;
    const owned = await seed(WRITERS * 3);
    const viaBus = await Promise.all(Array.from({ length: 3 }, () => tw.create({ user_id: OWNER.userId, name: "bus-1" })));
    for (const t of viaBus) await tw.applied(t.id);
    let checkpoint = await checkpointNow();
    const lastSeen = new Map<string, FeedItem>();
    const observed: number[] = [];
    let writing = true;

    const ingester = (async () => {
      for (;;) {
        const done = !writing;
        const items = await poll(checkpoint, 50);
        for (const item of items) {
          observed.push(item.change_seq);
          lastSeen.set(item.id, item);
          checkpoint = item.change_seq;
        }
        if (done && items.length === 0) return;
      }
    })();

    const writers = Array.from({ length: WRITERS }, async (_, w) => {
      const mine = owned.slice(w * 3, w * 3 + 3).map((s) => ({ ...s }));
      for (let n = 0; n < UPDATES; n++) {
        const i = n % mine.length;
        const next: TranscriptState = { ...mine[i]!, version: mine[i]!.version + 1, name: `w${w}-${n}` };
        mine[i] = next;
        // Half the writers hold their transaction open a moment after writing, widening every race.
        await sql.begin(async (tx) => {
          await write(tx, next, { lockFirst: w % 2 === 0 });
          if (w % 2 === 1) await tx`select pg_sleep(${(n % 3) / 200})`;
        });
      }
    });
    const consumerWrites = (async () => {
      for (let n = 2; n <= 20; n++) for (const t of viaBus) await tw.update(t.id, { name: `bus-${n}` });
      for (const t of viaBus) await tw.applied(t.id);
    })();
    await Promise.all([...writers, consumerWrites]);
    writing = false;
    await ingester;

    expect(observed).toEqual([...observed].sort((a, b) => a - b));
    expect(new Set(observed).size).toBe(observed.length);
    const finals = await sql<{ id: string; name: string; change_seq: string }[]>`
      select id, name, change_seq from transcript where id in ${sql([...owned, ...viaBus].map((t) => t.id))}`;
    expect(finals).toHaveLength(owned.length + viaBus.length);
    for (const f of finals) expect(lastSeen.get(f.id), f.id).toMatchObject({ name: f.name, change_seq: Number(f.change_seq) });
  });
});

describe("deletions in the change feed", () => {
  it("show a deleted transcript's id, change_seq and deleted_at, and nothing it held", async () => {
    const checkpoint = await checkpointNow();
    const t = newTranscript({
      user_id: OWNER.userId,
      name: "Board meeting",
      title: "Layoffs",
      short_summary: "Who goes",
      long_summary: "The list",
    });
    await write(sql, t, { lockFirst: true });
    const deletedAt = new Date().toISOString();
    await write(sql, { ...t, version: 2, deleted_at: deletedAt }, { lockFirst: true });
    const page = await rpcCall(tw.bus, projectionOps.list, {
      caller: OWNER,
      sort_by: "change_seq",
      change_seq_from: checkpoint,
      size: 100,
    });
    const item = page.items.find((i) => i.id === t.id)!;
    expect(item.deleted_at).toBeTruthy();
    expect(JSON.stringify(item)).not.toMatch(/Board meeting|Layoffs|Who goes|The list|ingester/);
    expect(item).toMatchObject({
      id: t.id,
      change_seq: expect.any(Number),
      name: "",
      title: null,
      short_summary: null,
      long_summary: null,
      user_id: null,
    });
  });
});

describe("state writes outside a transaction", () => {
  it("never deadlock: the feed lock is taken before the row's (one statement per state, even with its WebVTT)", async () => {
    // Each write on the pool runs alone on some connection: a state sent as two statements (state,
    // then WebVTT) ran them on two connections at once, the WebVTT update locking the row and then
    // waiting in the trigger for the feed lock the upsert held while it waited for the row.
    const lanes = Array.from({ length: 4 }, async () => {
      for (let n = 0; n < 40; n++) {
        const t = newTranscript({ user_id: OWNER.userId, webvtt: "WEBVTT\n\n00:00.000 --> 00:01.000\none" });
        await write(sql, t, { lockFirst: true });
        await write(
          sql,
          { ...t, version: 2, deleted_at: new Date().toISOString(), webvtt: "WEBVTT\n\n00:00.000 --> 00:01.000\ntwo" },
          { lockFirst: true },
        );
      }
    });
    await Promise.all(lanes);
  });
});

describe("read-your-writes", () => {
  it("answers once the model holds the version, and says so when it times out", async () => {
    const t = await tw.create({ user_id: OWNER.userId });
    const v = await tw.upsertTopic(t.id, 0, topicRecord([word("hi", 0, 1)]));
    const reached = await rpcCall(tw.bus, projectionOps.awaitVersion, { caller: ANONYMOUS, id: t.id, version: v, timeout_ms: 10_000 });
    expect(reached).toEqual({ reached: true, version: v });
    const late = await rpcCall(tw.bus, projectionOps.awaitVersion, { caller: ANONYMOUS, id: t.id, version: v + 1, timeout_ms: 50 });
    expect(late).toEqual({ reached: false, version: v });
    const unknown = await rpcCall(tw.bus, projectionOps.awaitVersion, { caller: ANONYMOUS, id: "nope", version: 1, timeout_ms: 0 });
    expect(unknown).toEqual({ reached: false, version: null });
  });

  it("wakes a waiter when the version is applied after it started waiting", async () => {
    const t = await tw.create({ user_id: OWNER.userId });
    await tw.applied(t.id);
    const waiting = rpcCall(
      tw.bus,
      projectionOps.awaitVersion,
      { caller: ANONYMOUS, id: t.id, version: 2, timeout_ms: 10_000 },
      { timeoutMs: 12_000 },
    );
    await tw.update(t.id, { name: "second" });
    expect(await waiting).toEqual({ reached: true, version: 2 });
  });
});

describe("events that cannot be applied", () => {
  it("retries a topic of an unknown transcript, reports the lag meanwhile, then dead-letters it", async () => {
    const projection = sys.process.services.find((s) => s.name === "projection")!;
    const consumer = { stream: "TRANSCRIPTS" as const, durable: "projection_transcripts" };
    const eventId = await tw.publish("transcript.topic.upserted", {
      transcript_id: "never-created",
      version: 2,
      position: 0,
      topic: topicRecord([word("orphan", 0, 1)]),
    });
    await eventually(async () => {
      const [lag] = await measureLag(projection.runtime.bus, [consumer], new Date());
      return lag!.pending > 0 && lag!.seconds >= 0;
    });
    await eventually(async () => (await streamEvents(sys.prefix, "DLQ")).some((e) => e.id === eventId), { timeoutMs: 15_000 });
    await eventually(async () => (await measureLag(projection.runtime.bus, [consumer], new Date()))[0]!.pending === 0);
    expect((await measureLag(projection.runtime.bus, [consumer], new Date()))[0]).toEqual({
      consumer: "projection_transcripts",
      pending: 0,
      seconds: 0,
    });
  });
});
