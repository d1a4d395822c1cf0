// The transcript's WebSocket (GET /v1/transcripts/{id}/events, `Sec-WebSocket-Protocol: bearer, <token>`):
// on connect the server replays the stored log (without STATUS), then relays live events. The socket
// reconnects after a drop (events.ts), so handlers must take a replayed event as well as a new one.
import { useEffect, useRef } from "preact/hooks";
import { transcriptEvents, type ServerEvent } from "../events";

export type TranscriptEvent = ServerEvent;

export function useTranscriptEvents(
  id: string,
  enabled: boolean,
  onEvent: (event: TranscriptEvent) => void,
  onReconnect?: () => void,
): void {
  const handler = useRef(onEvent);
  handler.current = onEvent;
  const reconnected = useRef(onReconnect);
  reconnected.current = onReconnect;
  useEffect(() => {
    if (!enabled) return;
    return transcriptEvents(id, (e) => handler.current(e), { onReconnect: () => reconnected.current?.() });
  }, [id, enabled]);
}
