// The API's two WebSockets: a transcript's events (/v1/transcripts/{id}/events) and the signed-in
// user's (/v1/events). The token travels as the `bearer, <token>` subprotocol, the only place a
// browser can put it on a WebSocket handshake. A socket the server drops (a gateway restarting, a
// proxy's idle cut, the network) is opened again after a growing pause, until the page closes it.
import { api, session } from "./api";

export interface ServerEvent {
  event: string;
  data: Record<string, unknown>;
}

export interface SubscribeOptions {
  /** Each time the socket opens again after a drop (the transcript socket then replays its stored log). */
  onReconnect?: () => void;
}

/** The gateway closes a socket whose token expired (or never verified) with this code. */
const CLOSE_UNAUTHENTICATED = 4401;
/** First pause before reconnecting; doubled after every failed attempt up to the cap, with jitter. */
export const RECONNECT_FIRST_MS = 500;
const RECONNECT_MAX_MS = 15_000;

/** The pause before attempt `attempt` (0-based): exponential, capped, ±25% so many tabs do not return at once. */
export function reconnectDelay(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(RECONNECT_MAX_MS, RECONNECT_FIRST_MS * 2 ** attempt);
  return Math.round(base * (0.75 + random() * 0.5));
}

/** Opens the socket and keeps it open; returns a function that closes it for good. `onEvent` gets every parsed message. */
export function subscribe(path: string, onEvent: (e: ServerEvent) => void, options: SubscribeOptions = {}): () => void {
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${path}`;
  let socket: WebSocket | null = null;
  let closedByUs = false;
  let failures = 0;
  let opened = false;
  let retry: ReturnType<typeof setTimeout> | undefined;

  const open = () => {
    const token = session.token();
    const current = token ? new WebSocket(url, ["bearer", token]) : new WebSocket(url);
    socket = current;
    current.onopen = () => {
      failures = 0;
      if (opened) options.onReconnect?.();
      opened = true;
    };
    current.onmessage = (m) => {
      try {
        onEvent(JSON.parse(String(m.data)) as ServerEvent);
      } catch {
        // Not JSON: nothing the page can show.
      }
    };
    current.onclose = (event) => {
      if (closedByUs) return;
      // A refused or expired token: ask the API once; its 401 signs the user out (see api.ts). A
      // token that still works (the socket failed for another reason) is retried like any drop.
      if (event.code === CLOSE_UNAUTHENTICATED && token) void api.GET("/v1/me");
      retry = setTimeout(open, reconnectDelay(failures++));
    };
  };
  open();

  return () => {
    closedByUs = true;
    clearTimeout(retry);
    const last = socket;
    if (!last) return;
    // Closing while CONNECTING makes the browser log an error; close once it is open instead.
    if (last.readyState === WebSocket.CONNECTING) last.onopen = () => last.close();
    else last.close();
  };
}

export const transcriptEvents = (id: string, onEvent: (e: ServerEvent) => void, options?: SubscribeOptions) =>
  subscribe(`/v1/transcripts/${encodeURIComponent(id)}/events`, onEvent, options);

export const userEvents = (onEvent: (e: ServerEvent) => void, options?: SubscribeOptions) => subscribe("/v1/events", onEvent, options);

/** A transcript that reached one of these will not change status on its own. */
export const FINISHED = new Set(["ended", "error"]);
