// When periodic processing deactivates a meeting: interface-spec §3 (meeting active flag) with the
// Meetings decisions of the spec README (no grace period; a never-used on-the-fly meeting waits out
// the join window; a never-used calendar meeting waits for its scheduled end; never reactivated).
import type { DeactivationReason } from "@scribe/contracts";

export interface MeetingFacts {
  isActive: boolean;
  /** Set for meetings made from a calendar event. */
  calendarEventId: string | null;
  /** The calendar event's scheduled end (null for on-the-fly meetings). */
  scheduledEnd: Date | null;
  /** When the meeting was created (start of the join window). */
  createdAt: Date;
  /** The meeting's own end (creation or event start + 8 h); fallback for a calendar meeting without a schedule. */
  endDate: Date;
}

export interface UsageFacts {
  /** Someone is in the meeting now (per the platform's presence, reconciled). */
  participantsPresent: boolean;
  /** Anyone was ever in it (a participant record or a platform session exists). */
  everUsed: boolean;
}

export type DeactivationDecision =
  | { action: "keep"; reason: "participants_present" | "waiting_for_scheduled_end" | "within_join_window" }
  | { action: "deactivate"; reason: Extract<DeactivationReason, "everyone_left" | "scheduled_end_reached" | "join_window_passed"> }
  | { action: "leave_inactive"; reason: "inactive" };

export function decideDeactivation(meeting: MeetingFacts, usage: UsageFacts, now: Date, joinWindowSeconds: number): DeactivationDecision {
  // An inactive meeting is never reactivated, whoever shows up: a new meeting is created instead.
  if (!meeting.isActive) return { action: "leave_inactive", reason: "inactive" };
  // A running session keeps it, whatever its schedule says.
  if (usage.participantsPresent) return { action: "keep", reason: "participants_present" };
  // Used and now empty: deactivated at once, calendar or not (no grace period).
  if (usage.everUsed) return { action: "deactivate", reason: "everyone_left" };
  if (meeting.calendarEventId !== null) {
    const end = meeting.scheduledEnd ?? meeting.endDate;
    return now.getTime() >= end.getTime()
      ? { action: "deactivate", reason: "scheduled_end_reached" }
      : { action: "keep", reason: "waiting_for_scheduled_end" };
  }
  // Never used on-the-fly: its creator must have time to reach it before it is ended.
  const windowEnds = meeting.createdAt.getTime() + joinWindowSeconds * 1000;
  return now.getTime() >= windowEnds
    ? { action: "deactivate", reason: "join_window_passed" }
    : { action: "keep", reason: "within_join_window" };
}
