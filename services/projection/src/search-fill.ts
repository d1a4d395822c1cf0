// What search reads besides the transcript row, written in the background, a batch per round, so
// that neither start-up nor the consumer's ordered write path waits on it and no long transaction
// holds a table:
// - single-word impact tokens (migrations/projection/0008) for rows written before that migration
//   (the trigger gives every row it writes its own); the search service ranks single words from
//   them once no visible row lacks them;
// - the transcripts' search copies (0009): the vector under the RUM index, for every transcript
//   that changed, in change_seq order up to a mark; the search service ranks the transcripts past
//   the mark from their own rows, so a page misses no write meanwhile;
// - the copies' phrase pair tokens (~0.3-0.7 ms a transcript), once per vector, after the copies,
//   in a table of their own (in vector_seq order up to their own mark).
import { registry, runPeriodically, type Db, type Logger, type PeriodicJob, type Sql, type Tx } from "@scribe/kit";
import { Gauge } from "prom-client";
import type { ModelTables } from "./store";

/** Counted up to this many: past 500 search already answers from GIN, the exact backlog beyond does not matter. */
const WAITING_COUNTED_UP_TO = 100_000;
const waiting = new Gauge({
  name: "scribe_search_fill_waiting",
  help: `transcripts whose search copy (kind=copies) or its pair tokens (kind=pairs) the search fill has yet to write, counted up to ${WAITING_COUNTED_UP_TO}`,
  labelNames: ["kind"],
  registers: [registry],
});

/** What the fill has yet to do, counted up to WAITING_COUNTED_UP_TO (index range scans). */
export async function searchFillWaiting(sql: Sql): Promise<{ copies: number; pairs: number }> {
  const [row] = await sql<{ copies: number; pairs: number }[]>`
    select
      (select count(*)::int from (
        select 1 from transcript where change_seq > (select filled_through from transcript_search_fill) limit ${WAITING_COUNTED_UP_TO}) c) as copies,
      (select count(*)::int from (
        select 1 from transcript_search where vector_seq > (select pairs_through from transcript_search_fill)
        limit ${WAITING_COUNTED_UP_TO}) p) as pairs`;
  return row!;
}

/**
 * The transcript columns a search copy carries (migration 0009): its vector, and what search
 * filters and orders by, so that a RUM scan reads the copies alone.
 */
const COPIED = [
  "change_seq",
  "search_vector",
  "created_at",
  "deleted_at",
  "user_id",
  "share_mode",
  "room_id",
  "room_shared",
  "source_kind",
];
const copiedColumns = (db: Db, qualifier?: string) => db.unsafe(COPIED.map((c) => (qualifier ? `${qualifier}.${c}` : c)).join(", "));

/**
 * Copies every transcript of `into.transcript` (destroyed ones aside) into the empty `into.search`
 * (vector_seq: the change_seq), and into `into.searchPairs` the pair tokens `tokensOf` holds for the
 * same vector: a rebuild's shadow tables (a rebuild mostly folds the same texts again, so most
 * tokens are kept), and a corpus loaded without the projection. The caller moves the fill's marks
 * (searchPairsThrough tells the pairs').
 */
export async function copyForSearch(db: Db, into: ModelTables, tokensOf: ModelTables | null): Promise<void> {
  await db`
    insert into ${db(into.search)} (id, vector_seq, ${copiedColumns(db)})
    select n.id, n.change_seq, ${copiedColumns(db, "n")}
    from ${db(into.transcript)} n where n.destroyed_at is null`;
  if (!tokensOf) return;
  await db`
    insert into ${db(into.searchPairs)} (id, vector_seq, pair_tokens)
    select n.id, n.vector_seq, op.pair_tokens
    from ${db(into.search)} n
      join ${db(tokensOf.search)} o on o.id = n.id and o.search_vector = n.search_vector
      join ${db(tokensOf.searchPairs)} op on op.id = o.id and op.vector_seq = o.vector_seq`;
}

/** How far `t`'s pair tokens are complete: the vector_seq before the first copy without them (all: the last one). */
export const searchPairsThrough = (db: Db, t: ModelTables) => db`
  coalesce(
    (select min(s.vector_seq) - 1 from ${db(t.search)} s
     where not exists (select 1 from ${db(t.searchPairs)} p where p.id = s.id and p.vector_seq = s.vector_seq)),
    (select max(vector_seq) from ${db(t.search)}),
    0)`;

/** Rows per batch and kind: a few hundred milliseconds of work for transcripts of a few hundred words. */
export const FILL_BATCH = 500;
/**
 * Rows per round and kind while the service's consumers are behind: the fill gives way to them
 * (its work is as much database time as applying the events, ~0.45 ms a transcript, on a machine
 * the consumer already keeps busy), and catches up once they are through. Search meanwhile ranks
 * from the transcript rows and, past PENDING_TOKENS waiting, from GIN (services/search).
 */
export const FILL_BATCH_WHILE_BUSY = 50;
/** How long one round goes on taking batches of a backlog before it lets the next round come. */
const ROUND_BUDGET_MS = 2_000;

/**
 * Gives up to `batch` rows their impact tokens and returns how many it did. The fill setting makes
 * the trigger keep each row's change_seq and skip the feed lock: the transcript did not change for
 * the change feed. Rows a live write holds are skipped this round (that write computes their tokens).
 */
export async function fillSearchImpact(sql: Sql, batch = FILL_BATCH): Promise<number> {
  return sql.begin(async (tx) => {
    await tx`select set_config('scribe.search_impact_fill', 'on', true)`;
    const filled = await tx`
      update transcript set search_impact = search_impact_tokens(search_vector)
      where id in (select id from transcript where search_impact is null limit ${batch} for update skip locked)`;
    return filled.count;
  });
}

/** Whether this transaction has the fill's turn: one replica's fill writes copies and tokens at a time (their marks move in order). */
async function takeFillTurn(tx: Tx): Promise<boolean> {
  const [turn] = await tx<{ mine: boolean }[]>`select pg_try_advisory_xact_lock(hashtext('scribe:projection:search-fill')) as mine`;
  return turn?.mine === true;
}

/**
 * Writes the search copies of up to `batch` transcripts past the fill's mark, in change_seq order,
 * and moves the mark to the last of them; returns how many it did (0 also when another replica's
 * fill holds the turn). Change_seq values commit in order (the feed lock), so every transcript up
 * to the mark has a current copy; one written meanwhile gets a higher change_seq and waits for the
 * next batch.
 *
 * A copy whose vector did not change only takes the new change_seq: the statement gives the row
 * its own vector and tokens back, so the update is HOT and touches no index. A changed vector's
 * pair tokens are computed by fillPairTokens. A destroyed transcript's copy is deleted (the
 * projection deletes it when it applies the destruction; this covers a copy written from a snapshot
 * taken before it). When the read model was rebuilt behind the fill's back (the mark is about
 * another table), the mark starts over and the copies of transcripts that are gone are dropped.
 */
export async function fillSearchCopies(sql: Sql, batch = FILL_BATCH): Promise<number> {
  return sql.begin(async (tx) => {
    if (!(await takeFillTurn(tx))) return 0;
    const [mark] = await tx<{ current: boolean }[]>`
      select of_table = 'transcript'::regclass as current from transcript_search_fill`;
    if (!mark?.current) {
      await tx`delete from transcript_search s where not exists (select 1 from transcript t where t.id = s.id)`;
      await tx`delete from transcript_search_pairs p where not exists (select 1 from transcript_search s where s.id = p.id)`;
      await tx`update transcript_search_fill set of_table = 'transcript'::regclass, filled_through = 0`;
    }
    const [done] = await tx<{ n: number }[]>`
      with next as materialized (
        select id, change_seq, destroyed_at is not null as gone from transcript
        where change_seq > (select filled_through from transcript_search_fill)
        order by change_seq limit ${batch}),
      gone as (delete from transcript_search s using next where s.id = next.id and next.gone),
      unpaired as (delete from transcript_search_pairs p using next where p.id = next.id and next.gone),
      written as (
        insert into transcript_search as s (id, vector_seq, ${copiedColumns(tx)})
        select t.id, t.change_seq, ${copiedColumns(tx, "t")} from next join transcript t using (id) where not next.gone
        on conflict (id) do update set
          ${tx.unsafe(
            COPIED.filter((c) => c !== "search_vector")
              .map((c) => `${c} = excluded.${c}`)
              .join(", "),
          )},
          search_vector = case when s.search_vector = excluded.search_vector then s.search_vector else excluded.search_vector end,
          vector_seq = case when s.search_vector = excluded.search_vector then s.vector_seq else excluded.vector_seq end),
      marked as (
        update transcript_search_fill set filled_through = (select max(change_seq) from next)
        where exists (select 1 from next))
      select count(*)::int as n from next`;
    return done!.n;
  });
}

/**
 * Computes the pair tokens of up to `batch` copies past the pairs' mark, in vector_seq order (the
 * ones a rebuild kept are not computed again), and moves the mark to the last of them; returns how
 * many copies it went past (0 also when another replica's fill holds the turn). vector_seq values
 * are given in order by the copies' batches, which take the same turn, so every copy up to the mark
 * has its tokens.
 */
export async function fillPairTokens(sql: Sql, batch = FILL_BATCH): Promise<number> {
  return sql.begin(async (tx) => {
    if (!(await takeFillTurn(tx))) return 0;
    const [done] = await tx<{ n: number }[]>`
      with next as materialized (
        select id, vector_seq, search_vector from transcript_search
        where vector_seq > (select pairs_through from transcript_search_fill)
        order by vector_seq limit ${batch}),
      written as (
        insert into transcript_search_pairs as p (id, vector_seq, pair_tokens)
        select n.id, n.vector_seq, search_pair_tokens(n.search_vector) from next n
        where not exists (select 1 from transcript_search_pairs k where k.id = n.id and k.vector_seq = n.vector_seq)
        on conflict (id) do update set vector_seq = excluded.vector_seq, pair_tokens = excluded.pair_tokens),
      marked as (
        update transcript_search_fill set pairs_through = (select max(vector_seq) from next)
        where exists (select 1 from next))
      select count(*)::int as n from next`;
    return done!.n;
  });
}

/** Until none is left: what a corpus loaded without the projection (the search bench's) needs before it is searched. */
export async function fillSearch(sql: Sql, batch = FILL_BATCH, onBatch: (kind: string, n: number) => void = () => {}): Promise<void> {
  for (const [kind, fill] of Object.entries(FILLS)) {
    for (let n = await fill(sql, batch); n > 0; n = await fill(sql, batch)) onBatch(kind, n);
  }
}

const FILLS = { impact: fillSearchImpact, copies: fillSearchCopies, pairs: fillPairTokens };

export interface SearchFillOptions {
  intervalMs?: number;
  /** Whether the service's consumers are behind (then a round takes FILL_BATCH_WHILE_BUSY rows a kind). */
  busy?: () => boolean;
}

export function startSearchFill(sql: Sql, log: Logger, opts: SearchFillOptions = {}): PeriodicJob {
  const busy = opts.busy ?? (() => false);
  const filled = { impact: 0, copies: 0, pairs: 0 };
  return runPeriodically(
    "search fill",
    opts.intervalMs ?? 1000,
    async () => {
      const until = performance.now() + ROUND_BUDGET_MS;
      for (const kind of ["impact", "copies", "pairs"] as const) {
        let n: number;
        let full: boolean;
        do {
          const batch = busy() ? FILL_BATCH_WHILE_BUSY : FILL_BATCH;
          n = await FILLS[kind](sql, batch);
          full = n === batch;
          filled[kind] += n;
          // Copies and pair tokens are written all the time (every change moves a transcript past the mark): only a backlog is worth a line.
          if (n > 0 && filled[kind] % (FILL_BATCH * 20) < n) log.info({ kind, filled: filled[kind] }, "filling search copies and tokens");
        } while (full && !busy() && performance.now() < until);
        if (n === 0) {
          if (filled[kind] >= FILL_BATCH * 20) log.info({ kind, filled: filled[kind] }, "search copies and tokens caught up");
          filled[kind] = 0;
        }
      }
      const left = await searchFillWaiting(sql);
      waiting.set({ kind: "copies" }, left.copies);
      waiting.set({ kind: "pairs" }, left.pairs);
    },
    log,
  );
}
