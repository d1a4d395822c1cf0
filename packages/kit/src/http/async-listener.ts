// Node's HTTP server ignores the promise an async request handler returns, so a rejection would go
// unhandled (and end the process). This adapter answers 500 instead, or drops the connection when
// the answer had already begun.
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";

export function asyncListener(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<unknown>,
  onError: (err: unknown) => void = () => {},
): RequestListener {
  return (req, res) => {
    handle(req, res).catch((err: unknown) => {
      onError(err);
      if (res.headersSent) res.destroy();
      else res.writeHead(500, { "content-type": "application/json" }).end('{"detail":"Internal Server Error"}');
    });
  };
}
