// The realtime wire rules as pure functions (behaviour-transcripts-pipelines §2.2–2.4, api.md §2.18):
// how a socket names its token, which stored events a transcript socket replays, and which bus
// events reach a user socket as what message.
import type { PipelineEventName, ScribeEvent, TranscriptEventAppended } from "@scribe/contracts";

/** A WebSocket message: a JSON text frame `{"event": NAME, "data": {...}}`. */
export interface WsMessage {
  event: string;
  data: Record<string, unknown>;
}

/** The one subprotocol the server accepts and echoes (api.md §0.5). */
export const BEARER_PROTOCOL = "bearer";

/** Close code of a user socket opened without a valid token (api.md §2.18). */
export const CLOSE_UNAUTHENTICATED = 4401;
/** Close codes of a transcript socket whose reader lost access: the share mode no longer lets them read, or the transcript was deleted. */
export const CLOSE_ACCESS_DENIED = 4403;
export const CLOSE_NOT_FOUND = 4404;

/**
 * The token of `Sec-WebSocket-Protocol: bearer, <token>`: the first offered subprotocol is literally
 * `bearer` (any case), the second is the token. Anything else carries no token.
 */
export function bearerFromProtocols(header: string | undefined): string | null {
  if (!header) return null;
  const [scheme, token] = header.split(",").map((p) => p.trim());
  if (scheme?.toLowerCase() !== BEARER_PROTOCOL || !token) return null;
  return token;
}

/** Which offered subprotocol the server selects: `bearer` when offered, else none. */
export function selectProtocol(offered: Iterable<string>): string | false {
  for (const p of offered) if (p.toLowerCase() === BEARER_PROTOCOL) return p;
  return false;
}

/** Stored events a newly connected socket does not get replayed (§2.3 step 3). */
const NOT_REPLAYED: ReadonlySet<PipelineEventName> = new Set(["TRANSCRIPT", "STATUS"]);

/**
 * The stored part of a transcript's event log as a socket replays it, built from the stream's
 * entries in order. The reference resets the log when a processing run starts (§1.1 `events`,
 * §5.6), so an entry of a run other than the last one seen starts the log afresh: a reprocessed
 * transcript does not replay the topics of its earlier runs. Entries without a run belong to the
 * log as it stands.
 */
export class StoredLog {
  private entries: WsMessage[] = [];
  private run: string | null = null;

  add(entry: Pick<TranscriptEventAppended, "event" | "data" | "run_id">): void {
    if (entry.run_id !== null && entry.run_id !== this.run) {
      this.entries = [];
      this.run = entry.run_id;
    }
    if (!NOT_REPLAYED.has(entry.event)) this.entries.push({ event: entry.event, data: entry.data });
  }

  /** The messages to replay, in stored order (the log is empty afterwards). */
  take(): WsMessage[] {
    const out = this.entries;
    this.entries = [];
    return out;
  }
}

/** Event-log entries mirrored to the owner's user socket as `TRANSCRIPT_<NAME>` (§2.2). */
const MIRRORED: ReadonlySet<PipelineEventName> = new Set(["STATUS", "FINAL_TITLE", "DURATION"]);

const LIFECYCLE_EVENT = { created: "TRANSCRIPT_CREATED", deleted: "TRANSCRIPT_DELETED", restored: "TRANSCRIPT_RESTORED" } as const;

/** The bus events a user socket is made of; the hub subscribes to exactly these. */
export const USER_SOCKET_EVENT_TYPES = ["transcript.event.appended", "transcript.lifecycle.changed", "transcript.destroyed"] as const;

/** A user socket's message, for the owner; `version`: the transcript's version a reader must find once it is heard. */
export interface UserSocketMessage {
  userId: string;
  message: WsMessage;
  transcriptId: string;
  version: number | undefined;
}

/** The message a bus event becomes on its owner's user socket, or null when it has none. */
export function userSocketMessage(e: ScribeEvent): UserSocketMessage | null {
  switch (e.type) {
    case "transcript.event.appended": {
      const { user_id, transcript_id, event, data, version } = e.data;
      if (user_id === null || !MIRRORED.has(event)) return null;
      // `{id}` merged with the entry's data; the transcript id wins over any `id` inside it.
      const message = { event: `TRANSCRIPT_${event}`, data: { ...data, id: transcript_id } };
      return { userId: user_id, message, transcriptId: transcript_id, version };
    }
    case "transcript.lifecycle.changed": {
      const { user_id, transcript_id, action, version } = e.data;
      return {
        userId: user_id,
        message: { event: LIFECYCLE_EVENT[action], data: { id: transcript_id } },
        transcriptId: transcript_id,
        version,
      };
    }
    case "transcript.destroyed": {
      const t = e.data.transcript;
      // Gone from the read model too: nothing to wait for.
      const message = { event: "TRANSCRIPT_DELETED", data: { id: t.id } };
      return t.user_id === null ? null : { userId: t.user_id, message, transcriptId: t.id, version: undefined };
    }
    default:
      return null;
  }
}
