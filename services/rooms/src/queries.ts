// Room queries over request/reply; webhook fields are hidden from everyone but the owner.
import { pageCount, roomDetailsFor, roomsOps } from "@scribe/contracts";
import { Forbidden, Invalid, NotFound, Unauthorized, anonymousMayUsePublicRoutes, type RpcServer, type Sql } from "@scribe/kit";
import type { RoomsConfig } from "./config";
import { canRead } from "./domain/rooms";
import { listVisibleRooms, roomById, roomByName } from "./store";

export function registerQueries(rpc: RpcServer, sql: Sql, config: RoomsConfig): void {
  rpc.handle(roomsOps.list, async ({ caller, page, size }) => {
    if (caller.userId === null && !anonymousMayUsePublicRoutes(config)) throw Unauthorized();
    const { rooms, total } = await listVisibleRooms(sql, caller.userId, { limit: size, offset: size * (page - 1) });
    return {
      items: rooms.map((r) => roomDetailsFor(r, caller.userId)),
      total,
      page,
      size,
      pages: pageCount(total, size),
    };
  });

  rpc.handle(roomsOps.get, async ({ caller, id }) => {
    const room = await roomById(sql, id);
    if (!room) throw NotFound("Room not found");
    if (!canRead(room, caller)) throw Forbidden("Room access denied");
    return roomDetailsFor(room, caller.userId);
  });

  rpc.handle(roomsOps.state, async ({ id, name }) => {
    if (id !== undefined) return roomById(sql, id);
    if (name !== undefined) return roomByName(sql, name);
    throw Invalid([{ loc: ["body", "id"], msg: "id or name is required", type: "missing" }]);
  });

  // Anyone who knows a room's name may open its page (no sharing check), owners see the webhook.
  rpc.handle(roomsOps.getByName, async ({ caller, name }) => {
    const room = await roomByName(sql, name);
    if (!room) throw NotFound("Room not found");
    return roomDetailsFor(room, caller.userId);
  });
}
