// Request/reply operations of the rooms service.
import { z } from "@hono/zod-openapi";
import { defineOp, withCaller } from "../common/rpc";
import { DeletionStatus, PageQuery } from "../common/schemas";
import { CreateRoom, PageRoomDetails, Room, RoomDetails, RoomEvent, UpdateRoom } from "./api";

export const roomsOps = {
  list: defineOp("rooms.list", withCaller({ ...PageQuery.shape }), PageRoomDetails),
  get: defineOp("rooms.get", withCaller({ id: z.string() }), RoomDetails),
  getByName: defineOp("rooms.get_by_name", withCaller({ name: z.string() }), RoomDetails),
  create: defineOp("rooms.create", withCaller({ room: CreateRoom }), Room),
  update: defineOp("rooms.update", withCaller({ id: z.string(), patch: UpdateRoom }), RoomDetails),
  delete: defineOp("rooms.delete", withCaller({ id: z.string() }), DeletionStatus),
  /**
   * A room's state (as its events carry it, without the webhook secret) for services keeping a copy (read-through, kit `defineEntityCopy`); null
   * when no live room has that id or name. Services ask on their own behalf: no caller.
   */
  state: defineOp("rooms.state", z.object({ id: z.string().optional(), name: z.string().optional() }), RoomEvent.nullable()),
  /** The room's webhook secret, for other services only (the notifier signs with it). */
  webhookSecret: defineOp("rooms.webhook_secret", withCaller({ id: z.string() }), z.object({ webhook_secret: z.string().nullable() })),
} as const;

/**
 * What every service keeping a copy of the rooms (kit `defineEntityCopy`, `copyHandlers`) needs from
 * their owner: where to read a room through (by id or name), and which ROOMS events carry a room's state.
 */
export const roomCopySource = {
  owner: {
    op: roomsOps.state,
    request: (field: string, value: string) => ({ [field]: value }),
    stateOf: (room: RoomEvent | null) => room,
  },
  events: { live: ["room.created", "room.updated"], deleted: ["room.deleted"] },
} as const;
