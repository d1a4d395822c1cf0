// The retry rule of outgoing HTTP, as a pure function.
import { describe, expect, it } from "vitest";
import { backoffDelay, nextRetryDelay, retryAfterMs, type AttemptOutcome } from "../src/http/retry";

const policy = { attempts: 4, backoffMs: 100, maxBackoffMs: 1000 };
const now = new Date("2026-01-01T00:00:00Z");
const next = (outcome: AttemptOutcome, idempotent: boolean, attempt = 1) =>
  nextRetryDelay({ attempt, policy, idempotent, outcome, random: 0, now });

describe("backoff", () => {
  it("doubles per retry up to the maximum, with up to 10% jitter", () => {
    expect([1, 2, 3, 4, 5].map((n) => backoffDelay(n, policy, 0))).toEqual([100, 200, 400, 800, 1000]);
    expect(backoffDelay(1, policy, 0.99)).toBe(110);
  });
});

describe("Retry-After", () => {
  it("reads seconds and HTTP dates", () => {
    expect(retryAfterMs("7", now)).toBe(7000);
    expect(retryAfterMs("Thu, 01 Jan 2026 00:00:30 GMT", now)).toBe(30_000);
    expect(retryAfterMs("Wed, 31 Dec 2025 00:00:00 GMT", now)).toBe(0);
    expect(retryAfterMs("soon", now)).toBeNull();
    expect(retryAfterMs(undefined, now)).toBeNull();
  });
});

describe("whether to try again", () => {
  it("retries what never reached the server, idempotent or not", () => {
    expect(next({ kind: "not_sent" }, false)).toBe(100);
    expect(next({ kind: "not_sent" }, true)).toBe(100);
  });

  it("retries a lost connection or a 5xx/429 only for idempotent requests", () => {
    expect(next({ kind: "lost" }, true)).toBe(100);
    expect(next({ kind: "lost" }, false)).toBeNull();
    for (const status of [408, 425, 429, 500, 502, 503, 504]) {
      expect(next({ kind: "answer", status }, true)).toBe(100);
      expect(next({ kind: "answer", status }, false)).toBeNull();
    }
  });

  it("never retries a final answer or a permanent failure", () => {
    for (const status of [200, 301, 400, 401, 404, 409, 422, 501]) expect(next({ kind: "answer", status }, true)).toBeNull();
    expect(next({ kind: "permanent" }, true)).toBeNull();
  });

  it("waits as long as Retry-After asks, within its limit", () => {
    expect(next({ kind: "answer", status: 429, retryAfter: "2" }, true)).toBe(2000);
    expect(next({ kind: "answer", status: 503, retryAfter: "0" }, true)).toBe(100);
    expect(next({ kind: "answer", status: 503, retryAfter: "61" }, true)).toBeNull();
  });

  it("stops when the attempts are used up", () => {
    expect(next({ kind: "not_sent" }, true, 3)).toBe(400);
    expect(next({ kind: "not_sent" }, true, 4)).toBeNull();
  });
});
