// Rebuilding the read model from the streams (`scribe replay read-model`) without downtime for readers.
//
// 1. Shadow tables `<table>__next` (same columns, no indexes yet) are filled from the ROOMS, RECORDINGS
//    and TRANSCRIPTS streams up to their last sequence at the start, with the same fold as the live
//    consumer; readers and the live consumer keep using the live tables meanwhile.
// 2. The shadow's search copies are taken from its transcripts (keeping the live copy's pair tokens
//    where the vector is the same), then the shadow gets the live tables' indexes (built once, after
//    the load) and fresh statistics.
// 3. The swap, one transaction: take the feed lock (the live consumer's next write waits on it: it is
//    paused), fold what arrived since step 1, move the live sequence past the shadow's (whose values
//    start far above any value served, so ingesters see every rebuilt row rather than miss any),
//    rename live → `__old` and shadow → live (tables and indexes), put the ordered trigger back and
//    move the search fill's mark to the copies (what was folded in the swap is past it).
//    Readers see the old model until the commit and the new one after it, never a half-built one.
//    The consumer then resumes; its writes land in the new tables (names are resolved per statement),
//    and what it applies again is stale by version or already in its inbox: nothing lost or doubled.
// 4. The old tables are dropped.
import { parseEvent, type ScribeEvent, type StreamName } from "@scribe/contracts";
import { readStream, streamBounds, type Bus, type Db, type Logger, type Sql, type Tx } from "@scribe/kit";
import type { JsMsg } from "@nats-io/jetstream";
import { FOLDED } from "./consumers";
import { copyForSearch, searchPairsThrough } from "./search-fill";
import { LIVE_TABLES, applyEvent, applyInOrder, takeFeedLock, type ModelTables } from "./store";

const NEXT = "__next";
const OLD = "__old";
const TABLES = Object.values(LIVE_TABLES);
const SHADOW: ModelTables = {
  transcript: `${LIVE_TABLES.transcript}${NEXT}`,
  topic: `${LIVE_TABLES.topic}${NEXT}`,
  room: `${LIVE_TABLES.room}${NEXT}`,
  recording: `${LIVE_TABLES.recording}${NEXT}`,
  meeting: `${LIVE_TABLES.meeting}${NEXT}`,
  search: `${LIVE_TABLES.search}${NEXT}`,
  searchPairs: `${LIVE_TABLES.searchPairs}${NEXT}`,
};
const TRIGGER = "transcript_before_write";
const SEQUENCE = "transcript_change_seq";
/**
 * The rebuild's own change_seq sequence starts this far above the live one, so every rebuilt row
 * sorts after anything the live consumer writes meanwhile (checked at the swap, which re-stamps the
 * rows in the unlikely case the live writers used the whole gap).
 */
export const REBUILD_SEQUENCE_GAP = 2 ** 32;
/** Events per rebuild batch (one transaction each): larger than the live consumer's, a batch's fixed costs spread over more events. */
const REBUILD_BATCH = 1000;
const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

export interface RebuildProgress {
  phase: "build" | "indexes" | "swap" | "done";
  stream?: StreamName;
  /** Events read so far in this stream / phase. */
  done: number;
  /** Events to read in this stream (the range fixed when the build started). */
  total: number;
  failed: number;
  eventsPerSecond: number;
}

export interface FailedEvent {
  stream: StreamName;
  seq: number;
  eventId: string | null;
  reason: string;
}

export interface RebuildReport {
  events: number;
  /** Events folded during the swap (arrived while the shadow was being built). */
  caughtUp: number;
  transcripts: number;
  failed: FailedEvent[];
  seconds: number;
}

export interface RebuildOptions {
  sql: Sql;
  bus: Bus;
  log: Logger;
  onProgress?: (p: RebuildProgress) => void;
  /** Runs after the shadow is built and indexed, right before the swap (tests use it). */
  beforeSwap?: () => Promise<void>;
  batchSize?: number;
  /** Default REBUILD_SEQUENCE_GAP (tests make it small to exercise the re-stamp). */
  sequenceGap?: number;
}

function ident(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`unexpected identifier ${JSON.stringify(name)}`);
  return `"${name}"`;
}

const STREAMS = FOLDED.map((f) => f.stream);

export async function rebuildReadModel(opts: RebuildOptions): Promise<RebuildReport> {
  const { sql, bus, log } = opts;
  const started = performance.now();
  const failed: FailedEvent[] = [];
  // One rebuild at a time: a session lock held on a reserved connection for the whole run.
  const guard = await sql.reserve();
  try {
    const [lock] = await guard<{ ok: boolean }[]>`select pg_try_advisory_lock(hashtext('scribe:projection:rebuild')) as ok`;
    if (!lock?.ok) throw new Error("another rebuild of the read model is running");
    try {
      const shadowStart = await createShadow(sql, opts.sequenceGap ?? REBUILD_SEQUENCE_GAP);
      const snapshot = new Map<StreamName, number>();
      let events = 0;
      for (const stream of STREAMS) {
        const bounds = await streamBounds(bus, stream);
        snapshot.set(stream, bounds.last);
        const total = bounds.messages === 0 ? 0 : bounds.last - bounds.first + 1;
        const t0 = performance.now();
        let done = 0;
        const batches = readStream(bus, stream, { toSeq: bounds.last, batchSize: opts.batchSize ?? REBUILD_BATCH });
        for await (const { batch, events: parsedEvents } of readAhead(parsedBatches(stream, batches, failed))) {
          await buildBatch(sql, parsedEvents, failed);
          done += batch.length;
          events += batch.length;
          opts.onProgress?.({ phase: "build", stream, done, total, failed: failed.length, eventsPerSecond: rate(done, t0) });
        }
        log.info({ stream, events: done }, "read model rebuild: stream folded");
      }
      opts.onProgress?.({ phase: "indexes", done: 0, total: 0, failed: failed.length, eventsPerSecond: rate(events, started) });
      // The shadow's search copies (the live search fill follows the live table only), with the
      // live copies' pair tokens where the text is the same; the fill computes the others after the swap.
      await copyForSearch(sql, SHADOW, LIVE_TABLES);
      await indexShadow(sql);
      await opts.beforeSwap?.();
      const caughtUp = await swap(sql, bus, snapshot, shadowStart, failed, opts);
      for (const t of TABLES) await sql.unsafe(`drop table if exists ${ident(t + OLD)}`);
      const [count] = await sql<{ n: number }[]>`select count(*)::int as n from transcript`;
      const report = { events: events + caughtUp, caughtUp, transcripts: count!.n, failed, seconds: (performance.now() - started) / 1000 };
      opts.onProgress?.({
        phase: "done",
        done: report.events,
        total: report.events,
        failed: failed.length,
        eventsPerSecond: rate(report.events, started),
      });
      log.info({ ...report, failed: failed.length }, "read model rebuilt and swapped in");
      return report;
    } finally {
      await guard`select pg_advisory_unlock(hashtext('scribe:projection:rebuild'))`;
    }
  } finally {
    guard.release();
  }
}

/**
 * The next batch is fetched while the current one is folded (the stream and the database then
 * work at the same time instead of in turn).
 */
async function* readAhead<T>(batches: AsyncGenerator<T>): AsyncGenerator<T> {
  let next = batches.next();
  try {
    for (;;) {
      const current = await next;
      if (current.done) return;
      next = batches.next();
      yield current.value;
    }
  } finally {
    // Stopped early (a failure): let the reader close its consumer once its pending fetch ends.
    void next.then(() => batches.return(undefined)).catch(() => {});
  }
}

/** Events per second since `since`, a performance.now() reading (elapsed time, not the wall clock). */
function rate(n: number, since: number): number {
  const s = (performance.now() - since) / 1000;
  return s > 0 ? n / s : 0;
}

/**
 * Empty shadow tables with the live columns, defaults and constraints, primary keys now (upserts
 * need them), other indexes later; and their change_seq sequence, starting `gap` above the live one.
 * Returns that start.
 */
async function createShadow(sql: Sql, gap: number): Promise<bigint> {
  return sql.begin(async (tx) => {
    for (const t of TABLES) {
      await tx.unsafe(`drop table if exists ${ident(t + NEXT)}; drop table if exists ${ident(t + OLD)}`);
      await tx.unsafe(
        `create table ${ident(t + NEXT)} (like ${ident(t)} including defaults including constraints including generated including storage including compression including comments)`,
      );
      const pks = await tx<{ conname: string; def: string }[]>`
        select conname, pg_get_constraintdef(oid) as def from pg_constraint where conrelid = ${t}::regclass and contype = 'p'`;
      for (const pk of pks) await tx.unsafe(`alter table ${ident(t + NEXT)} add constraint ${ident(pk.conname + NEXT)} ${pk.def}`);
      // Storage parameters (the search copies' fillfactor, which leaves room for HOT updates) are not part of `like`.
      const [options] = await tx<{ list: string | null }[]>`
        select array_to_string(reloptions, ', ') as list from pg_class where oid = ${t}::regclass`;
      if (options?.list) await tx.unsafe(`alter table ${ident(t + NEXT)} set (${options.list})`);
    }
    const [live] = await tx<{ last: string }[]>`select last_value as last from ${tx(SEQUENCE)}`;
    const start = BigInt(live!.last) + BigInt(gap);
    await tx.unsafe(`drop sequence if exists ${ident(SEQUENCE + NEXT)}; create sequence ${ident(SEQUENCE + NEXT)} start with ${start}`);
    // Shadow mode: no feed lock while building; values from the shadow's own sequence.
    await tx.unsafe(
      `create trigger ${ident(TRIGGER)} before insert or update on ${ident(SHADOW.transcript)} for each row execute function transcript_before_write('shadow', '${SEQUENCE + NEXT}')`,
    );
    return start;
  });
}

/** The live tables' other indexes, same definitions, named `<index>__next`. */
async function indexShadow(sql: Sql): Promise<void> {
  const indexes = await liveIndexes(sql);
  for (const ix of indexes.filter((i) => !i.primary)) {
    const def = ix.def
      .replace(` INDEX ${ix.name} ON `, ` INDEX ${ident(ix.name + NEXT)} ON `)
      .replace(` ON ${ix.schema}.${ix.table} `, ` ON ${ix.schema}.${ident(ix.table + NEXT)} `);
    await sql.unsafe(def);
  }
  for (const t of TABLES) await sql.unsafe(`analyze ${ident(t + NEXT)}`);
}

async function liveIndexes(db: Db): Promise<{ name: string; table: string; schema: string; def: string; primary: boolean }[]> {
  const rows = await db<{ name: string; table: string; schema: string; def: string; primary: boolean }[]>`
    select i.indexname as name, i.tablename as table, i.schemaname as schema, i.indexdef as def,
      exists (select 1 from pg_constraint c where c.conname = i.indexname and c.contype = 'p' and c.connamespace = (select oid from pg_namespace where nspname = i.schemaname)) as primary
    from pg_indexes i
    where i.schemaname = current_schema() and i.tablename in ${db(TABLES)}`;
  for (const r of rows) {
    ident(r.name);
    ident(r.table);
    ident(r.schema);
  }
  return rows;
}

interface Parsed {
  stream: StreamName;
  m: JsMsg;
  ev: ScribeEvent;
}

/** A batch's events, parsed; those that do not parse are named in `failed`. */
function parsed(stream: StreamName, batch: JsMsg[], failed: FailedEvent[]): Parsed[] {
  const events: Parsed[] = [];
  for (const m of batch) {
    try {
      events.push({ stream, m, ev: parseEvent(m.data) });
    } catch (e) {
      failed.push({ stream, seq: m.seq, eventId: null, reason: (e as Error).message });
    }
  }
  return events;
}

/** Batches with their events parsed (by the read-ahead, so parsing one overlaps folding the one before). */
async function* parsedBatches(stream: StreamName, batches: AsyncGenerator<JsMsg[]>, failed: FailedEvent[]) {
  for await (const batch of batches) yield { batch, events: parsed(stream, batch, failed) };
}

/**
 * Fold one batch into the shadow tables while building: one transaction, then, if any event
 * failed, another that applies the batch event by event. Its commit does not wait for the disk:
 * nobody reads the shadow before the swap, whose own commit is durable, and a rebuild that a crash
 * interrupts starts again from empty shadow tables.
 */
async function buildBatch(sql: Sql, events: Parsed[], failed: FailedEvent[]): Promise<void> {
  try {
    await sql.begin(async (tx) => {
      const outcomes = await Promise.allSettled([
        tx`set local synchronous_commit = off`,
        applyInOrder(
          tx,
          SHADOW,
          events.map(({ ev }) => ev),
          { announce: false },
        ),
      ]);
      for (const o of outcomes) if (o.status === "rejected") throw o.reason;
    });
    return;
  } catch {
    // Some event failed: redo the batch event by event to apply the others and name the failures.
  }
  await sql.begin((tx) => foldOneByOne(tx, events, failed, false));
}

/**
 * Fold one batch into the shadow tables within the swap's transaction: fast path, then one
 * savepoint per event if any fails. Waiters for versions folded there are woken at its commit.
 */
async function foldBatch(tx: Tx, stream: StreamName, batch: JsMsg[], failed: FailedEvent[]): Promise<void> {
  const events = parsed(stream, batch, failed);
  try {
    await tx.savepoint((sp) =>
      applyInOrder(
        sp,
        SHADOW,
        events.map(({ ev }) => ev),
        { announce: true },
      ),
    );
    return;
  } catch {
    // Some event failed: redo the batch event by event to apply the others and name the failures.
  }
  await foldOneByOne(tx, events, failed, true);
}

async function foldOneByOne(tx: Tx, events: Parsed[], failed: FailedEvent[], announce: boolean) {
  for (const { stream, m, ev } of events) {
    try {
      await tx.savepoint((sp) => applyEvent(sp, SHADOW, ev, { announce }));
    } catch (e) {
      // Events the live consumer could not apply either (they are in the dead-letter stream).
      failed.push({ stream, seq: m.seq, eventId: ev.id, reason: (e as Error).message });
    }
  }
}

/**
 * After a re-stamp the copies' vector_seq values (the shadow's former change_seq) no longer sort
 * with the values the fill gives the vectors it writes from now on (the re-stamped change_seq, which
 * may fall below them), and the pair tokens' mark relies on that order. The copies and the tokens
 * of their vector take their transcript's new change_seq; the tokens of a vector the swap's fold
 * replaced are dropped, so the copy the fill writes for it gets its tokens computed again.
 */
async function restampSearchCopies(tx: Tx): Promise<void> {
  await tx`
    delete from ${tx(SHADOW.searchPairs)} p using ${tx(SHADOW.search)} s, ${tx(SHADOW.transcript)} t
    where s.id = p.id and t.id = s.id and (p.vector_seq <> s.vector_seq or s.search_vector <> t.search_vector)`;
  await tx`update ${tx(SHADOW.searchPairs)} p set vector_seq = t.change_seq from ${tx(SHADOW.transcript)} t where t.id = p.id`;
  await tx`
    update ${tx(SHADOW.search)} s set vector_seq = t.change_seq, change_seq = t.change_seq
    from ${tx(SHADOW.transcript)} t where t.id = s.id`;
}

async function swap(
  sql: Sql,
  bus: Bus,
  snapshot: Map<StreamName, number>,
  shadowStart: bigint,
  failed: FailedEvent[],
  opts: RebuildOptions,
): Promise<number> {
  const indexes = await liveIndexes(sql);
  return sql.begin(async (tx) => {
    await takeFeedLock(tx);
    let caughtUp = 0;
    const t0 = performance.now();
    for (const stream of STREAMS) {
      const from = (snapshot.get(stream) ?? 0) + 1;
      for await (const batch of readAhead(readStream(bus, stream, { fromSeq: from, batchSize: opts.batchSize ?? REBUILD_BATCH }))) {
        await foldBatch(tx, stream, batch, failed);
        caughtUp += batch.length;
        opts.onProgress?.({
          phase: "swap",
          stream,
          done: caughtUp,
          total: caughtUp,
          failed: failed.length,
          eventsPerSecond: rate(caughtUp, t0),
        });
      }
    }
    // Every rebuilt row must sort after everything served. Normally the shadow's values already do
    // (they start `gap` above the live sequence); if live writers used the whole gap, re-stamp.
    const [live] = await tx<{ last: string }[]>`select last_value as last from ${tx(SEQUENCE)}`;
    let restamped = false;
    if (BigInt(live!.last) >= shadowStart) {
      await tx.unsafe(`select setval('${SEQUENCE + NEXT}', ${BigInt(live!.last)})`);
      await tx.unsafe(`update ${ident(SHADOW.transcript)} set version = version`);
      await restampSearchCopies(tx);
      restamped = true;
    }
    // Every transcript up to the mark has a current search copy: those the copy took (what the fold
    // changed is past them), unless re-stamped (the fill then takes every copy again).
    const [copied] = await tx<{ through: string; pairs: string }[]>`
      select coalesce(max(change_seq), 0) as through, ${searchPairsThrough(tx, SHADOW)} as pairs from ${tx(SHADOW.search)}`;
    const searchFilledThrough = restamped ? "0" : copied!.through;
    // Live writes after the swap continue above every rebuilt row.
    await tx.unsafe(
      `select setval('${SEQUENCE}', greatest((select last_value from ${ident(SEQUENCE)}), (select last_value from ${ident(SEQUENCE + NEXT)})))`,
    );
    for (const t of TABLES) await tx.unsafe(`alter table ${ident(t)} rename to ${ident(t + OLD)}`);
    for (const ix of indexes) await tx.unsafe(`alter index ${ident(ix.name)} rename to ${ident(ix.name + OLD)}`);
    for (const t of TABLES) await tx.unsafe(`alter table ${ident(t + NEXT)} rename to ${ident(t)}`);
    for (const ix of indexes) await tx.unsafe(`alter index ${ident(ix.name + NEXT)} rename to ${ident(ix.name)}`);
    await tx.unsafe(`drop trigger ${ident(TRIGGER)} on ${ident(LIVE_TABLES.transcript)}`);
    await tx.unsafe(
      `create trigger ${ident(TRIGGER)} before insert or update on ${ident(LIVE_TABLES.transcript)} for each row execute function transcript_before_write('ordered')`,
    );
    await tx.unsafe(`drop sequence ${ident(SEQUENCE + NEXT)}`);
    await tx`
      update transcript_search_fill
      set of_table = 'transcript'::regclass, filled_through = ${searchFilledThrough}, pairs_through = ${copied!.pairs}`;
    return caughtUp;
  });
}
