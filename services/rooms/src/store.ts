// SQL of the rooms service; nothing else in the service touches the database.
import type { RoomState } from "@scribe/contracts";
import { isSealed, type Db, type SecretBox } from "@scribe/kit";

const COLUMNS = [
  "id",
  "name",
  "user_id",
  "created_at",
  "updated_at",
  "version",
  "zulip_auto_post",
  "zulip_stream",
  "zulip_topic",
  "is_locked",
  "room_mode",
  "recording_type",
  "recording_trigger",
  "is_shared",
  "webhook_url",
  "webhook_secret",
  "ics_url",
  "ics_fetch_interval",
  "ics_enabled",
  "ics_last_sync",
  "ics_last_etag",
  "platform",
  "skip_consent",
  "email_transcript_to",
  "store_video",
] as const;

type Row = Record<(typeof COLUMNS)[number], string | number | boolean | Date | null>;

/** The webhook secret is sealed at rest (SECURITY.md): opened on reading, sealed on writing. */
function toState(row: Row, box: SecretBox): RoomState {
  const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : (v as string | null));
  const secret = row.webhook_secret as string | null;
  return {
    ...(row as unknown as RoomState),
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
    ics_last_sync: iso(row.ics_last_sync),
    webhook_secret: secret ? box.open(secret) : secret,
  };
}

function toRow(room: RoomState, box: SecretBox): Row {
  return { ...(room as unknown as Row), webhook_secret: room.webhook_secret ? box.seal(room.webhook_secret) : room.webhook_secret };
}

export const UNIQUE_NAME = "uq_room_name";

export async function insertRoom(db: Db, box: SecretBox, room: RoomState): Promise<void> {
  await db`insert into room ${db(toRow(room, box), ...COLUMNS)}`;
}

export async function updateRoom(db: Db, box: SecretBox, room: RoomState): Promise<void> {
  const columns = COLUMNS.filter((c) => c !== "id");
  await db`update room set ${db(toRow(room, box), ...columns)} where id = ${room.id}`;
}

/** Seal webhook secrets stored in plain text before sealing existed; the number sealed. */
export async function sealPlainWebhookSecrets(db: Db, box: SecretBox): Promise<number> {
  const rows = await db<
    { id: string; webhook_secret: string }[]
  >`select id, webhook_secret from room where webhook_secret <> '' for update`;
  const plain = rows.filter((r) => !isSealed(r.webhook_secret));
  for (const r of plain) await db`update room set webhook_secret = ${box.seal(r.webhook_secret)} where id = ${r.id}`;
  return plain.length;
}

export async function deleteRoom(db: Db, id: string): Promise<void> {
  await db`delete from room where id = ${id}`;
}

/** `forUpdate` locks the row so concurrent changes to one room are serialised (and versioned). */
export async function roomById(db: Db, box: SecretBox, id: string, opts: { forUpdate?: boolean } = {}): Promise<RoomState | null> {
  const rows = opts.forUpdate
    ? await db<Row[]>`select ${db(COLUMNS)} from room where id = ${id} for update`
    : await db<Row[]>`select ${db(COLUMNS)} from room where id = ${id}`;
  return rows[0] ? toState(rows[0], box) : null;
}

export async function roomByName(db: Db, box: SecretBox, name: string): Promise<RoomState | null> {
  const rows = await db<Row[]>`select ${db(COLUMNS)} from room where name = ${name}`;
  return rows[0] ? toState(rows[0], box) : null;
}

/** Rooms a caller may list: their own plus every shared room (anonymous: shared only), newest first. */
export async function listVisibleRooms(
  db: Db,
  box: SecretBox,
  userId: string | null,
  page: { limit: number; offset: number },
): Promise<{ rooms: RoomState[]; total: number }> {
  const visible = userId === null ? db`is_shared` : db`(user_id = ${userId} or is_shared)`;
  const [rows, [count]] = await Promise.all([
    db<Row[]>`select ${db(COLUMNS)} from room where ${visible} order by created_at desc, id limit ${page.limit} offset ${page.offset}`,
    db<{ n: number }[]>`select count(*)::int as n from room where ${visible}`,
  ]);
  return { rooms: rows.map((r) => toState(r, box)), total: count!.n };
}

/**
 * The calendar's last successful sync of a room, unless a later one is already stored (events may
 * arrive again or late). A deleted room has no row: nothing to do.
 */
export async function recordCalendarSync(db: Db, roomId: string, sync: { syncedAt: Date; etag: string }): Promise<void> {
  await db`
    update room set ics_last_sync = ${sync.syncedAt}, ics_last_etag = ${sync.etag}
    where id = ${roomId} and (ics_last_sync is null or ics_last_sync <= ${sync.syncedAt})`;
}

/** The next feed position, held (row lock) until the transaction ends: positions follow commit order. */
export async function nextFeedPosition(tx: Db): Promise<number> {
  const [row] = await tx<{ position: string }[]>`update room_feed set position = position + 1 returning position`;
  return Number(row!.position);
}
