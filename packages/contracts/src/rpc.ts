// Request/reply operations: subject, request schema and response schema, shared by caller and server.
import { z } from "@hono/zod-openapi";
import { Caller, DeletionStatus, PageQuery } from "./common";
import { CreateRoom, PageRoomDetails, Room, RoomDetails, UpdateRoom } from "./rooms";

export interface RpcOp<Req extends z.ZodType = z.ZodType, Res extends z.ZodType = z.ZodType> {
  /** Unprefixed subject, always under `rpc.` so no stream captures it. */
  subject: string;
  request: Req;
  response: Res;
}
export function defineOp<Req extends z.ZodType, Res extends z.ZodType>(
  subject: string,
  request: Req,
  response: Res,
): RpcOp<Req, Res> {
  return { subject: `rpc.${subject}`, request, response };
}
export type RpcRequest<O extends RpcOp> = z.input<O["request"]>;
export type RpcResponse<O extends RpcOp> = z.infer<O["response"]>;

/** A request schema: `caller` plus the operation's fields (every request carries the caller). */
export const withCaller = <T extends z.ZodRawShape>(shape: T) => z.object({ caller: Caller, ...shape });

export const roomsOps = {
  list: defineOp("rooms.list", withCaller({ ...PageQuery.shape }), PageRoomDetails),
  get: defineOp("rooms.get", withCaller({ id: z.string() }), RoomDetails),
  getByName: defineOp("rooms.get_by_name", withCaller({ name: z.string() }), RoomDetails),
  create: defineOp("rooms.create", withCaller({ room: CreateRoom }), Room),
  update: defineOp("rooms.update", withCaller({ id: z.string(), patch: UpdateRoom }), RoomDetails),
  delete: defineOp("rooms.delete", withCaller({ id: z.string() }), DeletionStatus),
} as const;
