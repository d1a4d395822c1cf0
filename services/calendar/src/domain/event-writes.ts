// What one successful sync writes (behaviour §7.5, with the port's fixes): matched events are created
// or updated (a soft-deleted event that is back in the feed is restored, changed or not, unlike the
// reference); future events of the room that are no longer matched are soft-deleted; events that
// have started are never deleted. Only what people see is compared (title, description, location,
// times, attendees), so a feed that rewrites DTSTAMP on every export does not "update" every event.
import type { CalendarAttendee } from "@scribe/contracts";
import type { EventContent, FeedEvent } from "./feed";

export interface StoredEvent extends EventContent {
  id: string;
  isDeleted: boolean;
}

export interface EventWrites {
  create: FeedEvent[];
  update: { id: string; event: FeedEvent }[];
  /** Ids to soft-delete. */
  remove: string[];
}

export const eventKey = (uid: string, recurrenceId: string): string => `${uid}\u0000${recurrenceId}`;

const attendeeKey = (a: CalendarAttendee) => JSON.stringify([a.email ?? null, a.name ?? null, a.status ?? null, a.role ?? null]);

export function eventChanged(stored: StoredEvent, incoming: FeedEvent): boolean {
  return (
    stored.title !== incoming.title ||
    stored.description !== incoming.description ||
    stored.location !== incoming.location ||
    stored.start.getTime() !== incoming.start.getTime() ||
    stored.end.getTime() !== incoming.end.getTime() ||
    stored.attendees.length !== incoming.attendees.length ||
    stored.attendees.some((a, i) => attendeeKey(a) !== attendeeKey(incoming.attendees[i]!))
  );
}

/**
 * `stored`: the room's rows that share a key with `incoming` plus its future, non-deleted rows.
 * A key appearing twice in `incoming` (a feed that repeats a VEVENT) counts once, the last wins.
 */
export function planEventWrites(stored: StoredEvent[], incoming: FeedEvent[], now: Date): EventWrites {
  const byKey = new Map(stored.map((s) => [eventKey(s.uid, s.recurrenceId), s]));
  const wanted = new Map(incoming.map((e) => [eventKey(e.uid, e.recurrenceId), e]));
  const writes: EventWrites = { create: [], update: [], remove: [] };
  for (const [key, event] of wanted) {
    const existing = byKey.get(key);
    if (!existing) writes.create.push(event);
    else if (existing.isDeleted || eventChanged(existing, event)) writes.update.push({ id: existing.id, event });
  }
  for (const [key, s] of byKey) {
    if (!s.isDeleted && !wanted.has(key) && s.start.getTime() > now.getTime()) writes.remove.push(s.id);
  }
  return writes;
}
