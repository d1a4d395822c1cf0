// HTTP requests over a raw socket, for what fetch hides: how much of a body the server let the client
// send before it answered (fetch reads a streamed request body ahead of the socket), and bodies that
// trickle in.
import { connect, type Socket } from "node:net";

export interface RawOutcome {
  /** Status line of the answer, or null when the connection ended without one. */
  status: number | null;
  /** Body bytes the socket accepted before the answer (or the end of the connection) arrived. */
  bodyBytesSent: number;
  /** Whether the whole body was sent. */
  completed: boolean;
}

export interface RawRequest {
  baseUrl: string;
  method?: string;
  path: string;
  headers: Record<string, string>;
  /** The body is `totalBytes` bytes, written `pieceBytes` at a time… */
  totalBytes: number;
  pieceBytes: number;
  /** …waiting this long between pieces (0: as fast as the socket takes them). */
  pauseMs?: number;
  /** Send the body with chunked transfer encoding instead of a Content-Length. */
  chunked?: boolean;
}

/** Sends the request; stops writing as soon as an answer arrives or the connection ends. */
export function rawRequest(r: RawRequest): Promise<RawOutcome> {
  const url = new URL(r.baseUrl);
  return new Promise((resolve) => {
    const socket: Socket = connect(Number(url.port), url.hostname);
    let received = "";
    let sent = 0;
    let done = false;
    let status: number | null = null;
    const finish = () => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve({ status, bodyBytesSent: sent, completed: sent >= r.totalBytes });
    };
    socket.on("data", (d: Buffer) => {
      received += d.toString("latin1");
      const m = /^HTTP\/1\.1 (\d{3})/.exec(received);
      if (m && status === null) {
        status = Number(m[1]);
        finish();
      }
    });
    socket.on("error", finish);
    socket.on("close", finish);
    const sendRequest = async () => {
      const lengthHeader = r.chunked ? { "transfer-encoding": "chunked" } : { "content-length": String(r.totalBytes) };
      const headers = { host: url.host, ...r.headers, ...lengthHeader };
      socket.write(
        `${r.method ?? "POST"} ${r.path} HTTP/1.1\r\n${Object.entries(headers)
          .map(([k, v]) => `${k}: ${v}\r\n`)
          .join("")}\r\n`,
      );
      const piece = Buffer.alloc(r.pieceBytes, 0x61);
      while (!done && sent < r.totalBytes) {
        const n = Math.min(r.pieceBytes, r.totalBytes - sent);
        const data = n === piece.length ? piece : piece.subarray(0, n);
        const framed = r.chunked ? Buffer.concat([Buffer.from(`${n.toString(16)}\r\n`), data, Buffer.from("\r\n")]) : data;
        const flushed = socket.write(framed);
        sent += n;
        if (!flushed)
          await new Promise<void>((ok) => {
            socket.once("drain", ok);
            socket.once("close", ok);
          });
        if (r.pauseMs) await new Promise((ok) => setTimeout(ok, r.pauseMs));
      }
      if (!done && r.chunked) socket.write("0\r\n\r\n");
    };
    // A failed write shows as the socket's error or close, which `finish` already answers.
    socket.on("connect", () => void sendRequest().catch(finish));
  });
}
