// SQL of the notifier; nothing else in the service touches the database.
import {
  CalendarMetadata,
  EmailRecipient,
  type DeliveryChannel,
  type DeliveryStatus,
  type MeetingState,
  roomCopySource,
  type RoomEvent,
} from "@scribe/contracts";
import { defineEntityCopy, type Db, type Sql } from "@scribe/kit";
import { z } from "zod";
import type { MeetingCopy, RoomCopy } from "./domain/notifications";

/** Wakes the dispatchers (LISTEN in every replica) when new work was committed. */
export const WORK_CHANNEL = "notifier_work";

// ---- copies -------------------------------------------------------------------------------------

/** The rooms' webhook, team-chat and e-mail settings; a deleted room stays as a tombstone. */
export const roomCopy = defineEntityCopy<RoomCopy, RoomEvent, typeof roomCopySource.owner.op>({
  kind: "room",
  table: "room",
  columns: [
    "id",
    "name",
    "user_id",
    "webhook_url",
    "zulip_auto_post",
    "zulip_stream",
    "zulip_topic",
    "email_transcript_to",
    "version",
    "deleted",
  ],
  lookups: ["id"],
  rowOf: (room, deleted) => ({
    id: room.id,
    name: room.name,
    user_id: room.user_id,
    webhook_url: room.webhook_url,
    zulip_auto_post: room.zulip_auto_post,
    zulip_stream: room.zulip_stream,
    zulip_topic: room.zulip_topic,
    email_transcript_to: room.email_transcript_to,
    version: room.version,
    deleted,
  }),
  owner: roomCopySource.owner,
});

/** The room as the copy holds it, tombstone included (a delivery for a deleted room is cancelled). */
export async function roomById(db: Db, id: string): Promise<RoomCopy | null> {
  const [r] = await db<RoomCopy[]>`select id, name, user_id, webhook_url, zulip_auto_post, zulip_stream, zulip_topic,
    email_transcript_to, version, deleted from room where id = ${id}`;
  return r ?? null;
}

/** Who asked for the e-mailed transcript, and the calendar event; a deleted meeting stays as a tombstone. */
export const meetingCopy = defineEntityCopy<MeetingCopy, MeetingState, never>({
  kind: "meeting",
  table: "meeting",
  columns: ["id", "room_id", "email_recipients", "calendar_event_id", "calendar_metadata", "version", "deleted"],
  jsonColumns: ["email_recipients", "calendar_metadata"],
  lookups: ["id"],
  rowOf: (m, deleted) => ({
    id: m.id,
    room_id: m.room_id,
    email_recipients: m.email_recipients,
    calendar_event_id: m.calendar_event_id,
    calendar_metadata: m.calendar_metadata,
    version: m.version,
    deleted,
  }),
});

const MeetingRow = z.object({
  id: z.string(),
  room_id: z.string(),
  email_recipients: z.array(EmailRecipient),
  calendar_event_id: z.string().nullable(),
  calendar_metadata: CalendarMetadata.nullable(),
  version: z.number(),
  deleted: z.boolean(),
});

export async function meetingById(db: Db, id: string): Promise<MeetingCopy | null> {
  const [r] = await db`select id, room_id, email_recipients, calendar_event_id, calendar_metadata, version, deleted
    from meeting where id = ${id}`;
  return r ? MeetingRow.parse(r) : null;
}

// ---- deliveries -------------------------------------------------------------------------------

export interface NewDelivery {
  id: string;
  channel: DeliveryChannel;
  kind: string;
  transcript_id: string;
  room_id: string | null;
  run_id: string | null;
  dedupe_key: string;
  target: Record<string, unknown>;
  payload: unknown;
  next_attempt_at: Date;
}

/** Inserts unless a delivery with the same purpose exists; true when inserted. */
export async function insertDelivery(db: Db, d: NewDelivery): Promise<boolean> {
  const rows =
    await db`insert into delivery (id, channel, kind, transcript_id, room_id, run_id, dedupe_key, target, payload, next_attempt_at)
    values (${d.id}, ${d.channel}, ${d.kind}, ${d.transcript_id}, ${d.room_id}, ${d.run_id}, ${d.dedupe_key},
      ${JSON.stringify(d.target)}::text::jsonb, ${JSON.stringify(d.payload)}::text::jsonb, ${d.next_attempt_at})
    on conflict (dedupe_key) do nothing returning id`;
  return rows.length > 0;
}

export async function notifyWork(db: Db): Promise<void> {
  await db`select pg_notify(${WORK_CHANNEL}, '')`;
}

/** Pending deliveries of a transcript that must not go out any more (destroyed); in-flight ones finish. */
export async function cancelPending(db: Db, transcriptId: string, reason: string, channel?: DeliveryChannel): Promise<number> {
  const rows = await db`update delivery set status = 'cancelled', last_error = ${reason}, finished_at = now(), updated_at = now()
    where transcript_id = ${transcriptId} and status = 'pending' ${channel ? db`and channel = ${channel}` : db``}
      and (lease_until is null or lease_until < now())
    returning id`;
  return rows.length;
}

export interface DeliveryRow {
  id: string;
  channel: DeliveryChannel;
  kind: string;
  transcript_id: string;
  room_id: string | null;
  run_id: string | null;
  target: unknown;
  payload: unknown;
  status: DeliveryStatus;
  attempts: number;
  round_started_at: Date | null;
  round_attempts: number;
  next_attempt_at: Date | null;
  lease_token: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
}

const DELIVERY_COLUMNS = [
  "id",
  "channel",
  "kind",
  "transcript_id",
  "room_id",
  "run_id",
  "target",
  "payload",
  "status",
  "attempts",
  "round_started_at",
  "round_attempts",
  "next_attempt_at",
  "lease_token",
  "last_status_code",
  "last_error",
  "created_at",
  "updated_at",
  "finished_at",
] as const;

/** What an attempt cut short by a notifier that stopped (its lease ran out) is recorded with. */
export const INTERRUPTED_ATTEMPT_ERROR = "interrupted: the notifier stopped during this attempt; the receiver may have received it";

/**
 * Claims up to `limit` deliveries due at `now` for this worker: locked rows are skipped (another
 * replica has them), then leased so the attempt runs outside any transaction. Team-chat posts of
 * one transcript go one at a time, oldest first: each may update the message the previous one made.
 * A delivery still leased by an earlier claim whose lease ran out was being attempted by a notifier
 * that stopped (a lease is released when the attempt is recorded): that attempt is recorded as
 * `interrupted` and counted, so the next one goes out as a retry (`X-Webhook-Retry` one higher).
 */
export async function claimDue(db: Db, opts: { now: Date; limit: number; leaseMs: number; token: string }): Promise<DeliveryRow[]> {
  return db<DeliveryRow[]>`with picked as (
      select c.id as picked_id, c.lease_token is not null as was_interrupted from delivery c
      where c.status = 'pending' and c.next_attempt_at <= ${opts.now}
        and (c.lease_until is null or c.lease_until < now())
        and not (c.channel = 'zulip' and exists (
          select 1 from delivery o where o.channel = 'zulip' and o.transcript_id = c.transcript_id and o.status = 'pending'
            and (o.created_at, o.id) < (c.created_at, c.id)))
      order by c.next_attempt_at, c.id
      limit ${opts.limit}
      for update skip locked
    ), lost as (
      insert into delivery_attempt (delivery_id, attempt, event_id, started_at, duration_ms, status_code, error, response_excerpt, outcome)
      select d.id, d.attempts, null, d.lease_until - ${opts.leaseMs} * interval '1 millisecond', 0, null, ${INTERRUPTED_ATTEMPT_ERROR}, null, 'interrupted'
      from delivery d join picked on picked.picked_id = d.id where picked.was_interrupted
      on conflict (delivery_id, attempt) do nothing
    )
    update delivery set lease_token = ${opts.token},
      lease_until = now() + ${opts.leaseMs} * interval '1 millisecond', updated_at = now(),
      attempts = attempts + case when picked.was_interrupted then 1 else 0 end,
      last_error = case when picked.was_interrupted then ${INTERRUPTED_ATTEMPT_ERROR} else last_error end
    from picked where delivery.id = picked.picked_id
    returning ${db(DELIVERY_COLUMNS)}`;
}

export interface AttemptRecord {
  attempt: number;
  event_id: string | null;
  started_at: Date;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  response_excerpt: string | null;
  outcome: "delivered" | "retry" | "failed" | "gave_up" | "cancelled" | "interrupted";
}

/**
 * Records an attempt and what follows: the delivery's new status and next attempt, the lease
 * released. A delivery cancelled meanwhile keeps its status (the attempt is still recorded).
 */
export async function recordAttempt(
  db: Db,
  d: { id: string; token: string; roundStartedAt: Date },
  a: AttemptRecord,
  next: { status: DeliveryStatus; nextAttemptAt: Date | null; finishedAt: Date | null },
): Promise<void> {
  await db`insert into delivery_attempt (delivery_id, attempt, event_id, started_at, duration_ms, status_code, error, response_excerpt, outcome)
    values (${d.id}, ${a.attempt}, ${a.event_id}, ${a.started_at}, ${a.duration_ms}, ${a.status_code}, ${a.error}, ${a.response_excerpt}, ${a.outcome})
    on conflict (delivery_id, attempt) do nothing`;
  await db`update delivery set status = ${next.status}, attempts = attempts + 1,
      round_started_at = ${d.roundStartedAt}, round_attempts = round_attempts + 1,
      next_attempt_at = ${next.nextAttemptAt}, last_status_code = ${a.status_code}, last_error = ${a.error},
      finished_at = ${next.finishedAt}, lease_token = null, lease_until = null, updated_at = now()
    where id = ${d.id} and lease_token = ${d.token} and status = 'pending'`;
}

/** A finished delivery made on request (share by e-mail, manual post): one attempt, no retries. */
export async function insertFinishedDelivery(
  db: Sql,
  d: Omit<NewDelivery, "next_attempt_at">,
  a: AttemptRecord,
  status: DeliveryStatus,
): Promise<void> {
  await db.begin(async (tx) => {
    await insertDelivery(tx, { ...d, next_attempt_at: a.started_at });
    await tx`update delivery set status = ${status}, attempts = 1, round_started_at = ${a.started_at}, round_attempts = 1,
        next_attempt_at = null, last_status_code = ${a.status_code}, last_error = ${a.error}, finished_at = ${a.started_at}
      where id = ${d.id}`;
    await tx`insert into delivery_attempt (delivery_id, attempt, event_id, started_at, duration_ms, status_code, error, response_excerpt, outcome)
      values (${d.id}, 0, ${a.event_id}, ${a.started_at}, ${a.duration_ms}, ${a.status_code}, ${a.error}, ${a.response_excerpt}, ${a.outcome})`;
  });
}

export async function deliveryById(db: Db, id: string): Promise<DeliveryRow | null> {
  const [r] = await db<DeliveryRow[]>`select ${db(DELIVERY_COLUMNS)} from delivery where id = ${id}`;
  return r ?? null;
}

export async function listDeliveries(
  db: Db,
  f: { channel?: DeliveryChannel; roomId?: string; status?: DeliveryStatus; transcriptId?: string; limit: number },
): Promise<DeliveryRow[]> {
  return db<DeliveryRow[]>`select ${db(DELIVERY_COLUMNS)} from delivery
    where true
      ${f.channel ? db`and channel = ${f.channel}` : db``}
      ${f.roomId ? db`and room_id = ${f.roomId}` : db``}
      ${f.status ? db`and status = ${f.status}` : db``}
      ${f.transcriptId ? db`and transcript_id = ${f.transcriptId}` : db``}
    order by created_at desc, id desc limit ${f.limit}`;
}

export async function attemptsOf(db: Db, deliveryId: string): Promise<(AttemptRecord & { delivery_id: string })[]> {
  return db<(AttemptRecord & { delivery_id: string })[]>`select delivery_id, attempt, event_id, started_at, duration_ms, status_code, error,
    response_excerpt, outcome from delivery_attempt where delivery_id = ${deliveryId} order by attempt`;
}

/**
 * Sends a delivery again (ops): whatever its status, it becomes due at `now` with a new retry
 * round; the delivery id stays, so receivers can still recognise it. False when unknown.
 */
export async function redeliver(db: Db, id: string, now: Date): Promise<boolean> {
  const rows = await db`update delivery set status = 'pending', next_attempt_at = ${now}, round_started_at = null, round_attempts = 0,
      finished_at = null, lease_token = null, lease_until = null, updated_at = now()
    where id = ${id} returning id`;
  if (rows.length) await notifyWork(db);
  return rows.length > 0;
}

// ---- team chat --------------------------------------------------------------------------------

export interface ZulipMessageRow {
  transcript_id: string;
  message_id: number;
  stream: string;
  topic: string;
}

/** Serialises posts about one transcript across replicas until the transaction ends. */
export async function lockTranscriptChat(tx: Db, transcriptId: string): Promise<void> {
  await tx`select pg_advisory_xact_lock(hashtextextended(${`notifier.zulip:${transcriptId}`}, 0))`;
}

export async function zulipMessageOf(db: Db, transcriptId: string): Promise<ZulipMessageRow | null> {
  const [r] = await db<ZulipMessageRow[]>`select transcript_id, message_id::float8 as message_id, stream, topic
    from zulip_message where transcript_id = ${transcriptId}`;
  return r ?? null;
}

export async function saveZulipMessage(db: Db, m: ZulipMessageRow): Promise<void> {
  await db`insert into zulip_message (transcript_id, message_id, stream, topic) values (${m.transcript_id}, ${m.message_id}, ${m.stream}, ${m.topic})
    on conflict (transcript_id) do update set message_id = excluded.message_id, stream = excluded.stream, topic = excluded.topic, updated_at = now()`;
}
