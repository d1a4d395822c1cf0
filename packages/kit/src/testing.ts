// Test isolation helpers: a fresh database per test file and a unique bus prefix per test.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { evolveAll, type Decider } from "./decider";

export const TEST_ADMIN_URL = process.env.TEST_DATABASE_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
export const TEST_NATS_URL = process.env.TEST_NATS_URL ?? process.env.NATS_URL ?? "nats://127.0.0.1:4222";

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** Create an empty database for one test file; drop() removes it (and kicks stray connections). */
export async function createTestDatabase(label = "t"): Promise<TestDatabase> {
  const name = `scribe_${label
    .replace(/[^a-z0-9]/gi, "")
    .toLowerCase()
    .slice(0, 20)}_${randomBytes(4).toString("hex")}`;
  const admin = postgres(TEST_ADMIN_URL, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(TEST_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    async drop() {
      const a = postgres(TEST_ADMIN_URL, { max: 1, onnotice: () => {} });
      try {
        await a.unsafe(`drop database if exists "${name}" with (force)`);
      } finally {
        await a.end();
      }
    },
  };
}

/** A prefix for streams and subjects unique to one test (letters and digits only). */
export function testPrefix(label = "t"): string {
  return `${label
    .replace(/[^a-z0-9]/gi, "")
    .toLowerCase()
    .slice(0, 12)}${randomBytes(4).toString("hex")}`;
}

/** Poll until `fn` returns a truthy value or the deadline passes (no fixed sleeps in tests). */
export async function eventually<T>(
  fn: () => Promise<T> | T,
  opts: { timeoutMs?: number; intervalMs?: number; message?: string } = {},
): Promise<NonNullable<T>> {
  const deadline = performance.now() + (opts.timeoutMs ?? 20_000);
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as NonNullable<T>;
    } catch (e) {
      last = e;
    }
    if (performance.now() > deadline) {
      throw new Error(
        `${opts.message ?? "condition not met"} within ${opts.timeoutMs ?? 20_000} ms${last ? `: ${(last as Error).message}` : ""}`,
      );
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 50));
  }
}
export * from "./testing-s3";

/**
 * given/when/then for a `Decider` (in the style of Emmett's decider specifications):
 * `given(events).when(command).then(expectedEvents)` or `.thenThrows(check)`, where `check` is a
 * predicate on the error or the class it must be an instance of. `then` returns the events, so a
 * test can go on from them.
 */
export function deciderSpec<Command, Event, State>(
  decider: Decider<Command, Event, State>,
  /** How produced events are compared with the expected ones; a test runner's matcher allows asymmetric matchers. */
  assertEqual: (produced: Event[], expected: readonly Event[]) => void = (p, e) => assert.deepStrictEqual(p, e),
) {
  return {
    given(events: readonly Event[]) {
      return {
        when(command: Command) {
          const decide = () => decider.decide(command, evolveAll(decider, events));
          return {
            then(expected: readonly Event[]): Event[] {
              const produced = decide();
              assertEqual(produced, expected);
              return produced;
            },
            thenThrows(check: ((e: unknown) => boolean) | (abstract new (...args: never[]) => unknown)): unknown {
              let thrown: unknown;
              try {
                decide();
              } catch (e) {
                thrown = e;
              }
              if (thrown === undefined) assert.fail("expected the command to be refused, but it was decided");
              const ok =
                check.prototype instanceof Error || check === Error
                  ? thrown instanceof (check as abstract new () => unknown)
                  : (check as (e: unknown) => boolean)(thrown);
              if (!ok) throw thrown as Error; // what decide threw, passed on unchanged
              return thrown;
            },
          };
        },
      };
    },
  };
}

/** A deterministic PRNG (mulberry32): the same seed gives the same sequence in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
export * from "./testing-nats-cluster";
