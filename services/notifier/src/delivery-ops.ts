// Operators' view of outgoing deliveries (`scribe webhooks`): list, show with attempts, redeliver.
// Only internal callers (the CLI on the bus) may use them; the gateway exposes none of these.
import { notifierOps, type Caller, type DeliveryAttempt, type DeliverySummary } from "@scribe/contracts";
import { Forbidden, NotFound, type RpcServer, type Sql, systemClock, type Clock } from "@scribe/kit";
import { attemptsOf, deliveryById, listDeliveries, redeliver, type DeliveryRow } from "./store";

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function onlyOperators(caller: Caller): void {
  if (caller.via !== "internal") throw Forbidden("Only operators may inspect deliveries");
}

function summary(d: DeliveryRow): DeliverySummary {
  return {
    id: d.id,
    channel: d.channel,
    kind: d.kind,
    transcript_id: d.transcript_id,
    room_id: d.room_id,
    run_id: d.run_id,
    target: d.target,
    payload: d.payload,
    status: d.status,
    attempts: d.attempts,
    round_attempts: d.round_attempts,
    next_attempt_at: iso(d.next_attempt_at),
    last_status_code: d.last_status_code,
    last_error: d.last_error,
    created_at: d.created_at.toISOString(),
    updated_at: d.updated_at.toISOString(),
    finished_at: iso(d.finished_at),
  };
}

async function knownDelivery(sql: Sql, id: string): Promise<DeliveryRow> {
  const delivery = await deliveryById(sql, id);
  if (!delivery) throw NotFound(`No delivery ${id}`);
  return delivery;
}

export function registerDeliveryOps(rpc: RpcServer, sql: Sql, now: Clock = systemClock): void {
  rpc.handle(notifierOps.listDeliveries, async ({ caller, channel, room_id, status, limit }) => {
    onlyOperators(caller);
    const rows = await listDeliveries(sql, { channel, roomId: room_id, status, limit });
    return rows.map(summary);
  });

  rpc.handle(notifierOps.getDelivery, async ({ caller, id }) => {
    onlyOperators(caller);
    const delivery = await knownDelivery(sql, id);
    const attempts = await attemptsOf(sql, delivery.id);
    const attempt_log: DeliveryAttempt[] = attempts.map((a) => ({
      attempt: a.attempt,
      event_id: a.event_id,
      started_at: a.started_at.toISOString(),
      duration_ms: a.duration_ms,
      status_code: a.status_code,
      error: a.error,
      response_excerpt: a.response_excerpt,
      outcome: a.outcome,
    }));
    return { ...summary(delivery), attempt_log };
  });

  rpc.handle(notifierOps.redeliver, async ({ caller, id }) => {
    onlyOperators(caller);
    const delivery = await knownDelivery(sql, id);
    if (!(await redeliver(sql, delivery.id, now()))) throw NotFound(`No delivery ${id}`);
    return { id: delivery.id, redelivered: true as const };
  });
}
