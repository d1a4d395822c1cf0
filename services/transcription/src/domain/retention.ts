// Retention on public instances (PUBLIC_MODE): when the daily run is due and which transcripts it
// expires. Pure: the clock comes in.
import type { TranscriptExpired } from "@scribe/contracts";

/** "HH:MM" (UTC) → minutes after midnight; the setting is validated with this. */
export function parseRunAt(v: string): number | null {
  const m = /^(\d{1,2}):(\d{2})$/.exec(v.trim());
  if (!m) return null;
  const h = Number(m[1]);
  const min = Number(m[2]);
  return h < 24 && min < 60 ? h * 60 + min : null;
}

/** The UTC day (YYYY-MM-DD) a time falls on. */
export function utcDay(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** Today's scheduled time (UTC). */
export function scheduledToday(now: Date, runAtMinutes: number): Date {
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  return new Date(d.getTime() + runAtMinutes * 60_000);
}

/** The next scheduled time strictly after `now`. */
export function nextRunAt(now: Date, runAtMinutes: number): Date {
  const today = scheduledToday(now, runAtMinutes);
  return today.getTime() > now.getTime() ? today : new Date(today.getTime() + 86_400_000);
}

/**
 * A run is due once today's time has come and today has no run yet — so a service that was down
 * at the scheduled time runs when it comes back, and replicas run once a day between them.
 */
export function runDue(now: Date, runAtMinutes: number, lastRunDay: string | null): boolean {
  return now.getTime() >= scheduledToday(now, runAtMinutes).getTime() && lastRunDay !== utcDay(now);
}

/** Anonymous transcripts created before this have expired. */
export function retentionCutoff(now: Date, days: number): Date {
  return new Date(now.getTime() - days * 86_400_000);
}

/** Anonymous transcripts created before the cutoff expire; a soft-deleted one waits for its owner. */
export function isExpired(t: { user_id: string | null; deleted_at: string | null; created_at: string }, cutoff: Date): boolean {
  return t.user_id === null && t.deleted_at === null && new Date(t.created_at).getTime() < cutoff.getTime();
}

/** What retention.transcript_expired says about one expired transcript. */
export function expiryAnnouncement(
  t: { id: string; meeting_id: string | null; recording_id: string | null; created_at: string },
  retentionDays: number,
  now: Date,
): TranscriptExpired {
  return {
    transcript_id: t.id,
    meeting_id: t.meeting_id,
    recording_id: t.recording_id,
    transcript_created_at: t.created_at,
    retention_days: retentionDays,
    expired_at: now.toISOString(),
  };
}
