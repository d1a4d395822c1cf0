// Headers a middleware adds to the answer once the route made it. Set through hono's `c.header`
// after that (or on `c.res` before the route runs, as hono's cors middleware does), they make hono
// copy the answer into a new Response around its body as a stream, which loses the Node adapter's
// fast path for a body of text or bytes: a fifth of a small read's CPU in the gateway
// (transcript-reads bench). Set on the answer's own headers they cost nothing; only an answer with
// immutable headers (one fetch() returned) is copied, by `c.header`.
import type { Context } from "hono";

export function setAnswerHeader(c: Context, name: string, value: string, opts: { append?: boolean } = {}): void {
  try {
    if (opts.append) c.res.headers.append(name, value);
    else c.res.headers.set(name, value);
  } catch {
    c.header(name, value, opts);
  }
}
