// Login rate limit: a rolling window per client address, every attempt counting, kept in PostgreSQL
// so that two gateway replicas (two connection pools here) count against one limit.
import { connectDb, migrate, serviceMigrations, type Sql } from "@scribe/kit";
import { createTestDatabase, type TestDatabase } from "@scribe/kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LoginAttemptLimiter } from "../src/auth/rate-limit";

let db: TestDatabase;
let replicaA: Sql;
let replicaB: Sql;
const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms);

beforeAll(async () => {
  db = await createTestDatabase("gwlimit");
  replicaA = connectDb(db.url, { schema: "gateway", max: 2 });
  replicaB = connectDb(db.url, { schema: "gateway", max: 2 });
  await migrate(replicaA, { schema: "gateway", migrations: serviceMigrations("gateway") });
});
afterAll(async () => {
  await replicaA.end();
  await replicaB.end();
  await db.drop();
});

describe("login rate limit", () => {
  it("allows the limit of attempts in the window and refuses the next", async () => {
    const l = new LoginAttemptLimiter(replicaA, 10, 300_000);
    for (let i = 0; i < 10; i++) expect(await l.attempt("1.2.3.4", at(1000 + i))).toBe(true);
    expect(await l.attempt("1.2.3.4", at(2000))).toBe(false);
  });

  it("counts each address on its own", async () => {
    const l = new LoginAttemptLimiter(replicaA, 2, 1000);
    expect(await l.attempt("a", at(0))).toBe(true);
    expect(await l.attempt("a", at(1))).toBe(true);
    expect(await l.attempt("a", at(2))).toBe(false);
    expect(await l.attempt("b", at(2))).toBe(true);
  });

  it("rolls: an attempt leaves the window once it is older than the window", async () => {
    const l = new LoginAttemptLimiter(replicaA, 2, 1000);
    await l.attempt("roll", at(0));
    await l.attempt("roll", at(500));
    expect(await l.attempt("roll", at(999))).toBe(false);
    expect(await l.attempt("roll", at(1000))).toBe(true); // the attempt at 0 has left
    expect(await l.attempt("roll", at(1001))).toBe(false); // 500 and 1000 are still in
  });

  it("does not extend the wait with refused attempts", async () => {
    const l = new LoginAttemptLimiter(replicaA, 1, 1000);
    await l.attempt("wait", at(0));
    for (let t = 100; t < 1000; t += 100) expect(await l.attempt("wait", at(t))).toBe(false);
    expect(await l.attempt("wait", at(1000))).toBe(true);
  });

  it("shares the limit between replicas, also for attempts arriving at once", async () => {
    const onA = new LoginAttemptLimiter(replicaA, 5, 1000);
    const onB = new LoginAttemptLimiter(replicaB, 5, 1000);
    const outcomes = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? onA : onB).attempt("shared", at(10_000 + i))));
    expect(outcomes.filter(Boolean)).toHaveLength(5);
    expect(await onB.attempt("shared", at(10_500))).toBe(false);
  });

  it("forgets addresses whose attempts all left the window", async () => {
    const l = new LoginAttemptLimiter(replicaA, 5, 1000);
    for (let i = 0; i < 20; i++) await l.attempt(`10.0.0.${i}`, at(50_000));
    await l.attempt("late", at(60_000));
    const rows = await replicaA<{ key: string }[]>`select key from login_attempts where last_attempt_at >= ${at(50_000)}`;
    expect(rows.map((r) => r.key)).toEqual(["late"]);
  });
});
