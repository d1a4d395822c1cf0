import { afterEach, describe, expect, it } from "vitest";
import { AppError } from "@scribe/kit";
import { OpenAiStt } from "../src/stt/openai";
import { GpuApiStt } from "../src/stt/gpu";
import { fakeServer, json, log, standupFixture, type FakeServer, type RecordedRequest } from "./helpers";

const retry = { attempts: 3, backoffMs: 1, maxBackoffMs: 5 };
let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Seconds of audio in an uploaded multipart body (its one WAV part, 16 kHz 16-bit mono). */
function uploadedSeconds(req: RecordedRequest): number {
  const riff = req.body.indexOf("RIFF");
  return req.body.readUInt32LE(riff + 40) / 32000;
}

function field(req: RecordedRequest, name: string): string | undefined {
  const m = new RegExp(`name="${name.replace(/[[\]]/g, "\\$&")}"\\r\\n\\r\\n([^\\r]*)`).exec(req.body.toString("latin1"));
  return m?.[1];
}

describe("OpenAI-compatible transcription backend", () => {
  it("uploads WAV chunks with word granularity and shifts each chunk's words by its offset", async () => {
    server = await fakeServer((req, res) =>
      json(res, 200, {
        text: "hello world",
        language: "english",
        // OpenAI gives words without spaces; a chunk's times start at 0.
        words: [
          { word: "hello", start: 0.5, end: 0.9 },
          { word: " world", start: 1.0, end: 1.4 },
        ],
      }),
    );
    const fx = await standupFixture();
    const stt = new OpenAiStt({
      baseUrl: server.url,
      apiKey: "sk-test",
      model: "whisper-1",
      timeoutMs: 5000,
      retry,
      chunkSeconds: 12,
      logger: log,
    });
    const result = await stt.transcribe(fx.mixPath, { language: "en" });

    expect(server.requests.length).toBeGreaterThanOrEqual(3);
    const first = server.requests[0]!;
    expect(first.url).toBe("/v1/audio/transcriptions");
    expect(first.headers.authorization).toBe("Bearer sk-test");
    expect(first.headers["content-type"]).toMatch(/^multipart\/form-data/);
    expect(field(first, "model")).toBe("whisper-1");
    expect(field(first, "response_format")).toBe("verbose_json");
    expect(field(first, "timestamp_granularities[]")).toBe("word");
    expect(field(first, "language")).toBe("en");

    let offset = 0;
    for (let i = 0; i < server.requests.length; i++) {
      expect(result.words[2 * i]).toEqual({
        text: " hello",
        start: +(offset + 0.5).toFixed(3),
        end: +(offset + 0.9).toFixed(3),
        confidence: null,
      });
      expect(result.words[2 * i + 1]!.text).toBe(" world");
      const seconds = uploadedSeconds(server.requests[i]!);
      expect(seconds).toBeLessThanOrEqual(12);
      offset += seconds;
    }
    expect(offset).toBeCloseTo(fx.truth.duration, 1);
    expect(result.language).toBe("en");
  });

  it("retries a busy server and then succeeds", async () => {
    let calls = 0;
    server = await fakeServer((_req, res) => {
      calls++;
      if (calls === 1) return json(res, 503, { error: "busy" });
      json(res, 200, { text: "ok", words: [{ word: " ok", start: 0.1, end: 0.2 }] });
    });
    const fx = await standupFixture();
    const stt = new OpenAiStt({ baseUrl: server.url, model: "whisper-1", timeoutMs: 5000, retry, chunkSeconds: 600 });
    const result = await stt.transcribe(fx.mixPath, { language: "en" });
    expect(calls).toBe(2);
    expect(result.words.map((w) => w.text)).toEqual([" ok"]);
  });

  it("refuses without retrying when the server rejects the request (401)", async () => {
    server = await fakeServer((_req, res) => json(res, 401, { detail: "Invalid API key" }));
    const fx = await standupFixture();
    const stt = new OpenAiStt({ baseUrl: server.url, model: "whisper-1", timeoutMs: 5000, retry, chunkSeconds: 600 });
    const error = await stt.transcribe(fx.mixPath, { language: "en" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).kind).toBe("invalid");
    expect((error as AppError).message).toContain("401");
    expect(server.requests).toHaveLength(1);
  });

  it("reports a server that never answers as unavailable (retryable) after the attempts", async () => {
    server = await fakeServer(() => {
      /* never answers */
    });
    const fx = await standupFixture();
    const stt = new OpenAiStt({
      baseUrl: server.url,
      model: "whisper-1",
      timeoutMs: 300,
      retry: { ...retry, attempts: 2 },
      chunkSeconds: 600,
    });
    const error = await stt.transcribe(fx.mixPath, { language: "en" }).catch((e: unknown) => e);
    expect((error as AppError).kind).toBe("unavailable");
    expect((error as AppError).message).toMatch(/after 2 attempts.*no answer within 300 ms/);
    expect(server.requests).toHaveLength(2);
  });

  it("reports a server that is down as unavailable", async () => {
    server = await fakeServer(() => {});
    const url = server.url;
    await server.close();
    server = undefined;
    const fx = await standupFixture();
    const stt = new OpenAiStt({ baseUrl: url, model: "whisper-1", timeoutMs: 2000, retry: { ...retry, attempts: 2 }, chunkSeconds: 600 });
    const error = await stt.transcribe(fx.mixPath, { language: "en" }).catch((e: unknown) => e);
    expect((error as AppError).kind).toBe("unavailable");
    expect((error as AppError).message).toContain("ECONNREFUSED");
  });

  it("treats an answer in the wrong shape as a bad answer (not retryable)", async () => {
    server = await fakeServer((_req, res) => json(res, 200, { words: [{ text: "no word field" }] }));
    const fx = await standupFixture();
    const stt = new OpenAiStt({ baseUrl: server.url, model: "whisper-1", timeoutMs: 5000, retry, chunkSeconds: 600 });
    const error = await stt.transcribe(fx.mixPath, { language: "en" }).catch((e: unknown) => e);
    expect((error as AppError).kind).toBe("invalid");
    expect(server.requests).toHaveLength(1);
  });
});

describe("reference GPU transcription API backend", () => {
  it("asks the service to fetch a URL and sorts the words it returns", async () => {
    server = await fakeServer((req, res) => {
      expect(req.url).toBe("/v1/audio/transcriptions-from-url");
      json(res, 200, {
        text: "Hello there. Bye.",
        words: [
          { word: " Bye.", start: 3.0, end: 3.4 },
          { word: " Hello", start: 0.2, end: 0.5 },
          { word: " there.", start: 0.5, end: 0.9 },
        ],
      });
    });
    const stt = new GpuApiStt({
      baseUrl: server.url,
      apiKey: "gpu-key",
      model: "whisper-1",
      timeoutMs: 5000,
      fileTimeoutMs: 5000,
      retry,
      chunkSeconds: 600,
    });
    const result = await stt.transcribe({ url: "https://storage.example/audio.mp3?X-Amz-Signature=abc" }, { language: "en" });
    const req = server.requests[0]!;
    expect(req.headers.authorization).toBe("Bearer gpu-key");
    expect(JSON.parse(req.body.toString())).toEqual({
      audio_file_url: "https://storage.example/audio.mp3?X-Amz-Signature=abc",
      language: "en",
      batch: true,
    });
    expect(result.words.map((w) => w.text).join("")).toBe(" Hello there. Bye.");
    expect(result.words.map((w) => w.start)).toEqual([0.2, 0.5, 3.0]);
  });

  it("uploads a local file to the same service's OpenAI-compatible endpoint", async () => {
    server = await fakeServer((req, res) => {
      expect(req.url).toBe("/v1/audio/transcriptions");
      json(res, 200, { text: "hi", words: [{ word: " hi", start: 0.1, end: 0.3 }] });
    });
    const fx = await standupFixture();
    const stt = new GpuApiStt({ baseUrl: server.url, model: "whisper-1", timeoutMs: 5000, fileTimeoutMs: 5000, retry, chunkSeconds: 600 });
    const result = await stt.transcribe(fx.mixPath, { language: "en" });
    expect(field(server.requests[0]!, "model")).toBe("whisper-1");
    expect(result.words).toEqual([{ text: " hi", start: 0.1, end: 0.3, confidence: null }]);
  });
});
