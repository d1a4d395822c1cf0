// NotifiedWatermark over real PostgreSQL LISTEN/NOTIFY, and feed positions in a version scope: a met
// requirement answers at once, a future one waits for the announcement, a missed announcement is
// caught by the last read, and a position never reached gives up after the timeout.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectDb, type Sql } from "../src/db";
import { FEED_VALUE, lookupValuesOf, reportFeedPosition, withVersionScope } from "../src/consistency/versions";
import { NotifiedWatermark, feedPositionSeen } from "../src/consistency/watermark";
import { createTestDatabase, type TestDatabase } from "../src/testing";

const CHANNEL = "test_feed";
let db: TestDatabase;
let sql: Sql;
let followed: Awaited<ReturnType<typeof NotifiedWatermark.follow>>;

beforeAll(async () => {
  db = await createTestDatabase("watermark");
  sql = connectDb(db.url, { schema: "public", max: 3 });
  await sql`create table feed (position bigint not null)`;
  await sql`insert into feed values (3)`;
  followed = await NotifiedWatermark.follow(sql, CHANNEL, async () => Number((await sql`select position from feed`)[0]!.position));
});
afterAll(async () => {
  await followed?.stop();
  await sql?.end({ timeout: 1 });
  await db?.drop();
});

/** A writer's commit: the position moves and is announced (or, to simulate a lost NOTIFY, not). */
async function commit(position: number, opts: { announce: boolean } = { announce: true }): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`update feed set position = ${position}`;
    if (opts.announce) await tx`select pg_notify(${CHANNEL}, ${String(position)})`;
  });
}

describe("NotifiedWatermark", () => {
  it("starts from the committed position and answers a met requirement at once", async () => {
    expect(followed.watermark.current).toBe(3);
    expect(await followed.watermark.reach(3, 0)).toBe(true);
  });

  it("waits for the announcement of a position ahead of it", async () => {
    const reached = followed.watermark.reach(5, 10_000);
    await commit(5);
    expect(await reached).toBe(true);
    expect(followed.watermark.current).toBe(5);
  });

  it("catches a missed announcement by reading once more when the wait ends", async () => {
    await commit(6, { announce: false });
    expect(await followed.watermark.reach(6, 50)).toBe(true);
  });

  it("gives up after the timeout when the position is never reached", async () => {
    expect(await followed.watermark.reach(100, 50)).toBe(false);
    expect(followed.watermark.current).toBe(6);
  });
});

describe("feed positions in a request's version scope", () => {
  it("every request names the feed value, so a gateway passes the known feed positions along", () => {
    expect(lookupValuesOf({ q: "x", limit: 3 })).toEqual(["x", FEED_VALUE]);
  });

  it("a reader waits for the position its request requires, and an owner reports the one it reached", async () => {
    const required = [{ kind: "room", field: "feed", value: FEED_VALUE, version: 7 }];
    const { result, written } = await withVersionScope(
      required,
      async () => null,
      async () => {
        const seen = feedPositionSeen("room", followed.watermark, 10_000);
        await commit(7);
        reportFeedPosition("room", 8);
        return seen;
      },
    );
    expect(result).toBe(true);
    expect(written).toEqual([{ kind: "room", field: "feed", value: FEED_VALUE, version: 8 }]);
    // No requirement (a request that carries no position): answered at once.
    expect(
      await withVersionScope(
        [],
        async () => null,
        () => feedPositionSeen("room", followed.watermark, 0),
      ),
    ).toMatchObject({
      result: true,
    });
  });
});
