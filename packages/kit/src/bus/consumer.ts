// Idempotent event consumers: a durable pull consumer whose handler runs in one DB transaction with
// an inbox row (consumer, event_id); failures nak with backoff; poison events go to the dead-letter stream.
import { AckPolicy, DeliverPolicy, type Consumer, type JsMsg } from "@nats-io/jetstream";
import { headers } from "@nats-io/transport-node";
import { DLQ_STREAM, InvalidEventError, STREAMS, parseEvent, type EventType, type ScribeEvent, type StreamName } from "@scribe/contracts";
import type { Logger } from "pino";
import { systemClock, type Clock } from "../clock";
import type { Sql, Tx } from "../db";
import { isAppError } from "../errors";
import type { LeaseSession } from "../lease";
import { metrics } from "../metrics";
import type { Bus } from "./connection";

export interface HandlerContext {
  log: Logger;
  /** Stream sequence of the message (useful for replay bookkeeping). */
  streamSeq: number;
}
export type EventHandler<T extends EventType> = (tx: Tx, event: ScribeEvent<T>, ctx: HandlerContext) => Promise<void>;
export type EventHandlers = { [T in EventType]?: EventHandler<T> };
/** The fresh events of a batch (each has a handler, none applied before), in stream order. */
export type BatchHandler = (tx: Tx, events: { event: ScribeEvent; ctx: HandlerContext }[], prepared?: unknown) => Promise<void>;

export interface ConsumerOptions {
  bus: Bus;
  sql: Sql;
  log: Logger;
  /** Durable name and inbox key, e.g. `projection.rooms`. Stable across deployments. */
  name: string;
  stream: StreamName;
  /** Logical filter subject; default: the whole stream. Single filter (nats-server 2.9). */
  filterSubject?: string;
  /**
   * Handlers change only this service's database through `tx` (side effects such as HTTP calls go
   * through tables a job works off): a handler may run again after a rollback or a redelivery.
   */
  handlers: EventHandlers;
  /**
   * Optional: applies a whole batch's fresh events at once, with the same effect as running their
   * handlers one after another (e.g. one statement per event, sent pipelined: one round trip for
   * the batch). Used on the fast path; when it throws, the batch is redone event by event with
   * `handlers` (one savepoint each), so a failing event is retried or dead-lettered alone as usual.
   */
  batchHandler?: BatchHandler;
  /**
   * Optional, with batchHandler: the part of applying a batch that needs no database (folding,
   * serialising what will be sent), run on its events while the batch before it is applied. The
   * result is handed to batchHandler as `prepared` when it applies exactly those events; when the
   * inbox knew one of them it is not, and the handler prepares the new ones itself.
   */
  prepareBatch?: (events: readonly ScribeEvent[]) => unknown;
  /** Where a new consumer starts: the whole history (read models) or only new events (side effects). */
  deliverPolicy?: "all" | "new";
  /** Deliveries allowed before a failing event is dead-lettered. */
  maxDeliver?: number;
  ackWaitMs?: number;
  batchSize?: number;
  backoffMs?: (deliveryCount: number) => number;
  /** Stamps dead letters with the time they were set aside (the service's clock). */
  clock?: Clock;
  /**
   * One replica at a time applies this consumer, so its events are applied in stream order (a read
   * model whose versions mean "everything up to here"). The replicas share a lease (lease.ts); the
   * others wait for it, and the one that takes it over first lets the events its predecessor was
   * given be acknowledged, or (a predecessor that died) come back after ackWaitMs, so they are
   * applied before the ones after them. Without it, replicas share the stream's events between
   * them and apply them side by side. Needs `leases`.
   */
  exclusive?: boolean;
  /** The service instance's lease session (the runtime gives its own); required with `exclusive`. */
  leases?: LeaseSession;
}

/** How long one pull round waits for messages; bounds how long stop() can take. */
const PULL_EXPIRES_MS = 1000;
/** How often a replica waiting for an exclusive consumer's lease tries to take it. */
const LEASE_RETRY_MS = 1000;
/** How often a new lease holder asks whether its predecessor's events have been acknowledged. */
const HANDOVER_POLL_MS = 100;

export const defaultBackoff = (deliveryCount: number) => Math.min(60_000, 500 * 2 ** Math.max(0, deliveryCount - 1));

/** JetStream durable names may not contain '.', '*', '>' or whitespace. */
export function durableName(name: string): string {
  return name.replace(/[.*>\s]/g, "_");
}

/** Thrown inside the fast path to abandon the batch; the isolated path finds who failed. */
class HandlerFailed extends Error {
  constructor(readonly error: unknown) {
    super("handler failed");
  }
}

/** Thrown inside the fast path when the inbox knew an event the batch handler was given as new. */
class SeenBefore extends Error {
  constructor() {
    super("the batch holds an event applied before");
  }
}

/** How long parsing the next batch holds the event loop before the batch being applied may go on. */
const PARSE_SLICE_MS = 1;

interface ParsedBatch {
  events: { m: JsMsg; event: ScribeEvent }[];
  /** Messages that are not a valid event: dead-lettered when their batch's turn comes. */
  poison: { m: JsMsg; reason: string }[];
  /** prepareBatch's result for the events that have a handler. */
  prepared?: unknown;
}

type Outcome = { kind: "applied" | "duplicate" | "ignored" } | { kind: "failed"; error: unknown; permanent: boolean };

export class ConsumerRunner {
  private buffer: JsMsg[] = [];
  private kick: (() => void) | null = null;
  /** Wakes the puller once the worker has made room in the buffer. */
  private drained: (() => void) | null = null;
  private stopping = false;
  /** The puller has stopped: no message will be added to the buffer. */
  private pulled = false;
  private pump: Promise<void> | null = null;
  private worker: Promise<void> | null = null;
  readonly durable: string;
  private readonly maxDeliver: number;
  private readonly batchSize: number;
  private readonly backoff: (n: number) => number;
  private readonly lease: LeaseSession | null;
  private readonly leaseName: string;
  /** Wakes a replica waiting for the lease, or for its predecessor's events, when it is stopped. */
  private wakeWaiting: (() => void) | null = null;

  constructor(private readonly opts: ConsumerOptions) {
    this.durable = durableName(opts.name);
    this.maxDeliver = opts.maxDeliver ?? 8;
    this.batchSize = opts.batchSize ?? 100;
    this.backoff = opts.backoffMs ?? defaultBackoff;
    if (opts.exclusive && !opts.leases) throw new Error(`consumer ${opts.name}: exclusive needs a lease session (leases)`);
    this.lease = opts.exclusive ? opts.leases! : null;
    this.leaseName = `consumer:${opts.bus.prefix}:${this.opts.stream}:${this.durable}`;
  }

  /**
   * Whether a full batch waits beyond the one being applied: the consumer is behind its stream (a
   * burst, or catching up after downtime). Background work of the same service may give way then.
   */
  get behind(): boolean {
    return this.buffer.length >= this.batchSize;
  }

  /**
   * Messages the server hands out before they are acknowledged: the batch being applied, the one
   * parsed meanwhile, and two more arriving. With two batches only, the batch after the one parsed
   * was requested only once the applied one was acknowledged, and its parse waited on its arrival
   * (a quarter of each projection batch, `pnpm bench projection`).
   */
  private get maxAckPending(): number {
    return Math.max(1000, this.batchSize * 4);
  }

  /** Create or update the durable consumer on the server (idempotent). */
  async ensure(): Promise<void> {
    const { bus } = this.opts;
    const stream = bus.stream(this.opts.stream);
    const config = {
      durable_name: this.durable,
      // The name operators see (`scribe streams`, metrics' `consumer` label, the DLQ): the durable
      // name cannot hold its dots.
      description: this.opts.name,
      ack_policy: AckPolicy.Explicit,
      ack_wait: (this.opts.ackWaitMs ?? 30_000) * 1_000_000,
      // Unlimited on the server: the runner dead-letters after maxDeliver handler failures itself,
      // so an event whose worker crashed is redelivered rather than silently abandoned.
      max_deliver: -1,
      max_ack_pending: this.maxAckPending,
      filter_subject: bus.subject(this.opts.filterSubject ?? `${STREAMS[this.opts.stream].context}.>`),
      deliver_policy: this.opts.deliverPolicy === "new" ? DeliverPolicy.New : DeliverPolicy.All,
    };
    const existing = await bus.jsm.consumers.info(stream, this.durable).catch(() => null);
    if (!existing) {
      await bus.jsm.consumers.add(stream, config);
    } else if (
      existing.config.ack_wait !== config.ack_wait ||
      existing.config.filter_subject !== config.filter_subject ||
      existing.config.description !== config.description ||
      existing.config.max_ack_pending !== config.max_ack_pending
    ) {
      await bus.jsm.consumers.update(stream, this.durable, {
        ack_wait: config.ack_wait,
        filter_subject: config.filter_subject,
        description: config.description,
        max_ack_pending: config.max_ack_pending,
      });
    }
  }

  async start(): Promise<void> {
    await this.ensure();
    const consumer = await this.opts.bus.js.consumers.get(this.opts.bus.stream(this.opts.stream), this.durable);
    this.pump = this.pull(consumer);
    this.worker = this.work();
  }

  /**
   * Pull in bounded rounds rather than with consume(): on stop the round in flight completes, so
   * every message the server delivered is handled and acked instead of waiting out ack_wait.
   */
  private async pull(consumer: Consumer): Promise<void> {
    let failures = 0;
    let leased = false;
    while (!this.stopping) {
      // Up to three batches ahead: what maxAckPending lets the server send beside the batch being applied.
      if (this.buffer.length >= this.batchSize * 3) {
        await new Promise<void>((resolve) => (this.drained = resolve));
        continue;
      }
      if (this.lease && !(leased && (await this.lease.holds(this.leaseName)))) {
        if (leased) this.leaseLost();
        leased = await this.takeLease();
        continue;
      }
      try {
        const round = await consumer.fetch({ max_messages: this.batchSize, expires: PULL_EXPIRES_MS });
        for await (const m of round) {
          this.buffer.push(m);
          this.kick?.();
        }
        failures = 0;
      } catch (e) {
        failures++;
        this.opts.log.warn({ err: e, consumer: this.opts.name, failures }, "pull failed; retrying");
        await new Promise((r) => setTimeout(r, Math.min(10_000, 200 * 2 ** Math.min(failures, 6))));
      }
    }
    // The worker ends once this round's messages are in the buffer, not before.
    this.pulled = true;
    this.kick?.();
  }

  /**
   * Waits until this replica holds the exclusive lease and its predecessor's events are settled
   * (see ConsumerOptions.exclusive); false when stopped meanwhile.
   */
  private async takeLease(): Promise<boolean> {
    const { log, name, bus } = this.opts;
    let waitingLogged = false;
    while (!this.stopping) {
      const acquired = await this.lease!.tryAcquire(this.leaseName).catch((e: unknown) => {
        log.warn({ err: e, consumer: name }, "could not ask for the consumer's lease; retrying");
        return false;
      });
      if (acquired) break;
      if (!waitingLogged) log.info({ consumer: name }, "another replica applies this consumer: standing by");
      waitingLogged = true;
      await this.pause(LEASE_RETRY_MS);
    }
    if (this.stopping) return false;
    // Events given to the replica before are applied and acknowledged first; those of one that died
    // come back once their ack wait is over, and a pull then hands them out before any later one.
    const until = performance.now() + (this.opts.ackWaitMs ?? 30_000) + 2_000;
    for (;;) {
      const info = await bus.jsm.consumers.info(bus.stream(this.opts.stream), this.durable).catch(() => null);
      if ((info && info.num_ack_pending === 0) || performance.now() >= until || this.stopping) break;
      await this.pause(HANDOVER_POLL_MS);
    }
    log.info({ consumer: name }, "this replica applies the consumer now (lease taken)");
    return !this.stopping;
  }

  /** The lease went with its session: what was pulled and not yet applied goes back, in order. */
  private leaseLost(): void {
    const unapplied = this.buffer.splice(0);
    this.opts.log.warn({ consumer: this.opts.name, returned: unapplied.length }, "lost the consumer's lease: handing its events back");
    for (const m of unapplied) m.nak();
  }

  private pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => ((this.wakeWaiting = null), resolve()), ms);
      this.wakeWaiting = () => (clearTimeout(timer), resolve());
    });
  }

  /** Stop pulling, finish what was already received, then return (and give the lease up). */
  async stop(): Promise<void> {
    this.stopping = true;
    this.drained?.();
    this.wakeWaiting?.();
    await this.pump;
    this.kick?.();
    await this.worker;
    await this.lease?.release(this.leaseName).catch(() => {});
  }

  /**
   * Batches are applied one after another; each is parsed while the one before it waits on the
   * database (parsing took a fifth of a batch of transcript events, `pnpm bench projection`).
   */
  private async work(): Promise<void> {
    let batch = await this.nextBatch(() => true);
    while (batch) {
      let applied = false;
      const applying = this.applyParsed(batch)
        .catch((e) => {
          // Only reached if acking/nak-ing itself failed (connection lost): redelivery covers it.
          this.opts.log.error({ err: e, consumer: this.opts.name }, "consumer batch bookkeeping failed");
        })
        .finally(() => {
          applied = true;
          this.kick?.();
        });
      const next = this.nextBatch(() => applied);
      await applying;
      batch = await next;
    }
  }

  /**
   * The next batch, parsed: a full one as soon as the buffer holds it, otherwise what the buffer
   * holds once `free()` (the batch before has been applied); null when stopped with nothing left.
   */
  private async nextBatch(free: () => boolean): Promise<ParsedBatch | null> {
    for (;;) {
      if (this.buffer.length >= this.batchSize || (this.buffer.length > 0 && free())) return this.parse(this.takeBatch());
      if (this.buffer.length === 0 && this.pulled && free()) return null;
      await new Promise<void>((resolve) => (this.kick = resolve));
      this.kick = null;
    }
  }

  private takeBatch(): JsMsg[] {
    const batch = this.buffer.splice(0, this.batchSize);
    if (this.buffer.length < this.batchSize) this.drained?.();
    return batch;
  }

  /**
   * Parse in slices of about PARSE_SLICE_MS, each a task of its own, so that the batch being applied
   * meanwhile goes on as soon as each of its round trips answers (a promise's continuation
   * would run before the I/O it waits for). Never rejects: what does not parse is poison.
   */
  private async parse(batch: JsMsg[]): Promise<ParsedBatch> {
    const parsed: ParsedBatch = { events: [], poison: [] };
    let sliceEnd = 0;
    for (const m of batch) {
      if (performance.now() >= sliceEnd) {
        await new Promise((resolve) => setImmediate(resolve));
        sliceEnd = performance.now() + PARSE_SLICE_MS;
      }
      try {
        parsed.events.push({ m, event: parseEvent(m.data) });
      } catch (e) {
        const reason = e instanceof InvalidEventError ? e.message : `unparseable event: ${(e as Error).message}`;
        parsed.poison.push({ m, reason });
      }
    }
    const { batchHandler, prepareBatch } = this.opts;
    if (batchHandler && prepareBatch) {
      await new Promise((resolve) => setImmediate(resolve));
      try {
        parsed.prepared = prepareBatch(parsed.events.filter(({ event }) => this.handlerFor(event)).map(({ event }) => event));
      } catch {
        // The batch handler prepares the batch itself and fails there, on the path that finds the failing event.
      }
    }
    return parsed;
  }

  /** Apply a batch in one transaction: fast path first, per-event savepoints when something fails. */
  private async applyParsed({ events: parsed, poison, prepared }: ParsedBatch): Promise<void> {
    const { log, name } = this.opts;
    for (const { m, reason } of poison) {
      log.error({ consumer: name, streamSeq: m.seq, subject: m.subject, reason }, "poison event: dead-lettered");
      await this.deadLetter(m, reason);
    }
    if (parsed.length === 0) return;

    let outcomes: Map<JsMsg, Outcome>;
    try {
      outcomes = await this.applyFast(parsed, prepared).catch(async (e) => {
        if (!(e instanceof HandlerFailed)) throw e;
        // Some handler failed: redo the batch one savepoint per event so the others still apply.
        return this.applyIsolated(parsed);
      });
    } catch (e) {
      // The transaction itself failed (database down): nothing was applied; retry all, no dead-lettering.
      log.warn({ err: e, consumer: name, count: parsed.length }, "consumer transaction failed; will retry");
      for (const { m } of parsed) m.nak(this.backoff(m.info.deliveryCount));
      return;
    }

    for (const { m } of parsed) {
      metrics.consumerLag.set({ consumer: name }, m.info.pending);
      const outcome = outcomes.get(m)!;
      if (outcome.kind !== "failed") {
        metrics.eventsApplied.inc({ consumer: name, outcome: outcome.kind });
        m.ack();
        continue;
      }
      metrics.eventsApplied.inc({ consumer: name, outcome: "failed" });
      if (outcome.permanent || m.info.deliveryCount >= this.maxDeliver) {
        await this.deadLetter(m, `${(outcome.error as Error)?.message ?? String(outcome.error)}`);
      } else {
        m.nak(this.backoff(m.info.deliveryCount));
      }
    }
  }

  private handlerFor(event: ScribeEvent): EventHandler<EventType> | undefined {
    return this.opts.handlers[event.type] as EventHandler<EventType> | undefined;
  }
  /** The event's logger is made when a handler first uses it (a batch handler of 500 events mostly does not). */
  private contextFor(event: ScribeEvent, m: JsMsg): HandlerContext {
    const { log, name } = this.opts;
    let child: Logger | null = null;
    return {
      get log() {
        return (child ??= log.child({ consumer: name, eventId: event.id, eventType: event.type }));
      },
      streamSeq: m.seq,
    };
  }

  /**
   * Common case, no failures: one transaction, one multi-row inbox insert, handlers run back to
   * back (or the batch handler once). Any handler error rolls the whole batch back (HandlerFailed) for the isolated path.
   * A batch handler is sent right behind the inbox insert, as if every event were new (a round trip
   * and its statements' preparation fewer per batch); when the inbox knew one of them, the
   * transaction is rolled back and the batch redone with the inbox's answer first.
   */
  private async applyFast(parsed: { m: JsMsg; event: ScribeEvent }[], prepared: unknown, assumeFresh = true): Promise<Map<JsMsg, Outcome>> {
    const outcomes = new Map<JsMsg, Outcome>();
    const handled = parsed.filter(({ m, event }) => {
      if (this.handlerFor(event)) return true;
      outcomes.set(m, { kind: "ignored" });
      return false;
    });
    if (handled.length === 0) return outcomes;
    const { batchHandler } = this.opts;
    const batchOf = (events: typeof handled) => events.map(({ m, event }) => ({ event, ctx: this.contextFor(event, m) }));
    try {
      await this.opts.sql.begin(async (tx) => {
        const inserting = tx<{ event_id: string }[]>`insert into inbox (consumer, event_id)
          select ${this.opts.name}, unnest(${handled.map((p) => p.event.id)}::uuid[])
          on conflict do nothing returning event_id`.execute();
        if (batchHandler && assumeFresh) {
          const [inserted, applied] = await Promise.allSettled([inserting, batchHandler(tx, batchOf(handled), prepared)]);
          if (inserted.status === "rejected") throw inserted.reason;
          if (inserted.value.length < handled.length) throw new SeenBefore();
          if (applied.status === "rejected") throw new HandlerFailed(applied.reason);
          for (const { m } of handled) outcomes.set(m, { kind: "applied" });
          return;
        }
        const toApply = new Set((await inserting).map((r) => r.event_id));
        const applying: { m: JsMsg; event: ScribeEvent }[] = [];
        for (const p of handled) {
          // A second copy of an event within one batch is a duplicate too.
          if (toApply.delete(p.event.id)) applying.push(p);
          else outcomes.set(p.m, { kind: "duplicate" });
        }
        try {
          if (batchHandler && applying.length > 0) await batchHandler(tx, batchOf(applying));
          else for (const { m, event } of applying) await this.handlerFor(event)!(tx, event as never, this.contextFor(event, m));
        } catch (error) {
          throw new HandlerFailed(error);
        }
        for (const { m } of applying) outcomes.set(m, { kind: "applied" });
      });
    } catch (e) {
      if (e instanceof SeenBefore) return this.applyFast(parsed, undefined, false);
      throw e;
    }
    return outcomes;
  }

  /** One savepoint per event: a failing event is rolled back alone (with its inbox row). */
  private async applyIsolated(parsed: { m: JsMsg; event: ScribeEvent }[]): Promise<Map<JsMsg, Outcome>> {
    const outcomes = new Map<JsMsg, Outcome>();
    await this.opts.sql.begin(async (tx) => {
      for (const { m, event } of parsed) {
        const handler = this.handlerFor(event);
        if (!handler) {
          outcomes.set(m, { kind: "ignored" });
          continue;
        }
        const ctx = this.contextFor(event, m);
        try {
          const applied = await tx.savepoint(async (sp) => {
            const rows = await sp`insert into inbox (consumer, event_id) values (${this.opts.name}, ${event.id})
              on conflict do nothing returning event_id`;
            if (rows.length === 0) return false;
            await handler(sp as unknown as Tx, event as never, ctx);
            return true;
          });
          outcomes.set(m, { kind: applied ? "applied" : "duplicate" });
        } catch (error) {
          const permanent = isAppError(error) && error.kind === "invalid";
          outcomes.set(m, { kind: "failed", error, permanent });
          ctx.log.warn({ err: error, deliveries: m.info.deliveryCount }, "event handler failed");
        }
      }
    });
    return outcomes;
  }

  /** Copy the event to the dead-letter stream with why it failed, then stop its redelivery. */
  private async deadLetter(m: JsMsg, reason: string): Promise<void> {
    const { bus } = this.opts;
    const h = headers();
    h.set("Scribe-Dlq-Consumer", this.opts.name);
    h.set("Scribe-Dlq-Reason", reason.replace(/[\r\n]+/g, " ").slice(0, 1000));
    h.set("Scribe-Dlq-Stream", m.info.stream);
    h.set("Scribe-Dlq-Stream-Seq", String(m.seq));
    h.set("Scribe-Dlq-Subject", m.subject);
    h.set("Scribe-Dlq-Deliveries", String(m.info.deliveryCount));
    h.set("Scribe-Dlq-Time", (this.opts.clock ?? systemClock)().toISOString());
    await bus.js.publish(bus.subject(`${DLQ_STREAM.context}.${this.durable}`), m.data, {
      headers: h,
      msgID: `dlq:${this.durable}:${m.info.stream}:${m.seq}`,
    });
    metrics.deadLettered.inc({ consumer: this.opts.name });
    // No reason argument: "+TERM <reason>" is a 2.10 feature that nats-server 2.9 ignores.
    m.term();
  }
}
