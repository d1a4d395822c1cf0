// The upload claim (services/recordings/src/store.ts): one assembly or removal of a transcript's
// upload at a time across transactions, so joining and probing run outside any transaction.
import { connectDb, migrate, serviceMigrations, type Sql } from "@scribe/kit";
import { createTestDatabase, type TestDatabase } from "@scribe/kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ASSEMBLY_LEASE_MS } from "../src/commands";
import { claimUpload, releaseUpload } from "../src/store";

let db: TestDatabase;
let sql: Sql;
beforeAll(async () => {
  db = await createTestDatabase("rclaim");
  sql = connectDb(db.url, { schema: "recordings", max: 2 });
  await migrate(sql, { schema: "recordings", migrations: serviceMigrations("recordings") });
});
afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await db?.drop();
});

const now = new Date("2026-11-24T12:00:00Z");
const staleBefore = (at: Date) => new Date(at.getTime() - ASSEMBLY_LEASE_MS);

describe("upload claim", () => {
  it("refuses a second claim while the first holds, after its transaction committed", async () => {
    expect(await sql.begin((tx) => claimUpload(tx, "t1", now, staleBefore(now)))).toBe(true);
    expect(await claimUpload(sql, "t1", now, staleBefore(now))).toBe(false);
    expect(await claimUpload(sql, "t2", now, staleBefore(now))).toBe(true);
  });
  it("is free again once released", async () => {
    await releaseUpload(sql, "t1");
    expect(await claimUpload(sql, "t1", now, staleBefore(now))).toBe(true);
  });
  it("is taken over once older than the lease (its process died mid-assembly)", async () => {
    const later = new Date(now.getTime() + ASSEMBLY_LEASE_MS + 1000);
    expect(await claimUpload(sql, "t2", later, staleBefore(later))).toBe(true);
    expect(await claimUpload(sql, "t2", later, staleBefore(later))).toBe(false);
  });
});
