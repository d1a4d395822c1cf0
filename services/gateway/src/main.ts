// Container entry point: run the gateway alone.
import { runMain } from "@scribe/kit";
import { gatewayService } from "./service";

await runMain([gatewayService]);
