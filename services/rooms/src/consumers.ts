// The calendar service owns ICS sync; rooms keep its latest outcome for room responses
// (`ics_last_sync`, `ics_last_etag`). Folding it is not a change of the room's settings: the
// room's `version` stays and no room event is emitted, so room consumers are not woken by every
// sync (room events carry these two fields as of the room's last settings change).
import type { ServiceRuntime } from "@scribe/kit";
import { recordCalendarSync } from "./store";

export function registerConsumers(rt: Pick<ServiceRuntime<unknown>, "consume">): void {
  rt.consume({
    name: "rooms.calendar",
    stream: "CALENDAR",
    // A read model of the sync outcomes: built from the whole history.
    deliverPolicy: "all",
    handlers: {
      "calendar.sync.completed": async (tx, ev) =>
        recordCalendarSync(tx, ev.data.room_id, { syncedAt: new Date(ev.data.synced_at), etag: ev.data.hash }),
    },
  });
}
