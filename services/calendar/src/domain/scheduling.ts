// When a room's feed is synced and how much of it: the window, the schedule with its jitter, when
// a conditional request may end a run as UNCHANGED, and how a room change moves the next run.
import type { SyncWindow } from "./feed";

/** Events that started up to an hour ago are still synced (reference window start). */
export const SYNC_LOOKBACK_MS = 3600_000;
/**
 * A feed that did not change is only UNCHANGED while the events stored from it still reach this far
 * ahead; after that it is read again in full, so recurring instances keep entering the window
 * although the feed text stays the same.
 */
export const MIN_COVERAGE_MS = 24 * 3600_000;
/** The jitter added to a room's schedule is at most a tenth of its interval, and at most a minute. */
const MAX_JITTER_MS = 60_000;

/** The window one sync reads: from an hour ago to `horizonHours` ahead. */
export function syncWindow(now: Date, horizonHours: number): SyncWindow {
  return { from: new Date(now.getTime() - SYNC_LOOKBACK_MS), to: new Date(now.getTime() + horizonHours * 3600_000) };
}

/** Due when never attempted or the interval has passed since the last attempt (success or not). */
export function isDue(lastAttemptAt: Date | null, intervalSeconds: number, now: Date): boolean {
  return lastAttemptAt === null || now.getTime() - lastAttemptAt.getTime() >= intervalSeconds * 1000;
}

/** Spreads rooms with the same interval over time so they do not all fetch in the same second. */
export function jitterMs(intervalSeconds: number, random: () => number): number {
  return Math.floor(random() * Math.min(intervalSeconds * 100, MAX_JITTER_MS));
}

export function nextSyncAt(after: Date, intervalSeconds: number, random: () => number): Date {
  return new Date(after.getTime() + intervalSeconds * 1000 + jitterMs(intervalSeconds, random));
}

/** Feeds are fetched over http(s); calendar apps hand them out as webcal://. */
export function feedRequestUrl(icsUrl: string): string {
  return icsUrl.replace(/^webcal:\/\//i, "https://");
}

export interface StoredSync {
  /** The feed URL the stored hash, ETag and events came from. */
  syncedFeedUrl: string | null;
  /** The room URL the stored events were matched against. */
  matchedRoomUrl: string | null;
  contentHash: string | null;
  /** End of the window the stored events were read for. */
  windowEnd: Date | null;
}

/**
 * Whether a feed identical to the last one may end the run as UNCHANGED (and the stored ETag be
 * sent): only if the stored events were read from the same URL, for the same room URL, and still
 * cover MIN_COVERAGE_MS ahead.
 */
export function mayBeUnchanged(stored: StoredSync, current: { feedUrl: string; roomUrl: string; now: Date }): boolean {
  return (
    stored.contentHash !== null &&
    stored.syncedFeedUrl === current.feedUrl &&
    stored.matchedRoomUrl === current.roomUrl &&
    stored.windowEnd !== null &&
    stored.windowEnd.getTime() - current.now.getTime() >= MIN_COVERAGE_MS
  );
}

export interface RoomIcsSettings {
  name: string;
  ics_url: string | null;
  ics_enabled: boolean;
  ics_fetch_interval: number;
}

const participates = (r: RoomIcsSettings) => r.ics_enabled && r.ics_url !== null && r.ics_url !== "";

/**
 * The next run after a room changed: null when the room does not sync, soon (within the jitter) when
 * it starts syncing or its feed URL or name changed (both change what is read), rescheduled from the
 * last attempt when only the interval changed, else unchanged (`undefined`).
 */
export function scheduleAfterRoomChange(
  prev: (RoomIcsSettings & { lastAttemptAt: Date | null; nextSyncAt: Date | null }) | null,
  next: RoomIcsSettings,
  now: Date,
  random: () => number,
): Date | null | undefined {
  if (!participates(next)) return null;
  const soon = new Date(now.getTime() + jitterMs(next.ics_fetch_interval, random));
  if (prev === null || !participates(prev) || prev.nextSyncAt === null) return soon;
  if (prev.ics_url !== next.ics_url || prev.name !== next.name) return soon;
  if (prev.ics_fetch_interval !== next.ics_fetch_interval) {
    return prev.lastAttemptAt === null ? soon : nextSyncAt(prev.lastAttemptAt, next.ics_fetch_interval, random);
  }
  return undefined;
}
