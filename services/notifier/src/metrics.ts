// Prometheus metrics of the notifier (process registry of the kit, so /metrics shows them).
import { registry } from "@scribe/kit";
import { Counter, Histogram } from "prom-client";

export const notifierMetrics = {
  /** Every attempt by channel and what came of it: delivered, retry, failed (refused), gave_up, cancelled. */
  attempts: new Counter({
    name: "scribe_notifier_attempts_total",
    help: "delivery attempts (webhook, email, zulip) by outcome",
    labelNames: ["channel", "outcome"],
    registers: [registry],
  }),
  /** Deliveries that reached a final status: delivered, failed, cancelled. */
  deliveries: new Counter({
    name: "scribe_notifier_deliveries_total",
    help: "deliveries finished, by channel and final status",
    labelNames: ["channel", "status"],
    registers: [registry],
  }),
  created: new Counter({
    name: "scribe_notifier_deliveries_created_total",
    help: "deliveries created, by channel and kind",
    labelNames: ["channel", "kind"],
    registers: [registry],
  }),
  webhookDuration: new Histogram({
    name: "scribe_webhook_attempt_duration_seconds",
    help: "duration of transcript.completed webhook attempts",
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  }),
  webhookTests: new Counter({
    name: "scribe_webhook_tests_total",
    help: "webhook test operations by result (success, failed, error)",
    labelNames: ["result"],
    registers: [registry],
  }),
};
