// The one retry rule for outgoing HTTP (pure, so it is unit-tested without servers): a request is
// repeated only when repeating cannot do something twice — it never reached the server, or it is
// idempotent — and only for failures that waiting can fix (5xx, 429, timeouts, dropped connections).
// Backoff doubles per attempt with a little jitter; a server's Retry-After is honoured.

export interface RetryPolicy {
  /** Attempts in all (1 = no retry). */
  attempts: number;
  /** First backoff in ms; doubled per attempt, plus up to 10% jitter. */
  backoffMs: number;
  maxBackoffMs: number;
  /** A Retry-After longer than this ends the retries (the answer is returned as it is); default 60 s. */
  maxRetryAfterMs?: number;
}

export const NO_RETRY: RetryPolicy = { attempts: 1, backoffMs: 0, maxBackoffMs: 0 };

/** Statuses worth another attempt: the server is busy or broken, not our request. */
export const RETRYABLE_STATUS: ReadonlySet<number> = new Set([408, 425, 429, 500, 502, 503, 504]);

/** Backoff before retry number `retry` (1-based); `random` in [0,1) makes the jitter. */
export function backoffDelay(retry: number, policy: RetryPolicy, random: number): number {
  const base = Math.min(policy.maxBackoffMs, policy.backoffMs * 2 ** (retry - 1));
  return Math.round(base * (1 + 0.1 * random));
}

/** Retry-After in ms: delta-seconds or an HTTP date (relative to `now`); null when absent or unreadable. */
export function retryAfterMs(header: string | undefined, now: Date): number | null {
  if (header === undefined || header.trim() === "") return null;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}

/** How one attempt ended, as far as retrying is concerned. */
export type AttemptOutcome =
  | { kind: "answer"; status: number; retryAfter?: string }
  /** No connection was made: nothing reached the server. */
  | { kind: "not_sent" }
  /** The connection broke or timed out after the request may have reached the server. */
  | { kind: "lost" }
  /** Waiting will not help (refused address, invalid URL, cancelled, oversized answer). */
  | { kind: "permanent" };

/**
 * Milliseconds to wait before the next attempt, or null to stop after attempt `attempt` (1-based).
 * `idempotent`: the request may be repeated even if the server already acted on it.
 */
export function nextRetryDelay(o: {
  attempt: number;
  policy: RetryPolicy;
  idempotent: boolean;
  outcome: AttemptOutcome;
  random: number;
  now: Date;
}): number | null {
  const { attempt, policy, idempotent, outcome } = o;
  if (attempt >= policy.attempts) return null;
  const backoff = backoffDelay(attempt, policy, o.random);
  switch (outcome.kind) {
    case "permanent":
      return null;
    case "not_sent":
      return backoff;
    case "lost":
      return idempotent ? backoff : null;
    case "answer": {
      if (!idempotent || !RETRYABLE_STATUS.has(outcome.status)) return null;
      const asked = retryAfterMs(outcome.retryAfter, o.now);
      if (asked === null) return backoff;
      return asked > (policy.maxRetryAfterMs ?? 60_000) ? null : Math.max(backoff, asked);
    }
  }
}
