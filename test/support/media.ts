// Helpers for media tests: synthesised speech (espeak-ng + ffmpeg, cached), events published as
// other services would, transcript states, zip reading, consumer progress.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { newTranscript } from "./transcripts";
import { makeEvent, type EventInput, type EventType, type TranscriptState } from "@scribe/contracts";
import { connectBus, durableName } from "@scribe/kit";
import { eventually, TEST_NATS_URL } from "@scribe/kit/testing";
import type { ScribeClient } from "@scribe/client";
import yauzl from "yauzl";

const CACHE = join(tmpdir(), "scribe-test-fixtures");

/** A short spoken sentence as mp3 (generated once per machine, then read from the cache). */
export function speechMp3(text = "Hello, this is a recording uploaded to Scribe for transcription."): Buffer {
  const id = createHash("sha256").update(`espeak-ng en-us 150|ffmpeg 16k mono 64k|${text}`).digest("hex").slice(0, 16);
  const mp3 = join(CACHE, `speech-${id}.mp3`);
  if (!existsSync(mp3)) {
    mkdirSync(CACHE, { recursive: true });
    const wav = join(CACHE, `speech-${id}.${process.pid}.wav`);
    const tmp = join(CACHE, `speech-${id}.${process.pid}.mp3`);
    execFileSync("espeak-ng", ["-v", "en-us", "-s", "150", "-w", wav, text]);
    execFileSync("ffmpeg", ["-v", "error", "-y", "-i", wav, "-ar", "16000", "-ac", "1", "-c:a", "libmp3lame", "-b:a", "64k", tmp]);
    // Rename last, so a parallel test file never reads a half-written fixture.
    renameSync(tmp, mp3);
  }
  return readFileSync(mp3);
}

/** Publish an event the way its owning service's outbox relay would. */
export async function publish<T extends EventType>(prefix: string, type: T, data: EventInput<T>, source = "scribe/test"): Promise<string> {
  const out = makeEvent(type, data, { source, time: new Date() });
  const bus = await connectBus({ url: TEST_NATS_URL, prefix, name: "test-publisher" });
  try {
    await bus.js.publish(bus.subject(out.subject), JSON.stringify(out.event), { msgID: out.event.id });
  } finally {
    await bus.close();
  }
  return out.event.id;
}

/** True once a durable consumer has nothing pending or unacknowledged. */
export async function consumerCaughtUp(prefix: string, stream: string, name: string): Promise<boolean> {
  const bus = await connectBus({ url: TEST_NATS_URL, prefix, name: "test-consumer-check" });
  try {
    const info = await bus.jsm.consumers.info(bus.stream(stream), durableName(name));
    return info.num_pending === 0 && info.num_ack_pending === 0;
  } finally {
    await bus.close();
  }
}

/** A transcript state as the transcription service would announce it (file upload defaults). */
export function transcriptState(id: string, overrides: Partial<TranscriptState> = {}): TranscriptState {
  return newTranscript({ id, name: "test transcript", status: "idle", duration: 0, source_kind: "file", ...overrides });
}

/** Every entry of a zip archive with its bytes. */
export function readZip(buf: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buf, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error("no zip"));
      const out = new Map<string, Buffer>();
      zip.on("entry", (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e ?? new Error("no stream"));
          const chunks: Buffer[] = [];
          stream.on("data", (c: Buffer) => chunks.push(c));
          stream.on("end", () => {
            out.set(entry.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.on("end", () => resolve(out));
      zip.on("error", reject);
      zip.readEntry();
    });
  });
}

/** A multipart/form-data body with one file field, as browsers send it. */
export function multipart(
  field: string,
  filename: string,
  bytes: Buffer,
  type = "application/octet-stream",
): { body: Buffer; contentType: string } {
  const boundary = `----scribe${createHash("md5").update(bytes).digest("hex").slice(0, 12)}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { body: Buffer.concat([head, bytes, tail]), contentType: `multipart/form-data; boundary=${boundary}` };
}

/**
 * Upload `bytes` as one chunk through the typed client (as the CLI does: a FormData body). The
 * recordings service learns of a new transcript from its event, so a 404 is retried until it knows
 * it; any other answer is returned.
 */
export function uploadWhole(api: ScribeClient, transcriptId: string, bytes: Buffer, filename: string, type = "audio/mpeg") {
  return eventually(async () => {
    const res = await uploadChunk(api, transcriptId, { chunk_number: 0, total_chunks: 1 }, bytes, filename, { type });
    return res.response.status === 404 ? null : res;
  });
}

/** One upload chunk through the typed client, as a FormData body (the CLI's way); `headers` go on this request only. */
export function uploadChunk(
  api: ScribeClient,
  transcriptId: string,
  query: { chunk_number: number; total_chunks: number },
  bytes: Buffer,
  filename: string,
  { type = "audio/mpeg", headers }: { type?: string; headers?: Record<string, string> } = {},
) {
  const form = new FormData();
  form.append("chunk", new Blob([bytes], { type }), filename);
  return api.POST("/v1/transcripts/{transcript_id}/record/upload", {
    params: { path: { transcript_id: transcriptId }, query },
    ...(headers ? { headers } : {}),
    // The schema types the file field as a string (OpenAPI's binary); the body is the form itself.
    body: form as unknown as { chunk: string },
    bodySerializer: (body) => body as unknown as FormData,
  });
}
