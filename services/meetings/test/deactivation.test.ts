// The deactivation rules (interface-spec §3 table + the spec README's Meetings decisions), each a
// test named after the rule, with an injected clock.
import { describe, expect, it } from "vitest";
import { decideDeactivation, type DeactivationDecision, type MeetingFacts, type UsageFacts } from "../src/domain/deactivation";

const T0 = new Date("2026-03-02T09:00:00Z");
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);
const JOIN_WINDOW = 300;

/** An on-the-fly meeting created at T0 (ends 8 h later). */
const onTheFly: MeetingFacts = { isActive: true, calendarEventId: null, scheduledEnd: null, createdAt: T0, endDate: at(480) };
/** A calendar meeting pre-created at T0 for an event from T0+7 min to T0+37 min. */
const calendar: MeetingFacts = { isActive: true, calendarEventId: "evt-1", scheduledEnd: at(37), createdAt: T0, endDate: at(487) };

const present: UsageFacts = { participantsPresent: true, everUsed: true };
const usedAndEmpty: UsageFacts = { participantsPresent: false, everUsed: true };
const neverUsed: UsageFacts = { participantsPresent: false, everUsed: false };

interface Row {
  rule: string;
  meeting: MeetingFacts;
  usage: UsageFacts;
  now: Date;
  expected: DeactivationDecision;
}

const rows: Row[] = [
  // Interface spec §3, row 1: a running session keeps the meeting, whatever the schedule.
  {
    rule: "keeps an on-the-fly meeting active while participants are present",
    meeting: onTheFly,
    usage: present,
    now: at(60),
    expected: { action: "keep", reason: "participants_present" },
  },
  {
    rule: "keeps a calendar meeting active while participants are present, even past its scheduled end",
    meeting: calendar,
    usage: present,
    now: at(120),
    expected: { action: "keep", reason: "participants_present" },
  },
  {
    rule: "keeps a meeting with participants present even past its own end date",
    meeting: onTheFly,
    usage: present,
    now: at(600),
    expected: { action: "keep", reason: "participants_present" },
  },
  // Row 2: calendar, never used, before its scheduled end.
  {
    rule: "keeps a never-used calendar meeting active before its event starts",
    meeting: calendar,
    usage: neverUsed,
    now: at(3),
    expected: { action: "keep", reason: "waiting_for_scheduled_end" },
  },
  {
    rule: "keeps a never-used calendar meeting active until its scheduled end, past the join window",
    meeting: calendar,
    usage: neverUsed,
    now: at(36),
    expected: { action: "keep", reason: "waiting_for_scheduled_end" },
  },
  // Row 3: calendar, never used, scheduled end reached.
  {
    rule: "deactivates a never-used calendar meeting when its scheduled end is reached",
    meeting: calendar,
    usage: neverUsed,
    now: at(37),
    expected: { action: "deactivate", reason: "scheduled_end_reached" },
  },
  {
    rule: "deactivates a never-used calendar meeting after its scheduled end",
    meeting: calendar,
    usage: neverUsed,
    now: at(200),
    expected: { action: "deactivate", reason: "scheduled_end_reached" },
  },
  {
    rule: "uses the meeting's end date for a calendar meeting without a scheduled end",
    meeting: { ...calendar, scheduledEnd: null },
    usage: neverUsed,
    now: at(487),
    expected: { action: "deactivate", reason: "scheduled_end_reached" },
  },
  // Row 4: calendar, used, now empty — at once, without waiting for the scheduled end.
  {
    rule: "deactivates a used calendar meeting as soon as it is empty, before its scheduled end",
    meeting: calendar,
    usage: usedAndEmpty,
    now: at(10),
    expected: { action: "deactivate", reason: "everyone_left" },
  },
  // Row 5 with the join-window decision: on-the-fly and empty.
  {
    rule: "deactivates a used on-the-fly meeting as soon as it is empty",
    meeting: onTheFly,
    usage: usedAndEmpty,
    now: at(1),
    expected: { action: "deactivate", reason: "everyone_left" },
  },
  {
    rule: "has no grace period: a used meeting empty for a moment is deactivated",
    meeting: onTheFly,
    usage: usedAndEmpty,
    now: at(0),
    expected: { action: "deactivate", reason: "everyone_left" },
  },
  {
    rule: "keeps a never-used on-the-fly meeting while its creator can still reach it (join window)",
    meeting: onTheFly,
    usage: neverUsed,
    now: at(4.99),
    expected: { action: "keep", reason: "within_join_window" },
  },
  {
    rule: "deactivates a never-used on-the-fly meeting once empty past the join window",
    meeting: onTheFly,
    usage: neverUsed,
    now: at(5),
    expected: { action: "deactivate", reason: "join_window_passed" },
  },
  // Rule 2: an inactive meeting is never reactivated.
  {
    rule: "never reactivates an inactive meeting, even with participants present",
    meeting: { ...onTheFly, isActive: false },
    usage: present,
    now: at(10),
    expected: { action: "leave_inactive", reason: "inactive" },
  },
  {
    rule: "never reactivates an inactive calendar meeting before its scheduled end",
    meeting: { ...calendar, isActive: false },
    usage: neverUsed,
    now: at(10),
    expected: { action: "leave_inactive", reason: "inactive" },
  },
];

describe("meeting deactivation (periodic processing)", () => {
  for (const row of rows) {
    it(row.rule, () => {
      expect(decideDeactivation(row.meeting, row.usage, row.now, JOIN_WINDOW)).toEqual(row.expected);
    });
  }

  it("takes the join window from configuration (MEETING_JOIN_WINDOW_SECONDS)", () => {
    expect(decideDeactivation(onTheFly, neverUsed, at(5), 600)).toEqual({ action: "keep", reason: "within_join_window" });
    expect(decideDeactivation(onTheFly, neverUsed, at(10), 600)).toEqual({ action: "deactivate", reason: "join_window_passed" });
    expect(decideDeactivation(onTheFly, neverUsed, at(0), 0)).toEqual({ action: "deactivate", reason: "join_window_passed" });
  });
});
