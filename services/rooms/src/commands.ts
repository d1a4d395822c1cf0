// Room commands over request/reply: validate, decide, store the change and its event in one transaction.
import { randomBytes, randomUUID } from "node:crypto";
import { makeEvent, roomDetailsFor, roomEventOf, roomWithoutWebhook, roomsOps, type Caller, type RoomState } from "@scribe/contracts";
import {
  BadRequest,
  Forbidden,
  NotFound,
  Unauthorized,
  emit,
  reportFeedPosition,
  reportVersion,
  type Db,
  type RpcServer,
  type SecretBox,
  type Sql,
  type Clock,
} from "@scribe/kit";
import type { RoomsConfig } from "./config";
import { applyUpdate, isOwner, newRoom } from "./domain/rooms";
import { UNIQUE_NAME, deleteRoom, insertRoom, nextFeedPosition, roomById, updateRoom } from "./store";

const SOURCE = "scribe/rooms";
export const newWebhookSecret = () => randomBytes(32).toString("base64url");

function requireUser(caller: Caller): string {
  if (caller.userId === null) throw Unauthorized();
  return caller.userId;
}

/** A duplicate name is the contract's 400, never a 500, whichever transaction wins the race. */
async function uniqueName<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if ((e as { constraint_name?: string }).constraint_name === UNIQUE_NAME) throw BadRequest("Room name is not unique");
    throw e;
  }
}

async function ownedRoomForUpdate(tx: Db, box: SecretBox, id: string, caller: Caller): Promise<RoomState> {
  const room = await roomById(tx, box, id, { forUpdate: true });
  if (!room) throw NotFound("Room not found");
  if (!isOwner(room, caller)) throw Forbidden("Not authorized");
  return room;
}

type RoomEventType = "room.created" | "room.updated" | "room.deleted";

/** Every room change: its event, carrying the rooms' feed position the change takes. */
async function emitRoomChange(tx: Db, type: RoomEventType, room: RoomState, now: Date): Promise<number> {
  const feedSeq = await nextFeedPosition(tx);
  await emit(tx, makeEvent(type, { ...roomEventOf(room), feed_seq: feedSeq }, { source: SOURCE, time: now }));
  return feedSeq;
}

/**
 * Read-your-writes: the caller learns the committed version under every name services look rooms
 * up by, and the rooms' feed position (reads that depend on every room, such as search, wait for it).
 */
function reportRoomVersion(room: RoomState, feedSeq: number, formerName?: string): void {
  reportVersion("room", { id: room.id, name: room.name }, room.version);
  if (formerName !== undefined && formerName !== room.name) reportVersion("room", { name: formerName }, room.version);
  reportFeedPosition("room", feedSeq);
}

export function registerCommands(rpc: RpcServer, sql: Sql, config: RoomsConfig, box: SecretBox, clock: Clock): void {
  rpc.handle(roomsOps.create, async ({ caller, room: body }) => {
    const owner = requireUser(caller);
    const now = clock();
    const room = newRoom({
      id: randomUUID(),
      owner,
      body,
      defaultPlatform: config.DEFAULT_VIDEO_PLATFORM,
      now,
      newSecret: newWebhookSecret,
    });
    const feedSeq = await uniqueName(() =>
      sql.begin(async (tx) => {
        await insertRoom(tx, box, room);
        return emitRoomChange(tx, "room.created", room, now);
      }),
    );
    reportRoomVersion(room, feedSeq);
    return roomWithoutWebhook(room);
  });

  rpc.handle(roomsOps.update, async ({ caller, id, patch }) => {
    requireUser(caller);
    const updated = await uniqueName(() =>
      sql.begin(async (tx) => {
        const room = await ownedRoomForUpdate(tx, box, id, caller);
        const now = clock();
        const next = applyUpdate(room, patch, now, newWebhookSecret);
        await updateRoom(tx, box, next);
        return { before: room, next, feedSeq: await emitRoomChange(tx, "room.updated", next, now) };
      }),
    );
    // A renamed room: the old name must stop finding the room's stale copies too.
    reportRoomVersion(updated.next, updated.feedSeq, updated.before.name);

    return roomDetailsFor(updated.next, caller.userId);
  });

  rpc.handle(roomsOps.delete, async ({ caller, id }) => {
    requireUser(caller);
    const gone = await sql.begin(async (tx) => {
      const room = await ownedRoomForUpdate(tx, box, id, caller);
      await deleteRoom(tx, id);
      const now = clock();
      const gone = { ...room, version: room.version + 1, updated_at: now.toISOString() };
      return { gone, feedSeq: await emitRoomChange(tx, "room.deleted", gone, now) };
    });
    reportRoomVersion(gone.gone, gone.feedSeq);
    return { status: "ok" };
  });
}
