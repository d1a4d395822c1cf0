// Environment of the search service (reference names: PUBLIC_MODE, LONG_SUMMARY_MAX_SNIPPETS; the
// other snippet sizes are the reference's hard-coded numbers, exposed with the same defaults).
import { SharedSettings, envInt } from "@scribe/kit";
import { z } from "zod";

export const SearchConfig = z.object({
  PUBLIC_MODE: SharedSettings.PUBLIC_MODE,
  AUTH_BACKEND: SharedSettings.AUTH_BACKEND,
  LONG_SUMMARY_MAX_SNIPPETS: envInt(2, 0, 10).describe(
    "search snippets taken from long_summary at most; the WebVTT text fills the remaining slots",
  ),
  SEARCH_MAX_SNIPPETS: envInt(3, 0, 10).describe("search snippets per result at most"),
  SEARCH_SNIPPET_CONTEXT_CHARS: envInt(50, 0, 1000).describe("characters a search snippet keeps before the match"),
  SEARCH_SNIPPET_MAX_CHARS: envInt(150, 1, 2000).describe("length of a search snippet's window (before trimming and ellipses)"),
  SEARCH_EXACT_UP_TO: envInt(1000, 1, 1_000_000).describe(
    "matches a text search counts exactly (and, for several words, ranks exactly); beyond, total is this number with total_capped true, several words rank the best this many by the RUM distance (on GIN: the first the index yields); a single word's page is exact with RUM at any count",
  ),
  SEARCH_INDEX: z
    .enum(["auto", "gin"])
    .default("auto")
    .describe("auto: take ranked candidates from the RUM index when the read model has it; gin: always the GIN fallback"),
});
export type SearchConfig = z.infer<typeof SearchConfig>;
