// Read-your-writes: a mutation route waits until the read model holds the version its command
// produced. Commits announce `<version> <id>` with NOTIFY (every replica hears every commit), and
// waiters are woken in-process: no polling of the database while waiting.
import type { AwaitVersionResult } from "@scribe/contracts";

interface Waiter {
  version: number;
  wake: (version: number | null) => void;
}

export class VersionWaiters {
  private readonly byId = new Map<string, Set<Waiter>>();
  private closed = false;

  /** A NOTIFY payload from APPLIED_CHANNEL. */
  onApplied(payload: string): void {
    const space = payload.indexOf(" ");
    const version = Number(payload.slice(0, space));
    const id = payload.slice(space + 1);
    const waiters = this.byId.get(id);
    if (!waiters || !Number.isInteger(version)) return;
    for (const w of waiters) if (w.version <= version) w.wake(version);
  }

  /**
   * Resolve once `current()` reaches `version` (checked after registering, so an apply between the
   * check and the wait cannot be missed), or after `timeoutMs` with the version held then.
   */
  async wait(id: string, version: number, timeoutMs: number, current: () => Promise<number | null>): Promise<AwaitVersionResult> {
    let wake!: (v: number | null) => void;
    const woken = new Promise<number | null>((resolve) => (wake = resolve));
    const waiter: Waiter = { version, wake };
    const set = this.byId.get(id) ?? new Set<Waiter>();
    set.add(waiter);
    this.byId.set(id, set);
    const timer = setTimeout(() => wake(null), timeoutMs);
    try {
      const now = await current();
      if (now !== null && now >= version) return { reached: true, version: now };
      if (this.closed) wake(null);
      const announced = await woken;
      if (announced !== null) return { reached: true, version: announced };
      const last = await current();
      return { reached: last !== null && last >= version, version: last };
    } finally {
      clearTimeout(timer);
      set.delete(waiter);
      if (set.size === 0) this.byId.delete(id);
    }
  }

  /** Shutting down: every waiter answers now with what the model holds. */
  close(): void {
    this.closed = true;
    for (const set of this.byId.values()) for (const w of set) w.wake(null);
  }

  get pending(): number {
    let n = 0;
    for (const set of this.byId.values()) n += set.size;
    return n;
  }
}
