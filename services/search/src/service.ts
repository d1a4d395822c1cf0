// The search service: full-text search over the transcript read model (read-only).
import { ROOM_FEED_CHANNEL } from "@scribe/contracts";
import { NotifiedWatermark, defineService } from "@scribe/kit";
import { SearchConfig } from "./config";
import { registerQueries } from "./queries";
import { SEARCH_DB_SETTINGS, readModelReady, roomFeedPosition } from "./store";

export const searchService = defineService({
  name: "search",
  config: SearchConfig,
  dbSettings: SEARCH_DB_SETTINGS,
  async start({ rpc, sql, config, addReadinessCheck, onStop }) {
    const roomFeed = await NotifiedWatermark.follow(sql, ROOM_FEED_CHANNEL, () => roomFeedPosition(sql));
    onStop(roomFeed.stop);
    registerQueries(rpc, sql, config, roomFeed.watermark);
    addReadinessCheck(() => readModelReady(sql));
  },
});
