// Container entry point: run the recordings service alone.
import { runMain } from "@scribe/kit";
import { recordingsService } from "./service";

await runMain([recordingsService]);
