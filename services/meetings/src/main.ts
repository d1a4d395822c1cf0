// Container entry point: run the meetings service alone.
import { runMain } from "@scribe/kit";
import { meetingsService } from "./service";

await runMain([meetingsService]);
