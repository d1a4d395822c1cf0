// Periodic work of the calendar service: the sync scheduler (rooms whose feed is due, claimed so
// two workers never take the same room, a few at a time) and the job that makes calendar meetings
// as their events open for joining (reference `create_upcoming_meetings`, behaviour §7.8).
import { meetingsOps, type ICSSyncResult } from "@scribe/contracts";
import { metrics, rpcCall, type Bus, type Clock, type Logger, type Sql } from "@scribe/kit";
import { INTERNAL, calendarEventForMeeting } from "./commands";
import type { CalendarConfig } from "./config";
import { precreateRange } from "./domain/meetings";
import { claimDueRooms, eventsNeedingMeetings, setEventMeeting } from "./store";
import type { Syncer } from "./sync";

export const MEETINGS_JOB = "calendar.meetings";

export interface JobDeps {
  sql: Sql;
  bus: Bus;
  syncRoom: Syncer;
  config: Pick<CalendarConfig, "ICS_SYNC_CONCURRENCY" | "ICS_FETCH_TIMEOUT_MS"> & { RPC_TIMEOUT_MS: number };
  log: Logger;
  clock: Clock;
}

/** Run `work` over `items`, at most `limit` at a time. */
async function eachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: Math.min(limit, queue.length) }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
    }),
  );
}

export function calendarJobs({ sql, bus, syncRoom, config, log, clock }: JobDeps) {
  /** Sync every room that is due at `now`; rounds of claims until none is left. */
  async function syncDueRooms(opts: { now?: Date } = {}): Promise<{ roomId: string; result: ICSSyncResult }[]> {
    const now = opts.now ?? clock();
    // A claimed room is due again after this if its worker died: twice the download deadline, and a minute.
    const leaseUntil = new Date(now.getTime() + 2 * config.ICS_FETCH_TIMEOUT_MS + 60_000);
    const batch = config.ICS_SYNC_CONCURRENCY * 4;
    const results: { roomId: string; result: ICSSyncResult }[] = [];
    for (;;) {
      const ids = await claimDueRooms(sql, now, leaseUntil, batch);
      await eachLimited(ids, config.ICS_SYNC_CONCURRENCY, async (roomId) => {
        try {
          results.push({ roomId, result: await syncRoom(roomId, { now }) });
        } catch (e) {
          // The lease makes it due again later; one broken room does not stop the others.
          log.error({ err: e, roomId }, "ics sync failed unexpectedly");
        }
      });
      if (ids.length < batch) return results;
    }
  }

  /** Make the meeting of every event opening for joining that has none yet (idempotent per event). */
  async function createUpcomingMeetings(opts: { now?: Date } = {}): Promise<{ created: string[]; failed: string[] }> {
    const now = opts.now ?? clock();
    const out = { created: [] as string[], failed: [] as string[] };
    for (const event of await eventsNeedingMeetings(sql, precreateRange(now), 100)) {
      try {
        const meeting = await rpcCall(
          bus,
          meetingsOps.createCalendarMeeting,
          { caller: INTERNAL, room_id: event.room_id, calendar_event: calendarEventForMeeting(event) },
          { timeoutMs: config.RPC_TIMEOUT_MS },
        );
        await setEventMeeting(sql, event.id, meeting.id);
        out.created.push(event.id);
      } catch (e) {
        // Tried again at the next round while the event is still in range.
        out.failed.push(event.id);
        log.warn({ err: e, eventId: event.id, job: MEETINGS_JOB }, "making a calendar meeting failed");
      }
    }
    metrics.jobProcessed.inc({ job: MEETINGS_JOB }, out.created.length);
    if (out.created.length || out.failed.length)
      log.info({ job: MEETINGS_JOB, created: out.created.length, failed: out.failed.length }, "calendar meetings");
    return out;
  }

  return { syncDueRooms, createUpcomingMeetings };
}
