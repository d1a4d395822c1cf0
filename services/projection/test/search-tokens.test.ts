// Search tokens of the read model. Impact tokens (migrations/projection/0008): every row the
// projection writes has its tokens, a text change replaces them, and the background fill gives rows
// written before the migration theirs without changing anything the change feed shows. Phrase pair
// tokens (0009): exactly the pairs that rank above 0.8, filled in the background up to a mark.
import { makeEvent, type TranscriptState } from "@scribe/contracts";
import { sampleTranscriptState } from "@scribe/contracts/testing";
import { connectDb, migrate, serviceMigrations, type Sql } from "@scribe/kit";
import { createTestDatabase, seededRandom, type TestDatabase } from "@scribe/kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fillSearchImpact, fillSearchPairs } from "../src/search-impact-fill";
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

describe("phrase pair tokens", () => {
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

  const pairsOf = (id: string) =>
    sql<{ change_seq: string; tokens: string[]; computed: string[]; current: string }[]>`
      select p.change_seq, p.tokens, search_pair_tokens(t.search_vector) as computed, t.change_seq as current
      from transcript_search_pair p join transcript t using (id) where id = ${id}`;
  const mark = async () =>
    (await sql<{ through: string }[]>`select filled_through as through from transcript_search_pair_fill`)[0]!.through;

  it("are filled in change_seq order up to a mark, and again for a transcript that changed", async () => {
    while ((await fillSearchPairs(sql)) > 0);
    const ids = Array.from({ length: 7 }, (_, i) => `t-pair-${i}`);
    for (const id of ids) await write("transcript.created", state(id, 1, { title: "grebe grebe plover grebe plover", webvtt: null }));
    const batches: number[] = [];
    for (let n = await fillSearchPairs(sql, 3); n > 0; n = await fillSearchPairs(sql, 3)) batches.push(n);
    expect(batches).toEqual([3, 3, 1]);
    for (const id of ids) {
      const [row] = await pairsOf(id);
      expect(row!.tokens).toEqual(row!.computed);
      expect(row!.tokens.some((t) => t.startsWith("grebe plover@"))).toBe(true);
      expect(row!.change_seq).toBe(row!.current);
    }
    const [last] = await sql<{ seq: string }[]>`select max(change_seq) as seq from transcript`;
    expect(await mark()).toBe(last!.seq);

    await write("transcript.updated", state("t-pair-3", 2, { title: "sandpiper dunlin sandpiper dunlin sandpiper", webvtt: null }));
    const [stale] = await pairsOf("t-pair-3");
    expect(stale!.change_seq).not.toBe(stale!.current);
    expect(await fillSearchPairs(sql)).toBe(1);
    const [fresh] = await pairsOf("t-pair-3");
    expect(fresh!.change_seq).toBe(fresh!.current);
    expect(fresh!.tokens.some((t) => t.startsWith("sandpip dunlin@"))).toBe(true);
    expect(fresh!.tokens.some((t) => t.startsWith("grebe"))).toBe(false);
  });

  it("start over for a rebuilt read model, dropping the tokens of transcripts that are gone", async () => {
    while ((await fillSearchPairs(sql)) > 0);
    await sql`insert into transcript_search_pair (id, change_seq, tokens) values ('t-gone', 1, '{"grebe plover@3"}')`;
    await sql`update transcript_search_pair_fill set of_table = 0`;
    const [all] = await sql<{ n: number }[]>`select count(*)::int as n from transcript`;
    let filled = 0;
    for (let n = await fillSearchPairs(sql); n > 0; n = await fillSearchPairs(sql)) filled += n;
    expect(filled).toBe(all!.n);
    expect(await sql`select 1 from transcript_search_pair where id = 't-gone'`).toHaveLength(0);
    const [fill] = await sql<{ current: boolean }[]>`select of_table = 'transcript'::regclass as current from transcript_search_pair_fill`;
    expect(fill!.current).toBe(true);
  });

  it("take turns across replicas: a round finds the turn taken and does nothing", async () => {
    await write("transcript.updated", state("t-pair-4", 2, { title: "curlew whimbrel curlew whimbrel", webvtt: null }));
    const other = await sql.reserve();
    try {
      await other`begin`;
      await other`select pg_advisory_xact_lock(hashtext('scribe:projection:search-pair-fill'))`;
      expect(await fillSearchPairs(sql)).toBe(0);
      await other`rollback`;
    } finally {
      other.release();
    }
    expect(await fillSearchPairs(sql)).toBe(1);
  });
});
