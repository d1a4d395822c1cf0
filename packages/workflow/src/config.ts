// The worker's fault settings as environment variables, for a service that runs workflows to put
// in its config schema (every worker of a queue should be given the same values).
import { envInt } from "@scribe/kit";
import { z } from "zod";
import { DEFAULT_ACK_WAIT_MS, DEFAULT_LOST_WORKER_ATTEMPTS, DEFAULT_LOST_WORKER_BACKOFF, type WorkerOptions } from "./worker";

export const WorkflowWorkerConfig = z.object({
  WORKFLOW_ACK_WAIT_MS: envInt(DEFAULT_ACK_WAIT_MS, 1000).describe(
    "silence after which a workflow step's worker is presumed dead and another worker takes the step (live workers report progress five times per wait)",
  ),
  WORKFLOW_LOST_WORKER_ATTEMPTS: envInt(DEFAULT_LOST_WORKER_ATTEMPTS, 1, 1000).describe(
    "attempts in a row whose worker stopped responding (killed, evicted) after which a step fails; they do not use up the step's own retries",
  ),
  WORKFLOW_LOST_WORKER_BACKOFF_MAX_MS: envInt(DEFAULT_LOST_WORKER_BACKOFF.maxMs, 0).describe(
    "longest wait before retrying a step whose worker stopped responding (the first retry is at once, then 1 s doubling up to this)",
  ),
});
export type WorkflowWorkerConfig = z.infer<typeof WorkflowWorkerConfig>;

export function workerSettings(c: WorkflowWorkerConfig): Pick<WorkerOptions, "ackWaitMs" | "lostWorkerAttempts" | "lostWorkerBackoff"> {
  return {
    ackWaitMs: c.WORKFLOW_ACK_WAIT_MS,
    lostWorkerAttempts: c.WORKFLOW_LOST_WORKER_ATTEMPTS,
    lostWorkerBackoff: { maxMs: c.WORKFLOW_LOST_WORKER_BACKOFF_MAX_MS },
  };
}
