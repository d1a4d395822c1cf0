// A webhook receiver as a customer would write one (node:http): it verifies each delivery's
// signature with the room's secret the way the README tells receivers to, records what came, and
// answers what the test scripts. It can go down and come back on the same port.
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  raw: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  /** The signature header verified against the secret over `<t>.<raw body>`. */
  signatureValid: boolean;
  path: string;
}

export interface Reply {
  status: number;
  body?: string;
  contentType?: string;
  /** A redirect's target. */
  location?: string;
  /** Never answer (the sender's timeout is what ends it). */
  hang?: boolean;
}

/** The README's verification recipe. */
export function verifySignature(secret: string, header: string | undefined, raw: string): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header ?? "");
  if (!m) return false;
  const expected = createHmac("sha256", secret).update(`${m[1]}.${raw}`).digest();
  return timingSafeEqual(expected, Buffer.from(m[2]!, "hex"));
}

export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  private server: Server | null = null;
  private replies: Reply[] = [];
  private fallback: Reply = { status: 200, body: "ok" };
  port = 0;

  constructor(private readonly secret: () => string | null) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks/scribe`;
  }

  /** Answer the next requests with these, in order, then with `fallback`. */
  script(...replies: Reply[]): this {
    this.replies.push(...replies);
    return this;
  }
  always(reply: Reply): this {
    this.fallback = reply;
    return this;
  }

  async up(): Promise<this> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        const secret = this.secret();
        let body: unknown;
        try {
          body = JSON.parse(raw);
        } catch {
          body = raw;
        }
        this.received.push({
          headers: req.headers,
          raw,
          body,
          signatureValid: secret !== null && verifySignature(secret, req.headers["x-webhook-signature"] as string | undefined, raw),
          path: req.url ?? "",
        });
        const reply = this.replies.shift() ?? this.fallback;
        if (reply.hang) return;
        res.writeHead(reply.status, {
          "content-type": reply.contentType ?? "text/plain",
          ...(reply.location ? { location: reply.location } : {}),
        });
        res.end(reply.body ?? "");
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.port, "127.0.0.1", () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  /** Stop listening: connections to the port are refused until up() again. */
  async down(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (!s) return;
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
}
