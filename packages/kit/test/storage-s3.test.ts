// The s3 driver against a real S3-protocol server (s3rver) started here: the shared conformance
// suite, multipart uploads, range reads and presigned URLs.
import { GetObjectCommand } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { S3Storage, openStorage, readSmallObject, s3Client } from "../src/storage/index";
import { startTestS3, type TestS3 } from "../src/testing-s3";
import { storageConformance } from "./storage-conformance";

let s3: TestS3;
beforeAll(async () => {
  s3 = await startTestS3(["conformance", "media"]);
});
afterAll(async () => s3?.stop());

storageConformance("s3", () => openStorage(s3.config(), "conformance"));

/** A client that records the name of every command it sends (to see multipart happen). */
function recordingClient(commands: string[]) {
  const client = s3Client({
    region: "us-east-1",
    endpoint: s3.endpoint,
    forcePathStyle: true,
    accessKeyId: "S3RVER",
    secretAccessKey: "S3RVER",
  });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      commands.push(String(context.commandName));
      return next(args);
    },
    { step: "initialize" },
  );
  return client;
}

/** `size` deterministic bytes produced 64 KiB at a time, never held whole. */
function generated(size: number): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= size) return void this.push(null);
      const n = Math.min(65536, size - sent);
      const b = Buffer.allocUnsafe(n);
      for (let i = 0; i < n; i++) b[i] = (sent + i) % 253;
      sent += n;
      this.push(b);
    },
  });
}

describe("s3 storage driver", () => {
  it("uploads a large stream in parts and reads it back byte for byte", async () => {
    const commands: string[] = [];
    const s = new S3Storage(recordingClient(commands), "media", { partSize: 5 * 1024 * 1024 });
    const size = 12 * 1024 * 1024 + 123;
    expect(await s.put("big/upload.bin", generated(size))).toEqual({ size });
    expect(commands.filter((c) => c === "UploadPartCommand")).toHaveLength(3);
    expect(commands).toContain("CompleteMultipartUploadCommand");
    const got = await s.get("big/upload.bin");
    expect(got.size).toBe(size);
    let offset = 0;
    let mismatches = 0;
    for await (const chunk of got.body as AsyncIterable<Buffer>) {
      for (let i = 0; i < chunk.length; i++) if (chunk[i] !== (offset + i) % 253) mismatches++;
      offset += chunk.length;
    }
    expect(offset).toBe(size);
    expect(mismatches).toBe(0);
  });

  it("reads ranges across part boundaries", async () => {
    const s = new S3Storage(recordingClient([]), "media", { partSize: 5 * 1024 * 1024 });
    await s.put("big/ranged.bin", generated(6 * 1024 * 1024));
    const start = 5 * 1024 * 1024 - 10;
    const { body, size } = await s.get("big/ranged.bin", { range: { start, end: start + 19 } });
    expect(size).toBe(6 * 1024 * 1024);
    const chunks: Buffer[] = [];
    for await (const c of body as AsyncIterable<Buffer>) chunks.push(c);
    expect([...Buffer.concat(chunks)]).toEqual(Array.from({ length: 20 }, (_, i) => (start + i) % 253));
  });

  it("aborts a multipart upload whose source fails, leaving no object", async () => {
    const s = new S3Storage(recordingClient([]), "media", { partSize: 5 * 1024 * 1024 });
    const failing = new Readable({ read() {} });
    const done = s.put("big/failed.bin", failing);
    failing.push(Buffer.alloc(6 * 1024 * 1024));
    failing.destroy(new Error("client went away"));
    await expect(done).rejects.toThrow();
    expect(await s.head("big/failed.bin")).toBeNull();
  });

  it("presigns a GET with content type and disposition overrides that works until it expires", async () => {
    const s = openStorage(s3.config(), "media");
    await s.put("video/composed.mp4", "not really a video");
    const url = await s.presignGet("video/composed.mp4", { expiresInSeconds: 300, contentType: "video/mp4", contentDisposition: "inline" });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/media\/video\/composed\.mp4\?/);
    const res = await fetch(url!);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("video/mp4");
    expect(res.headers.get("content-disposition")).toBe("inline");
    expect(await res.text()).toBe("not really a video");

    const ranged = await fetch(url!, { headers: { range: "bytes=4-9" } });
    expect(ranged.status).toBe(206);
    expect(await ranged.text()).toBe("really");
  });

  it("refuses an expired presigned URL", async () => {
    const s = openStorage(s3.config(), "media");
    await s.put("video/expired.mp4", "x");
    // A URL signed ten minutes ago for one second: its validity is over without waiting.
    const client = s3Client({
      region: "us-east-1",
      endpoint: s3.endpoint,
      forcePathStyle: true,
      accessKeyId: "S3RVER",
      secretAccessKey: "S3RVER",
    });
    const url = await getSignedUrl(client, new GetObjectCommand({ Bucket: "media", Key: "video/expired.mp4" }), {
      expiresIn: 1,
      signingDate: new Date(Date.now() - 600_000),
    });
    const res = await fetch(url);
    expect(res.status).toBe(403);
    expect(await res.text()).toMatch(/expired/i);
  });

  it("shares one client between buckets opened with the same settings", async () => {
    const config = s3.config();
    const a = openStorage(config, "media");
    await a.put("shared/x.txt", "x");
    expect((await readSmallObject(openStorage(config, "media"), "shared/x.txt")).toString()).toBe("x");
  });
});
