// Test isolation helpers: a fresh database per test file and a unique bus prefix per test.
import { randomBytes } from "node:crypto";
import postgres from "postgres";

export const TEST_ADMIN_URL = process.env.TEST_DATABASE_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
export const TEST_NATS_URL = process.env.TEST_NATS_URL ?? process.env.NATS_URL ?? "nats://127.0.0.1:4222";

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** Create an empty database for one test file; drop() removes it (and kicks stray connections). */
export async function createTestDatabase(label = "t"): Promise<TestDatabase> {
  const name = `scribe_${label.replace(/[^a-z0-9]/gi, "").toLowerCase().slice(0, 20)}_${randomBytes(4).toString("hex")}`;
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
  return `${label.replace(/[^a-z0-9]/gi, "").toLowerCase().slice(0, 12)}${randomBytes(4).toString("hex")}`;
}

/** Poll until `fn` returns a truthy value or the deadline passes (no fixed sleeps in tests). */
export async function eventually<T>(fn: () => Promise<T> | T, opts: { timeoutMs?: number; intervalMs?: number; message?: string } = {}): Promise<NonNullable<T>> {
  const deadline = Date.now() + (opts.timeoutMs ?? 20_000);
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as NonNullable<T>;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) {
      throw new Error(`${opts.message ?? "condition not met"} within ${opts.timeoutMs ?? 20_000} ms${last ? `: ${(last as Error).message}` : ""}`);
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 50));
  }
}
export * from "./testing-s3";
