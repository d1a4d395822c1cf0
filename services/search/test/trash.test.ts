// The trash view (behaviour-search-notify-auth §1.4: include_deleted=true, the caller's own
// soft-deleted transcripts) and how PostgreSQL runs its statements. Every other index of the read
// model leaves deleted rows out, and the search service turns sequential scans off: without an index
// of its own the trash got a plan priced above every JIT threshold, compiled on each request (~300 ms
// on a 50-row read model, a 504 under load). EXPLAIN shows the plan and whether JIT ran.
import { connectDb, migrate, serviceMigrations, type Db, type Sql } from "@scribe/kit";
import { createTestDatabase, type TestDatabase } from "@scribe/kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  SEARCH_DB_SETTINGS,
  countStatement,
  rumStatement,
  searchStatement,
  searchTranscripts,
  withRumPlanning,
  type SearchQuery,
} from "../src/store";
import { RUM_AVAILABLE, transcriptRow } from "./read-model";

const TRANSCRIPTS = 60;
let db: TestDatabase;
let sql: Sql;

/**
 * Every third transcript is alice's, every fifth is deleted (the later created, the earlier deleted); all
 * match "wombat", the even ones "koala" too.
 */
const isAlices = (g: number) => g % 3 === 0;
const isDeleted = (g: number) => g % 5 === 0;

beforeAll(async () => {
  db = await createTestDatabase("searchtrash");
  sql = connectDb(db.url, { schema: "projection", max: 2, settings: SEARCH_DB_SETTINGS });
  await migrate(sql, { schema: "projection", migrations: serviceMigrations("projection") });
  const rows = Array.from({ length: TRANSCRIPTS }, (_, g) =>
    transcriptRow(sql, {
      id: `t-${g}`,
      created_at: new Date(Date.UTC(2026, 0, 1) + g * 60_000),
      title: g % 2 === 0 ? "wombat koala" : "wombat",
      long_summary: `wombat ${"wombat ".repeat(g % 7)}`,
      webvtt_text: "wombat",
      user_id: isAlices(g) ? "alice" : "bob",
      deleted_at: isDeleted(g) ? new Date(Date.UTC(2026, 1, 1) - g * 1000) : null,
    }),
  );
  await sql`insert into transcript ${sql(rows)}`;
  await sql`analyze transcript`;
});
afterAll(async () => {
  await sql?.end({ timeout: 1 });
  await db?.drop();
});

const trash = (text: string | null, extra: Partial<SearchQuery> = {}): SearchQuery => ({
  text,
  scope: { kind: "own_deleted", userId: "alice" },
  roomId: null,
  sourceKind: null,
  limit: 20,
  offset: 0,
  exactUpTo: 1000,
  index: "rum",
  impact: true,
  ...extra,
});

const alicesTrash = Array.from({ length: TRANSCRIPTS }, (_, g) => g)
  .filter((g) => isAlices(g) && isDeleted(g))
  .map((g) => `t-${g}`);

describe.each(["rum", "gin"] as const)("the trash view, searching as with the %s index", (index) => {
  it("finds the caller's own deleted transcripts only, ranked, and browses them", async () => {
    const found = await searchTranscripts(sql, trash("wombat", { index }));
    expect(found.rows.map((r) => r.id).sort()).toEqual([...alicesTrash].sort());
    expect(found).toMatchObject({ total: alicesTrash.length, totalCapped: false });
    const both = await searchTranscripts(sql, trash("wombat koala", { index }));
    expect(both.rows.map((r) => r.id).sort()).toEqual(alicesTrash.filter((id) => Number(id.slice(2)) % 2 === 0).sort());
    // Without a query the most recently deleted come first (§1.5), not the most recently created.
    const browsed = await searchTranscripts(sql, trash(null, { index }));
    expect(browsed.rows.map((r) => r.id)).toEqual(alicesTrash);
    expect(browsed.total).toBe(alicesTrash.length);
  });
});

type Statement = ReturnType<typeof countStatement>;
/** EXPLAIN (ANALYZE, FORMAT JSON) of a statement: "JIT" is in its plan only when JIT ran. */
const explain = (db: Db, statement: Statement): Statement => db`explain (analyze, format json) ${statement}`;
const planOf = ([row]: readonly { "QUERY PLAN"?: unknown }[]) => JSON.stringify(row!["QUERY PLAN"]);
const plan = async (db: Db, statement: Statement) => planOf(await explain(db, statement));

describe("the trash view's statements", () => {
  const textQuery = trash("wombat") as SearchQuery & { text: string };
  const statements: Record<string, () => Promise<string>> = {
    "the count": () => plan(sql, countStatement(sql, textQuery, 1001)),
    "the ranked page (GIN statement)": () => plan(sql, searchStatement(sql, textQuery)),
    "the browsed page": () => plan(sql, searchStatement(sql, trash(null))),
    // Its `<=>` is the RUM extension's.
    ...(RUM_AVAILABLE && {
      "the ranked page (RUM statement)": async () =>
        planOf(await withRumPlanning(sql, (tx) => explain(tx, rumStatement(tx, textQuery, { singleWord: 81, severalWords: 1001 }, true)))),
    }),
  };

  it.each(Object.keys(statements))("read %s through the trash index, not the whole table, and are not JIT-compiled", async (name) => {
    const explained = await statements[name]!();
    expect(explained).not.toContain('"JIT"');
    expect(explained).not.toContain("Seq Scan");
    expect(explained).toContain("idx_transcript_trash");
  });

  it("are not JIT-compiled where no index serves them either (a sequential scan priced as disabled)", async () => {
    const explained = await sql.begin(async (tx) => {
      await tx`set local enable_indexscan = off`;
      await tx`set local enable_bitmapscan = off`;
      return [await plan(tx, countStatement(tx, textQuery, 1001))];
    });
    expect(explained[0]).toContain("Seq Scan");
    expect(explained[0]).not.toContain('"JIT"');
  });
});
