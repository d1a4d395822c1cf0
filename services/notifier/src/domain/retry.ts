// When deliveries are attempted again: exponential backoff over a window, and which failures are
// worth retrying. Pure: every decision takes `now`.

export interface BackoffPolicy {
  /** Delay before the first retry. */
  firstDelayMs: number;
  factor: number;
  /** Delays stop growing here. */
  maxDelayMs: number;
  /** The last attempt lands as near to this (after the first attempt) as the delays allow. */
  windowMs: number;
}

/**
 * Webhooks (decision: 24 hours, last attempt within 5 % of it): the documented reference policy
 * — 60 s, doubling, capped at one hour — run until the window is used. Offsets 0, 60 s, 3 min,
 * 7 min, 15 min, 31 min, 63 min, then hourly: 30 attempts, the last 24 h 3 min after the first.
 */
export const WEBHOOK_RETRY: BackoffPolicy = { firstDelayMs: 60_000, factor: 2, maxDelayMs: 3_600_000, windowMs: 24 * 3_600_000 };

/**
 * E-mail and team-chat posts: a failing server is usually back within minutes, and a message an
 * hour late is still useful, one a day late rarely: 30 s doubling to 15 min over one hour (9 attempts).
 */
export const MESSAGE_RETRY: BackoffPolicy = { firstDelayMs: 30_000, factor: 2, maxDelayMs: 900_000, windowMs: 3_600_000 };

/**
 * Offsets from the first attempt of every attempt (the first is 0). Delays grow by `factor` up to
 * `maxDelayMs`; the count is chosen so the last offset is the one nearest to `windowMs`.
 */
export function attemptOffsets(p: BackoffPolicy): number[] {
  const offsets = [0];
  let delay = p.firstDelayMs;
  for (;;) {
    const last = offsets[offsets.length - 1]!;
    const next = last + delay;
    if (next >= p.windowMs) {
      if (next - p.windowMs < p.windowMs - last) offsets.push(next);
      return offsets;
    }
    offsets.push(next);
    delay = Math.min(delay * p.factor, p.maxDelayMs);
  }
}

/** What an attempt's result means for the delivery. */
export type Verdict = "delivered" | "retryable" | "permanent";

/** An HTTP answer: 2xx delivered; 4xx refused for good except 408 (timeout) and 429 (slow down). */
export function httpVerdict(status: number): Verdict {
  if (status >= 200 && status < 300) return "delivered";
  if (status >= 400 && status < 500 && status !== 408 && status !== 429) return "permanent";
  return "retryable";
}

export type NextStep =
  { status: "delivered" } | { status: "failed"; reason: "refused" | "window_passed" } | { status: "pending"; nextAttemptAt: Date };

/**
 * After an attempt of a round that started at `roundStartedAt` (its first attempt) and had made
 * `roundAttempts` attempts including this one: the next attempt is the first scheduled slot still
 * in the future. Slots missed while the service was down are skipped, not made back to back, so the
 * schedule still ends where it would have; past the last slot the delivery has failed.
 */
export function afterAttempt(
  verdict: Verdict,
  opts: { roundStartedAt: Date; roundAttempts: number; now: Date; offsets: readonly number[] },
): NextStep {
  if (verdict === "delivered") return { status: "delivered" };
  if (verdict === "permanent") return { status: "failed", reason: "refused" };
  const start = opts.roundStartedAt.getTime();
  for (let k = Math.max(1, opts.roundAttempts); k < opts.offsets.length; k++) {
    const at = start + opts.offsets[k]!;
    if (at > opts.now.getTime()) return { status: "pending", nextAttemptAt: new Date(at) };
  }
  return { status: "failed", reason: "window_passed" };
}
