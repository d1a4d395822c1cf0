// Room events: each carries the room's state after the change (or before deletion), without its
// webhook secret.
import { defineEvent } from "../common/event-def";
import { RoomEvent } from "./api";

export const roomEvents = [
  defineEvent({ type: "room.created", stream: "ROOMS", version: 1, data: RoomEvent, aggregateId: (d) => d.id }),
  defineEvent({ type: "room.updated", stream: "ROOMS", version: 1, data: RoomEvent, aggregateId: (d) => d.id }),
  defineEvent({ type: "room.deleted", stream: "ROOMS", version: 1, data: RoomEvent, aggregateId: (d) => d.id }),
] as const;
