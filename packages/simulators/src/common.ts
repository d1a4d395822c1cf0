// What both video-platform simulators share: a small JSON HTTP server with bearer-key auth, webhook
// delivery, and ffmpeg encoding of recording files into the platform's bucket.
import { spawn } from "node:child_process";
import { createReadStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ObjectStorage } from "@scribe/kit";

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
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? "/", "http://sim");
    const text = Buffer.concat(chunks).toString("utf8");
    let body: unknown = null;
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
  });
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

function run(cmd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    p.stdout.on("data", (d: Buffer) => (out += d.toString()));
    p.stderr.on("data", (d: Buffer) => (err += d.toString()));
    p.on("error", reject);
    p.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`${cmd} exited ${code}: ${err.slice(-500)}`))));
  });
}

export type Encoding = "webm-opus" | "webm-vp8" | "mp4-aac";

const CODEC_ARGS: Record<Encoding, string[]> = {
  "webm-opus": ["-vn", "-c:a", "libopus", "-b:a", "32k", "-f", "webm"],
  "webm-vp8": ["-an", "-c:v", "libvpx", "-b:v", "100k", "-f", "webm"],
  "mp4-aac": ["-vn", "-c:a", "aac", "-b:a", "48k", "-movflags", "+faststart", "-f", "mp4"],
};

/**
 * Encode `input` (an audio file; null = a generated 2 s tone, or 1 s test picture for video) and
 * store it under `key`. Returns the stored size and the media duration in seconds.
 */
export async function encodeInto(storage: ObjectStorage, key: string, input: string | null, encoding: Encoding): Promise<{ size: number; duration: number }> {
  const dir = await mkdtemp(join(tmpdir(), "scribe-sim-"));
  const out = join(dir, encoding === "mp4-aac" ? "out.mp4" : "out.webm");
  try {
    const source =
      input !== null
        ? ["-i", input]
        : encoding === "webm-vp8"
          ? ["-f", "lavfi", "-i", "testsrc=size=160x120:rate=10:duration=1"]
          : ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=2"];
    await run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", ...source, ...CODEC_ARGS[encoding], out]);
    const duration = Number((await run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", out])).trim()) || 0;
    const { size } = await storage.put(key, createReadStream(out));
    return { size, duration };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
