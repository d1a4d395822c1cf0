// The user sockets' feed (§2.2, §2.4): ONE subscription per gateway process to the transcript
// events that concern owners, fanned out to the sockets of each event's owner. Core NATS
// subscriptions (no server-side consumer state): user sockets replay nothing, and clients refetch
// what they show when they reconnect.
import type { Subscription } from "@nats-io/transport-node";
import { parseEvent } from "@scribe/contracts";
import type { Bus, Logger } from "@scribe/kit";
import { KeyedSockets, subscribeToTranscriptEvents } from "./keyed-sockets";
import type { ReadModelGate } from "./read-model-gate";
import { USER_SOCKET_EVENT_TYPES, userSocketMessage, type WsMessage } from "./protocol";

export type Send = (message: WsMessage) => void;

export class UserHub {
  private readonly sockets = new KeyedSockets<Send>();
  private subscriptions: Subscription[] = [];

  constructor(
    private readonly bus: Bus,
    private readonly log: Logger,
    private readonly gate: ReadModelGate,
  ) {}

  async start(): Promise<void> {
    this.subscriptions = await subscribeToTranscriptEvents(this.bus, this.log, USER_SOCKET_EVENT_TYPES, (raw) => this.dispatch(raw));
  }

  /** Adds a socket of `userId`; returns its removal. */
  add(userId: string, send: Send): () => void {
    return this.sockets.add(userId, send);
  }

  stop(): void {
    for (const s of this.subscriptions.splice(0)) s.unsubscribe();
  }

  private dispatch(raw: Uint8Array): void {
    // Live transcript text flows through here too: do not even parse it while nobody listens.
    if (this.sockets.empty) return;
    let routed;
    try {
      routed = userSocketMessage(parseEvent(raw));
    } catch (err) {
      this.log.warn({ err }, "skipping an unreadable transcript event");
      return;
    }
    if (!routed) return;
    const { userId, message, transcriptId, version } = routed;
    this.gate.pass(transcriptId, version, () => {
      for (const send of this.sockets.of(userId)) send(message);
    });
  }
}
