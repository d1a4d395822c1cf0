// A 1 GiB upload through the HTTP API (gateway + recordings service in this process), with the local
// driver and with the s3 driver (s3rver in a child process, so its memory is not counted): the
// multipart body streams into storage, the last chunk is assembled and probed. Prints the peak RSS
// against the idle process (flat = the file is never held in memory) and the throughput against a
// plain disk write of the same bytes measured in the same run. BENCH_UPLOAD_STORAGE=local|s3 picks one.
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { randomUUID } from "node:crypto";
import { spawn } from "node:child_process";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { makeEvent } from "@scribe/contracts";
import { sampleTranscriptState } from "@scribe/contracts/testing";
import { connectBus, startProcess } from "@scribe/kit";
import { TEST_NATS_URL, createTestDatabase, eventually, testPrefix } from "@scribe/kit/testing";
import { servicesByName } from "@scribe/cli";
import { SignJWT } from "jose";
import postgres from "postgres";
import { report, time } from "./report";

const SIZE = Number(process.env.BENCH_UPLOAD_BYTES ?? 1024 ** 3);
const MiB = 1024 * 1024;
const SECRET = "bench-secret-key-for-scribe-only";

/** A WAV header for `dataBytes` of 16 kHz mono PCM, then the samples, generated 1 MiB at a time. */
function wavStream(dataBytes: number): Readable {
  const header = Buffer.alloc(44);
  header.write("RIFF", 0);
  header.writeUInt32LE(Math.min(0xffffffff, 36 + dataBytes), 4);
  header.write("WAVEfmt ", 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(16000, 24);
  header.writeUInt32LE(32000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36);
  header.writeUInt32LE(Math.min(0xffffffff, dataBytes), 40);
  const block = Buffer.alloc(MiB);
  for (let i = 0; i < block.length; i += 2) block.writeInt16LE(Math.round(3000 * Math.sin(i / 20)), i);
  let sent = -1;
  return new Readable({
    read() {
      if (sent < 0) {
        sent = 0;
        return void this.push(header);
      }
      if (sent >= dataBytes) return void this.push(null);
      const n = Math.min(block.length, dataBytes - sent);
      sent += n;
      this.push(n === block.length ? block : block.subarray(0, n));
    },
  });
}

/** Samples RSS every 20 ms until stopped; returns the highest value seen. */
function rssSampler(): { stop(): number } {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage().rss);
    },
  };
}

interface Run {
  idle: number;
  peak: number;
  seconds: number;
}

async function uploadRun(storageEnv: Record<string, string>): Promise<Run> {
  const db = await createTestDatabase("benchupload");
  const prefix = testPrefix("benchup");
  const root = mkdtempSync(join(tmpdir(), "scribe-bench-upload-"));
  const env = {
    DATABASE_URL: db.url,
    NATS_URL: TEST_NATS_URL,
    NATS_PREFIX: prefix,
    PORT: "0",
    HOST: "127.0.0.1",
    OPS_PORT: "0",
    AUTH_BACKEND: "password",
    SECRET_KEY: SECRET,
    LOG_LEVEL: "warn",
    OUTBOX_POLL_MS: "200",
    STORAGE_LOCAL_ROOT: root,
    UPLOAD_MAX_BYTES: String(SIZE + MiB),
    ...storageEnv,
    // One chunk of the whole size, however long it takes: the bench measures memory, not the limits.
    UPLOAD_MAX_CHUNK_BYTES: String(SIZE + MiB),
    HTTP_REQUEST_TIMEOUT_MS: "3600000",
  };
  const running = await startProcess(servicesByName(["recordings", "gateway"]), env);
  const bus = await connectBus({ url: TEST_NATS_URL, prefix, name: "bench-upload" });
  const sql = postgres(db.url, { max: 1, onnotice: () => {} });
  try {
    const port = running.services.find((s) => s.name === "gateway")!.exports.port as number;
    const token = await new SignJWT({ email: "bench@example.com" })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("bench")
      .setExpirationTime("1h")
      .sign(new TextEncoder().encode(SECRET));

    async function transcript(): Promise<string> {
      const id = randomUUID();
      const out = makeEvent(
        "transcript.created",
        sampleTranscriptState({ id, name: "bench", status: "idle", duration: 0, user_id: "bench", source_kind: "file" }),
        { source: "bench", time: new Date() },
      );
      await bus.js.publish(bus.subject(out.subject), JSON.stringify(out.event), { msgID: out.event.id });
      await eventually(async () => (await sql`select 1 from recordings.transcript where id = ${id}`).length > 0);
      return id;
    }

    async function upload(id: string, bytes: number): Promise<void> {
      const boundary = "----scribebench";
      const head = Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="chunk"; filename="big.wav"\r\nContent-Type: audio/wav\r\n\r\n`,
      );
      const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
      const body = Readable.from(
        (async function* () {
          yield head;
          for await (const c of wavStream(bytes)) yield c as Buffer;
          yield tail;
        })(),
      );
      // node:http client: the body is written with the socket's backpressure. (undici's fetch on
      // Node 20 reads a streamed request body ahead of the socket, so this process's RSS would
      // measure the client instead of the server.)
      const res = await new Promise<{ status: number; text(): Promise<string> }>((resolve, reject) => {
        const req = request(
          {
            host: "127.0.0.1",
            port,
            method: "POST",
            path: `/v1/transcripts/${id}/record/upload?chunk_number=0&total_chunks=1`,
            headers: { authorization: `Bearer ${token}`, "content-type": `multipart/form-data; boundary=${boundary}` },
          },
          (response) => {
            const chunks: Buffer[] = [];
            response.on("data", (c: Buffer) => chunks.push(c));
            response.on("end", () => resolve({ status: response.statusCode ?? 0, text: async () => Buffer.concat(chunks).toString() }));
          },
        );
        req.on("error", reject);
        pipeline(body, req).catch(reject);
      });
      if (res.status !== 200) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
    }

    // Warm up (JIT, connections, first migrations' caches) with a small upload, then settle.
    await upload(await transcript(), 8 * MiB);
    global.gc?.();
    const idle = process.memoryUsage().rss;

    const id = await transcript();
    const sampler = rssSampler();
    const seconds = await time(() => upload(id, SIZE));
    const peak = sampler.stop();

    return { idle, peak, seconds };
  } finally {
    await sql.end();
    await running.stop();
    for (const s of ["ROOMS", "MEETINGS", "CALENDAR", "RECORDINGS", "TRANSCRIPTS", "NOTIFICATIONS", "DLQ"])
      await bus.jsm.streams.delete(bus.stream(s)).catch(() => {});
    await bus.close();
    await db.drop();
    rmSync(root, { recursive: true, force: true });
  }
}

/** s3rver as a separate process on a free port, with the transcripts bucket. */
async function startS3Server(): Promise<{ env: Record<string, string>; stop(): void }> {
  const dir = mkdtempSync(join(tmpdir(), "scribe-bench-s3-"));
  const port = await new Promise<number>((resolve) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const p = (srv.address() as AddressInfo).port;
      srv.close(() => resolve(p));
    });
  });
  const bin = fileURLToPath(new URL("../packages/kit/node_modules/.bin/s3rver", import.meta.url));
  const child = spawn(bin, ["-d", dir, "-a", "127.0.0.1", "-p", String(port), "-s", "--configure-bucket", "scribe-transcripts"], {
    stdio: "ignore",
  });
  await eventually(() => fetch(`http://127.0.0.1:${port}/`).then(() => true), { timeoutMs: 20_000, message: "s3rver started" });
  return {
    env: {
      TRANSCRIPT_STORAGE_BACKEND: "s3",
      TRANSCRIPT_STORAGE_AWS_ENDPOINT_URL: `http://127.0.0.1:${port}`,
      TRANSCRIPT_STORAGE_AWS_ACCESS_KEY_ID: "S3RVER",
      TRANSCRIPT_STORAGE_AWS_SECRET_ACCESS_KEY: "S3RVER",
      TRANSCRIPT_STORAGE_AWS_FORCE_PATH_STYLE: "true",
    },
    stop() {
      child.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export default async function bench(): Promise<void> {
  const which = process.env.BENCH_UPLOAD_STORAGE;
  const gib = (SIZE / 1024 ** 3).toFixed(2);

  const rawDir = mkdtempSync(join(tmpdir(), "scribe-bench-raw-"));
  const rawSeconds = await time(() => pipeline(wavStream(SIZE), createWriteStream(join(rawDir, "raw.wav"))));
  rmSync(rawDir, { recursive: true, force: true });
  const raw = { name: "raw disk write of the same bytes", value: SIZE / MiB / rawSeconds, unit: "MB/s" };
  report(raw);

  const show = (driver: string, run: Run) => {
    const idle = { name: `${driver}: idle process RSS`, value: run.idle / MiB, unit: "MB", label: "idle" };
    report(idle);
    report({ name: `${driver}: peak RSS during a ${gib} GiB upload (1 chunk)`, value: run.peak / MiB, unit: "MB" }, idle);
    report({ name: `${driver}: peak RSS growth`, value: (run.peak - run.idle) / MiB, unit: "MB" });
    report({ name: `${driver}: upload (stream to storage + assemble + probe)`, value: SIZE / MiB / run.seconds, unit: "MB/s" }, raw);
  };
  if (which !== "s3") show("local", await uploadRun({}));
  if (which !== "local") {
    const s3 = await startS3Server();
    try {
      show("s3", await uploadRun(s3.env));
    } finally {
      s3.stop();
    }
  }
}
