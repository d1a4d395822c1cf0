// The run's state changes, each in one transaction: start (in the caller's transaction), record a
// step's result together with the steps that became ready, retry later, fail the run, cancel,
// retry a failed run. Step messages are written to the outbox in the same transaction.
import { Conflict, Invalid, NotFound, validationErrors, type Db, type Logger, type Tx } from "@scribe/kit";
import { v7 as uuidv7 } from "uuid";
import type { AnyWorkflow, FailureInfo, RunInfo, StepDef, Workflow } from "./definition";
import { describeError } from "./errors";
import { allComplete, nextActions, type StepState } from "./plan";
import * as store from "./store";

/** Run `fn` in the caller's transaction if `db` is one, else in a new transaction. */
export async function inTx<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  if ("savepoint" in db) return fn(db as Tx);
  return (await db.begin(fn)) as T;
}

export interface StartOptions {
  /** What the run is about (e.g. the transcript id): used to find, supersede and list runs. */
  subject?: string;
  /** Cancel every running run of the same subject first (reprocessing). Needs `subject`. */
  supersede?: boolean;
  /** Run id (default: a new UUIDv7). */
  id?: string;
}

export interface Started {
  runId: string;
  /** Runs of the subject cancelled by `supersede`. */
  superseded: string[];
}

/**
 * Start a run. Pass the caller's transaction so the run starts if and only if the caller's own
 * change commits (e.g. "transcript is processing" + "run started"); the first steps are enqueued
 * through the outbox on commit.
 */
export async function startRun<I, O>(db: Db, wf: Workflow<I, O>, input: I, opts: StartOptions = {}): Promise<Started> {
  const parsed = wf.input.safeParse(input);
  if (!parsed.success) throw Invalid(validationErrors(parsed.error.issues, ["input"]));
  if (opts.supersede && !opts.subject) throw new Error("startRun: supersede needs a subject");
  const runId = opts.id ?? uuidv7();
  return inTx(db, async (tx) => {
    const superseded: string[] = [];
    if (opts.subject) {
      await store.lockSubject(tx, opts.subject);
      if (opts.supersede) {
        for (const id of await store.runningRunsOfSubject(tx, opts.subject)) {
          if (await cancelInTx(tx, id, `superseded by run ${runId}`)) superseded.push(id);
        }
      }
    }
    await store.insertRun(tx, { id: runId, workflow: wf.name, subject: opts.subject ?? null, input });
    const run: RunInfo<unknown> = { id: runId, workflow: wf.name, subject: opts.subject ?? null, input: parsed.data };
    await advance(tx, wf as unknown as AnyWorkflow, run, []);
    return { runId, superseded };
  });
}

/** Cancel a running run: its running handlers see the abort, nothing more is enqueued. False if it was not running. */
export async function cancelRun(db: Db, runId: string, reason = "cancelled"): Promise<boolean> {
  return inTx(db, (tx) => cancelInTx(tx, runId, reason));
}

async function cancelInTx(tx: Tx, runId: string, reason: string): Promise<boolean> {
  const run = await store.lockRun(tx, runId);
  if (!run || run.status !== "running") return false;
  await store.cancelOpenSteps(tx, runId);
  await store.finishRun(tx, runId, "cancelled", reason);
  await store.notifyAbort(tx, runId);
  return true;
}

/**
 * Forget every run about `subject` (cancelling one still running): inputs and step outputs can hold
 * what the subject contained (a transcript's words), so destroying the subject must not leave them.
 * Step messages still in flight find no step and are dropped. Answers how many runs were removed.
 */
export async function forgetSubject(db: Db, subject: string, reason = "subject destroyed"): Promise<number> {
  return inTx(db, async (tx) => {
    await store.lockSubject(tx, subject);
    for (const runId of await store.runningRunsOfSubject(tx, subject)) await cancelInTx(tx, runId, reason);
    return store.deleteRunsOfSubject(tx, subject);
  });
}

/**
 * Retry a failed run from where it failed: failed and cancelled steps get fresh attempts and are
 * enqueued again; succeeded steps keep their outputs. Works without the workflow definitions (ops CLI).
 */
export async function retryRun(db: Db, runId: string): Promise<{ requeued: number }> {
  return inTx(db, async (tx) => {
    const run = await store.lockRun(tx, runId);
    if (!run) throw NotFound(`workflow run ${runId} not found`);
    if (run.status !== "failed") throw Conflict(`workflow run ${runId} is ${run.status}; only failed runs can be retried`);
    if (run.subject) {
      await store.lockSubject(tx, run.subject);
      const others = (await store.runningRunsOfSubject(tx, run.subject)).filter((id) => id !== runId);
      if (others.length) throw Conflict(`subject ${run.subject} already has a running run (${others.join(", ")})`);
    }
    const reset = await store.resetForRetry(tx, runId);
    const requeued = reset.filter((r) => r.queue !== null).length;
    // A run that failed while planning (a fan-out's items() threw) has no step to re-run: only a new run can re-plan it.
    if (requeued === 0) throw Conflict(`workflow run ${runId} failed while planning (${run.error_step}: ${run.error}); start a new run`);
    await store.enqueue(tx, reset);
    return { requeued };
  });
}

/** Normalise an output to what children will read back from jsonb (no undefined, no Dates). */
export function jsonRoundTrip(v: unknown): unknown {
  return v === undefined ? null : (JSON.parse(JSON.stringify(v)) as unknown);
}

export type Outcome = "recorded" | "stale";

/** A step's commit hook (or the run's onSuccess hook) threw: nothing was recorded; the attempt failed with `cause`. */
export class CommitHookError extends Error {
  constructor(override readonly cause: unknown) {
    super(`commit hook failed: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = "CommitHookError";
  }
}

export interface OwnedStep {
  stepId: string;
  /** Attempts started, lost ones included: the fencing number every outcome write checks. */
  attempt: number;
  /** The step's own attempt number (lost attempts left out): what `maxAttempts` and backoff count. */
  ownAttempt: number;
  def: StepDef;
  run: RunInfo<unknown>;
  index: number | null;
  log: Logger;
}

/**
 * Record a step's output, run its commit hook, and create + enqueue the steps that became ready,
 * all in one transaction. "stale" when the step is no longer this attempt's (cancelled, failed by a
 * sibling, or taken over after a redelivery): nothing is written.
 */
export async function completeStep(db: Db, wf: AnyWorkflow, owned: OwnedStep, output: unknown): Promise<Outcome> {
  const value = jsonRoundTrip(output);
  return inTx(db, async (tx) => {
    // The run lock serialises completions of one run, so two siblings finishing at once cannot
    // both miss that the join became ready. The three statements are pipelined (one round trip,
    // executed in order): the lock is held as briefly as possible, which bounds wide fan-outs.
    const [run, mine, states] = await Promise.all([
      store.lockRun(tx, owned.run.id),
      store.succeedOwned(tx, owned.stepId, owned.attempt, value),
      store.stepStates(tx, owned.run.id),
    ]);
    if (!run || !mine) return "stale";
    try {
      await owned.def.commit?.(tx, value, { run: owned.run, step: owned.def.name, index: owned.index, log: owned.log });
      await advance(tx, wf, owned.run, states);
    } catch (e) {
      // Rolls the whole transaction back; the worker counts it as a failed attempt of the step.
      throw new CommitHookError(e);
    }
    return "recorded";
  });
}

/** A failed attempt with attempts left: back to queued, to be redelivered after `delayMs`. */
export async function retryLater(db: Db, owned: OwnedStep, error: string, delayMs: number): Promise<Outcome> {
  return (await store.retryOwned(db, owned.stepId, owned.attempt, error, delayMs)) ? "recorded" : "stale";
}

/**
 * The step failed for good: the run fails with its error, the rest of the run is cancelled. `how`
 * says whether the last attempt failed by itself or its worker was lost (counted as such).
 */
export async function failStep(db: Db, wf: AnyWorkflow, owned: OwnedStep, error: string, how: "own" | "lost" = "own"): Promise<Outcome> {
  return inTx(db, async (tx) => {
    if (!(await store.lockRun(tx, owned.run.id))) return "stale";
    if (!(await store.failOwned(tx, owned.stepId, owned.attempt, error, how === "lost"))) return "stale";
    await failRun(tx, wf, owned.run, { step: owned.def.name, index: owned.index, error, attempts: owned.attempt }, owned.log);
    return "recorded";
  });
}

async function failRun(tx: Tx, wf: AnyWorkflow, run: RunInfo<unknown>, failure: FailureInfo, log?: Logger): Promise<void> {
  if (failure.index !== null) await store.markGroup(tx, run.id, failure.step, "failed");
  await store.cancelOpenSteps(tx, run.id);
  const where = failure.index === null ? failure.step : `${failure.step}[${failure.index}]`;
  await store.finishRun(tx, run.id, "failed", failure.error, where);
  await store.notifyAbort(tx, run.id);
  if (!wf.hooks.onFailure) return;
  const onFailure = wf.hooks.onFailure.bind(wf.hooks);
  try {
    // In a savepoint: a failing hook must not keep the run from failing (it would be retried forever).
    await tx.savepoint((sp) => onFailure(sp as unknown as Tx, run, failure));
  } catch (e) {
    log?.fatal(
      { err: e, runId: run.id, workflow: wf.name },
      "onFailure hook failed; the run is failed but the hook's changes were rolled back",
    );
  }
}

/** Step-name-keyed outputs for a step's `parentOutputs` (fan-out parents as arrays in item order). */
export async function parentOutputs(db: Db, wf: AnyWorkflow, runId: string, def: StepDef): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const p of def.parentOutputs) out[p] = wf.steps.get(p)!.kind === "single" ? null : [];
  for (const r of await store.outputsOf(db, runId, def.parentOutputs)) {
    if (r.item_index === null) out[r.step] = r.output;
    else (out[r.step] as unknown[])[r.item_index] = r.output;
  }
  return out;
}

/**
 * Create every step the rows now allow (repeating until nothing changes: an empty fan-out
 * completes at once and may free its children), enqueue them, and finish the run when all steps
 * are complete. `known` are the step states if the caller has them (a new run has none).
 */
async function advance(tx: Tx, wf: AnyWorkflow, run: RunInfo<unknown>, known: StepState[] | null): Promise<void> {
  const states: StepState[] = known ?? (await store.stepStates(tx, run.id));
  const created: store.InsertedStep[] = [];
  const defs = [...wf.steps.values()];
  for (;;) {
    const actions = nextActions(defs, states);
    if (actions.length === 0) break;
    const rows: store.NewStep[] = [];
    for (const a of actions) {
      const def = wf.steps.get(a.step)!;
      const base = { step: def.name, queue: def.queue.name, maxAttempts: def.maxAttempts, item: null };
      switch (a.type) {
        case "create":
          rows.push({ ...base, index: null, itemCount: null });
          break;
        case "expand": {
          let items: unknown[];
          try {
            const got = def.items!(run.input, await parentOutputs(tx, wf, run.id, def));
            if (!Array.isArray(got)) throw new Error(`items() returned ${typeof got}, not an array`);
            items = got;
          } catch (e) {
            // A broken items() is a bug in the definition, not a transient failure: fail the run
            // here, keeping the parent's recorded result.
            await store.insertSteps(tx, run.id, [{ ...base, queue: null, index: null, itemCount: 0 }]);
            await store.markGroup(tx, run.id, def.name, "failed");
            await failRun(tx, wf, run, { step: def.name, index: null, error: `items() failed: ${describeError(e)}`, attempts: 0 });
            return;
          }
          rows.push({ ...base, queue: null, index: null, itemCount: items.length });
          items.forEach((item, index) => rows.push({ ...base, index, itemCount: null, item: jsonRoundTrip(item) }));
          break;
        }
        case "open":
          rows.push({ ...base, queue: null, index: null, itemCount: a.count });
          break;
        case "create_item":
          rows.push({ ...base, index: a.index, itemCount: null });
          break;
        case "complete_group":
          await store.markGroup(tx, run.id, def.name, "succeeded");
          states.find((s) => s.step === def.name && s.itemCount !== null)!.status = "succeeded";
          break;
      }
    }
    const inserted = await store.insertSteps(tx, run.id, rows);
    for (const r of inserted) {
      states.push({ step: r.step, index: r.item_index, itemCount: r.item_count, status: r.item_count === null ? "queued" : "running" });
      created.push(r);
    }
  }
  await store.enqueue(tx, created);
  if (allComplete(defs, states)) {
    await store.finishRun(tx, run.id, "succeeded");
    await wf.hooks.onSuccess?.(tx, run);
  }
}
