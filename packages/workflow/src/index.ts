// @scribe/workflow: durable DAG runs on JetStream (work-queue step messages) and Postgres
// (runs, steps, outputs), with fan-out/join, retries, timeouts, cancellation and inspection.
export * from "./definition";
export * from "./errors";
export { startRun, cancelRun, retryRun, forgetSubject, type StartOptions, type Started } from "./engine";
export {
  WorkflowWorker,
  DEFAULT_ACK_WAIT_MS,
  DEFAULT_LOST_WORKER_ATTEMPTS,
  DEFAULT_LOST_WORKER_BACKOFF,
  type WorkerOptions,
} from "./worker";
export { WorkflowWorkerConfig, workerSettings } from "./config";
export { WORKFLOW_STREAM, ensureWorkflowStream, ensureQueueConsumer, queueDurable, stepSubject } from "./bus";
export * from "./queries";
export { runOps, serveRunOps } from "./run-ops";
export * from "./migrations";
export { workflowMetrics } from "./metrics";
export type { RunStatus, StepStatus } from "./plan";
