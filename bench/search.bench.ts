// Search latency at 100k synthetic transcripts (BENCH_SEARCH_TRANSCRIPTS=1000000 for 1M: seeding and
// indexing take about ten times as long): the search service over request/reply (SQL, parsing,
// snippets, NATS round trip; the RUM index when the server has the extension) and its GIN fallback's
// statement, next to the exact ranking it replaced (ts_rank over every match, exact count) as the
// baseline, interleaved in one run. It also checks that the service's top 20 are the exact ones.
import { ANONYMOUS, DLQ_STREAM, STREAMS, searchOps, type ListingScope } from "@scribe/contracts";
import { connectBus, connectDb, migrate, rpcCall, serviceMigrations, startService, type Sql } from "@scribe/kit";
import { createTestDatabase, seededRandom, testPrefix, TEST_NATS_URL } from "@scribe/kit/testing";
import { searchService } from "@scribe/search";
import { SEARCH_DB_SETTINGS, availableSearchIndex, searchStatement, type SearchQuery } from "@scribe/search/testing";
import { percentile, report, time } from "./report";

const N = Number(process.env.BENCH_SEARCH_TRANSCRIPTS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_SEARCH_ROUNDS ?? 15);

/** Distinct pseudo-words (no English stop words or stems collide). */
export function vocabulary(size: number): string[] {
  const syllables = [
    "ka",
    "lo",
    "mi",
    "ter",
    "van",
    "su",
    "pre",
    "dol",
    "gan",
    "rit",
    "bo",
    "nel",
    "qua",
    "fis",
    "ro",
    "tum",
    "ple",
    "zar",
    "hev",
    "cin",
  ];
  const out: string[] = [];
  for (let i = 0; out.length < size; i++) {
    let w = "";
    for (let n = i; ; n = Math.floor(n / 20) - 1) {
      w += syllables[n % 20];
      if (n < 20) break;
    }
    out.push(`${w}x`);
  }
  return out;
}

/**
 * Words drawn with a Zipf-like law (rank r with probability ~1/r), as in real text: a few words are
 * in every transcript, most are rare. With 20,000 words and 200 per transcript, rank 100 is in about
 * a fifth of the transcripts, rank 1,000 in 2 %, rank 10,000 in 0.2 %.
 */
function texts(vocab: string[], random: () => number) {
  const draw = (n: number) => {
    const words: string[] = [];
    for (let i = 0; i < n; i++) words.push(vocab[Math.min(vocab.length - 1, Math.floor(vocab.length ** random()) - 1)]!);
    return words.join(" ");
  };
  return { title: draw(5), long_summary: draw(60), webvtt_text: draw(200) };
}

export async function seed(sql: Sql, vocab: string[]): Promise<void> {
  const random = seededRandom(42);
  // Building the full-text indexes once after the load is much faster than maintaining them per row.
  const indexes = await sql<{ name: string; def: string }[]>`
    select indexname as name, indexdef as def from pg_indexes
    where schemaname = 'projection' and indexname in ('idx_transcript_search', 'idx_transcript_search_rum')`;
  for (const ix of indexes) await sql`drop index ${sql(ix.name)}`;
  const now = Date.now();
  for (let start = 0; start < N; start += 1000) {
    const rows = [];
    for (let g = start; g < Math.min(N, start + 1000); g++) {
      rows.push({
        id: `bench-${g}`,
        version: 1,
        state_version: 1,
        name: `Transcript ${g}`,
        status: "ended",
        locked: false,
        duration: 1_800_000,
        created_at: new Date(now - g * 60_000),
        updated_at: new Date(now),
        ...texts(vocab, random),
        participants: sql.json([]),
        source_language: "en",
        target_language: "en",
        reviewed: false,
        audio_location: "storage",
        user_id: `user-${g % 1000}`,
        // Public: what an anonymous caller of a PUBLIC_MODE instance searches.
        share_mode: "public",
        source_kind: "room",
        room_id: `room-${g % 500}`,
        room_name: `room name ${g % 500}`,
        room_shared: g % 500 < 25,
      });
    }
    await sql`insert into transcript ${sql(rows)}`;
    if ((start + 1000) % 10_000 === 0) process.stdout.write(`  seeded ${(start + 1000).toLocaleString("en-US")} transcripts\r`);
  }
  process.stdout.write("\n");
  for (const ix of indexes) await sql.unsafe(ix.def);
  await sql`analyze transcript`;
}

/** The exact ranking search had before: ts_rank over every match and an exact count (the baseline). */
function exactStatement(db: Sql, q: SearchQuery) {
  const tsquery = db`websearch_to_tsquery('english', ${q.text})`;
  return db`
    with hits as (
      select t.id, t.created_at, ts_rank(t.search_vector, ${tsquery}, 32) as rank
      from projection.transcript t
      where t.deleted_at is null and (t.user_id is null or t.share_mode = 'public' or t.room_shared) and t.search_vector @@ ${tsquery}),
    page as (select id, rank, created_at from hits order by rank desc, created_at desc, id limit ${q.limit} offset ${q.offset})
    select page.id, (select count(*) from hits) as total from page order by page.rank desc, page.created_at desc, page.id`;
}

export default async function bench(): Promise<void> {
  const db = await createTestDatabase("benchsearch");
  const prefix = testPrefix("benchsearch");
  const sql = connectDb(db.url, { schema: "projection", max: 4 });
  // The raw statement runs with the search service's session settings: the same SQL, the same plans.
  const rawSql = connectDb(db.url, { schema: "search", max: 4, settings: SEARCH_DB_SETTINGS });
  const bus = await connectBus({ url: TEST_NATS_URL, prefix, name: "bench-search" });
  const env = {
    DATABASE_URL: db.url,
    NATS_URL: TEST_NATS_URL,
    NATS_PREFIX: prefix,
    LOG_LEVEL: "silent",
    OPS_PORT: "0",
    PUBLIC_MODE: "true",
  };
  let service: Awaited<ReturnType<typeof startService>> | null = null;
  try {
    await migrate(sql, { schema: "projection", migrations: serviceMigrations("projection") });
    const vocab = vocabulary(20_000);
    const seeding = await time(() => seed(sql, vocab));
    console.log(`  ${N.toLocaleString("en-US")} transcripts seeded and indexed in ${seeding.toFixed(0)} s`);
    service = await startService(searchService, env);

    // From a word in nearly every transcript to one in 0.1 %, plus the web-search forms and browsing.
    const queries = [
      vocab[4]!,
      vocab[99]!,
      vocab[999]!,
      vocab[9999]!,
      `${vocab[49]} ${vocab[499]}`,
      `"${vocab[2]} ${vocab[3]}"`,
      `${vocab[1999]} OR ${vocab[4999]}`,
      "",
    ];
    const anonymous: ListingScope = { kind: "ownerless_public_or_shared_rooms" };
    const index = await availableSearchIndex(rawSql);
    const exactUpTo = 1000;
    const request = (q: string, which: SearchQuery["index"]): SearchQuery => ({
      text: q || null,
      scope: anonymous,
      roomId: null,
      sourceKind: null,
      limit: 20,
      offset: 0,
      exactUpTo,
      index: which,
    });
    // Browsing has no ranking: the baseline lists it with the same statement.
    const exact = (q: string) => (q ? exactStatement(rawSql, request(q, "gin")) : searchStatement(rawSql, request(q, "gin")));
    const ginFallback = (q: string) => searchStatement(rawSql, request(q, "gin"));
    const viaService = (q: string) => rpcCall(bus, searchOps.search, { caller: ANONYMOUS, q, limit: 20, offset: 0 }, { timeoutMs: 60_000 });
    let sameTop = 0;
    for (const q of queries) {
      const [want, got] = [await exact(q), await viaService(q)];
      await ginFallback(q);
      const same = JSON.stringify(want.map((r) => r.id)) === JSON.stringify(got.results.map((r) => r.id));
      if (same) sameTop++;
      else console.log(`  top 20 differ for ${JSON.stringify(q)}`);
    }
    console.log(
      `  index: ${index}; exact ranking and count up to ${exactUpTo} matches; same top 20 as exact ranking: ${sameTop}/${queries.length} queries`,
    );
    const runs = { exact, service: viaService, gin: ginFallback };
    const ms: Record<keyof typeof runs, number[]> = { exact: [], service: [], gin: [] };
    const order = Object.keys(runs) as (keyof typeof runs)[];
    for (let round = 0; round < ROUNDS; round++) {
      for (const q of queries) {
        // Rotate which goes first so none always meets a warmer cache.
        for (let i = 0; i < order.length; i++) {
          const which = order[(round + i) % order.length]!;
          ms[which].push((await time(() => runs[which](q))) * 1000);
        }
      }
    }
    for (const list of Object.values(ms)) list.sort((x, y) => x - y);
    const n = N.toLocaleString("en-US");
    for (const p of [50, 95]) {
      const baseline = { name: `search exact ranking SQL p${p} (${n} transcripts)`, value: percentile(ms.exact, p), unit: "ms" };
      report(baseline);
      report(
        { name: `search service p${p} (${index} index, ${n} transcripts)`, value: percentile(ms.service, p), unit: "ms" },
        { ...baseline, label: "exact" },
      );
      report(
        { name: `search GIN fallback SQL p${p} (${n} transcripts)`, value: percentile(ms.gin, p), unit: "ms" },
        { ...baseline, label: "exact" },
      );
    }
    console.log(`  goal: service p95 <= ${N >= 1_000_000 ? 150 : 50} ms`);
  } finally {
    await service?.stop();
    for (const s of [...Object.keys(STREAMS), DLQ_STREAM.name]) await bus.jsm.streams.delete(bus.stream(s)).catch(() => {});
    await bus.close();
    await sql.end({ timeout: 1 });
    await rawSql.end({ timeout: 1 });
    await db.drop();
  }
}
