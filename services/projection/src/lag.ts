// Projection lag as metrics: events not yet applied per consumer, and how old the oldest of them is
// (0 when caught up), measured from the consumers' state on the server every PROJECTION_LAG_POLL_MS.
import { Gauge } from "prom-client";
import type { StreamName } from "@scribe/contracts";
import { registry, type Bus, type Clock, type Logger } from "@scribe/kit";

const lagSeconds = new Gauge({
  name: "scribe_projection_lag_seconds",
  help: "age of the oldest event the read model has not applied yet (0 when caught up)",
  labelNames: ["consumer"],
  registers: [registry],
});
const pendingEvents = new Gauge({
  name: "scribe_projection_pending_events",
  help: "events the read model has not applied yet (not delivered or not acknowledged)",
  labelNames: ["consumer"],
  registers: [registry],
});

export interface Lag {
  consumer: string;
  pending: number;
  seconds: number;
}

export async function measureLag(bus: Bus, consumers: { stream: StreamName; durable: string }[], now: Date): Promise<Lag[]> {
  const out: Lag[] = [];
  for (const c of consumers) {
    const stream = bus.stream(c.stream);
    const info = await bus.jsm.consumers.info(stream, c.durable);
    const pending = info.num_pending + info.num_ack_pending;
    let seconds = 0;
    if (pending > 0) {
      // The oldest event not acknowledged is right after the acknowledgement floor.
      const oldest = await bus.jsm.streams.getMessage(stream, { seq: info.ack_floor.stream_seq + 1 }).catch(() => null);
      if (oldest) seconds = Math.max(0, (now.getTime() - oldest.time.getTime()) / 1000);
    }
    lagSeconds.set({ consumer: c.durable }, seconds);
    pendingEvents.set({ consumer: c.durable }, pending);
    out.push({ consumer: c.durable, pending, seconds });
  }
  return out;
}

export function startLagJob(
  bus: Bus,
  consumers: { stream: StreamName; durable: string }[],
  intervalMs: number,
  log: Logger,
  clock: Clock,
): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    measureLag(bus, consumers, clock())
      .catch((e: Error) => log.warn({ err: e }, "measuring projection lag failed"))
      .finally(() => (running = false));
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
