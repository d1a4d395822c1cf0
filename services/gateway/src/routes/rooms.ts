// Room routes (api.md §2.5): list, create, get, update, delete, get by name.
import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import { CreateRoom, DeletionStatus, PageQuery, PageRoomDetails, Room, RoomDetails, UpdateRoom, roomsOps } from "@scribe/contracts";
import { call, requireUser, requireUserUnlessPublic, type AppEnv } from "../http/context";
import { IdempotencyKeyHeaders, idempotent } from "../http/idempotency";
import { body, json, validationError } from "./responses";

const RoomIdParam = z.object({ room_id: z.string() });
const RoomNameParam = z.object({ room_name: z.string() });
const tags = ["rooms"];

export function roomRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/rooms",
      operationId: "v1_rooms_list",
      tags,
      middleware: [requireUserUnlessPublic] as const,
      request: { query: PageQuery },
      responses: { 200: json(PageRoomDetails), ...validationError },
    }),
    async (c) => c.json(await call(c, roomsOps.list, c.req.valid("query")), 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/rooms",
      operationId: "v1_rooms_create",
      tags,
      middleware: [requireUser, idempotent] as const,
      request: { ...body(CreateRoom), headers: IdempotencyKeyHeaders },
      responses: { 200: json(Room), ...validationError },
    }),
    async (c) => c.json(await call(c, roomsOps.create, { room: c.req.valid("json") }), 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/rooms/{room_id}",
      operationId: "v1_rooms_get",
      tags,
      request: { params: RoomIdParam },
      responses: { 200: json(RoomDetails), ...validationError },
    }),
    async (c) => c.json(await call(c, roomsOps.get, { id: c.req.valid("param").room_id }), 200),
  );

  app.openapi(
    createRoute({
      method: "patch",
      path: "/v1/rooms/{room_id}",
      operationId: "v1_rooms_update",
      tags,
      middleware: [requireUser] as const,
      request: { params: RoomIdParam, ...body(UpdateRoom) },
      responses: { 200: json(RoomDetails), ...validationError },
    }),
    async (c) => c.json(await call(c, roomsOps.update, { id: c.req.valid("param").room_id, patch: c.req.valid("json") }), 200),
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/v1/rooms/{room_id}",
      operationId: "v1_rooms_delete",
      tags,
      middleware: [requireUser] as const,
      request: { params: RoomIdParam },
      responses: { 200: json(DeletionStatus), ...validationError },
    }),
    async (c) => c.json(await call(c, roomsOps.delete, { id: c.req.valid("param").room_id }), 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/rooms/name/{room_name}",
      operationId: "v1_rooms_get_by_name",
      tags,
      request: { params: RoomNameParam },
      responses: { 200: json(RoomDetails), ...validationError },
    }),
    async (c) => c.json(await call(c, roomsOps.getByName, { name: c.req.valid("param").room_name }), 200),
  );
}
