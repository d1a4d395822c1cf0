// The worker: pulls step messages per queue in bounded fetch() rounds (never more than its free
// slots), claims the step in Postgres, runs the handler with an AbortSignal (timeout, cancellation,
// shutdown) while keeping the message alive with in-progress acks, and records the outcome. A step
// whose worker stopped responding comes back after the short ack wait and is retried on its own
// lost-worker budget, apart from the step's own failures.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Consumer, JsMsg } from "@nats-io/jetstream";
import { z } from "zod";
import type { Bus, Logger, Sql } from "@scribe/kit";
import { ensureQueueConsumer, ensureWorkflowStream, WORKFLOW_STREAM } from "./bus";
import { defineQueue, queuesOf, retryDelayMs, type AnyWorkflow, type Backoff, type Json, type Queue, type StepContext } from "./definition";
import { CommitHookError, completeStep, failStep, parentOutputs, retryLater, type OwnedStep } from "./engine";
import { describeError, isRetryable, StepAbort } from "./errors";
import { workflowMetrics as metrics } from "./metrics";
import * as store from "./store";

export interface WorkerOptions {
  /** Pool bound to the service's schema (the workflow tables and the outbox live there). */
  sql: Sql;
  bus: Bus;
  log: Logger;
  workflows: readonly AnyWorkflow[];
  /** Serve only these queues (e.g. a CPU pool that only mixes down); default: every queue the workflows use. */
  queues?: readonly string[];
  /** Steps of a queue this process runs at once; default min(queue concurrency, 16). */
  slots?: Readonly<Record<string, number>>;
  /**
   * Cluster-wide limits that replace the queues' declared concurrency (configuration, e.g. more
   * speech-to-text at once on bigger machines). Every worker of a queue should be given the same:
   * the last one to start sets the shared consumer's limit.
   */
  concurrency?: Readonly<Record<string, number>>;
  /**
   * Silence after which a step is redelivered to another worker, i.e. how soon a killed worker's
   * steps (and their concurrency slots) are taken over. A live worker sends in-progress acks five
   * times per ack wait from receiving a message until it settles it.
   */
  ackWaitMs?: number;
  /**
   * Attempts in a row whose worker stopped responding (killed, evicted, hung) after which the step
   * fails: such attempts do not use up the step's own `maxAttempts`, and a step that brings its
   * worker down every time still ends, with a reason that says so.
   */
  lostWorkerAttempts?: number;
  /** Waits before retrying after the 2nd, 3rd… lost attempt in a row (the first is retried at once). */
  lostWorkerBackoff?: Partial<Backoff>;
  /** On stop, how long running steps may finish before they are aborted and handed back. */
  stopGraceMs?: number;
  /** Length of one pull round, at least 1000 (the client refuses less); bounds how long stop() waits for the pullers. */
  pullExpiresMs?: number;
  workerId?: string;
}

export const DEFAULT_ACK_WAIT_MS = 5000;
export const DEFAULT_LOST_WORKER_ATTEMPTS = 6;
export const DEFAULT_LOST_WORKER_BACKOFF: Backoff = { initialMs: 1000, factor: 2, maxMs: 60_000 };
const DEFAULT_SLOTS_CAP = 16;
/** ctx.heartbeat() writes progress to Postgres at most this often. */
const PROGRESS_WRITE_MS = 2000;
/** A running attempt checks in Postgres this often that the step is still its own (a missed abort NOTIFY). */
const OWNERSHIP_CHECK_MS = 5000;

const StepMessageSchema = z.object({ run: z.uuid(), step: z.string().regex(/^\d+$/), token: z.uuid() });

interface QueueLoop {
  queue: Queue;
  durable: string;
  slots: number;
  active: number;
  wake: (() => void) | null;
  done: Promise<void> | null;
}

interface InFlight {
  runId: string;
  ac: AbortController;
}

type Claimed =
  | { kind: "drop"; why: string }
  | { kind: "unknown"; workflow: string; step: string }
  | { kind: "lost"; owned: OwnedStep; wf: AnyWorkflow; inARow: number; worker: string | null }
  | { kind: "invalid_input"; owned: OwnedStep; wf: AnyWorkflow; error: string }
  | { kind: "run"; owned: OwnedStep; wf: AnyWorkflow; parents: Record<string, unknown>; item: unknown; maxAttempts: number };

export class WorkflowWorker {
  readonly id: string;
  private readonly workflows = new Map<string, AnyWorkflow>();
  private readonly loops: QueueLoop[] = [];
  private readonly inflight = new Set<InFlight>();
  private readonly handlers = new Set<Promise<void>>();
  private readonly ackWaitMs: number;
  private readonly lostWorkerAttempts: number;
  private readonly lostWorkerBackoff: Backoff;
  private schema = "";
  private stopping = false;
  private unlisten: (() => Promise<void>) | null = null;

  constructor(private readonly opts: WorkerOptions) {
    this.id = opts.workerId ?? `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
    this.ackWaitMs = opts.ackWaitMs ?? DEFAULT_ACK_WAIT_MS;
    this.lostWorkerAttempts = opts.lostWorkerAttempts ?? DEFAULT_LOST_WORKER_ATTEMPTS;
    if (!Number.isInteger(this.lostWorkerAttempts) || this.lostWorkerAttempts < 1)
      throw new Error("lostWorkerAttempts must be a positive integer");
    this.lostWorkerBackoff = { ...DEFAULT_LOST_WORKER_BACKOFF, ...opts.lostWorkerBackoff };
    for (const wf of opts.workflows) {
      if (this.workflows.has(wf.name)) throw new Error(`workflow ${wf.name} is registered twice`);
      this.workflows.set(wf.name, wf);
    }
  }

  /** Steps running in this process now. */
  get running(): number {
    return this.inflight.size;
  }

  async start(): Promise<void> {
    const { sql, bus } = this.opts;
    this.schema = await store.currentSchema(sql);
    const all = queuesOf([...this.workflows.values()]);
    const served = this.opts.queues ? [...all.values()].filter((q) => this.opts.queues!.includes(q.name)) : [...all.values()];
    await ensureWorkflowStream(bus);
    for (const declared of served) {
      const limit = this.opts.concurrency?.[declared.name];
      const queue = limit === undefined ? declared : defineQueue(declared.name, { concurrency: limit });
      const durable = await ensureQueueConsumer(bus, { schema: this.schema, queue, ackWaitMs: this.ackWaitMs });
      const slots = this.opts.slots?.[queue.name] ?? Math.min(queue.concurrency, DEFAULT_SLOTS_CAP);
      this.loops.push({ queue, durable, slots, active: 0, wake: null, done: null });
    }
    // Cancellation and run failure reach running handlers at once through NOTIFY (sent on commit);
    // the periodic heartbeat check below covers a missed notification.
    const listener = await sql.listen(`${this.schema}_workflow_abort`, (runId) => this.abortRun(runId, "the run was cancelled or failed"));
    this.unlisten = listener.unlisten;
    for (const loop of this.loops) {
      const consumer = await bus.js.consumers.get(bus.stream(WORKFLOW_STREAM), loop.durable);
      loop.done = this.pull(loop, consumer);
    }
    this.opts.log.info({ worker: this.id, queues: this.loops.map((l) => `${l.queue.name}×${l.slots}`) }, "workflow worker started");
  }

  /** Stop pulling; give running steps `stopGraceMs` to finish, then abort and hand them back (no attempt used). */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    for (const loop of this.loops) loop.wake?.();
    await Promise.all(this.loops.flatMap((l) => (l.done ? [l.done] : [])));
    const grace = this.opts.stopGraceMs ?? 10_000;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(this.handlers), new Promise((r) => (timer = setTimeout(r, grace)))]);
    clearTimeout(timer);
    for (const f of this.inflight) f.ac.abort(new StepAbort("worker_stopping", "the worker is stopping"));
    await Promise.all(this.handlers);
    await this.unlisten?.().catch(() => {});
    this.opts.log.info({ worker: this.id }, "workflow worker stopped");
  }

  private abortRun(runId: string, why: string): void {
    for (const f of this.inflight) if (f.runId === runId) f.ac.abort(new StepAbort("run_stopped", why));
  }

  /** Bounded fetch() rounds asking for as many messages as there are free slots (see docs/DEVELOPING.md on consume()). */
  private async pull(loop: QueueLoop, consumer: Consumer): Promise<void> {
    let failures = 0;
    while (!this.stopping) {
      const free = loop.slots - loop.active;
      if (free <= 0) {
        await new Promise<void>((resolve) => (loop.wake = resolve));
        loop.wake = null;
        continue;
      }
      try {
        const round = await consumer.fetch({ max_messages: free, expires: Math.max(1000, this.opts.pullExpiresMs ?? 1000) });
        for await (const m of round) {
          loop.active++;
          const p: Promise<void> = this.handle(m)
            .catch((e) => this.opts.log.error({ err: e, queue: loop.queue.name }, "step message handling failed"))
            .finally(() => {
              loop.active--;
              this.handlers.delete(p);
              loop.wake?.();
            });
          this.handlers.add(p);
        }
        failures = 0;
      } catch (e) {
        failures++;
        this.opts.log.warn({ err: e, queue: loop.queue.name, failures }, "workflow pull failed; retrying");
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, Math.min(10_000, 200 * 2 ** Math.min(failures, 6)));
          loop.wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
        loop.wake = null;
      }
    }
  }

  private async handle(m: JsMsg): Promise<void> {
    const parsed = StepMessageSchema.safeParse(safeJson(m.data));
    if (!parsed.success) {
      // Not ours to understand (written by something else on our subject): never redeliver it.
      this.opts.log.error({ subject: m.subject, seq: m.seq }, "unreadable workflow step message; dropped");
      m.term();
      return;
    }
    // From here until the message is settled (claim, handler, recording the outcome) the server
    // must not think us dead: only a worker that stopped responding loses its message.
    const inProgress = setInterval(() => m.working(), Math.max(100, Math.floor(this.ackWaitMs / 5)));
    try {
      await this.settle(m, parsed.data);
    } finally {
      clearInterval(inProgress);
    }
  }

  private async settle(m: JsMsg, msg: z.infer<typeof StepMessageSchema>): Promise<void> {
    const claimed = await this.claim(msg);
    switch (claimed.kind) {
      case "drop":
        this.opts.log.debug({ runId: msg.run, stepId: msg.step, why: claimed.why }, "step message dropped");
        m.ack();
        return;
      case "unknown":
        // Probably a newer release knows it (rolling deploy): leave it for a worker that does.
        this.opts.log.error(
          { runId: msg.run, workflow: claimed.workflow, step: claimed.step },
          "no definition for this step in this worker",
        );
        m.nak(60_000);
        return;
      case "lost":
        await this.retryLost(m, claimed);
        return;
      case "invalid_input":
        await this.finishFailure(m, claimed.wf, claimed.owned, claimed.error, false);
        return;
      case "run":
        await this.execute(m, claimed);
    }
  }

  /** Take an attempt if the message is current and the step still to do; otherwise say why not. */
  private async claim(msg: z.infer<typeof StepMessageSchema>): Promise<Claimed> {
    const { sql } = this.opts;
    const taken = await store.claimStep(sql, msg.step, msg.token, this.id);
    const row = taken ?? (await store.inspectStep(sql, msg.step));
    if (!row || row.run_id !== msg.run) return { kind: "drop", why: "no such step" };
    const claimed = taken !== null;
    const wf = this.workflows.get(row.workflow);
    const def = wf?.steps.get(row.step);
    const input = wf ? wf.input.safeParse(row.input) : null;
    const run = { id: row.run_id, workflow: row.workflow, subject: row.subject, input: input?.success ? input.data : row.input };
    const log = this.opts.log.child({ workflow: row.workflow, runId: row.run_id, step: row.step, index: row.item_index });
    if (!claimed) {
      if (row.token !== msg.token) return { kind: "drop", why: "message of an earlier enqueue (the step was reset since)" };
      if (row.run_status !== "running") return { kind: "drop", why: `run is ${row.run_status}` };
      // Still "running" though its message came back after the ack wait: the attempt's worker stopped responding.
      if (row.status === "running" && wf && def) {
        const owned = {
          stepId: row.id,
          attempt: row.attempts,
          ownAttempt: row.attempts - row.lost_attempts,
          def,
          run,
          index: row.item_index,
          log,
        };
        return { kind: "lost", wf, owned, inARow: row.lost_in_a_row + 1, worker: row.worker };
      }
      return { kind: "drop", why: `step is ${row.status}` };
    }
    if (!wf || !def) {
      // Give the attempt back: a worker that knows this step should take it.
      await store.releaseStep(sql, row.id, row.attempts);
      return { kind: "unknown", workflow: row.workflow, step: row.step };
    }
    const ownAttempt = row.attempts - row.lost_attempts;
    const owned: OwnedStep = {
      stepId: row.id,
      attempt: row.attempts,
      ownAttempt,
      def,
      run,
      index: row.item_index,
      log: log.child({ attempt: ownAttempt, ...(row.lost_attempts > 0 ? { lostAttempts: row.lost_attempts } : {}) }),
    };
    if (!input!.success)
      return { kind: "invalid_input", wf, owned, error: `run input no longer matches the workflow's schema: ${input!.error.message}` };
    const parents = await parentOutputs(sql, wf, row.run_id, def);
    const item = def.kind === "of" ? await store.itemOutput(sql, row.run_id, def.of!, row.item_index!) : row.item;
    return { kind: "run", wf, owned, parents, item: item ?? undefined, maxAttempts: row.max_attempts };
  }

  private async execute(m: JsMsg, c: Extract<Claimed, { kind: "run" }>): Promise<void> {
    const { owned, wf } = c;
    const { def } = owned;
    const labels = { workflow: wf.name, step: def.name, queue: def.queue.name };
    metrics.started.inc(labels);
    const startedAt = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - startedAt) / 1e9;
    const ac = new AbortController();
    const flight: InFlight = { runId: owned.run.id, ac };
    this.inflight.add(flight);

    let pendingProgress: Json | undefined;
    let lastWrite = -Infinity;
    const beat = async () => {
      lastWrite = performance.now();
      const progress = pendingProgress;
      pendingProgress = undefined;
      try {
        if (!(await store.heartbeat(this.opts.sql, owned.stepId, owned.attempt, progress))) {
          ac.abort(new StepAbort("run_stopped", "the step is no longer this attempt's (run stopped or step taken over)"));
        }
      } catch (e) {
        owned.log.warn({ err: e }, "heartbeat write failed");
      }
    };
    const timer = setTimeout(() => ac.abort(new StepAbort("timeout", `step timed out after ${def.timeoutMs} ms`)), def.timeoutMs);
    const ownershipCheck = setInterval(() => void beat(), OWNERSHIP_CHECK_MS);

    const ctx: StepContext<unknown, Record<string, unknown>, unknown> = {
      runId: owned.run.id,
      workflow: wf.name,
      step: def.name,
      index: owned.index,
      attempt: owned.ownAttempt,
      maxAttempts: c.maxAttempts,
      subject: owned.run.subject,
      input: owned.run.input,
      parents: c.parents,
      item: c.item,
      signal: ac.signal,
      log: owned.log,
      heartbeat: (progress?: Json) => {
        if (progress !== undefined) pendingProgress = progress;
        if (performance.now() - lastWrite >= PROGRESS_WRITE_MS) void beat();
      },
    };

    let result: { ok: true; value: unknown } | { ok: false; error: unknown };
    try {
      result = {
        ok: true,
        value: await abortable(
          Promise.resolve().then(() => def.run(ctx)),
          ac.signal,
        ),
      };
    } catch (error) {
      result = { ok: false, error };
    } finally {
      clearTimeout(timer);
      clearInterval(ownershipCheck);
      this.inflight.delete(flight);
    }

    if (result.ok) {
      const outcome = await this.record(m, () => completeStep(this.opts.sql, wf, owned, result.value)).catch((e: unknown) => {
        if (!(e instanceof CommitHookError)) throw e;
        return e;
      });
      if (outcome instanceof CommitHookError) {
        metrics.duration.observe({ ...labels, outcome: "failed" }, seconds());
        const retry = owned.ownAttempt < def.maxAttempts && isRetryable(outcome.cause, def.retryable);
        await this.finishFailure(m, wf, owned, describeError(outcome.cause), retry, outcome.cause);
      } else if (outcome === "recorded") {
        m.ack();
        metrics.succeeded.inc(labels);
        metrics.duration.observe({ ...labels, outcome: "succeeded" }, seconds());
        owned.log.info({ seconds: seconds() }, "step succeeded");
      } else if (outcome === "stale") {
        await this.settleStale(m, owned);
      }
      return;
    }

    const reason: unknown = ac.signal.aborted ? ac.signal.reason : null;
    if (reason instanceof StepAbort && reason.kind === "worker_stopping") {
      await store
        .releaseStep(this.opts.sql, owned.stepId, owned.attempt)
        .catch((e) => owned.log.warn({ err: e }, "releasing the step failed"));
      m.nak();
      owned.log.info("step handed back: worker stopping");
      return;
    }
    if (reason instanceof StepAbort && reason.kind === "run_stopped") {
      metrics.cancelled.inc(labels);
      metrics.duration.observe({ ...labels, outcome: "cancelled" }, seconds());
      owned.log.info({ why: reason.message }, "step aborted");
      await this.settleStale(m, owned);
      return;
    }
    const error = reason instanceof StepAbort ? reason : result.error;
    metrics.duration.observe({ ...labels, outcome: "failed" }, seconds());
    const retry = owned.ownAttempt < def.maxAttempts && isRetryable(error, def.retryable);
    await this.finishFailure(m, wf, owned, describeError(error), retry, error);
  }

  private async finishFailure(
    m: JsMsg,
    wf: AnyWorkflow,
    owned: OwnedStep,
    error: string,
    retry: boolean,
    cause?: unknown,
    how: "own" | "lost" = "own",
  ): Promise<void> {
    const labels = { workflow: wf.name, step: owned.def.name, queue: owned.def.queue.name };
    if (retry) {
      const delay = retryDelayMs(owned.ownAttempt + 1, owned.def.backoff);
      const outcome = await this.record(m, () => retryLater(this.opts.sql, owned, error, delay));
      if (outcome === "recorded") {
        m.nak(delay);
        metrics.retried.inc(labels);
        owned.log.warn({ err: cause, error, retryInMs: delay }, "step attempt failed; will retry");
      } else if (outcome === "stale") {
        await this.settleStale(m, owned);
      }
      return;
    }
    const outcome = await this.record(m, () => failStep(this.opts.sql, wf, owned, error, how));
    if (outcome === "recorded") {
      m.ack();
      metrics.failed.inc(labels);
      owned.log.error({ err: cause, error }, "step failed; run failed");
    } else if (outcome === "stale") {
      await this.settleStale(m, owned);
    }
  }

  /**
   * The attempt's worker stopped responding. That says nothing about the step, so it is retried on
   * the lost-worker budget (at once the first time, then with its own backoff) until
   * `lostWorkerAttempts` in a row were lost: a step that brings its worker down every time fails.
   */
  private async retryLost(m: JsMsg, c: Extract<Claimed, { kind: "lost" }>): Promise<void> {
    const { owned, wf, inARow } = c;
    const labels = { workflow: wf.name, step: owned.def.name, queue: owned.def.queue.name };
    metrics.lost.inc(labels);
    if (inARow >= this.lostWorkerAttempts) {
      const error = `the worker stopped responding on ${inARow} attempt${inARow === 1 ? "" : "s"} in a row`;
      await this.finishFailure(m, wf, owned, error, false, undefined, "lost");
      return;
    }
    const error = `the worker running attempt ${owned.ownAttempt} (${c.worker ?? "unknown"}) stopped responding`;
    const delay = inARow === 1 ? 0 : retryDelayMs(inARow, this.lostWorkerBackoff);
    const outcome = await this.record(m, async () =>
      (await store.requeueLost(this.opts.sql, owned.stepId, owned.attempt, error, delay)) ? "recorded" : "stale",
    );
    if (outcome === "recorded") {
      m.nak(delay);
      owned.log.warn({ lostInARow: inARow, retryInMs: delay, lostWorker: c.worker }, "step's worker stopped responding; will retry");
    } else if (outcome === "stale") {
      await this.settleStale(m, owned);
    }
  }

  /** Run a bookkeeping transaction; if the database is unavailable, have the message redelivered soon. */
  private async record(m: JsMsg, fn: () => Promise<"recorded" | "stale">): Promise<"recorded" | "stale" | "error"> {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof CommitHookError) throw e;
      this.opts.log.error({ err: e, subject: m.subject }, "recording a step outcome failed; the step will be redelivered");
      m.nak(5000);
      return "error";
    }
  }

  /**
   * Our attempt is no longer the step's. Ack only if the step is finished (or gone): if another
   * worker has taken it over, this delivery's ack could remove the message that worker still needs.
   */
  private async settleStale(m: JsMsg, owned: OwnedStep): Promise<void> {
    const status = await store.stepStatus(this.opts.sql, owned.stepId).catch(() => "unknown" as const);
    if (status === null || status === "succeeded" || status === "failed" || status === "cancelled") m.ack();
  }
}

function safeJson(data: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(data)) as unknown;
  } catch {
    return null;
  }
}

/** Settle with the handler's result, or reject with the signal's reason as soon as it fires (a handler that ignores the signal is left behind). */
function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    p.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}
