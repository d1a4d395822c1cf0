// Calendar routes (api.md §2.6): a room's calendar events, its upcoming events, its ICS status and
// the owner's force sync. Registered before the meeting routes: Hono matches in registration order,
// and `/meetings/upcoming` must not be taken for `/meetings/{meeting_id}`.
import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import { CalendarEventResponse, ICSStatus, ICSSyncResult, ICS_SYNC_RPC_TIMEOUT_MS, UpcomingQuery, calendarOps } from "@scribe/contracts";
import { call, type AppEnv } from "../http/context";
import { json, validationError } from "./responses";

const RoomNameParam = z.object({ room_name: z.string() });
const tags = ["rooms"];

export function calendarRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/rooms/{room_name}/ics/sync",
      operationId: "v1_rooms_sync_ics",
      tags,
      request: { params: RoomNameParam },
      responses: { 200: json(ICSSyncResult), ...validationError },
    }),
    async (c) => {
      const { RPC_TIMEOUT_MS } = c.get("deps").config;
      const timeoutMs = Math.max(RPC_TIMEOUT_MS, ICS_SYNC_RPC_TIMEOUT_MS);
      return c.json(await call(c, calendarOps.syncIcs, { room_name: c.req.valid("param").room_name }, { timeoutMs }), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/rooms/{room_name}/ics/status",
      operationId: "v1_rooms_ics_status",
      tags,
      request: { params: RoomNameParam },
      responses: { 200: json(ICSStatus), ...validationError },
    }),
    async (c) => c.json(await call(c, calendarOps.icsStatus, { room_name: c.req.valid("param").room_name }), 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/rooms/{room_name}/meetings",
      operationId: "v1_rooms_list_meetings",
      tags,
      request: { params: RoomNameParam },
      responses: { 200: json(z.array(CalendarEventResponse)), ...validationError },
    }),
    async (c) => c.json(await call(c, calendarOps.listEvents, { room_name: c.req.valid("param").room_name }), 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/rooms/{room_name}/meetings/upcoming",
      operationId: "v1_rooms_list_upcoming_meetings",
      tags,
      request: { params: RoomNameParam, query: UpcomingQuery },
      responses: { 200: json(z.array(CalendarEventResponse)), ...validationError },
    }),
    async (c) =>
      c.json(
        await call(c, calendarOps.upcoming, {
          room_name: c.req.valid("param").room_name,
          minutes_ahead: c.req.valid("query").minutes_ahead,
        }),
        200,
      ),
  );
}
