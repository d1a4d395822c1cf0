// The calendar's consumers: its copy of the rooms (./room-copy.ts).
import { roomCopySource } from "@scribe/contracts";
import { copyHandlers, type ServiceRuntime } from "@scribe/kit";
import { roomCopy } from "./room-copy";

export function registerConsumers(rt: Pick<ServiceRuntime<unknown>, "consume" | "clock">): void {
  rt.consume({
    name: "calendar.rooms",
    stream: "ROOMS",
    // A read model: built from the whole history.
    deliverPolicy: "all",
    handlers: copyHandlers(roomCopy, rt.clock, roomCopySource.events),
  });
}
