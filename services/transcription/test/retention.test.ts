// Retention's pure rules (PUBLIC_MODE): when the daily run is due, which transcripts have expired,
// and what their announcement says.
import { describe, expect, it } from "vitest";
import { expiryAnnouncement, isExpired, nextRunAt, parseRunAt, retentionCutoff, runDue } from "../src/domain/retention";

describe("retention schedule", () => {
  it("runs once a day at the configured UTC time, and catches up a missed run", () => {
    const at = parseRunAt("03:00")!;
    expect(parseRunAt("24:00")).toBeNull();
    expect(parseRunAt("3:5")).toBeNull();
    const before = new Date("2026-11-21T02:59:00Z");
    const after = new Date("2026-11-21T03:00:00Z");
    expect(runDue(before, at, "2026-11-20")).toBe(false);
    expect(runDue(after, at, "2026-11-20")).toBe(true);
    expect(runDue(new Date("2026-11-21T15:00:00Z"), at, null)).toBe(true);
    expect(runDue(new Date("2026-11-21T15:00:00Z"), at, "2026-11-21")).toBe(false);
    expect(nextRunAt(before, at)).toEqual(new Date("2026-11-21T03:00:00Z"));
    expect(nextRunAt(after, at)).toEqual(new Date("2026-11-22T03:00:00Z"));
  });

  it("expires what is older than the retention days", () => {
    expect(retentionCutoff(new Date("2026-11-21T03:00:00Z"), 7)).toEqual(new Date("2026-11-14T03:00:00Z"));
  });

  it("expires only anonymous, live transcripts created before the cutoff", () => {
    const cutoff = new Date("2026-11-14T03:00:00Z");
    const old = { user_id: null, deleted_at: null, created_at: "2026-11-14T02:59:59Z" };
    expect(isExpired(old, cutoff)).toBe(true);
    expect(isExpired({ ...old, created_at: "2026-11-14T03:00:00Z" }, cutoff)).toBe(false);
    expect(isExpired({ ...old, user_id: "alice" }, cutoff)).toBe(false);
    // A soft-deleted transcript waits for its owner's destroy (or restore), as before.
    expect(isExpired({ ...old, deleted_at: "2026-11-15T00:00:00Z" }, cutoff)).toBe(false);
  });

  it("announces the transcript with its meeting, recording, age rule and the run's time", () => {
    const now = new Date("2026-11-21T03:00:00Z");
    expect(expiryAnnouncement({ id: "t1", meeting_id: "m1", recording_id: null, created_at: "2026-11-10T08:00:00.000Z" }, 7, now)).toEqual({
      transcript_id: "t1",
      meeting_id: "m1",
      recording_id: null,
      transcript_created_at: "2026-11-10T08:00:00.000Z",
      retention_days: 7,
      expired_at: "2026-11-21T03:00:00.000Z",
    });
  });
});
