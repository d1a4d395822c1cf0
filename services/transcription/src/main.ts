// Container entry point: run the transcription service alone.
import { runMain } from "@scribe/kit";
import { transcriptionService } from "./service";

await runMain([transcriptionService]);
