// Request body limits, enforced while the body streams in: a declared Content-Length over the limit
// is refused before a byte of the body is read, a chunked body as soon as it passes the limit. The
// refusal closes the connection, so the rest of the body is never read (nor drained).
import type { ServerResponse } from "node:http";
import type { Context, MiddlewareHandler } from "hono";
import { TooLarge, type AppError } from "@scribe/kit";
import type { AppEnv } from "./context";

export interface BodyLimitSettings {
  MAX_JSON_BODY_BYTES: number;
  WEBHOOK_MAX_BODY_BYTES: number;
  UPLOAD_MAX_CHUNK_BYTES: number;
}

const WEBHOOK_PATHS = new Set(["/v1/daily/webhook", "/v1/whereby"]);
const UPLOAD_PATH = /^\/v1\/transcripts\/[^/]+\/record\/upload$/;

/** The largest body the route at `path` accepts (webhooks are small, an upload chunk has its own limit). */
export function bodyLimitFor(path: string, limits: BodyLimitSettings): { maxBytes: number; streamed: boolean } {
  if (UPLOAD_PATH.test(path)) return { maxBytes: limits.UPLOAD_MAX_CHUNK_BYTES, streamed: true };
  if (WEBHOOK_PATHS.has(path)) return { maxBytes: limits.WEBHOOK_MAX_BODY_BYTES, streamed: false };
  return { maxBytes: limits.MAX_JSON_BODY_BYTES, streamed: false };
}

export const payloadTooLarge = (maxBytes: number) => TooLarge(`Request body too large: this route accepts at most ${maxBytes} bytes`);

/** After the 413 is sent the socket goes: the client's remaining bytes are never read. */
function tooLargeClosing(c: Context<AppEnv>, maxBytes: number): AppError {
  c.header("connection", "close");
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  outgoing?.once("finish", () => outgoing.socket?.destroy());
  return payloadTooLarge(maxBytes);
}

/** Counts bytes as the handler reads them and fails the stream past `maxBytes` (nothing is buffered here). */
function countingStream(body: ReadableStream<Uint8Array>, maxBytes: number, onOverflow: () => Error): ReadableStream<Uint8Array> {
  let seen = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > maxBytes) controller.error(onOverflow());
        else controller.enqueue(chunk);
      },
    }),
  );
}

export function bodyLimit(limits: BodyLimitSettings): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const declared = c.req.header("content-length");
    const chunked = c.req.header("transfer-encoding") !== undefined;
    // A request without a body (every GET) is left as it came: reading `c.req.raw` makes the Node
    // adapter build a whole Fetch Request, a good part of a small read's cost.
    if ((declared === undefined || declared === "0") && !chunked) return next();
    const body = c.req.raw.body;
    if (!body) return next();
    const { maxBytes, streamed } = bodyLimitFor(c.req.path, limits);
    if (declared !== undefined && !chunked && Number(declared) > maxBytes) throw tooLargeClosing(c, maxBytes);
    if (streamed) {
      // Upload chunks are streamed to storage by the handler; the overflow error surfaces there.
      const counted = countingStream(body, maxBytes, () => tooLargeClosing(c, maxBytes));
      c.req.raw = new Request(c.req.raw, { body: counted, duplex: "half" } as RequestInit);
      return next();
    }
    // Small bodies: read here (at most maxBytes held), so handlers parse a complete body.
    const parts: Uint8Array[] = [];
    let size = 0;
    const reader = body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => {});
        throw tooLargeClosing(c, maxBytes);
      }
      parts.push(value);
    }
    c.req.raw = new Request(c.req.raw, { body: Buffer.concat(parts) });
    return next();
  };
}
