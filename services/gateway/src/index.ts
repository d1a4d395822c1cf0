export { gatewayService } from "./service";
export { createApp } from "./app";
