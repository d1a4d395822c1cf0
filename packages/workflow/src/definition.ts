// Declaring a workflow: a typed builder of named steps with their parents (join), fan-out per item
// and per item of an earlier fan-out, queues (step kinds with a cluster-wide concurrency limit),
// timeouts, attempt limits and backoff. Steps can only name earlier steps, so every DAG is acyclic.
import type { z } from "zod";
import type { Logger } from "pino";
import type { Tx } from "@scribe/kit";

/** A value that survives the round trip through a jsonb column unchanged. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/**
 * A step kind: one durable JetStream consumer whose `max_ack_pending` is `concurrency`, so at most
 * that many steps of this kind run at once across every worker (e.g. one mixdown, many LLM calls).
 */
export interface Queue {
  readonly name: string;
  readonly concurrency: number;
}

const TOKEN = /^[a-z0-9_-]+$/;
const STEP_NAME = /^[a-z][a-z0-9_]*$/;

export function defineQueue(name: string, opts: { concurrency: number }): Queue {
  if (!TOKEN.test(name))
    throw new Error(`queue name ${JSON.stringify(name)}: lower-case letters, digits, '_' and '-' only (it is a NATS subject token)`);
  if (!Number.isInteger(opts.concurrency) || opts.concurrency < 1) throw new Error(`queue ${name}: concurrency must be a positive integer`);
  return Object.freeze({ name, concurrency: opts.concurrency });
}

/** Where steps go unless they name a queue: short I/O-bound steps, no meaningful shared limit. */
export const DEFAULT_QUEUE = defineQueue("default", { concurrency: 64 });

export interface Backoff {
  /** Delay before the second attempt. */
  initialMs: number;
  /** Multiplier per further attempt. */
  factor: number;
  /** Cap (the behaviour file's "max-backoff cap"). */
  maxMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { initialMs: 1000, factor: 2, maxMs: 30_000 };
export const DEFAULT_TIMEOUT_MS = 300_000;
export const DEFAULT_MAX_ATTEMPTS = 3;

/** Delay before attempt `nextAttempt` (2 = first retry): initial × factor^(n−2), capped. Pure. */
export function retryDelayMs(nextAttempt: number, b: Backoff): number {
  const n = Math.max(0, nextAttempt - 2);
  return Math.max(0, Math.min(b.maxMs, Math.round(b.initialMs * b.factor ** n)));
}

export interface StepOptions {
  /** The handler is aborted after this long; the attempt counts as failed (retryable). */
  timeoutMs?: number;
  /** Attempts in all, the first included (the behaviour file's "3 retries" is maxAttempts 4). */
  maxAttempts?: number;
  backoff?: Partial<Backoff>;
  queue?: Queue;
  /** Decide retryability for this step's errors; `undefined` defers to the default rules. */
  retryable?: (error: unknown) => boolean | undefined;
}

export interface RunInfo<I> {
  id: string;
  workflow: string;
  subject: string | null;
  input: I;
}

export interface StepContext<I, P, Item> {
  runId: string;
  workflow: string;
  step: string;
  /** Position in the fan-out, null for a single step. */
  index: number | null;
  /** 1 for the first attempt. */
  attempt: number;
  maxAttempts: number;
  subject: string | null;
  input: I;
  /** Outputs of the parents named in `after` (a fan-out parent gives the array of its items' outputs). */
  parents: P;
  /** The fan-out item (undefined for single steps). */
  item: Item;
  /** Fires on timeout, cancellation of the run, failure of a sibling, or worker shutdown: stop and throw. */
  signal: AbortSignal;
  /**
   * Report liveness and optional progress. The runner already keeps the message alive while the
   * handler runs; call this to record progress for the inspection API.
   */
  heartbeat(progress?: Json): void;
  /** Carries workflow, runId, step, index and attempt on every line. */
  log: Logger;
}

export interface CommitContext<I> {
  run: RunInfo<I>;
  step: string;
  index: number | null;
  log: Logger;
}

/** Runs inside the transaction that records the step's result: DB effects here happen exactly once. */
export type CommitHook<I, R> = (tx: Tx, output: R, ctx: CommitContext<I>) => Promise<void>;

export interface FailureInfo {
  step: string;
  index: number | null;
  error: string;
  attempts: number;
}

// Method syntax on purpose: it keeps Workflow<I> assignable to Workflow<unknown> (a worker's list).
export interface WorkflowHooks<I> {
  /** In the transaction that marks the run succeeded. */
  onSuccess?(tx: Tx, run: RunInfo<I>): Promise<void>;
  /** In the transaction that marks the run failed (e.g. set the transcript to `error`). */
  onFailure?(tx: Tx, run: RunInfo<I>, failure: FailureInfo): Promise<void>;
}

type Handler = (ctx: StepContext<unknown, Record<string, unknown>, unknown>) => Promise<unknown>;

/** The runtime form of a step (types erased; the builder checked them). */
export interface StepDef {
  name: string;
  /** single: one run; items: one run per element of items(); of: one run per item of the fan-out `of`. */
  kind: "single" | "items" | "of";
  /** Every step whose completion this one waits for (includes `of`). */
  after: string[];
  /** Parents whose outputs go into ctx.parents (`after` minus `of`). */
  parentOutputs: string[];
  of: string | null;
  items: ((input: unknown, parents: Record<string, unknown>) => unknown[]) | null;
  run: Handler;
  commit: CommitHook<unknown, unknown> | null;
  queue: Queue;
  timeoutMs: number;
  maxAttempts: number;
  backoff: Backoff;
  retryable: ((error: unknown) => boolean | undefined) | null;
}

export interface Workflow<I = unknown, O = unknown> {
  readonly name: string;
  readonly input: z.ZodType<I>;
  /** In declaration order (a topological order). */
  readonly steps: ReadonlyMap<string, StepDef>;
  readonly hooks: WorkflowHooks<I>;
  /** Phantom: the step outputs, for typing only. */
  readonly _outputs?: O;
}

/** The workflow type with its input erased, for registries that hold several workflows. */
export type AnyWorkflow = Workflow<unknown, unknown>;

type Simplify<T> = { [K in keyof T]: T[K] } & {};
type ElementOf<T> = T extends readonly (infer E)[] ? E : never;

/**
 * `I` run input, `O` step name → output as children see it (arrays for fan-outs),
 * `G` names of fan-out steps (valid targets of `of`).
 */
export class WorkflowBuilder<I, O extends Record<string, unknown>, G extends string> {
  private readonly defs = new Map<string, StepDef>();

  constructor(
    readonly name: string,
    private readonly input: z.ZodType<I>,
  ) {
    if (!TOKEN.test(name)) throw new Error(`workflow name ${JSON.stringify(name)}: lower-case letters, digits, '_' and '-' only`);
  }

  /**
   * One run of `run` once every step in `after` has succeeded. `commit` (optional) runs inside the
   * transaction that records the output (it comes after `run` so TypeScript infers the output type from `run`).
   */
  step<N extends string, R, P extends keyof O & string = never>(
    name: N,
    opts: StepOptions & { after?: readonly P[] },
    run: (ctx: StepContext<I, Simplify<Pick<O, P>>, undefined>) => Promise<R>,
    commit?: CommitHook<I, R>,
  ): WorkflowBuilder<I, Simplify<O & Record<N, R>>, G> {
    this.add(name, "single", opts, { run: run as unknown as Handler, of: null, items: null, commit });
    return this as unknown as WorkflowBuilder<I, Simplify<O & Record<N, R>>, G>;
  }

  /** One run per element of `items(input, parents)`; children see the outputs as an array in item order. */
  forEach<N extends string, Item, R, P extends keyof O & string = never>(
    name: N,
    opts: StepOptions & { after?: readonly P[]; items: (input: I, parents: Simplify<Pick<O, P>>) => Item[] },
    run: (ctx: StepContext<I, Simplify<Pick<O, P>>, Item>) => Promise<R>,
    commit?: CommitHook<I, R>,
  ): WorkflowBuilder<I, Simplify<O & Record<N, R[]>>, G | N> {
    this.add(name, "items", opts, {
      run: run as unknown as Handler,
      of: null,
      items: opts.items as unknown as (input: unknown, parents: Record<string, unknown>) => unknown[],
      commit,
    });
    return this as unknown as WorkflowBuilder<I, Simplify<O & Record<N, R[]>>, G | N>;
  }

  /**
   * One run per item of the earlier fan-out `of`, each starting as soon as its own item there has
   * succeeded (track i is transcribed once track i is aligned, not once all are). `ctx.item` is
   * that item's output.
   */
  forEachOf<N extends string, F extends G, R, P extends keyof O & string = never>(
    name: N,
    opts: StepOptions & { of: F; after?: readonly P[] },
    run: (ctx: StepContext<I, Simplify<Pick<O, Exclude<P, F>>>, ElementOf<O[F]>>) => Promise<R>,
    commit?: CommitHook<I, R>,
  ): WorkflowBuilder<I, Simplify<O & Record<N, R[]>>, G | N> {
    this.add(name, "of", opts, { run: run as unknown as Handler, of: opts.of, items: null, commit });
    return this as unknown as WorkflowBuilder<I, Simplify<O & Record<N, R[]>>, G | N>;
  }

  build(hooks: WorkflowHooks<I> = {}): Workflow<I, O> {
    if (this.defs.size === 0) throw new Error(`workflow ${this.name} has no steps`);
    return Object.freeze({ name: this.name, input: this.input, steps: new Map(this.defs), hooks });
  }

  private add(
    name: string,
    kind: StepDef["kind"],
    opts: StepOptions & { after?: readonly string[] },
    fns: Pick<StepDef, "run" | "of" | "items"> & { commit: unknown },
  ): void {
    if (!STEP_NAME.test(name))
      throw new Error(`${this.name}: step name ${JSON.stringify(name)}: lower-case letters, digits and '_', starting with a letter`);
    if (this.defs.has(name)) throw new Error(`${this.name}: step ${name} is declared twice`);
    const after = [...new Set(opts.after ?? [])];
    for (const p of after) if (!this.defs.has(p)) throw new Error(`${this.name}.${name}: unknown parent step ${p}`);
    if (fns.of !== null) {
      const of = this.defs.get(fns.of);
      if (!of || of.kind === "single") throw new Error(`${this.name}.${name}: 'of' must name an earlier fan-out step, got ${fns.of}`);
    }
    const maxAttempts = opts.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new Error(`${this.name}.${name}: maxAttempts must be a positive integer`);
    const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!(timeoutMs > 0)) throw new Error(`${this.name}.${name}: timeoutMs must be positive`);
    this.defs.set(name, {
      name,
      kind,
      after: fns.of !== null && !after.includes(fns.of) ? [...after, fns.of] : after,
      parentOutputs: after.filter((p) => p !== fns.of),
      of: fns.of,
      items: fns.items,
      run: fns.run,
      commit: (fns.commit as CommitHook<unknown, unknown> | undefined) ?? null,
      queue: opts.queue ?? DEFAULT_QUEUE,
      timeoutMs,
      maxAttempts,
      backoff: { ...DEFAULT_BACKOFF, ...opts.backoff },
      retryable: opts.retryable ?? null,
    });
  }
}

/** Start declaring a workflow; `input` parses the run input at start and whenever a worker loads it. */
export function workflow<S extends z.ZodType>(name: string, input: S): WorkflowBuilder<z.output<S>, {}, never> {
  return new WorkflowBuilder<z.output<S>, {}, never>(name, input as unknown as z.ZodType<z.output<S>>);
}

/** Every queue the workflows use, by name; two different queues with one name are an error. */
export function queuesOf(workflows: readonly AnyWorkflow[]): Map<string, Queue> {
  const out = new Map<string, Queue>();
  for (const wf of workflows) {
    for (const s of wf.steps.values()) {
      const prior = out.get(s.queue.name);
      if (prior && prior.concurrency !== s.queue.concurrency) {
        throw new Error(
          `queue ${s.queue.name} is declared with concurrency ${prior.concurrency} and ${s.queue.concurrency}; declare it once and share it`,
        );
      }
      out.set(s.queue.name, s.queue);
    }
  }
  return out;
}
