// readThenWrite (db.ts): a transaction whose BEGIN and COMMIT are pipelined with its statements.
// What it writes commits together or not at all, and its connection goes back to the pool outside
// any transaction whatever failed (a leftover transaction would swallow the next user's writes).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectDb, readThenWrite, type Sql } from "../src/db";
import { createTestDatabase, type TestDatabase } from "../src/testing";

let db: TestDatabase;
/** One connection: every call reuses the connection the previous one released. */
let sql: Sql;
let other: Sql;

beforeAll(async () => {
  db = await createTestDatabase("kitrtw");
  sql = connectDb(db.url, { schema: "public", max: 1 });
  other = connectDb(db.url, { schema: "public", max: 1 });
  await sql`create table counter (id int primary key, n int not null)`;
  await sql`create table log (id int, note text not null)`;
  await sql`insert into counter values (1, 0)`;
});
afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await other?.end({ timeout: 5 });
  await db?.drop();
});

const counter = async () => (await other<{ n: number }[]>`select n from counter where id = 1`)[0]!.n;
const notes = async () => (await other<{ note: string }[]>`select note from log order by note`).map((r) => r.note);
/** The pool's connection is outside a transaction: an autocommit write is seen at once by another connection. */
async function released(note: string): Promise<void> {
  await sql`insert into log values (0, ${note})`;
  expect(await notes()).toContain(note);
}

const readCounter = (tx: Parameters<Parameters<typeof readThenWrite>[1]>[0]) =>
  tx<{ n: number }[]>`select n from counter where id = 1 for update`.then((rows) => rows[0]!.n);

describe("readThenWrite", () => {
  it("commits the writes decided on what it read", async () => {
    const n = await readThenWrite(sql, readCounter, async (tx, read) => {
      await Promise.all([tx`update counter set n = ${read + 1} where id = 1`, tx`insert into log values (1, 'counted')`]);
      return read + 1;
    });
    expect(n).toBe(1);
    expect(await counter()).toBe(1);
    expect(await notes()).toEqual(["counted"]);
    await released("after a commit");
  });

  it("commits none of the writes when one fails", async () => {
    const before = await counter();
    await expect(
      readThenWrite(sql, readCounter, async (tx, read) => {
        await Promise.all([tx`update counter set n = ${read + 1} where id = 1`, tx`insert into log values (2, null)`]);
      }),
    ).rejects.toThrow(/null value/);
    expect(await counter()).toBe(before);
    await released("after a failed write");
  });

  it("passes on a refusal of the decision, writing nothing", async () => {
    const before = await counter();
    await expect(
      readThenWrite(sql, readCounter, async () => {
        throw new Error("refused");
      }),
    ).rejects.toThrow("refused");
    expect(await counter()).toBe(before);
    await released("after a refusal");
  });

  it("rolls back when the read fails", async () => {
    await expect(
      readThenWrite(
        sql,
        (tx) => tx`select n from no_such_table`,
        async () => "never",
      ),
    ).rejects.toThrow(/no_such_table/);
    await released("after a failed read");
  });
});
