// What the gateway's fan-outs share: sockets grouped by a key (a user, a transcript), and core-NATS
// subscriptions to TRANSCRIPTS events that the server knows of before any socket is accepted.
import type { Subscription } from "@nats-io/transport-node";
import { STREAMS, eventToken } from "@scribe/contracts";
import type { Bus, Logger } from "@scribe/kit";

export class KeyedSockets<T> {
  private readonly groups = new Map<string, Set<T>>();

  /** Adds a socket under `key`; returns its removal. */
  add(key: string, socket: T): () => void {
    let set = this.groups.get(key);
    if (!set) this.groups.set(key, (set = new Set()));
    set.add(socket);
    return () => {
      set.delete(socket);
      if (set.size === 0 && this.groups.get(key) === set) this.groups.delete(key);
    };
  }

  get empty(): boolean {
    return this.groups.size === 0;
  }

  /** The sockets under `key`, copied: handling one may remove it. */
  of(key: string): T[] {
    return [...(this.groups.get(key) ?? [])];
  }
}

/** Subscribes to every event of `types` and waits until the server knows it, so a socket accepted afterwards misses nothing. */
export async function subscribeToTranscriptEvents(
  bus: Bus,
  log: Logger,
  types: readonly string[],
  handle: (raw: Uint8Array) => void,
): Promise<Subscription[]> {
  const subscriptions = types.map((type) => {
    const subject = bus.subject(`${STREAMS.TRANSCRIPTS.context}.${eventToken(type)}.*`);
    return bus.nc.subscribe(subject, {
      callback: (err, msg) => {
        if (err) log.error({ err, subject }, "transcript event subscription failed");
        else handle(msg.data);
      },
    });
  });
  await bus.nc.flush();
  return subscriptions;
}
