// Room queries over request/reply; webhook fields are hidden from everyone but the owner.
import { pageCount, roomDetailsFor, roomEventOf, roomsOps } from "@scribe/contracts";
import {
  Forbidden,
  Invalid,
  NotFound,
  Unauthorized,
  anonymousMayUsePublicRoutes,
  type RpcServer,
  type SecretBox,
  type Sql,
} from "@scribe/kit";
import type { RoomsConfig } from "./config";
import { canRead } from "./domain/rooms";
import { listVisibleRooms, roomById, roomByName } from "./store";

export function registerQueries(rpc: RpcServer, sql: Sql, config: RoomsConfig, box: SecretBox): void {
  rpc.handle(roomsOps.list, async ({ caller, page, size }) => {
    if (caller.userId === null && !anonymousMayUsePublicRoutes(config)) throw Unauthorized();
    const { rooms, total } = await listVisibleRooms(sql, box, caller.userId, { limit: size, offset: size * (page - 1) });
    return {
      items: rooms.map((r) => roomDetailsFor(r, caller.userId)),
      total,
      page,
      size,
      pages: pageCount(total, size),
    };
  });

  rpc.handle(roomsOps.get, async ({ caller, id }) => {
    const room = await roomById(sql, box, id);
    if (!room) throw NotFound("Room not found");
    if (!canRead(room, caller)) throw Forbidden("Room access denied");
    return roomDetailsFor(room, caller.userId);
  });

  rpc.handle(roomsOps.state, async ({ id, name }) => {
    const room = id !== undefined ? await roomById(sql, box, id) : name !== undefined ? await roomByName(sql, box, name) : undefined;
    if (room !== undefined) return room && roomEventOf(room);
    throw Invalid([{ loc: ["body", "id"], msg: "id or name is required", type: "missing" }]);
  });

  // Anyone who knows a room's name may open its page (no sharing check), owners see the webhook.
  rpc.handle(roomsOps.getByName, async ({ caller, name }) => {
    const room = await roomByName(sql, box, name);
    if (!room) throw NotFound("Room not found");
    return roomDetailsFor(room, caller.userId);
  });

  // Only other services: the notifier signs webhooks with it (events carry no secret).
  rpc.handle(roomsOps.webhookSecret, async ({ caller, id }) => {
    if (caller.via !== "internal") throw Forbidden("Not authorized");
    const room = await roomById(sql, box, id);
    if (!room) throw NotFound("Room not found");
    return { webhook_secret: room.webhook_secret };
  });
}
