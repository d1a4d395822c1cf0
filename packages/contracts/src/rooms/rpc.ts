// Request/reply operations of the rooms service.
import { z } from "@hono/zod-openapi";
import { defineOp, withCaller } from "../common/rpc";
import { DeletionStatus, PageQuery } from "../common/schemas";
import { CreateRoom, PageRoomDetails, Room, RoomDetails, UpdateRoom } from "./api";

export const roomsOps = {
  list: defineOp("rooms.list", withCaller({ ...PageQuery.shape }), PageRoomDetails),
  get: defineOp("rooms.get", withCaller({ id: z.string() }), RoomDetails),
  getByName: defineOp("rooms.get_by_name", withCaller({ name: z.string() }), RoomDetails),
  create: defineOp("rooms.create", withCaller({ room: CreateRoom }), Room),
  update: defineOp("rooms.update", withCaller({ id: z.string(), patch: UpdateRoom }), RoomDetails),
  delete: defineOp("rooms.delete", withCaller({ id: z.string() }), DeletionStatus),
} as const;
