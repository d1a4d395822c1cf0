// All SQL of the workflow runner: runs, steps, and step messages written to the kit's outbox in
// the caller's transaction. Unqualified names resolve in the service's schema (search_path).
import type { Db } from "@scribe/kit";
import type { RunStatus, StepState, StepStatus } from "./plan";

export interface RunRow {
  id: string;
  workflow: string;
  subject: string | null;
  status: RunStatus;
  input: unknown;
  error: string | null;
  error_step: string | null;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
}

export interface StepRow {
  id: string;
  run_id: string;
  step: string;
  item_index: number | null;
  item_count: number | null;
  queue: string | null;
  status: StepStatus;
  /** Attempts started since the step was enqueued, lost ones included; the fencing number of the current attempt. */
  attempts: number;
  max_attempts: number;
  /** Attempts whose worker stopped responding (not the step's own failures). */
  lost_attempts: number;
  lost_in_a_row: number;
  token: string;
  item: unknown;
  last_error: string | null;
  progress: unknown;
  worker: string | null;
  queued_at: Date;
  started_at: Date | null;
  heartbeat_at: Date | null;
  finished_at: Date | null;
  next_attempt_at: Date | null;
}

/** Step columns except the (possibly large) output. */
const STEP_COLUMNS = `id, run_id, step, item_index, item_count, queue, status, attempts, max_attempts, lost_attempts, lost_in_a_row, token, item,
  last_error, progress, worker, queued_at, started_at, heartbeat_at, finished_at, next_attempt_at`;
const RUN_COLUMNS = `id, workflow, subject, status, input, error, error_step, created_at, updated_at, finished_at`;

/** What the worker finds when it picks up a step message. */
export interface ClaimRow extends StepRow {
  run_status: RunStatus;
  workflow: string;
  subject: string | null;
  input: unknown;
}

/** The body of a step message on the WORKFLOW stream. */
export interface StepMessage {
  run: string;
  step: string;
  token: string;
}

/**
 * JSON text for a jsonb column. Always sent as text and cast in SQL (`::text::jsonb`): a parameter
 * the server types as jsonb would be JSON-encoded again by postgres.js.
 */
export const json = (v: unknown) => JSON.stringify(v === undefined ? null : v);

export async function insertRun(tx: Db, run: { id: string; workflow: string; subject: string | null; input: unknown }): Promise<void> {
  await tx`insert into workflow_runs (id, workflow, subject, status, input)
    values (${run.id}, ${run.workflow}, ${run.subject}, 'running', ${json(run.input)}::text::jsonb)`;
}

export async function lockRun(tx: Db, id: string): Promise<RunRow | null> {
  const [row] = await tx.unsafe<RunRow[]>(`select ${RUN_COLUMNS} from workflow_runs where id = $1 for update`, [id]);
  return row ?? null;
}

/** Serialises starts for one subject, so two concurrent reprocess requests cannot both leave a run running. */
export async function lockSubject(tx: Db, subject: string): Promise<void> {
  await tx`select pg_advisory_xact_lock(hashtext(${`scribe:workflow:subject:${subject}`}))`;
}

export async function runningRunsOfSubject(tx: Db, subject: string): Promise<string[]> {
  const rows = await tx<
    { id: string }[]
  >`select id from workflow_runs where subject = ${subject} and status = 'running' order by created_at`;
  return rows.map((r) => r.id);
}

/** Removes every run of `subject` with its steps (cascade). */
export async function deleteRunsOfSubject(tx: Db, subject: string): Promise<number> {
  const rows = await tx`delete from workflow_runs where subject = ${subject} returning id`;
  return rows.length;
}

export async function stepStates(tx: Db, runId: string): Promise<(StepState & { id: string })[]> {
  const rows = await tx<{ id: string; step: string; item_index: number | null; item_count: number | null; status: StepStatus }[]>`
    select id, step, item_index, item_count, status from workflow_steps where run_id = ${runId}`;
  return rows.map((r) => ({ id: r.id, step: r.step, index: r.item_index, itemCount: r.item_count, status: r.status }));
}

/** Outputs of single steps and of the items of fan-out steps, ordered by item. */
export async function outputsOf(
  tx: Db,
  runId: string,
  steps: string[],
): Promise<{ step: string; item_index: number | null; output: unknown }[]> {
  if (steps.length === 0) return [];
  return tx<{ step: string; item_index: number | null; output: unknown }[]>`
    select step, item_index, output from workflow_steps
    where run_id = ${runId} and step = any(${steps}::text[]) and item_count is null and status = 'succeeded'
    order by step, item_index`;
}

export async function itemOutput(tx: Db, runId: string, step: string, index: number): Promise<unknown> {
  const [row] = await tx<{ output: unknown }[]>`
    select output from workflow_steps where run_id = ${runId} and step = ${step} and item_index = ${index}`;
  return row?.output ?? null;
}

export interface NewStep {
  step: string;
  index: number | null;
  itemCount: number | null;
  queue: string | null;
  maxAttempts: number;
  item: unknown;
}

export type InsertedStep = Pick<StepRow, "id" | "run_id" | "step" | "item_index" | "item_count" | "queue" | "token">;

/** Item rows and single steps start queued; group rows start running (they finish with their items). */
export async function insertSteps(tx: Db, runId: string, steps: NewStep[]): Promise<InsertedStep[]> {
  if (steps.length === 0) return [];
  return tx<InsertedStep[]>`
    insert into workflow_steps (run_id, step, item_index, item_count, queue, status, max_attempts, item)
    select ${runId}, x.step, x.item_index, x.item_count, x.queue,
      case when x.item_count is null then 'queued' else 'running' end, x.max_attempts, x.item::jsonb
    from unnest(${steps.map((s) => s.step)}::text[], ${steps.map((s) => s.index)}::int[], ${steps.map((s) => s.itemCount)}::int[],
      ${steps.map((s) => s.queue)}::text[], ${steps.map((s) => s.maxAttempts)}::int[], ${steps.map((s) => json(s.item))}::text[])
      as x(step, item_index, item_count, queue, max_attempts, item)
    returning id, run_id, step, item_index, item_count, queue, token`;
}

/**
 * Step messages ride the kit's outbox: published by the relay only if this transaction commits,
 * once (Nats-Msg-Id = outbox event id). Subject `workflow.<schema>.<queue>.<run id>`.
 */
export async function enqueue(tx: Db, steps: Pick<InsertedStep, "id" | "run_id" | "queue" | "token">[]): Promise<void> {
  const queued = steps.filter((s): s is typeof s & { queue: string } => s.queue !== null);
  if (queued.length === 0) return;
  const payloads = queued.map((s) => JSON.stringify({ run: s.run_id, step: s.id, token: s.token } satisfies StepMessage));
  await tx`insert into outbox (event_id, subject, payload)
    select gen_random_uuid(), 'workflow.' || current_schema() || '.' || x.queue || '.' || x.run_id, x.payload
    from unnest(${queued.map((s) => s.queue)}::text[], ${queued.map((s) => s.run_id)}::text[], ${payloads}::text[]) as x(queue, run_id, payload)`;
}

/**
 * Take an attempt in one statement: only a current message (token) of a running run's step that is
 * queued is claimed. No row: see `inspectStep` (a step still running is one whose worker was lost).
 * A concurrent cancel either waits for this row or makes the update match nothing.
 */
export async function claimStep(db: Db, stepId: string, token: string, worker: string): Promise<ClaimRow | null> {
  const [row] = await db.unsafe<ClaimRow[]>(
    `update workflow_steps s set status = 'running', attempts = s.attempts + 1, worker = $3,
       started_at = now(), heartbeat_at = now(), next_attempt_at = null, progress = null
     from workflow_runs r
     where s.id = $1 and s.token = $2 and r.id = s.run_id and r.status = 'running' and s.status = 'queued'
     returning ${STEP_COLUMNS.split(",")
       .map((c) => `s.${c.trim()}`)
       .join(", ")}, r.status as run_status, r.workflow, r.subject, r.input`,
    [stepId, token, worker],
  );
  return row ?? null;
}

/**
 * The worker of `attempt` stopped responding: count the attempt as lost (not as the step's own
 * failure) and queue the step again after `delayMs`. False if the attempt is no longer the
 * step's (its worker recorded an outcome after all, or the run stopped).
 */
export async function requeueLost(tx: Db, stepId: string, attempt: number, error: string, delayMs: number): Promise<boolean> {
  const rows = await tx`update workflow_steps set status = 'queued', worker = null, progress = null, last_error = ${error},
      lost_attempts = lost_attempts + 1, lost_in_a_row = lost_in_a_row + 1,
      next_attempt_at = now() + make_interval(secs => ${delayMs / 1000})
    where id = ${stepId} and status = 'running' and attempts = ${attempt} returning id`;
  return rows.length > 0;
}

/** Why a message could not be claimed (drop it, or fail a step whose last attempt was lost). */
export async function inspectStep(db: Db, stepId: string): Promise<ClaimRow | null> {
  const [row] = await db.unsafe<ClaimRow[]>(
    `select ${STEP_COLUMNS.split(",")
      .map((c) => `s.${c.trim()}`)
      .join(", ")}, r.status as run_status, r.workflow, r.subject, r.input
     from workflow_steps s join workflow_runs r on r.id = s.run_id where s.id = $1`,
    [stepId],
  );
  return row ?? null;
}

/**
 * The outcome writes below apply only while the step is still this attempt's (running, same
 * attempt number): false means someone else owns it now (cancel, run failure, takeover).
 */
export async function succeedOwned(tx: Db, stepId: string, attempt: number, output: unknown): Promise<boolean> {
  const rows =
    await tx`update workflow_steps set status = 'succeeded', output = ${json(output)}::text::jsonb, finished_at = now(), progress = null
    where id = ${stepId} and status = 'running' and attempts = ${attempt} returning id`;
  return rows.length > 0;
}

/** The attempt ended by itself (a failure of the step's own): the run of lost workers is broken. */
export async function retryOwned(tx: Db, stepId: string, attempt: number, error: string, delayMs: number): Promise<boolean> {
  const rows = await tx`update workflow_steps set status = 'queued', last_error = ${error}, lost_in_a_row = 0,
      next_attempt_at = now() + make_interval(secs => ${delayMs / 1000})
    where id = ${stepId} and status = 'running' and attempts = ${attempt} returning id`;
  return rows.length > 0;
}

export async function failOwned(tx: Db, stepId: string, attempt: number, error: string, lost = false): Promise<boolean> {
  const rows = await tx`update workflow_steps set status = 'failed', last_error = ${error}, finished_at = now(),
      lost_attempts = lost_attempts + ${lost ? 1 : 0}, lost_in_a_row = case when ${lost} then lost_in_a_row + 1 else 0 end
    where id = ${stepId} and status = 'running' and attempts = ${attempt} returning id`;
  return rows.length > 0;
}

/** A worker that stops gives its step back without using up an attempt. */
export async function releaseStep(tx: Db, stepId: string, attempt: number): Promise<void> {
  await tx`update workflow_steps set status = 'queued', attempts = attempts - 1, worker = null
    where id = ${stepId} and status = 'running' and attempts = ${attempt}`;
}

export async function markGroup(tx: Db, runId: string, step: string, status: StepStatus): Promise<void> {
  await tx`update workflow_steps set status = ${status}, finished_at = now()
    where run_id = ${runId} and step = ${step} and item_count is not null`;
}

/** Every step still queued or running becomes cancelled (run cancelled, or failed by another step). */
export async function cancelOpenSteps(tx: Db, runId: string): Promise<void> {
  await tx`update workflow_steps set status = 'cancelled', finished_at = now()
    where run_id = ${runId} and status in ('queued', 'running')`;
}

export async function finishRun(
  tx: Db,
  runId: string,
  status: Exclude<RunStatus, "running">,
  error: string | null = null,
  errorStep: string | null = null,
): Promise<void> {
  await tx`update workflow_runs set status = ${status}, error = ${error}, error_step = ${errorStep},
      finished_at = now(), updated_at = now()
    where id = ${runId}`;
}

/** Running handlers of the run are aborted by every worker listening (delivered on commit). */
export async function notifyAbort(tx: Db, runId: string): Promise<void> {
  await tx`select pg_notify(current_schema() || '_workflow_abort', ${runId})`;
}

/**
 * Reset failed and cancelled steps for another go: fresh attempts and a fresh token (messages of
 * the old generation are dropped on arrival). Returns what must be enqueued.
 */
export async function resetForRetry(tx: Db, runId: string): Promise<InsertedStep[]> {
  await tx`update workflow_runs set status = 'running', error = null, error_step = null, finished_at = null, updated_at = now()
    where id = ${runId}`;
  return tx<InsertedStep[]>`
    update workflow_steps set
      status = case when item_count is null then 'queued' else 'running' end,
      attempts = 0, lost_attempts = 0, lost_in_a_row = 0, token = gen_random_uuid(), worker = null, started_at = null, finished_at = null,
      next_attempt_at = null, heartbeat_at = null, progress = null, queued_at = now()
    where run_id = ${runId} and status in ('failed', 'cancelled')
    returning id, run_id, step, item_index, item_count, queue, token`;
}

/**
 * Liveness from a running handler; returns false when the step is no longer this attempt's
 * (cancelled, run failed, taken over after a redelivery), which aborts the handler.
 */
export async function heartbeat(db: Db, stepId: string, attempt: number, progress: unknown): Promise<boolean> {
  const rows = await db`update workflow_steps set heartbeat_at = now(),
      progress = case when ${progress === undefined} then progress else ${json(progress)}::text::jsonb end
    where id = ${stepId} and status = 'running' and attempts = ${attempt} returning id`;
  return rows.length > 0;
}

export async function stepStatus(db: Db, stepId: string): Promise<StepStatus | null> {
  const [row] = await db<{ status: StepStatus }[]>`select status from workflow_steps where id = ${stepId}`;
  return row?.status ?? null;
}

export async function currentSchema(db: Db): Promise<string> {
  const [row] = await db<{ schema: string }[]>`select current_schema() as schema`;
  return row!.schema;
}

// Inspection

export interface RunFilter {
  /** One run (used by getRun to share the counting query). */
  id?: string;
  status?: RunStatus;
  workflow?: string;
  subject?: string;
  /** Runs created before this instant (paging). */
  before?: Date;
  limit?: number;
}

export interface RunListRow extends RunRow {
  steps_total: number;
  steps_succeeded: number;
  steps_failed: number;
  steps_running: number;
  steps_queued: number;
}

export async function listRunRows(db: Db, f: RunFilter): Promise<RunListRow[]> {
  const limit = Math.min(Math.max(f.limit ?? 50, 1), 1000);
  return db<RunListRow[]>`
    select r.id, r.workflow, r.subject, r.status, r.input, r.error, r.error_step, r.created_at, r.updated_at, r.finished_at,
      coalesce(c.total, 0)::int as steps_total, coalesce(c.succeeded, 0)::int as steps_succeeded,
      coalesce(c.failed, 0)::int as steps_failed, coalesce(c.running, 0)::int as steps_running,
      coalesce(c.queued, 0)::int as steps_queued
    from workflow_runs r
    left join lateral (
      select count(*) as total,
        count(*) filter (where status = 'succeeded') as succeeded,
        count(*) filter (where status = 'failed') as failed,
        count(*) filter (where status = 'running') as running,
        count(*) filter (where status = 'queued') as queued
      from workflow_steps s where s.run_id = r.id and s.item_count is null
    ) c on true
    where true
      ${f.id ? db`and r.id = ${f.id}` : db``}
      ${f.status ? db`and r.status = ${f.status}` : db``}
      ${f.workflow ? db`and r.workflow = ${f.workflow}` : db``}
      ${f.subject ? db`and r.subject = ${f.subject}` : db``}
      ${f.before ? db`and r.created_at < ${f.before}` : db``}
    order by r.created_at desc, r.id desc
    limit ${limit}`;
}

export async function stepRowsOf(db: Db, runId: string): Promise<StepRow[]> {
  return db.unsafe<StepRow[]>(`select ${STEP_COLUMNS} from workflow_steps where run_id = $1 order by queued_at, id`, [runId]);
}
