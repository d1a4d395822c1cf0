// Container entry point: run the calendar service alone.
import { runMain } from "@scribe/kit";
import { calendarService } from "./service";

await runMain([calendarService]);
