// One ICS sync of one room: under the room's sync lock (a second sync at the same time is SKIPPED),
// download the feed with a conditional request, end UNCHANGED when it did not change, else read it,
// store the events that belong to the room and soft-delete those that left it. A failing download
// or an unreadable feed ends the run in ERROR with the reason kept, and the stored events stay.
import { createHash } from "node:crypto";
import { ICSSyncResult, makeEvent } from "@scribe/contracts";
import { HttpError, emit, metrics, type HttpClient, type Logger, type Sql, type Tx } from "@scribe/kit";
import type { CalendarConfig } from "./config";
import { planEventWrites } from "./domain/event-writes";
import { FeedError } from "./domain/feed";
import type { FeedParser } from "./feed-parser";
import { locationMatchesRoom, roomUiUrl } from "./domain/matching";
import { feedRequestUrl, isDue, mayBeUnchanged, nextSyncAt, syncWindow } from "./domain/scheduling";
import { eventsForSync, insertEvent, recordSyncRun, softDeleteEvents, tryLockRoomSync, updateEvent, type CalendarRoom } from "./store";
import { roomById } from "./room-copy";

export const SOURCE = "scribe/calendar";
export const SYNC_JOB = "calendar.sync";

export interface SyncDeps {
  sql: Sql;
  http: HttpClient;
  parser: FeedParser;
  config: Pick<CalendarConfig, "UI_BASE_URL" | "ICS_SYNC_HORIZON_HOURS">;
  log: Logger;
  random: () => number;
}

export interface SyncOptions {
  now: Date;
  /** The owner asked: run even if the interval has not passed (the reference refuses, quirk 12). */
  force?: boolean;
}

const skipped = (reason: string): ICSSyncResult => ICSSyncResult.parse({ status: "skipped", reason });
const md5 = (body: Buffer) => createHash("md5").update(body).digest("hex");

function reasonOf(e: unknown): string {
  if (e instanceof HttpError || e instanceof FeedError) return e.message;
  return `Sync failed: ${e instanceof Error ? e.message : String(e)}`;
}

export type Syncer = (roomId: string, opts: SyncOptions) => Promise<ICSSyncResult>;

export function createSyncer({ sql, http, parser, config, log, random }: SyncDeps): Syncer {
  async function run(tx: Tx, room: CalendarRoom & { ics_url: string }, now: Date): Promise<ICSSyncResult> {
    const feedUrl = room.ics_url;
    const roomUrl = roomUiUrl(config.UI_BASE_URL, room.name);
    const unchangedAllowed = mayBeUnchanged(
      {
        syncedFeedUrl: room.synced_feed_url,
        matchedRoomUrl: room.matched_room_url,
        contentHash: room.content_hash,
        windowEnd: room.window_end,
      },
      { feedUrl, roomUrl, now },
    );
    const next = nextSyncAt(now, room.ics_fetch_interval, random);

    const failed = async (error: string): Promise<ICSSyncResult> => {
      await recordSyncRun(tx, room.id, { attemptedAt: now, nextSyncAt: next, status: "error", error });
      await emit(
        tx,
        makeEvent("calendar.sync.failed", { room_id: room.id, attempted_at: now.toISOString(), error }, { source: SOURCE, time: now }),
      );
      return ICSSyncResult.parse({ status: "error", error });
    };
    const completed = async (
      result: Omit<ICSSyncResult, "status" | "hash" | "error" | "reason"> & { status: "success" | "unchanged"; hash: string },
      httpEtag: string | null,
      read?: { windowEnd: Date },
    ): Promise<ICSSyncResult> => {
      await recordSyncRun(tx, room.id, {
        attemptedAt: now,
        nextSyncAt: next,
        status: result.status,
        error: null,
        synced: {
          contentHash: result.hash,
          httpEtag,
          feedUrl,
          read: read && { roomUrl, windowEnd: read.windowEnd, eventsFound: result.events_found, totalEvents: result.total_events },
        },
      });
      const data = { room_id: room.id, synced_at: now.toISOString(), http_etag: httpEtag, ...result };
      await emit(tx, makeEvent("calendar.sync.completed", data, { source: SOURCE, time: now }));
      return ICSSyncResult.parse(result);
    };
    const unchanged = (hash: string, httpEtag: string | null) =>
      completed(
        {
          status: "unchanged",
          hash,
          events_found: room.events_found,
          total_events: room.total_events,
          events_created: 0,
          events_updated: 0,
          events_deleted: 0,
        },
        httpEtag,
      );

    // The stored ETag is only sent while an identical feed could end the run unchanged.
    const headers: Record<string, string> = { accept: "text/calendar, text/plain;q=0.9, */*;q=0.1" };
    if (unchangedAllowed && room.http_etag) headers["if-none-match"] = room.http_etag;
    let res;
    try {
      res = await http.request(feedRequestUrl(feedUrl), { headers });
    } catch (e) {
      return failed(reasonOf(e));
    }
    if (res.status === 304 && headers["if-none-match"] !== undefined) return unchanged(room.content_hash!, room.http_etag);
    if (res.status < 200 || res.status > 299) return failed(`The feed answered HTTP ${res.status}`);
    const hash = md5(res.body);
    const httpEtag = res.headers.etag ?? null;
    if (unchangedAllowed && hash === room.content_hash) return unchanged(hash, httpEtag);

    const window = syncWindow(now, config.ICS_SYNC_HORIZON_HOURS);
    let inWindow;
    try {
      inWindow = await parser.parse(res.body.toString("utf8"), window);
    } catch (e) {
      return failed(reasonOf(e));
    }
    const matched = inWindow.filter((e) => locationMatchesRoom(e.location, roomUrl));
    let counts: { created: number; updated: number; deleted: number };
    try {
      // A savepoint: if writing fails, the run is still recorded as an error in this transaction.
      counts = await tx.savepoint(async (sp) => {
        const writes = planEventWrites(await eventsForSync(sp, room.id, matched, now), matched, now);
        for (const e of writes.create) await insertEvent(sp, room.id, e, now);
        for (const u of writes.update) await updateEvent(sp, u.id, u.event, now);
        await softDeleteEvents(sp, writes.remove, now);
        return { created: writes.create.length, updated: writes.update.length, deleted: writes.remove.length };
      });
    } catch (e) {
      log.error({ err: e, roomId: room.id }, "writing calendar events failed");
      return failed(reasonOf(e));
    }
    return completed(
      {
        status: "success",
        hash,
        events_found: matched.length,
        total_events: inWindow.length,
        events_created: counts.created,
        events_updated: counts.updated,
        events_deleted: counts.deleted,
      },
      httpEtag,
      { windowEnd: window.to },
    );
  }

  return async function syncRoom(roomId, { now, force = false }) {
    const result = await sql.begin(async (tx) => {
      if (!(await tryLockRoomSync(tx, roomId))) return skipped("Sync already in progress");
      const room = await roomById(tx, roomId, now);
      if (!room || !room.ics_enabled || !room.ics_url) return skipped("ICS not configured");
      if (!force && !isDue(room.last_attempt_at, room.ics_fetch_interval, now)) return skipped("Not time to sync yet");
      return run(tx, { ...room, ics_url: room.ics_url }, now);
    });
    if (result.status === "skipped") metrics.jobSkipped.inc({ job: SYNC_JOB });
    else metrics.jobProcessed.inc({ job: SYNC_JOB });
    log.info({ job: SYNC_JOB, roomId, ...result }, "ics sync");
    return result;
  };
}
