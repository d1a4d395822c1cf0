// Re-checks transcript sockets' access when their transcript changes (issue 15.9): ONE core-NATS
// subscription per gateway to the transcript state changes (share mode, soft delete, destroy); the
// readers of a socket who lost access are closed, owners stay. The event carries the new state, so
// the decision uses it with the shared READ rule rather than a read model that may not have it yet.
import type { Subscription } from "@nats-io/transport-node";
import { canReadTranscript, isTranscriptOwner, parseEvent, type Caller, type TranscriptAccessFacts } from "@scribe/contracts";
import type { Bus, Logger } from "@scribe/kit";
import { KeyedSockets, subscribeToTranscriptEvents } from "./keyed-sockets";
import { CLOSE_ACCESS_DENIED, CLOSE_NOT_FOUND } from "./protocol";

export interface WatchedSocket {
  caller: Caller;
  close(code: number, reason: string): void;
}

const WATCHED_TYPES = ["transcript.updated", "transcript.destroyed"] as const;

export class AccessWatch {
  private readonly sockets = new KeyedSockets<WatchedSocket>();
  private subscriptions: Subscription[] = [];

  constructor(
    private readonly bus: Bus,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    this.subscriptions = await subscribeToTranscriptEvents(this.bus, this.log, WATCHED_TYPES, (raw) => this.recheck(raw));
  }

  /** Watches a socket of `transcriptId`; returns its removal. */
  add(transcriptId: string, socket: WatchedSocket): () => void {
    return this.sockets.add(transcriptId, socket);
  }

  stop(): void {
    for (const s of this.subscriptions.splice(0)) s.unsubscribe();
  }

  private recheck(raw: Uint8Array): void {
    if (this.sockets.empty) return;
    let id: string;
    let facts: TranscriptAccessFacts | null;
    try {
      const e = parseEvent(raw);
      if (e.type === "transcript.updated") [id, facts] = [e.data.id, e.data];
      // Destroyed: gone for every reader; the owner keeps its socket as on a soft delete.
      else if (e.type === "transcript.destroyed")
        [id, facts] = [
          e.data.transcript.id,
          { ...e.data.transcript, deleted_at: e.data.transcript.deleted_at ?? new Date(0).toISOString() },
        ];
      else return;
    } catch (err) {
      this.log.warn({ err }, "skipping an unreadable transcript event");
      return;
    }
    for (const socket of this.sockets.of(id)) {
      if (isTranscriptOwner(facts, socket.caller)) continue;
      const decision = canReadTranscript(facts, socket.caller);
      if (decision.ok) continue;
      this.log.info({ transcriptId: id, refusal: decision.kind }, "closing a transcript socket whose reader lost access");
      socket.close(decision.kind === "not_found" ? CLOSE_NOT_FOUND : CLOSE_ACCESS_DENIED, decision.detail);
    }
  }
}
