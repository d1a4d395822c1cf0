// Inspection of runs and steps for the ops CLI and the API: list runs, one run with its steps
// (status, attempts, timings, errors). Views are zod schemas so an API can reuse them as contracts.
import { z } from "zod";
import type { Db } from "@scribe/kit";
import * as store from "./store";

export const RunStatusSchema = z.enum(["running", "succeeded", "failed", "cancelled"]);
export const StepStatusSchema = z.enum(["queued", "running", "succeeded", "failed", "cancelled"]);

export const StepView = z.object({
  id: z.string(),
  step: z.string(),
  /** Fan-out item position; null for single steps and for a fan-out's group row. */
  index: z.number().int().nullable(),
  /** Set on a fan-out's group row: how many items it has. */
  itemCount: z.number().int().nullable(),
  queue: z.string().nullable(),
  status: StepStatusSchema,
  attempts: z.number().int(),
  maxAttempts: z.number().int(),
  /** Attempts whose worker stopped responding; they do not count against maxAttempts. */
  lostAttempts: z.number().int(),
  lastError: z.string().nullable(),
  progress: z.unknown(),
  worker: z.string().nullable(),
  queuedAt: z.string(),
  startedAt: z.string().nullable(),
  heartbeatAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  nextAttemptAt: z.string().nullable(),
  /** Of the last attempt, once finished. */
  durationMs: z.number().nullable(),
});
export type StepView = z.infer<typeof StepView>;

export const RunSummary = z.object({
  id: z.string(),
  workflow: z.string(),
  subject: z.string().nullable(),
  status: RunStatusSchema,
  error: z.string().nullable(),
  errorStep: z.string().nullable(),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
  durationMs: z.number().nullable(),
  /** Counts over single steps and fan-out items (group rows left out). */
  stepCounts: z.object({ total: z.number(), succeeded: z.number(), failed: z.number(), running: z.number(), queued: z.number() }),
});
export type RunSummary = z.infer<typeof RunSummary>;

export const RunDetail = RunSummary.extend({ input: z.unknown(), steps: z.array(StepView) });
export type RunDetail = z.infer<typeof RunDetail>;

export type RunFilter = store.RunFilter;

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const span = (from: Date | null, to: Date | null) => (from && to ? to.getTime() - from.getTime() : null);

export async function listRuns(db: Db, filter: RunFilter = {}): Promise<RunSummary[]> {
  return (await store.listRunRows(db, filter)).map(toSummary);
}

export async function getRun(db: Db, runId: string): Promise<RunDetail | null> {
  const [row] = await store.listRunRows(db, { id: runId, limit: 1 });
  if (!row) return null;
  const steps = (await store.stepRowsOf(db, runId)).map((s): StepView => ({
    id: s.id,
    step: s.step,
    index: s.item_index,
    itemCount: s.item_count,
    queue: s.queue,
    status: s.status,
    attempts: s.attempts,
    maxAttempts: s.max_attempts,
    lostAttempts: s.lost_attempts,
    lastError: s.last_error,
    progress: s.progress,
    worker: s.worker,
    queuedAt: s.queued_at.toISOString(),
    startedAt: iso(s.started_at),
    heartbeatAt: iso(s.heartbeat_at),
    finishedAt: iso(s.finished_at),
    nextAttemptAt: iso(s.next_attempt_at),
    durationMs: span(s.started_at, s.finished_at),
  }));
  return { ...toSummary(row), input: row.input, steps };
}

function toSummary(r: store.RunListRow): RunSummary {
  return {
    id: r.id,
    workflow: r.workflow,
    subject: r.subject,
    status: r.status,
    error: r.error,
    errorStep: r.error_step,
    createdAt: r.created_at.toISOString(),
    finishedAt: iso(r.finished_at),
    durationMs: span(r.created_at, r.finished_at),
    stepCounts: {
      total: r.steps_total,
      succeeded: r.steps_succeeded,
      failed: r.steps_failed,
      running: r.steps_running,
      queued: r.steps_queued,
    },
  };
}
