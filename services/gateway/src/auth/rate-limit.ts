// Login rate limit: at most `limit` attempts per key (client address) in a rolling window. Every
// attempt counts, successful ones too (reference); a refused attempt does not extend the wait.
// In-process memory, as the reference: each gateway replica counts on its own.

export class SlidingWindowLimiter {
  private readonly attempts = new Map<string, number[]>();
  private lastSweep = Number.NEGATIVE_INFINITY;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    /** Above this many tracked keys, keys whose attempts all expired are swept (bounded memory). */
    private readonly sweepAbove = 10_000,
  ) {}

  /** Records an attempt at `now` and says whether it is allowed. */
  attempt(key: string, now: number): boolean {
    const since = now - this.windowMs;
    const recent = (this.attempts.get(key) ?? []).filter((t) => t > since);
    const allowed = recent.length < this.limit;
    if (allowed) recent.push(now);
    if (recent.length > 0) this.attempts.set(key, recent);
    else this.attempts.delete(key);
    // At most ten sweeps per window: with many addresses in play a sweep per attempt would cost O(n) each.
    if (this.attempts.size > this.sweepAbove && now - this.lastSweep >= this.windowMs / 10) this.sweep(now);
    return allowed;
  }

  /** Keys with attempts still inside the window (for tests and metrics). */
  get size(): number {
    return this.attempts.size;
  }

  private sweep(now: number): void {
    this.lastSweep = now;
    const since = now - this.windowMs;
    for (const [key, times] of this.attempts) {
      if (times[times.length - 1]! <= since) this.attempts.delete(key);
    }
  }
}
