// The calendar service: ICS feed sync per room (scheduler, conditional downloads, SSRF-guarded),
// the rooms' calendar events, upcoming events, calendar meetings made ahead and on early join.
import { createHttpClient, defineService, runPeriodically } from "@scribe/kit";
import { registerCommands, calendarCommands } from "./commands";
import { CalendarConfig } from "./config";
import { registerConsumers } from "./consumers";
import { createFeedParser } from "./feed-parser";
import { MEETINGS_JOB, calendarJobs } from "./jobs";
import { calendarQueries, registerQueries } from "./queries";
import { SYNC_JOB, createSyncer } from "./sync";

export const calendarService = defineService({
  name: "calendar",
  config: CalendarConfig,
  async start(rt) {
    const { rpc, sql, bus, config, log, onStop } = rt;
    const clock = rt.clock;
    const random = Math.random;
    const http = createHttpClient({
      guard: { allowPrivate: config.ALLOW_PRIVATE_URLS },
      timeoutMs: config.ICS_FETCH_TIMEOUT_MS,
      maxRedirects: config.ICS_MAX_REDIRECTS,
      maxBodyBytes: config.ICS_MAX_FEED_BYTES,
      userAgent: "Scribe-Calendar/1.0",
    });
    onStop(() => http.close());
    const parser = createFeedParser(config);
    const syncRoom = createSyncer({ sql, http, parser, config, log: log.child({ job: SYNC_JOB }), random });
    const commandDeps = { sql, bus, syncRoom, rpcTimeoutMs: config.RPC_TIMEOUT_MS };
    registerCommands(rpc, commandDeps, clock);
    registerQueries(rpc, sql, clock);
    registerConsumers(rt);
    const jobs = calendarJobs({ sql, bus, syncRoom, config, log, clock });
    if (config.ICS_SYNC_TICK_SECONDS > 0) {
      const job = runPeriodically(SYNC_JOB, config.ICS_SYNC_TICK_SECONDS * 1000, () => jobs.syncDueRooms(), log);
      onStop(() => job.stop());
    }
    if (config.CALENDAR_MEETINGS_TICK_SECONDS > 0) {
      const job = runPeriodically(MEETINGS_JOB, config.CALENDAR_MEETINGS_TICK_SECONDS * 1000, () => jobs.createUpcomingMeetings(), log);
      onStop(() => job.stop());
    }
    // Tests (and an operator's one-off run) drive the jobs and operations with their own clock.
    return {
      syncRoom,
      ...jobs,
      queries: calendarQueries(sql, clock),
      commands: calendarCommands(commandDeps),
      parsesInFlight: parser.inFlight,
    };
  },
});
