// Ranked search against exact ranking (behaviour-search-notify-auth §1.3, §1.5): the candidates the
// search service ranks — from the RUM index, or the GIN fallback — give the same top results as
// ts_rank computed over every match, and the total is exact up to its bound and capped beyond it.
import { connectDb, migrate, serviceMigrations, type Sql } from "@scribe/kit";
import { fillSearch, fillSearchCopies } from "@scribe/projection/testing";
import { createTestDatabase, seededRandom, type TestDatabase } from "@scribe/kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  SEARCH_DB_SETTINGS,
  availableSearchIndex,
  impactStatement,
  impactTokensReady,
  pairStatement,
  searchTranscripts,
  type SearchIndex,
  type SearchQuery,
} from "../src/store";
import { RUM_AVAILABLE, transcriptRow } from "./read-model";

const RANDOM_TRANSCRIPTS = 600;
// Transcripts with the same text, so the same rank for any query: ties, ordered newest first.
const TIED_TRANSCRIPTS = 120;
const TRANSCRIPTS = RANDOM_TRANSCRIPTS + TIED_TRANSCRIPTS;
const TIED_WORD = "zqtiedx";
// Pseudo-words no English stemming or stop list touches; drawn with a Zipf-like law, so word 0 is
// in nearly every transcript and word 150 in a few.
const VOCAB = Array.from({ length: 300 }, (_, i) => `zq${i.toString(36)}x`);

let db: TestDatabase;
let sql: Sql;

beforeAll(async () => {
  db = await createTestDatabase("searchrank");
  sql = connectDb(db.url, { schema: "projection", max: 2, settings: SEARCH_DB_SETTINGS });
  await migrate(sql, { schema: "projection", migrations: serviceMigrations("projection") });
  const random = seededRandom(7);
  const draw = (n: number) => Array.from({ length: n }, () => VOCAB[Math.floor(VOCAB.length ** random()) - 1]!).join(" ");
  const tiedAges = Array.from({ length: TIED_TRANSCRIPTS }, (_, i) => i).sort(() => random() - 0.5);
  const rows = Array.from({ length: TRANSCRIPTS }, (_, g) =>
    transcriptRow(sql, {
      id: g < RANDOM_TRANSCRIPTS ? `t-${g}` : `tied-${g}`,
      // Tied rows' ages shuffled against their order in the table and the index.
      created_at: new Date(
        Date.UTC(2026, 0, 1) + (g < RANDOM_TRANSCRIPTS ? g : RANDOM_TRANSCRIPTS + tiedAges[g - RANDOM_TRANSCRIPTS]!) * 60_000,
      ),
      title: g < RANDOM_TRANSCRIPTS ? draw(3) : TIED_WORD,
      long_summary: g < RANDOM_TRANSCRIPTS ? draw(20) : `${TIED_WORD} ${VOCAB[0]}`,
      webvtt_text: g < RANDOM_TRANSCRIPTS ? draw(60) : VOCAB[0]!,
      user_id: `user-${g % 3}`,
    }),
  );
  await sql`insert into transcript ${sql(rows)}`;
  await sql`analyze transcript`;
});
afterAll(async () => {
  await sql?.end({ timeout: 1 });
  await db?.drop();
});

const QUERIES = {
  "a word in nearly every transcript": VOCAB[0]!,
  "a common word": VOCAB[3]!,
  "a rare word": VOCAB[120]!,
  "two words": `${VOCAB[1]} ${VOCAB[6]}`,
  "a phrase": `"${VOCAB[0]} ${VOCAB[1]}"`,
  "either of two words": `${VOCAB[9]} OR ${VOCAB[40]}`,
};

/** What ranking every match gives: ts_rank over the whole filter, in the service's order. */
async function exactTop(
  text: string,
  limit: number,
  userId: string | null = null,
  db: Sql = sql,
): Promise<{ ids: string[]; total: number }> {
  const rows = await db<{ id: string; total: string }[]>`
    select id, count(*) over () as total from transcript t
    where deleted_at is null and ${userId === null ? db`true` : db`user_id = ${userId}`}
      and search_vector @@ websearch_to_tsquery('english', ${text})
    order by ts_rank(search_vector, websearch_to_tsquery('english', ${text}), 32) desc, created_at desc, id`;
  return { ids: rows.slice(0, limit).map((r) => r.id), total: rows.length };
}

function queryOf(text: string, index: SearchIndex, exactUpTo: number, extra: Partial<SearchQuery> = {}): SearchQuery {
  return {
    impact: false,
    text,
    scope: { kind: "ownerless_public_or_shared_rooms" },
    roomId: null,
    sourceKind: null,
    limit: 20,
    offset: 0,
    exactUpTo,
    index,
    ...extra,
  };
}
// Every fixture row is private and owned: the anonymous PUBLIC_MODE scope sees them through
// "user_id is null or share_mode = 'public' or room_shared" only when public, so make them so.
beforeAll(async () => {
  await sql`update transcript set share_mode = 'public'`;
  // The projection's background fill of search copies and their pair tokens, as it would have run by now.
  await fillSearch(sql);
});

it("the read model has the RUM index where the extension is installed, else the GIN fallback", async () => {
  expect(await availableSearchIndex(sql)).toBe(RUM_AVAILABLE ? "rum" : "gin");
});

const VARIANTS = (RUM_AVAILABLE ? (["rum", "gin"] as const) : (["gin"] as const)).flatMap((index) =>
  [true, false].map((impact) => ({ index, impact, name: `the ${index} index${impact ? " and impact tokens" : ""}` })),
);

describe.each(VARIANTS)("with $name", ({ index, impact }) => {
  const query = (text: string, i: SearchIndex, exactUpTo: number, extra: Partial<SearchQuery> = {}) =>
    queryOf(text, i, exactUpTo, { impact, ...extra });
  it.each(Object.entries(QUERIES))("ranks %s exactly as ts_rank over every match, with an exact total", async (_, text) => {
    const exact = await exactTop(text, 20);
    expect(exact.total).toBeGreaterThan(0);
    const page = await searchTranscripts(sql, query(text, index, TRANSCRIPTS));
    expect(page.rows.map((r) => r.id)).toEqual(exact.ids);
    expect(page).toMatchObject({ total: exact.total, totalCapped: false });
    // The index asked for answers (or the tokens), never a fallback.
    expect(impact ? ["impact", "pairs", index] : [index]).toContain(page.path);
  });

  it("pages deeper than the bound through the same exact order", async () => {
    const text = VOCAB[0]!;
    const exact = await exactTop(text, 60);
    const page = await searchTranscripts(sql, query(text, index, 10, { limit: 20, offset: 40 }));
    if (index === "rum" || impact) expect(page.rows.map((r) => r.id)).toEqual(exact.ids.slice(40, 60));
    expect(page.rows).toHaveLength(20);
  });

  it("orders a single word's ties newest first, however many tie", async () => {
    const exact = await exactTop(TIED_WORD, 40);
    expect(exact.total).toBe(TIED_TRANSCRIPTS);
    // With RUM, more tie than a first read takes (4 pages), so the page's last row ties past it
    // (and the bound is far below the matches); the GIN fallback is exact within its bound.
    const bound = index === "rum" ? 10 : TRANSCRIPTS;
    // On a table this small the planner may rather sort the newest rows by distance (which keeps
    // ties newest first by chance); without sorting it reads the RUM index in `<=>` order, as at scale.
    const indexOrdered = connectDb(db.url, { schema: "projection", max: 1, settings: { ...SEARCH_DB_SETTINGS, enable_sort: "off" } });
    for (const offset of [0, 20]) {
      const page = await searchTranscripts(indexOrdered, query(TIED_WORD, index, bound, { offset }));
      expect(page.rows.map((r) => r.id)).toEqual(exact.ids.slice(offset, offset + 20));
      expect(page.totalCapped).toBe(index === "rum");
    }
    await indexOrdered.end({ timeout: 1 });
  });

  it("caps the total at the bound when more match, and says so", async () => {
    const text = VOCAB[0]!;
    const exact = await exactTop(text, 20);
    expect(exact.total).toBeGreaterThan(50);
    expect(await searchTranscripts(sql, query(text, index, 50))).toMatchObject({ total: 50, totalCapped: true });
    // A page past the bound counts as far as it reaches.
    expect(await searchTranscripts(sql, query(text, index, 50, { offset: 5000 }))).toMatchObject({
      rows: [],
      total: exact.total,
      totalCapped: false,
    });
    // Browsing (no text) counts up to the same bound.
    expect(await searchTranscripts(sql, query(text, index, 50, { text: null }))).toMatchObject({ total: 50, totalCapped: true });
    expect(await searchTranscripts(sql, query(text, index, TRANSCRIPTS, { text: null }))).toMatchObject({
      total: TRANSCRIPTS,
      totalCapped: false,
    });
    // Exactly at the bound is exact, not capped.
    expect(await searchTranscripts(sql, query(text, index, exact.total))).toMatchObject({ total: exact.total, totalCapped: false });
  });

  it("applies the caller's filter before taking candidates", async () => {
    const text = VOCAB[2]!;
    const exact = await exactTop(text, 20, "user-1");
    const page = await searchTranscripts(
      sql,
      query(text, index, TRANSCRIPTS, { scope: { kind: "own_or_shared_rooms", userId: "user-1" } }),
    );
    expect(page.rows.map((r) => r.id)).toEqual(exact.ids);
    expect(page.total).toBe(exact.total);
  });
});

describe.runIf(RUM_AVAILABLE)("with the RUM index and a bound far below the matches", () => {
  it.each([QUERIES["a word in nearly every transcript"], QUERIES["a common word"], QUERIES["either of two words"]])(
    "still finds the exact top results of %s (RUM's order is ts_rank's for words and OR)",
    async (text) => {
      const exact = await exactTop(text, 20);
      expect(exact.total).toBeGreaterThan(40);
      const page = await searchTranscripts(sql, queryOf(text, "rum", 25));
      expect(page.rows.map((r) => r.id)).toEqual(exact.ids);
      expect(page.totalCapped).toBe(true);
    },
  );
});

describe.runIf(RUM_AVAILABLE)("RUM over the search copies", () => {
  const rum = (text: string, extra: Partial<SearchQuery> = {}, db: Sql = sql) =>
    searchTranscripts(db, queryOf(text, "rum", TRANSCRIPTS, extra));

  it("ranks the transcripts whose text changed since the fill from their own rows, as ts_rank over every match", async () => {
    const random = seededRandom(21);
    const draw = (n: number) => Array.from({ length: n }, () => VOCAB[Math.floor(VOCAB.length ** random()) - 1]!).join(" ");
    // Not in a rolled-back transaction: the RUM statement runs on a connection of its own.
    await changedThenRestored(async (tx) => {
      // Forty transcripts rewritten (their copies now stale: they wait past the mark), among them
      // the best matches of the common words, which lose them.
      const best = (await exactTop(VOCAB[0]!, 10)).ids.concat((await exactTop(VOCAB[3]!, 10)).ids);
      await tx`update transcript set title = 'quiet', long_summary = 'quiet', webvtt_text = 'quiet' where id in ${tx(best)}`;
      for (let i = 0; i < 20; i++) {
        await tx`update transcript set title = ${draw(3)}, long_summary = ${draw(20)}, webvtt_text = ${draw(60)} where id = ${`t-${i * 29}`}`;
      }
      const [waiting] = await tx<{ n: number }[]>`
        select count(*)::int as n from transcript where change_seq > (select filled_through from transcript_search_fill)`;
      expect(waiting!.n).toBeGreaterThanOrEqual(30);
      for (const [name, text] of Object.entries(QUERIES)) {
        const exact = await exactTop(text, 40, null, tx);
        for (const offset of [0, 20]) {
          const page = await rum(text, { offset }, tx);
          expect(page.path, name).toBe("rum");
          expect(
            page.rows.map((r) => r.id),
            `${name} from ${offset}`,
          ).toEqual(exact.ids.slice(offset, offset + 20));
          expect(page.total, name).toBe(exact.total);
        }
      }
    });
  });

  it("leaves out at once a transcript trashed or made private since the fill (its copy is stale)", async () => {
    await changedThenRestored(async (db) => {
      for (const text of [QUERIES["two words"], QUERIES["a common word"]]) {
        const [first, second] = (await exactTop(text, 2)).ids;
        await db`update transcript set deleted_at = now() where id = ${first!}`;
        await db`update transcript set share_mode = 'private' where id = ${second!}`;
        const page = await rum(text, {}, db);
        expect(page.path).toBe("rum");
        expect(page.rows.map((r) => r.id)).not.toContain(first);
        expect(page.rows.map((r) => r.id)).not.toContain(second);
        // exactTop knows the trash, not share modes (every fixture row is public).
        const exact = (await exactTop(text, 21, null, db)).ids.filter((id) => id !== second);
        expect(page.rows.map((r) => r.id)).toEqual(exact.slice(0, 20));
      }
    });
  });

  it("leaves the page to GIN while more transcripts wait than a page is ranked with, or the mark is about another table", async () => {
    const text = QUERIES["two words"];
    const exact = await exactTop(text, 20);
    for (const behind of [
      (tx: Sql) => tx`update transcript_search_fill set filled_through = 0`,
      (tx: Sql) => tx`update transcript_search_fill set of_table = 0`,
    ]) {
      await changedThenRestored(async (tx) => {
        await behind(tx);
        const page = await rum(text, {}, tx);
        expect(page.path).toBe("gin");
        // Within the bound GIN is exact too.
        expect(page.rows.map((r) => r.id)).toEqual(exact.ids);
      });
    }
    expect((await rum(text)).path).toBe("rum");
  });
});

describe("single words from impact tokens", () => {
  it("are ready once every row has its tokens", async () => {
    expect(await impactTokensReady(sql)).toBe(true);
    // A row from before the tokens (the fill setting keeps the trigger from computing them).
    await sql
      .begin(async (tx) => {
        await tx`select set_config('scribe.search_impact_fill', 'on', true)`;
        await tx`update transcript set search_impact = null where id = 't-0'`;
        expect(await impactTokensReady(tx)).toBe(false);
        await tx`rollback`;
      })
      .catch(() => {});
    expect(await impactTokensReady(sql)).toBe(true);
  });

  const filled = async (text: string, extra: Partial<SearchQuery> = {}) => {
    const [meta] = await impactStatement(sql, { ...queryOf(text, "gin", 1000, { impact: true }), ...extra, text });
    return meta!.filled as boolean;
  };

  it("fill a page only where the tokens hold it: one word, ranked above a single caption occurrence", async () => {
    expect(await filled(VOCAB[0]!)).toBe(true);
    expect(await filled(TIED_WORD)).toBe(true);
    // A word in more transcripts than a page holds, but in fewer with a token (more than once, or
    // outside the caption text): the tokens cannot tell the rest of its page.
    const [fewTokens] = await sql<{ lexeme: string }[]>`
      select lexeme from transcript, unnest(search_vector) group by lexeme
      having count(*) >= 20 and count(*) filter (where not (weights = '{C}' or weights <@ '{D}')) < 20
      order by count(*) desc limit 1`;
    expect(await filled(fewTokens!.lexeme)).toBe(false);
    for (const several of [QUERIES["two words"], QUERIES["a phrase"], QUERIES["either of two words"], `-${VOCAB[0]}`]) {
      expect(await filled(several)).toBe(false);
    }
    // A page past what the tokens hold.
    expect(await filled(VOCAB[0]!, { offset: 5000 })).toBe(false);
  });

  it("rank every word of the vocabulary as ts_rank over every match, at the first and a later page", async () => {
    const words = VOCAB.filter((_, i) => i % 3 === 0);
    expect(await pagesFromTokens(words, impactStatement)).toBeGreaterThan(20);
  });
});

/** Checks each text's first two pages against exact ranking; returns how many of them `statement` filled from tokens. */
async function pagesFromTokens(texts: string[], statement: typeof impactStatement): Promise<number> {
  let filled = 0;
  for (const text of texts) {
    const exact = await exactTop(text, 40);
    for (const offset of [0, 20]) {
      const query = queryOf(text, "gin", 1000, { impact: true, offset });
      const page = await searchTranscripts(sql, query);
      expect(
        page.rows.map((r) => r.id),
        `${text} from ${offset}`,
      ).toEqual(exact.ids.slice(offset, offset + 20));
      expect(page.total).toBe(exact.total);
      const [meta] = await statement(sql, { ...query, text });
      if (meta!.filled) filled++;
    }
  }
  return filled;
}

describe("two-word phrases from pair tokens", () => {
  const filled = async (text: string, extra: Partial<SearchQuery> = {}, db: Sql = sql) => {
    const [meta] = await pairStatement(db, { ...queryOf(text, "gin", 1000, { impact: true }), ...extra, text });
    return meta!.filled as boolean;
  };
  const search = (text: string, extra: Partial<SearchQuery> = {}, db: Sql = sql) =>
    searchTranscripts(db, queryOf(text, "gin", 1000, { impact: true, ...extra }));

  it("rank phrases of the common words, in both orders, as ts_rank over every match, at the first and a later page", async () => {
    const phrases = [0, 1, 2, 3, 4, 5, 6, 7].flatMap((i) =>
      [0, 1, 2, 3, 4, 5, 6, 7].filter((j) => j !== i).map((j) => `"${VOCAB[i]} ${VOCAB[j]}"`),
    );
    // Most of these phrases match dozens of transcripts, a few too few to rank above 0.8.
    expect(await pagesFromTokens(phrases, pairStatement)).toBeGreaterThan(40);
  });

  it("in a user's scope too", async () => {
    const text = `"${VOCAB[0]} ${VOCAB[1]}"`;
    const scope = { kind: "own_or_shared_rooms", userId: "user-1" } as const;
    expect(await filled(text, { scope })).toBe(true);
    const exact = await exactTop(text, 20, "user-1");
    expect((await search(text, { scope })).rows.map((r) => r.id)).toEqual(exact.ids);
  });

  it("answer only a phrase of two distinct words", async () => {
    expect(await filled(`"${VOCAB[0]} ${VOCAB[1]}"`)).toBe(true);
    for (const other of [
      `"${VOCAB[0]} ${VOCAB[0]}"`,
      `"${VOCAB[0]} ${VOCAB[1]} ${VOCAB[2]}"`,
      `${VOCAB[0]} ${VOCAB[1]}`,
      `"${VOCAB[0]}"`,
      `"${VOCAB[0]} ${VOCAB[1]}" -${VOCAB[2]}`,
      `"${VOCAB[0]} the ${VOCAB[1]}"`,
    ]) {
      expect(await filled(other), other).toBe(false);
    }
  });

  it.each([
    ["its search copy", false],
    ["its pair tokens (its copy is written)", true],
  ])("rank a transcript as its text is now while the fill has yet to write %s", async (_, copied) => {
    const text = `"${VOCAB[0]} ${VOCAB[1]}"`;
    const top = (await exactTop(text, 10)).ids;
    await changedThenRestored(async (tx) => {
      // The best ten matches keep the phrase once, in their caption text only (their tokens, now
      // stale, still rank them first), and one without it gets it four times in its title.
      await tx`update transcript set title = 'quiet', long_summary = 'quiet', webvtt_text = ${text.replaceAll('"', "")} where id in ${tx(top)}`;
      const [newcomer] = await tx<{ id: string }[]>`
        select id from transcript where deleted_at is null and not search_vector @@ websearch_to_tsquery('english', ${text}) limit 1`;
      await tx`update transcript set title = ${`${VOCAB[0]} ${VOCAB[1]} `.repeat(4)} where id = ${newcomer!.id}`;
      const want = await tx<{ id: string }[]>`
        select id from transcript t where deleted_at is null and search_vector @@ websearch_to_tsquery('english', ${text})
        order by ts_rank(search_vector, websearch_to_tsquery('english', ${text}), 32) desc, created_at desc, id`;
      expect(want[0]!.id).toBe(newcomer!.id);
      if (copied) {
        while ((await fillSearchCopies(tx)) > 0);
        const [left] = await tx<{ n: number }[]>`
          select count(*)::int as n from transcript_search where vector_seq > (select pairs_through from transcript_search_fill)`;
        expect(left!.n).toBe(top.length + 1);
      }
      // Every page, to the last: the old tokens of the transcript that lost the phrase must not count or rank.
      let filledPages = 0;
      for (let offset = 0; offset < want.length; offset += 20) {
        const page = await search(text, { offset }, tx);
        expect(
          page.rows.map((r) => r.id),
          `from ${offset}`,
        ).toEqual(want.slice(offset, offset + 20).map((r) => r.id));
        if (await filled(text, { offset }, tx)) filledPages++;
      }
      expect(filledPages).toBeGreaterThan(1);
      expect(await filled(text, {}, tx)).toBe(true);
    });
  });

  it("leave the page to the indexes while too many transcripts wait for the fill, or the mark is about another table", async () => {
    const text = `"${VOCAB[0]} ${VOCAB[1]}"`;
    for (const behind of [
      (tx: Sql) => tx`update transcript_search_fill set filled_through = 0`,
      (tx: Sql) => tx`update transcript_search_fill set pairs_through = 0`,
      (tx: Sql) => tx`update transcript_search_fill set of_table = 0`,
    ]) {
      await rolledBack(async (tx) => {
        await behind(tx);
        expect(await filled(text, {}, tx)).toBe(false);
      });
    }
    expect(await filled(text)).toBe(true);
  });
});

/**
 * Runs `fn` on the fixture, then puts back every transcript's texts and the search fill's mark as
 * they were, and lets the fill catch up: for statements that need connections of their own.
 */
async function changedThenRestored(fn: (db: Sql) => Promise<void>): Promise<void> {
  const texts = await sql<
    { id: string; title: string; long_summary: string; webvtt_text: string; deleted_at: Date | null; share_mode: string }[]
  >`
    select id, title, long_summary, webvtt_text, deleted_at, share_mode from transcript`;
  const [fill] = await sql<{ of_table: string; filled_through: string }[]>`select of_table, filled_through from transcript_search_fill`;
  try {
    await fn(sql);
  } finally {
    await sql`update transcript_search_fill set of_table = ${fill!.of_table}, filled_through = ${fill!.filled_through}`;
    await sql`
      update transcript t set title = x.title, long_summary = x.long_summary, webvtt_text = x.webvtt_text, deleted_at = x.deleted_at, share_mode = x.share_mode
      from jsonb_to_recordset(${sql.json(texts)}) as x(id text, title text, long_summary text, webvtt_text text, deleted_at timestamptz, share_mode text)
      where t.id = x.id
        and (t.title, t.long_summary, t.webvtt_text, t.deleted_at, t.share_mode) is distinct from (x.title, x.long_summary, x.webvtt_text, x.deleted_at, x.share_mode)`;
    await fillSearch(sql);
  }
}

class RolledBack extends Error {}
/** Runs `fn` in a transaction that is then rolled back (a transaction's Sql, typed as the pool's for the statements' helpers). */
async function rolledBack(fn: (tx: Sql) => Promise<void>): Promise<void> {
  await sql
    .begin(async (tx) => {
      await fn(tx as unknown as Sql);
      throw new RolledBack();
    })
    .catch((e: unknown) => {
      if (!(e instanceof RolledBack)) throw e;
    });
}
