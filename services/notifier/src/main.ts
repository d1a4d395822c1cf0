// Container entry point: run the notifier service alone.
import { runMain } from "@scribe/kit";
import { notifierService } from "./service";

await runMain([notifierService]);
