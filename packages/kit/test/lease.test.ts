// Leases between replicas (two pools, as two processes have): one holder at a time, free at once
// when given up, and a holder whose session ended (terminated, the database restarted) knows it
// no longer holds the lease while another replica takes it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectDb, type Sql } from "../src/db";
import { LeaseSession } from "../src/lease";
import { createTestDatabase, type TestDatabase } from "../src/testing";

let db: TestDatabase;
const pools: Sql[] = [];

beforeAll(async () => {
  db = await createTestDatabase("lease");
});
afterAll(async () => {
  for (const p of pools) await p.end({ timeout: 1 });
  await db.drop();
});

function replicaPool(): Sql {
  const sql = connectDb(db.url, { schema: "public", max: 1, idleTimeout: 0 });
  pools.push(sql);
  return sql;
}

describe("lease session", () => {
  it("one holder at a time; given up, another takes it at once; taking it twice holds it once", async () => {
    const a = new LeaseSession(replicaPool());
    const b = new LeaseSession(replicaPool());
    expect(await a.tryAcquire("consumer:x")).toBe(true);
    expect(await a.tryAcquire("consumer:x")).toBe(true);
    expect(await b.tryAcquire("consumer:x")).toBe(false);
    expect(await b.tryAcquire("consumer:y")).toBe(true);
    await a.release("consumer:x");
    expect(await a.holds("consumer:x")).toBe(false);
    expect(await b.tryAcquire("consumer:x")).toBe(true);
    expect(await b.holds("consumer:x")).toBe(true);
    await b.release("consumer:x");
    await b.release("consumer:y");
  });

  it("a holder whose session ended no longer holds the lease, and another replica takes it", async () => {
    const adminPool = replicaPool();
    const aPool = replicaPool();
    const a = new LeaseSession(aPool);
    const b = new LeaseSession(replicaPool());
    expect(await a.tryAcquire("consumer:z")).toBe(true);
    const [holder] = await adminPool<
      { pid: number }[]
    >`select pid from pg_locks where locktype = 'advisory' and granted and objid = hashtext('consumer:z')::oid`;
    await adminPool`select pg_terminate_backend(${holder!.pid})`;
    expect(await a.holds("consumer:z")).toBe(false);
    expect(await b.tryAcquire("consumer:z")).toBe(true);
    // The one that lost it asks again on a new connection, and waits like any standby.
    expect(await a.tryAcquire("consumer:z")).toBe(false);
    await b.release("consumer:z");
    expect(await a.tryAcquire("consumer:z")).toBe(true);
    await a.release("consumer:z");
  });
});
