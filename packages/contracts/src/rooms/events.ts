// Room events: each carries the full room state after the change (or before deletion).
import { defineEvent } from "../common/event-def";
import { RoomState } from "./api";

export const roomEvents = [
  defineEvent({ type: "room.created", stream: "ROOMS", version: 1, data: RoomState, aggregateId: (d) => d.id }),
  defineEvent({ type: "room.updated", stream: "ROOMS", version: 1, data: RoomState, aggregateId: (d) => d.id }),
  defineEvent({ type: "room.deleted", stream: "ROOMS", version: 1, data: RoomState, aggregateId: (d) => d.id }),
] as const;
