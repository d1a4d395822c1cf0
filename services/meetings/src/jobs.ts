// Periodic meeting processing (behaviour §3.8–3.9 with the spec's decisions): for every active
// meeting, ask its platform who is present, bring the participant stays in line, and deactivate it
// when the rules say so. Each meeting is claimed for the round under its own lock before the platform
// is asked (outside any transaction): a worker that finds it taken (or already claimed in this round
// by another worker) skips it and counts it.
import type { MeetingState } from "@scribe/contracts";
import { metrics, type Clock, type Logger, type Sql } from "@scribe/kit";
import { closeOpenStays, deactivateMeeting, participantJoined, refreshClientCount } from "./changes";
import type { MeetingsConfig } from "./config";
import { meetingsProcessingSkipped } from "./metrics";
import { decideDeactivation } from "./domain/deactivation";
import { reconcilePresence } from "./domain/presence";
import type { Platforms } from "./platforms";
import {
  activeMeetingIds,
  hasAnyStay,
  lastProcessedAt,
  markProcessed,
  meetingById,
  openStays,
  purgeDeliveries,
  tryLockMeetingForProcessing,
} from "./store";

export const PROCESS_JOB = "meetings.process";

export interface ProcessRound {
  /** Meetings this worker processed (deactivated ones included). */
  processed: string[];
  deactivated: string[];
  /** Meetings another worker held, or had already processed in this round. */
  skipped: string[];
  /** Meetings whose processing failed (platform unreachable…); tried again next round. */
  failed: string[];
}

/** `held`: another worker holds the meeting (a skip the spec counts on its own). */
type Outcome = "processed" | "deactivated" | "skipped" | "held";

export interface ProcessorDeps {
  sql: Sql;
  platforms: Platforms;
  config: Pick<MeetingsConfig, "MEETING_JOIN_WINDOW_SECONDS" | "DAILY_WEBHOOK_MAX_AGE_SECONDS">;
  log: Logger;
  clock: Clock;
}

export function meetingProcessor({ sql, platforms, config, log, clock }: ProcessorDeps) {
  /**
   * One meeting: claim it for this round (its processing lock, then last_processed_at = the round's
   * start, committed), ask the platform outside any transaction, then record what follows with the
   * row locked. `now` is the round's start. A worker that comes second finds the claim and skips.
   */
  async function processMeeting(id: string, now: Date): Promise<Outcome> {
    const claimed = await sql.begin(async (tx): Promise<Outcome | MeetingState> => {
      if (!(await tryLockMeetingForProcessing(tx, id))) return "held";
      const seen = await meetingById(tx, id);
      // Deactivated (or deleted) since the round listed it: someone else dealt with it.
      if (!seen?.is_active) return "skipped";
      const last = await lastProcessedAt(tx, id);
      if (last && last.getTime() >= now.getTime()) return "skipped";
      await markProcessed(tx, id, now);
      return seen;
    });
    if (typeof claimed === "string") return claimed;
    const snapshot = await platforms.of(claimed.platform).presence(claimed);
    return sql.begin(async (tx): Promise<Outcome> => {
      let meeting = await meetingById(tx, id, { forUpdate: true });
      if (!meeting?.is_active) return "skipped";
      const plan = reconcilePresence(await openStays(tx, id), snapshot);
      for (const p of plan.open) await participantJoined(tx, meeting, p, now);
      if (plan.close.length)
        await closeOpenStays(
          tx,
          meeting,
          now,
          plan.close.map((s) => s.id),
        );
      meeting = await refreshClientCount(tx, meeting, snapshot.participants?.length ?? (snapshot.anyonePresent ? null : 0), now);
      const decision = decideDeactivation(
        {
          isActive: meeting.is_active,
          calendarEventId: meeting.calendar_event_id,
          scheduledEnd: meeting.calendar_metadata ? new Date(meeting.calendar_metadata.end_time) : null,
          createdAt: new Date(meeting.created_at),
          endDate: new Date(meeting.end_date),
        },
        { participantsPresent: snapshot.anyonePresent, everUsed: snapshot.everUsed || (await hasAnyStay(tx, id)) },
        now,
        config.MEETING_JOIN_WINDOW_SECONDS,
      );
      if (decision.action !== "deactivate") return "processed";
      await deactivateMeeting(tx, meeting, decision.reason, now);
      return "deactivated";
    });
  }

  /** One round over every active meeting; `now` is injectable so tests control the clock. */
  return async function processMeetings(opts: { now?: Date } = {}): Promise<ProcessRound> {
    const now = opts.now ?? clock();
    const round: ProcessRound = { processed: [], deactivated: [], skipped: [], failed: [] };
    let heldByOthers = 0;
    for (const id of await activeMeetingIds(sql)) {
      try {
        const outcome = await processMeeting(id, now);
        if (outcome === "held") heldByOthers++;
        if (outcome === "skipped" || outcome === "held") round.skipped.push(id);
        else round.processed.push(id);
        if (outcome === "deactivated") round.deactivated.push(id);
      } catch (e) {
        round.failed.push(id);
        log.warn({ err: e, meetingId: id, job: PROCESS_JOB }, "meeting processing failed; tried again next round");
      }
    }
    // Delivery records only need to outlive the window in which a signature is accepted.
    const keepSeconds = Math.max(config.DAILY_WEBHOOK_MAX_AGE_SECONDS, 60) + 3600;
    await purgeDeliveries(sql, new Date(now.getTime() - keepSeconds * 1000));
    metrics.jobProcessed.inc({ job: PROCESS_JOB }, round.processed.length);
    metrics.jobSkipped.inc({ job: PROCESS_JOB }, round.skipped.length);
    meetingsProcessingSkipped.inc(heldByOthers);
    log.info(
      {
        job: PROCESS_JOB,
        processed: round.processed.length,
        deactivated: round.deactivated.length,
        skipped: round.skipped.length,
        failed: round.failed.length,
      },
      "meetings processed",
    );
    return round;
  };
}
