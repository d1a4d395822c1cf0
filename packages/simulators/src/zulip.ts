// Team-chat simulator: the part of the Zulip REST API Scribe calls (GET /api/v1/streams,
// GET /api/v1/users/me/{stream_id}/topics, POST /api/v1/messages, PATCH /api/v1/messages/{id}),
// with HTTP Basic auth of the bot, form-encoded bodies and Zulip's error shapes.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { asyncListener } from "@scribe/kit";

export interface ZulipStreamSim {
  stream_id: number;
  name: string;
  topics: string[];
}
export interface ZulipMessageSim {
  id: number;
  stream: string;
  topic: string;
  content: string;
  /** How many times it was edited. */
  edits: number;
}
export interface ZulipCall {
  method: string;
  path: string;
  form: Record<string, string>;
  status: number;
}

export interface ZulipSimulator {
  /** What ZULIP_REALM is set to (a full URL: the simulator speaks plain HTTP). */
  realm: string;
  botEmail: string;
  apiKey: string;
  streams: ZulipStreamSim[];
  messages: Map<number, ZulipMessageSim>;
  calls: ZulipCall[];
  /** The next calls answer this status (an outage), then normal service resumes. */
  failNext(count: number, status?: number): void;
  close(): Promise<void>;
}

export async function startZulipSimulator(opts: { botEmail?: string; apiKey?: string } = {}): Promise<ZulipSimulator> {
  const botEmail = opts.botEmail ?? "scribe-bot@zulip.example.com";
  const apiKey = opts.apiKey ?? "zulip-test-key";
  const streams: ZulipStreamSim[] = [
    { stream_id: 1, name: "general", topics: ["meetings", "random"] },
    { stream_id: 7, name: "engineering", topics: ["standups"] },
  ];
  const messages = new Map<number, ZulipMessageSim>();
  const calls: ZulipCall[] = [];
  let nextId = 1000;
  let failures: { count: number; status: number } = { count: 0, status: 500 };
  const expectedAuth = `Basic ${Buffer.from(`${botEmail}:${apiKey}`).toString("base64")}`;

  const answer = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const error = (msg: string, code = "BAD_REQUEST") => ({ result: "error", msg, code });

  function handle(req: IncomingMessage, path: string, form: Record<string, string>): { status: number; body: unknown } {
    if (req.headers.authorization !== expectedAuth) return { status: 401, body: error("Invalid API key", "UNAUTHORIZED") };
    if (failures.count > 0) {
      failures.count--;
      return { status: failures.status, body: error("Internal server error", "INTERNAL") };
    }
    if (req.method === "GET" && path === "/api/v1/streams") {
      return {
        status: 200,
        body: {
          result: "success",
          msg: "",
          streams: streams.map((s) => ({ stream_id: s.stream_id, name: s.name, description: "", invite_only: false })),
        },
      };
    }
    const topics = /^\/api\/v1\/users\/me\/(\d+)\/topics$/.exec(path);
    if (req.method === "GET" && topics) {
      const s = streams.find((x) => x.stream_id === Number(topics[1]));
      if (!s) return { status: 400, body: error("Invalid stream ID", "BAD_REQUEST") };
      return { status: 200, body: { result: "success", msg: "", topics: s.topics.map((name, i) => ({ name, max_id: 100 + i })) } };
    }
    if (req.method === "POST" && path === "/api/v1/messages") {
      if (form.type !== "stream" || !form.to || form.content === undefined) return { status: 400, body: error("Missing 'to' argument") };
      if (!streams.some((s) => s.name === form.to))
        return { status: 400, body: error(`Stream '${form.to}' does not exist`, "STREAM_DOES_NOT_EXIST") };
      const id = nextId++;
      messages.set(id, { id, stream: form.to, topic: form.topic ?? "", content: form.content, edits: 0 });
      return { status: 200, body: { result: "success", msg: "", id } };
    }
    const edit = /^\/api\/v1\/messages\/(\d+)$/.exec(path);
    if (req.method === "PATCH" && edit) {
      const m = messages.get(Number(edit[1]));
      if (!m) return { status: 400, body: error("Invalid message(s)") };
      if (form.topic !== undefined) m.topic = form.topic;
      if (form.content !== undefined) m.content = form.content;
      m.edits++;
      return { status: 200, body: { result: "success", msg: "" } };
    }
    return { status: 404, body: error("Not found", "NOT_FOUND") };
  }

  const server = createServer(
    asyncListener(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const url = new URL(req.url ?? "/", "http://zulip");
      const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString("utf8")));
      const { status, body } = handle(req, url.pathname, form);
      calls.push({ method: req.method ?? "", path: url.pathname, form, status });
      answer(res, status, body);
    }),
  );
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    realm: `http://127.0.0.1:${port}`,
    botEmail,
    apiKey,
    streams,
    messages,
    calls,
    failNext(count, status = 500) {
      failures = { count, status };
    },
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
