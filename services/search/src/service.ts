// The search service: full-text search over the transcript read model (read-only).
import { defineService } from "@scribe/kit";
import { SearchConfig } from "./config";
import { registerQueries } from "./queries";
import { SEARCH_DB_SETTINGS, readModelReady } from "./store";

export const searchService = defineService({
  name: "search",
  config: SearchConfig,
  dbSettings: SEARCH_DB_SETTINGS,
  async start({ rpc, sql, config, addReadinessCheck }) {
    registerQueries(rpc, sql, config);
    addReadinessCheck(() => readModelReady(sql));
  },
});
