// Test set-up: one database and bus prefix per test file, one schema per test (so each test has
// its own tables, outbox relay and queue consumers), workers stopped after each test.
import type { Sql } from "@scribe/kit";
import { eventually } from "@scribe/kit/testing";
import { getRun } from "../../src/index";
import { workflowTestEnv, type WorkflowSchema, type WorkflowTestEnv } from "../../src/testing";
import { setSql } from "./child-db";

export type FileEnv = WorkflowTestEnv;
export type SchemaEnv = WorkflowSchema;

export const fileEnv = (label: string): Promise<FileEnv> => workflowTestEnv(label);

let schemas = 0;

/**
 * A fresh schema with the kit and workflow tables, an `effects` table, and an outbox relay; step
 * handlers of this process write through its pool.
 */
export async function schemaEnv(env: FileEnv): Promise<SchemaEnv> {
  const s = await env.openSchema(`wf${++schemas}`);
  await s.sql`create table effects (run_id uuid not null, step text not null, idx int, kind text not null, worker text, at timestamptz not null default clock_timestamp())`;
  setSql(s.sql);
  return s;
}

/** The run once it has `status`. */
export async function runInStatus(sql: Sql, runId: string, status: string) {
  return eventually(
    async () => {
      const run = await getRun(sql, runId);
      return run?.status === status ? run : null;
    },
    { message: `run ${runId} ${status}` },
  );
}

export async function effects(
  sql: Sql,
  kind?: string,
): Promise<{ run_id: string; step: string; idx: number | null; kind: string; worker: string | null }[]> {
  return kind
    ? sql`select run_id, step, idx, kind, worker from effects where kind = ${kind} order by at`
    : sql`select run_id, step, idx, kind, worker from effects order by at`;
}

/** A promise with its resolve exposed, for handlers that wait for the test. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}

/** Resolve when `signal` aborts (for handlers that block until cancelled). */
export function aborted(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(signal.reason);
    else signal.addEventListener("abort", () => resolve(signal.reason), { once: true });
  });
}
