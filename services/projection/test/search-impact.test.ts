// Impact tokens of the read model (migrations/projection/0008): every row the projection writes has
// its tokens, a text change replaces them, and the background fill gives rows written before the
// migration theirs without changing anything the change feed shows.
import { makeEvent, type TranscriptState } from "@scribe/contracts";
import { sampleTranscriptState } from "@scribe/contracts/testing";
import { connectDb, migrate, serviceMigrations, type Sql } from "@scribe/kit";
import { createTestDatabase, type TestDatabase } from "@scribe/kit/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { fillSearchImpact } from "../src/search-impact-fill";
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
