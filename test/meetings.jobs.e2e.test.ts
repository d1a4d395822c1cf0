// Periodic meeting processing with two workers (two meetings-service instances on one database):
// each meeting is processed by exactly one of them per round, the other skips it and counts it.
import { meetingsProcessingSkipped, meetingsService } from "@scribe/meetings";
import { ok, type ScribeClient } from "@scribe/client";
import { metrics, registry, startService, type RunningService } from "@scribe/kit";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { roomWithMeetings, startPlatformSystem, type PlatformSystem } from "./support/platforms";

let sys: PlatformSystem;
let second: RunningService;
let alice: ScribeClient;
let sql: postgres.Sql;

beforeAll(async () => {
  sys = await startPlatformSystem({ label: "mtgjobs" });
  second = await startService(meetingsService, sys.env);
  alice = sys.client("alice");
  sql = postgres(sys.db.url, { max: 2, onnotice: () => {} });
});
afterAll(async () => {
  await sql?.end();
  await second?.stop();
  await sys?.stop();
});

const skippedMetric = async () => (await metrics.jobSkipped.get()).values.find((v) => v.labels.job === "meetings.process")?.value ?? 0;
const workerB = (opts: { now: Date }) => (second.exports.processMeetings as PlatformSystem["processMeetings"])(opts);

describe("meeting processing with two workers", () => {
  let ids: string[];
  beforeAll(async () => {
    await roomWithMeetings(alice, { name: "busy" });
    ids = [];
    const busy = { params: { path: { room_name: "busy" } } };
    for (let i = 0; i < 6; i++)
      ids.push((await ok(alice.POST("/v1/rooms/{room_name}/meeting", { ...busy, body: { allow_duplicated: true } }))).id);
    // Two of them were used and are now empty: they must be deactivated, once.
    for (const id of ids.slice(0, 2)) {
      const meeting = { params: { path: { room_name: "busy", meeting_id: id } } };
      const name = (await ok(alice.GET("/v1/rooms/{room_name}/meetings/{meeting_id}", meeting))).room_name;
      const { participant } = await sys.daily.join(name, { userName: "Visitor" });
      // No meeting.ended: the simulator only sends it when asked to end sessions (here: presence only).
      sys.daily.rooms.get(name)!.participants.find((p) => p.id === participant.id)!.leftAt = Date.now();
    }
  });

  it("processes each meeting once per round; the other worker skips it and counts it (metric and round result)", async () => {
    const before = await skippedMetric();
    const now = new Date();
    const [a, b] = await Promise.all([sys.processMeetings({ now }), workerB({ now })]);
    const processed = [...a.processed, ...b.processed];
    expect([...processed].sort()).toEqual([...ids].sort());
    expect(new Set(processed).size).toBe(ids.length);
    // A meeting still active is listed by both workers, so the one that comes second skips it. A
    // meeting the first worker deactivated may already be gone from the second worker's list.
    const skipped = [...a.skipped, ...b.skipped];
    expect(skipped.filter((id) => ids.slice(2).includes(id)).sort()).toEqual(ids.slice(2).sort());
    expect(new Set(skipped).size).toBe(skipped.length);
    expect(skipped.length).toBeGreaterThanOrEqual(ids.length - 2);
    expect([...a.deactivated, ...b.deactivated].sort()).toEqual(ids.slice(0, 2).sort());
    expect([...a.failed, ...b.failed]).toEqual([]);
    expect((await skippedMetric()) - before).toBe(skipped.length);

    // The next round (a later start) processes the still-active meetings once more, again once each.
    const later = new Date(now.getTime() + 1000);
    const [c, d] = await Promise.all([workerB({ now: later }), sys.processMeetings({ now: later })]);
    expect([...c.processed, ...d.processed].sort()).toEqual(ids.slice(2).sort());
    expect(c.skipped.length + d.skipped.length).toBe(ids.length - 2);
    const deactivated = await sql`select count(*)::int as n from meetings.meeting where id = any(${ids}) and not is_active`;
    expect(deactivated[0]!.n).toBe(2);
  });

  it("skips a meeting whose lock another worker holds, without waiting for it", async () => {
    const held = ids[2]!;
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    // A worker in the middle of processing `held` (its transaction holds the meeting's lock).
    const holder = sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(hashtext('scribe:meetings:process'), hashtext(${held}))`;
      locked();
      await released;
    });
    await isLocked;
    const heldBefore = (await meetingsProcessingSkipped.get()).values[0]?.value ?? 0;
    const round = await workerB({ now: new Date(Date.now() + 60_000) });
    release();
    await holder;
    expect(round.skipped).toEqual([held]);
    // Exposed on /metrics as the spec's "skipped because another worker holds it".
    expect(((await meetingsProcessingSkipped.get()).values[0]?.value ?? 0) - heldBefore).toBe(1);
    const exposition = await registry.metrics();
    expect(exposition).toMatch(/^scribe_meetings_processing_skipped_total \d+$/m);
    expect(round.processed.sort()).toEqual(ids.slice(3).sort());
  });
});
