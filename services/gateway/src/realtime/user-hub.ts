// The user sockets' feed (§2.2, §2.4): ONE subscription per gateway process to the transcript
// events that concern owners, fanned out to the sockets of each event's owner. Core NATS
// subscriptions (no server-side consumer state): user sockets replay nothing, and clients refetch
// what they show when they reconnect.
import type { Subscription } from "@nats-io/transport-node";
import { STREAMS, eventToken, parseEvent } from "@scribe/contracts";
import type { Bus, Logger } from "@scribe/kit";
import { USER_SOCKET_EVENT_TYPES, userSocketMessage, type WsMessage } from "./protocol";

export type Send = (message: WsMessage) => void;

export class UserHub {
  private readonly sockets = new Map<string, Set<Send>>();
  private readonly subscriptions: Subscription[] = [];

  constructor(
    private readonly bus: Bus,
    private readonly log: Logger,
  ) {}

  /** Subscribes and waits until the server knows it, so a socket accepted afterwards misses nothing. */
  async start(): Promise<void> {
    for (const type of USER_SOCKET_EVENT_TYPES) {
      const subject = this.bus.subject(`${STREAMS.TRANSCRIPTS.context}.${eventToken(type)}.*`);
      this.subscriptions.push(
        this.bus.nc.subscribe(subject, {
          callback: (err, msg) => {
            if (err) this.log.error({ err, subject }, "user socket subscription failed");
            else this.dispatch(msg.data);
          },
        }),
      );
    }
    await this.bus.nc.flush();
  }

  /** Adds a socket of `userId`; returns its removal. */
  add(userId: string, send: Send): () => void {
    let set = this.sockets.get(userId);
    if (!set) this.sockets.set(userId, (set = new Set()));
    set.add(send);
    return () => {
      set.delete(send);
      if (set.size === 0 && this.sockets.get(userId) === set) this.sockets.delete(userId);
    };
  }

  stop(): void {
    for (const s of this.subscriptions.splice(0)) s.unsubscribe();
  }

  private dispatch(raw: Uint8Array): void {
    // Live transcript text flows through here too: do not even parse it while nobody listens.
    if (this.sockets.size === 0) return;
    let routed;
    try {
      routed = userSocketMessage(parseEvent(raw));
    } catch (err) {
      this.log.warn({ err }, "skipping an unreadable transcript event");
      return;
    }
    if (!routed) return;
    for (const send of this.sockets.get(routed.userId) ?? []) send(routed.message);
  }
}
