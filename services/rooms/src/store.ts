// SQL of the rooms service; nothing else in the service touches the database.
import type { RoomState } from "@scribe/contracts";
import type { Db } from "@scribe/kit";

const COLUMNS = [
  "id", "name", "user_id", "created_at", "updated_at", "version", "zulip_auto_post", "zulip_stream", "zulip_topic",
  "is_locked", "room_mode", "recording_type", "recording_trigger", "is_shared", "webhook_url", "webhook_secret",
  "ics_url", "ics_fetch_interval", "ics_enabled", "ics_last_sync", "ics_last_etag", "platform", "skip_consent",
  "email_transcript_to", "store_video",
] as const;

type Row = Record<(typeof COLUMNS)[number], string | number | boolean | Date | null>;

function toState(row: Row): RoomState {
  const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : (v as string | null));
  return {
    ...(row as unknown as RoomState),
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
    ics_last_sync: iso(row.ics_last_sync),
  };
}

export const UNIQUE_NAME = "uq_room_name";

export async function insertRoom(db: Db, room: RoomState): Promise<void> {
  await db`insert into room ${db(room as unknown as Row, ...COLUMNS)}`;
}

export async function updateRoom(db: Db, room: RoomState): Promise<void> {
  const { id: _id, ...rest } = room;
  const columns = COLUMNS.filter((c) => c !== "id");
  await db`update room set ${db(rest as unknown as Row, ...columns)} where id = ${room.id}`;
}

export async function deleteRoom(db: Db, id: string): Promise<void> {
  await db`delete from room where id = ${id}`;
}

/** `forUpdate` locks the row so concurrent changes to one room are serialised (and versioned). */
export async function roomById(db: Db, id: string, opts: { forUpdate?: boolean } = {}): Promise<RoomState | null> {
  const rows = opts.forUpdate
    ? await db<Row[]>`select ${db(COLUMNS)} from room where id = ${id} for update`
    : await db<Row[]>`select ${db(COLUMNS)} from room where id = ${id}`;
  return rows[0] ? toState(rows[0]) : null;
}

export async function roomByName(db: Db, name: string): Promise<RoomState | null> {
  const rows = await db<Row[]>`select ${db(COLUMNS)} from room where name = ${name}`;
  return rows[0] ? toState(rows[0]) : null;
}

/** Rooms a caller may list: their own plus every shared room (anonymous: shared only), newest first. */
export async function listVisibleRooms(
  db: Db,
  userId: string | null,
  page: { limit: number; offset: number },
): Promise<{ rooms: RoomState[]; total: number }> {
  const visible = userId === null ? db`is_shared` : db`(user_id = ${userId} or is_shared)`;
  const [rows, [count]] = await Promise.all([
    db<Row[]>`select ${db(COLUMNS)} from room where ${visible} order by created_at desc, id limit ${page.limit} offset ${page.offset}`,
    db<{ n: number }[]>`select count(*)::int as n from room where ${visible}`,
  ]);
  return { rooms: rows.map(toState), total: count!.n };
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
