// Start-up against dependencies that are not there yet (a database restarting, NATS rolling): a
// service waits for them with capped exponential backoff, logging each failed attempt, instead of
// exiting; the process's readiness says what it waits for until it is connected.
import type { Logger } from "pino";
import { isDatabaseUnreachable } from "./errors";

export interface StartupBackoff {
  /** First pause after a failed attempt; doubled after each until `maxMs`. */
  initialMs: number;
  maxMs: number;
}

/** What a process is waiting for while its services start, for its readiness. */
export type StartupProgress = (waitingFor: string | null) => void;

/**
 * Runs `attempt` until it succeeds. A failure that `retryable` accepts is logged and tried again
 * after a pause (doubling up to `backoff.maxMs`); any other failure is thrown (a broken migration,
 * a bad setting). `signal` stops the wait (the process is told to stop while it waits).
 */
export async function untilConnected<T>(
  what: string,
  attempt: () => Promise<T>,
  opts: { log: Logger; backoff: StartupBackoff; retryable: (e: unknown) => boolean; progress?: StartupProgress; signal?: AbortSignal },
): Promise<T> {
  for (let attempts = 1; ; attempts++) {
    try {
      const result = await attempt();
      if (attempts > 1) opts.log.info({ attempts }, `${what}: connected`);
      return result;
    } catch (e) {
      if (!opts.retryable(e) || opts.signal?.aborted) throw e;
      const pauseMs = Math.min(opts.backoff.maxMs, opts.backoff.initialMs * 2 ** (attempts - 1));
      const reason = (e as Error).message || String(e);
      opts.log.warn({ attempts, pauseMs, err: reason }, `${what}: not reachable yet; waiting before the next attempt`);
      opts.progress?.(`waiting for ${what} (attempt ${attempts} failed: ${reason})`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pauseMs);
        opts.signal?.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
      });
      if (opts.signal?.aborted) throw e;
    }
  }
}

/** A database that is down, restarting or out of connections: worth waiting for. */
export const databaseNotUpYet = isDatabaseUnreachable;

/**
 * NATS that is down, unreachable or not serving JetStream yet. The client reports these as
 * connection errors (refused, timed out, closed), a request nobody answers (no responders, a
 * timeout) or JetStream's own 503 (a cluster without a leader); a malformed URL or refused
 * credentials are not worth waiting for.
 */
export function natsNotUpYet(e: unknown): boolean {
  const err = e as { code?: unknown; name?: unknown; message?: unknown; status?: unknown } | null;
  const text = `${String(err?.name ?? "")} ${String(err?.code ?? "")} ${String(err?.message ?? "")}`;
  if (/auth|permission|invalid url|parse/i.test(text)) return false;
  if (err?.status === 503) return true;
  return /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|CONNECTION_REFUSED|timeout|closed|disconnect|connect|no ?responders|temporarily unavailable/i.test(
    text,
  );
}
