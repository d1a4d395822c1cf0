// Retention on public instances: once a day (RETENTION_RUN_AT, UTC) the anonymous transcripts older
// than PUBLIC_DATA_RETENTION_DAYS are destroyed (transcript.destroyed, reason retention) and announced
// expired (retention.transcript_expired) in the same transaction: recordings then delete their
// recordings and every stored file, meetings the meeting, the notifier cancels pending deliveries.
import { makeEvent } from "@scribe/contracts";
import { emit, type Clock, type Logger, type Sql } from "@scribe/kit";
import { SOURCE } from "./changes";
import type { TranscriptionConfig } from "./config";
import { destroyTranscript } from "./destroy";
import { decide } from "./domain/decider";
import { expiryAnnouncement, isExpired, nextRunAt, parseRunAt, retentionCutoff, runDue, utcDay } from "./domain/retention";
import {
  abandonRetentionRun,
  finishRetentionRun,
  lastRetentionDay,
  loadTranscript,
  lockExpiryCandidates,
  startRetentionRun,
} from "./store";

const BATCH = 100;
type RetentionConfig = Pick<TranscriptionConfig, "PUBLIC_MODE" | "PUBLIC_DATA_RETENTION_DAYS" | "RETENTION_RUN_AT">;

/**
 * Destroys and announces every expired transcript (at `now`); null when not in PUBLIC_MODE. Each
 * batch commits the destructions with their events, so a crash mid-run announces nothing twice, and
 * concurrent runs skip each other's rows.
 */
export async function expireTranscripts(sql: Sql, config: RetentionConfig, now: Date): Promise<string[] | null> {
  if (!config.PUBLIC_MODE) return null;
  const cutoff = retentionCutoff(now, config.PUBLIC_DATA_RETENTION_DAYS);
  const expired: string[] = [];
  for (;;) {
    const { candidates, ids } = await sql.begin(async (tx) => {
      const candidates = await lockExpiryCandidates(tx, cutoff, BATCH);
      const ids: string[] = [];
      for (const id of candidates) {
        const a = await loadTranscript(tx, id, { forUpdate: true, topics: false, events: false });
        if (!a || !isExpired(a.state, cutoff)) continue;
        await destroyTranscript(tx, a, decide({ type: "destroy", reason: "retention", now }, a), now);
        // After the tombstone: the shredder purges the transcript's earlier TRANSCRIPTS messages, and
        // this one (ids and dates only) must stay for meetings to apply.
        await emit(
          tx,
          makeEvent("retention.transcript_expired", expiryAnnouncement(a.state, config.PUBLIC_DATA_RETENTION_DAYS, now), {
            source: SOURCE,
            time: now,
          }),
        );
        ids.push(id);
      }
      return { candidates, ids };
    });
    expired.push(...ids);
    if (candidates.length < BATCH) return expired;
  }
}

/** The daily run, if due at `now` and not taken by another replica. */
export async function retentionTick(sql: Sql, config: RetentionConfig, log: Logger, now: Date): Promise<string[] | null> {
  const runAt = parseRunAt(config.RETENTION_RUN_AT);
  if (!config.PUBLIC_MODE || runAt === null) return null;
  if (!runDue(now, runAt, await lastRetentionDay(sql))) return null;
  const day = utcDay(now);
  if (!(await startRetentionRun(sql, day, now))) return null;
  let expired: string[];
  try {
    expired = (await expireTranscripts(sql, config, now)) ?? [];
  } catch (e) {
    // Give the day back so the next hourly check tries again (what was destroyed stays destroyed).
    await abandonRetentionRun(sql, day).catch(() => {});
    throw e;
  }
  await finishRetentionRun(sql, day, expired.length, now);
  log.info({ day, expired: expired.length, retentionDays: config.PUBLIC_DATA_RETENTION_DAYS }, "retention run finished");
  return expired;
}

/** Wakes at the scheduled time (and at least hourly, to notice a missed day after a clock change). */
export function startRetentionSchedule(sql: Sql, config: RetentionConfig, log: Logger, clock: Clock): { stop(): Promise<void> } {
  const runAt = parseRunAt(config.RETENTION_RUN_AT);
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();
  if (!config.PUBLIC_MODE || runAt === null) return { stop: async () => {} };
  const tick = () => {
    running = retentionTick(sql, config, log, clock())
      .then(() => undefined)
      .catch((e: unknown) => log.error({ err: e }, "retention run failed; will retry at the next check"))
      .finally(() => {
        if (stopped) return;
        const now = clock();
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
