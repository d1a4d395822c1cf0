// Rebuilding the read model from the streams: the rebuilt model equals the live one, reads keep
// being served while it is built and swapped, events arriving during the build are not lost, the
// live consumer continues after the swap; and re-driving one consumer from a sequence or a time.
import { ANONYMOUS, projectionOps, searchOps, type Caller } from "@scribe/contracts";
import { connectDb, createLogger, rpcCall, type Sql } from "@scribe/kit";
import { eventually } from "@scribe/kit/testing";
import { rebuildReadModel, type RebuildProgress } from "@scribe/projection";
import { rebuildCommand, redriveCommand } from "@scribe/cli";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSystem, type TestSystem } from "./support/system";
import { TranscriptWriter, roomState, topicRecord, vtt, word } from "./support/transcripts";

let sys: TestSystem;
let tw: TranscriptWriter;
let sql: Sql;
const ALICE: Caller = { userId: "alice", email: null, via: "bearer" };
const transcripts: string[] = [];
const log = createLogger("test", "silent");

/** Every row of every read-model table, change_seq aside (it is re-stamped by design). */
async function dump() {
  const [t, topics, rooms, recordings] = await Promise.all([
    sql`select to_jsonb(t) - 'change_seq' as row from transcript t order by id`,
    sql`select to_jsonb(t) as row from topic t order by transcript_id, position`,
    sql`select to_jsonb(r) as row from room r order by id`,
    sql`select to_jsonb(r) as row from recording r order by id`,
  ]);
  return {
    transcripts: t.map((r) => r.row),
    topics: topics.map((r) => r.row),
    rooms: rooms.map((r) => r.row),
    recordings: recordings.map((r) => r.row),
  };
}
async function maxSeq(): Promise<number> {
  const [r] = await sql<{ n: string }[]>`select max(change_seq) as n from transcript`;
  return Number(r!.n);
}
async function maxSeqExcept(id: string): Promise<number> {
  const [r] = await sql<{ n: string }[]>`select max(change_seq) as n from transcript where id <> ${id}`;
  return Number(r!.n);
}
/**
 * The search copies as search relies on them: the fill's mark is about this transcript table and
 * every transcript up to it (destroyed ones aside) has a copy of its current vector; how many copies
 * still lack their pair tokens, and how many transcripts the pairs' mark has passed without their
 * tokens: those whose copy (to be written, for a new vector, at their change_seq) or whose copy's
 * vector_seq is at or below it would never get them.
 */
async function searchCopies(): Promise<{ current: boolean; missing: number; withoutTokens: number; passed: number }> {
  const [r] = await sql<{ current: boolean; missing: number; without_tokens: number; passed: number }[]>`
    select (select of_table = 'transcript'::regclass from transcript_search_fill) as current,
      (select count(*)::int from transcript t
       where t.destroyed_at is null and t.change_seq <= (select filled_through from transcript_search_fill)
         and not exists (select 1 from transcript_search s where s.id = t.id and s.change_seq = t.change_seq and s.search_vector = t.search_vector)) as missing,
      (select count(*)::int from transcript_search s
       where not exists (select 1 from transcript_search_pairs p where p.id = s.id and p.vector_seq = s.vector_seq)) as without_tokens,
      (select count(*)::int from transcript t left join transcript_search s on s.id = t.id
       where t.destroyed_at is null and case
         when s.id is null or s.search_vector <> t.search_vector then t.change_seq <= (select pairs_through from transcript_search_fill)
         else s.vector_seq <= (select pairs_through from transcript_search_fill)
           and not exists (select 1 from transcript_search_pairs p where p.id = s.id and p.vector_seq = s.vector_seq) end) as passed`;
  return { current: r!.current, missing: r!.missing, withoutTokens: r!.without_tokens, passed: r!.passed };
}
async function minSeq(): Promise<number> {
  const [r] = await sql<{ n: string }[]>`select min(change_seq) as n from transcript`;
  return Number(r!.n);
}

beforeAll(async () => {
  sys = await startSystem({ label: "replay", services: ["projection", "search"], env: { DATABASE_POOL_SIZE: "5" } });
  tw = await TranscriptWriter.connect(sys.prefix);
  sql = connectDb(sys.env.DATABASE_URL!, { schema: "projection", max: 2 });

  const shared = roomState({ name: "atrium", is_shared: true, user_id: "bob" });
  const renamed = roomState({ name: "old-name", user_id: "alice" });
  const doomed = roomState({ name: "doomed", user_id: "alice" });
  for (const r of [shared, renamed, doomed]) await tw.publish("room.created", r);
  await tw.publish("room.updated", { ...renamed, name: "new-name", version: 2 });
  await tw.publish("room.deleted", { ...doomed, version: 2 });
  const rooms = [shared.id, renamed.id, doomed.id, null];
  for (let i = 0; i < 24; i++) {
    const t = await tw.create({
      user_id: i % 3 === 0 ? "bob" : "alice",
      room_id: rooms[i % 4] ?? null,
      title: `Meeting ${i} about ${i % 2 ? "otters" : "badgers"}`,
      created_at: new Date(Date.UTC(2026, 0, 1 + i)).toISOString(),
    });
    transcripts.push(t.id);
    await tw.upsertTopic(t.id, 0, topicRecord([word("Hello", 0, 1), word(" there.", 1, 2)]));
    await tw.upsertTopic(t.id, 1, topicRecord([word("More", 3, 4, 1)]));
    await tw.update(t.id, {
      long_summary: `Summary ${i} with otters and badgers.`,
      webvtt: vtt(`Words of meeting ${i}.`),
      participants: [{ id: `p${i}`, speaker: 0, name: `Person ${i}`, user_id: null }],
    });
    if (i % 5 === 0) {
      await tw.clearTopics(t.id);
      await tw.upsertTopic(t.id, 0, topicRecord([word("Again", 0, 1)]));
    }
    if (i % 7 === 3) await tw.update(t.id, { deleted_at: new Date(Date.UTC(2026, 2, i)).toISOString() });
  }
  await tw.destroy(transcripts[3]!);
  for (const id of transcripts) await tw.applied(id);
  await eventually(async () => {
    const [r] = await sql<{ n: number }[]>`select count(*)::int as n from room where version = 2`;
    return r!.n === 2;
  });
  // The live search fill is through: the rebuild keeps the live pair tokens of the texts it folds the same.
  await eventually(async () => {
    expect(await searchCopies()).toEqual({ current: true, missing: 0, withoutTokens: 0, passed: 0 });
    const [fill] = await sql<{ behind: boolean }[]>`
      select filled_through < (select max(change_seq) from transcript) as behind from transcript_search_fill`;
    return !fill!.behind;
  });
});
afterAll(async () => {
  await sql?.end({ timeout: 1 });
  await tw?.close();
  await sys?.stop();
});

describe("rebuilding the read model", () => {
  it("swaps in a model equal to the live one while reads keep being served and events keep arriving", async () => {
    const visible = (await rpcCall(tw.bus, projectionOps.list, { caller: ALICE, size: 100 })).total;
    const indexesBefore = await sql`select indexname from pg_indexes where schemaname = 'projection' order by 1`;
    const seqBefore = await maxSeq();

    // Readers run throughout; any failed or half-built answer is recorded.
    const problems: string[] = [];
    let reads = 0;
    let reading = true;
    const readers = Array.from({ length: 3 }, async (_, r) => {
      while (reading) {
        try {
          if (r === 0) {
            const page = await rpcCall(tw.bus, projectionOps.list, { caller: ALICE, size: 100 });
            if (page.total < visible) problems.push(`list saw ${page.total} of ${visible}`);
          } else if (r === 1) {
            const t = await rpcCall(tw.bus, projectionOps.get, { caller: ALICE, id: transcripts[1]!, transcript_format: "text" });
            if (t.transcript !== "Person 1: Hello there.\nSpeaker 1: More") problems.push(`get saw ${JSON.stringify(t.transcript)}`);
          } else {
            const s = await rpcCall(tw.bus, searchOps.search, { caller: ALICE, q: "otters", limit: 100 });
            if (s.total < 10) problems.push(`search saw ${s.total}`);
          }
          reads++;
        } catch (e) {
          problems.push((e as Error).message);
        }
      }
    });

    let late = "";
    let liveBeforeSwap: Awaited<ReturnType<typeof dump>> | null = null;
    const progress: RebuildProgress[] = [];
    const rebuildSql = connectDb(sys.env.DATABASE_URL!, { schema: "projection", max: 2 });
    const report = await rebuildReadModel({
      sql: rebuildSql,
      bus: tw.bus,
      log,
      batchSize: 50,
      // A gap the live events of beforeSwap exceed: the swap must re-stamp the rebuilt rows.
      sequenceGap: 1,
      onProgress: (p) => progress.push(p),
      // Events published after the build read its streams: the live consumer applies them to the
      // live tables, and the swap must fold them into the new ones.
      beforeSwap: async () => {
        late = (await tw.create({ user_id: "alice", title: "Late otters" })).id;
        await tw.update(transcripts[1]!, { title: "Retitled during the rebuild" });
        await tw.applied(late);
        await tw.applied(transcripts[1]!);
        liveBeforeSwap = await dump();
      },
    }).finally(() => rebuildSql.end({ timeout: 1 }));
    reading = false;
    await Promise.all(readers);

    expect(problems).toEqual([]);
    expect(reads).toBeGreaterThan(10);
    expect(report.failed).toEqual([]);
    expect(report.caughtUp).toBe(2);
    expect(progress.some((p) => p.phase === "build" && p.stream === "TRANSCRIPTS" && p.done === p.total)).toBe(true);
    expect(await dump()).toEqual(liveBeforeSwap);
    // Every row has a new change_seq above anything served before: ingesters see all rows again.
    expect(await minSeq()).toBeGreaterThan(seqBefore);
    expect(await sql`select indexname from pg_indexes where schemaname = 'projection' order by 1`).toEqual(indexesBefore);
    const [trigger] = await sql<
      { def: string }[]
    >`select pg_get_triggerdef(oid) as def from pg_trigger where tgrelid = 'transcript'::regclass and not tgisinternal`;
    expect(trigger!.def).toContain("transcript_before_write('ordered')");
    const leftovers =
      await sql`select tablename from pg_tables where schemaname = 'projection' and (tablename like '%\\_\\_next' or tablename like '%\\_\\_old')`;
    expect(leftovers).toEqual([]);

    // The live consumer carries on in the new tables.
    await tw.update(late, { title: "After the swap" });
    await tw.applied(late);
    expect((await rpcCall(tw.bus, projectionOps.get, { caller: ALICE, id: late, transcript_format: "text" })).title).toBe("After the swap");
    expect((await rpcCall(tw.bus, searchOps.search, { caller: ALICE, q: "swap", limit: 10 })).results.map((r) => r.id)).toEqual([late]);
    // The swap re-stamped the rebuilt rows (the gap was used up): the search copies are taken again
    // by the projection's fill, which catches up.
    expect(await searchCopies()).toMatchObject({ current: true, passed: 0 });
    await eventually(async () => {
      const [fill] = await sql<{ behind: boolean }[]>`
        select filled_through < (select max(change_seq) from transcript) as behind from transcript_search_fill`;
      expect(fill!.behind).toBe(false);
      expect(await searchCopies()).toEqual({ current: true, missing: 0, withoutTokens: 0, passed: 0 });
      return true;
    });
    const [tokens] = await sql<{ n: number; right: number }[]>`
      select count(*)::int as n, count(*) filter (where p.pair_tokens = search_pair_tokens(t.search_vector))::int as right
      from transcript_search s join transcript t on t.id = s.id and t.change_seq = s.change_seq
        join transcript_search_pairs p on p.id = s.id and p.vector_seq = s.vector_seq`;
    // Every transcript but the destroyed one, and the late one.
    expect(tokens).toEqual({ n: transcripts.length, right: transcripts.length });
  });

  it("runs from the CLI with progress lines, and rebuilding again changes nothing", async () => {
    const before = await dump();
    const seqBefore = await maxSeq();
    const lines: string[] = [];
    const report = await rebuildCommand(sys.env, (l) => lines.push(l));
    expect(report.failed).toEqual([]);
    // The swap brings the search copies of the rebuilt rows, their pair tokens kept (the texts are the same).
    expect(await searchCopies()).toEqual({ current: true, missing: 0, withoutTokens: 0, passed: 0 });
    expect(await minSeq()).toBeGreaterThan(seqBefore);
    expect(lines.some((l) => /^building: TRANSCRIPTS \d+\/\d+ events \(100%\)/.test(l))).toBe(true);
    expect(lines.some((l) => l.startsWith("done: "))).toBe(true);
    expect(lines.at(-1)).toMatch(/^read model swapped in: 25 transcripts from \d+ events/);
    expect(await dump()).toEqual(before);
    // Writes after the swap continue above the rebuilt rows.
    const t = await tw.create({ user_id: "alice" });
    await tw.applied(t.id);
    const [row] = await sql<{ n: string }[]>`select change_seq as n from transcript where id = ${t.id}`;
    expect(Number(row!.n)).toBeGreaterThan(await maxSeqExcept(t.id));
  });
});

describe("re-driving a consumer", () => {
  async function settled(durable: string, stream: string) {
    await eventually(async () => {
      const info = await tw.bus.jsm.consumers.info(tw.bus.stream(stream), durable);
      return info.num_pending === 0 && info.num_ack_pending === 0;
    });
  }

  it("forgets the range in the inbox and delivers it again from a sequence; the fold ignores what it already holds", async () => {
    const before = await dump();
    const lines: string[] = [];
    const report = await redriveCommand(["projection.rooms", "--from-seq", "2"], sys.env, (l) => lines.push(l));
    expect(report).toMatchObject({ stream: "ROOMS", startSeq: 2, events: 4, inboxCleared: 4 });
    expect(lines.at(-1)).toMatch(/recreated at ROOMS seq 2/);
    await settled("projection_rooms", "ROOMS");
    await eventually(async () => {
      const [r] = await sql<{ n: number }[]>`select count(*)::int as n from inbox where consumer = 'projection.rooms'`;
      return r!.n === 5;
    });
    expect(await dump()).toEqual(before);
    // The recreated consumer is the one the running service keeps using.
    await tw.publish("room.created", roomState({ name: "after-redrive" }));
    await eventually(async () => (await sql`select 1 from room where name = 'after-redrive'`).length === 1);
  });

  it("starts from a time", async () => {
    const since = new Date();
    const t = await tw.create({ user_id: "alice", title: "Recent" });
    await tw.applied(t.id);
    const report = await redriveCommand(["projection.transcripts", "--from-time", since.toISOString()], sys.env, () => {});
    expect(report).toMatchObject({ stream: "TRANSCRIPTS", events: 1, inboxCleared: 1 });
    await settled("projection_transcripts", "TRANSCRIPTS");
    expect(
      await redriveCommand(["projection.transcripts", "--from-time", new Date(Date.now() + 60_000).toISOString()], sys.env, () => {}),
    ).toMatchObject({ events: 0 });
  });

  it("refuses bad arguments", async () => {
    await expect(redriveCommand(["projection.rooms"], sys.env, () => {})).rejects.toThrow(/exactly one of/);
    await expect(redriveCommand(["projection.rooms", "--from-seq", "x"], sys.env, () => {})).rejects.toThrow(/sequence number/);
    await expect(redriveCommand(["projection.nope", "--from-seq", "1"], sys.env, () => {})).rejects.toThrow(/no stream has a consumer/);
    void ANONYMOUS;
  });
});
