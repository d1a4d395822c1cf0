// Container entry point: run the rooms service alone.
import { runMain } from "@scribe/kit";
import { roomsService } from "./service";

await runMain([roomsService]);
