// The transcript's WebSocket (GET /v1/transcripts/{id}/events, `Sec-WebSocket-Protocol: bearer, <token>`):
// on connect the server replays the stored log (without STATUS), then relays live events.
import { useEffect, useRef } from "preact/hooks";
import { session } from "../api";

export interface TranscriptEvent {
  event: string;
  data: Record<string, unknown>;
}

export function useTranscriptEvents(id: string, enabled: boolean, onEvent: (event: TranscriptEvent) => void): void {
  const handler = useRef(onEvent);
  handler.current = onEvent;
  useEffect(() => {
    if (!enabled) return;
    const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/v1/transcripts/${encodeURIComponent(id)}/events`;
    const token = session.token();
    const socket = token ? new WebSocket(url, ["bearer", token]) : new WebSocket(url);
    socket.onmessage = (message: MessageEvent<string>) => {
      try {
        handler.current(JSON.parse(message.data) as TranscriptEvent);
      } catch {
        // Not JSON: nothing the page can show.
      }
    };
    return () => {
      // Closing a socket still connecting makes the browser log an error: let it open first.
      if (socket.readyState === WebSocket.CONNECTING) socket.onopen = () => socket.close();
      else socket.close();
    };
  }, [id, enabled]);
}
