// What both video-platform simulators share: a small JSON HTTP server with bearer-key auth, webhook
// delivery, and encoding of recording files into the platform's bucket (through @scribe/media).
import { createReadStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { asyncListener, type ObjectStorage } from "@scribe/kit";
import { probe, renderTestVideo, renderTone, transcode, type AudioFormat } from "@scribe/media";

export interface SimRequest {
  method: string;
  /** Path below the API root, without the query string. */
  path: string;
  query: URLSearchParams;
  body: unknown;
}
export interface SimResponse {
  status: number;
  body?: unknown;
}
export type SimHandler = (req: SimRequest) => SimResponse | Promise<SimResponse>;

/** Every API call a simulator received, for assertions. */
export interface LoggedCall extends SimRequest {
  status: number;
}

export async function startJsonServer(opts: {
  apiKey: string;
  handle: SimHandler;
  calls: LoggedCall[];
  /** Fixed port (`scribe dev`); default any free one. */
  port?: number;
}): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(
    asyncListener(async (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const url = new URL(req.url ?? "/", "http://sim");
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        return send(res, { status: 400, body: { error: "invalid-request-error", info: "body is not JSON" } });
      }
      const request: SimRequest = { method: req.method ?? "GET", path: url.pathname.replace(/^\/v1/, ""), query: url.searchParams, body };
      let response: SimResponse;
      if (req.headers.authorization !== `Bearer ${opts.apiKey}`) {
        response = { status: 401, body: { error: "authentication-error", info: "missing or wrong API key" } };
      } else {
        try {
          response = await opts.handle(request);
        } catch (e) {
          response = { status: 500, body: { error: "server-error", info: (e as Error).message } };
        }
      }
      opts.calls.push({ ...request, status: response.status });
      send(res, response);
    }),
  );
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function send(res: ServerResponse, r: SimResponse): void {
  if (r.body === undefined) {
    res.writeHead(r.status).end();
    return;
  }
  res.writeHead(r.status, { "content-type": "application/json" }).end(JSON.stringify(r.body));
}

export interface Delivery {
  status: number;
  body: string;
}

/** POST a signed webhook; `rawBody` is sent byte for byte. */
export async function postWebhook(url: string | null, rawBody: string, headers: Record<string, string>): Promise<Delivery> {
  if (!url) throw new Error("simulator has no webhook URL: call setWebhookUrl() first");
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: rawBody });
  return { status: res.status, body: await res.text() };
}

export type Encoding = "webm-opus" | "webm-vp8" | "mp4-aac";

const AUDIO_FORMATS: Record<Exclude<Encoding, "webm-vp8">, AudioFormat> = {
  "webm-opus": { kind: "opus", bitrateKbps: 32 },
  "mp4-aac": { kind: "aac", bitrateKbps: 48 },
};

/**
 * Encode `input` (an audio file; null = a generated 2 s tone) and store it under `key`; "webm-vp8"
 * is always a 1 s test picture without audio. Returns the stored size and the media duration in seconds.
 */
export async function encodeInto(
  storage: ObjectStorage,
  key: string,
  input: string | null,
  encoding: Encoding,
): Promise<{ size: number; duration: number }> {
  const dir = await mkdtemp(join(tmpdir(), "scribe-sim-"));
  const out = join(dir, encoding === "mp4-aac" ? "out.mp4" : "out.webm");
  try {
    if (encoding === "webm-vp8") await renderTestVideo(out, { seconds: 1 });
    else if (input !== null) await transcode(input, out, { format: AUDIO_FORMATS[encoding] });
    else await renderTone(out, { seconds: 2, freq: 440, sampleRate: 48_000, format: AUDIO_FORMATS[encoding] });
    const duration = (await probe(out)).duration ?? 0;
    const { size } = await storage.put(key, createReadStream(out));
    return { size, duration };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
