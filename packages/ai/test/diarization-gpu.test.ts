import { afterEach, describe, expect, it } from "vitest";
import { AppError } from "@scribe/kit";
import { GpuApiDiarizer } from "../src/diarization/gpu";
import { fakeServer, json, type FakeServer } from "./helpers";

const retry = { attempts: 2, backoffMs: 1, maxBackoffMs: 5 };
let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("reference GPU diarization API backend", () => {
  it("passes the audio URL as a query parameter and maps pyannote labels to speaker numbers", async () => {
    server = await fakeServer((_req, res) =>
      json(res, 200, {
        diarization: [
          { start: 2.1234, end: 3.9, speaker: "SPEAKER_01" },
          { start: 0, end: 2.1234, speaker: 0 },
        ],
      }),
    );
    const d = new GpuApiDiarizer({ baseUrl: server.url, apiKey: "k", timeoutMs: 5000, retry });
    const segments = await d.diarize("https://storage.example/a.mp3?sig=1&x=2");
    const req = server.requests[0]!;
    const url = new URL(req.url, server.url);
    expect(req.method).toBe("POST");
    expect(url.pathname).toBe("/diarize");
    expect(url.searchParams.get("audio_file_url")).toBe("https://storage.example/a.mp3?sig=1&x=2");
    expect(url.searchParams.get("timestamp")).toBe("0");
    expect(req.headers.authorization).toBe("Bearer k");
    expect(segments).toEqual([
      { start: 0, end: 2.123, speaker: 0 },
      { start: 2.123, end: 3.9, speaker: 1 },
    ]);
  });

  it("needs a URL the service can fetch", async () => {
    const d = new GpuApiDiarizer({ baseUrl: "http://127.0.0.1:9", timeoutMs: 1000, retry });
    const error = await d.diarize("/tmp/local.wav").catch((e: unknown) => e);
    expect((error as AppError).kind).toBe("invalid");
  });

  it("reports a failing service as unavailable after the retries", async () => {
    server = await fakeServer((_req, res) => json(res, 502, { detail: "bad gateway" }));
    const d = new GpuApiDiarizer({ baseUrl: server.url, timeoutMs: 5000, retry });
    const error = await d.diarize({ url: "https://storage.example/a.mp3" }).catch((e: unknown) => e);
    expect((error as AppError).kind).toBe("unavailable");
    expect(server.requests).toHaveLength(2);
  });
});
