// What search reads besides the transcript row. Impact tokens (migrations/projection/0008): every row
// the projection writes has its tokens, a text change replaces them, and the background fill gives
// rows written before the migration theirs without changing anything the change feed shows. Search
// copies (0009): the vector under the RUM index and exactly the phrase pairs that rank above 0.8,
// written by the background fill up to a mark, gone with the transcript's content.
import { makeEvent, type TranscriptState } from "@scribe/contracts";
import { sampleTranscriptState } from "@scribe/contracts/testing";
import { connectDb, createLogger, migrate, registry, serviceMigrations, type Sql } from "@scribe/kit";
import { createTestDatabase, eventually, seededRandom, type TestDatabase } from "@scribe/kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  FILL_BATCH_WHILE_BUSY,
  fillPairTokens,
  fillSearch,
  fillSearchCopies,
  fillSearchImpact,
  searchFillWaiting,
  startSearchFill,
} from "../src/search-fill";
import { LIVE_TABLES, applyEvent } from "../src/store";

const T0 = Date.parse("2026-11-21T10:00:00.000Z");
let db: TestDatabase;
let sql: Sql;

beforeAll(async () => {
  db = await createTestDatabase("pimpact");
  sql = connectDb(db.url, { schema: "projection", max: 2 });
  await migrate(sql, { schema: "projection", migrations: serviceMigrations("projection") });
});
afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await db?.drop();
});

function state(id: string, version: number, over: Partial<TranscriptState>): TranscriptState {
  return sampleTranscriptState({
    id,
    version,
    status: "ended",
    created_at: new Date(T0).toISOString(),
    updated_at: new Date(T0 + version * 1000).toISOString(),
    user_id: "alice",
    ...over,
  });
}

async function write(type: "transcript.created" | "transcript.updated", s: TranscriptState): Promise<void> {
  const event = makeEvent(type, s as never, { source: "scribe/transcription", time: new Date(T0 + s.version * 1000) }).event;
  await sql.begin((tx) => applyEvent(tx, LIVE_TABLES, event as never, { announce: false }));
}

async function destroy(s: TranscriptState): Promise<void> {
  const data = { transcript: { ...s, deleted_at: new Date(T0).toISOString() }, reason: "user" as const };
  const event = makeEvent("transcript.destroyed", data, { source: "scribe/transcription", time: new Date(T0 + s.version * 1000) }).event;
  await sql.begin((tx) => applyEvent(tx, LIVE_TABLES, event, { announce: false }));
}

const tokensOf = async (id: string) => {
  const [row] = await sql<{ tokens: string[] | null; computed: string[] }[]>`
    select search_impact as tokens, search_impact_tokens(search_vector) as computed from transcript where id = ${id}`;
  return row!;
};

/** Rows as written before migration 0008: no tokens (the fill setting keeps the trigger from computing them). */
async function forgetTokens(ids: string[]): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`select set_config('scribe.search_impact_fill', 'on', true)`;
    await tx`update transcript set search_impact = null where id in ${tx(ids)}`;
  });
}

it("gives every row it writes its tokens, and replaces them when the text changes", async () => {
  await write("transcript.created", state("t-text", 1, { title: "aardvark budgie", long_summary: "budgie", webvtt: null }));
  const first = await tokensOf("t-text");
  // A word once in the title ranks 1 / 1.645 = 0.608: bucket floor(-ln(0.608) * 64) = 31; with the
  // summary's occurrence after it, higher (a lower bucket).
  expect(first.tokens).toContain("aardvark@31");
  expect(first.tokens!.some((t) => t.startsWith("budgi@") && Number(t.split("@")[1]) < 31)).toBe(true);
  expect(first.tokens).toEqual(first.computed);

  await write("transcript.updated", state("t-text", 2, { title: "cassowary", long_summary: "budgie", webvtt: null }));
  const second = await tokensOf("t-text");
  expect(second.tokens).toContain("cassowari@31");
  expect(second.tokens!.some((t) => t.startsWith("aardvark@"))).toBe(false);
  expect(second.tokens).toEqual(second.computed);
});

it("gives a row without tokens its tokens on its next write, even when the text did not change", async () => {
  await write("transcript.created", state("t-status", 1, { title: "dingo", status: "processing" }));
  await forgetTokens(["t-status"]);
  expect((await tokensOf("t-status")).tokens).toBeNull();
  await write("transcript.updated", state("t-status", 2, { title: "dingo", status: "ended" }));
  const after = await tokensOf("t-status");
  expect(after.tokens).toContain("dingo@31");
});

it("fills older rows' tokens in batches without a new change_seq", async () => {
  const ids = Array.from({ length: 7 }, (_, i) => `t-old-${i}`);
  for (const [i, id] of ids.entries()) await write("transcript.created", state(id, 1, { title: `emu${"x".repeat(i)} falcon` }));
  await forgetTokens(ids);
  const before = await sql<{ id: string; change_seq: string }[]>`select id, change_seq from transcript order by id`;
  const [sequence] = await sql<{ last: string }[]>`select last_value as last from transcript_change_seq`;

  const batches: number[] = [];
  for (let n = await fillSearchImpact(sql, 3); n > 0; n = await fillSearchImpact(sql, 3)) batches.push(n);
  expect(batches).toEqual([3, 3, 1]);

  for (const id of ids) {
    const { tokens, computed } = await tokensOf(id);
    expect(tokens).toEqual(computed);
    expect(tokens).toContain("falcon@31");
  }
  expect(await sql`select id, change_seq from transcript order by id`).toEqual(before);
  const [after] = await sql<{ last: string }[]>`select last_value as last from transcript_change_seq`;
  expect(after!.last).toBe(sequence!.last);
});

describe("search copies and their phrase pair tokens", () => {
  it("are every neighbouring pair of distinct lexemes ranking above 0.8, bucketed by -ln(1 - rank): the bound skips none", async () => {
    const random = seededRandom(11);
    const words = ["kestrel", "heron", "ibis", "jay", "kite", "lark", "merlin", "osprey"];
    // Few words, drawn unevenly, in every field: pairs from once to many times, at every weight.
    const draw = (n: number) => Array.from({ length: n }, () => words[Math.floor(words.length * random() ** 2)]).join(" ");
    const texts = Array.from({ length: 60 }, (_, i) => ({
      title: draw(1 + (i % 4)),
      summary: draw(i % 9),
      text: draw(i % 40),
      room: draw(i % 3),
    }));
    const rows = await sql<{ tokens: string[]; want: string[] }[]>`
      with v as (
        select setweight(to_tsvector('english', x.title), 'A') || setweight(to_tsvector('english', x.summary), 'B')
          || setweight(to_tsvector('english', x.text), 'C') || setweight(to_tsvector('english', x.room), 'D') as v
        from jsonb_to_recordset(${sql.json(texts)}) as x(title text, summary text, text text, room text))
      select search_pair_tokens(v) as tokens,
        coalesce((
          select array_agg(a || ' ' || b || '@' || floor((12 - least(12, -ln(greatest(1 - r, 1e-12)))) * 16)::int order by a, b)
          from (
            select a, b, ts_rank(v, tsquery_phrase(quote_literal(a)::tsquery, quote_literal(b)::tsquery), 0)::float8 as r
            from (
              select distinct x.lexeme as a, y.lexeme as b
              from (select lexeme, p from unnest(v), unnest(positions) p) x
              join (select lexeme, p from unnest(v), unnest(positions) p) y on y.p = x.p + 1
              where x.lexeme <> y.lexeme) neighbours) ranked
          where r > 0.8), '{}') as want
      from v`;
    let tokens = 0;
    for (const row of rows) {
      expect([...row.tokens].sort()).toEqual([...row.want].sort());
      tokens += row.tokens.length;
    }
    expect(tokens).toBeGreaterThan(100);
  });

  const copyOf = async (id: string) => {
    const [row] = await sql<{ change_seq: string; current: string; same_vector: boolean; tokens: string[] | null; computed: string[] }[]>`
      select s.change_seq, t.change_seq as current, s.search_vector = t.search_vector as same_vector,
        (select p.pair_tokens from transcript_search_pairs p where p.id = s.id and p.vector_seq = s.vector_seq) as tokens,
        search_pair_tokens(t.search_vector) as computed
      from transcript_search s join transcript t using (id) where id = ${id}`;
    return row;
  };
  const mark = async () => (await sql<{ through: string }[]>`select filled_through as through from transcript_search_fill`)[0]!.through;
  const caughtUp = async () => {
    while ((await fillSearchCopies(sql)) > 0);
    while ((await fillPairTokens(sql)) > 0);
  };

  it("are written in change_seq order up to a mark, their tokens after them, and again for a transcript whose text changed", async () => {
    await caughtUp();
    const ids = Array.from({ length: 7 }, (_, i) => `t-pair-${i}`);
    for (const id of ids) await write("transcript.created", state(id, 1, { title: "grebe grebe plover grebe plover", webvtt: null }));
    expect(await copyOf(ids[0]!)).toBeUndefined();
    const batches: number[] = [];
    for (let n = await fillSearchCopies(sql, 3); n > 0; n = await fillSearchCopies(sql, 3)) batches.push(n);
    expect(batches).toEqual([3, 3, 1]);
    const [last] = await sql<{ seq: string }[]>`select max(change_seq) as seq from transcript`;
    expect(await mark()).toBe(last!.seq);
    for (const id of ids) expect(await copyOf(id)).toMatchObject({ same_vector: true, tokens: null });

    const tokenBatches: number[] = [];
    for (let n = await fillPairTokens(sql, 4); n > 0; n = await fillPairTokens(sql, 4)) tokenBatches.push(n);
    expect(tokenBatches).toEqual([4, 3]);
    for (const id of ids) {
      const copy = (await copyOf(id))!;
      expect(copy.tokens).toEqual(copy.computed);
      expect(copy.tokens!.some((t) => t.startsWith("grebe plover@"))).toBe(true);
      expect(copy.change_seq).toBe(copy.current);
    }

    await write("transcript.updated", state("t-pair-3", 2, { title: "sandpiper dunlin sandpiper dunlin sandpiper", webvtt: null }));
    const stale = (await copyOf("t-pair-3"))!;
    expect(stale.change_seq).not.toBe(stale.current);
    expect(stale.same_vector).toBe(false);
    expect(await fillSearchCopies(sql)).toBe(1);
    expect(await copyOf("t-pair-3")).toMatchObject({ same_vector: true, tokens: null });
    expect(await fillPairTokens(sql)).toBe(1);
    const fresh = (await copyOf("t-pair-3"))!;
    expect(fresh.change_seq).toBe(fresh.current);
    expect(fresh.tokens).toEqual(fresh.computed);
    expect(fresh.tokens!.some((t) => t.startsWith("sandpip dunlin@"))).toBe(true);
    expect(fresh.tokens!.some((t) => t.startsWith("grebe"))).toBe(false);
  });

  it("keep their vector and tokens when the transcript changed but its text did not", async () => {
    await write(
      "transcript.created",
      state("t-still", 1, { title: "avocet avocet stilt avocet stilt", status: "processing", webvtt: null }),
    );
    await caughtUp();
    // A marker in place of the tokens: only a fill that computed them again would replace it.
    await sql`update transcript_search_pairs set pair_tokens = '{"marker@0"}' where id = 't-still'`;
    const [before] = await sql<{ vector: string; vector_seq: string }[]>`
      select search_vector::text as vector, vector_seq from transcript_search where id = 't-still'`;
    await write("transcript.updated", state("t-still", 2, { title: "avocet avocet stilt avocet stilt", status: "ended", webvtt: null }));
    expect(await fillSearchCopies(sql)).toBe(1);
    const copy = (await copyOf("t-still"))!;
    expect(copy.change_seq).toBe(copy.current);
    expect(copy.tokens).toEqual(["marker@0"]);
    expect(await fillPairTokens(sql)).toBe(0);
    const [after] = await sql<{ vector: string; vector_seq: string }[]>`
      select search_vector::text as vector, vector_seq from transcript_search where id = 't-still'`;
    expect(after).toEqual(before);
  });

  it("are deleted with the transcript's content, at once, and a copy taken before the destruction by the next batch", async () => {
    const s = state("t-destroyed", 1, { title: "bittern bittern egret bittern egret", webvtt: null });
    await write("transcript.created", s);
    await caughtUp();
    expect(await copyOf("t-destroyed")).toBeDefined();
    await destroy({ ...s, version: 2 });
    expect(await sql`select 1 from transcript_search where id = 't-destroyed'`).toHaveLength(0);
    expect(await sql`select 1 from transcript_search_pairs where id = 't-destroyed'`).toHaveLength(0);

    // A fill that read the transcript before the destruction writes its old copy back after it.
    const [{ seq } = { seq: "" }] = await sql<{ seq: string }[]>`select change_seq as seq from transcript where id = 't-destroyed'`;
    await sql`update transcript_search_fill set filled_through = ${(BigInt(seq) - 1n).toString()}`;
    await sql`
      insert into transcript_search (id, change_seq, vector_seq, search_vector, created_at, share_mode, room_shared, source_kind)
      values ('t-destroyed', 1, 1, to_tsvector('english', 'bittern egret'), now(), 'private', false, 'file')`;
    await sql`insert into transcript_search_pairs (id, vector_seq, pair_tokens) values ('t-destroyed', 1, '{"bittern egret@3"}')`;
    expect(await fillSearchCopies(sql)).toBeGreaterThan(0);
    expect(await sql`select 1 from transcript_search where id = 't-destroyed'`).toHaveLength(0);
    expect(await sql`select 1 from transcript_search_pairs where id = 't-destroyed'`).toHaveLength(0);
    expect(await mark()).toBe(seq);
  });

  it("start over for a read model rebuilt behind the fill's back, dropping the copies of transcripts that are gone", async () => {
    await caughtUp();
    await sql`
      insert into transcript_search (id, change_seq, vector_seq, search_vector, created_at, share_mode, room_shared, source_kind)
      values ('t-gone', 1, 1, 'grebe plover', now(), 'private', false, 'file')`;
    await sql`insert into transcript_search_pairs (id, vector_seq, pair_tokens) values ('t-gone', 1, '{"grebe plover@3"}')`;
    await sql`update transcript_search_fill set of_table = 0`;
    const [all] = await sql<{ n: number }[]>`select count(*)::int as n from transcript`;
    let filled = 0;
    for (let n = await fillSearchCopies(sql); n > 0; n = await fillSearchCopies(sql)) filled += n;
    expect(filled).toBe(all!.n);
    expect(await sql`select 1 from transcript_search where id = 't-gone'`).toHaveLength(0);
    expect(await sql`select 1 from transcript_search_pairs where id = 't-gone'`).toHaveLength(0);
    const [fill] = await sql<{ current: boolean }[]>`select of_table = 'transcript'::regclass as current from transcript_search_fill`;
    expect(fill!.current).toBe(true);
  });

  it("are written a small batch a round while the consumers are behind, and caught up once they are not", async () => {
    await caughtUp();
    const ids = Array.from({ length: 120 }, (_, i) => `t-busy-${i}`);
    for (const id of ids) await write("transcript.created", state(id, 1, { title: "gannet gannet shag gannet shag", webvtt: null }));
    const copied = async () => {
      const [r] = await sql<{ copies: number; tokens: number }[]>`
        select count(*)::int as copies, count(p.id)::int as tokens
        from transcript_search s left join transcript_search_pairs p on p.id = s.id and p.vector_seq = s.vector_seq
        where s.id like 't-busy-%'`;
      return r!;
    };
    let busy = true;
    const job = startSearchFill(sql, createLogger("test", "silent"), { intervalMs: 300, busy: () => busy });
    try {
      // A round writes the copies, then their tokens (the next round comes 300 ms later).
      await eventually(async () => (await copied()).tokens > 0, { intervalMs: 10 });
      // One round: FILL_BATCH_WHILE_BUSY copies, and as many tokens.
      expect(await copied()).toEqual({ copies: FILL_BATCH_WHILE_BUSY, tokens: FILL_BATCH_WHILE_BUSY });
      const left = ids.length - FILL_BATCH_WHILE_BUSY;
      expect(await searchFillWaiting(sql)).toEqual({ copies: left, pairs: 0 });
      await eventually(async () =>
        (await registry.getSingleMetricAsString("scribe_search_fill_waiting")).includes(`kind="copies"} ${left}`),
      );
      busy = false;
      await eventually(async () => (await copied()).tokens === ids.length, { intervalMs: 20 });
      await eventually(async () => (await registry.getSingleMetricAsString("scribe_search_fill_waiting")).includes(`kind="copies"} 0`));
      expect(await searchFillWaiting(sql)).toEqual({ copies: 0, pairs: 0 });
    } finally {
      await job.stop();
    }
  });

  it("take turns across replicas: a round finds the turn taken and does nothing", async () => {
    await write("transcript.updated", state("t-pair-4", 2, { title: "curlew whimbrel curlew whimbrel", webvtt: null }));
    const other = await sql.reserve();
    try {
      await other`begin`;
      await other`select pg_advisory_xact_lock(hashtext('scribe:projection:search-fill'))`;
      expect(await fillSearchCopies(sql)).toBe(0);
      await other`rollback`;
    } finally {
      other.release();
    }
    expect(await fillSearchCopies(sql)).toBe(1);
  });
});

describe("the migration to search copies", () => {
  it("copies every transcript there is (destroyed ones aside), moves the RUM index to them, and sets the mark", async () => {
    const before = await createTestDatabase("pcopies");
    const old = connectDb(before.url, { schema: "projection", max: 1 });
    try {
      const all = serviceMigrations("projection");
      const upTo0008 = all.filter((m) => !m.name.startsWith("projection/") || m.name < "projection/0009");
      await migrate(old, { schema: "projection", migrations: upTo0008 });
      const rum = (await old`select 1 from pg_indexes where indexname = 'idx_transcript_search_rum'`).length > 0;
      for (const [i, title] of ["heron ibis", "jay kite", "lark merlin"].entries()) {
        const event = makeEvent("transcript.created", state(`t-mig-${i}`, 1, { title }) as never, {
          source: "scribe/transcription",
          time: new Date(T0),
        }).event;
        await old.begin((tx) => applyEvent(tx, LIVE_TABLES, event as never, { announce: false }));
      }
      await old`update transcript set destroyed_at = now() where id = 't-mig-2'`;
      await migrate(old, { schema: "projection", migrations: all });
      const copies = await old<{ id: string; same: boolean }[]>`
        select s.id, s.change_seq = t.change_seq and s.vector_seq = t.change_seq and s.search_vector = t.search_vector as same
        from transcript_search s join transcript t using (id) order by id`;
      expect(copies).toEqual([
        { id: "t-mig-0", same: true },
        { id: "t-mig-1", same: true },
      ]);
      const [fill] = await old<{ current: boolean; through: string; pairs: string; last: string }[]>`
        select of_table = 'transcript'::regclass as current, filled_through as through, pairs_through as pairs,
          (select max(change_seq) from transcript) as last
        from transcript_search_fill`;
      expect(fill!.current).toBe(true);
      expect(fill!.through).toBe(fill!.last);
      expect(fill!.pairs).toBe("0");
      const tables = await old<
        { table: string }[]
      >`select tablename as table from pg_indexes where indexname = 'idx_transcript_search_rum'`;
      expect(tables).toEqual(rum ? [{ table: "transcript_search" }] : []);
      await fillSearch(old);
      const [tokens] = await old<{ n: number }[]>`
        select count(*)::int as n from transcript_search s
        where not exists (select 1 from transcript_search_pairs p where p.id = s.id and p.vector_seq = s.vector_seq)`;
      expect(tokens!.n).toBe(0);
    } finally {
      await old.end({ timeout: 1 });
      await before.drop();
    }
  });
});
