// Request size and time limits of the public API (issue 15.2, 15.3): every route's body is bounded
// while it streams in, whatever its content type; uploads bound the chunk count and chunk size; a
// body that trickles is cut off. Sizes are checked from the client's side: the server answered
// before the client could push the limit plus socket buffers.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { eventually } from "@scribe/kit/testing";
import { issuesOf } from "@scribe/client";
import { multipart, publish, transcriptState, uploadChunk } from "./support/media";
import { rawRequest } from "./support/raw-http";
import { startSystem, type TestSystem } from "./support/system";

const WEBHOOK_LIMIT = 64 * 1024;
const JSON_LIMIT = 256 * 1024;
const CHUNK_LIMIT = 512 * 1024;
const MAX_CHUNKS = 500;
const REQUEST_TIMEOUT_MS = 2000;
/** Loopback socket buffers on both ends hold a few MB the server never read. */
const SOCKET_SLACK = 16 * 1024 ** 2;
const BIG = 96 * 1024 ** 2;

let sys: TestSystem;
let db: postgres.Sql;

beforeAll(async () => {
  sys = await startSystem({
    label: "limitsbody",
    services: ["recordings", "gateway"],
    env: {
      STORAGE_LOCAL_ROOT: mkdtempSync(join(tmpdir(), "scribe-limits-")),
      WEBHOOK_MAX_BODY_BYTES: String(WEBHOOK_LIMIT),
      MAX_JSON_BODY_BYTES: String(JSON_LIMIT),
      UPLOAD_MAX_CHUNK_BYTES: String(CHUNK_LIMIT),
      UPLOAD_MAX_CHUNKS: String(MAX_CHUNKS),
      HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    },
  });
  db = postgres(sys.db.url, { max: 2, onnotice: () => {} });
});
afterAll(async () => {
  await db?.end();
  await sys?.stop();
});

async function aliceTranscript(): Promise<string> {
  const state = transcriptState(randomUUID(), { user_id: "alice", meeting_id: null });
  await publish(sys.prefix, "transcript.created", state);
  await eventually(async () => (await db`select 1 from recordings.transcript where id = ${state.id}`).length > 0);
  return state.id;
}

describe("body limits, enforced while the body streams in", () => {
  it("refuses a huge anonymous multipart webhook body before more than its limit is read (chunked)", async () => {
    const out = await rawRequest({
      baseUrl: sys.baseUrl,
      path: "/v1/daily/webhook",
      headers: { "content-type": "multipart/form-data; boundary=x" },
      totalBytes: BIG,
      pieceBytes: 64 * 1024,
      chunked: true,
    });
    expect(out.status).toBe(413);
    expect(out.completed).toBe(false);
    expect(out.bodyBytesSent).toBeLessThan(WEBHOOK_LIMIT + SOCKET_SLACK);
  });

  it("refuses a declared Content-Length over the limit before reading the body", async () => {
    const out = await rawRequest({
      baseUrl: sys.baseUrl,
      path: "/v1/whereby",
      headers: { "content-type": "application/json" },
      totalBytes: BIG,
      pieceBytes: 64 * 1024,
    });
    expect(out.status).toBe(413);
    expect(out.bodyBytesSent).toBeLessThan(WEBHOOK_LIMIT + SOCKET_SLACK);
  });

  it("gives JSON routes the JSON limit whatever content type is claimed", async () => {
    const token = await sys.token("alice");
    const out = await rawRequest({
      baseUrl: sys.baseUrl,
      path: "/v1/transcripts",
      headers: { "content-type": "multipart/form-data; boundary=x", authorization: `Bearer ${token}` },
      totalBytes: BIG,
      pieceBytes: 64 * 1024,
      chunked: true,
    });
    expect(out.status).toBe(413);
    expect(out.bodyBytesSent).toBeLessThan(JSON_LIMIT + SOCKET_SLACK);

    const fits = { email: "nobody@example.com", password: "a".repeat(JSON_LIMIT / 2) };
    expect((await sys.client(null).POST("/v1/auth/login", { body: fits })).response.status).toBe(401);
  });

  it("gives an upload chunk the chunk limit, streamed or declared", async () => {
    const id = await aliceTranscript();
    const token = await sys.token("alice");
    const boundary = "----scribelimits";
    const streamed = await rawRequest({
      baseUrl: sys.baseUrl,
      path: `/v1/transcripts/${id}/record/upload?chunk_number=0&total_chunks=2`,
      headers: { "content-type": `multipart/form-data; boundary=${boundary}`, authorization: `Bearer ${token}` },
      totalBytes: BIG,
      pieceBytes: 64 * 1024,
      chunked: true,
    });
    expect(streamed.status).toBe(413);
    expect(streamed.bodyBytesSent).toBeLessThan(CHUNK_LIMIT + SOCKET_SLACK);

    // Raw: a body over the limit, its size declared up front.
    const { body, contentType } = multipart("chunk", "a.mp3", Buffer.alloc(CHUNK_LIMIT + 1));
    const declared = await sys.as("alice")(`/v1/transcripts/${id}/record/upload?chunk_number=0&total_chunks=2`, {
      method: "POST",
      body,
      headers: { "content-type": contentType },
    });
    expect(declared.status).toBe(413);
    // Nothing of the refused chunks is kept.
    await eventually(async () => (await db`select 1 from recordings.upload_chunk where transcript_id = ${id}`).length === 0);
  });
});

describe("upload chunk count", () => {
  it("refuses total_chunks over the limit with a 422 naming it", async () => {
    const id = await aliceTranscript();
    const res = await uploadChunk(sys.client("alice"), id, { chunk_number: 0, total_chunks: 1_000_000_000 }, Buffer.alloc(100), "a.mp3");
    expect(res.response.status).toBe(422);
    expect(issuesOf(res.error)[0]?.loc).toEqual(["query", "total_chunks"]);
    expect(await db`select 1 from recordings.upload_chunk where transcript_id = ${id}`).toEqual([]);
  });

  it("names a bounded list of missing chunks when the last arrives early", async () => {
    const id = await aliceTranscript();
    const query = { chunk_number: MAX_CHUNKS - 1, total_chunks: MAX_CHUNKS };
    const res = await uploadChunk(sys.client("alice"), id, query, Buffer.alloc(100), "a.mp3");
    expect(res.response.status).toBe(400);
    const detail = String(res.error?.detail);
    expect(detail).toMatch(/^Upload incomplete: chunk\(s\) 0, 1, 2, .*, … missing$/);
    expect(detail.split(",").length).toBeLessThanOrEqual(21);
  });
});

describe("request time limit", () => {
  it("cuts off a body that trickles in past HTTP_REQUEST_TIMEOUT_MS", async () => {
    // 150 bytes, one every 100 ms: far longer than the limit, far shorter than Node's default checks.
    const out = await rawRequest({
      baseUrl: sys.baseUrl,
      path: "/v1/whereby",
      headers: { "content-type": "application/json" },
      totalBytes: 150,
      pieceBytes: 1,
      pauseMs: 100,
    });
    expect(out.completed).toBe(false);
    expect([408, null]).toContain(out.status);
  });
});
