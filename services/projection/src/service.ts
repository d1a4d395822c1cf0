// The projection service: the only writer of the transcript read model (TRANSCRIPTS, ROOMS and
// RECORDINGS events), and the service that answers transcript reads from it.
import { ROOM_FEED_CHANNEL } from "@scribe/contracts";
import { NotifiedWatermark, defineService } from "@scribe/kit";
import { VersionWaiters } from "./await-version";
import { ProjectionConfig } from "./config";
import { registerConsumers } from "./consumers";
import { startLagJob } from "./lag";
import { registerQueries } from "./queries";
import { startSearchFill } from "./search-fill";
import { APPLIED_CHANNEL, roomFeedPosition } from "./store";

export const projectionService = defineService({
  name: "projection",
  config: ProjectionConfig,
  async start(rt) {
    const waiters = new VersionWaiters();
    const listener = await rt.sql.listen(APPLIED_CHANNEL, (payload) => waiters.onApplied(payload));
    const roomFeed = await NotifiedWatermark.follow(rt.sql, ROOM_FEED_CHANNEL, () => roomFeedPosition(rt.sql));
    registerQueries(rt.rpc, rt.sql, rt.config, waiters, roomFeed.watermark);
    const consumers = registerConsumers(rt);
    const stopLag = startLagJob(
      rt.bus,
      consumers.map((c) => ({ stream: c.stream, durable: c.runner.durable })),
      rt.config.PROJECTION_LAG_POLL_MS,
      rt.log,
      rt.clock,
    );
    const searchFill = startSearchFill(rt.sql, rt.log, { busy: () => consumers.some((c) => c.runner.behind) });
    rt.onStop(async () => {
      stopLag();
      await searchFill.stop();
      waiters.close();
      await listener.unlisten();
      await roomFeed.stop();
    });
    return { waiters };
  },
});
