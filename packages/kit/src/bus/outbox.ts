// Transactional outbox: events are written with the state change and published by a relay,
// with Nats-Msg-Id = event id so a crash between publish and bookkeeping publishes nothing twice.
import type { OutgoingEvent } from "@scribe/contracts";
import type { Logger } from "pino";
import type { Db, Sql } from "../db";
import { metrics } from "../metrics";
import type { Bus } from "./connection";

interface OutboxRow {
  seq: string;
  event_id: string;
  subject: string;
  payload: string;
}

/** Record events in the caller's transaction; they are published only if it commits. */
export async function emit(tx: Db, events: OutgoingEvent | OutgoingEvent[]): Promise<void> {
  const list = Array.isArray(events) ? events : [events];
  await emitSerialised(
    tx,
    list,
    list.map((e) => JSON.stringify(e.event)),
  );
}

/** `emit` for events the caller has serialised already (`payloads[i]` is `events[i].event` as JSON). */
export async function emitSerialised(tx: Db, events: readonly OutgoingEvent[], payloads: readonly string[]): Promise<void> {
  if (events.length === 0) return;
  const rows = events.map((e, i) => ({ event_id: e.event.id, subject: e.subject, payload: payloads[i]! }));
  await tx`insert into outbox ${tx(rows, "event_id", "subject", "payload")}`;
}

export interface RelayOptions {
  sql: Sql;
  bus: Bus;
  schema: string;
  log: Logger;
  batchSize?: number;
  /** Fallback poll when a NOTIFY was missed (e.g. the listen connection was re-established). */
  pollMs?: number;
  /** How long an event the server refused for good waits before it is tried again. */
  refusedRetryMs?: number;
  /** Test hook: runs after a batch is published and before it is removed (simulates a crash there). */
  afterPublish?: (eventIds: string[]) => void | Promise<void>;
}

export class OutboxRelay {
  private stopped = false;
  private wake: (() => void) | null = null;
  /** Set by NOTIFY; a wake-up that arrives mid-batch is not lost. */
  private notified = false;
  private loop: Promise<void> | null = null;
  private unlisten: (() => Promise<void>) | null = null;
  private readonly batchSize: number;
  private readonly pollMs: number;
  private readonly refusedRetryMs: number;

  constructor(private readonly opts: RelayOptions) {
    this.batchSize = opts.batchSize ?? 1000;
    this.pollMs = opts.pollMs ?? 1000;
    this.refusedRetryMs = opts.refusedRetryMs ?? 600_000;
  }

  async start(): Promise<void> {
    const listener = await this.opts.sql.listen(`${this.opts.schema}_outbox`, () => this.poke());
    this.unlisten = listener.unlisten;
    this.loop = this.run();
  }

  /** Finish the batch in flight, then stop. Unpublished rows stay for the next start. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.poke();
    await this.loop;
    await this.unlisten?.().catch(() => {});
    // Publish what the last in-flight requests wrote; anything left waits for the next start.
    await this.drainOnce().catch(() => {});
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      let published: number;
      this.notified = false;
      try {
        published = await this.drainOnce();
        failures = 0;
      } catch (e) {
        failures++;
        this.opts.log.warn({ err: e, failures }, "outbox relay batch failed; will retry");
        await this.sleep(Math.min(30_000, 200 * 2 ** Math.min(failures, 8)), { byNotify: false });
        continue;
      }
      if (published >= this.batchSize) continue;
      await this.sleep(this.pollMs);
    }
  }

  private poke(): void {
    this.notified = true;
    this.wake?.();
  }

  /** Wait `ms`, cut short by stop() and, unless backing off after a failure, by NOTIFY. */
  private sleep(ms: number, opts: { byNotify: boolean } = { byNotify: true }): Promise<void> {
    if (this.stopped || (opts.byNotify && this.notified)) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = () => {
        if (!opts.byNotify && !this.stopped) return;
        this.wake = null;
        done();
      };
    });
  }

  /**
   * Publish one batch in seq order. One relay per schema works at a time (advisory lock), so
   * events leave in the order they were written even with several replicas of a service.
   * Returns the number published (-1 when another relay holds the lock).
   */
  async drainOnce(): Promise<number> {
    const { sql, bus, schema } = this.opts;
    return sql.begin(async (tx) => {
      const [lock] = await tx<{ ok: boolean }[]>`select pg_try_advisory_xact_lock(hashtext(${`scribe:outbox:${schema}`})) as ok`;
      if (!lock?.ok) return -1;
      const rows = await tx<OutboxRow[]>`
        select seq, event_id, subject, payload from outbox
        where refused_at is null or refused_at <= now() - make_interval(secs => ${this.refusedRetryMs / 1000})
        order by seq limit ${this.batchSize}
        for update skip locked`;
      if (rows.length === 0) return 0;
      // Pipelined: all publishes in flight at once, acks awaited together.
      const outcomes = await Promise.allSettled(rows.map((r) => bus.js.publish(bus.subject(r.subject), r.payload, { msgID: r.event_id })));
      // Refusals for good, by the row's seq: set aside, the rest of the batch goes on.
      const refused = new Map<string, string>();
      for (const [i, outcome] of outcomes.entries()) {
        if (outcome.status === "fulfilled") continue;
        // Anything but a refusal for good (a timeout, a lost connection) retries the whole batch;
        // what was published meanwhile is dropped by JetStream as a duplicate (Nats-Msg-Id).
        if (!refusedForGood(outcome.reason)) throw outcome.reason;
        refused.set(rows[i]!.seq, String((outcome.reason as Error).message ?? outcome.reason));
      }
      const published = rows.filter((r) => !refused.has(r.seq));
      await this.opts.afterPublish?.(published.map((r) => r.event_id));
      await tx`delete from outbox where seq = any(${published.map((r) => r.seq)}::bigint[])`;
      if (refused.size > 0) await this.setAside(tx, rows, refused);
      metrics.outboxPublished.inc({ service: schema }, published.length);
      return rows.length;
    });
  }

  /** Marks refused events to be tried again after `refusedRetryMs`; logged without their payload, counted. */
  private async setAside(tx: Db, rows: readonly OutboxRow[], refused: ReadonlyMap<string, string>): Promise<void> {
    const { schema, log } = this.opts;
    await tx`
      update outbox set refused_at = now(), refused_error = r.error
      from unnest(${[...refused.keys()]}::bigint[], ${[...refused.values()]}::text[]) as r(seq, error)
      where outbox.seq = r.seq`;
    for (const row of rows) {
      const error = refused.get(row.seq);
      if (error === undefined) continue;
      metrics.outboxRefused.inc({ service: schema });
      // The payload stays out of the log: it may hold a transcript's words.
      log.error(
        { eventId: row.event_id, subject: row.subject, bytes: Buffer.byteLength(row.payload), error, retryInMs: this.refusedRetryMs },
        "the message server refused an event for good; it is set aside and tried again later (raise NATS max_payload if it is over it)",
      );
    }
  }
}

/** A publish the server will refuse however often it is tried: the message is over max_payload. */
function refusedForGood(e: unknown): boolean {
  const message = String((e as Error | undefined)?.message ?? "");
  return /max_payload|maximum payload|message size exceeds/i.test(message);
}
