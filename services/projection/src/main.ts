// Container entry point: run the projection service alone.
import { runMain } from "@scribe/kit";
import { projectionService } from "./service";

await runMain([projectionService]);
