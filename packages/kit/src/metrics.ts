// Prometheus metrics shared by every service in the process; names are prefixed `scribe_`.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: "scribe_process_" });

/** A counter in the process registry (/metrics); services define their own with it. */
export function counter(name: string, help: string, labelNames: string[] = []) {
  return new Counter({ name, help, labelNames, registers: [registry] });
}

export const metrics = {
  outboxPublished: counter("scribe_outbox_published_total", "events published by the outbox relay", ["service"]),
  outboxRefused: counter(
    "scribe_outbox_refused_total",
    "events the message server refused for good (over its max_payload), set aside and retried later",
    ["service"],
  ),
  eventsApplied: counter("scribe_events_applied_total", "events applied by consumers", ["consumer", "outcome"]),
  deadLettered: counter("scribe_events_dead_lettered_total", "events sent to the dead-letter stream", ["consumer"]),
  rpcHandled: counter("scribe_rpc_handled_total", "request/reply operations handled", ["op", "outcome"]),
  httpRequests: counter("scribe_http_requests_total", "HTTP requests served by the gateway", ["method", "route", "status"]),
  httpDuration: new Histogram({
    name: "scribe_http_request_duration_seconds",
    help: "HTTP request duration",
    labelNames: ["method", "route"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  }),
  consumerLag: new Gauge({
    name: "scribe_consumer_pending",
    help: "messages not yet delivered to a consumer (lag)",
    labelNames: ["consumer"],
    registers: [registry],
  }),
  jobSkipped: counter("scribe_job_skipped_total", "items a periodic job skipped because another worker held them", ["job"]),
  jobProcessed: counter("scribe_job_processed_total", "items a periodic job processed", ["job"]),
};
