// Retention on public instances: once a day (RETENTION_RUN_AT, UTC) the anonymous transcripts older
// than PUBLIC_DATA_RETENTION_DAYS are announced expired, once each (retention.transcript_expired).
// The owning services apply it: transcription destroys the transcript (transcript.destroyed, reason
// retention), recordings then delete its recordings and every stored file, meetings its meeting.
import { makeEvent } from "@scribe/contracts";
import { emit, type Logger, type Sql } from "@scribe/kit";
import type { NotifierConfig } from "./config";
import { SOURCE } from "./consumers";
import { nextRunAt, parseRunAt, retentionCutoff, runDue, utcDay } from "./domain/retention";
import { notifierMetrics } from "./metrics";
import { abandonRetentionRun, finishRetentionRun, lastRetentionDay, lockExpiredTranscripts, markExpired, startRetentionRun } from "./store";

const BATCH = 100;

/**
 * Announces every expired transcript not announced yet (at `now`); null when not in PUBLIC_MODE.
 * Each batch commits its events with the marks, so a crash mid-run announces nothing twice, and
 * concurrent runs skip each other's rows.
 */
export async function expireTranscripts(sql: Sql, config: NotifierConfig, now: Date): Promise<string[] | null> {
  if (!config.PUBLIC_MODE) return null;
  const cutoff = retentionCutoff(now, config.PUBLIC_DATA_RETENTION_DAYS);
  const expired: string[] = [];
  for (;;) {
    const ids = await sql.begin(async (tx) => {
      const rows = await lockExpiredTranscripts(tx, cutoff, BATCH);
      for (const r of rows) {
        const data = {
          transcript_id: r.id,
          meeting_id: r.meeting_id,
          recording_id: r.recording_id,
          transcript_created_at: r.created_at.toISOString(),
          retention_days: config.PUBLIC_DATA_RETENTION_DAYS,
          expired_at: now.toISOString(),
        };
        await emit(tx, makeEvent("retention.transcript_expired", data, { source: SOURCE, time: now }));
      }
      await markExpired(tx, rows.map((r) => r.id), now);
      return rows.map((r) => r.id);
    });
    expired.push(...ids);
    notifierMetrics.expired.inc(ids.length);
    if (ids.length < BATCH) return expired;
  }
}

/** The daily run, if due at `now` and not taken by another replica. */
export async function retentionTick(sql: Sql, config: NotifierConfig, log: Logger, now: Date): Promise<string[] | null> {
  const runAt = parseRunAt(config.RETENTION_RUN_AT);
  if (!config.PUBLIC_MODE || runAt === null) return null;
  if (!runDue(now, runAt, await lastRetentionDay(sql))) return null;
  const day = utcDay(now);
  if (!(await startRetentionRun(sql, day, now))) return null;
  let expired: string[];
  try {
    expired = (await expireTranscripts(sql, config, now)) ?? [];
  } catch (e) {
    // Give the day back so the next hourly check tries again (what was announced stays announced).
    await abandonRetentionRun(sql, day).catch(() => {});
    throw e;
  }
  await finishRetentionRun(sql, day, expired.length, new Date());
  log.info({ day, expired: expired.length, retentionDays: config.PUBLIC_DATA_RETENTION_DAYS }, "retention run finished");
  return expired;
}

/** Wakes at the scheduled time (and at least hourly, to notice a missed day after a clock change). */
export function startRetentionSchedule(sql: Sql, config: NotifierConfig, log: Logger): { stop(): Promise<void> } {
  const runAt = parseRunAt(config.RETENTION_RUN_AT);
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();
  if (!config.PUBLIC_MODE || runAt === null) return { stop: async () => {} };
  const tick = () => {
    running = retentionTick(sql, config, log, new Date())
      .then(() => undefined)
      .catch((e: unknown) => log.error({ err: e }, "retention run failed; will retry at the next check"))
      .finally(() => {
        if (stopped) return;
        const now = new Date();
        const wait = Math.max(1000, Math.min(3_600_000, nextRunAt(now, runAt).getTime() - now.getTime()));
        timer = setTimeout(tick, wait);
      });
  };
  tick();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
