// A position that a writer advances in its database and announces with NOTIFY (docs/ARCHITECTURE.md,
// "Consistency: read-your-writes"): readers keep the highest announced position in memory, so a
// request whose requirement is already met pays nothing, and one that is ahead of the model waits
// for the announcement instead of polling.
import type { Sql } from "../db";
import { requiredFeedPosition } from "./versions";

export class NotifiedWatermark {
  private position = 0;
  private readonly waiters = new Set<{ position: number; wake: () => void }>();

  private constructor(private readonly read: () => Promise<number>) {}

  /**
   * Follows `channel` (payload: the position as decimal text) after reading the current position
   * with `read`, which must tell the position committed so far.
   */
  static async follow(
    sql: Sql,
    channel: string,
    read: () => Promise<number>,
  ): Promise<{ watermark: NotifiedWatermark; stop: () => Promise<void> }> {
    const watermark = new NotifiedWatermark(read);
    const listener = await sql.listen(channel, (payload) => watermark.advance(Number(payload)));
    // Read after listening: a commit between the two is announced or read, never missed.
    watermark.advance(await read());
    return { watermark, stop: () => listener.unlisten() };
  }

  get current(): number {
    return this.position;
  }

  advance(position: number): void {
    if (!Number.isSafeInteger(position) || position <= this.position) return;
    this.position = position;
    for (const w of this.waiters) if (w.position <= position) w.wake();
  }

  /**
   * Resolves true once the position reaches `required` (at once when it already has), false after
   * `timeoutMs` (the reader then answers from what the model holds). A missed announcement (a
   * listener reconnecting) is caught by reading the position once more at the end.
   */
  async reach(required: number, timeoutMs: number): Promise<boolean> {
    if (required <= this.position) return true;
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    const waiter = { position: required, wake };
    this.waiters.add(waiter);
    const timer = setTimeout(wake, timeoutMs);
    try {
      await woken;
      if (required <= this.position) return true;
      this.advance(await this.read());
      return required <= this.position;
    } finally {
      clearTimeout(timer);
      this.waiters.delete(waiter);
    }
  }
}

/** How long a read waits for a feed position: well within the gateway's deadline (RPC_TIMEOUT_MS). */
const FEED_WAIT_MS = 2_000;

/**
 * Within a request: waits until `watermark` reached the feed position of `kind` the request must
 * see (at most `timeoutMs`; then the reader answers from what it holds, as when an owner cannot be
 * reached). True when the requirement is met.
 */
export function feedPositionSeen(kind: string, watermark: NotifiedWatermark, timeoutMs = FEED_WAIT_MS): Promise<boolean> {
  return watermark.reach(requiredFeedPosition(kind), timeoutMs);
}
