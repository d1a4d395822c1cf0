// Anonymous use of a public instance (issue 15.10): uploads per client address per hour and bytes
// per client address per hour (429 with Retry-After past them, signed-in users unaffected), and
// chunks of abandoned uploads removed after a day (driven with an injected clock).
import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StorageConfig, loadConfig, openStorage } from "@scribe/kit";
import { eventually } from "@scribe/kit/testing";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { publish, transcriptState, uploadChunk } from "./support/media";
import { startSystem, type TestSystem } from "./support/system";

const KB = 1024;
let sys: TestSystem;
let db: postgres.Sql;
let storage: StorageConfig;

beforeAll(async () => {
  const env = { STORAGE_LOCAL_ROOT: mkdtempSync(join(tmpdir(), "scribe-anon-")) };
  storage = loadConfig(StorageConfig, env);
  sys = await startSystem({
    label: "limitsanon",
    services: ["recordings", "gateway"],
    env: {
      ...env,
      PUBLIC_MODE: "true",
      // The test is the proxy: X-Forwarded-For names the client.
      TRUSTED_PROXIES: "127.0.0.1,::1",
      ANONYMOUS_UPLOADS_PER_HOUR: "2",
      ANONYMOUS_UPLOAD_BYTES_PER_HOUR: String(300 * KB),
    },
  });
  db = postgres(sys.db.url, { max: 2, onnotice: () => {} });
});
afterAll(async () => {
  await db?.end();
  await sys?.stop();
});

async function transcript(userId: string | null): Promise<string> {
  const state = transcriptState(randomUUID(), { user_id: userId, meeting_id: null });
  await publish(sys.prefix, "transcript.created", state);
  await eventually(async () => (await db`select 1 from recordings.transcript where id = ${state.id}`).length > 0);
  return state.id;
}

/** One chunk of a (never finished) upload of `total` chunks, from `client` (the proxy's X-Forwarded-For): its answer. */
async function sendChunk(as: string | null, client: string, id: string, n: number, total: number, bytes: number) {
  const query = { chunk_number: n, total_chunks: total };
  const options = { type: "application/octet-stream", headers: { "x-forwarded-for": client } };
  return (await uploadChunk(sys.client(as), id, query, Buffer.alloc(bytes, n + 1), "a.mp3", options)).response;
}

describe("anonymous upload quotas (PUBLIC_MODE)", () => {
  it("refuses a client's third upload in the hour with 429 and Retry-After; another client is not affected", async () => {
    for (let i = 0; i < 2; i++) expect((await sendChunk(null, "198.51.100.1", await transcript(null), 0, 2, KB)).status).toBe(200);
    const refused = await sendChunk(null, "198.51.100.1", await transcript(null), 0, 2, KB);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await sendChunk(null, "198.51.100.2", await transcript(null), 0, 2, KB)).status).toBe(200);
  });

  it("refuses further chunks once a client stored its bytes for the hour", async () => {
    const id = await transcript(null);
    expect((await sendChunk(null, "198.51.100.3", id, 0, 3, 200 * KB)).status).toBe(200);
    expect((await sendChunk(null, "198.51.100.3", id, 1, 3, 200 * KB)).status).toBe(200);
    const refused = await sendChunk(null, "198.51.100.3", id, 2, 3, KB);
    expect(refused.status).toBe(429);
    expect(await db`select chunk_number from recordings.upload_chunk where transcript_id = ${id} order by 1`).toEqual([
      { chunk_number: 0 },
      { chunk_number: 1 },
    ]);
  });

  it("does not limit signed-in users", async () => {
    for (let i = 0; i < 3; i++)
      expect((await sendChunk("alice", "198.51.100.4", await transcript("alice"), 0, 2, 200 * KB)).status).toBe(200);
  });
});

describe("abandoned uploads", () => {
  it("removes the chunks of an upload that got nothing for a day, objects and rows", async () => {
    const id = await transcript("alice");
    expect((await sendChunk("alice", "198.51.100.5", id, 0, 2, KB)).status).toBe(200);
    const [chunk] = await db<
      { bucket: string; key: string }[]
    >`select bucket, key from recordings.upload_chunk where transcript_id = ${id}`;
    const bucket = openStorage(storage, chunk!.bucket);
    expect(await bucket.head(chunk!.key)).not.toBeNull();
    const recordings = sys.process.services.find((s) => s.name === "recordings")!.exports as {
      removeAbandonedUploads(opts: { now: Date }): Promise<number>;
    };

    await recordings.removeAbandonedUploads({ now: new Date(Date.now() + 23 * 3600_000) });
    expect(await db`select 1 from recordings.upload_chunk where transcript_id = ${id}`).toHaveLength(1);
    expect(await bucket.head(chunk!.key)).not.toBeNull();

    await recordings.removeAbandonedUploads({ now: new Date(Date.now() + 25 * 3600_000) });
    expect(await db`select 1 from recordings.upload_chunk where transcript_id = ${id}`).toHaveLength(0);
    expect(await bucket.head(chunk!.key)).toBeNull();
  });
});
