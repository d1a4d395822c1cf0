// Search latency at 100k synthetic transcripts (BENCH_SEARCH_TRANSCRIPTS=1000000 for 1M): the search
// service over request/reply (SQL, parsing, snippets, NATS round trip; the RUM index when the server
// has the extension), the same search without the service (its SQL alone) and the GIN fallback's
// statement, next to the exact ranking (ts_rank over every match, exact count) as the baseline,
// interleaved in one run. It checks the service's top 20 against the exact ranking's per query.
//
// The seeded corpus is kept between runs in a database named after its size and CORPUS_VERSION
// (seeding 1M took 30 minutes on the shared 2-core machine at load ~7, indexes included; 100k, 12 minutes before the words were drawn in a function):
// BENCH_SEARCH_FRESH=1 seeds it again; bump CORPUS_VERSION when seed() changes. The bench only reads it.
import { ANONYMOUS, DLQ_STREAM, STREAMS, searchOps } from "@scribe/contracts";
import { connectBus, connectDb, migrate, rpcCall, serviceMigrations, startService, type Sql } from "@scribe/kit";
import { TEST_ADMIN_URL, testPrefix, TEST_NATS_URL } from "@scribe/kit/testing";
import { LIVE_TABLES, copyForSearch, fillSearch } from "@scribe/projection/testing";
import { searchService } from "@scribe/search";
import {
  SEARCH_DB_SETTINGS,
  availableSearchIndex,
  impactTokensReady,
  searchStatement,
  searchTranscripts,
  type SearchQuery,
} from "@scribe/search/testing";
import { loadavg } from "node:os";
import postgres from "postgres";
import { percentile, report, time } from "./report";
import { stealWindow } from "./steal";

const N = Number(process.env.BENCH_SEARCH_TRANSCRIPTS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_SEARCH_ROUNDS ?? 15);
// 3: the rows carry impact tokens (migration 0008), computed as they are inserted; 5: and their
// search copies (0009), taken after the load.
const CORPUS_VERSION = 5;

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
 * N transcripts generated inside Postgres (generate_series, rather than rows sent from here) with a
 * 5-word title, 60-word summary and 200-word text. Words are drawn with a Zipf-like law (rank r with
 * probability ~1/r), as in real text: a few words are in every transcript, most are rare. With
 * 20,000 words, rank 100 is in about a fifth of the transcripts, rank 1,000 in 2 %, rank 10,000 in
 * 0.2 %. One transcript in 41 is in its owner's trash (soft-deleted), so each user has 2 or 3 there.
 * Postgres' random() is seeded per batch, so a corpus is the same every time. The search copies
 * (migration 0009) are taken after the load, and the full-text indexes built once after that, much
 * faster than maintaining them per row.
 */
export async function seed(sql: Sql, vocab: string[], n: number, onProgress = progressLine): Promise<void> {
  const indexes = await sql<{ name: string; def: string }[]>`
    select indexname as name, indexdef as def from pg_indexes
    where schemaname = 'projection' and indexname in ('idx_transcript_search', 'idx_transcript_search_rum', 'idx_transcript_search_impact')`;
  for (const ix of indexes) await sql`drop index ${sql(ix.name)}`;
  // Drawing the words in a function keeps the vocabulary in memory once per call, where an array
  // parameter subscripted in a correlated subquery was read again for every word (1M took hours).
  // It draws in the same order from the same generator, so a corpus seeded either way is the same.
  await sql`create schema if not exists bench_seed`;
  await sql`
    create or replace function bench_seed.words(vocab text[], n int) returns text language plpgsql as $$
    declare
      drawn text[] := '{}';
      size int := array_length(vocab, 1);
    begin
      for i in 1..n loop
        drawn := drawn || vocab[least(size, floor(size::float8 ^ random())::int)];
      end loop;
      return array_to_string(drawn, ' ');
    end $$`;
  const batch = 50_000;
  for (let start = 0; start < n; start += batch) {
    await sql.begin(async (tx) => {
      await tx`select setseed(${((start / batch) % 1000) / 1000})`;
      const draw = (words: number) => tx`bench_seed.words(${vocab}::text[], ${words})`;
      await tx`
        insert into transcript (id, version, state_version, name, status, locked, duration, created_at, updated_at,
          title, long_summary, webvtt_text, participants, source_language, target_language, reviewed, audio_location,
          user_id, share_mode, source_kind, room_id, room_name, room_shared, deleted_at)
        select 'bench-' || g, 1, 1, 'Transcript ' || g, 'ended', false, 1800000,
          now() - g * interval '1 minute', now(), ${draw(5)}, ${draw(60)}, ${draw(200)}, '[]', 'en', 'en', false, 'storage',
          'user-' || g % 1000, 'public', 'room', 'room-' || g % 500, 'room name ' || g % 500, g % 500 < 25,
          case when g % 41 = 0 then now() - g * interval '1 second' end
        from generate_series(${start}::int, ${Math.min(n, start + batch) - 1}::int) g`;
    });
    onProgress(Math.min(n, start + batch));
  }
  await sql`drop schema bench_seed cascade`;
  process.stdout.write("\n");
  // As the migration takes them; the pair tokens follow in fillPairTokens.
  await copyForSearch(sql, LIVE_TABLES, null);
  await sql`update transcript_search_fill set filled_through = (select max(change_seq) from transcript)`;
  for (const ix of indexes) await sql.unsafe(ix.def);
  await sql`analyze transcript`;
  await sql`analyze transcript_search`;
}

const progressLine = (seeded: number) => process.stdout.write(`  seeded ${seeded.toLocaleString("en-US")} transcripts\r`);

/** The exact ranking search had before: ts_rank over every match and an exact count (the baseline). */
function exactStatement(db: Sql, c: BenchCase) {
  const tsquery = db`websearch_to_tsquery('english', ${c.q})`;
  return db`
    with hits as (
      select t.id, t.created_at, ts_rank(t.search_vector, ${tsquery}, 32) as rank
      from projection.transcript t
      where ${visibleIn(db, c)} and t.search_vector @@ ${tsquery}),
    page as (select id, rank, created_at from hits order by rank desc, created_at desc, id limit 20)
    select page.id, (select count(*) from hits) as total from page order by page.rank desc, page.created_at desc, page.id`;
}

/** The baseline's own statement of what a case's caller sees (behaviour-search-notify-auth §1.4). */
function visibleIn(db: Sql, c: BenchCase) {
  const room = c.roomId ? db`t.room_id = ${c.roomId}` : db`true`;
  if (c.trash) return db`t.deleted_at is not null and t.user_id = ${c.userId!} and ${room}`;
  if (c.userId) return db`t.deleted_at is null and (t.user_id = ${c.userId} or t.room_shared) and ${room}`;
  return db`t.deleted_at is null and (t.user_id is null or t.share_mode = 'public' or t.room_shared) and ${room}`;
}

/** One kind of search the bench times: a query, asked anonymously (PUBLIC_MODE) or as one user, maybe in one room or the trash. */
interface BenchCase {
  name: string;
  q: string;
  userId?: string;
  roomId?: string;
  trash?: boolean;
}

/**
 * From a word in nearly every transcript to one in 0.1 %, the web-search forms and browsing, over
 * everything visible (anonymous, PUBLIC_MODE: all 100k); then one user's scope (their 100 and the
 * shared rooms' 5 %), one room (0.2 %) and the user's trash (2 or 3 soft-deleted transcripts).
 */
function benchCases(vocab: string[]): BenchCase[] {
  const user = "user-7";
  const room = "room-7";
  return [
    { name: "word in ~all", q: vocab[4]! },
    { name: "word in ~20 %", q: vocab[99]! },
    { name: "word in ~2 %", q: vocab[999]! },
    { name: "word in ~0.2 %", q: vocab[9999]! },
    { name: "two words", q: `${vocab[49]} ${vocab[499]}` },
    { name: "phrase", q: `"${vocab[2]} ${vocab[3]}"` },
    { name: "either word", q: `${vocab[1999]} OR ${vocab[4999]}` },
    { name: "browse", q: "" },
    { name: "user: word in ~all", q: vocab[4]!, userId: user },
    { name: "user: word in ~2 %", q: vocab[999]!, userId: user },
    { name: "user: two words", q: `${vocab[49]} ${vocab[499]}`, userId: user },
    { name: "user: browse", q: "", userId: user },
    { name: "room: word in ~all", q: vocab[4]!, roomId: room },
    { name: "room: two words", q: `${vocab[9]} ${vocab[19]}`, roomId: room },
    { name: "trash: word in ~all", q: vocab[4]!, userId: user, trash: true },
    { name: "trash: browse", q: "", userId: user, trash: true },
  ];
}

/** The corpus database, seeded on first use (or with BENCH_SEARCH_FRESH=1) and kept for later runs. */
async function corpusDatabase(vocab: string[]): Promise<string> {
  const name = `scribe_benchsearch_corpus_${N}_v${CORPUS_VERSION}`;
  const admin = postgres(TEST_ADMIN_URL, { max: 1, onnotice: () => {} });
  let reuse: boolean;
  try {
    // The comment is set once seeding finished: a database without it was interrupted.
    const [found] = await admin<{ seeded: boolean }[]>`
      select coalesce(shobj_description(oid, 'pg_database') = 'seeded', false) as seeded from pg_database where datname = ${name}`;
    reuse = found?.seeded === true && process.env.BENCH_SEARCH_FRESH !== "1";
    if (!reuse) {
      if (found) await admin.unsafe(`drop database "${name}" with (force)`);
      await admin.unsafe(`create database "${name}"`);
    }
  } finally {
    await admin.end();
  }
  const url = new URL(TEST_ADMIN_URL);
  url.pathname = `/${name}`;
  const sql = connectDb(url.toString(), { schema: "projection", max: 2 });
  try {
    // Later migrations apply to a kept corpus too.
    await migrate(sql, { schema: "projection", migrations: serviceMigrations("projection") });
    if (!reuse) {
      const seeding = await time(() => seed(sql, vocab, N));
      await sql.unsafe(`comment on database "${name}" is 'seeded'`);
      console.log(`  ${N.toLocaleString("en-US")} transcripts seeded and indexed in ${seeding.toFixed(0)} s into ${name}`);
    } else {
      console.log(`  ${N.toLocaleString("en-US")} transcripts from the kept corpus ${name} (BENCH_SEARCH_FRESH=1 seeds it again)`);
    }
    await fillPairTokens(sql);
  } finally {
    await sql.end({ timeout: 1 });
  }
  return url.toString();
}

/**
 * The search copies' phrase pair tokens (migration 0009), which the projection fills in the
 * background: a corpus seeded (or kept) without them gets them here (~0.7 ms per transcript).
 */
async function fillPairTokens(sql: Sql): Promise<void> {
  const [waiting] = await sql<{ n: number }[]>`
    select count(*)::int as n from transcript_search where vector_seq > (select pairs_through from transcript_search_fill)`;
  if (!waiting?.n) return;
  const filling = await time(async () => {
    let done = 0;
    await fillSearch(sql, 10_000, (kind, n) => {
      if (kind !== "pairs") return;
      done += n;
      process.stdout.write(`  pair tokens for ${done.toLocaleString("en-US")} of ${waiting.n.toLocaleString("en-US")} transcripts\r`);
    });
  });
  await sql`vacuum analyze transcript_search_pairs`;
  console.log(`\n  pair tokens computed for ${waiting.n.toLocaleString("en-US")} transcripts in ${filling.toFixed(0)} s`);
}

/** Of the exact top ids, the share the other list has too (order aside). */
function overlap(exact: string[], got: string[]): number {
  if (exact.length === 0) return got.length === 0 ? 1 : 0;
  const have = new Set(got);
  return exact.filter((id) => have.has(id)).length / exact.length;
}

export default async function bench(): Promise<void> {
  const vocab = vocabulary(20_000);
  const dbUrl = await corpusDatabase(vocab);
  const prefix = testPrefix("benchsearch");
  // The raw statements run with the search service's session settings: the same SQL, the same plans.
  const rawSql = connectDb(dbUrl, { schema: "search", max: 4, settings: SEARCH_DB_SETTINGS });
  // The trash's plan before it had an index of its own (migration 0006) and before JIT was turned off.
  const oldTrashSql = connectDb(dbUrl, {
    schema: "search",
    max: 1,
    settings: { ...SEARCH_DB_SETTINGS, jit: "on", enable_indexscan: "off", enable_bitmapscan: "off" },
  });
  const bus = await connectBus({ url: TEST_NATS_URL, prefix, name: "bench-search" });
  const env = {
    DATABASE_URL: dbUrl,
    NATS_URL: TEST_NATS_URL,
    NATS_PREFIX: prefix,
    LOG_LEVEL: "silent",
    OPS_PORT: "0",
    PUBLIC_MODE: "true",
  };
  let service: Awaited<ReturnType<typeof startService>> | null = null;
  try {
    service = await startService(searchService, env);

    const cases = benchCases(vocab);
    const index = await availableSearchIndex(rawSql);
    const impact = await impactTokensReady(rawSql);
    const exactUpTo = 1000;
    const request = (c: BenchCase, which: SearchQuery["index"], withImpact = impact): SearchQuery => ({
      text: c.q || null,
      scope: c.trash
        ? { kind: "own_deleted", userId: c.userId! }
        : c.userId
          ? { kind: "own_or_shared_rooms", userId: c.userId }
          : { kind: "ownerless_public_or_shared_rooms" },
      roomId: c.roomId ?? null,
      sourceKind: null,
      limit: 20,
      offset: 0,
      exactUpTo,
      index: which,
      impact: withImpact,
    });
    // Browsing has no ranking: the baseline lists it with the same statement. The trash's baseline
    // is the plan it had before it had an index: a disabled sequential scan, JIT-compiled.
    const exact = (c: BenchCase) =>
      c.trash
        ? searchTranscripts(oldTrashSql, request(c, index)).then(({ rows, total }) => rows.map((r) => ({ id: r.id, total })))
        : c.q
          ? exactStatement(rawSql, c)
          : searchStatement(rawSql, request(c, "gin"));
    const ginFallback = (c: BenchCase) => searchStatement(rawSql, request(c, "gin"));
    const serviceSql = (c: BenchCase) => searchTranscripts(rawSql, request(c, index));
    // What the service ran before single words were ranked from impact tokens.
    const withoutImpact = (c: BenchCase) => searchTranscripts(rawSql, request(c, index, false));
    const viaService = (c: BenchCase) =>
      rpcCall(
        bus,
        searchOps.search,
        {
          caller: c.userId ? { userId: c.userId, email: null, via: "bearer" } : ANONYMOUS,
          q: c.q,
          limit: 20,
          offset: 0,
          room_id: c.roomId ?? null,
          include_deleted: c.trash ?? false,
        },
        { timeoutMs: 60_000 },
      );
    let sameOrder = 0;
    const overlaps: number[] = [];
    for (const c of cases) {
      const [want, got] = [await exact(c), await viaService(c)];
      const [wantIds, gotIds] = [want.map((r) => r.id), got.results.map((r) => r.id)];
      const share = overlap(wantIds, gotIds);
      overlaps.push(share);
      if (JSON.stringify(wantIds) === JSON.stringify(gotIds)) sameOrder++;
      const matches = c.q ? Number(want[0]?.total ?? 0).toLocaleString("en-US") : "-";
      console.log(
        `  ${c.name} ${JSON.stringify(c.q)}: ${matches} matches, total ${got.total}${got.total_capped ? " (capped)" : ""}; top 20 ${(share * 100).toFixed(0)} % the exact ones${JSON.stringify(wantIds) === JSON.stringify(gotIds) ? ", same order" : ", order differs"}`,
      );
    }
    console.log(
      `  index: ${index}; impact tokens: ${impact ? "ready" : "not ready"}; exact ranking and count up to ${exactUpTo} matches; same top 20 in the same order as exact ranking: ${sameOrder}/${cases.length} queries; mean top-20 overlap ${((overlaps.reduce((a, b) => a + b, 0) / overlaps.length) * 100).toFixed(0)} % (goal: 100 %)`,
    );
    const loadAtStart = loadavg()[0]!;
    const steal = stealWindow();
    const runs = { exact, service: viaService, "service SQL": serviceSql, "without impact": withoutImpact, gin: ginFallback };
    type Run = keyof typeof runs;
    const ms = Object.fromEntries(Object.keys(runs).map((k) => [k, [] as number[]])) as Record<Run, number[]>;
    const perCase = new Map<BenchCase, Record<Run, number[]>>(
      cases.map((c) => [c, Object.fromEntries(Object.keys(runs).map((k) => [k, [] as number[]])) as Record<Run, number[]>]),
    );
    const order = Object.keys(runs) as Run[];
    for (let round = 0; round < ROUNDS; round++) {
      for (const c of cases) {
        // Rotate which goes first so none always meets a warmer cache.
        for (let i = 0; i < order.length; i++) {
          const which = order[(round + i) % order.length]!;
          const took = (await time(() => runs[which](c))) * 1000;
          ms[which].push(took);
          perCase.get(c)![which].push(took);
        }
      }
    }
    for (const list of [...Object.values(ms), ...[...perCase.values()].flatMap((r) => Object.values(r))]) list.sort((x, y) => x - y);
    const n = N.toLocaleString("en-US");
    for (const p of [50, 95, 99]) {
      const baseline = { name: `search exact ranking SQL p${p} (${n} transcripts)`, value: percentile(ms.exact, p), unit: "ms" };
      report(baseline);
      report(
        { name: `search service p${p} (${index} index, ${n} transcripts)`, value: percentile(ms.service, p), unit: "ms" },
        { ...baseline, label: "exact" },
      );
      report(
        {
          name: `search service's SQL alone p${p} (${index} index, ${n} transcripts)`,
          value: percentile(ms["service SQL"], p),
          unit: "ms",
        },
        { ...baseline, label: "exact" },
      );
      const before = {
        name: `search service's SQL without impact tokens p${p} (${index} index, ${n} transcripts)`,
        value: percentile(ms["without impact"], p),
        unit: "ms",
      };
      report(before, { ...baseline, label: "exact" });
      report(
        { name: `search service's SQL p${p}, against it without impact tokens`, value: percentile(ms["service SQL"], p), unit: "ms" },
        { ...before, label: "without impact" },
      );
      report(
        { name: `search GIN fallback SQL p${p} (${n} transcripts)`, value: percentile(ms.gin, p), unit: "ms" },
        { ...baseline, label: "exact" },
      );
    }
    const cell = (list: number[]) => `${percentile(list, 50).toFixed(1)}/${percentile(list, 95).toFixed(1)}`;
    console.log(
      `  per class, p50/p95 ms (${ROUNDS} rounds): exact ranking (trash: the old plan) | service | service SQL | SQL without impact | GIN fallback SQL`,
    );
    for (const [c, r] of perCase) {
      const ratio = percentile(r.service, 95) / percentile(r.exact, 95);
      console.log(
        `  ${c.name.padEnd(22)} ${cell(r.exact).padStart(15)} | ${cell(r.service).padStart(13)} | ${cell(r["service SQL"]).padStart(13)} | ${cell(r["without impact"]).padStart(13)} | ${cell(r.gin).padStart(13)}  (service p95 ${ratio.toFixed(2)}x exact)`,
      );
    }
    // The machine is shared: the numbers mean little without how busy it was.
    console.log(
      `  load average (1 min): ${loadAtStart.toFixed(2)} when timing began, ${loadavg()[0]!.toFixed(2)} at its end; CPU time stolen by the hypervisor meanwhile: ${steal.stolen()}`,
    );
    console.log(`  goal: service p95 <= ${N >= 1_000_000 ? 150 : 50} ms with the exact top 20`);
  } finally {
    await service?.stop();
    for (const s of [...Object.keys(STREAMS), DLQ_STREAM.name]) await bus.jsm.streams.delete(bus.stream(s)).catch(() => {});
    await bus.close();
    await rawSql.end({ timeout: 1 });
    await oldTrashSql.end({ timeout: 1 });
  }
}
