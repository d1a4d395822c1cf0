// Shared set-up for the ai tests: quiet logger, the synthesised fixtures, and tiny local HTTP fakes.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createLogger } from "@scribe/kit";
import { synthesizeMeeting, type MeetingFixture } from "../../simulators/src/speech/synth";
import { twoSpeakerStandup } from "../../simulators/src/speech/meetings";

export const log = createLogger("ai-test", process.env.TEST_LOG_LEVEL ?? "silent");

export const MODEL_DIR = "/usr/share/pocketsphinx/model/en-us";

/**
 * Time limit for tests that run pocketsphinx (about 6 s of CPU): generous, because the suite
 * shares two cores with other work. A guard against hangs, not a performance assertion.
 */
export const HEAVY = 180_000;

export function standupFixture(): Promise<MeetingFixture> {
  return synthesizeMeeting(twoSpeakerStandup);
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: Buffer;
}

export interface FakeServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** A local HTTP server whose answers come from `handler`; every request is recorded. */
export async function fakeServer(handler: (req: RecordedRequest, res: ServerResponse) => void | Promise<void>): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const rec = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks) };
      requests.push(rec);
      void Promise.resolve(handler(rec, res)).catch((e: unknown) => {
        res.statusCode = 500;
        res.end(String(e));
      });
    });
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

export function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}
