// Reading an ICS feed into the event instances that overlap the sync window, whatever room they
// belong to. Recurring series are expanded inside the window (EXDATE removed, RECURRENCE-ID
// overrides applied, moved instances found at their new time); each instance is keyed by its UID
// and its original start, so a moved or edited instance updates its row instead of replacing it.
// Times: zoned values are converted to UTC, floating times and all-day dates are read as UTC (as
// the reference does, so the host's time zone never changes the result).
import { createHash } from "node:crypto";
import ical from "node-ical";
import type { CalendarAttendee } from "@scribe/contracts";
import { parseAttendees } from "./attendees";

/** What a calendar event is, in the feed and in storage. */
export interface EventContent {
  /** The feed's UID (a stable synthetic one for the rare event that has none). */
  uid: string;
  /** Original start (UTC ISO) of an instance of a recurring series; "" for a single event. */
  recurrenceId: string;
  title: string | null;
  description: string | null;
  location: string | null;
  start: Date;
  end: Date;
  attendees: CalendarAttendee[];
}

export interface FeedEvent extends EventContent {
  /** The VEVENT text(s) of this UID, DTSTAMP lines dropped (they change on every export). */
  raw: string | null;
}

export interface SyncWindow {
  from: Date;
  to: Date;
}

/** The feed cannot be used; the room keeps its previous events. */
export class FeedError extends Error {
  override name = "FeedError";
}

/** Events with no DTEND (and no DURATION) last an hour, as in the reference. */
const DEFAULT_DURATION_MS = 3600_000;
/** A series yields at most this many instances per sync: a guard against runaway rules. */
export const MAX_INSTANCES_PER_SERIES = 1000;
/** Rules this frequent are not meetings, and expanding them over days is costly: skipped. */
const SKIPPED_FREQUENCIES = new Set(["SECONDLY", "MINUTELY"]);

type IcalDate = Date & { tz?: unknown; dateOnly?: boolean };

/** node-ical builds all-day and floating values in the host's local time; read their wall clock as UTC. */
export function toUtc(d: IcalDate, dateOnly = false): Date {
  if (dateOnly || d.dateOnly === true) return new Date(Date.UTC(d.getFullYear(), d.getMonth(), d.getDate()));
  if (typeof d.tz !== "string") {
    return new Date(
      Date.UTC(d.getFullYear(), d.getMonth(), d.getDate(), d.getHours(), d.getMinutes(), d.getSeconds(), d.getMilliseconds()),
    );
  }
  return new Date(d.getTime());
}

function text(value: unknown): string | null {
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && "val" in value && typeof (value as { val: unknown }).val === "string") {
    return (value as { val: string }).val;
  }
  return null;
}

function isDate(value: unknown): value is IcalDate {
  return value instanceof Date && !Number.isNaN(value.getTime());
}

function cancelled(ev: Record<string, unknown>): boolean {
  return typeof ev.status === "string" && ev.status.toUpperCase() === "CANCELLED";
}

/** Unfolded VEVENT blocks of the feed by UID (all blocks of a UID joined: master and overrides). */
export function rawEventBlocks(feed: string): Map<string, string> {
  const lines = feed.replace(/\r?\n[ \t]/g, "").split(/\r?\n/);
  const blocks = new Map<string, string[]>();
  let current: string[] | null = null;
  let uid: string | null = null;
  for (const line of lines) {
    if (/^BEGIN:VEVENT$/i.test(line.trim())) {
      current = [];
      uid = null;
    }
    if (current === null) continue;
    const m = /^UID(?:;[^:]*)?:(.*)$/i.exec(line);
    if (m) uid = m[1]!.trim();
    if (!/^DTSTAMP[;:]/i.test(line)) current.push(line);
    if (/^END:VEVENT$/i.test(line.trim())) {
      if (uid !== null) blocks.set(uid, [...(blocks.get(uid) ?? []), current.join("\n")]);
      current = null;
    }
  }
  return new Map([...blocks].map(([k, v]) => [k, v.join("\n")]));
}

function overlaps(start: Date, end: Date, window: SyncWindow): boolean {
  return end.getTime() >= window.from.getTime() && start.getTime() <= window.to.getTime();
}

function endOf(start: Date, end: Date | null, dateOnly: boolean): Date {
  if (end !== null && end.getTime() > start.getTime()) return end;
  // node-ical gives a timed event without DTEND/DURATION a zero length; an all-day one a day.
  return new Date(start.getTime() + (dateOnly ? 86_400_000 : DEFAULT_DURATION_MS));
}

interface Details {
  title: string | null;
  description: string | null;
  location: string | null;
  attendees: CalendarAttendee[];
}
function detailsOf(ev: Record<string, unknown>): Details {
  return {
    title: text(ev.summary),
    description: text(ev.description),
    location: text(ev.location),
    attendees: parseAttendees(ev.attendee, ev.organizer),
  };
}

function uidOf(ev: Record<string, unknown>, start: Date): string {
  if (typeof ev.uid === "string" && ev.uid !== "") return ev.uid;
  // No UID (invalid, but seen): a key from what identifies the event, stable across fetches.
  const key = `${start.toISOString()}|${text(ev.summary) ?? ""}|${text(ev.location) ?? ""}`;
  return `scribe-no-uid-${createHash("sha1").update(key).digest("hex")}`;
}

/** How far RECURRENCE-ID overrides move instances: the expansion looks that much beyond the window. */
function maxShiftMs(ev: Record<string, unknown>): number {
  const overrides =
    ev.recurrences && typeof ev.recurrences === "object" ? Object.values(ev.recurrences as Record<string, Record<string, unknown>>) : [];
  let shift = 0;
  for (const o of overrides) {
    if (isDate(o.start) && isDate(o.recurrenceid)) shift = Math.max(shift, Math.abs(o.start.getTime() - o.recurrenceid.getTime()));
  }
  return shift;
}

function expandSeries(ev: Record<string, unknown>, uid: string, raw: string | null, window: SyncWindow): FeedEvent[] {
  const freq = (ev.rrule as { options?: { freq?: unknown } } | undefined)?.options?.freq;
  if (typeof freq === "string" && SKIPPED_FREQUENCIES.has(freq.toUpperCase())) return [];
  const shift = maxShiftMs(ev);
  const instances = ical.expandRecurringEvent(ev as unknown as Parameters<typeof ical.expandRecurringEvent>[0], {
    from: new Date(window.from.getTime() - shift),
    to: new Date(window.to.getTime() + shift),
    expandOngoing: true,
  });
  const out: FeedEvent[] = [];
  for (const instance of instances) {
    const source = instance.event as unknown as Record<string, unknown>;
    if (cancelled(source)) continue;
    const start = toUtc(instance.start, instance.isFullDay);
    const end = endOf(start, toUtc(instance.end, instance.isFullDay), instance.isFullDay);
    if (!overlaps(start, end, window)) continue;
    // The original slot names the instance; an override carries it as RECURRENCE-ID.
    const original = instance.isOverride && isDate(source.recurrenceid) ? toUtc(source.recurrenceid, instance.isFullDay) : start;
    out.push({ uid, recurrenceId: original.toISOString(), start, end, raw, ...detailsOf(source) });
    if (out.length >= MAX_INSTANCES_PER_SERIES) break;
  }
  return out;
}

const tooManyInstances = (max: number) =>
  new FeedError(`The feed has more than ${max} event instances in the sync window (ICS_MAX_EVENT_INSTANCES)`);

/**
 * Every event instance of the feed overlapping `window`, cancelled ones left out.
 * Throws FeedError when the text is not a calendar, or has more than `maxInstances` instances there.
 */
export function parseFeed(feed: string, window: SyncWindow, opts: { maxInstances?: number } = {}): FeedEvent[] {
  const maxInstances = opts.maxInstances ?? Number.POSITIVE_INFINITY;
  if (!/^BEGIN:VCALENDAR/im.test(feed)) throw new FeedError("The feed is not an iCalendar file (no BEGIN:VCALENDAR)");
  let parsed: Record<string, unknown>;
  try {
    parsed = ical.sync.parseICS(feed) as unknown as Record<string, unknown>;
  } catch (e) {
    throw new FeedError(`The feed could not be parsed: ${(e as Error).message}`);
  }
  const raw = rawEventBlocks(feed);
  const events: FeedEvent[] = [];
  for (const value of Object.values(parsed)) {
    if (!value || typeof value !== "object") continue;
    const ev = value as Record<string, unknown>;
    if (ev.type !== "VEVENT" || cancelled(ev) || !isDate(ev.start)) continue;
    const dateOnly = ev.datetype === "date" || ev.start.dateOnly === true;
    const start = toUtc(ev.start, dateOnly);
    const uid = uidOf(ev, start);
    const rawText = raw.get(uid) ?? null;
    if (ev.rrule) {
      events.push(...expandSeries(ev, uid, rawText, window));
      if (events.length > maxInstances) throw tooManyInstances(maxInstances);
      continue;
    }
    const end = endOf(start, isDate(ev.end) ? toUtc(ev.end, dateOnly) : null, dateOnly);
    if (!overlaps(start, end, window)) continue;
    // A lone override (its series not in the feed) keeps its slot as key, so the series can join later.
    const recurrenceId = isDate(ev.recurrenceid) ? toUtc(ev.recurrenceid, dateOnly).toISOString() : "";
    events.push({ uid, recurrenceId, start, end, raw: rawText, ...detailsOf(ev) });
    if (events.length > maxInstances) throw tooManyInstances(maxInstances);
  }
  return events.sort((a, b) => a.start.getTime() - b.start.getTime() || a.uid.localeCompare(b.uid));
}
