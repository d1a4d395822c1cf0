// Calendar test support: a local ICS feed server (feeds generated with ical-generator, an ETag that
// honours If-None-Match, errors, a request held until released, bodies of any size, every request
// recorded), the calendar service's operations with an injected clock, and rooms with a feed.
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { calendarCommands, calendarJobs, calendarQueries, Syncer } from "@scribe/calendar/testing";
import { ok, type Schemas, type ScribeClient } from "@scribe/client";
import { asyncListener } from "@scribe/kit";
import { eventually } from "@scribe/kit/testing";
import icalGen, { type ICalAttendeeData, type ICalEventData } from "ical-generator";
import type { TestSystem } from "./system";

/** The web app's address in test systems: events whose location is `<this>/<room>` belong to the room. */
export const UI_BASE_URL = "http://localhost:3000";
/** Calendar settings of test systems: feeds on loopback, jobs driven by the tests, rooms matched by UI_BASE_URL. */
export const CALENDAR_TEST_ENV = {
  ALLOW_PRIVATE_URLS: "true",
  ICS_SYNC_TICK_SECONDS: "0",
  CALENDAR_MEETINGS_TICK_SECONDS: "0",
  UI_BASE_URL,
};
export const roomLocation = (name: string) => `${UI_BASE_URL}/${name}`;

/** What the calendar service's start() returns: its operations, each taking `now`. */
export interface CalendarService extends ReturnType<typeof calendarJobs> {
  syncRoom: Syncer;
  queries: ReturnType<typeof calendarQueries>;
  commands: ReturnType<typeof calendarCommands>;
}
export function calendarOf(sys: TestSystem): CalendarService {
  const svc = sys.process.services.find((s) => s.name === "calendar");
  if (!svc) throw new Error("the calendar service is not running");
  return svc.exports as unknown as CalendarService;
}

/** Create a room and wait until the calendar service has it (room events arrive asynchronously). */
export async function roomWithCalendar(api: ScribeClient, body: Schemas["CreateRoom"]): Promise<{ id: string; name: string }> {
  const room = await ok(api.POST("/v1/rooms", { body }));
  await eventually(
    async () => (await api.GET("/v1/rooms/{room_name}/meetings", { params: { path: { room_name: room.name } } })).response.status === 200,
    { message: `room ${room.name} reached the calendar service` },
  );
  return room;
}

export interface FeedRoute {
  body: string;
  status?: number;
  /** Send an ETag and answer 304 to a matching If-None-Match (default true). */
  etag?: boolean;
  /** Hold the request until the gate is opened. */
  gate?: Promise<void>;
}

export interface FeedRequest {
  path: string;
  ifNoneMatch: string | null;
  userAgent: string | null;
  answered: number;
}

export interface FeedServer {
  url(path: string): string;
  set(path: string, route: FeedRoute | string): void;
  requests(path: string): FeedRequest[];
  /** Resolves once `path` has received `count` requests (in flight or answered). */
  received(path: string, count: number): Promise<void>;
  close(): Promise<void>;
}

const etagOf = (body: string) => `"${createHash("sha1").update(body).digest("hex")}"`;

export async function startFeedServer(): Promise<FeedServer> {
  const routes = new Map<string, FeedRoute>();
  const log: FeedRequest[] = [];
  const waiters: { path: string; count: number; resolve: () => void }[] = [];
  const server: Server = createServer(
    asyncListener(async (req, res) => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      const entry: FeedRequest = {
        path,
        ifNoneMatch: req.headers["if-none-match"] ?? null,
        userAgent: req.headers["user-agent"] ?? null,
        answered: 0,
      };
      log.push(entry);
      for (const w of waiters.filter((w) => log.filter((r) => r.path === w.path).length >= w.count)) w.resolve();
      const route = routes.get(path);
      if (!route) return void res.writeHead(404).end("no such feed");
      if (route.gate) await route.gate;
      const headers: Record<string, string> = { "content-type": "text/calendar; charset=utf-8" };
      if (route.etag !== false) {
        const tag = etagOf(route.body);
        headers.etag = tag;
        if (entry.ifNoneMatch === tag) {
          entry.answered = 304;
          return void res.writeHead(304, headers).end();
        }
      }
      entry.answered = route.status ?? 200;
      res.writeHead(entry.answered, headers).end(route.body);
    }),
  );
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    set: (path, route) => void routes.set(path, typeof route === "string" ? { body: route } : route),
    requests: (path) => log.filter((r) => r.path === path),
    received: (path, count) =>
      new Promise((resolve) => {
        if (log.filter((r) => r.path === path).length >= count) return resolve();
        waiters.push({ path, count, resolve });
      }),
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

export interface FeedEventSpec extends Omit<ICalEventData, "attendees"> {
  attendees?: ICalAttendeeData[];
}

/** An ICS feed of these events. */
export function icsFeed(events: FeedEventSpec[]): string {
  const cal = icalGen({ prodId: "//scribe//tests//EN" });
  for (const { attendees, ...data } of events) {
    const ev = cal.createEvent(data);
    for (const a of attendees ?? []) ev.createAttendee(a);
  }
  return cal.toString();
}

/** Now, to the second: ICS times have no milliseconds. */
export const wholeSecondNow = () => new Date(Math.floor(Date.now() / 1000) * 1000);

/** A time `minutes` from `base`. */
export const minutesFrom = (base: Date, minutes: number) => new Date(base.getTime() + minutes * 60_000);
