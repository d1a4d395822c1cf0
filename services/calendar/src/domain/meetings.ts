// Calendar events and their meetings: which events are upcoming, when an event may be joined
// (ongoing, or from EARLY_JOIN_SECONDS before its start: 4:59 before is allowed, 5:01 is not), and
// which events get their meeting made ahead by the periodic job.
import { EARLY_JOIN_SECONDS } from "@scribe/contracts";

export interface EventTimes {
  start: Date;
  end: Date;
}

/** Upcoming = not over yet and starting within `minutesAhead` (events happening now included). */
export function upcomingRange(now: Date, minutesAhead: number): { startsBy: Date; endsAfter: Date } {
  return { startsBy: new Date(now.getTime() + minutesAhead * 60_000), endsAfter: now };
}

export type EarlyJoinRefusal = "Meeting has not started yet" | "Meeting has ended";

export function earlyJoinRefusal(event: EventTimes, now: Date): EarlyJoinRefusal | null {
  if (now.getTime() < event.start.getTime() - EARLY_JOIN_SECONDS * 1000) return "Meeting has not started yet";
  if (now.getTime() >= event.end.getTime()) return "Meeting has ended";
  return null;
}

/**
 * The job makes a meeting for events that open for joining (EARLY_JOIN_SECONDS ahead, so a meeting
 * never appears before its event can be joined) and for those that started up to 6 minutes ago (the
 * reference's cut-off: events found later get their meeting when someone joins them).
 */
export const PRECREATE_LATE_MS = 6 * 60_000;
export function precreateRange(now: Date): { startsAfter: Date; startsBy: Date; endsAfter: Date } {
  return {
    startsAfter: new Date(now.getTime() - PRECREATE_LATE_MS),
    startsBy: new Date(now.getTime() + EARLY_JOIN_SECONDS * 1000),
    endsAfter: now,
  };
}
