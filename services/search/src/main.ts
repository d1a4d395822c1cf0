// Container entry point: run the search service alone.
import { runMain } from "@scribe/kit";
import { searchService } from "./service";

await runMain([searchService]);
