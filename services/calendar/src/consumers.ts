// The calendar's consumers: its copy of the rooms (./room-copy.ts).
import type { ServiceRuntime } from "@scribe/kit";
import { roomCopy } from "./room-copy";

export function registerConsumers(rt: Pick<ServiceRuntime<unknown>, "consume" | "clock">): void {
  rt.consume({
    name: "calendar.rooms",
    stream: "ROOMS",
    // A read model: built from the whole history.
    deliverPolicy: "all",
    handlers: {
      "room.created": async (tx, ev) => void (await roomCopy.apply(tx, ev.data, false, rt.clock())),
      "room.updated": async (tx, ev) => void (await roomCopy.apply(tx, ev.data, false, rt.clock())),
      "room.deleted": async (tx, ev) => void (await roomCopy.apply(tx, ev.data, true, rt.clock())),
    },
  });
}
