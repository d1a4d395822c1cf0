// Environment of the calendar service: ICS fetching limits, the sync schedule and horizon, and the
// periodic job that makes calendar meetings ahead of their events.
import { SharedSettings, envInt } from "@scribe/kit";
import { z } from "zod";

export const CalendarConfig = z.object({
  UI_BASE_URL: SharedSettings.UI_BASE_URL,
  ALLOW_PRIVATE_URLS: SharedSettings.ALLOW_PRIVATE_URLS,
  ICS_FETCH_TIMEOUT_MS: envInt(30_000, 1000, 50_000).describe("deadline of one ICS feed download, redirects included"),
  ICS_MAX_FEED_BYTES: envInt(5 * 1024 * 1024, 1024).describe("largest ICS feed accepted; a larger one ends the sync with an error"),
  ICS_MAX_REDIRECTS: envInt(5, 0, 20).describe("redirects followed when downloading an ICS feed"),
  ICS_SYNC_HORIZON_HOURS: envInt(168, 48, 24 * 366).describe(
    "how far ahead events (and instances of recurring ones) are read from a feed; at least 48",
  ),
  ICS_PARSE_TIMEOUT_MS: envInt(10_000, 10, 120_000).describe(
    "time budget of reading one feed (parse and recurrence expansion, in a worker thread); past it the sync fails and the events stay",
  ),
  ICS_MAX_EVENT_INSTANCES: envInt(2000, 1).describe(
    "most event instances (recurrences expanded) a feed may have in the sync window; more fails the sync and the events stay",
  ),
  ICS_SYNC_TICK_SECONDS: envInt(15, 0).describe("how often the scheduler looks for rooms whose feed is due; 0 disables it in this process"),
  ICS_SYNC_CONCURRENCY: envInt(2, 1, 32).describe("feeds synced at the same time by one process"),
  CALENDAR_MEETINGS_TICK_SECONDS: envInt(30, 0).describe(
    "how often meetings are made for calendar events about to start; 0 disables it in this process",
  ),
});
export type CalendarConfig = z.infer<typeof CalendarConfig>;
