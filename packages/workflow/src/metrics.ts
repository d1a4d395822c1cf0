// Step metrics by kind (workflow, step, queue), registered in the kit's registry so /metrics shows them.
import { Counter, Histogram } from "prom-client";
import { registry } from "@scribe/kit";

const labelNames = ["workflow", "step", "queue"];
const counter = (name: string, help: string) => new Counter({ name, help, labelNames, registers: [registry] });

export const workflowMetrics = {
  started: counter("scribe_workflow_steps_started_total", "step attempts started"),
  succeeded: counter("scribe_workflow_steps_succeeded_total", "steps that succeeded"),
  failed: counter("scribe_workflow_steps_failed_total", "steps that failed for good (the run failed)"),
  retried: counter("scribe_workflow_steps_retried_total", "failed step attempts that will be retried"),
  lost: counter("scribe_workflow_steps_lost_total", "step attempts whose worker stopped responding (killed, evicted, hung)"),
  cancelled: counter("scribe_workflow_steps_cancelled_total", "running steps aborted because their run stopped"),
  duration: new Histogram({
    name: "scribe_workflow_step_duration_seconds",
    help: "duration of step attempts, by outcome",
    labelNames: [...labelNames, "outcome"],
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 1200, 3600],
    registers: [registry],
  }),
};
