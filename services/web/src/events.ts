// The API's two WebSockets: a transcript's events (/v1/transcripts/{id}/events) and the signed-in
// user's (/v1/events). The token travels as the `bearer, <token>` subprotocol, the only place a
// browser can put it on a WebSocket handshake.
import { session } from "./api";

export interface ServerEvent {
  event: string;
  data: Record<string, unknown>;
}

/** Opens the socket; returns a function that closes it. `onEvent` gets every parsed message. */
export function subscribe(path: string, onEvent: (e: ServerEvent) => void, onClose?: () => void): () => void {
  const token = session.token();
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${path}`;
  const socket = token ? new WebSocket(url, ["bearer", token]) : new WebSocket(url);
  let closedByUs = false;
  socket.onmessage = (m) => {
    try {
      onEvent(JSON.parse(String(m.data)) as ServerEvent);
    } catch {
      // Not JSON: nothing the page can show.
    }
  };
  socket.onclose = () => !closedByUs && onClose?.();
  return () => {
    closedByUs = true;
    // Closing while CONNECTING makes the browser log an error; close once it is open instead.
    if (socket.readyState === WebSocket.CONNECTING) socket.onopen = () => socket.close();
    else socket.close();
  };
}

export const transcriptEvents = (id: string, onEvent: (e: ServerEvent) => void, onClose?: () => void) =>
  subscribe(`/v1/transcripts/${encodeURIComponent(id)}/events`, onEvent, onClose);

export const userEvents = (onEvent: (e: ServerEvent) => void, onClose?: () => void) => subscribe("/v1/events", onEvent, onClose);

/** A transcript that reached one of these will not change status on its own. */
export const FINISHED = new Set(["ended", "error"]);
