// The meetings service: meetings on the video platforms, joins and tokens, participants, consent,
// e-mail recipients, incoming platform webhooks and the periodic processing that deactivates meetings.
import { defineService, runPeriodically } from "@scribe/kit";
import { registerCommands } from "./commands";
import { MeetingsConfig } from "./config";
import { startMeetingCreation } from "./creation";
import { registerConsumers } from "./consumers";
import { PROCESS_JOB, meetingProcessor } from "./jobs";
import { createPlatforms } from "./platforms";
import { registerQueries } from "./queries";
import { registerWebhooks } from "./webhooks";

export const meetingsService = defineService({
  name: "meetings",
  config: MeetingsConfig,
  async start(rt) {
    const { rpc, sql, config, log, onStop, clock } = rt;
    const platforms = createPlatforms(config, log);
    const creation = await startMeetingCreation({
      sql,
      log: log.child({ op: "meetings.create" }),
      leaseMs: config.MEETING_CREATION_LEASE_MS,
      // Past the request's deadline the caller has gone (the gateway answered 504).
      waitMs: config.RPC_TIMEOUT_MS,
    });
    onStop(() => creation.stop());
    registerCommands(rpc, sql, platforms, creation, clock);
    registerQueries(rpc, sql, clock);
    registerWebhooks(rpc, sql, platforms, clock);
    registerConsumers(rt);
    const processMeetings = meetingProcessor({ sql, platforms, config, log: log.child({ job: "meetings.process" }), clock });
    if (config.MEETING_PROCESS_INTERVAL_SECONDS > 0) {
      const job = runPeriodically(PROCESS_JOB, config.MEETING_PROCESS_INTERVAL_SECONDS * 1000, processMeetings, log);
      onStop(() => job.stop());
    }
    // Tests (and an operator's one-off run) drive processing rounds directly.
    return { processMeetings };
  },
});
