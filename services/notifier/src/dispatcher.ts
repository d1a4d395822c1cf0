// The dispatcher: works off the delivery table. Each round claims the deliveries due at `now`
// (skip-locked, then leased, so replicas share them and none is attempted twice at once), makes one
// attempt of each outside any transaction, records it and schedules the next. Woken by NOTIFY when
// consumers add work, with a poll as fallback; tests drive rounds with their own clock.
import { randomUUID } from "node:crypto";
import type { Clock, Logger, Sql } from "@scribe/kit";
import { attemptChatPost } from "./channels/chat";
import type { EmailSender } from "./channels/email";
import type { AttemptResult } from "./channels/types";
import type { WebhookSender } from "./channels/webhook";
import type { ZulipClient } from "./channels/zulip";
import { afterAttempt, attemptOffsets, MESSAGE_RETRY, WEBHOOK_RETRY } from "./domain/retry";
import { notifierMetrics } from "./metrics";
import { claimDue, recordAttempt, roomById, WORK_CHANNEL, type AttemptRecord, type DeliveryRow } from "./store";

const WEBHOOK_OFFSETS = attemptOffsets(WEBHOOK_RETRY);
const MESSAGE_OFFSETS = attemptOffsets(MESSAGE_RETRY);

export interface DispatcherDeps {
  sql: Sql;
  log: Logger;
  webhooks: WebhookSender;
  email: EmailSender | null;
  zulip: ZulipClient | null;
  concurrency: number;
  /** How long a claimed delivery stays leased: longer than any attempt can take. */
  leaseMs: number;
  clock: Clock;
}

export interface Dispatcher {
  /** Attempts every delivery due at `now` (once each) and answers how many were attempted. */
  deliverDue(opts?: { now?: Date }): Promise<number>;
  /** Runs rounds until stopped: at once when woken, else every `intervalMs`. */
  start(intervalMs: number): Promise<void>;
  stop(): Promise<void>;
}

export function createDispatcher(deps: DispatcherDeps): Dispatcher {
  const { sql, log } = deps;

  async function attempt(d: DeliveryRow, now: Date): Promise<AttemptResult> {
    switch (d.channel) {
      case "webhook":
        return deps.webhooks.attempt(d, d.room_id ? await roomById(sql, d.room_id) : null, now);
      case "email":
        if (!deps.email)
          return {
            verdict: "cancel",
            statusCode: null,
            error: "e-mail is no longer configured",
            excerpt: null,
            durationMs: 0,
            eventId: null,
          };
        return deps.email.attempt(d);
      case "zulip":
        return attemptChatPost(sql, deps.zulip, d);
    }
  }

  async function process(d: DeliveryRow, token: string, now: Date): Promise<void> {
    let result: AttemptResult;
    try {
      result = await attempt(d, now);
    } catch (e) {
      // A bug or an unexpected failure: keep the delivery and try again on schedule.
      log.error({ err: e, deliveryId: d.id }, "delivery attempt failed unexpectedly");
      result = {
        verdict: "retryable",
        statusCode: null,
        error: `internal error: ${(e as Error).message}`,
        excerpt: null,
        durationMs: 0,
        eventId: null,
      };
    }
    const roundStartedAt = d.round_started_at ?? now;
    const record: AttemptRecord = {
      attempt: d.attempts,
      event_id: result.eventId,
      started_at: now,
      duration_ms: result.durationMs,
      status_code: result.statusCode,
      error: result.error,
      response_excerpt: result.excerpt,
      outcome: "retry",
    };
    let next: { status: "pending" | "delivered" | "failed" | "cancelled"; nextAttemptAt: Date | null; finishedAt: Date | null };
    if (result.verdict === "cancel") {
      record.outcome = "cancelled";
      next = { status: "cancelled", nextAttemptAt: null, finishedAt: now };
    } else {
      const step = afterAttempt(result.verdict, {
        roundStartedAt,
        roundAttempts: d.round_attempts + 1,
        now,
        offsets: d.channel === "webhook" ? WEBHOOK_OFFSETS : MESSAGE_OFFSETS,
      });
      if (step.status === "pending") next = { status: "pending", nextAttemptAt: step.nextAttemptAt, finishedAt: null };
      else {
        record.outcome = step.status === "delivered" ? "delivered" : step.reason === "refused" ? "failed" : "gave_up";
        next = { status: step.status, nextAttemptAt: null, finishedAt: now };
      }
    }
    await recordAttempt(sql, { id: d.id, token, roundStartedAt }, record, next);
    notifierMetrics.attempts.inc({ channel: d.channel, outcome: record.outcome });
    if (next.status !== "pending") notifierMetrics.deliveries.inc({ channel: d.channel, status: next.status });
    const line = {
      deliveryId: d.id,
      channel: d.channel,
      kind: d.kind,
      transcriptId: d.transcript_id,
      attempt: d.attempts,
      outcome: record.outcome,
      statusCode: result.statusCode,
      error: result.error,
      nextAttemptAt: next.nextAttemptAt,
    };
    if (record.outcome === "delivered") log.info(line, "delivered");
    else log.warn(line, "delivery attempt did not deliver");
  }

  async function deliverDue(opts: { now?: Date } = {}): Promise<number> {
    const now = opts.now ?? deps.clock();
    let total = 0;
    for (;;) {
      const token = randomUUID();
      const batch = await claimDue(sql, { now, limit: deps.concurrency, leaseMs: deps.leaseMs, token });
      if (batch.length === 0) return total;
      await Promise.all(batch.map((d) => process(d, token, now)));
      total += batch.length;
    }
  }

  let stopped = false;
  let wake: (() => void) | null = null;
  let notified = false;
  let loop: Promise<void> | null = null;
  let unlisten: (() => Promise<void>) | null = null;
  const poke = () => {
    notified = true;
    wake?.();
  };

  return {
    deliverDue,
    async start(intervalMs) {
      unlisten = (await sql.listen(WORK_CHANNEL, poke)).unlisten;
      loop = (async () => {
        let failures = 0;
        while (!stopped) {
          notified = false;
          try {
            await deliverDue();
            failures = 0;
          } catch (e) {
            failures++;
            log.warn({ err: e, failures }, "dispatch round failed; will retry");
          }
          if (stopped || notified) continue;
          const wait = failures ? Math.min(30_000, intervalMs * 2 ** Math.min(failures, 5)) : intervalMs;
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, wait);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          wake = null;
        }
      })();
    },
    async stop() {
      stopped = true;
      poke();
      // The round in flight finishes: attempts under way are recorded, nothing is left leased.
      await loop;
      await unlisten?.().catch(() => {});
    },
  };
}
